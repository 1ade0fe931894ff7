//! The document grammar: a byte-order mark, a `---` fenced block and the
//! body, as winnow parsers. [`split`] finds the block and its YAML lines
//! before any YAML is read.
//!
//! A comment above each function names the rule of
//! `grammar/frontmatter.ebnf` it implements.

use winnow::combinator::{alt, eof, opt, repeat_till};
use winnow::error::EmptyError;
use winnow::prelude::*;
use winnow::stream::Location;
use winnow::token::{literal, take_till, take_while};

use super::error::ParseError;
use crate::span::Span;
use crate::text::{Input, Line, RuleResult, is_space_or_tab};

/// The text split at its frontmatter block, before any YAML is read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Split {
    pub bom: Option<Span>,
    pub block: Option<Block>,
    pub body: Span,
}

/// Where the fences and the YAML lines are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Block {
    pub span: Span,
    pub open: Span,
    pub yaml: Span,
    pub close: Span,
    pub lines: Vec<Line>,
}

// frontmatter.ebnf: bom
fn bom(input: &mut Input<'_>) -> RuleResult<Span> {
    '\u{feff}'.span().map(Span::from).parse_next(input)
}

// frontmatter.ebnf: eol
fn eol<'i>(input: &mut Input<'i>) -> RuleResult<&'i str> {
    alt(("\n", "\r\n")).parse_next(input)
}

// frontmatter.ebnf: open-fence, close-fence (they differ only in their
// markers)
//
// Yields the span of the fence without its line ending.
fn fence_line<'i>(markers: &'static [&'static str]) -> impl Parser<Input<'i>, Span, EmptyError> {
    move |input: &mut Input<'i>| {
        let fence = (marker(markers), take_while(0.., is_space_or_tab))
            .span()
            .parse_next(input)?;
        alt((eol, eof)).parse_next(input)?;
        Ok(Span::from(fence))
    }
}

fn marker<'i>(markers: &'static [&'static str]) -> impl Parser<Input<'i>, &'i str, EmptyError> {
    move |input: &mut Input<'i>| {
        for &marker in markers {
            if let Some(found) = opt(literal(marker)).parse_next(input)? {
                return Ok(found);
            }
        }
        Err(EmptyError)
    }
}

const OPEN: &[&str] = &["---"];
const CLOSE: &[&str] = &["---", "..."];

// frontmatter.ebnf: yaml-line, char
//
// A line of `text`. (Carriage returns before the `\r` of eol would be left
// out of its content too, but `parse` refuses any `\r` that no `\n`
// follows before it looks at a line.)
fn yaml_line<'i>(text: &'i str) -> impl Parser<Input<'i>, Line, EmptyError> {
    move |input: &mut Input<'i>| {
        let range = take_till(0.., '\n').span().parse_next(input)?;
        '\n'.parse_next(input)?;
        Ok(Line::up_to(text, range.start, range.end))
    }
}

// frontmatter.ebnf: document, frontmatter, body
//
// A first line that is not an open fence means the text has no frontmatter.
// An open fence that no close fence follows is an error (`unclosed`).
pub(crate) fn split(text: &str) -> Result<Split, ParseError> {
    let mut input = Input::new(text);
    let bom = opt(bom).parse_next(&mut input).unwrap_or(None);
    let start = input.current_token_start();
    let Ok(open) = fence_line(OPEN).parse_next(&mut input) else {
        return Ok(Split {
            bom,
            block: None,
            body: Span::new(start, text.len()),
        });
    };
    let yaml_start = input.current_token_start();
    let closed: RuleResult<(Vec<Line>, Span)> =
        repeat_till(0.., yaml_line(text), fence_line(CLOSE)).parse_next(&mut input);
    let Ok((lines, close)) = closed else {
        return Err(ParseError::Unclosed {
            span: open,
            line: 1,
        });
    };
    let end = input.current_token_start();
    Ok(Split {
        bom,
        block: Some(Block {
            span: Span::new(start, end),
            open,
            yaml: Span::new(yaml_start, close.start),
            close,
            lines,
        }),
        body: Span::new(end, text.len()),
    })
}

