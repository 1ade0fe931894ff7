//! A parse as a `Result`: [`PlanDocument::parse`], `str::parse`, and the
//! [`PlanError`] they return when the text is not a plan document.

use std::fmt;
use std::str::FromStr;

use super::ast::PlanDocument;
use super::codes::PlanDiagnostic;
use super::config::ParserConfig;
use super::parse::{ParseOutcome, ParseState, parse};
use crate::diagnostics::{Report, one_line};

/// A text that is not a plan document: the parser halted, or one of its
/// diagnostics is an error. Warnings alone are not errors.
///
/// Holds the text and every diagnostic of the parse (warnings too), and
/// implements [`miette::Diagnostic`] with each of them as a related
/// diagnostic over that text, so a [`miette::Report`] shows every problem
/// with its label, at its place. The partial result (everything the parser
/// read before it halted) stays available: [`PlanError::partial`],
/// [`PlanError::into_outcome`].
///
/// Each related diagnostic is shown over an excerpt of the text
/// ([`Diagnostic::to_report`](crate::diagnostics::Diagnostic::to_report)):
/// the lines around its span, long lines clipped, and every character that
/// would steer a terminal escaped, so printing the report of a hostile text
/// is safe. Line and column numbers are those of the text.
///
/// ```
/// use quire_grammar::plan::{Code, PlanDocument};
///
/// let error = PlanDocument::parse("feat(parser): Add spans\nno blank line\n").unwrap_err();
/// assert_eq!(error.errors().map(|e| e.code).collect::<Vec<_>>(), [Code::MissingBlankLine]);
/// assert_eq!(error.partial().header().and_then(|h| h.title()), Some("Add spans"));
///
/// let report = miette::Report::new(error);
/// let mut shown = String::new();
/// miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
///     .render_report(&mut shown, report.as_ref())
///     .unwrap();
/// assert!(shown.contains("plan::missing_blank_line"), "{shown}");
/// assert!(shown.contains("2 │ no blank line"), "{shown}");
/// ```
#[derive(Clone, Debug)]
pub struct PlanError {
    source: String,
    /// Boxed, so that a `Result` with a `PlanError` stays small.
    outcome: Box<ParseOutcome>,
    /// What miette shows: each diagnostic over its escaped excerpt.
    reports: Vec<Report>,
}

/// Two errors are equal when they hold the same text and the same parse
/// (the reports follow from those).
impl PartialEq for PlanError {
    fn eq(&self, other: &PlanError) -> bool {
        self.source == other.source && self.outcome == other.outcome
    }
}

impl Eq for PlanError {}

impl PlanError {
    /// The text that was parsed.
    pub fn source_text(&self) -> &str {
        &self.source
    }

    /// Every diagnostic of the parse, errors and warnings, in the order the
    /// parser found them.
    pub fn diagnostics(&self) -> &[PlanDiagnostic] {
        &self.outcome.diagnostics
    }

    /// The diagnostics that are errors (at least one).
    pub fn errors(&self) -> impl Iterator<Item = &PlanDiagnostic> {
        self.diagnostics().iter().filter(|d| d.is_error())
    }

    /// What the parser read before it stopped.
    pub fn partial(&self) -> &PlanDocument {
        &self.outcome.document
    }

    /// The whole parse: state, partial document and diagnostics, as
    /// [`parse`](super::parse) returns them.
    pub fn into_outcome(self) -> ParseOutcome {
        *self.outcome
    }
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut errors = self.errors();
        match errors.next() {
            Some(first) => write!(f, "not a plan document: {}", one_line(&first.message))?,
            None => f.write_str("not a plan document")?,
        }
        match errors.count() {
            0 => Ok(()),
            1 => f.write_str(" (and 1 more error)"),
            more => write!(f, " (and {more} more errors)"),
        }
    }
}

impl std::error::Error for PlanError {}

