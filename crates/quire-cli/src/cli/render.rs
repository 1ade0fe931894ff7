//! Printing diagnostics: miette reports for people, JSON for programs.

use std::sync::OnceLock;

use miette::{Diagnostic, MietteHandler, MietteHandlerOpts, ReportHandler};
use quire_grammar::diagnostics::{
    Diagnostic as QuireDiagnostic, DiagnosticCode, LineFeeds, LineIndex, escape_unprintable,
};

use super::output;

/// The most reports printed for one document; the rest are counted.
const MAX_REPORTS: usize = 100;

/// Writes each diagnostic as a miette report to stderr: an excerpt of the
/// text with its control characters escaped and long lines clipped
/// (`Diagnostic::to_report`). At most [`MAX_REPORTS`] reports.
pub(super) fn report<C: DiagnosticCode>(
    name: &str,
    text: &str,
    diagnostics: &[QuireDiagnostic<C>],
) {
    let reports = report_text(name, text, diagnostics);
    // One write for them all; `stderr` adds the last line feed.
    if let Some(reports) = reports.strip_suffix('\n') {
        output::stderr(reports);
    }
}

/// The reports [`report`] writes, as one text (each report ends with a
/// line feed): for a caller that gathers several documents' reports.
pub(super) fn report_text<C: DiagnosticCode>(
    name: &str,
    text: &str,
    diagnostics: &[QuireDiagnostic<C>],
) -> String {
    let mut out = String::new();
    for diagnostic in diagnostics.iter().take(MAX_REPORTS) {
        let report = diagnostic.to_report(name, text);
        out.push_str(&format!("{:?}\n", Rendered(&report)));
    }
    let unreported = &diagnostics[diagnostics.len().min(MAX_REPORTS)..];
    if !unreported.is_empty() {
        let errors = unreported.iter().filter(|d| d.is_error()).count();
        let line = format!(
            "{name}: {} more problem{} not shown ({errors} error{}, {} warning{}); fix the ones above first",
            unreported.len(),
            plural(unreported.len()),
            plural(errors),
            unreported.len() - errors,
            plural(unreported.len() - errors),
        );
        out.push_str(&escape_unprintable(&line, LineFeeds::Keep));
        out.push('\n');
    }
    out
}

/// miette's report handler as `miette::Report` makes it, made once per
/// process: making it asks the terminal for its size and reads the
/// environment, which for thousands of reports (`check --range`) cost more
/// than rendering them.
fn handler() -> &'static MietteHandler {
    static HANDLER: OnceLock<MietteHandler> = OnceLock::new();
    HANDLER.get_or_init(|| MietteHandlerOpts::new().build())
}

/// A diagnostic as [`handler`] renders it: what `format!("{:?}",
/// miette::Report::new(diagnostic))` gives.
struct Rendered<'a>(&'a dyn Diagnostic);

impl std::fmt::Debug for Rendered<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        handler().debug(self.0, f)
    }
}

fn plural(count: usize) -> &'static str {
    if count == 1 { "" } else { "s" }
}

/// The diagnostics as the `diagnostics` array of `--json` output: each in
/// the library's JSON shape, with its line and column
/// ([`quire_grammar::diagnostics::Located`]).
pub(super) fn json<C: DiagnosticCode>(
    text: &str,
    diagnostics: &[QuireDiagnostic<C>],
) -> serde_json::Result<serde_json::Value> {
    let index = LineIndex::new(text);
    let located: Vec<_> = diagnostics
        .iter()
        .map(|diagnostic| diagnostic.located(&index))
        .collect();
    serde_json::to_value(located)
}
