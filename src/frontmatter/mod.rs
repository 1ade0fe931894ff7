//! Frontmatter: the `---` fenced YAML block at the top of a Markdown note, with
//! byte spans for the block, its YAML, the body and every top-level key and
//! value, and an in-place edit that changes one scalar value and nothing else.
//!
//! ```text
//! ---
//! title: Parser plan      # the note's title
//! status: 'in progress'
//! ---
//! # The body starts here
//! ```
//!
//! [`parse`] splits a text into its frontmatter block and body, locates the
//! top-level keys line by line, and reads the YAML with serde-saphyr into
//! JSON values. [`set_scalar`] rewrites one top-level scalar value, quoting it
//! as YAML requires, and checks the result by reading it back. The grammar,
//! with everything that is supported and refused, is in
//! `grammar/frontmatter.ebnf`.
//!
//! ```
//! use quire_grammar::frontmatter::{parse, set_scalar, ValueLayout};
//!
//! let text = "---\ntitle: Plan\nstatus: todo # tracker\n---\nBody\n";
//! let document = parse(text).unwrap();
//! let frontmatter = document.frontmatter.as_ref().unwrap();
//! assert_eq!(frontmatter.get("status"), Some(&"todo".into()));
//! let status = frontmatter.entry("status").unwrap();
//! assert_eq!(&text[status.value.range()], "todo");
//! assert_eq!(status.layout, ValueLayout::Plain);
//! assert_eq!(&text[document.body.range()], "Body\n");
//!
//! let edited = set_scalar(text, "status", "done: shipped").unwrap();
//! assert_eq!(edited, "---\ntitle: Plan\nstatus: \"done: shipped\" # tracker\n---\nBody\n");
//! ```

// The modules form a tree, no two using each other: `document` (the types)
// and `crate::text` are the leaves; `block` splits the text at its fences,
// `entries` locates the keys, `yaml` reads the values, `parse` ties the three
// together, `edit` rewrites a value of what `parse` found and `write` writes
// a whole block (checked with `parse`).
mod block;
mod document;
mod edit;
mod entries;
mod error;
mod parse;
mod property_edit;
mod scalar;
mod write;
mod yaml;

#[cfg(test)]
mod proptests;

pub use block::block_end;
pub use document::{Document, Entry, Frontmatter, ValueLayout};
pub use edit::{replace_scalar, set_scalar};
pub use error::{Code, EditError, FrontmatterDiagnostic, ParseError};
pub use parse::parse;
pub use property_edit::{PropertyEditError, remove_property, set_property};
pub use write::{WriteError, write_block};