impl miette::Diagnostic for PlanError {
    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn miette::Diagnostic> + 'a>> {
        Some(Box::new(
            self.reports
                .iter()
                .map(|report| report as &dyn miette::Diagnostic),
        ))
    }
}

impl ParseOutcome {
    /// The document, when the parse is one: the parser read the whole text
    /// and none of its diagnostics is an error. Otherwise a [`PlanError`]
    /// over `text`, the text this outcome was parsed from. Warnings are
    /// dropped with the outcome; keep the outcome to read them.
    ///
    /// [`PlanDocument::parse`] is this with the default configuration; with
    /// another one:
    ///
    /// ```
    /// use quire_grammar::plan::{parse, ParserConfig};
    ///
    /// let text = "# Retry\n\nFlaky disks.\n- [ ] Add a retry\n";
    /// let document = parse(text, &ParserConfig::MARKDOWN_TASKS).into_result(text).unwrap();
    /// assert_eq!(document.header().and_then(|h| h.title()), Some("Retry"));
    /// ```
    pub fn into_result(self, text: &str) -> Result<PlanDocument, PlanError> {
        if self.state == ParseState::Parsed && !self.diagnostics.iter().any(|d| d.is_error()) {
            Ok(self.document)
        } else {
            let reports = self
                .diagnostics
                .iter()
                .map(|diagnostic| diagnostic.to_report("", text))
                .collect();
            Err(PlanError {
                source: text.to_owned(),
                outcome: Box::new(self),
                reports,
            })
        }
    }
}

impl PlanDocument {
    /// Parses `text` in the commit-message syntax with its limits
    /// ([`ParserConfig::COMMIT_MESSAGE`], the default): the document, or a [`PlanError`] that
    /// says everything that is wrong, when the parser halts or reports an
    /// error. Warnings (text the parser ignores) are not errors and are
    /// not returned; [`parse`](super::parse) returns them, and the partial
    /// document of a halted parse, for any configuration.
    ///
    /// This checks the grammar only; [`validate`](super::validate) checks the
    /// commit conventions (allowed types, scope case, ...).
    ///
    /// ```
    /// use quire_grammar::plan::PlanDocument;
    ///
    /// let document = PlanDocument::parse("fix(io): Retry\n\nFlaky disks.\n- [ ]: Add a retry\n")?;
    /// let header = document.header().unwrap();
    /// assert_eq!((header.commit_type(), header.scope(), header.title()), (Some("fix"), Some("io"), Some("Retry")));
    /// assert_eq!(document.description(), Some("Flaky disks."));
    /// assert_eq!(document.tasks().map(|task| task.text()).collect::<Vec<_>>(), ["Add a retry"]);
    ///
    /// // The same through `FromStr`:
    /// let same: PlanDocument = "fix(io): Retry\n\nFlaky disks.\n- [ ]: Add a retry\n".parse()?;
    /// assert_eq!(same, document);
    /// # Ok::<(), quire_grammar::plan::PlanError>(())
    /// ```
    pub fn parse(text: &str) -> Result<PlanDocument, PlanError> {
        parse(text, &ParserConfig::COMMIT_MESSAGE).into_result(text)
    }
}

impl FromStr for PlanDocument {
    type Err = PlanError;

