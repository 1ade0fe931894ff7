//! Plan documents: structured commit messages with a header, a description,
//! constraints, a task tree and a direction.
//!
//! ```text
//! feat(parser): Add hierarchical task support
//!
//! Nested tasks let a plan say what belongs to what.
//! - Never: break existing parsing
//!
//! - [x]: Parse task lines
//!   - [ ]: Build the hierarchy
//!
//! Continue with the formatter
//! ```
//!
//! [`PlanDocument::parse`] (or `str::parse`) reads one in the commit-message
//! syntax, or says everything that is wrong with it ([`PlanError`]);
//! [`parse`] reads any syntax ([`ParserConfig`] chooses the syntax and
//! limits) and keeps the warnings and the partial result of a halted parse.
//! [`validate`] checks a document against the commit conventions, and
//! [`format()`] writes it back. [`TaskPath`] names a task in the tree as the
//! planner lists it (`2.1`). The grammar is in `grammar/plan.ebnf`.

mod ast;
mod characters;
mod classify;
mod codes;
mod config;
mod error;
mod format;
mod lines;
mod parse;
mod precheck;
mod rules;
pub mod syntax;
mod task_path;
mod validate;

pub use ast::{Constraint, Header, PlanDocument, Task};
pub use codes::{Code, PlanDiagnostic};
pub use config::{
    ConfigError, ConstraintSyntax, HeaderSyntax, ParserConfig, Preset, TaskSyntax, UnknownPreset,
};
pub use error::PlanError;
pub use format::format;
pub use parse::{ParseOutcome, ParseState, parse};
pub use precheck::may_hold_sections;
pub use task_path::{TaskPath, TaskPathError};
pub use validate::{
    ALLOWED_CONSTRAINT_PREFIXES, ALLOWED_TYPES, MAX_TASK_DEPTH, MAX_TITLE_LENGTH, validate,
    validate_with,
};
