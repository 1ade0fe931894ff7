//! quire-grammar: the grammars of the small structured documents that agents
//! and people share.
//!
//! The [`plan`] module parses plan documents (structured commit messages):
//!
//! ```
//! use quire_grammar::plan::PlanDocument;
//!
//! let document = PlanDocument::parse("feat(parser): Add spans\n\nKeep byte offsets.\n")?;
//! let header = document.header().unwrap();
//! assert_eq!(header.title(), Some("Add spans"));
//! assert_eq!(header.title.as_ref().unwrap().span.range(), 14..23); // where it was written
//! # Ok::<(), quire_grammar::plan::PlanError>(())
//! ```
//!
//! [`plan::parse`] gives the partial result and the warnings too, with any
//! [`plan::ParserConfig`].

// On docs.rs (`--cfg docsrs`, see Cargo.toml), each item behind a feature
// says which one; `doc_cfg` does that by itself since `doc_auto_cfg` was
// merged into it (Rust 1.92).
#![cfg_attr(docsrs, feature(doc_cfg))]

// The frontmatter property tests share the fuzz targets' checks
// (tests/support/frontmatter_model.rs), which name the crate
// `quire_grammar`.
#[cfg(test)]
extern crate self as quire_grammar;

pub mod commit;
pub mod diagnostics;
#[cfg(feature = "frontmatter")]
pub mod frontmatter;
/// The facts of one Markdown note: headings, links, tags, tasks, counts.
#[cfg(feature = "markdown")]
pub mod markdown;
mod named_enum;
pub mod plan;
pub mod span;
pub mod text;

/// The README's Rust examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The library page's Rust examples (docs/library.md), run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../docs/library.md")]
pub struct LibraryDoctests;
