//! The document-level grammar over classified lines: the checks before any
//! line, the header, then the body's sections (in `sections`).
//!
//! The parser never gives up silently: when it halts it records an error
//! diagnostic and keeps everything parsed before that point; when it reads a
//! line it does not keep, it records a warning. After a halt in the header or
//! the body it reads on, as if the offending line were not there, to report
//! every further problem in one pass (the document stays what it was at the
//! halt).

use super::super::classify::{Classified, ClassifiedLines, classify};
use super::super::codes::{Code, PlanDiagnostic};
use super::super::config::ParserConfig;
use super::super::lines::{Lines, end_without_line_ending};
use super::super::parse::ParseState;
use super::super::rules::{self, Piece};
use super::problems::{Finding, finding, header_help};
use super::{SyntaxDocument, SyntaxHeader, SyntaxOutcome};
use crate::diagnostics::{Diagnostic, Severity, one_line};
use crate::span::{Span, Spanned};
use crate::text::Line;

/// The parser stopped; its error diagnostic is already recorded.
pub(super) struct Halted;

pub(super) type Step = Result<(), Halted>;

pub(super) struct Scanner<'t> {
    pub(super) text: &'t str,
    pub(super) config: ParserConfig,
    pub(super) document: SyntaxDocument<'t>,
    pub(super) diagnostics: Vec<PlanDiagnostic>,
    /// The document as it was at the first halt: the result, whatever
    /// reading on adds to `document`.
    kept: Option<SyntaxDocument<'t>>,
    /// How many diagnostics there were right after the first halt.
    at_halt: usize,
    /// Whether the task limit was reported (it is, once).
    pub(super) over_task_limit: bool,
}

/// How many diagnostics reading on after a halt records, at most: enough to
/// fix a plan in one pass, and few enough that no text can flood the report.
pub(super) const MAX_FURTHER_DIAGNOSTICS: usize = 100;

pub(super) fn scan<'t>(text: &'t str, config: &ParserConfig) -> SyntaxOutcome<'t> {
    let mut scanner = Scanner {
        text,
        config: config.clone(),
        document: SyntaxDocument::default(),
        diagnostics: Vec::new(),
        kept: None,
        at_halt: 0,
        over_task_limit: false,
    };
    // A halt before the lines are read ends the scan; `kept` says whether
    // there was one anywhere.
    let _: Step = scanner.document();
    match scanner.kept {
        Some(kept) => SyntaxOutcome {
            state: ParseState::Halted,
            document: kept,
            diagnostics: scanner.diagnostics,
        },
        None => SyntaxOutcome {
            state: ParseState::Parsed,
            document: scanner.document,
            diagnostics: scanner.diagnostics,
        },
    }
}

pub(super) fn spanned(piece: Piece<'_>) -> Spanned<&str> {
    Spanned::new(piece.text, piece.span)
}

