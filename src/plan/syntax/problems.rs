//! What the parser says about a problem: the message, label and help of each
//! diagnostic it records.

use super::super::config::{ConstraintSyntax, HeaderSyntax, TaskSyntax};
use super::super::rules::{EXPECTED_DASH_VALUE, Mismatch};
use crate::diagnostics::one_line;

/// What a diagnostic says, before it gets a code, a severity and a span.
pub(super) struct Finding<'a> {
    pub(super) message: String,
    pub(super) label: &'a str,
    pub(super) help: String,
}

pub(super) fn finding(
    message: impl Into<String>,
    label: &str,
    help: impl Into<String>,
) -> Finding<'_> {
    Finding {
        message: message.into(),
        label,
        help: help.into(),
    }
}

/// `1 task`, `2 tasks`: a count and its noun, in the plural unless one.
pub(super) fn counted(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

pub(super) fn task_example(syntax: TaskSyntax) -> &'static str {
    match syntax {
        TaskSyntax::CheckboxColon => "- [ ]: Write the parser",
        TaskSyntax::Checkbox => "- [ ] Write the parser",
        TaskSyntax::YamlTask => "- task: Write the parser ( )",
    }
}

/// The help for a first line that is not a header: the rule's hint, and an
/// example of the header.
pub(super) fn header_help(syntax: HeaderSyntax, hint: &str) -> String {
    match syntax {
        HeaderSyntax::Conventional => format!(
            "{hint}; for example `feat(parser): Add task nesting` (or `fix(scope):`, `docs:`)"
        ),
        HeaderSyntax::MarkdownHeading | HeaderSyntax::YamlTitle => hint.to_owned(),
    }
}

/// Why a constraint-like line was rejected (the message; the constraint
/// rule's `mismatch` says where).
pub(super) fn constraint_rejection(
    syntax: ConstraintSyntax,
    line: &str,
    mismatch: &Mismatch,
) -> String {
    let reason = match syntax {
        _ if line.starts_with(char::is_whitespace) => {
            "it is indented (constraints start at the beginning of the line)".to_owned()
        }
        ConstraintSyntax::Dash => {
            // The key and value as the line splits at its first `: `, to
            // quote them.
            let body = line.get(2..).unwrap_or_default();
            let (key, value) = body.split_once(": ").unwrap_or((body, ""));
            if mismatch.expected == EXPECTED_DASH_VALUE {
                format!(
                    "its value `{}` does not start with a lowercase letter",
                    one_line(value)
                )
            } else {
                format!(
                    "its key `{}` is not a capital letter followed by lowercase letters and spaces",
                    one_line(key)
                )
            }
        }
        ConstraintSyntax::Blockquote | ConstraintSyntax::YamlKey => {
            "it does not match the constraint syntax".to_owned()
        }
    };
    format!("this line looks like a constraint but {reason}, so it is ignored")
}
