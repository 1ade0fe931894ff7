//! Diagnostics shared by every grammar: a coded finding with a span, a help
//! line, and the glue that renders it with miette or as JSON.
//!
//! A grammar defines its own code type (an enum implementing
//! [`DiagnosticCode`]), so callers can match on codes without comparing
//! strings, while rendering stays in one place.

use std::borrow::Cow;
use std::fmt;

use serde::Serialize;
use serde::ser::{SerializeStruct, Serializer};

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
    /// Which rule found it; its printed name (`plan::missing_blank_line`) is
    /// stable, for programs to match on.
    pub code: C,
    /// Whether it stops the text from being used (an error) or only warns.
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
    /// Whether this finding is an error rather than a warning.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// This finding with its line and column in the text `index` was built
    /// from: the form a program reads ([`Located`]'s JSON) and the form a
    /// message shows on one line ([`Located`]'s `Display`).
    ///
    /// ```
    /// use quire_grammar::diagnostics::{Diagnostic, LineIndex, Severity};
    /// use quire_grammar::plan::Code;
    /// use quire_grammar::span::Span;
    ///
    /// let text = "fix(io): Retry\nno blank line";
    /// let diagnostic = Diagnostic {
    ///     code: Code::MissingBlankLine,
    ///     severity: Severity::Error,
    ///     message: "the header must be followed by a blank line".into(),
    ///     label: "expected a blank line here".into(),
    ///     help: "insert an empty line".into(),
    ///     span: Span::new(15, 28),
    ///     field: None,
    /// };
    /// let located = diagnostic.located(&LineIndex::new(text));
    /// assert_eq!(
    ///     located.to_string(),
    ///     "line 2: the header must be followed by a blank line [plan::missing_blank_line] (insert an empty line)"
    /// );
    /// let json = serde_json::to_value(&located).unwrap();
    /// assert_eq!((json["line"].as_u64(), json["column"].as_u64()), (Some(2), Some(1)));
    /// assert_eq!((json["offset"].as_u64(), json["length"].as_u64()), (Some(15), Some(13)));
    /// assert_eq!(json["label"], "expected a blank line here");
    /// ```
    pub fn located(&self, index: &LineIndex<'_>) -> Located<'_, C> {
        let (line, column) = index.line_column(self.span.start);
        Located {
            diagnostic: self,
            line,
            column,
        }
    }

    /// This finding as a miette diagnostic over `source` (named `name` in the
    /// rendered report).
    ///
    /// The report carries an excerpt of `source`, not the whole text: the
    /// lines around the span, each at most [`MAX_LINE_CHARS`] characters
    /// (longer lines are clipped around the span and marked `…`), at most
    /// [`MAX_SPAN_LINES`] lines of the span itself, and every character that
    /// would steer a terminal escaped ([`escape_unprintable`]). Line and column
    /// numbers in the report are still those of `source`. The name, message,
    /// label and help are escaped the same way.
    pub fn to_report(&self, name: &str, source: &str) -> Report {
        let excerpt = Excerpt::new(name, source, self.span);
        let mut label = one_line(&self.label).into_owned();
        for note in &excerpt.notes {
            if label.is_empty() {
                label = note.clone();
            } else {
                label = format!("{label} ({note})");
            }
        }
        Report {
            code: self.code.as_str(),
            severity: self.severity,
            message: one_line(&self.message).into_owned(),
            label,
            help: one_line(&self.help).into_owned(),
            span: excerpt.primary,
            source_code: excerpt,
        }
    }
}

/// The message alone, as an error's `Display` is: the code, severity, label
/// and help are the [`miette::Diagnostic`] parts, which a report shows
/// around it (so a report does not show the code twice).
impl<C: DiagnosticCode> fmt::Display for Diagnostic<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl<C: DiagnosticCode> std::error::Error for Diagnostic<C> {}

/// The finding as miette sees it: its code, severity and help, and its label
/// at its span. It has no source text of its own: a parent that holds the
/// text (such as [`crate::plan::PlanError`]) lends it. For text from
/// untrusted hands, [`Diagnostic::to_report`] renders an escaped excerpt.
impl<C: DiagnosticCode> miette::Diagnostic for Diagnostic<C> {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.code.as_str()))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(self.severity.into())
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        (!self.help.is_empty()).then(|| Box::new(&self.help) as Box<dyn fmt::Display>)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        Some(Box::new(std::iter::once(primary_label(
            &self.label,
            self.span.into(),
        ))))
    }
}

