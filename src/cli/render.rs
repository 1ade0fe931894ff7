//! Printing diagnostics: miette reports for people, JSON for programs.

use std::sync::Arc;

use quire::diagnostics::LineIndex;
use quire::plan::PlanDiagnostic;

/// Writes each diagnostic as a miette report to stderr.
pub fn report(name: &str, text: &Arc<str>, diagnostics: &[PlanDiagnostic]) {
    for diagnostic in diagnostics {
        let report = miette::Report::new(diagnostic.to_report(name, text));
        eprintln!("{report:?}");
    }
}

/// The diagnostics as the `diagnostics` array of `--json` output.
pub fn json(text: &str, diagnostics: &[PlanDiagnostic]) -> serde_json::Value {
    let index = LineIndex::new(text);
    diagnostics
        .iter()
        .map(|diagnostic| diagnostic.to_json(&index))
        .collect()
}
