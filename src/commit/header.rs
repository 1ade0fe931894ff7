//! The header rule of the commit grammar, as winnow parsers over one line.
//!
//! [`conventional_header`] reads the first line as `type(scope)!:
//! description` and yields its parts with byte spans into the whole
//! message, or the [`HeaderProblem`] of the first step that fails: the
//! rule that fails says why, so there is no second scanner to explain a
//! failure. `grammar/commit.ebnf` is the grammar; the comment above each
//! function names the rule it implements.

use winnow::error::EmptyError;
use winnow::prelude::*;
use winnow::stream::{Location, Stream};
use winnow::token::{rest, take_while};

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

/// A run of the input as an owned value with its span.
fn spanned<'i>(
    parser: impl Parser<Input<'i>, &'i str, EmptyError>,
) -> impl Parser<Input<'i>, Spanned<String>, EmptyError> {
    parser
        .with_span()
        .map(|(text, range)| Spanned::new(text.to_owned(), range.into()))
}

/// The span of the input's next character (empty at the line's end).
fn next_char_span(input: &Input<'_>) -> Span {
    let at = input.current_token_start();
    Span::new(at, at + input.peek_token().map_or(0, char::len_utf8))
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
    let input = &mut line_input(text, line);
    if is_blank(line.text(text)) {
        return Err(HeaderProblem::new(
            line.span(),
            codes::EMPTY,
            "the header is empty".to_owned(),
            "the first line of a commit message is its header: start the message with `type: description`, without a blank line before it",
        ));
    }
    let commit_type = commit_type(input).map_err(|_| not_a_type(input, text, line))?;
    let scope = match input.peek_token() {
        Some('(') => Some(scope(input)?),
        _ => None,
    };
    let breaking = match input.peek_token() {
        Some('!') => bang(input).ok(),
        _ => None,
    };
    colon(input, text, line, scope.is_some(), breaking.is_some())?;
    let description = description(input)?;
    Ok(ConventionalHeader {
        commit_type,
        scope,
        breaking,
        description,
    })
}

// commit.ebnf: type
fn commit_type(input: &mut Input<'_>) -> RuleResult<Spanned<String>> {
    spanned(take_while(1.., is_type_char)).parse_next(input)
}

/// Why a header line that does not start with a type-char is not a header.
#[cold]
fn not_a_type(input: &Input<'_>, text: &str, line: Line) -> HeaderProblem {
    match input.peek_token() {
        Some('(' | ':' | '!') => HeaderProblem::new(
            next_char_span(input),
            codes::MISSING_TYPE,
            "the header has no type before its scope or colon".to_owned(),
            "start the header with a type: `feat: description`, `fix(scope): description`",
        ),
        _ => after_type(input, text, line),
    }
}

/// Why the character after the type (or at the start of the line) is not
/// `(`, `!` or `:`: a type of more than one word before a colon, or no
/// colon at all.
#[cold]
fn after_type(input: &Input<'_>, text: &str, line: Line) -> HeaderProblem {
    let at = input.current_token_start();
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
            next_char_span(input),
            codes::NO_COLON,
            "the header has no `type: ` before its description".to_owned(),
            HELP_FORM,
        ),
    }
}

// commit.ebnf: "(" scope ")"
fn scope(input: &mut Input<'_>) -> Result<Spanned<String>, HeaderProblem> {
    let open = input.current_token_start();
    let _: RuleResult<char> = '('.parse_next(input);
    let scope: RuleResult<Spanned<String>> =
        spanned(take_while(0.., |c: char| c != ')')).parse_next(input);
    let scope = scope.unwrap_or_default();
    let close: RuleResult<char> = ')'.parse_next(input);
    if close.is_err() {
        return Err(HeaderProblem::new(
            Span::new(open, input.current_token_start()),
            codes::UNCLOSED_SCOPE,
            "the scope's `(` is never closed".to_owned(),
            "close the scope before the colon: `feat(scope): description`",
        ));
    }
    if scope.value.is_empty() {
        return Err(HeaderProblem::new(
            Span::new(open, input.current_token_start()),
            codes::EMPTY_SCOPE,
            "the scope is empty".to_owned(),
            "name a section of the code in the parentheses, or leave them out: `feat: description`",
        ));
    }
    Ok(scope)
}

// commit.ebnf: "!"
fn bang(input: &mut Input<'_>) -> RuleResult<Span> {
    '!'.span().map(Span::from).parse_next(input)
}

// commit.ebnf: ": "
/// The colon and space after the type, scope and `!`.
fn colon(
    input: &mut Input<'_>,
    text: &str,
    line: Line,
    scoped: bool,
    breaking: bool,
) -> Result<(), HeaderProblem> {
    if input.peek_token() != Some(':') {
        return Err(if breaking {
            HeaderProblem::new(
                next_char_span(input),
                codes::AFTER_BREAKING,
                "the breaking `!` must be followed by `: `".to_owned(),
                "the `!` goes right before the colon, after the scope: `feat(scope)!: description`",
            )
        } else if scoped {
            HeaderProblem::new(
                next_char_span(input),
                codes::AFTER_SCOPE,
                "the scope must be followed by `!` or `: `".to_owned(),
                "one scope, then the colon directly: `feat(scope): description`",
            )
        } else {
            after_type(input, text, line)
        });
    }
    input.next_token();
    if input.peek_token() == Some(' ') {
        input.next_token();
        return Ok(());
    }
    let tail = &text[input.current_token_start()..line.end];
    Err(if tail.chars().all(is_ws) {
        empty_description(input.current_token_start(), line.end)
    } else {
        HeaderProblem::new(
            next_char_span(input),
            codes::NO_SPACE,
            "the colon must be followed by a space".to_owned(),
            "write `: ` between the type and the description: `feat: description`",
        )
    })
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
fn description(input: &mut Input<'_>) -> Result<Spanned<String>, HeaderProblem> {
    let _: RuleResult<&str> = take_while(0.., is_ws).parse_next(input);
    let start = input.current_token_start();
    let found: RuleResult<Spanned<String>> = spanned(rest).parse_next(input);
    match found {
        Ok(description) if !description.value.is_empty() => Ok(description),
        _ => Err(empty_description(start, input.current_token_start())),
    }
}
