//! The message rule of the commit grammar: the header line, then the body
//! and the footer block found among the paragraphs after it.
//!
//! One pass over the lines (memchr for line ends, no allocation per line)
//! tracks the paragraphs that could start the footer block
//! (`grammar/commit.ebnf`, footer-block); a second pass over the block
//! alone splits it into footers. Each footer line is recognized by the
//! winnow rule [`footer_line`]. Only the nodes' texts are allocated.
//!
//! Hand-written rather than git-conventional's parser because that one
//! keeps no spans, starts the footers at the first paragraph that looks
//! like one (so a `Note: ...` paragraph in the middle of a body swallows
//! the rest of the message), and fails where this parser must not.

use std::borrow::Cow;

use winnow::combinator::{alt, repeat};
use winnow::prelude::*;
use winnow::stream::Location;
use winnow::token::{any, take_while};

use super::ast::{Body, CommitMessage, Footer, FooterSeparator, Header, Layout, MessageKind};
use super::header::conventional_header;
use super::kind::generated_kind;
use crate::span::{Span, Spanned};
use crate::text::{Input, Line, RuleResult, is_blank, line_input};

/// The byte-order mark a message may start with.
const BOM: char = '\u{feff}';

/// Parses a commit message. Total: every text is a message, and this never
/// panics; whether it is a conventional commit is a fact of the result
/// ([`CommitMessage::conventional`], or the header's `problem` saying why
/// not). Runs in time linear in the length of `text`.
///
/// Takes the message as git stores it (see [`git_cleanup`](super::git_cleanup)
/// for a commit-msg hook's file). The grammar is `grammar/commit.ebnf`.
///
/// ```
/// use quire_grammar::commit::{parse_commit, MessageKind};
///
/// let text = "feat(parser)!: keep spans\n\nEvery node knows where it was.\n\nRefs: #12\nSigned-off-by: A <a@example.com>\n";
/// let message = parse_commit(text);
/// assert_eq!(message.kind, MessageKind::Conventional);
/// let header = message.conventional().unwrap();
/// assert_eq!(header.commit_type.value, "feat");
/// assert_eq!(header.scope.as_ref().unwrap().value, "parser");
/// assert_eq!(&text[header.description.span.range()], "keep spans");
/// assert!(message.is_breaking());
/// assert_eq!(message.body.as_ref().unwrap().text, "Every node knows where it was.");
/// let footers: Vec<(&str, &str)> =
///     message.footers.iter().map(|f| (f.token.value.as_str(), f.value.value.as_str())).collect();
/// assert_eq!(footers, [("Refs", "#12"), ("Signed-off-by", "A <a@example.com>")]);
/// assert_eq!(message.to_text(), text);
///
/// // Not conventional, and why:
/// let plain = parse_commit("Add spans\n");
/// assert_eq!(plain.kind, MessageKind::Unconventional);
/// assert_eq!(plain.header.problem.unwrap().code, "commit::header::no-colon");
/// ```
pub fn parse_commit(text: &str) -> CommitMessage {
    let mut layout = Vec::with_capacity(4);
    let header_start = if text.starts_with(BOM) {
        layout.push(Layout::Text(Cow::Borrowed("\u{feff}")));
        BOM.len_utf8()
    } else {
        0
    };
    layout.push(Layout::Header);
    let (header_line, after_header) = first_line(text, header_start);
    let header = header_at(text, header_line);
    let kind = match (&header.conventional, after_header) {
        (Some(_), _) => MessageKind::Conventional,
        (None, Some(next)) => generated_kind(&header.text, &text[next..]),
        (None, None) => generated_kind(&header.text, ""),
    };
    let mut message = CommitMessage {
        kind,
        header,
        body: None,
        footers: Vec::new(),
        footers_leading_blank: false,
        layout,
    };
    let Some(rest_start) = after_header else {
        push_text(&mut message.layout, &text[header_line.end..]);
        return message;
    };
    let sections = Sections::find(text, rest_start);
    let body_end = sections.block.map_or(text.len(), |block| block.start);
    let mut cursor = header_line.end;
    if let Some(body_start) = sections.first_paragraph.filter(|&start| start < body_end) {
        let body_text = text[body_start..body_end].trim_end();
        push_text(&mut message.layout, &text[cursor..body_start]);
        message.layout.push(Layout::Body);
        cursor = body_start + body_text.len();
        message.body = Some(Body {
            span: Span::new(body_start, cursor),
            text: body_text.to_owned(),
            leading_blank: sections.blank_after_header,
        });
    }
    if let Some(block) = sections.block {
        push_text(&mut message.layout, &text[cursor..block.start]);
        message.footers_leading_blank = block.leading_blank;
        cursor = footers(text, block.start, &mut message);
    }
    push_text(&mut message.layout, &text[cursor..]);
    message
}

