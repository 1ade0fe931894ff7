//! The line rules of the plan grammar, as winnow parsers.
//!
//! Each rule parses one line's content (see [`line_input`]) and yields byte
//! spans into the whole document, or a [`Mismatch`]: the first character it
//! cannot take and what it expected there, which the diagnostics show.
//! `grammar/plan.ebnf` is the grammar; the comment above each function
//! names the rule it implements.
//!
//! The conventional header is not read here: the commit grammar reads it
//! ([`header_parts`], shared with Conventional Commits), and this module
//! applies the plan profile to that reading, so there is one header
//! grammar with two sets of rules.

use winnow::error::EmptyError;
use winnow::prelude::*;
use winnow::stream::{Location, Stream};
use winnow::token::{literal, one_of, rest, take_while};

use super::config::{ConstraintSyntax, HeaderSyntax, TaskSyntax};
use crate::commit::{HeaderParts, ScopePart, char_span, header_parts};
use crate::span::Span;
use crate::text::{Input, Line, RuleResult, line_input};

/// A piece of the line and where it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Piece<'i> {
    pub text: &'i str,
    pub span: Span,
}

fn piece<'i>(
    parser: impl Parser<Input<'i>, &'i str, EmptyError>,
) -> impl Parser<Input<'i>, Piece<'i>, EmptyError> {
    parser.with_span().map(|(text, range)| Piece {
        text,
        span: range.into(),
    })
}

// plan.ebnf: ws
fn is_ws(c: char) -> bool {
    c.is_whitespace()
}

// `char+`: the rest of the line, not empty
fn text1<'i>(input: &mut Input<'i>) -> RuleResult<Piece<'i>> {
    piece(rest.verify(|text: &str| !text.is_empty())).parse_next(input)
}

// ---------------------------------------------------------------- header ---

/// What a header line holds. `ignored` is text the grammar reads but does not
/// keep (the title after a type without scope).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct HeaderLine<'i> {
    pub commit_type: Option<Piece<'i>>,
    pub scope: Option<Piece<'i>>,
    pub breaking: bool,
    pub title: Option<Piece<'i>>,
    pub ignored: Option<Piece<'i>>,
}

/// Why a line does not match a rule: the first character the rule cannot
/// take, what it expected there, and a hint for the help text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Mismatch {
    /// The first character the rule cannot take: its span in the document
    /// (empty at the line's end, when the line stops short).
    pub span: Span,
    /// What the rule expected there, as a label: `expected ':' after ']'`.
    pub expected: &'static str,
    /// Why, and how to write it, for the help text.
    pub hint: &'static str,
}

type Checked<T> = Result<T, Mismatch>;

/// A mismatch at the input's next character (the cold path of every rule).
#[cold]
fn mismatch(input: &Input<'_>, expected: &'static str, hint: &'static str) -> Mismatch {
    let at = input.current_token_start();
    let width = input.peek_token().map_or(0, char::len_utf8);
    Mismatch {
        span: Span::new(at, at + width),
        expected,
        hint,
    }
}

const HINT_LOWERCASE: &str = "the type must be lowercase letters (`fix`, not `Fix`)";
const HINT_NO_TYPE: &str =
    "the header must start with a type of lowercase letters, like `feat`, `fix` or `docs`";
const HINT_BANG: &str = "a breaking `!` needs a scope before it: `feat(scope)!: title`";
const HINT_SPACE: &str = "no space is allowed between the type, the scope and the colon";
const HINT_SCOPE: &str =
    "the scope must be non-empty, without spaces, closed by `)` and followed by `:`";
const HINT_AFTER_TYPE: &str = "the type must be followed by `:` or `(scope):`";

/// The header on `line`, or where and why it is not one.
// plan.ebnf: header (the alternative is the configured syntax)
pub(crate) fn header_line<'i>(
    document: &'i str,
    line: Line,
    syntax: HeaderSyntax,
) -> Checked<HeaderLine<'i>> {
    match syntax {
        HeaderSyntax::Conventional => conventional_header(document, line),
        HeaderSyntax::MarkdownHeading => titled_header(
            "# ",
            "expected `# ` and a title",
            "start with a markdown heading: `# Title`",
            &mut line_input(document, line),
        ),
        HeaderSyntax::YamlTitle => titled_header(
            "title: ",
            "expected `title: ` and a title",
            "start with a title line: `title: Title`",
            &mut line_input(document, line),
        ),
    }
}

/// A mismatch at the character of `document` at `at`, in a line that ends
/// at `end`.
#[cold]
fn mismatch_at(
    document: &str,
    at: usize,
    end: usize,
    expected: &'static str,
    hint: &'static str,
) -> Mismatch {
    Mismatch {
        span: char_span(document, at, end),
        expected,
        hint,
    }
}

/// The text of `span` with its span.
fn piece_of(document: &str, span: Span) -> Piece<'_> {
    Piece {
        text: &document[span.range()],
        span,
    }
}

