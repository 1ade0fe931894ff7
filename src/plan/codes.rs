//! The diagnostic codes of the plan grammar and its validator.

use crate::diagnostics::{Diagnostic, DiagnosticCode};

/// A finding about a plan document.
pub type PlanDiagnostic = Diagnostic<Code>;

/// Every reason the parser halts, warns, or the validator rejects a document.
/// Printed as `plan::<snake_case>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Code {
    // The parser halts:
    /// The [`ParserConfig`](super::ParserConfig) has a limit of zero, so
    /// nothing could be parsed.
    InvalidConfig,
    /// The document starts with a blank line where the header belongs.
    LeadingBlankLine,
    /// The document is longer than `max_input_length` characters.
    InputTooLong,
    /// The document contains a NUL byte, so it is not text.
    NulByte,
    /// The first line does not read as a header.
    InvalidHeader,
    /// The title is longer than `max_title_length` characters.
    TitleTooLong,
    /// The header is not followed by a blank line.
    MissingBlankLine,
    /// The description goes on after a blank line, which ends it.
    BlankLineInDescription,
    /// A line starts like a task (`- [`) but is not one.
    MalformedTask,
    /// A task has a checkbox but no text.
    EmptyTask,
    /// The document has more than `max_task_count` tasks.
    TooManyTasks,
    /// Tasks are nested deeper than the configured maximum depth.
    NestingTooDeep,
    /// The direction's first line has the exact length the original parser
    /// reads as unfinished.
    IncompleteDirection,
    // The parser warns (the original dropped or bent these silently):
    /// The header has text after `type:` without a scope, which is not kept as
    /// a title (warning).
    TitleIgnored,
    /// A line looks like a constraint but is not one, so it is not kept (warning).
    ConstraintIgnored,
    /// A task's indentation is not a multiple of `indent_size` (warning).
    IrregularIndent,
    // The validator:
    /// The document has no header.
    MissingHeader,
    /// The header's type is not one of the allowed types.
    UnknownType,
    /// The header's scope has characters a scope may not have.
    InvalidScope,
    /// The header's scope is not lowercase.
    ScopeCase,
    /// The title is blank, or starts or ends with whitespace.
    TitleWhitespace,
    /// A constraint's key is not one of the known prefixes.
    UnknownConstraintPrefix,
    /// A constraint has a key but no value.
    EmptyConstraintValue,
    /// A constraint's value starts with an uppercase letter.
    ConstraintValueCase,
    /// A field contains a control character other than tab, or a Unicode line
    /// or paragraph separator, which a terminal could use to hide text.
    ControlCharacter,
}

impl Code {
    /// Codes whose warning means the formatter would lose text the user wrote.
    pub fn drops_text(self) -> bool {
        matches!(self, Code::TitleIgnored | Code::ConstraintIgnored)
    }
}

impl DiagnosticCode for Code {
    fn as_str(&self) -> &'static str {
        match self {
            Code::InvalidConfig => "plan::invalid_config",
            Code::LeadingBlankLine => "plan::leading_blank_line",
            Code::InputTooLong => "plan::input_too_long",
            Code::NulByte => "plan::nul_byte",
            Code::InvalidHeader => "plan::invalid_header",
            Code::TitleTooLong => "plan::title_too_long",
            Code::MissingBlankLine => "plan::missing_blank_line",
            Code::BlankLineInDescription => "plan::blank_line_in_description",
            Code::MalformedTask => "plan::malformed_task",
            Code::EmptyTask => "plan::empty_task",
            Code::TooManyTasks => "plan::too_many_tasks",
            Code::NestingTooDeep => "plan::nesting_too_deep",
            Code::IncompleteDirection => "plan::incomplete_direction",
            Code::TitleIgnored => "plan::title_ignored",
            Code::ConstraintIgnored => "plan::constraint_ignored",
            Code::IrregularIndent => "plan::irregular_indent",
            Code::MissingHeader => "plan::missing_header",
            Code::UnknownType => "plan::unknown_type",
            Code::InvalidScope => "plan::invalid_scope",
            Code::ScopeCase => "plan::scope_case",
            Code::TitleWhitespace => "plan::title_whitespace",
            Code::UnknownConstraintPrefix => "plan::unknown_constraint_prefix",
            Code::EmptyConstraintValue => "plan::empty_constraint_value",
            Code::ConstraintValueCase => "plan::constraint_value_case",
            Code::ControlCharacter => "plan::control_character",
        }
    }
}