/// Parses the header of a message: its first line (after a byte-order
/// mark), with spans into `text`. [`parse_commit`] gives the same header.
pub fn parse_header(text: &str) -> Header {
    let start = if text.starts_with(BOM) {
        BOM.len_utf8()
    } else {
        0
    };
    header_at(text, first_line(text, start).0)
}

/// The header on `line`.
fn header_at(text: &str, line: Line) -> Header {
    let (conventional, problem) = match conventional_header(text, line) {
        Ok(parts) => (Some(parts), None),
        Err(problem) => (None, Some(problem)),
    };
    Header {
        span: line.span(),
        text: line.text(text).to_owned(),
        conventional,
        problem,
    }
}

/// The line starting at `start`, and where the next one starts, if any.
fn first_line(text: &str, start: usize) -> (Line, Option<usize>) {
    match memchr::memchr(b'\n', &text.as_bytes()[start..]) {
        Some(at) => (Line::up_to(text, start, start + at), Some(start + at + 1)),
        None => (Line::up_to(text, start, text.len()), None),
    }
}

/// Adds text between nodes to the layout; the usual line endings are not
/// allocated.
fn push_text(layout: &mut Vec<Layout>, text: &str) {
    let piece = match text {
        "" => return,
        "\n" => Cow::Borrowed("\n"),
        "\n\n" => Cow::Borrowed("\n\n"),
        "\r\n" => Cow::Borrowed("\r\n"),
        "\r\n\r\n" => Cow::Borrowed("\r\n\r\n"),
        ": " => Cow::Borrowed(": "),
        " #" => Cow::Borrowed(" #"),
        other => Cow::Owned(other.to_owned()),
    };
    layout.push(Layout::Text(piece));
}

/// Where the footer block starts, and whether a blank line comes before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Block {
    start: usize,
    leading_blank: bool,
}

/// What the pass over the lines after the header finds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Sections {
    /// Where the first paragraph after the header starts.
    first_paragraph: Option<usize>,
    /// Whether a blank line comes between the header and that paragraph.
    blank_after_header: bool,
    /// The footer block, if the message has one.
    block: Option<Block>,
}

impl Sections {
    // commit.ebnf: footer-block, body
    /// Reads the lines from `start` (the line after the header) to the end
    /// of `text`.
    fn find(text: &str, start: usize) -> Sections {
        let mut first_paragraph = None;
        let mut blank_after_header = false;
        // (a): where the trailing run of paragraphs that start with a
        // footer line starts (`None` while the last paragraph seen does not).
        let mut run_start = None;
        // (b): the first paragraph that starts with a breaking footer line.
        let mut breaking_start = None;
        // (c): in the current paragraph, where its trailing footer lines
        // start (not at its first line), and whether one of them is a
        // trailer (`strong`) rather than a `Word: text` line of prose.
        let mut trailer_start = None;
        let mut trailer_is_strong = false;
        let mut in_paragraph = false;
        let mut line_start = start;
        loop {
            let newline = memchr::memchr(b'\n', &text.as_bytes()[line_start..]);
            let ending = newline.map_or(text.len(), |at| line_start + at);
            let line = Line::up_to(text, line_start, ending);
            let content = line.text(text);
            if is_blank(content) {
                in_paragraph = false;
                if first_paragraph.is_none() {
                    blank_after_header = true;
                }
            } else if !in_paragraph {
                in_paragraph = true;
                first_paragraph.get_or_insert(line.start);
                trailer_start = None;
                match footer_line_at(text, line) {
                    Some(footer) => {
                        run_start.get_or_insert(line.start);
                        if footer.breaking && breaking_start.is_none() {
                            breaking_start = Some(line.start);
                        }
                    }
                    None => run_start = None,
                }
            } else if content.starts_with(char::is_whitespace) {
                // A continuation line: the trailers (if any) go on.
            } else if let Some(footer) = footer_line_at(text, line) {
                if trailer_start.is_none() {
                    trailer_start = Some(line.start);
                    trailer_is_strong = false;
                }
                trailer_is_strong |= footer.is_strong();
            } else {
                trailer_start = None;
            }
            match newline {
                Some(_) => line_start = ending + 1,
                None => break,
            }
        }
        let paragraph_block = match (run_start, breaking_start) {
            (Some(run), Some(breaking)) => Some(run.min(breaking)),
            (run, breaking) => run.or(breaking),
        };
        let block = match paragraph_block {
            Some(start) => Some(Block {
                start,
                leading_blank: Some(start) != first_paragraph || blank_after_header,
            }),
            None => trailer_start
                .filter(|_| trailer_is_strong)
                .map(|start| Block {
                    start,
                    leading_blank: false,
                }),
        };
        Sections {
            first_paragraph,
            blank_after_header,
            block,
        }
    }
}

