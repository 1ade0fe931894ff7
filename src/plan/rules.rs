//! The line rules of the plan grammar, as winnow parsers.
//!
//! Each rule parses one line's content (see [`line_input`]) and yields byte
//! spans into the whole document. The EBNF above each function is the rule it
//! implements; `grammar/plan.ebnf` is the same grammar in one place.

use winnow::combinator::{delimited, opt};
use winnow::error::EmptyError;
use winnow::prelude::*;
use winnow::stream::{LocatingSlice, Stream};
use winnow::token::{literal, one_of, rest, take_while};

use super::config::{ConstraintSyntax, HeaderSyntax, TaskSyntax};
use super::lines::Line;
use crate::span::Span;

pub(crate) type Input<'i> = LocatingSlice<&'i str>;
type RuleResult<T> = winnow::Result<T, EmptyError>;

/// A stream over one line's content whose locations are offsets into the
/// whole document.
pub(crate) fn line_input(document: &str, line: Line) -> Input<'_> {
    let mut input = LocatingSlice::new(&document[..line.end]);
    input.next_slice(line.start);
    input
}

/// Runs `rule` over the whole line: it must consume every character.
pub(crate) fn parse_line<'i, O>(
    document: &'i str,
    line: Line,
    mut rule: impl Parser<Input<'i>, O, EmptyError>,
) -> Option<O> {
    let mut input = line_input(document, line);
    let output = rule.parse_next(&mut input).ok()?;
    input.is_empty().then_some(output)
}

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

// ws ::= any Unicode whitespace character except a line ending
fn is_ws(c: char) -> bool {
    c.is_whitespace()
}

// char+ (to the end of the line)
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

pub(crate) fn header_line<'i>(
    syntax: HeaderSyntax,
    input: &mut Input<'i>,
) -> RuleResult<HeaderLine<'i>> {
    match syntax {
        HeaderSyntax::Conventional => conventional_header(input),
        HeaderSyntax::MarkdownHeading => titled_header("# ", input),
        HeaderSyntax::YamlTitle => titled_header("title: ", input),
    }
}

// conventional-header ::= type ( scoped-tail | ":" ignored-text )
// type                ::= [a-z]+
// scoped-tail         ::= "(" scope ")" "!"? ":" title-part
// scope               ::= [^)\s]+
// ignored-text        ::= char*
fn conventional_header<'i>(input: &mut Input<'i>) -> RuleResult<HeaderLine<'i>> {
    let commit_type = piece(take_while(1.., 'a'..='z')).parse_next(input)?;
    let scoped = opt((
        delimited(
            '(',
            piece(take_while(1.., |c: char| c != ')' && !is_ws(c))),
            ')',
        ),
        opt('!').map(|bang| bang.is_some()),
    ))
    .parse_next(input)?;
    ':'.parse_next(input)?;
    let header = match scoped {
        Some((scope, breaking)) => HeaderLine {
            commit_type: Some(commit_type),
            scope: Some(scope),
            breaking,
            title: title_part(input)?,
            ignored: None,
        },
        None => HeaderLine {
            commit_type: Some(commit_type),
            scope: None,
            breaking: false,
            title: None,
            ignored: ignored_text(input)?,
        },
    };
    Ok(header)
}

// ignored-text ::= ws* char*   (the span covers what follows the whitespace)
fn ignored_text<'i>(input: &mut Input<'i>) -> RuleResult<Option<Piece<'i>>> {
    take_while(0.., is_ws).parse_next(input)?;
    let text = piece(rest).parse_next(input)?;
    Ok((!text.text.is_empty()).then_some(text))
}

// title-part ::= ws* title | ws+ | ε
// title      ::= non-ws char*
//
// When the rest of the line is only whitespace, its last character is the
// title: the original's `:\s*(.+)$` backtracked to that. The validator then
// reports the title's whitespace.
fn title_part<'i>(input: &mut Input<'i>) -> RuleResult<Option<Piece<'i>>> {
    let leading = piece(take_while(0.., is_ws)).parse_next(input)?;
    let title = piece(rest).parse_next(input)?;
    if !title.text.is_empty() {
        return Ok(Some(title));
    }
    Ok(leading.text.chars().next_back().map(|last| {
        let width = last.len_utf8();
        Piece {
            text: &leading.text[leading.text.len() - width..],
            span: Span::new(leading.span.end - width, leading.span.end),
        }
    }))
}