// plan.ebnf: conventional-header, type
//
// The commit grammar's reading of the header (commit.ebnf header-parts),
// judged by the plan profile: where the first part breaks the profile is
// the mismatch.
fn conventional_header<'i>(document: &'i str, line: Line) -> Checked<HeaderLine<'i>> {
    let parts = header_parts(document, line);
    let typed = parts.commit_type;
    let lowercase = document[typed.range()]
        .bytes()
        .take_while(u8::is_ascii_lowercase)
        .count();
    if lowercase == 0 {
        let rest = &document[typed.start..line.end];
        return Err(mismatch_at(
            document,
            typed.start,
            line.end,
            "expected a lowercase type",
            type_hint(rest),
        ));
    }
    if lowercase < typed.len() {
        return Err(after_type(document, typed.start + lowercase, line.end));
    }
    let commit_type = Some(piece_of(document, typed));
    let Some(scope) = parts.scope else {
        if let Some(bang) = parts.bang {
            return Err(after_type(document, bang.start, line.end));
        }
        if parts.colon.is_none() {
            return Err(after_type(document, parts.rest.start, line.end));
        }
        return Ok(HeaderLine {
            commit_type,
            scope: None,
            breaking: false,
            title: None,
            ignored: ignored_text(document, parts.rest),
        });
    };
    let scope = scoped_tail(document, line, scope, &parts)?;
    Ok(HeaderLine {
        commit_type,
        scope: Some(scope),
        breaking: parts.bang.is_some(),
        title: title_part(document, parts.rest),
        ignored: None,
    })
}

/// The hint for a line that does not start with a type (`rest` is the
/// line): a word with capital letters where the type goes (`Fix:`) is a
/// type to lowercase; anything else has no type.
fn type_hint(rest: &str) -> &'static str {
    let after_word = rest.trim_start_matches(char::is_alphabetic);
    let word = &rest[..rest.len() - after_word.len()];
    if word.chars().any(char::is_uppercase) && after_word.starts_with([':', '(', '!']) {
        HINT_LOWERCASE
    } else {
        HINT_NO_TYPE
    }
}

/// Why the character at `at`, right after a type, is not `:` or `(`.
fn after_type(document: &str, at: usize, end: usize) -> Mismatch {
    let rest = &document[at..end];
    let (expected, hint) = match rest.chars().next() {
        Some('!') if rest.starts_with("!:") => ("expected `(scope)` before `!`", HINT_BANG),
        Some(c) if is_ws(c) => ("expected `:` or `(` right after the type", HINT_SPACE),
        Some(c) if c.is_uppercase() => ("expected `:` or `(`", HINT_LOWERCASE),
        _ => ("expected `:` or `(`", HINT_AFTER_TYPE),
    };
    mismatch_at(document, at, end, expected, hint)
}

// plan.ebnf: scoped-tail, scope (up to the colon; the title-part follows)
fn scoped_tail<'i>(
    document: &'i str,
    line: Line,
    scope: ScopePart,
    parts: &HeaderParts,
) -> Checked<Piece<'i>> {
    let inside = &document[scope.text.range()];
    let unspaced = inside.len() - inside.trim_start_matches(|c: char| !is_ws(c)).len();
    if unspaced == 0 {
        return Err(mismatch_at(
            document,
            scope.text.start,
            line.end,
            "expected a scope",
            HINT_SCOPE,
        ));
    }
    if unspaced < inside.len() || !scope.closed {
        let at = scope.text.start + unspaced;
        return Err(mismatch_at(
            document,
            at,
            line.end,
            "expected `)` after the scope",
            HINT_SCOPE,
        ));
    }
    if parts.colon.is_none() {
        let expected = if parts.bang.is_some() {
            "expected `:` after `!`"
        } else {
            "expected `:` after `)`"
        };
        return Err(mismatch_at(
            document,
            parts.rest.start,
            line.end,
            expected,
            HINT_SCOPE,
        ));
    }
    Ok(piece_of(document, scope.text))
}

// plan.ebnf: ignored-text (the span covers what follows the whitespace)
fn ignored_text(document: &str, rest: Span) -> Option<Piece<'_>> {
    let text = document[rest.range()].trim_start_matches(is_ws);
    (!text.is_empty()).then(|| piece_of(document, Span::new(rest.end - text.len(), rest.end)))
}

// plan.ebnf: title-part, title
//
// When the rest of the line is only whitespace, its last character is the
// title: the original's `:\s*(.+)$` backtracked to that. The validator then
// reports the title's whitespace.
fn title_part(document: &str, rest: Span) -> Option<Piece<'_>> {
    let after_colon = &document[rest.range()];
    let title = after_colon.trim_start_matches(is_ws);
    if !title.is_empty() {
        return Some(piece_of(
            document,
            Span::new(rest.end - title.len(), rest.end),
        ));
    }
    after_colon
        .chars()
        .next_back()
        .map(|last| piece_of(document, Span::new(rest.end - last.len_utf8(), rest.end)))
}

