//! Diagnostics shared by every grammar: a coded finding with a span, a help
//! line, and the glue that renders it with miette or as JSON.
//!
//! A grammar defines its own code type (an enum implementing
//! [`DiagnosticCode`]), so callers can match on codes without comparing
//! strings, while rendering stays in one place.

use std::fmt;
use std::sync::Arc;

use serde::Serialize;

use crate::span::Span;

/// A stable, namespaced diagnostic code such as `plan::missing_blank_line`.
pub trait DiagnosticCode: Copy + fmt::Debug + Send + Sync + 'static {
    /// The code as printed: `grammar::snake_case_name`.
    fn as_str(&self) -> &'static str;
}

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// The text breaks a rule; the document is rejected (or parsing halted).
    Error,
    /// The text is accepted, but something in it was ignored or looks wrong.
    Warning,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        })
    }
}

/// One finding about a text: what is wrong, where, and how to fix it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic<C> {
    pub code: C,
    pub severity: Severity,
    /// One sentence saying what is wrong.
    pub message: String,
    /// A short phrase shown at the span ("expected a blank line here").
    pub label: String,
    /// How to fix it.
    pub help: String,
    /// Where in the text. Empty when something is missing at that point.
    pub span: Span,
    /// For findings about a document's content (the validator's), the path of
    /// the offending value in the document's JSON shape, e.g. `header.scope`
    /// or `tasks.0.2.1.1`.
    pub field: Option<String>,
}

impl<C: DiagnosticCode> Diagnostic<C> {
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// The machine-readable form used by `quire parse --json` and the MCP tools:
    /// byte `offset`/`length`, 1-based `line`/`column` (column in characters).
    pub fn to_json(&self, index: &LineIndex<'_>) -> serde_json::Value {
        let (line, column) = index.line_column(self.span.start);
        let mut value = serde_json::json!({
            "code": self.code.as_str(),
            "severity": self.severity,
            "message": self.message,
            "help": self.help,
            "offset": self.span.start,
            "length": self.span.len(),
            "line": line,
            "column": column,
        });
        if let (Some(field), Some(object)) = (&self.field, value.as_object_mut()) {
            object.insert("field".into(), field.clone().into());
        }
        value
    }

    /// This finding as a miette diagnostic over `source` (named `name` in the
    /// rendered report).
    pub fn to_report(&self, name: &str, source: Arc<str>) -> Report {
        Report {
            code: self.code.as_str(),
            severity: self.severity,
            message: self.message.clone(),
            label: self.label.clone(),
            help: self.help.clone(),
            span: self.span,
            source_code: miette::NamedSource::new(name, source),
        }
    }
}

impl<C: DiagnosticCode> fmt::Display for Diagnostic<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}[{}]: {}",
            self.severity,
            self.code.as_str(),
            self.message
        )
    }
}

/// A [`Diagnostic`] bound to its source text, ready for a miette handler.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct Report {
    code: &'static str,
    severity: Severity,
    message: String,
    label: String,
    help: String,
    span: Span,
    source_code: miette::NamedSource<Arc<str>>,
}

impl miette::Diagnostic for Report {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.code))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        })
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        (!self.help.is_empty()).then(|| Box::new(&self.help) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.source_code)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        let label = miette::LabeledSpan::new_primary_with_span(
            (!self.label.is_empty()).then(|| self.label.clone()),
            self.span,
        );
        Some(Box::new(std::iter::once(label)))
    }
}

/// Maps byte offsets of a text to 1-based line and column numbers.
pub struct LineIndex<'a> {
    text: &'a str,
    line_starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    pub fn new(text: &'a str) -> Self {
        let line_starts = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1))
            .collect();
        LineIndex { text, line_starts }
    }

    /// 1-based line and column of `offset`; the column counts characters.
    /// Offsets past the end (or inside a character) are clamped.
    pub fn line_column(&self, offset: usize) -> (usize, usize) {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_starts.partition_point(|&start| start <= offset);
        let line_start = self.line_starts[line - 1];
        let column = self.text[line_start..offset].chars().count() + 1;
        (line, column)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_column_is_one_based_and_counts_characters() {
        let index = LineIndex::new("ab\nçd\r\nx");
        assert_eq!(index.line_column(0), (1, 1));
        assert_eq!(index.line_column(2), (1, 3));
        assert_eq!(index.line_column(3), (2, 1));
        // 'ç' is two bytes: 'd' is the second character of line 2.
        assert_eq!(index.line_column(5), (2, 2));
        assert_eq!(index.line_column(8), (3, 1));
        assert_eq!(index.line_column(999), (3, 2));
        // Inside a multi-byte character: clamped back to its start.
        assert_eq!(index.line_column(4), (2, 1));
    }
}
