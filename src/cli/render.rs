//! Printing diagnostics: miette reports for people, JSON for programs.

use quire::diagnostics::LineIndex;
use quire::plan::PlanDiagnostic;

use super::output;

/// The most reports printed for one document; the rest are counted.
const MAX_REPORTS: usize = 100;

/// Writes each diagnostic as a miette report to stderr: an excerpt of the
/// text with its control characters escaped and long lines clipped
/// (`Diagnostic::to_report`). At most [`MAX_REPORTS`] reports.
pub(super) fn report(name: &str, text: &str, diagnostics: &[PlanDiagnostic]) {
    for diagnostic in diagnostics.iter().take(MAX_REPORTS) {
        let report = miette::Report::new(diagnostic.to_report(name, text));
        output::stderr(&format!("{report:?}"));
    }
    let unreported = &diagnostics[diagnostics.len().min(MAX_REPORTS)..];
    if !unreported.is_empty() {
        let errors = unreported.iter().filter(|d| d.is_error()).count();
        output::message(&format!(
            "{name}: {} more problem{} not shown ({errors} error{}, {} warning{}); fix the ones above first",
            unreported.len(),
            plural(unreported.len()),
            plural(errors),
            unreported.len() - errors,
            plural(unreported.len() - errors),
        ));
    }
}

fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
}

/// The diagnostics as the `diagnostics` array of `--json` output: each in
/// the library's JSON shape, with its line and column
/// ([`quire::diagnostics::Located`]).
pub(super) fn json(
    text: &str,
    diagnostics: &[PlanDiagnostic],
) -> serde_json::Result<serde_json::Value> {
    let index = LineIndex::new(text);
    let located: Vec<_> = diagnostics
        .iter()
        .map(|diagnostic| diagnostic.located(&index))
        .collect();
    serde_json::to_value(located)
}