// markdown-header ::= "# " char+
// yaml-header     ::= "title: " char+
fn titled_header<'i>(marker: &'static str, input: &mut Input<'i>) -> RuleResult<HeaderLine<'i>> {
    let title = (literal(marker), text1)
        .map(|(_, title)| title)
        .parse_next(input)?;
    Ok(HeaderLine {
        commit_type: None,
        scope: None,
        breaking: false,
        title: Some(title),
        ignored: None,
    })
}

// ------------------------------------------------------------------ tasks ---

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TaskLine<'i> {
    pub indent: Piece<'i>,
    pub checked: bool,
    pub text: Piece<'i>,
}

impl TaskLine<'_> {
    /// Indentation width in characters (a tab counts as one, as it did in the
    /// original).
    pub(super) fn indent_width(&self) -> usize {
        self.indent.text.chars().count()
    }
}

// indent ::= ws*
fn indent<'i>(input: &mut Input<'i>) -> RuleResult<Piece<'i>> {
    piece(take_while(0.., is_ws)).parse_next(input)
}

// mark ::= "x" | " "
fn mark(input: &mut Input<'_>) -> RuleResult<bool> {
    one_of(['x', ' ']).map(|c| c == 'x').parse_next(input)
}

pub(crate) fn task_line<'i>(syntax: TaskSyntax, input: &mut Input<'i>) -> RuleResult<TaskLine<'i>> {
    match syntax {
        TaskSyntax::CheckboxColon => checkbox_task("]: ", input),
        TaskSyntax::Checkbox => checkbox_task("] ", input),
        TaskSyntax::YamlTask => yaml_task(input),
    }
}

// checkbox-colon-task ::= indent "- [" mark "]: " char+
// checkbox-task       ::= indent "- [" mark "] " char+
fn checkbox_task<'i>(close: &'static str, input: &mut Input<'i>) -> RuleResult<TaskLine<'i>> {
    let (indent, _, checked, _, text) =
        (indent, "- [", mark, literal(close), text1).parse_next(input)?;
    Ok(TaskLine {
        indent,
        checked,
        text,
    })
}

// yaml-task ::= indent "- task: " char+ " (" mark ")"
fn yaml_task<'i>(input: &mut Input<'i>) -> RuleResult<TaskLine<'i>> {
    let (indent, _, body) = (indent, "- task: ", text1).parse_next(input)?;
    let suffix_at = body.text.len().checked_sub(4).ok_or(EmptyError)?;
    let (text, suffix) = body.text.split_at_checked(suffix_at).ok_or(EmptyError)?;
    let checked = match suffix {
        " (x)" => true,
        " ( )" => false,
        _ => return Err(EmptyError),
    };
    if text.is_empty() {
        return Err(EmptyError);
    }
    let span = Span::new(body.span.start, body.span.start + text.len());
    Ok(TaskLine {
        indent,
        checked,
        text: Piece { text, span },
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

// task-like ::= ws* ( "-" | "- [" char* | "[x]" char* | "[ ]" char* )  (commit-message syntax)
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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ConstraintLine<'i> {
    pub key: Piece<'i>,
    pub value: Piece<'i>,
}

pub(crate) fn constraint_line<'i>(
    syntax: ConstraintSyntax,
    input: &mut Input<'i>,
) -> RuleResult<ConstraintLine<'i>> {
    match syntax {
        ConstraintSyntax::Dash => dash_constraint(input),
        ConstraintSyntax::Blockquote => blockquote_constraint(input),
        ConstraintSyntax::YamlKey => yaml_constraint(input),
    }
}

// dash-constraint ::= "- " dash-key ": " dash-value
// dash-key        ::= [A-Z] [a-z ]*
// dash-value      ::= [a-z] char*
fn dash_constraint<'i>(input: &mut Input<'i>) -> RuleResult<ConstraintLine<'i>> {
    let key = piece((one_of('A'..='Z'), take_while(0.., ('a'..='z', ' '))).take());
    let value = piece((one_of('a'..='z'), rest).take());
    let (_, key, _, value) = ("- ", key, ": ", value).parse_next(input)?;
    Ok(ConstraintLine { key, value })
}

