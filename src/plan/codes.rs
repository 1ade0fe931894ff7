//! The diagnostic codes of the plan grammar and its validator.

use crate::diagnostics::{Diagnostic, diagnostic_codes};

/// A finding about a plan document.
pub type PlanDiagnostic = Diagnostic<Code>;

diagnostic_codes! {
    /// Every reason the parser halts, warns, or the validator rejects a document.
    /// Printed as `plan::<snake_case>`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    #[non_exhaustive]
    pub enum Code {
        // The parser halts:
        /// The [`ParserConfig`](super::ParserConfig) has a limit of zero, so
        /// nothing could be parsed.
        InvalidConfig => "plan::invalid_config",
        /// The document starts with a blank line where the header belongs.
        LeadingBlankLine => "plan::leading_blank_line",
        /// The document is longer than `max_input_length` characters.
        InputTooLong => "plan::input_too_long",
        /// The document contains a NUL byte, so it is not text.
        NulByte => "plan::nul_byte",
        /// The first line does not read as a header.
        InvalidHeader => "plan::invalid_header",
        /// The title is longer than `max_title_length` characters.
        TitleTooLong => "plan::title_too_long",
        /// The header is not followed by a blank line.
        MissingBlankLine => "plan::missing_blank_line",
        /// The description goes on after a blank line, which ends it.
        BlankLineInDescription => "plan::blank_line_in_description",
        /// A line starts like a task (`- [`) but is not one.
        MalformedTask => "plan::malformed_task",
        /// A task has a checkbox but no text.
        EmptyTask => "plan::empty_task",
        /// The document has more than `max_task_count` tasks.
        TooManyTasks => "plan::too_many_tasks",
        /// Tasks are nested deeper than the configured maximum depth.
        NestingTooDeep => "plan::nesting_too_deep",
        /// The direction's first line has the exact length the original parser
        /// reads as unfinished.
        IncompleteDirection => "plan::incomplete_direction",
        // The parser warns (the original dropped or bent these silently):
        /// The header has text after `type:` without a scope, which is not kept as
        /// a title (warning).
        TitleIgnored => "plan::title_ignored",
        /// A line looks like a constraint but is not one, so it is not kept (warning).
        ConstraintIgnored => "plan::constraint_ignored",
        /// A task's indentation is not a multiple of `indent_size` (warning).
        IrregularIndent => "plan::irregular_indent",
        // The validator:
        /// The document has no header.
        MissingHeader => "plan::missing_header",
        /// The header's type is not one of the allowed types.
        UnknownType => "plan::unknown_type",
        /// The header's scope has characters a scope may not have
        /// (uppercase letters included: the help gives the lowercase scope).
        InvalidScope => "plan::invalid_scope",
        /// The title is blank, or starts or ends with whitespace.
        TitleWhitespace => "plan::title_whitespace",
        /// A constraint's key is not one of the known prefixes.
        UnknownConstraintPrefix => "plan::unknown_constraint_prefix",
        /// A constraint has a key but no value.
        EmptyConstraintValue => "plan::empty_constraint_value",
        /// A constraint's value starts with an uppercase letter.
        ConstraintValueCase => "plan::constraint_value_case",
        /// A field contains a control character other than tab, or a Unicode line
        /// or paragraph separator, which a terminal could use to hide text.
        ControlCharacter => "plan::control_character",
    }
}

impl Code {
    /// Codes whose warning means the formatter would lose text the user wrote.
    pub fn drops_text(self) -> bool {
        matches!(self, Code::TitleIgnored | Code::ConstraintIgnored)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::assert_codes_are_distinct;

    #[test]
    fn every_code_has_its_own_name() {
        assert_codes_are_distinct(&Code::ALL, "plan");
        assert_eq!(Code::ALL.len(), 24);
        assert_eq!(Code::ALL[0], Code::InvalidConfig);
    }
}
