//! The header rule of the commit grammar, as winnow parsers over one line.
//!
//! [`header_parts`] is the one reading of a header line: the type, the
//! scope, the `!`, the colon and the rest, as byte spans into the whole
//! message. It never fails; it stops at the first character no part can
//! take. Two profiles judge what it read:
//! - Conventional Commits, here: [`conventional_header`] yields the parts
//!   of `type(scope)!: description`, or the [`HeaderProblem`] of the first
//!   part that does not fit. The part that does not fit says why, so there
//!   is no second scanner to explain a failure.
//! - The plan grammar's stricter profile (`src/plan/rules.rs`): lowercase
//!   ASCII types, scopes without spaces, `!` only after a scope, and no
//!   space needed after the colon.
//!
//! `grammar/commit.ebnf` is the grammar; the comment above each function
//! names the rule it implements.

use winnow::prelude::*;
use winnow::stream::Location;
use winnow::token::take_while;

use super::ast::ConventionalHeader;
use super::problem::{HeaderProblem, codes};
use crate::span::{Span, Spanned};
use crate::text::{Input, Line, RuleResult, is_blank, line_input};

// commit.ebnf: type-char
/// A character a type may hold: a letter or digit of any script, `_`, `-`.
pub(super) fn is_type_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '-'
}

// commit.ebnf: ws
fn is_ws(c: char) -> bool {
    c.is_whitespace()
}

/// What [`header_parts`] read of a header line, each part a span into the
/// whole text. A part that is absent was not there or not reached: the
/// reading stops at the first character no part can take, and `rest`
/// starts there.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct HeaderParts {
    /// The run of type-chars that starts the line (empty when the line
    /// starts with something else; nothing more is read then).
    pub commit_type: Span,
    /// The `(scope)` after the type.
    pub scope: Option<ScopePart>,
    /// The `!` after the type or the scope.
    pub bang: Option<Span>,
    /// The `:` after the type, the scope or the `!`.
    pub colon: Option<Span>,
    /// The rest of the line: after the colon, or from the first character
    /// no part could take.
    pub rest: Span,
}

/// A scope as read: from its `(` to its `)`, or to the end of the line
/// when it is never closed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ScopePart {
    /// Where the `(` is.
    pub open: usize,
    /// What is between the parentheses (possibly empty).
    pub text: Span,
    /// Whether a `)` closes it on the line.
    pub closed: bool,
}

/// One character of the input as a span, when it is `c`.
fn one(input: &mut Input<'_>, c: char) -> Option<Span> {
    let found: RuleResult<_> = c.span().parse_next(input);
    found.ok().map(Span::from)
}

// commit.ebnf: header-parts, scope-part, header-rest
/// The parts of the header `line` of `text`, read as far as they go.
pub(crate) fn header_parts(text: &str, line: Line) -> HeaderParts {
    let input = &mut line_input(text, line);
    let typed: RuleResult<_> = take_while(0.., is_type_char).span().parse_next(input);
    let commit_type = Span::from(typed.unwrap_or_default());
    let mut parts = HeaderParts {
        commit_type,
        scope: None,
        bang: None,
        colon: None,
        rest: Span::new(commit_type.end, line.end),
    };
    if commit_type.is_empty() {
        return parts;
    }
    if let Some(open) = one(input, '(') {
        let inside: RuleResult<_> = take_while(0.., |c: char| c != ')').span().parse_next(input);
        parts.scope = Some(ScopePart {
            open: open.start,
            text: Span::from(inside.unwrap_or_default()),
            closed: one(input, ')').is_some(),
        });
    }
    parts.bang = one(input, '!');
    parts.colon = one(input, ':');
    parts.rest = Span::new(input.current_token_start(), line.end);
    parts
}

/// The span of the character of `text` at `at` (empty at `end`, the end
/// of the line).
pub(crate) fn char_span(text: &str, at: usize, end: usize) -> Span {
    let width = text[at..end].chars().next().map_or(0, char::len_utf8);
    Span::new(at, at + width)
}