/// The one label a finding has: its text (none when empty) at `span`.
fn primary_label(label: &str, span: miette::SourceSpan) -> miette::LabeledSpan {
    miette::LabeledSpan::new_primary_with_span((!label.is_empty()).then(|| label.to_owned()), span)
}

impl From<Severity> for miette::Severity {
    fn from(severity: Severity) -> Self {
        match severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        }
    }
}

/// The JSON shape of a finding, as `quire parse --json` and the tools
/// write it: `code`, `severity`, `message`, `label`, `help`, the byte
/// `offset` and `length` of its span, and `field` when it has one. With
/// [`Diagnostic::located`], `line` and `column` join them.
impl<C: DiagnosticCode> Serialize for Diagnostic<C> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut fields = serializer.serialize_struct("Diagnostic", 8)?;
        self.serialize_fields(&mut fields)?;
        fields.end()
    }
}

impl<C: DiagnosticCode> Diagnostic<C> {
    fn serialize_fields<S: SerializeStruct>(&self, fields: &mut S) -> Result<(), S::Error> {
        fields.serialize_field("code", self.code.as_str())?;
        fields.serialize_field("severity", &self.severity)?;
        fields.serialize_field("message", &self.message)?;
        fields.serialize_field("label", &self.label)?;
        fields.serialize_field("help", &self.help)?;
        fields.serialize_field("offset", &self.span.start)?;
        fields.serialize_field("length", &self.span.len())?;
        match &self.field {
            Some(field) => fields.serialize_field("field", field),
            None => fields.skip_field("field"),
        }
    }
}

/// A [`Diagnostic`] with the 1-based line and column (in characters) its
/// span starts at ([`Diagnostic::located`]).
///
/// Serializes as the diagnostic's JSON with `line` and `column` added.
/// Displays on one line, as the planner's tool results list findings:
/// `line 3, tasks.0: message [plan::code] (help)`, where the place is left
/// out when the finding has no line (an empty span at offset 0, such as a
/// detached one) and no field, and every value is escaped ([`one_line`]).
#[derive(Clone, Copy, Debug)]
pub struct Located<'a, C> {
    /// The finding.
    pub diagnostic: &'a Diagnostic<C>,
    /// The line its span starts on, from 1.
    pub line: usize,
    /// The column its span starts at, in characters from 1.
    pub column: usize,
}

impl<C: DiagnosticCode> Serialize for Located<'_, C> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut fields = serializer.serialize_struct("Diagnostic", 10)?;
        self.diagnostic.serialize_fields(&mut fields)?;
        fields.serialize_field("line", &self.line)?;
        fields.serialize_field("column", &self.column)?;
        fields.end()
    }
}

impl<C: DiagnosticCode> fmt::Display for Located<'_, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let diagnostic = self.diagnostic;
        let has_line = !(diagnostic.span.is_empty() && diagnostic.span.start == 0);
        match (has_line, &diagnostic.field) {
            (true, Some(field)) => write!(f, "line {}, {field}: ", self.line)?,
            (true, None) => write!(f, "line {}: ", self.line)?,
            (false, Some(field)) => write!(f, "{field}: ")?,
            (false, None) => {}
        }
        write!(
            f,
            "{} [{}] ({})",
            one_line(&diagnostic.message),
            diagnostic.code.as_str(),
            one_line(&diagnostic.help)
        )
    }
}

#[cfg(test)]
mod located_tests {
    use super::*;
    use crate::plan::Code;

    fn finding(span: Span, field: Option<&str>) -> Diagnostic<Code> {
        Diagnostic {
            code: Code::TitleWhitespace,
            severity: Severity::Warning,
            message: "scope `A\u{1b}` is not lowercase".into(),
            label: "here".into(),
            help: "write it\nin lowercase".into(),
            span,
            field: field.map(str::to_owned),
        }
    }

