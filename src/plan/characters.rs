//! The characters a plan text may not hold (`plan::control_character`):
//! control characters other than tab, and the Unicode line and paragraph
//! separators ([`is_terminal_control`]). A plan becomes a commit message and
//! is printed to terminals, where an escape sequence can rewrite the screen,
//! a carriage return can overwrite a line, and a bell rings; none of them
//! belongs in a plan. Bidirectional controls are allowed: right-to-left
//! writing may need them, and quire escapes them wherever it shows text.
//!
//! Two readings of the rule share the wording here:
//!
//! - [`in_document`]: each value of a document (title, task text, ...), for
//!   documents built from data (the planner's tools) as much as parsed ones.
//!   A one-line value may not hold a line feed either. [`crate::plan::validate`]
//!   reports these.
//! - [`in_text`]: the whole text a document was parsed from, one finding per
//!   line, each at the exact character. It also sees what no value keeps:
//!   indentation, blank lines of vertical tabs, text the parser ignored.
//!   [`crate::plan::ParseOutcome::check`] reports these instead.
//!
//! NUL is such a character too, but the parser already halts on it
//! (`plan::nul_byte`: the text is binary, not a plan), so [`in_text`] never
//! sees one; [`in_document`] reports it in documents built from data.

use super::ast::{PlanDocument, Task};
use super::codes::{Code, PlanDiagnostic};
use crate::diagnostics::{Diagnostic, Severity, describe_character, is_terminal_control};
use crate::span::{Span, Spanned};

/// Whether a plan value may not hold `c`: a terminal control, or a line
/// feed in a value of one line.
// plan.ebnf: refused-char
fn is_refused(c: char, multi_line: bool) -> bool {
    is_terminal_control(c) || (c == '\n' && !multi_line)
}

/// Characters that break a line on some terminal or editor.
fn breaks_lines(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r' | '\u{b}' | '\u{c}' | '\u{85}' | '\u{2028}' | '\u{2029}'
    )
}

/// "the control character U+001B ESCAPE", "U+2028 LINE SEPARATOR".
fn character_phrase(c: char) -> String {
    if c.is_control() {
        format!("the control character {}", describe_character(c))
    } else {
        describe_character(c)
    }
}

/// How to fix a finding about `c`, in a value of one line or several (or in
/// text outside any value: `None`).
fn help(c: char, multi_line: Option<bool>) -> String {
    let fix = match (breaks_lines(c), multi_line) {
        (true, Some(false)) => "remove it: this text is one line",
        (true, _) => "remove it, and break lines with a plain line feed",
        (false, _) => "remove it, or say in words what it stood for",
    };
    format!(
        "{fix}. Plan texts become commit messages and are shown in terminals, where control characters can hide or rewrite text; tabs are allowed"
    )
}

/// " (and 3 more such characters)", or nothing.
fn more(count: usize) -> String {
    match count {
        0 => String::new(),
        1 => " (and 1 more such character)".to_owned(),
        n => format!(" (and {n} more such characters)"),
    }
}

fn finding(
    c: char,
    message: String,
    span: Span,
    field: Option<String>,
    multi_line: Option<bool>,
) -> PlanDiagnostic {
    Diagnostic {
        code: Code::ControlCharacter,
        severity: Severity::Error,
        message,
        label: describe_character(c),
        help: help(c, multi_line),
        span,
        field,
    }
}

// --------------------------------------------------------------- values

/// One text value of a document.
struct Field<'d> {
    /// Its path in the document's JSON shape: `tasks.0.2.1.1`.
    path: String,
    /// How a message names it: "the text of task 1.2".
    name: String,
    value: &'d Spanned<String>,
    /// Whether it may have several lines (the description, the direction).
    multi_line: bool,
}