const HELP_FORM: &str = "write the header as `type(scope): description` (scope and `!` optional), e.g. `fix(parser): handle empty input`";
const HELP_TYPE: &str = "a type is one word of letters, digits, `-` or `_` (`feat`, `fix`, `docs`), directly followed by `(scope)`, `!` or `: `";

// commit.ebnf: conventional-header
/// The conventional parts of the header `line` of `text`, or why it has
/// none.
pub(super) fn conventional_header(
    text: &str,
    line: Line,
) -> Result<ConventionalHeader, HeaderProblem> {
    if is_blank(line.text(text)) {
        return Err(HeaderProblem::new(
            line.span(),
            codes::EMPTY,
            "the header is empty".to_owned(),
            "the first line of a commit message is its header: start the message with `type: description`, without a blank line before it",
        ));
    }
    let parts = header_parts(text, line);
    if parts.commit_type.is_empty() {
        return Err(not_a_type(text, line));
    }
    let scope = parts
        .scope
        .map(|scope| checked_scope(text, scope))
        .transpose()?;
    if parts.colon.is_none() {
        let at = parts.rest.start;
        return Err(if parts.bang.is_some() {
            HeaderProblem::new(
                char_span(text, at, line.end),
                codes::AFTER_BREAKING,
                "the breaking `!` must be followed by `: `".to_owned(),
                "the `!` goes right before the colon, after the scope: `feat(scope)!: description`",
            )
        } else if scope.is_some() {
            HeaderProblem::new(
                char_span(text, at, line.end),
                codes::AFTER_SCOPE,
                "the scope must be followed by `!` or `: `".to_owned(),
                "one scope, then the colon directly: `feat(scope): description`",
            )
        } else {
            after_type(text, at, line)
        });
    }
    Ok(ConventionalHeader {
        commit_type: spanned(text, parts.commit_type),
        scope,
        breaking: parts.bang,
        description: description(text, parts.rest)?,
    })
}

/// The text of `span` as an owned value with its span.
fn spanned(text: &str, span: Span) -> Spanned<String> {
    Spanned::new(text[span.range()].to_owned(), span)
}

/// Why a header line that does not start with a type-char is not a header.
#[cold]
fn not_a_type(text: &str, line: Line) -> HeaderProblem {
    match text[line.start..line.end].chars().next() {
        Some('(' | ':' | '!') => HeaderProblem::new(
            char_span(text, line.start, line.end),
            codes::MISSING_TYPE,
            "the header has no type before its scope or colon".to_owned(),
            "start the header with a type: `feat: description`, `fix(scope): description`",
        ),
        _ => after_type(text, line.start, line),
    }
}

/// Why the character at `at`, after the type (or at the start of the
/// line), is not `(`, `!` or `:`: a type of more than one word before a
/// colon, or no colon at all.
#[cold]
fn after_type(text: &str, at: usize, line: Line) -> HeaderProblem {
    let rest = &text[at..line.end];
    match rest.find(':') {
        Some(colon) => {
            let before = &text[line.start..at + colon];
            let message = if rest[..colon].chars().all(is_ws) {
                "a space before the colon: the type must be followed directly by `: `".to_owned()
            } else {
                format!(
                    "`{}` is not a type: a type is one word",
                    crate::diagnostics::one_line(before)
                )
            };
            HeaderProblem::new(
                Span::new(line.start, at + colon),
                codes::INVALID_TYPE,
                message,
                HELP_TYPE,
            )
        }
        None => HeaderProblem::new(
            char_span(text, at, line.end),
            codes::NO_COLON,
            "the header has no `type: ` before its description".to_owned(),
            HELP_FORM,
        ),
    }
}

// commit.ebnf: scope
/// The scope, when it is closed and not empty.
fn checked_scope(text: &str, scope: ScopePart) -> Result<Spanned<String>, HeaderProblem> {
    let whole = Span::new(scope.open, scope.text.end + usize::from(scope.closed));
    if !scope.closed {
        return Err(HeaderProblem::new(
            whole,
            codes::UNCLOSED_SCOPE,
            "the scope's `(` is never closed".to_owned(),
            "close the scope before the colon: `feat(scope): description`",
        ));
    }
    if scope.text.is_empty() {
        return Err(HeaderProblem::new(
            whole,
            codes::EMPTY_SCOPE,
            "the scope is empty".to_owned(),
            "name a section of the code in the parentheses, or leave them out: `feat: description`",
        ));
    }
    Ok(spanned(text, scope.text))
}