    #[test]
    fn one_line_form_names_the_place_it_has() {
        let index = LineIndex::new("feat(x): y\n\nz");
        let shown = |span, field| finding(span, field).located(&index).to_string();
        let rest =
            "scope `A\\u{1b}` is not lowercase [plan::title_whitespace] (write it\\nin lowercase)";
        assert_eq!(shown(Span::new(12, 13), None), format!("line 3: {rest}"));
        assert_eq!(
            shown(Span::new(5, 6), Some("header.scope")),
            format!("line 1, header.scope: {rest}")
        );
        assert_eq!(
            shown(Span::DETACHED, Some("header.scope")),
            format!("header.scope: {rest}")
        );
        assert_eq!(shown(Span::DETACHED, None), rest);
        // A span that starts at 0 but is not empty is on line 1.
        assert_eq!(shown(Span::new(0, 4), None), format!("line 1: {rest}"));
    }

    #[test]
    fn json_holds_every_field_and_the_place() {
        let index = LineIndex::new("feat(é): y");
        let diagnostic = finding(Span::new(5, 7), Some("header.scope"));
        let json = serde_json::to_value(diagnostic.located(&index)).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "code": "plan::title_whitespace", "severity": "warning",
                "message": "scope `A\u{1b}` is not lowercase", "label": "here",
                "help": "write it\nin lowercase", "offset": 5, "length": 2,
                "line": 1, "column": 6, "field": "header.scope",
            })
        );
        let bare = serde_json::to_value(finding(Span::new(5, 7), None)).unwrap();
        assert!(bare.get("field").is_none() && bare.get("line").is_none());
        assert_eq!(bare["label"], "here");
    }

    #[test]
    fn miette_sees_code_severity_help_and_the_label_at_the_span() {
        use miette::Diagnostic as _;
        let diagnostic = finding(Span::new(5, 7), None);
        assert_eq!(
            diagnostic.code().unwrap().to_string(),
            "plan::title_whitespace"
        );
        assert_eq!(diagnostic.severity(), Some(miette::Severity::Warning));
        assert_eq!(diagnostic.help().unwrap().to_string(), diagnostic.help);
        let labels: Vec<_> = diagnostic.labels().unwrap().collect();
        assert_eq!(labels.len(), 1);
        assert_eq!(labels[0].label(), Some("here"));
        assert_eq!((labels[0].offset(), labels[0].len()), (5, 2));
        let unlabelled = Diagnostic {
            label: String::new(),
            help: String::new(),
            ..diagnostic
        };
        assert_eq!(unlabelled.labels().unwrap().next().unwrap().label(), None);
        assert!(unlabelled.help().is_none());
    }
}

/// A [`Diagnostic`] bound to its source text, ready for a miette handler.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{message}")]
pub struct Report {
    code: &'static str,
    severity: Severity,
    message: String,
    label: String,
    help: String,
    /// The span in the excerpt's coordinates.
    span: miette::SourceSpan,
    source_code: Excerpt,
}

impl miette::Diagnostic for Report {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.code))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(self.severity.into())
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        (!self.help.is_empty()).then(|| Box::new(&self.help) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.source_code)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        Some(Box::new(std::iter::once(primary_label(
            &self.label,
            self.span,
        ))))
    }
}

// ------------------------------------------------------------ characters

/// Whether a terminal acts on `c` instead of showing a glyph: a C0 control
/// other than tab and line feed (escape sequences, bell, backspace, carriage
/// return, vertical tab, form feed...), DEL, a C1 control (including NEL and
/// the 8-bit CSI and OSC), or the Unicode line and paragraph separators
/// (which break a line where no line feed is).
///
/// This is what a plan text may not hold ([`crate::plan::validate`]'s
/// `plan::control_character`); [`is_unprintable`] adds the bidirectional
/// controls, which output escapes but a plan may keep.
///
/// ```
/// use quire_grammar::diagnostics::is_terminal_control;
///
/// assert!(is_terminal_control('\u{1b}') && is_terminal_control('\u{85}') && is_terminal_control('\u{2028}'));
/// assert!(!is_terminal_control('\t') && !is_terminal_control('\n') && !is_terminal_control('\u{202e}'));
/// ```
pub fn is_terminal_control(c: char) -> bool {
    matches!(
        c,
        '\0'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{2028}' | '\u{2029}'
    )
}