// plan.ebnf: markdown-header, yaml-header
fn titled_header<'i>(
    marker: &'static str,
    expected: &'static str,
    hint: &'static str,
    input: &mut Input<'i>,
) -> Checked<HeaderLine<'i>> {
    // The first character that differs from the marker is the mistake.
    let matching = input
        .chars()
        .zip(marker.chars())
        .take_while(|(found, wanted)| found == wanted)
        .map(|(found, _)| found.len_utf8())
        .sum::<usize>();
    let marked: RuleResult<&str> = literal(marker).parse_next(input);
    if marked.is_err() {
        input.next_slice(matching);
        return Err(mismatch(input, expected, hint));
    }
    let title = text1(input).map_err(|_| mismatch(input, expected, hint))?;
    Ok(HeaderLine {
        commit_type: None,
        scope: None,
        breaking: false,
        title: Some(title),
        ignored: None,
    })
}

// ------------------------------------------------------------------ tasks ---

/// A task line's parts, as spans (small, because every task line is passed
/// from the rule through the sections to the document).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TaskLine {
    pub indent: Span,
    pub checked: bool,
    pub text: Span,
}

impl TaskLine {
    /// Indentation width in characters (a tab counts as one, as it did in the
    /// original).
    pub(super) fn indent_width(&self, document: &str) -> usize {
        let indent = &document[self.indent.range()];
        if indent.is_ascii() {
            indent.len()
        } else {
            indent.chars().count()
        }
    }
}

// plan.ebnf: indent
//
// The length of `content`'s indentation: bytes while they are ASCII
// whitespace, characters from the first other byte on (an indent is spaces
// and tabs; any Unicode whitespace counts, as `ws` says).
fn indent_length(content: &str) -> usize {
    let bytes = content.as_bytes();
    let ascii = bytes.iter().take_while(|&&byte| is_ascii_ws(byte)).count();
    if bytes.get(ascii).is_none_or(u8::is_ascii) {
        return ascii;
    }
    let after_ascii = &content[ascii..];
    ascii
        + after_ascii
            .char_indices()
            .find(|&(_, c)| !is_ws(c))
            .map_or(after_ascii.len(), |(at, _)| at)
}

/// `char::is_whitespace` on an ASCII byte: tab, line feed, vertical tab,
/// form feed, carriage return and space.
pub(crate) fn is_ascii_ws(byte: u8) -> bool {
    matches!(byte, b'\t'..=b'\r' | b' ')
}

/// Whether a line whose first byte after its ASCII indentation is `first`
/// may be a task, task-like, constraint or constraint-like line (`false`:
/// it is text). A superset of what the rules below accept, so that a line
/// the rules would read is never skipped: every task and task-like line of
/// any syntax starts with `-` or `[` after its indentation, a constraint
/// with `-`, `>` or a key character, and a byte that is not ASCII may be
/// more indentation.
// plan.ebnf: task, task-like, constraint, constraint-like (their first
// characters)
pub(crate) fn may_begin_section(first: u8, constraint: ConstraintSyntax) -> bool {
    match first {
        b'-' | b'[' => true,
        b'>' => constraint == ConstraintSyntax::Blockquote,
        b'_' | b'0'..=b'9' | b'a'..=b'z' | b'A'..=b'Z' => constraint == ConstraintSyntax::YamlKey,
        _ => !first.is_ascii(),
    }
}

/// `c`, or a mismatch at the input's next character.
#[inline]
fn expect_char(
    input: &mut Input<'_>,
    c: char,
    expected: &'static str,
    hint: &'static str,
) -> Checked<()> {
    // A direct comparison: winnow's `literal` is the hot spot of a parse
    // when every character goes through it.
    if input.starts_with(c) {
        input.next_slice(c.len_utf8());
        Ok(())
    } else {
        Err(mismatch(input, expected, hint))
    }
}

/// `text`, or a mismatch at its first character the input does not have.
fn expect_text(
    input: &mut Input<'_>,
    text: &'static str,
    expected: &'static str,
    hint: &'static str,
) -> Checked<()> {
    for c in text.chars() {
        expect_char(input, c, expected, hint)?;
    }
    Ok(())
}

/// `char+`, or a mismatch at the line's end.
fn expect_text1<'i>(
    input: &mut Input<'i>,
    expected: &'static str,
    hint: &'static str,
) -> Checked<Piece<'i>> {
    text1(input).map_err(|_| mismatch(input, expected, hint))
}

const HINT_TASK: &str = "a task is `- [ ]: text` (`[x]` when done)";
const HINT_CHECKBOX_TASK: &str = "a task is `- [ ] text` (`[x]` when done)";
const HINT_YAML_TASK: &str = "a task is `- task: text ( )` (`(x)` when done)";
/// The label of a task line whose marker has no text after it.
pub(crate) const EXPECTED_TASK_TEXT: &str = "expected the task's text";

