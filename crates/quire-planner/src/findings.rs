//! What a report says about the stored plan beyond its stage: every
//! parser diagnostic and validator finding, each on one line with the line
//! of the plan it is on and how to fix it (the diagnostic's one-line form,
//! [`quire_grammar::diagnostics::Located`]).

use quire_grammar::diagnostics::LineIndex;
use quire_grammar::plan::PlanDiagnostic;

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
            let shown = diagnostic.located(&lines).to_string();
            if diagnostic.is_error() {
                findings.errors.push(shown);
            } else {
                findings.warnings.push(shown);
            }
        }
        findings
    }
}