/// Whether `c` is a bidirectional embedding, override or isolate: it changes
/// the order in which the text around it is shown, not what the text is.
/// Right-to-left writing may need them, so plan texts keep them; output
/// escapes them ([`is_unprintable`]) so that shown text reads in the order
/// it is stored.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Whether `c` must be escaped wherever quire shows text: a terminal control
/// ([`is_terminal_control`]) or a bidirectional embedding, override or
/// isolate (U+202A to U+202E, U+2066 to U+2069), which changes the order in
/// which the text around it is shown.
///
/// ```
/// use quire_grammar::diagnostics::is_unprintable;
///
/// assert!(is_unprintable('\u{1b}') && is_unprintable('\u{85}') && is_unprintable('\u{202e}'));
/// assert!(!is_unprintable('\t') && !is_unprintable('\n') && !is_unprintable('é'));
/// ```
pub fn is_unprintable(c: char) -> bool {
    is_terminal_control(c) || is_bidi_control(c)
}

/// The C0 controls' names, U+0000 to U+001F.
const C0_NAMES: [&str; 32] = [
    "NULL",
    "START OF HEADING",
    "START OF TEXT",
    "END OF TEXT",
    "END OF TRANSMISSION",
    "ENQUIRY",
    "ACKNOWLEDGE",
    "BELL",
    "BACKSPACE",
    "CHARACTER TABULATION",
    "LINE FEED",
    "LINE TABULATION",
    "FORM FEED",
    "CARRIAGE RETURN",
    "SHIFT OUT",
    "SHIFT IN",
    "DATA LINK ESCAPE",
    "DEVICE CONTROL ONE",
    "DEVICE CONTROL TWO",
    "DEVICE CONTROL THREE",
    "DEVICE CONTROL FOUR",
    "NEGATIVE ACKNOWLEDGE",
    "SYNCHRONOUS IDLE",
    "END OF TRANSMISSION BLOCK",
    "CANCEL",
    "END OF MEDIUM",
    "SUBSTITUTE",
    "ESCAPE",
    "FILE SEPARATOR",
    "GROUP SEPARATOR",
    "RECORD SEPARATOR",
    "UNIT SEPARATOR",
];

/// The C1 controls' names, U+0080 to U+009F.
const C1_NAMES: [&str; 32] = [
    "PADDING CHARACTER",
    "HIGH OCTET PRESET",
    "BREAK PERMITTED HERE",
    "NO BREAK HERE",
    "INDEX",
    "NEXT LINE",
    "START OF SELECTED AREA",
    "END OF SELECTED AREA",
    "CHARACTER TABULATION SET",
    "CHARACTER TABULATION WITH JUSTIFICATION",
    "LINE TABULATION SET",
    "PARTIAL LINE FORWARD",
    "PARTIAL LINE BACKWARD",
    "REVERSE LINE FEED",
    "SINGLE SHIFT TWO",
    "SINGLE SHIFT THREE",
    "DEVICE CONTROL STRING",
    "PRIVATE USE ONE",
    "PRIVATE USE TWO",
    "SET TRANSMIT STATE",
    "CANCEL CHARACTER",
    "MESSAGE WAITING",
    "START OF GUARDED AREA",
    "END OF GUARDED AREA",
    "START OF STRING",
    "SINGLE GRAPHIC CHARACTER INTRODUCER",
    "SINGLE CHARACTER INTRODUCER",
    "CONTROL SEQUENCE INTRODUCER",
    "STRING TERMINATOR",
    "OPERATING SYSTEM COMMAND",
    "PRIVACY MESSAGE",
    "APPLICATION PROGRAM COMMAND",
];

/// The Unicode name (or, for controls, the name alias) of a character for
/// which [`is_unprintable`] holds, and of tab and line feed.
fn character_name(c: char) -> Option<&'static str> {
    let code = u32::from(c);
    let index = |base: u32| usize::try_from(code - base).ok();
    match c {
        '\0'..='\u{1f}' => index(0).and_then(|i| C0_NAMES.get(i)).copied(),
        '\u{7f}' => Some("DELETE"),
        '\u{80}'..='\u{9f}' => index(0x80).and_then(|i| C1_NAMES.get(i)).copied(),
        '\u{2028}' => Some("LINE SEPARATOR"),
        '\u{2029}' => Some("PARAGRAPH SEPARATOR"),
        '\u{202a}' => Some("LEFT-TO-RIGHT EMBEDDING"),
        '\u{202b}' => Some("RIGHT-TO-LEFT EMBEDDING"),
        '\u{202c}' => Some("POP DIRECTIONAL FORMATTING"),
        '\u{202d}' => Some("LEFT-TO-RIGHT OVERRIDE"),
        '\u{202e}' => Some("RIGHT-TO-LEFT OVERRIDE"),
        '\u{2066}' => Some("LEFT-TO-RIGHT ISOLATE"),
        '\u{2067}' => Some("RIGHT-TO-LEFT ISOLATE"),
        '\u{2068}' => Some("FIRST STRONG ISOLATE"),
        '\u{2069}' => Some("POP DIRECTIONAL ISOLATE"),
        _ => None,
    }
}