/// The task on `line`, if it is one.
// plan.ebnf: task-line (the alternative is the configured syntax)
pub(crate) fn task_on(document: &str, line: Line, syntax: TaskSyntax) -> Option<TaskLine> {
    match syntax {
        TaskSyntax::CheckboxColon => checkbox_task(true, document, line),
        TaskSyntax::Checkbox => checkbox_task(false, document, line),
        TaskSyntax::YamlTask => yaml_task(document, line).ok(),
    }
}

/// Where and why `line` is not a task; `None` when it is one. Worked out
/// apart from [`task_on`] because most lines that are not tasks are read
/// by the next rule, and only the diagnostics need to know.
// plan.ebnf: task-line
pub(crate) fn task_mismatch(document: &str, line: Line, syntax: TaskSyntax) -> Option<Mismatch> {
    match syntax {
        TaskSyntax::CheckboxColon | TaskSyntax::Checkbox => {
            let colon = syntax == TaskSyntax::CheckboxColon;
            checkbox_task(colon, document, line)
                .is_none()
                .then(|| checkbox_mismatch(colon, document, line))
        }
        TaskSyntax::YamlTask => yaml_task(document, line).err(),
    }
}

// plan.ebnf: checkbox-colon-task, checkbox-task
//
// Byte by byte, on the line's bytes rather than a winnow stream: every token
// is ASCII, an ASCII byte never matches part of another character, and this
// rule reads most lines of a plan. `checkbox_mismatch` says where a line
// that is not a task differs.
fn checkbox_task(colon: bool, document: &str, line: Line) -> Option<TaskLine> {
    const COLON: &[u8] = b"- [x]: ";
    const NO_COLON: &[u8] = b"- [x] ";
    let content = line.text(document);
    let indent = indent_length(content);
    let bytes = &content.as_bytes()[indent..];
    let marker = if colon { COLON } else { NO_COLON };
    // plan.ebnf: mark (the byte at 3)
    // Byte comparisons: a slice comparison is a `memcmp` call.
    let matches = bytes.len() > marker.len()
        && bytes[0] == b'-'
        && bytes[1] == b' '
        && bytes[2] == b'['
        && matches!(bytes[3], b'x' | b' ')
        && bytes[4] == b']'
        && bytes[5] == marker[5]
        && (!colon || bytes[6] == b' ');
    if !matches {
        return None;
    }
    Some(TaskLine {
        indent: Span::new(line.start, line.start + indent),
        checked: bytes[3] == b'x',
        text: Span::new(line.start + indent + marker.len(), line.end),
    })
}

/// Where and why `line` is not a checkbox task: at the first byte that
/// differs, as `expect_char` would say.
#[cold]
fn checkbox_mismatch(colon: bool, document: &str, line: Line) -> Mismatch {
    let hint = if colon { HINT_TASK } else { HINT_CHECKBOX_TASK };
    let expectations: &[(Option<u8>, &'static str)] = &[
        (Some(b'-'), "expected `- [`"),
        (Some(b' '), "expected a space after `-`"),
        (Some(b'['), "expected `[` after `- `"),
        (None, "expected `x` or a space"),
        (Some(b']'), "expected `]` after the mark"),
    ];
    let tail: &[(Option<u8>, &'static str)] = if colon {
        &[
            (Some(b':'), "expected `:` after `]`"),
            (Some(b' '), "expected a space after `:`"),
        ]
    } else {
        &[(Some(b' '), "expected a space after `]`")]
    };
    let content = line.text(document);
    let indent = indent_length(content);
    let bytes = &content.as_bytes()[indent..];
    let at = |offset: usize, expected| {
        let at = indent + offset;
        let width = content[at..].chars().next().map_or(0, char::len_utf8);
        let start = line.start + at;
        Mismatch {
            span: Span::new(start, start + width),
            expected,
            hint,
        }
    };
    for (offset, &(wanted, expected)) in expectations.iter().chain(tail).enumerate() {
        let found = bytes.get(offset).copied();
        let fits = match wanted {
            Some(byte) => found == Some(byte),
            None => matches!(found, Some(b'x' | b' ')),
        };
        if !fits {
            return at(offset, expected);
        }
    }
    at(expectations.len() + tail.len(), EXPECTED_TASK_TEXT)
}

// plan.ebnf: yaml-task
fn yaml_task(document: &str, line: Line) -> Checked<TaskLine> {
    let length = indent_length(line.text(document));
    let indent = Span::new(line.start, line.start + length);
    let input = &mut line_input(document, line);
    input.next_slice(length);
    expect_text(input, "- task: ", "expected `- task: `", HINT_YAML_TASK)?;
    let body = expect_text1(input, EXPECTED_TASK_TEXT, HINT_YAML_TASK)?;
    let end = mismatch(
        input,
        "expected ` (x)` or ` ( )` at the end",
        HINT_YAML_TASK,
    );
    let suffix_at = body.text.len().checked_sub(4).ok_or(end)?;
    let (text, suffix) = body.text.split_at_checked(suffix_at).ok_or(end)?;
    let checked = match suffix {
        " (x)" => true,
        " ( )" => false,
        _ => return Err(end),
    };
    if text.is_empty() {
        let at = Span::at(body.span.start);
        return Err(Mismatch {
            span: at,
            expected: EXPECTED_TASK_TEXT,
            hint: HINT_YAML_TASK,
        });
    }
    Ok(TaskLine {
        indent,
        checked,
        text: Span::new(body.span.start, body.span.start + text.len()),
    })
}

/// Why a line that starts like a task is not one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TaskProblem {
    /// The marker is there but no text follows (`- [ ]:`, a lone `-`).
    Empty,
    /// The marker itself is wrong (`[x]: text` without `- `, `- [x] text`
    /// without the colon, `- [X]: text`).
    Malformed,
}

// plan.ebnf: task-like
//
// A line in the constraint or task section that starts like a task but is
// not a task halts the parser, instead of becoming the direction.
pub(crate) fn task_problem(syntax: TaskSyntax, line: &str) -> Option<TaskProblem> {
    let body = line.trim_start_matches(is_ws);
    if body.trim_end_matches(is_ws) == "-" {
        return Some(TaskProblem::Empty);
    }
    let (marker, bare_marker) = match syntax {
        TaskSyntax::CheckboxColon | TaskSyntax::Checkbox => {
            ("- [", body.starts_with("[x]") || body.starts_with("[ ]"))
        }
        TaskSyntax::YamlTask => ("- task:", false),
    };
    if !(body.starts_with(marker) || bare_marker) {
        return None;
    }
    let is_empty = match syntax {
        TaskSyntax::CheckboxColon | TaskSyntax::Checkbox => {
            let after = body.trim_start_matches('-').trim_start_matches(is_ws);
            ["[x]", "[ ]"].iter().any(|checkbox| {
                after
                    .strip_prefix(checkbox)
                    .is_some_and(|tail| tail.trim_start_matches(':').trim_matches(is_ws).is_empty())
            })
        }
        TaskSyntax::YamlTask => body["- task:".len().min(body.len())..]
            .trim_matches(is_ws)
            .is_empty(),
    };
    Some(if is_empty {
        TaskProblem::Empty
    } else {
        TaskProblem::Malformed
    })
}

// ------------------------------------------------------------ constraints ---

/// A constraint line's key and value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ConstraintLine {
    pub key: Span,
    pub value: Span,
}

