//! Commit messages: a Conventional Commits 1.0.0 grammar with git's
//! trailers and the messages git and release tools write.
//!
//! ```text
//! feat(parser)!: keep byte spans            <- header: type(scope)!: description
//!
//! Every node records where it was read.     <- body: free paragraphs
//!
//! BREAKING CHANGE: spans are byte offsets   <- footers (git trailers too)
//! Signed-off-by: A <a@example.com>
//! ```
//!
//! [`parse_commit`] reads any text into a [`CommitMessage`]: it never
//! fails, and whether the message is a conventional commit is a fact of the
//! result ([`CommitMessage::conventional`], or the header's
//! [`HeaderProblem`] saying why not), for lint rules to judge. Merges,
//! reverts, autosquash markers and release commits are recognized
//! ([`MessageKind`]). The result keeps a byte span on every node and
//! rebuilds the text byte for byte ([`CommitMessage::to_text`]).
//! [`git_cleanup`] turns a commit-msg hook's file into the message git will
//! store. The grammar is `grammar/commit.ebnf`.
//!
//! [`lint`] judges a parsed message with commitlint's rules, grouped in
//! presets that a `quire.toml` adjusts ([`config`]). [`policy`] is `quire
//! check`'s whole check of commit messages: a `quire.toml` text and a
//! preset in, rules and a verdict (with its `--json` object) out.
//!
//! Hand-written on winnow rather than wrapping git-conventional (the model
//! crate): it keeps no spans, is not lossless, fails on what is not a
//! conventional commit instead of saying why, and reads footers differently
//! (see the grammar's NOTEs).

mod ast;
mod check;
mod cleanup;
pub mod config;
mod header;
mod ignores;
mod kind;
pub mod lint;
mod parse;
pub mod policy;
mod preset;
mod problem;

pub use ast::{
    AutosquashMarker, Body, CommitMessage, CommitSummary, ConventionalHeader, Footer,
    FooterSeparator, FooterSummary, Header, MessageKind,
};
pub use check::{CheckedCommit, check_commit};
pub use cleanup::git_cleanup;
pub(crate) use header::{HeaderParts, ScopePart, char_span, header_parts};
pub use ignores::{HeaderPattern, looks_like_squash_title};
pub use kind::message_kind;
pub use parse::{parse_commit, parse_header};
pub use preset::{Preset, UnknownPreset};
pub use problem::{HeaderProblem, codes};
