//! The document grammar (a byte-order mark, a `---` fenced block, the body)
//! as winnow parsers, and [`parse`], which ties the block, the top-level key
//! locator (`entries.rs`) and the YAML reader (`yaml.rs`) together.
//!
//! The EBNF above each function is the rule it implements;
//! `grammar/frontmatter.ebnf` is the same grammar in one place.

use std::collections::HashMap;

use winnow::combinator::{alt, eof, opt, repeat_till};
use winnow::error::EmptyError;
use winnow::prelude::*;
use winnow::stream::{LocatingSlice, Location};
use winnow::token::{literal, take_till, take_while};

use super::entries::{self, RawEntry};
use super::error::ParseError;
use super::yaml;
use super::{Document, Frontmatter};
use crate::span::Span;

pub(crate) type Input<'i> = LocatingSlice<&'i str>;
pub(crate) type RuleResult<T> = winnow::Result<T, EmptyError>;

/// One line of the YAML: its content without the line ending.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Line {
    pub content: Span,
}

impl Line {
    pub(super) fn text(self, source: &str) -> &str {
        &source[self.content.range()]
    }
}

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

// blank ::= " " | "\t"
pub(crate) fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t'
}

// bom ::= U+FEFF
fn bom(input: &mut Input<'_>) -> RuleResult<Span> {
    '\u{feff}'.span().map(Span::from).parse_next(input)
}

// eol ::= "\n" | "\r\n"
fn eol<'i>(input: &mut Input<'i>) -> RuleResult<&'i str> {
    alt(("\n", "\r\n")).parse_next(input)
}