const HINT_DASH_CONSTRAINT: &str = "write `- Key: value`: the key a capital letter then lowercase letters and spaces (`Never`, `Do not`), the value starting with a lowercase letter";
const HINT_BLOCKQUOTE_CONSTRAINT: &str =
    "write `> Key: value` with a key without `:` and a non-empty value";
const HINT_YAML_CONSTRAINT: &str = "write `key: value` with a key of letters, digits and `_`";
/// The label of a dash constraint whose value does not start with a
/// lowercase letter (its key is right).
pub(crate) const EXPECTED_DASH_VALUE: &str = "expected a lowercase letter";

/// The constraint on `line`, or where and why it is not one.
// plan.ebnf: constraint (the alternative is the configured syntax)
pub(crate) fn constraint_line(
    document: &str,
    line: Line,
    syntax: ConstraintSyntax,
) -> Checked<ConstraintLine> {
    let input = &mut line_input(document, line);
    match syntax {
        ConstraintSyntax::Dash => dash_constraint(input),
        ConstraintSyntax::Blockquote => blockquote_constraint(input),
        ConstraintSyntax::YamlKey => yaml_constraint(input),
    }
}

// plan.ebnf: dash-constraint, dash-key, dash-value
fn dash_constraint(input: &mut Input<'_>) -> Checked<ConstraintLine> {
    let hint = HINT_DASH_CONSTRAINT;
    expect_text(input, "- ", "expected `- `", hint)?;
    let key = piece((one_of('A'..='Z'), take_while(0.., ('a'..='z', ' '))).take())
        .parse_next(input)
        .map_err(|_: EmptyError| mismatch(input, "expected a capital letter", hint))?;
    expect_char(
        input,
        ':',
        "expected a lowercase letter, a space or `:`",
        hint,
    )?;
    expect_char(input, ' ', "expected a space after `:`", hint)?;
    let value = piece((one_of('a'..='z'), rest).take())
        .parse_next(input)
        .map_err(|_: EmptyError| mismatch(input, EXPECTED_DASH_VALUE, hint))?;
    Ok(ConstraintLine {
        key: key.span,
        value: value.span,
    })
}

// plan.ebnf: blockquote-constraint
fn blockquote_constraint(input: &mut Input<'_>) -> Checked<ConstraintLine> {
    let hint = HINT_BLOCKQUOTE_CONSTRAINT;
    expect_text(input, "> ", "expected `> `", hint)?;
    let key = piece(take_while(1.., |c: char| c != ':'))
        .parse_next(input)
        .map_err(|_: EmptyError| mismatch(input, "expected a key", hint))?;
    expect_char(input, ':', "expected `:` after the key", hint)?;
    expect_char(input, ' ', "expected a space after `:`", hint)?;
    let value = expect_text1(input, "expected a value", hint)?;
    Ok(ConstraintLine {
        key: key.span,
        value: value.span,
    })
}