/// A character as a person can read it in a message: `U+001B ESCAPE`, or
/// `U+00E9` for a character quire has no name for (it names the characters
/// [`is_unprintable`] holds for, and tab and line feed).
pub fn describe_character(c: char) -> String {
    match character_name(c) {
        Some(name) => format!("U+{:04X} {name}", u32::from(c)),
        None => format!("U+{:04X}", u32::from(c)),
    }
}

/// What [`escape_unprintable`] does with line feeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineFeeds {
    /// Keep them: the text is shown on several lines.
    Keep,
    /// Write them as `\n`: the text is shown on one line.
    Escape,
}

/// `text` with every character for which [`is_unprintable`] holds written as
/// an escape a terminal shows literally: `\r` for a carriage return, `\u{1b}`
/// for ESC, `\u{2028}` for a line separator. Tabs stay; line feeds stay or
/// become `\n` as `line_feeds` says. Borrowed when nothing needs escaping.
///
/// ```
/// use quire_grammar::diagnostics::{escape_unprintable, LineFeeds};
///
/// assert_eq!(escape_unprintable("a\u{1b}[2Jb\rc", LineFeeds::Escape), "a\\u{1b}[2Jb\\rc");
/// assert_eq!(escape_unprintable("one\ntwo", LineFeeds::Escape), "one\\ntwo");
/// assert_eq!(escape_unprintable("one\ntwo\tthree", LineFeeds::Keep), "one\ntwo\tthree");
/// ```
pub fn escape_unprintable(text: &str, line_feeds: LineFeeds) -> Cow<'_, str> {
    let needs_escape =
        |c: char| is_unprintable(c) || (c == '\n' && line_feeds == LineFeeds::Escape);
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut escaped = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if !needs_escape(c) {
            escaped.push(c);
            continue;
        }
        match c {
            '\n' => escaped.push_str("\\n"),
            '\r' => escaped.push_str("\\r"),
            _ => {
                use fmt::Write as _;
                let _ = write!(escaped, "\\u{{{:x}}}", u32::from(c));
            }
        }
    }
    Cow::Owned(escaped)
}

/// A user's value as a message or an outline shows it: on one line, with
/// every character that would steer a terminal escaped
/// ([`escape_unprintable`], line feeds written as `\n`).
///
/// ```
/// use quire_grammar::diagnostics::one_line;
///
/// assert_eq!(one_line("Clear\u{1b}[2J\nnow"), "Clear\\u{1b}[2J\\nnow");
/// ```
pub fn one_line(text: &str) -> Cow<'_, str> {
    escape_unprintable(text, LineFeeds::Escape)
}

// -------------------------------------------------------------- excerpts

use crate::text::{char_boundary, content_end, line_number, line_start, next_line_start};

/// The longest line a report shows, in characters; longer lines are clipped
/// around the span.
pub const MAX_LINE_CHARS: usize = 200;

/// When a line is clipped: how many characters before the span stay.
const CHARS_BEFORE_SPAN: usize = 80;

/// The most lines of a span a report shows; the rest is left out.
pub const MAX_SPAN_LINES: usize = 3;

/// Lines shown before and after the span: miette's default.
const CONTEXT_LINES: usize = 1;

/// Where one shown line of the source went in the excerpt.
struct ShownLine {
    /// Byte offsets in the source: the line's start and the shown window of
    /// its content.
    start: usize,
    window: std::ops::Range<usize>,
    /// Byte offsets in the excerpt: line start, where the window's text
    /// begins (after a `…`), and where the shown content ends.
    excerpt_start: usize,
    excerpt_window: usize,
    excerpt_end: usize,
}