// fence-line(marker) ::= marker blank* ( eol | EOF )
//
// Yields the span of the fence without its line ending.
fn fence_line<'i>(markers: &'static [&'static str]) -> impl Parser<Input<'i>, Span, EmptyError> {
    move |input: &mut Input<'i>| {
        let fence = (marker(markers), take_while(0.., is_blank))
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

// open-fence  ::= "---" blank* ( eol | EOF )
const OPEN: &[&str] = &["---"];
// close-fence ::= ( "---" | "..." ) blank* ( eol | EOF )
const CLOSE: &[&str] = &["---", "..."];

// yaml-line ::= char* eol        (tried only where a close-fence does not match)
// char      ::= any character but "\n"; a "\r" right before "\n" is part of eol
fn yaml_line(input: &mut Input<'_>) -> RuleResult<Line> {
    let (text, range) = take_till(0.., '\n').with_span().parse_next(input)?;
    '\n'.parse_next(input)?;
    let end = if text.ends_with('\r') {
        range.end - 1
    } else {
        range.end
    };
    Ok(Line {
        content: Span::new(range.start, end),
    })
}

// document    ::= bom? ( frontmatter body | body )
// frontmatter ::= open-fence yaml-line* close-fence
// body        ::= char*   (everything that is left, line endings included)
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
        repeat_till(0.., yaml_line, fence_line(CLOSE)).parse_next(&mut input);
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

/// The 1-based line of `offset` in `text`.
pub(crate) fn line_number(text: &str, offset: usize) -> usize {
    let offset = offset.min(text.len());
    memchr::memchr_iter(b'\n', &text.as_bytes()[..offset]).count() + 1
}

/// Parses a text's frontmatter: finds the block, locates its top-level keys
/// and reads its YAML.
///
/// A text that does not start with a `---` line (after an optional byte-order
/// mark) has no frontmatter: the result's `frontmatter` is `None` and its
/// body is the whole text. Never panics.
///
/// ```
/// use quire::frontmatter::{parse, Code, ValueLayout};
///
/// let text = "\u{feff}---\r\ntags:\r\n- a\r\nstatus: 'to do'\r\n---\r\nBody\r\n";
/// let document = parse(text).unwrap();
/// let frontmatter = document.frontmatter.unwrap();
/// let status = frontmatter.entry("status").unwrap();
/// assert_eq!(&text[status.value.range()], "'to do'");
/// assert_eq!(frontmatter.get("status"), Some(&"to do".into()));
/// assert_eq!(frontmatter.entry("tags").unwrap().layout, ValueLayout::BlockCollection);
/// assert_eq!(&text[document.body.range()], "Body\r\n");
///
/// assert!(parse("# No frontmatter\n").unwrap().frontmatter.is_none());
/// assert_eq!(parse("---\ntitle: x\n").unwrap_err().code(), Code::Unclosed);
/// ```
pub fn parse(text: &str) -> Result<Document, ParseError> {
    let split = split(text)?;
    let Some(block) = split.block else {
        return Ok(Document {
            bom: split.bom,
            frontmatter: None,
            body: split.body,
        });
    };
    check_line_endings(text, block.yaml)?;
    let located = entries::locate(text, &block.lines);
    check_duplicates(text, &located.entries)?;
    let values = yaml::read_mapping(text, block.yaml, &block.lines)?;
    if let Some(unsupported) = located.unsupported {
        return Err(unsupported);
    }
    entries::check_keys(text, block.yaml, &located.entries, &values)?;
    let entries = located
        .entries
        .into_iter()
        .map(|raw| {
            let value = values.get(&raw.key.value);
            entries::finish(text, raw, value)
        })
        .collect();
    Ok(Document {
        bom: split.bom,
        frontmatter: Some(Frontmatter {
            span: block.span,
            open: block.open,
            yaml: block.yaml,
            close: block.close,
            entries,
            values,
        }),
        body: split.body,
    })
}

/// YAML reads a lone `\r` (one no `\n` follows) as a line break, so with
/// one in the YAML its lines are not the lines found here, and no span could
/// be trusted: refused, at the `\r`.
fn check_line_endings(text: &str, yaml: Span) -> Result<(), ParseError> {
    let bytes = &text.as_bytes()[yaml.range()];
    let lone = memchr::memchr_iter(b'\r', bytes).find(|&at| bytes.get(at + 1) != Some(&b'\n'));
    match lone {
        None => Ok(()),
        Some(offset) => {
            let at = yaml.start + offset;
            Err(ParseError::UnsupportedSyntax {
                reason: "it holds a carriage return (`\\r`) that no line feed follows, which \
                         YAML reads as a line break; end every line with `\\n` or `\\r\\n`"
                    .into(),
                span: Span::new(at, at + 1),
                line: line_number(text, at),
            })
        }
    }
}

fn check_duplicates(text: &str, entries: &[RawEntry]) -> Result<(), ParseError> {
    let mut seen: HashMap<&str, Span> = HashMap::with_capacity(entries.len());
    for entry in entries {
        if let Some(&first) = seen.get(entry.key.value.as_str()) {
            return Err(ParseError::DuplicateKey {
                key: entry.key.value.clone(),
                span: entry.key.span,
                line: line_number(text, entry.key.span.start),
                first,
                first_line: line_number(text, first.start),
            });
        }
        seen.insert(&entry.key.value, entry.key.span);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontmatter::{Code, ValueLayout};

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

    #[test]
    fn fences_in_the_body_are_body() {
        let text = "---\na: 1\n---\ntext\n---\nmore\n---\n";
        let document = parse(text).unwrap();
        assert_eq!(&text[document.body.range()], "text\n---\nmore\n---\n");
        assert_eq!(document.frontmatter.unwrap().values.len(), 1);
    }

    #[test]
    fn parse_reads_values_and_entries() {
        let text = "---\n# about\ntitle: Notes  # c\ncount: 3\ntags: [a, b]\n---\n";
        let frontmatter = parse(text).unwrap().frontmatter.unwrap();
        assert_eq!(frontmatter.get("count"), Some(&3.into()));
        let keys: Vec<&str> = frontmatter.entries.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(keys, ["title", "count", "tags"]);
        let title = frontmatter.entry("title").unwrap();
        assert_eq!(&text[title.key.span.range()], "title");
        assert_eq!(&text[title.value.range()], "Notes");
        let tags = frontmatter.entry("tags").unwrap();
        assert_eq!(tags.layout, ValueLayout::FlowCollection);
        assert_eq!(&text[tags.value.range()], "[a, b]");
    }

    #[test]
    fn empty_and_comment_only_blocks_are_empty_mappings() {
        for text in ["---\n---\n", "---\n\n# just a comment\n\n---\n"] {
            let frontmatter = parse(text).unwrap().frontmatter.unwrap();
            assert!(frontmatter.values.is_empty());
            assert!(frontmatter.entries.is_empty());
        }
    }

    #[test]
    fn duplicate_keys_are_an_error_at_the_second() {
        let text = "---\na: 1\nb: 2\n'a': 3\n---\n";
        let error = parse(text).unwrap_err();
        assert_eq!(error.code(), Code::DuplicateKey);
        assert_eq!(&text[error.span().range()], "'a'");
        assert_eq!(
            error.to_string(),
            "the key `a` appears twice in the frontmatter (lines 2 and 4): YAML keys must be \
             unique, so remove or rename one of them"
        );
    }

    #[test]
    fn keys_the_locator_cannot_place_are_errors_not_guesses() {
        for (text, spanned) in [
            ("---\na: 1\n? b\n: 2\n---\n", "? b"),
            ("---\nbase: &b {x: 1}\n<<: *b\n---\n", "<<"),
            ("---\n  a: 1\n  b: 2\n---\n", "  a: 1"),
        ] {
            let error = parse(text).unwrap_err();
            assert_eq!(error.code(), Code::UnsupportedSyntax, "{text:?}");
            assert_eq!(&text[error.span().range()], spanned);
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let flow = format!("---\na: {}\n---\n", "[".repeat(100_000));
        assert_eq!(parse(&flow).unwrap_err().code(), Code::LimitExceeded);
        let mut block = String::from("---\n");
        for depth in 0..200 {
            block.push_str(&" ".repeat(depth));
            block.push_str("k:\n");
        }
        block.push_str("---\n");
        assert_eq!(parse(&block).unwrap_err().code(), Code::LimitExceeded);
    }

    #[test]
    fn a_lone_carriage_return_in_the_yaml_is_refused_at_it() {
        // Found by fuzzing (frontmatter_parse): YAML reads `x\r y` as two
        // lines, and a `\r` in a comment can hide a line of a block scalar,
        // so no line-by-line span is sound.
        for (text, at) in [
            ("---\na: x\r y\n---\n", 8),
            ("---\na: 1\nb: 'c\r d'\n---\n", 14),
            ("---\nliteral: | # c\r\r breaks\n---\n", 18),
            ("---\r\na: x\rb: y\r\n---\r\n", 9),
        ] {
            let error = parse(text).unwrap_err();
            assert_eq!(error.code(), Code::UnsupportedSyntax, "{text:?}");
            assert_eq!(error.span(), Span::new(at, at + 1), "{text:?}");
            let refused = crate::frontmatter::set_scalar(text, "a", "z").unwrap_err();
            assert_eq!(refused.code(), Code::UnsupportedSyntax);
        }
        assert_eq!(
            parse("---\na: x\r y\n---\n").unwrap_err().to_string(),
            "line 2 of the frontmatter is not a top-level entry quire can locate: it holds a \
             carriage return (`\\r`) that no line feed follows, which YAML reads as a line \
             break; end every line with `\\n` or `\\r\\n`; write top-level entries as \
             `key: value` with the key at the first column (a plain, 'single-quoted' or \
             \"double-quoted\" key on one line)"
        );
        // In the body, and as CRLF line endings, it is fine.
        assert!(parse("---\r\na: x\r\n---\r\nbody\rmore\n").is_ok());
    }

    #[test]
    fn line_numbers_are_one_based() {
        assert_eq!(line_number("a\nb\nc", 0), 1);
        assert_eq!(line_number("a\nb\nc", 2), 2);
        assert_eq!(line_number("a\nb\nc", 99), 3);
    }
}