// plan.ebnf: yaml-constraint
fn yaml_constraint(input: &mut Input<'_>) -> Checked<ConstraintLine> {
    let hint = HINT_YAML_CONSTRAINT;
    let key = piece(take_while(1.., ('a'..='z', 'A'..='Z', '0'..='9', '_')))
        .parse_next(input)
        .map_err(|_: EmptyError| {
            mismatch(input, "expected a key of letters, digits and `_`", hint)
        })?;
    expect_char(input, ':', "expected a letter, a digit, `_` or `:`", hint)?;
    expect_char(input, ' ', "expected a space after `:`", hint)?;
    let value = expect_text1(input, "expected a value", hint)?;
    Ok(ConstraintLine {
        key: key.span,
        value: value.span,
    })
}

// plan.ebnf: constraint-like
//
// A line shaped like a constraint that the constraint rule rejects. The
// original skipped it silently; we skip it with a warning. It also ends the
// description. An indented constraint counts too: it is not a constraint
// (they start at the beginning of the line), and were it left to the
// direction, trimming would turn it into one.
pub(crate) fn is_constraint_like(document: &str, line: Line, syntax: ConstraintSyntax) -> bool {
    let content = line.text(document);
    let unindented = content.trim_start_matches(is_ws);
    let indent = content.len() - unindented.len();
    if indent == 0 {
        return is_marked_constraint_like(syntax, content);
    }
    let mut input = line_input(document, line);
    input.next_slice(indent);
    let constraint = match syntax {
        ConstraintSyntax::Dash => dash_constraint(&mut input).is_ok(),
        ConstraintSyntax::Blockquote => blockquote_constraint(&mut input).is_ok(),
        ConstraintSyntax::YamlKey => yaml_constraint(&mut input).is_ok(),
    };
    constraint || is_marked_constraint_like(syntax, unindented)
}