/// Splits the footer block, from `start` to the end of `text`, into the
/// message's footers and their layout; returns where the last value ends.
fn footers(text: &str, start: usize, message: &mut CommitMessage) -> usize {
    let mut open: Option<FooterStart<'_>> = None;
    let mut line_start = start;
    loop {
        let newline = memchr::memchr(b'\n', &text.as_bytes()[line_start..]);
        let ending = newline.map_or(text.len(), |at| line_start + at);
        let line = Line::up_to(text, line_start, ending);
        if let Some(next) = footer_line_at(text, line) {
            if let Some(previous) = open.take() {
                let value_end = close_footer(text, previous, line.start, message);
                push_text(&mut message.layout, &text[value_end..line.start]);
            }
            open = Some(next);
        }
        match newline {
            Some(_) => line_start = ending + 1,
            None => break,
        }
    }
    match open {
        Some(last) => close_footer(text, last, text.len(), message),
        None => start,
    }
}

/// Adds the footer that starts at `footer` and whose value ends before
/// `end` (without the whitespace before `end`); returns where its value
/// ends.
fn close_footer(
    text: &str,
    footer: FooterStart<'_>,
    end: usize,
    message: &mut CommitMessage,
) -> usize {
    let value = text[footer.value_start..end].trim_end();
    let value_end = footer.value_start + value.len();
    let index = message.footers.len();
    message.layout.push(Layout::FooterToken(index));
    push_text(
        &mut message.layout,
        &text[footer.token_span.end..footer.value_start],
    );
    message.layout.push(Layout::FooterValue(index));
    message.footers.push(Footer {
        span: Span::new(footer.token_span.start, value_end),
        token: Spanned::new(footer.token.to_owned(), footer.token_span),
        separator: footer.separator,
        value: Spanned::new(value.to_owned(), Span::new(footer.value_start, value_end)),
        breaking: footer.breaking,
    });
    value_end
}

/// The start of a footer: its token, separator and where its value starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FooterStart<'i> {
    token: &'i str,
    token_span: Span,
    separator: FooterSeparator,
    value_start: usize,
    breaking: bool,
}

impl FooterStart<'_> {
    /// Whether the footer reads as a trailer even at the end of a paragraph
    /// of prose (rule (c) of footer-block): a token of words joined by `-`
    /// (`Signed-off-by`; CC-9's `-` is what tells footers from prose), a
    /// breaking change, or a `#` reference (`Fixes #12`).
    fn is_strong(&self) -> bool {
        self.breaking || self.token.contains('-') || self.separator == FooterSeparator::SpaceHash
    }
}

/// The footer that `line` starts, if it is a footer line.
fn footer_line_at(text: &str, line: Line) -> Option<FooterStart<'_>> {
    // Most lines of prose fail on their first word; the rule needs a word
    // character first.
    let first = text[line.start..line.end].chars().next()?;
    if !is_word_char(first) {
        return None;
    }
    footer_line(&mut line_input(text, line)).ok()
}

// commit.ebnf: footer-line
fn footer_line<'i>(input: &mut Input<'i>) -> RuleResult<FooterStart<'i>> {
    let (token, range) = token.with_span().parse_next(input)?;
    let separator = separator(input)?;
    let _: &str = take_while(0.., char::is_whitespace).parse_next(input)?;
    let value_start = input.current_token_start();
    let _: char = any.parse_next(input)?;
    Ok(FooterStart {
        token,
        token_span: range.into(),
        separator,
        value_start,
        breaking: matches!(token, "BREAKING CHANGE" | "BREAKING-CHANGE"),
    })
}

// commit.ebnf: token, breaking-token
fn token<'i>(input: &mut Input<'i>) -> RuleResult<&'i str> {
    let words = (word, repeat::<_, _, (), _, _>(0.., ('-', word))).take();
    alt(("BREAKING CHANGE", words)).parse_next(input)
}

// commit.ebnf: word
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

// commit.ebnf: word
fn word<'i>(input: &mut Input<'i>) -> RuleResult<&'i str> {
    take_while(1.., is_word_char).parse_next(input)
}

// commit.ebnf: separator
fn separator(input: &mut Input<'_>) -> RuleResult<FooterSeparator> {
    alt((
        ": ".value(FooterSeparator::ColonSpace),
        " #".value(FooterSeparator::SpaceHash),
    ))
    .parse_next(input)
}