    /// [`PlanDocument::parse`].
    fn from_str(text: &str) -> Result<PlanDocument, PlanError> {
        PlanDocument::parse(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Code;

    fn render(error: PlanError) -> String {
        let report = miette::Report::new(error);
        let mut shown = String::new();
        miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
            .with_width(120)
            .render_report(&mut shown, report.as_ref())
            .unwrap();
        shown
    }

    #[test]
    fn warnings_alone_are_not_errors() {
        let text = "fix(io): Retry\n\nFlaky.\n- Never: Retry forever\n- [ ]: Add retry\n";
        let outcome = parse(text, &ParserConfig::default());
        assert!(!outcome.diagnostics.is_empty(), "the constraint is ignored");
        let document = PlanDocument::parse(text).unwrap();
        assert_eq!(document, outcome.document);
    }

    #[test]
    fn a_halted_parse_keeps_its_partial_document_and_every_diagnostic() {
        let text =
            "fix(io): Retry\n\nFlaky.\n- Never: Retry forever\n- [ ]: Add retry\n- [X]: Bad\n";
        let outcome = parse(text, &ParserConfig::default());
        assert_eq!(outcome.state, ParseState::Halted);
        let error = PlanDocument::parse(text).unwrap_err();
        assert_eq!(error.source_text(), text);
        assert_eq!(error.diagnostics(), outcome.diagnostics);
        assert!(error.diagnostics().iter().any(|d| !d.is_error()));
        assert_eq!(error.errors().count(), 1);
        assert_eq!(error.partial(), &outcome.document);
        assert_eq!(error.clone().into_outcome(), outcome);
        let halt = outcome.halt_reason().unwrap();
        assert_eq!(
            error.to_string(),
            format!("not a plan document: {}", halt.message)
        );
    }

    #[test]
    fn every_error_counts_even_in_a_parsed_outcome() {
        let text = "fix(io): Retry\n";
        let mut outcome = parse(text, &ParserConfig::default());
        assert!(outcome.clone().into_result(text).is_ok());
        let error = |code| crate::diagnostics::Diagnostic {
            code,
            severity: crate::diagnostics::Severity::Error,
            message: format!("{code:?}"),
            label: String::new(),
            help: String::new(),
            span: crate::span::Span::new(0, 3),
            field: None,
        };
        outcome.diagnostics = vec![error(Code::UnknownType), error(Code::InvalidScope)];
        let failed = outcome.clone().into_result(text).unwrap_err();
        assert_eq!(
            failed.to_string(),
            "not a plan document: UnknownType (and 1 more error)"
        );
        outcome.diagnostics.push(error(Code::EmptyTask));
        let failed = outcome.into_result(text).unwrap_err();
        assert!(
            failed.to_string().ends_with("(and 2 more errors)"),
            "{failed}"
        );
    }

    #[test]
    fn the_report_shows_each_problem_with_its_label_in_the_text() {
        let text =
            "fix(io): Retry\n\nFlaky.\n- Never: Retry forever\n- [ ]: Add retry\n- [X]: Bad\n";
        let error = PlanDocument::parse(text).unwrap_err();
        let labels: Vec<String> = error
            .diagnostics()
            .iter()
            .map(|d| d.label.clone())
            .collect();
        let shown = render(error);
        for code in ["plan::constraint_ignored", "plan::malformed_task"] {
            assert!(shown.contains(code), "{code} missing from\n{shown}");
        }
        assert!(shown.contains("4 │ - Never: Retry forever"), "{shown}");
        assert!(shown.contains("6 │ - [X]: Bad"), "{shown}");
        for label in labels.iter().filter(|label| !label.is_empty()) {
            assert!(
                shown.contains(label.as_str()),
                "label {label:?} missing from\n{shown}"
            );
        }
    }

    #[test]
    fn the_report_of_a_hostile_text_is_safe_to_print_and_small() {
        // Escape sequences (clear the screen, set the window title, bell) in
        // the line a diagnostic points at, and in the message it quotes.
        let text = "fix(io): Retry\n\u{1b}[2J\u{1b}]0;owned\u{7} here\n";
        let shown = render(PlanDocument::parse(text).unwrap_err());
        assert!(shown.contains("plan::missing_blank_line"), "{shown}");
        assert!(
            !shown.contains(['\u{1b}', '\u{7}']),
            "a terminal control reached the report: {shown:?}"
        );
        assert!(
            shown.contains("\\u{1b}[2J"),
            "escaped, not dropped: {shown}"
        );
        // A line of a hundred thousand characters is clipped around the span.
        let long = format!("fix(io): Retry\n{}\n", "x".repeat(100_000));
        let shown = render(PlanDocument::parse(&long).unwrap_err());
        assert!(shown.len() < 4_000, "{} bytes shown", shown.len());
    }
}
