//! Why a header is not a conventional header: a coded problem with a span
//! and a help line, renderable by miette like the plan grammar's
//! diagnostics.

use std::fmt;

use serde::Serialize;

use crate::span::Span;

/// The codes of [`HeaderProblem`], one per way a header line fails the
/// `conventional-header` rule of `grammar/commit.ebnf`.
pub mod codes {
    /// The header line is blank.
    pub const EMPTY: &str = "commit::header::empty";
    /// The header starts with `(`, `:` or `!`: there is no type.
    pub const MISSING_TYPE: &str = "commit::header::missing-type";
    /// The text before the colon is not one word.
    pub const INVALID_TYPE: &str = "commit::header::invalid-type";
    /// No colon follows the type.
    pub const NO_COLON: &str = "commit::header::no-colon";
    /// The scope's parentheses are empty.
    pub const EMPTY_SCOPE: &str = "commit::header::empty-scope";
    /// The scope's `(` is never closed.
    pub const UNCLOSED_SCOPE: &str = "commit::header::unclosed-scope";
    /// Something other than `!` or `:` follows the scope.
    pub const AFTER_SCOPE: &str = "commit::header::after-scope";
    /// Something other than `:` follows the breaking `!`.
    pub const AFTER_BREAKING: &str = "commit::header::after-breaking";
    /// The colon is not followed by a space.
    pub const NO_SPACE: &str = "commit::header::no-space";
    /// Nothing but whitespace follows `: `.
    pub const EMPTY_DESCRIPTION: &str = "commit::header::empty-description";

    /// Every code, in the order the header rule checks for them.
    pub const ALL: [&str; 10] = [
        EMPTY,
        MISSING_TYPE,
        INVALID_TYPE,
        NO_COLON,
        EMPTY_SCOPE,
        UNCLOSED_SCOPE,
        AFTER_SCOPE,
        AFTER_BREAKING,
        NO_SPACE,
        EMPTY_DESCRIPTION,
    ];
}

/// Why a header line is not a conventional header: where (`span`, in the
/// message's text), which rule failed (`code`, one of [`codes`]), what is
/// wrong (`message`) and how to write it (`help`).
///
/// A [`miette::Diagnostic`] with a label at `span`; give the report the
/// message's text as its source code to render it:
///
/// ```
/// use quire_grammar::commit::parse_commit;
///
/// let text = "feat:add spans\n";
/// let message = parse_commit(text);
/// let problem = message.header.problem.clone().unwrap();
/// assert_eq!(problem.code, "commit::header::no-space");
/// let report = miette::Report::new(problem).with_source_code(text.to_owned());
/// let mut shown = String::new();
/// miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
///     .render_report(&mut shown, report.as_ref())
///     .unwrap();
/// assert!(shown.contains("commit::header::no-space"), "{shown}");
/// assert!(shown.contains("1 │ feat:add spans"), "{shown}");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HeaderProblem {
    /// Where the header stops matching the rule (an empty span where
    /// something is missing).
    #[serde(skip)]
    pub span: Span,
    /// The problem's code (`commit::header::no-colon`), one of [`codes`].
    pub code: &'static str,
    /// What is wrong, in one line.
    pub message: String,
    /// How to write a conventional header instead.
    pub help: String,
}

impl HeaderProblem {
    pub(super) fn new(span: Span, code: &'static str, message: String, help: &str) -> Self {
        HeaderProblem {
            span,
            code,
            message,
            help: help.to_owned(),
        }
    }
}

impl fmt::Display for HeaderProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for HeaderProblem {}

impl miette::Diagnostic for HeaderProblem {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.code))
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(&self.help))
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        let label = miette::LabeledSpan::new_primary_with_span(
            Some(label_of(self.code).to_owned()),
            self.span,
        );
        Some(Box::new(std::iter::once(label)))
    }
}

/// The label shown at the problem's span.
fn label_of(code: &str) -> &'static str {
    match code {
        codes::EMPTY => "no header",
        codes::MISSING_TYPE => "expected a type here",
        codes::INVALID_TYPE => "not one word",
        codes::NO_COLON => "expected `: ` after the type",
        codes::EMPTY_SCOPE => "empty scope",
        codes::UNCLOSED_SCOPE => "never closed",
        codes::AFTER_SCOPE => "expected `!` or `: `",
        codes::AFTER_BREAKING => "expected `: `",
        codes::NO_SPACE => "expected a space after `:`",
        codes::EMPTY_DESCRIPTION => "expected a description",
        _ => "here",
    }
}
