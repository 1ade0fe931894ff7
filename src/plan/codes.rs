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
    InvalidConfig,
    LeadingBlankLine,
    InputTooLong,
    NulByte,
    InvalidHeader,
    TitleTooLong,
    MissingBlankLine,
    BlankLineInDescription,
    MalformedTask,
    EmptyTask,
    TooManyTasks,
    NestingTooDeep,
    IncompleteDirection,
    // The parser warns (the original dropped or bent these silently):
    TitleIgnored,
    ConstraintIgnored,
    IrregularIndent,
    // The validator:
    MissingHeader,
    UnknownType,
    InvalidScope,
    ScopeCase,
    TitleWhitespace,
    UnknownConstraintPrefix,
    EmptyConstraintValue,
    ConstraintValueCase,
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