/// Every text value of `document`, in the order of the text.
fn fields<'d>(document: &'d PlanDocument) -> Vec<Field<'d>> {
    let mut fields = Vec::new();
    let mut add = |path: String, name: String, value: &'d Spanned<String>, multi_line| {
        fields.push(Field {
            path,
            name,
            value,
            multi_line,
        });
    };
    if let Some(header) = &document.header {
        let parts = [
            ("header.type", "the type", &header.commit_type),
            ("header.scope", "the scope", &header.scope),
            ("header.title", "the title", &header.title),
        ];
        for (path, name, value) in parts {
            if let Some(value) = value {
                add(path.into(), name.into(), value, false);
            }
        }
    }
    if let Some(description) = &document.description {
        add(
            "description".into(),
            "the description".into(),
            description,
            true,
        );
    }
    for (index, constraint) in document.constraints.iter().flatten().enumerate() {
        let number = index + 1;
        let key = format!("the key of constraint {number}");
        add(
            format!("constraints.{index}.0"),
            key,
            &constraint.key,
            false,
        );
        let value = format!("the value of constraint {number}");
        add(
            format!("constraints.{index}.1"),
            value,
            &constraint.value,
            false,
        );
    }
    // Depth first, numbered as people count: task 1.2 is `tasks.0.2.1`.
    let mut stack: Vec<(String, String, &Task)> = document
        .tasks
        .as_deref()
        .unwrap_or_default()
        .iter()
        .enumerate()
        .rev()
        .map(|(index, task)| (format!("tasks.{index}"), (index + 1).to_string(), task))
        .collect();
    while let Some((path, number, task)) = stack.pop() {
        let name = format!("the text of task {number}");
        add(format!("{path}.1"), name, &task.text, false);
        for (index, child) in task.children.iter().enumerate().rev() {
            stack.push((
                format!("{path}.2.{index}"),
                format!("{number}.{}", index + 1),
                child,
            ));
        }
    }
    if let Some(direction) = &document.direction {
        add("direction".into(), "the direction".into(), direction, true);
    }
    fields
}

/// One finding for each value of `document` that holds a refused character,
/// at the first one.
pub(crate) fn in_document(document: &PlanDocument) -> Vec<PlanDiagnostic> {
    fields(document).iter().filter_map(in_field).collect()
}

/// The finding for one value, if it holds a refused character.
fn in_field(field: &Field<'_>) -> Option<PlanDiagnostic> {
    let text = field.value.value.as_str();
    let multi_line = field.multi_line;
    let mut refused = text
        .char_indices()
        .filter(|&(_, c)| is_refused(c, multi_line));
    let (at, c) = refused.next()?;
    let others = refused.count();
    let line = text[..at].matches('\n').count();
    let place = if multi_line && text.contains('\n') {
        format!("line {} of {}", line + 1, field.name)
    } else {
        field.name.clone()
    };
    let message = format!("{place} contains {}{}", character_phrase(c), more(others));
    let span = span_in_value(field.value, at, c, line);
    Some(finding(
        c,
        message,
        span,
        Some(field.path.clone()),
        Some(multi_line),
    ))
}

/// Where the character at byte `at` of a value is in the parsed text.
///
/// A parsed one-line value is the text under its span. A multi-line value
/// joins its lines with `\n` while the text may end them with `\r\n`: the
/// first line then still starts at the span's start and the last line ends
/// at its end, but a line in between cannot be placed without the text, so
/// the finding covers the whole value. A value not from text (a detached
/// span) keeps its span.
fn span_in_value(value: &Spanned<String>, at: usize, c: char, line: usize) -> Span {
    let span = value.span;
    let text = value.value.as_str();
    let width = c.len_utf8();
    if span.is_empty() {
        return span;
    }
    let start = if span.len() == text.len() || line == 0 {
        Some(span.start + at)
    } else if !text[at..].contains('\n') {
        span.end.checked_sub(text.len() - at)
    } else {
        None
    };
    match start {
        Some(start) if start + width <= span.end => Span::new(start, start + width),
        _ => span,
    }
}

// ---------------------------------------------------------------- texts

/// One finding for each line of `text` (the text `document` was parsed
/// from) that holds a refused character, at the first one. Carriage returns
/// that end a line are line endings, not content. (How many findings are
/// shown is the renderer's business: `quire check` shows the first 100.)
pub(crate) fn in_text(text: &str, document: &PlanDocument) -> Vec<PlanDiagnostic> {
    let mut findings = Vec::new();
    let mut fields: Option<Vec<Field<'_>>> = None;
    let mut line_start = 0;
    for (index, line) in text.split('\n').enumerate() {
        let content = line.trim_end_matches('\r');
        let mut refused = content
            .char_indices()
            .filter(|&(_, c)| is_terminal_control(c));
        if let Some((at, c)) = refused.next() {
            let at = line_start + at;
            let message = format!(
                "line {} contains {}{}",
                index + 1,
                character_phrase(c),
                more(refused.count())
            );
            // The value the character is in, if any (not indentation, not
            // text the parser ignored).
            let fields = fields.get_or_insert_with(|| in_text_order(document));
            let field = field_at(fields, at);
            findings.push(finding(
                c,
                message,
                Span::new(at, at + c.len_utf8()),
                field.map(|field| field.path.clone()),
                field.map(|field| field.multi_line),
            ));
        }
        line_start += line.len() + 1;
    }
    findings
}

