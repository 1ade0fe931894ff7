//! What a tool result says about the stored plan beyond its stage: every
//! parser diagnostic and validator finding, each on one line with the line
//! of the plan it is on and how to fix it.

use crate::diagnostics::{DiagnosticCode, LineIndex, one_line};
use crate::plan::PlanDiagnostic;

/// The findings of one stored plan, split by whether they block the next
/// edit.
#[derive(Debug, Default)]
pub(super) struct Findings {
    /// Errors: the parser's halt, and the validator's errors (the next edit
    /// is refused until they are fixed).
    pub errors: Vec<String>,
    /// Everything else: parser warnings (text it ignores, irregular
    /// indentation) and the validator's warnings.
    pub warnings: Vec<String>,
}

impl Findings {
    /// The findings for `text`: `parsed` are the parser's diagnostics of
    /// it, `validated` the validator's findings of the document parsed
    /// from it (their spans point into `text`).
    pub(super) fn of(
        text: &str,
        parsed: &[PlanDiagnostic],
        validated: &[PlanDiagnostic],
    ) -> Findings {
        let mut findings = Findings::default();
        let lines = LineIndex::new(text);
        for diagnostic in parsed.iter().chain(validated) {
            let line = if diagnostic.span.is_empty() && diagnostic.span.start == 0 {
                String::new()
            } else {
                format!("line {}, ", lines.line_column(diagnostic.span.start).0)
            };
            let place = match &diagnostic.field {
                Some(field) => format!("{line}{field}"),
                None => line.trim_end_matches(", ").to_owned(),
            };
            let place = if place.is_empty() {
                place
            } else {
                format!("{place}: ")
            };
            let shown = format!(
                "{place}{} [{}] ({})",
                one_line(&diagnostic.message),
                diagnostic.code.as_str(),
                one_line(&diagnostic.help)
            );
            if diagnostic.is_error() {
                findings.errors.push(shown);
            } else {
                findings.warnings.push(shown);
            }
        }
        findings
    }
}