/// Nothing but ws from `start` to `end`, the end of the line.
#[cold]
fn empty_description(start: usize, end: usize) -> HeaderProblem {
    HeaderProblem::new(
        Span::new(start, end),
        codes::EMPTY_DESCRIPTION,
        "the header has no description".to_owned(),
        "say what the commit does after `: `, e.g. `fix: handle empty input`",
    )
}

// commit.ebnf: description
/// The description in `rest`, what follows the colon: after exactly one
/// space (CC-5) and any further ws.
fn description(text: &str, rest: Span) -> Result<Spanned<String>, HeaderProblem> {
    let after_colon = &text[rest.range()];
    let Some(after_space) = after_colon.strip_prefix(' ') else {
        return Err(if is_blank(after_colon) {
            empty_description(rest.start, rest.end)
        } else {
            HeaderProblem::new(
                char_span(text, rest.start, rest.end),
                codes::NO_SPACE,
                "the colon must be followed by a space".to_owned(),
                "write `: ` between the type and the description: `feat: description`",
            )
        });
    };
    let described = after_space.trim_start_matches(is_ws);
    let start = rest.end - described.len();
    if described.is_empty() {
        return Err(empty_description(start, rest.end));
    }
    Ok(spanned(text, Span::new(start, rest.end)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::split_lines;

    fn parts(text: &str) -> HeaderParts {
        header_parts(text, split_lines(text, 0, text.len())[0])
    }

    /// The parts as text, for readable expectations.
    fn read(text: &str) -> (&str, Option<(&str, bool)>, bool, bool, &str) {
        let found = parts(text);
        (
            &text[found.commit_type.range()],
            found
                .scope
                .map(|scope| (&text[scope.text.range()], scope.closed)),
            found.bang.is_some(),
            found.colon.is_some(),
            &text[found.rest.range()],
        )
    }

    #[test]
    fn header_parts_read_as_far_as_they_go() {
        let cases = [
            (
                "feat(ui)!: x",
                ("feat", Some(("ui", true)), true, true, " x"),
            ),
            ("fix:x", ("fix", None, false, true, "x")),
            ("fix!: x", ("fix", None, true, true, " x")),
            (
                "fix(a b): x",
                ("fix", Some(("a b", true)), false, true, " x"),
            ),
            ("fix(a b", ("fix", Some(("a b", false)), false, false, "")),
            ("fix(): x", ("fix", Some(("", true)), false, true, " x")),
            ("fix (s): x", ("fix", None, false, false, " (s): x")),
            ("Add a parser", ("Add", None, false, false, " a parser")),
            ("(s): x", ("", None, false, false, "(s): x")),
            ("fixup! x", ("fixup", None, true, false, " x")),
            (
                "feat(a)(b): x",
                ("feat", Some(("a", true)), false, false, "(b): x"),
            ),
            ("fête-2_x: y", ("fête-2_x", None, false, true, " y")),
            ("", ("", None, false, false, "")),
        ];
        for (text, expected) in cases {
            assert_eq!(read(text), expected, "{text:?}");
        }
    }

    #[test]
    fn header_parts_span_into_the_whole_text() {
        let text = "body first\nfeat(ui)!: x\n";
        let found = header_parts(text, split_lines(text, 0, text.len())[1]);
        assert_eq!(found.commit_type, Span::new(11, 15));
        assert_eq!(
            found.scope.map(|scope| (scope.open, scope.text)),
            Some((15, Span::new(16, 18)))
        );
        assert_eq!(found.bang, Some(Span::new(19, 20)));
        assert_eq!(found.colon, Some(Span::new(20, 21)));
        assert_eq!(found.rest, Span::new(21, 23));
    }
}