/// The fields of a parsed document that hold text, by where they start.
fn in_text_order(document: &PlanDocument) -> Vec<Field<'_>> {
    let mut fields = fields(document);
    fields.retain(|field| !field.value.span.is_empty());
    fields.sort_by_key(|field| field.value.span.start);
    fields
}

/// The field whose span holds byte `offset`, among fields sorted by start
/// whose spans do not overlap (those of one parse).
fn field_at<'f, 'd>(fields: &'f [Field<'d>], offset: usize) -> Option<&'f Field<'d>> {
    let after = fields.partition_point(|field| field.value.span.start <= offset);
    let field = fields.get(after.checked_sub(1)?)?;
    (offset < field.value.span.end).then_some(field)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::plan::{Constraint, Header, ParserConfig, parse};

    fn codes_and_fields(findings: &[PlanDiagnostic]) -> Vec<(Code, Option<&str>)> {
        findings
            .iter()
            .map(|f| (f.code, f.field.as_deref()))
            .collect()
    }

    #[test]
    fn tab_is_allowed_and_controls_and_separators_are_not() {
        for c in ['\t', 'a', 'é', '\u{a0}', '\u{feff}', '\u{202e}'] {
            assert!(!is_refused(c, false), "{c:?}");
        }
        for c in [
            '\0', '\u{7}', '\u{8}', '\n', '\r', '\u{b}', '\u{c}', '\u{1b}', '\u{7f}', '\u{85}',
            '\u{9b}', '\u{9d}', '\u{2028}', '\u{2029}',
        ] {
            assert!(is_refused(c, false), "{c:?}");
        }
        assert!(!is_refused('\n', true));
        assert!(is_refused('\r', true));
    }

    #[test]
    fn every_value_of_a_built_document_is_checked() {
        let document = PlanDocument {
            header: Some(Header::new("fe\u{1b}at", "cli", "Ring\u{7} the bell\u{7}")),
            description: Some("First line.\nSecond\u{85}line.".into()),
            constraints: Some(vec![Constraint::new("Never", "skip\u{2028}tests")]),
            tasks: Some(vec![Task::new(
                false,
                "ok",
                vec![Task::new(false, "two\nlines", vec![])],
            )]),
            direction: Some("Go on\r".into()),
        };
        let findings = in_document(&document);
        assert_eq!(
            codes_and_fields(&findings),
            [
                (Code::ControlCharacter, Some("header.type")),
                (Code::ControlCharacter, Some("header.title")),
                (Code::ControlCharacter, Some("description")),
                (Code::ControlCharacter, Some("constraints.0.1")),
                (Code::ControlCharacter, Some("tasks.0.2.0.1")),
                (Code::ControlCharacter, Some("direction")),
            ]
        );
        let messages: Vec<&str> = findings.iter().map(|f| f.message.as_str()).collect();
        assert_eq!(
            messages[1],
            "the title contains the control character U+0007 BELL (and 1 more such character)"
        );
        assert_eq!(
            messages[2],
            "line 2 of the description contains the control character U+0085 NEXT LINE"
        );
        assert_eq!(
            messages[3],
            "the value of constraint 1 contains U+2028 LINE SEPARATOR"
        );
        assert_eq!(
            messages[4],
            "the text of task 1.1 contains the control character U+000A LINE FEED"
        );
        assert!(
            findings[4]
                .help
                .starts_with("remove it: this text is one line")
        );
        assert!(findings.iter().all(|f| f.span == Span::DETACHED));
    }

    #[test]
    fn parsed_values_point_at_the_character() {
        let text = "feat(a): Bold \u{1b}[1m\n\nLine one.\r\nLine \u{7}two.\r\nLine \u{1b}three.\n- [ ]: Ring \u{7}";
        let outcome = parse(text, &ParserConfig::default());
        assert!(outcome.is_parsed(), "{:?}", outcome.diagnostics);
        let findings = in_document(&outcome.document);
        let pointed: Vec<(&str, &str)> = findings
            .iter()
            .map(|f| (f.field.as_deref().unwrap(), &text[f.span.range()]))
            .collect();
        // The description's middle line cannot be placed exactly in CRLF
        // text: the finding covers the description.
        assert_eq!(
            pointed,
            [
                ("header.title", "\u{1b}"),
                (
                    "description",
                    "Line one.\r\nLine \u{7}two.\r\nLine \u{1b}three."
                ),
                ("tasks.0.1", "\u{7}"),
            ]
        );
        let lf = text.replace("\r\n", "\n");
        let outcome = parse(&lf, &ParserConfig::default());
        let description = &in_document(&outcome.document)[1];
        assert_eq!(&lf[description.span.range()], "\u{7}");
    }

    #[test]
    fn the_text_is_checked_line_by_line_outside_values_too() {
        let text = "fix: \u{1b}]0;ignored\u{7}\n\u{b}\ndescription\u{9b}\r\n- [ ]: ok\r\r\n  \u{c}- [ ]: indented\rback\n";
        let outcome = parse(text, &ParserConfig::default());
        let findings = in_text(text, &outcome.document);
        let found: Vec<(&str, Option<&str>, &str)> = findings
            .iter()
            .map(|f| {
                (
                    &text[f.span.range()],
                    f.field.as_deref(),
                    f.message.as_str(),
                )
            })
            .collect();
        assert_eq!(
            found,
            [
                (
                    "\u{1b}",
                    None,
                    "line 1 contains the control character U+001B ESCAPE (and 1 more such character)"
                ),
                (
                    "\u{b}",
                    None,
                    "line 2 contains the control character U+000B LINE TABULATION"
                ),
                (
                    "\u{9b}",
                    Some("description"),
                    "line 3 contains the control character U+009B CONTROL SEQUENCE INTRODUCER"
                ),
                (
                    "\u{c}",
                    None,
                    "line 5 contains the control character U+000C FORM FEED (and 1 more such character)"
                ),
            ],
        );
        // The carriage return inside line 5 counts; the ones ending lines 3
        // and 4 do not.
        assert!(findings[3].message.starts_with("line 5"));
        assert!(
            in_text("a\r\nb\r\r\nc\r", &PlanDocument::default()).is_empty(),
            "line endings"
        );
    }

    #[test]
    fn a_text_is_refused_exactly_the_characters_the_rule_names() {
        // The rule as the module states it: control characters but tab, and
        // the line and paragraph separators (line feeds end lines here).
        let named = |c: char| {
            (c.is_control() && c != '\t' && c != '\n') || matches!(c, '\u{2028}' | '\u{2029}')
        };
        for c in (0..=0x3000_u32).filter_map(char::from_u32) {
            let text = format!("fix(a): b{c}c");
            let findings = in_text(&text, &PlanDocument::default());
            assert_eq!(
                findings.len(),
                usize::from(named(c)),
                "U+{:04X}",
                u32::from(c)
            );
        }
    }

    #[test]
    fn every_line_gets_its_finding_and_each_its_field() {
        // Description, constraint value and task on alternate lines, many
        // times over: each finding names the value its line holds.
        let mut text = String::from("feat(a): b\n\nWhy.");
        for n in 0..500 {
            text.push_str(&format!("\nline \u{1b}{n}"));
        }
        text.push_str("\n- Never: x\u{7}y\n");
        for n in 0..500 {
            text.push_str(&format!("\n- [ ]: task \u{7f}{n}"));
        }
        let outcome = parse(&text, &ParserConfig::default());
        assert!(outcome.is_parsed(), "{:?}", outcome.diagnostics);
        let findings = in_text(&text, &outcome.document);
        assert_eq!(findings.len(), 1001);
        assert_eq!(findings[0].field.as_deref(), Some("description"));
        assert_eq!(findings[499].field.as_deref(), Some("description"));
        assert_eq!(findings[500].field.as_deref(), Some("constraints.0.1"));
        assert_eq!(findings[501].field.as_deref(), Some("tasks.0.1"));
        assert_eq!(findings[1000].field.as_deref(), Some("tasks.499.1"));
        assert!(findings[1000].message.starts_with("line 1005 contains"));
        for finding in &findings {
            assert!(
                matches!(&text[finding.span.range()], "\u{1b}" | "\u{7}" | "\u{7f}"),
                "{finding:?}"
            );
        }
    }
}