/// The part of a source text a report shows: a few lines around a span,
/// clipped and escaped so that rendering stays small and safe whatever the
/// source holds, with the line numbers and the primary column of the source.
#[derive(Clone, Debug)]
pub struct Excerpt {
    name: String,
    text: String,
    /// 0-based line number of the excerpt's first line in the source.
    first_line: usize,
    /// The span in excerpt coordinates, and the 0-based line and column
    /// (in characters) of its start in the source.
    primary: miette::SourceSpan,
    primary_line: usize,
    primary_column: usize,
    /// What the label should add: clipped lines, a span cut short.
    notes: Vec<String>,
}

/// The content end of the line starting at `start`, and the start of the
/// next line (the text's end on the last line).
fn line_end(text: &str, start: usize) -> (usize, usize) {
    (
        content_end(text, start),
        next_line_start(text, start).unwrap_or(text.len()),
    )
}

/// The byte range of the at most [`MAX_LINE_CHARS`] characters of
/// `text[start..end]` to show, keeping `focus` in view.
fn window(text: &str, start: usize, end: usize, focus: usize) -> std::ops::Range<usize> {
    let content = &text[start..end];
    if content.len() <= MAX_LINE_CHARS || content.chars().count() <= MAX_LINE_CHARS {
        return start..end;
    }
    let total = content.chars().count();
    let focus_column = text[start..focus.clamp(start, end)].chars().count();
    let first = focus_column
        .saturating_sub(CHARS_BEFORE_SPAN)
        .min(total - MAX_LINE_CHARS);
    let byte_at = |column: usize| {
        content
            .char_indices()
            .nth(column)
            .map_or(end, |(at, _)| start + at)
    };
    byte_at(first)..byte_at(first + MAX_LINE_CHARS)
}

impl Excerpt {
    /// The excerpt of `source` that shows `span` (clamped into the source).
    pub fn new(name: &str, source: &str, span: Span) -> Excerpt {
        let start = char_boundary(source, span.start);
        let end = char_boundary(source, span.end).max(start);
        let first_span_line = line_start(source, start);
        let first_line_number = line_number(source, first_span_line) - 1;
        // The lines to show: one line of context before, the span's lines
        // (at most MAX_SPAN_LINES), one line of context after.
        let mut starts = Vec::new();
        let mut shown_from = first_span_line;
        let mut first_line = first_line_number;
        for _ in 0..CONTEXT_LINES {
            if shown_from == 0 {
                break;
            }
            shown_from = line_start(source, shown_from - 1);
            first_line -= 1;
            starts.push(shown_from);
        }
        starts.reverse();
        let mut notes = Vec::new();
        let mut cut_end = end;
        let mut line = first_span_line;
        let mut span_lines = 0;
        loop {
            starts.push(line);
            span_lines += 1;
            let (content_end, next) = line_end(source, line);
            if end < next || next == source.len() {
                break;
            }
            if span_lines == MAX_SPAN_LINES {
                let end_line = line_number(source, end);
                notes.push(format!("continues to line {end_line}"));
                cut_end = content_end;
                break;
            }
            line = next;
        }
        // A line follows when the last one ends in a line feed (an empty
        // last line after a final line feed counts, as in miette).
        let mut next = line_end(source, *starts.last().unwrap_or(&0)).1;
        for _ in 0..CONTEXT_LINES {
            if next == 0 || source.as_bytes()[next - 1] != b'\n' {
                break;
            }
            starts.push(next);
            next = line_end(source, next).1;
        }

        let mut text = String::new();
        let mut lines = Vec::with_capacity(starts.len());
        for &line_start in &starts {
            let (content_end, next) = line_end(source, line_start);
            let focus = if (line_start..=content_end).contains(&start) {
                start
            } else {
                line_start
            };
            let window = window(source, line_start, content_end, focus);
            let excerpt_start = text.len();
            if window.start > line_start {
                text.push('…');
            }
            let excerpt_window = text.len();
            text.push_str(&one_line(&source[window.clone()]));
            if window.end < content_end {
                text.push('…');
            }
            let excerpt_end = text.len();
            if next > 0 && source.as_bytes()[next - 1] == b'\n' && next > line_start {
                text.push('\n');
            }
            let clipped = window != (line_start..content_end);
            if clipped && line_start == first_span_line {
                notes.insert(0, "long line clipped".to_owned());
            }
            lines.push(ShownLine {
                start: line_start,
                window,
                excerpt_start,
                excerpt_window,
                excerpt_end,
            });
        }
        let map = |offset: usize| -> usize {
            let Some(line) = lines.iter().rev().find(|line| line.start <= offset) else {
                return 0;
            };
            if offset < line.window.start {
                line.excerpt_start
            } else if offset <= line.window.end {
                line.excerpt_window + one_line(&source[line.window.start..offset]).len()
            } else {
                line.excerpt_end
            }
        };
        let (excerpt_start, excerpt_end) = (map(start), map(cut_end));
        let column_end = start.min(line_end(source, first_span_line).0);
        Excerpt {
            name: one_line(name).into_owned(),
            primary: (
                excerpt_start,
                excerpt_end.max(excerpt_start) - excerpt_start,
            )
                .into(),
            primary_line: first_line_number,
            primary_column: source[first_span_line..column_end].chars().count(),
            text,
            first_line,
            notes,
        }
    }