/// Where the text after the frontmatter block starts (after the closing
/// fence's line), whether or not its YAML parses; `None` without a closed
/// block.
pub fn block_end(text: &str) -> Option<usize> {
    Some(split(text).ok()?.block?.span.end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontmatter::Code;

    fn block(text: &str) -> Block {
        split(text).unwrap().block.unwrap()
    }

    fn yaml(text: &str) -> &str {
        &text[block(text).yaml.range()]
    }

    #[test]
    fn a_block_has_fences_yaml_and_body() {
        let text = "---\na: 1\n---\nbody\n";
        let split = split(text).unwrap();
        let block = split.block.unwrap();
        assert_eq!(split.bom, None);
        assert_eq!(block.span, Span::new(0, 13));
        assert_eq!(block.open, Span::new(0, 3));
        assert_eq!(&text[block.yaml.range()], "a: 1\n");
        assert_eq!(block.close, Span::new(9, 12));
        assert_eq!(&text[split.body.range()], "body\n");
    }

    #[test]
    fn bom_is_skipped_and_reported() {
        let text = "\u{feff}---\na: 1\n---\n";
        let split = split(text).unwrap();
        assert_eq!(split.bom, Some(Span::new(0, 3)));
        assert_eq!(split.block.unwrap().open, Span::new(3, 6));
        assert_eq!(split.body, Span::new(text.len(), text.len()));

        let no_block = super::split("\u{feff}# Title\n").unwrap();
        assert_eq!(no_block.bom, Some(Span::new(0, 3)));
        assert_eq!(no_block.block, None);
        assert_eq!(no_block.body, Span::new(3, 11));
    }

    #[test]
    fn crlf_line_endings_are_not_content() {
        let text = "---\r\na: 1\r\nb: 2\r\n---\r\nbody\r\n";
        let block = block(text);
        let lines: Vec<&str> = block.lines.iter().map(|l| l.text(text)).collect();
        assert_eq!(lines, ["a: 1", "b: 2"]);
        assert_eq!(&text[block.close.range()], "---");
        assert_eq!(&text[block.span.range()], "---\r\na: 1\r\nb: 2\r\n---\r\n");
    }

    #[test]
    fn empty_block_and_closing_fence_at_end_of_file() {
        let empty = "---\n---\n";
        let block = block(empty);
        assert_eq!(block.yaml, Span::new(4, 4));
        assert!(block.lines.is_empty());
        assert_eq!(block.span, Span::new(0, 8));

        let at_eof = "---\na: 1\n---";
        let split = split(at_eof).unwrap();
        assert_eq!(split.block.unwrap().close, Span::new(9, 12));
        assert_eq!(split.body, Span::new(12, 12));
    }

    #[test]
    fn fences_may_have_trailing_blanks_and_close_with_dots() {
        assert_eq!(yaml("--- \t\na: 1\n---  \n"), "a: 1\n");
        assert_eq!(yaml("---\na: 1\n...\nbody\n---\n"), "a: 1\n");
        // Not fences: other text on the line.
        assert_eq!(split("--- x\na: 1\n---\n").unwrap().block, None);
        assert_eq!(yaml("---\n---x\n----\n.... \n---\n"), "---x\n----\n.... \n");
        assert_eq!(split(" ---\na\n---\n").unwrap().block, None);
    }

    #[test]
    fn no_frontmatter_is_not_an_error() {
        for text in ["", "body", "\n---\na: 1\n---\n", "# Title\n---\n", "--\n"] {
            let split = split(text).unwrap();
            assert_eq!(split.block, None, "{text:?}");
            assert_eq!(split.body, Span::new(0, text.len()));
        }
    }

    #[test]
    fn unclosed_block_is_an_error_at_the_opening_fence() {
        for text in [
            "---",
            "---\n",
            "---\na: 1\n",
            "---\na: 1",
            "--- \r\na: 1\r\n--",
        ] {
            let error = split(text).unwrap_err();
            assert_eq!(error.code(), Code::Unclosed, "{text:?}");
            assert_eq!(error.span().start, 0);
            assert_eq!(error.span().end, 3 + usize::from(text.starts_with("--- ")));
        }
        let with_bom = split("\u{feff}---\n").unwrap_err();
        assert_eq!(with_bom.span(), Span::new(3, 6));
    }
}