impl<'t> Scanner<'t> {
    /// The text at `span`, with its span.
    pub(super) fn slice(&self, span: Span) -> Spanned<&'t str> {
        Spanned::new(&self.text[span.range()], span)
    }

    fn record(&mut self, code: Code, severity: Severity, span: Span, finding: Finding<'_>) {
        if self.kept.is_some() && self.diagnostics.len() - self.at_halt >= MAX_FURTHER_DIAGNOSTICS {
            return;
        }
        self.diagnostics.push(Diagnostic {
            code,
            severity,
            message: finding.message,
            label: finding.label.to_owned(),
            help: finding.help,
            span,
            field: None,
        });
    }

    /// Records an error. The first one halts the parse: the document is
    /// kept as it is now.
    pub(super) fn halt(&mut self, code: Code, span: Span, finding: Finding<'_>) -> Halted {
        self.record(code, Severity::Error, span, finding);
        if self.kept.is_none() {
            self.kept = Some(self.document.clone());
            self.at_halt = self.diagnostics.len();
        }
        Halted
    }

    pub(super) fn warn(&mut self, code: Code, span: Span, finding: Finding<'_>) {
        self.record(code, Severity::Warning, span, finding);
    }

    // plan.ebnf: document
    fn document(&mut self) -> Step {
        self.check_config()?;
        // plan.ebnf: BOM (not part of the document)
        let start = if self.text.starts_with('\u{feff}') {
            3
        } else {
            0
        };
        let content = &self.text[start..];
        // plan.ebnf: blank-text
        if content.trim().is_empty() {
            return Ok(());
        }
        let first_line = content.split('\n').next().unwrap_or_default();
        if content.len() > first_line.len() && first_line.trim_start_matches('\r').is_empty() {
            return Err(self.halt(
                Code::LeadingBlankLine,
                Span::new(start, start + first_line.len() + 1),
                finding(
                    "the document starts with a blank line",
                    "the header must be on this first line",
                    "remove the blank line so the header is the first line",
                ),
            ));
        }
        self.check_size_and_characters()?;

        let mut lines = Lines::new(self.text, start, end_without_line_ending(self.text));
        let Some(header) = lines.next() else {
            return Ok(());
        };
        // Reading on after a bad header reports the body's problems too.
        let _: Step = self.header(header);
        let Some(second) = lines.next() else {
            return Ok(());
        };
        // plan.ebnf: body
        let mut body = ClassifiedLines::new(self.text, (&self.config).into(), lines);
        if !second.is_blank(self.text) {
            self.halt(
                Code::MissingBlankLine,
                second.span(),
                finding(
                    "the header must be followed by a blank line",
                    "expected a blank line before this line",
                    "insert an empty line between the header and the description",
                ),
            );
            // Read on with the second line as the body's first.
            body.put_back(Classified {
                line: second,
                kind: classify(self.text, second, (&self.config).into()),
            });
        }
        self.description(&mut body);
        self.constraints(&mut body);
        self.tasks(&mut body);
        self.direction(&body);
        Ok(())
    }

    fn check_config(&mut self) -> Step {
        let Err(errors) = self.config.validate() else {
            return Ok(());
        };
        let settings: Vec<String> = errors
            .iter()
            .map(|error| format!("`{}` {}", error.setting, error.reason))
            .collect();
        Err(self.halt(
            Code::InvalidConfig,
            Span::at(0),
            finding(
                format!("the parser configuration is invalid: {}", settings.join("; ")),
                "",
                "use a preset, or set max_title_length, indent_size, max_input_length and max_task_count to at least 1",
            ),
        ))
    }

    fn check_size_and_characters(&mut self) -> Step {
        let limit = self.config.max_input_length;
        // Bytes bound characters from above: count only when it can matter.
        if self.text.len() > limit
            && let Some((cut, _)) = self.text.char_indices().nth(limit)
        {
            return Err(self.halt(
                Code::InputTooLong,
                Span::new(cut, self.text.len()),
                finding(
                    format!(
                        "the document has {} characters; the limit is {limit}",
                        self.text.chars().count()
                    ),
                    "everything from here on is over the limit",
                    "shorten the document, or split the plan into several changes",
                ),
            ));
        }
        if let Some(nul) = memchr::memchr(0, self.text.as_bytes()) {
            return Err(self.halt(
                Code::NulByte,
                Span::new(nul, nul + 1),
                finding(
                    "the document contains a NUL character",
                    "NUL character",
                    "remove the NUL character; plan documents are plain text",
                ),
            ));
        }
        Ok(())
    }

    // plan.ebnf: header
    //
    // A title over the limit halts, and the header is kept without it.
    fn header(&mut self, line: Line) -> Step {
        let syntax = self.config.header;
        let parsed = match rules::header_line(self.text, line, syntax) {
            Ok(parsed) => parsed,
            Err(mismatch) => {
                return Err(self.halt(
                    Code::InvalidHeader,
                    mismatch.span,
                    finding(
                        "the first line is not a valid header",
                        mismatch.expected,
                        header_help(syntax, mismatch.hint),
                    ),
                ));
            }
        };
        let mut header = SyntaxHeader {
            commit_type: parsed.commit_type.map(spanned),
            scope: parsed.scope.map(spanned),
            breaking: parsed.breaking,
            title: None,
            span: line.span(),
        };
        if let Some(ignored) = parsed.ignored {
            let type_name = parsed.commit_type.map_or("type", |t| t.text);
            self.warn(
                Code::TitleIgnored,
                ignored.span,
                finding(
                    "text after `type:` without a scope is not kept as a title",
                    "ignored",
                    format!(
                        "add a scope to keep it as the title: `{type_name}(scope): {}`",
                        one_line(ignored.text)
                    ),
                ),
            );
        }
        let limit = self.config.max_title_length;
        // Bytes bound characters from above: count only when it can matter.
        let length = parsed
            .title
            .filter(|title| title.text.len() > limit)
            .map(|title| title.text.chars().count());
        match (parsed.title, length) {
            (Some(title), Some(length)) if length > limit => {
                self.document.header = Some(header);
                Err(self.halt(
                    Code::TitleTooLong,
                    title.span,
                    finding(
                        format!("the title has {length} characters; the limit is {limit}"),
                        "this title",
                        format!("shorten the title to {limit} characters and move the details into the description"),
                    ),
                ))
            }
            (title, _) => {
                header.title = title.map(spanned);
                self.document.header = Some(header);
                Ok(())
            }
        }
    }
}