    /// The excerpt's text: the shown lines, clipped and escaped.
    pub fn text(&self) -> &str {
        &self.text
    }
}

impl miette::SourceCode for Excerpt {
    fn read_span<'a>(
        &'a self,
        span: &miette::SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn miette::SpanContents<'a> + 'a>, miette::MietteError> {
        let inner =
            self.text
                .as_str()
                .read_span(span, context_lines_before, context_lines_after)?;
        let (line, column) = if *span == self.primary && context_lines_before == 0 {
            (self.primary_line, self.primary_column)
        } else {
            (inner.line() + self.first_line, inner.column())
        };
        // A text without a name (a library caller's string) is shown at
        // `[line:column]`, not `[:line:column]`.
        Ok(Box::new(if self.name.is_empty() {
            miette::MietteSpanContents::new(
                inner.data(),
                *inner.span(),
                line,
                column,
                inner.line_count(),
            )
        } else {
            miette::MietteSpanContents::new_named(
                self.name.clone(),
                inner.data(),
                *inner.span(),
                line,
                column,
                inner.line_count(),
            )
        }))
    }
}

// The line index lives with the other text primitives; users reach it
// here, where the diagnostics that take it ([`Diagnostic::located`]) are.
pub use crate::text::index::LineIndex;

// ------------------------------------------------------------------ codes

/// Declares a diagnostic code enum from one list of variants and their
/// printed names: the enum, its `ALL` constant and its [`DiagnosticCode`]
/// impl. With one list, no code can be left out of `ALL` or go without a
/// name.
macro_rules! diagnostic_codes {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $(
                $(#[$variant_meta:meta])*
                $variant:ident => $code:literal,
            )*
        }
    ) => {
        $(#[$meta])*
        $vis enum $name {
            $(
                $(#[$variant_meta])*
                $variant,
            )*
        }

        impl $name {
            /// Every code, in the order they are declared.
            pub const ALL: [$name; [$(stringify!($variant)),*].len()] = [$($name::$variant),*];
        }

        impl $crate::diagnostics::DiagnosticCode for $name {
            fn as_str(&self) -> &'static str {
                match self {
                    $($name::$variant => $code,)*
                }
            }
        }
    };
}
pub(crate) use diagnostic_codes;