// plan.ebnf: marked-constraint-like
fn is_marked_constraint_like(syntax: ConstraintSyntax, text: &str) -> bool {
    let marker = match syntax {
        ConstraintSyntax::Dash => "- ",
        ConstraintSyntax::Blockquote => "> ",
        ConstraintSyntax::YamlKey => return false,
    };
    text.strip_prefix(marker)
        .is_some_and(|tail| tail.contains(": "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::split_lines;

    fn header_with(syntax: HeaderSyntax, text: &str) -> Option<HeaderLine<'_>> {
        header_line(text, split_lines(text, 0, text.len())[0], syntax).ok()
    }

    /// Where `rule` fails on the one-line `text`: the character and the
    /// expectation.
    fn mismatch_in(
        text: &str,
        rule: impl Fn(&str, Line) -> Option<Mismatch>,
    ) -> (&str, &'static str) {
        let mismatch = rule(text, split_lines(text, 0, text.len())[0]).expect("a mismatch");
        (&text[mismatch.span.range()], mismatch.expected)
    }

    fn header(text: &str) -> Option<HeaderLine<'_>> {
        header_with(HeaderSyntax::Conventional, text)
    }

    #[test]
    fn header_spans_point_at_each_part() {
        let h = header("fix(sc/ope)!: Do it").unwrap();
        assert_eq!(h.commit_type.unwrap().span, Span::new(0, 3));
        assert_eq!(h.scope.unwrap().text, "sc/ope");
        assert_eq!(h.scope.unwrap().span, Span::new(4, 10));
        assert!(h.breaking);
        assert_eq!(h.title.unwrap().text, "Do it");
        assert_eq!(h.title.unwrap().span, Span::new(14, 19));
    }

    #[test]
    fn header_title_rules_follow_the_original_patterns() {
        assert_eq!(header("fix(s):x").unwrap().title.unwrap().text, "x");
        assert_eq!(header("fix(s):   x y").unwrap().title.unwrap().text, "x y");
        let blank = header("fix(s):  ").unwrap().title.unwrap();
        assert_eq!((blank.text, blank.span), (" ", Span::new(8, 9)));
        assert_eq!(header("fix(s):").unwrap().title, None);
        let typed = header("fix: Description").unwrap();
        assert_eq!(
            (typed.title, typed.ignored.unwrap().text),
            (None, "Description")
        );
        assert_eq!(header("fix:   ").unwrap().ignored, None);
        for bad in [
            "Fix:", "fix :", "fix (s):", "fix( s):", "fix(s )", "fix!:", "fix()", "fix(a)b:", "",
        ] {
            assert!(header(bad).is_none(), "{bad:?} should not be a header");
        }
    }

    #[test]
    fn a_header_mismatch_is_the_first_wrong_character_and_what_was_expected() {
        use HeaderSyntax::{Conventional, MarkdownHeading, YamlTitle};
        let cases = [
            (Conventional, "Fix: x", "F", "expected a lowercase type"),
            (
                Conventional,
                "feat(ui) Add x",
                " ",
                "expected `:` after `)`",
            ),
            (Conventional, "feat(ui)!x", "x", "expected `:` after `!`"),
            (
                Conventional,
                "feat!: x",
                "!",
                "expected `(scope)` before `!`",
            ),
            (
                Conventional,
                "fix (s): x",
                " ",
                "expected `:` or `(` right after the type",
            ),
            (
                Conventional,
                "fix(a b): x",
                " ",
                "expected `)` after the scope",
            ),
            (Conventional, "fix(): x", ")", "expected a scope"),
            (Conventional, "fix(s", "", "expected `)` after the scope"),
            (Conventional, "fix", "", "expected `:` or `(`"),
            (Conventional, "fixup! x", "!", "expected `:` or `(`"),
            (Conventional, "fiX: x", "X", "expected `:` or `(`"),
            (Conventional, "fix2: x", "2", "expected `:` or `(`"),
            (Conventional, "fête: x", "ê", "expected `:` or `(`"),
            (Conventional, "fix( s): x", " ", "expected a scope"),
            (Conventional, "fix(a b", " ", "expected `)` after the scope"),
            (Conventional, "fix(", "", "expected a scope"),
            (Conventional, "(s): x", "(", "expected a lowercase type"),
            (MarkdownHeading, "#Title", "T", "expected `# ` and a title"),
            (YamlTitle, "title: ", "", "expected `title: ` and a title"),
        ];
        for (syntax, text, at, expected) in cases {
            let found = mismatch_in(text, |text, line| header_line(text, line, syntax).err());
            assert_eq!(found, (at, expected), "{text:?}");
        }
    }

    /// The plan header is the commit grammar's header under the plan
    /// profile: the same line, two verdicts.
    #[test]
    fn the_plan_profile_and_conventional_commits_judge_one_reading() {
        let conventional = |text: &str| crate::commit::parse_header(text).conventional;
        for (text, plan, commit) in [
            ("fix(s): x", true, true),
            ("fix(s):x", true, false),
            ("feat!: x", false, true),
            ("feat(a b): x", false, true),
            ("Feat: x", false, true),
            ("feat-x: y", false, true),
            ("fix(): x", false, false),
            ("Add a parser", false, false),
        ] {
            assert_eq!(header(text).is_some(), plan, "plan profile on {text:?}");
            assert_eq!(conventional(text).is_some(), commit, "commit on {text:?}");
        }
    }

    #[test]
    fn titled_headers_have_no_type() {
        let md = header_with(HeaderSyntax::MarkdownHeading, "# Plan it").unwrap();
        assert_eq!((md.commit_type, md.title.unwrap().text), (None, "Plan it"));
        let yaml = header_with(HeaderSyntax::YamlTitle, "title: Plan").unwrap();
        assert_eq!(yaml.title.unwrap().span, Span::new(7, 11));
        assert!(header_with(HeaderSyntax::MarkdownHeading, "# ").is_none());
    }

    fn task(syntax: TaskSyntax, text: &str) -> Option<(usize, bool, &str)> {
        task_on(text, split_lines(text, 0, text.len())[0], syntax)
            .map(|t| (t.indent_width(text), t.checked, &text[t.text.range()]))
    }

    #[test]
    fn a_task_mismatch_is_the_first_wrong_character_and_what_was_expected() {
        use TaskSyntax::{Checkbox, CheckboxColon, YamlTask};
        let cases = [
            (CheckboxColon, "- [x] Task", " ", "expected `:` after `]`"),
            (CheckboxColon, "- [X]: Task", "X", "expected `x` or a space"),
            (CheckboxColon, "[x]: Task", "[", "expected `- [`"),
            (CheckboxColon, "  - [ ]:", "", "expected a space after `:`"),
            (CheckboxColon, "- [ ]: ", "", EXPECTED_TASK_TEXT),
            (Checkbox, "- [x]: Task", ":", "expected a space after `]`"),
            (
                YamlTask,
                "- task: Ship",
                "",
                "expected ` (x)` or ` ( )` at the end",
            ),
        ];
        for (syntax, text, at, expected) in cases {
            let found = mismatch_in(text, |text, line| task_mismatch(text, line, syntax));
            assert_eq!(found, (at, expected), "{text:?}");
        }
    }

    #[test]
    fn task_syntaxes() {
        assert_eq!(
            task(TaskSyntax::CheckboxColon, "    - [x]: Ship it"),
            Some((4, true, "Ship it"))
        );
        assert_eq!(
            task(TaskSyntax::CheckboxColon, "- [ ]: a: b"),
            Some((0, false, "a: b"))
        );
        assert_eq!(task(TaskSyntax::CheckboxColon, "- [x] Ship"), None);
        assert_eq!(task(TaskSyntax::CheckboxColon, "- [X]: Ship"), None);
        assert_eq!(task(TaskSyntax::CheckboxColon, "- [ ]:"), None);
        assert_eq!(
            task(TaskSyntax::Checkbox, "  - [ ] Ship"),
            Some((2, false, "Ship"))
        );
        assert_eq!(
            task(TaskSyntax::YamlTask, "- task: Ship it (x)"),
            Some((0, true, "Ship it"))
        );
        assert_eq!(
            task(TaskSyntax::YamlTask, "- task: a (x) ( )"),
            Some((0, false, "a (x)"))
        );
        assert_eq!(
            task(TaskSyntax::YamlTask, "- task:   ( )"),
            Some((0, false, " "))
        );
        assert_eq!(task(TaskSyntax::YamlTask, "- task:  ( )"), None);
        assert_eq!(task(TaskSyntax::YamlTask, "- task: ( )"), None);
        assert_eq!(task(TaskSyntax::YamlTask, "- task: é"), None);
    }

    #[test]
    fn task_problems() {
        use TaskProblem::*;
        let colon = TaskSyntax::CheckboxColon;
        assert_eq!(task_problem(colon, "-"), Some(Empty));
        assert_eq!(task_problem(colon, "- [ ]:"), Some(Empty));
        assert_eq!(task_problem(colon, "  - [x]:   "), Some(Empty));
        assert_eq!(task_problem(colon, "[x]: Task"), Some(Malformed));
        assert_eq!(task_problem(colon, "- [x] Task"), Some(Malformed));
        assert_eq!(task_problem(colon, "- [X]: Task"), Some(Malformed));
        assert_eq!(task_problem(colon, "- Never: x"), None);
        assert_eq!(task_problem(colon, "Stop here"), None);
        assert_eq!(task_problem(TaskSyntax::YamlTask, "- task:"), Some(Empty));
        assert_eq!(
            task_problem(TaskSyntax::YamlTask, "- task: Ship"),
            Some(Malformed)
        );
    }

    fn constraint(syntax: ConstraintSyntax, text: &str) -> Option<(&str, &str)> {
        constraint_line(text, split_lines(text, 0, text.len())[0], syntax)
            .ok()
            .map(|c| (&text[c.key.range()], &text[c.value.range()]))
    }

    fn is_constraint_like_line(syntax: ConstraintSyntax, text: &str) -> bool {
        is_constraint_like(text, split_lines(text, 0, text.len())[0], syntax)
    }

    #[test]
    fn a_constraint_mismatch_is_the_first_wrong_character_and_what_was_expected() {
        let mismatch = |syntax, text: &'static str| {
            mismatch_in(text, |text, line| constraint_line(text, line, syntax).err())
        };
        let dash = ConstraintSyntax::Dash;
        assert_eq!(
            mismatch(dash, "- n.ever: do"),
            ("n", "expected a capital letter")
        );
        assert_eq!(
            mismatch(dash, "- N.ever: do"),
            (".", "expected a lowercase letter, a space or `:`")
        );
        assert_eq!(mismatch(dash, "- Never: Do"), ("D", EXPECTED_DASH_VALUE));
        assert_eq!(
            mismatch(dash, "- Never:do"),
            ("d", "expected a space after `:`")
        );
        assert_eq!(
            mismatch(ConstraintSyntax::YamlKey, "max size: 10"),
            (" ", "expected a letter, a digit, `_` or `:`")
        );
    }

    #[test]
    fn constraint_syntaxes() {
        let dash = ConstraintSyntax::Dash;
        assert_eq!(
            constraint(dash, "- Do not: do: this"),
            Some(("Do not", "do: this"))
        );
        assert_eq!(constraint(dash, "- D: d"), Some(("D", "d")));
        for bad in [
            "- n.ever: do",
            "- N.ev-er: do",
            "- Never: Do",
            "- Never:do",
            "-Never: do",
            "- Never: ",
        ] {
            assert_eq!(constraint(dash, bad), None, "{bad:?}");
        }
        assert_eq!(
            constraint(ConstraintSyntax::Blockquote, "> Must: Be"),
            Some(("Must", "Be"))
        );
        assert_eq!(
            constraint(ConstraintSyntax::YamlKey, "max_size: 10"),
            Some(("max_size", "10"))
        );
        assert_eq!(constraint(ConstraintSyntax::YamlKey, "max size: 10"), None);
        assert!(is_constraint_like_line(dash, "- n.ever: do"));
        assert!(!is_constraint_like_line(dash, "- never"));
        assert!(is_constraint_like_line(dash, " - Never: do"));
        assert!(is_constraint_like_line(dash, "\t- never: Do"));
        assert!(!is_constraint_like_line(dash, "  - never"));
        assert!(is_constraint_like_line(
            ConstraintSyntax::YamlKey,
            "\tkey: value"
        ));
        assert!(!is_constraint_like_line(
            ConstraintSyntax::YamlKey,
            "key: value"
        ));
    }
}
