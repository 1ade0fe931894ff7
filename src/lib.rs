//! quire: grammars for the small structured documents that agents and people
//! share, and tools over them.
//!
//! The [`plan`] module parses plan documents (structured commit messages):
//!
//! ```
//! use quire::plan::PlanDocument;
//!
//! let document = PlanDocument::parse("feat(parser): Add spans\n\nKeep byte offsets.\n")?;
//! let header = document.header().unwrap();
//! assert_eq!(header.title(), Some("Add spans"));
//! assert_eq!(header.title.as_ref().unwrap().span.range(), 14..23); // where it was written
//! # Ok::<(), quire::plan::PlanError>(())
//! ```
//!
//! [`plan::parse`] gives the partial result and the warnings too, with any
//! [`plan::ParserConfig`].

// On docs.rs (`--cfg docsrs`, see Cargo.toml), each item behind a feature
// says which one; `doc_cfg` does that by itself since `doc_auto_cfg` was
// merged into it (Rust 1.92).
#![cfg_attr(docsrs, feature(doc_cfg))]

// The frontmatter property tests share the fuzz targets' checks
// (tests/support/frontmatter_model.rs), which name the crate `quire`.
#[cfg(test)]
extern crate self as quire;

/// Conventional Commits messages: commitlint's rules and presets, `quire.toml`.
pub mod commit;
pub mod diagnostics;
pub mod embed;
pub mod frontmatter;
#[cfg(feature = "fs")]
pub mod fs;
pub mod kiln;
/// The facts of one Markdown note: headings, links, tags, tasks, counts.
pub mod markdown;
#[cfg(feature = "mcp")]
pub mod mcp;
#[cfg(feature = "nova")]
pub mod nova;
pub mod plan;
#[cfg(feature = "fs")]
pub mod planner;
pub mod span;
pub(crate) mod text;
#[cfg(feature = "fs")]
pub mod tracker;

/// The README's Rust examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