/// Checks a code enum's `ALL`: no two codes print the same, and each prints
/// as `namespace::snake_case`.
#[cfg(test)]
pub(crate) fn assert_codes_are_distinct<C: DiagnosticCode>(all: &[C], namespace: &str) {
    let names: std::collections::HashSet<&str> = all.iter().map(DiagnosticCode::as_str).collect();
    assert_eq!(names.len(), all.len(), "two codes print the same");
    for name in names {
        let rest = name
            .strip_prefix(namespace)
            .and_then(|rest| rest.strip_prefix("::"))
            .unwrap_or_else(|| panic!("{name} is not in {namespace}::"));
        assert!(
            !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
            "{name}"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug)]
    struct TestCode;

    impl DiagnosticCode for TestCode {
        fn as_str(&self) -> &'static str {
            "test::code"
        }
    }

    fn finding(span: Span, label: &str) -> Diagnostic<TestCode> {
        Diagnostic {
            code: TestCode,
            severity: Severity::Error,
            message: "something is wrong".into(),
            label: label.into(),
            help: "fix it".into(),
            span,
            field: None,
        }
    }

    fn render(diagnostic: &Diagnostic<TestCode>, name: &str, source: &str) -> String {
        let handler =
            miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
                .with_width(100);
        let mut out = String::new();
        handler
            .render_report(&mut out, &diagnostic.to_report(name, source))
            .unwrap();
        out
    }

    #[test]
    fn a_label_past_column_65535_renders_clipped() {
        // miette panics formatting a label indented by more than u16::MAX
        // columns ("Formatting argument out of range"); the excerpt keeps
        // every shown line short.
        let source = "a".repeat(100_001);
        let report = render(&finding(Span::new(100_000, 100_001), "here"), "x", &source);
        assert!(report.len() < 2_000, "{} bytes", report.len());
        assert!(report.contains("[x:1:100001]"), "{report}");
        assert!(report.contains("here (long line clipped)"), "{report}");
        assert!(report.contains(" 1 │ …aaa"), "{report}");
    }

    #[test]
    fn a_long_span_shows_its_first_lines_and_says_where_it_ends() {
        let source: String = (1..=200).map(|n| format!("line {n}\n")).collect();
        let start = source.find("line 5").unwrap();
        let report = render(
            &finding(Span::new(start, source.len()), "over"),
            "x",
            &source,
        );
        assert!(report.contains("[x:5:1]"), "{report}");
        assert!(
            report.contains("line 7") && !report.contains("line 9"),
            "{report}"
        );
        assert!(report.contains("over (continues to line 201)"), "{report}");
    }

    #[test]
    fn controls_are_escaped_with_the_span_on_the_escape() {
        let source = "fix: a\n\nsee \u{1b}]0;title\u{7}é and \r over\u{2028}x\n";
        let at = source.find('\u{1b}').unwrap();
        let report = render(
            &finding(Span::new(at, at + 1), "ESC"),
            "n\u{1b}[31m",
            source,
        );
        assert!(!report.chars().any(is_unprintable), "{report:?}");
        assert!(
            report.contains(" 3 │ see \\u{1b}]0;title\\u{7}é and \\r over\\u{2028}x"),
            "{report}"
        );
        assert!(report.contains("[n\\u{1b}[31m:3:5]"), "{report}");
        // The underline covers the six characters of `\u{1b}`.
        assert!(report.contains("   ·     ───┬──\n"), "{report}");
    }

    #[test]
    fn columns_count_characters_and_crlf_lines_are_lines() {
        let source = "ééé x\r\nnext\r\n";
        let at = source.find('x').unwrap();
        let report = render(&finding(Span::new(at, at + 1), "x"), "n", source);
        assert!(report.contains("[n:1:5]"), "{report}");
        assert!(report.contains(" 2 │ next"), "{report}");
        assert!(!report.contains("\\r"), "{report}");
    }

    #[test]
    fn spans_outside_the_text_or_inside_a_character_do_not_panic() {
        for (source, span) in [
            ("", Span::new(0, 0)),
            ("é", Span::new(1, 1)),
            ("abc", Span::new(2, 99)),
            ("abc", Span::new(99, 120)),
            ("a\n\n\n", Span::new(4, 4)),
            ("a\r", Span::new(1, 2)),
        ] {
            let report = render(&finding(span, "l"), "n", source);
            assert!(
                report.contains("something is wrong"),
                "{source:?}: {report}"
            );
        }
    }

    #[test]
    fn messages_and_help_are_escaped() {
        let mut diagnostic = finding(Span::new(0, 1), "a\u{1b}b");
        diagnostic.message = "bad \u{9b}31m".into();
        diagnostic.help = "write `x\ny`".into();
        let report = render(&diagnostic, "n", "abc");
        assert!(!report.chars().any(is_unprintable), "{report:?}");
        assert!(
            report.contains("bad \\u{9b}31m") && report.contains("x\\ny"),
            "{report}"
        );
        assert!(report.contains("a\\u{1b}b"), "{report}");
    }

    #[test]
    fn every_unprintable_character_has_a_name() {
        let unprintable = (0..=0x2100_u32)
            .filter_map(char::from_u32)
            .filter(|&c| is_unprintable(c));
        for c in unprintable {
            assert!(character_name(c).is_some(), "{:04X}", u32::from(c));
        }
        assert_eq!(describe_character('\u{1b}'), "U+001B ESCAPE");
        assert_eq!(describe_character('\u{85}'), "U+0085 NEXT LINE");
        assert_eq!(describe_character('\u{2028}'), "U+2028 LINE SEPARATOR");
        assert_eq!(describe_character('é'), "U+00E9");
    }
}