// blockquote-constraint ::= "> " [^:]+ ": " char+
fn blockquote_constraint<'i>(input: &mut Input<'i>) -> RuleResult<ConstraintLine<'i>> {
    let key = piece(take_while(1.., |c: char| c != ':'));
    let (_, key, _, value) = ("> ", key, ": ", text1).parse_next(input)?;
    Ok(ConstraintLine { key, value })
}

// yaml-constraint ::= [A-Za-z0-9_]+ ": " char+
fn yaml_constraint<'i>(input: &mut Input<'i>) -> RuleResult<ConstraintLine<'i>> {
    let key = piece(take_while(1.., ('a'..='z', 'A'..='Z', '0'..='9', '_')));
    let (key, _, value) = (key, ": ", text1).parse_next(input)?;
    Ok(ConstraintLine { key, value })
}

// constraint-like ::= "- " char* ": " char*   (dash syntax)
//                   | "> " char* ": " char*   (blockquote syntax)
//                   | ws+ ( constraint | constraint-like )   (any syntax)
//
// A line shaped like a constraint that the constraint rule rejects. The
// original skipped it silently; we skip it with a warning. It also ends the
// description. An indented constraint counts too: it is not a constraint
// (they start at the beginning of the line), and were it left to the
// direction, trimming would turn it into one.
pub(crate) fn is_constraint_like(syntax: ConstraintSyntax, line: &str) -> bool {
    let unindented = line.trim_start_matches(is_ws);
    if unindented.len() < line.len() {
        return is_constraint_like(syntax, unindented) || is_constraint(syntax, unindented);
    }
    let marker = match syntax {
        ConstraintSyntax::Dash => "- ",
        ConstraintSyntax::Blockquote => "> ",
        ConstraintSyntax::YamlKey => return false,
    };
    line.strip_prefix(marker)
        .is_some_and(|tail| tail.contains(": "))
}

/// Does the whole of `text` match the constraint rule?
fn is_constraint(syntax: ConstraintSyntax, text: &str) -> bool {
    let mut input = LocatingSlice::new(text);
    constraint_line(syntax, &mut input).is_ok() && input.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::lines::split_lines;

    fn header_with<'i>(syntax: HeaderSyntax, text: &'i str) -> Option<HeaderLine<'i>> {
        parse_line(
            text,
            split_lines(text, 0, text.len())[0],
            |i: &mut Input<'i>| header_line(syntax, i),
        )
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
    fn titled_headers_have_no_type() {
        let md = header_with(HeaderSyntax::MarkdownHeading, "# Plan it").unwrap();
        assert_eq!((md.commit_type, md.title.unwrap().text), (None, "Plan it"));
        let yaml = header_with(HeaderSyntax::YamlTitle, "title: Plan").unwrap();
        assert_eq!(yaml.title.unwrap().span, Span::new(7, 11));
        assert!(header_with(HeaderSyntax::MarkdownHeading, "# ").is_none());
    }

    fn task<'i>(syntax: TaskSyntax, text: &'i str) -> Option<(usize, bool, &'i str)> {
        parse_line(
            text,
            split_lines(text, 0, text.len())[0],
            |i: &mut Input<'i>| task_line(syntax, i),
        )
        .map(|t| (t.indent_width(), t.checked, t.text.text))
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

    fn constraint<'i>(syntax: ConstraintSyntax, text: &'i str) -> Option<(&'i str, &'i str)> {
        parse_line(
            text,
            split_lines(text, 0, text.len())[0],
            |i: &mut Input<'i>| constraint_line(syntax, i),
        )
        .map(|c| (c.key.text, c.value.text))
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
        assert!(is_constraint_like(dash, "- n.ever: do"));
        assert!(!is_constraint_like(dash, "- never"));
        assert!(is_constraint_like(dash, " - Never: do"));
        assert!(is_constraint_like(dash, "\t- never: Do"));
        assert!(!is_constraint_like(dash, "  - never"));
        assert!(is_constraint_like(
            ConstraintSyntax::YamlKey,
            "\tkey: value"
        ));
        assert!(!is_constraint_like(ConstraintSyntax::YamlKey, "key: value"));
    }
}
