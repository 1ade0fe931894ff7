//! Locating the top-level keys of the YAML line by line, and telling how each
//! value is written.
//!
//! A top-level key starts at the first column: `key: value`, `'key': value`
//! or `"key": value`. Every other line belongs to the entry above it (an
//! indented line, a `- item` line, a blank line, a comment). Lines that fit
//! none of these (`? explicit key`, `&anchor key: value`, ...) make the
//! frontmatter unsupported. `parse.rs` checks the keys found here against the
//! keys serde-saphyr read, so a key this locator misreads is an error, never a
//! wrong span.

use std::collections::HashSet;

use winnow::combinator::{alt, eof, opt, peek, repeat};
use winnow::prelude::*;
use winnow::stream::{Location, Stream};
use winnow::token::{any, none_of, one_of, rest, take_while};

use super::document::{Entry, ValueLayout};
use super::error::ParseError;
use super::scalar;
use crate::span::{Span, Spanned};
use crate::text::{
    Input, Line, RuleResult, content_end, is_space_or_tab, line_input, line_number, next_line_start,
};

/// A top-level entry as found in the lines, before its value is read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RawEntry {
    pub key: Spanned<String>,
    /// Right after the key's colon.
    colon_end: usize,
    /// What follows the colon on the key's line.
    inline: Inline,
    /// The end of the key's line content.
    line_end: usize,
    /// Whether a line below the key is neither blank nor a comment.
    has_content: bool,
    /// The first and last lines below the key that are neither blank nor a
    /// comment at the first column: the start of the first, the end of the last.
    below: Option<Span>,
    /// The end of the last line below the key that holds only blanks (and
    /// is not empty).
    blanks_end: Option<usize>,
}

/// The keys found, and the first line that is not a supported entry.
pub(crate) struct Located {
    pub entries: Vec<RawEntry>,
    pub unsupported: Option<ParseError>,
}

/// What follows a key's colon on its line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Inline {
    /// Only blanks and perhaps a comment.
    Empty,
    /// A plain or quoted scalar that ends on this line, followed only by
    /// blanks and perhaps a comment.
    Scalar(ValueLayout, Span),
    /// A quoted scalar that does not end on this line.
    OpenQuote(usize),
    /// A block scalar header (`|`, `>-`, `|2+`).
    BlockHeader(Span),
    /// A flow collection starts here.
    Flow(usize),
    /// An alias, anchor or tag, and where the node ends if it is all on this line.
    Property(ValueLayout, Span),
    /// Something YAML does not allow here (serde-saphyr rejects it first).
    Unrecognized(Span),
}

/// What a line of the YAML is, seen from its first column.
#[derive(Clone, Debug, PartialEq, Eq)]
enum LineKind {
    Blank,
    /// `#` at the first column.
    Comment,
    /// Starts with a blank; `comment` when its first non-blank is `#`.
    Indented {
        comment: bool,
    },
    /// `- item` at the first column: a sequence that is the value of the key above.
    SequenceItem,
    Key {
        key: Spanned<String>,
        colon_end: usize,
        inline: Inline,
    },
    Unsupported(&'static str),
}

/// Finds the top-level entries in the YAML lines.
pub(crate) fn locate(text: &str, lines: &[Line]) -> Located {
    let mut entries: Vec<RawEntry> = Vec::new();
    let mut unsupported = None;
    for &line in lines {
        match line_kind(text, line) {
            LineKind::Blank => {
                if let Some(entry) = entries.last_mut()
                    && !line.span().is_empty()
                {
                    entry.blanks_end = Some(line.end);
                }
            }
            LineKind::Comment => {}
            LineKind::Key {
                key,
                colon_end,
                inline,
            } => entries.push(RawEntry {
                key,
                colon_end,
                inline,
                line_end: line.end,
                has_content: false,
                below: None,
                blanks_end: None,
            }),
            LineKind::Indented { comment } => match entries.last_mut() {
                Some(entry) => entry.add_below(line, !comment),
                None if comment => {}
                None => {
                    unsupported.get_or_insert_with(|| {
                        unsupported_line(text, line, "the first key is indented")
                    });
                }
            },
            LineKind::SequenceItem => match entries.last_mut() {
                Some(entry) => entry.add_below(line, true),
                None => {
                    unsupported.get_or_insert_with(|| {
                        unsupported_line(text, line, "a `- ` item comes before any key")
                    });
                }
            },
            LineKind::Unsupported(reason) => {
                unsupported.get_or_insert_with(|| unsupported_line(text, line, reason));
            }
        }
    }
    Located {
        entries,
        unsupported,
    }
}

fn unsupported_line(text: &str, line: Line, reason: &str) -> ParseError {
    ParseError::UnsupportedSyntax {
        reason: reason.into(),
        span: line.span(),
        line: line_number(text, line.start),
    }
}

impl RawEntry {
    fn add_below(&mut self, line: Line, content: bool) {
        self.has_content |= content;
        let start = self.below.map_or(line.start, |below| below.start);
        self.below = Some(Span::new(start, line.end));
    }

    /// The end of the value when it goes on below the key's line: the end
    /// of its last line below that is neither empty nor a comment at the
    /// first column (lines of only blanks count: a block scalar, at any
    /// depth, may hold blanks past its indentation as content).
    fn below_end(&self, on_key_line: usize) -> usize {
        let below = self
            .below
            .map_or(on_key_line, |below| below.end.max(on_key_line));
        below.max(self.blanks_end.unwrap_or(0))
    }
}

/// Checks that the keys found line by line are exactly the keys serde-saphyr
/// read, so every span handed out belongs to the key it names.
pub(crate) fn check_keys(
    text: &str,
    yaml: Span,
    entries: &[RawEntry],
    values: &serde_json::Map<String, serde_json::Value>,
) -> Result<(), ParseError> {
    for entry in entries {
        if !values.contains_key(&entry.key.value) {
            let reason = if entry.key.value == "<<" {
                "merge keys (`<<`) are not supported at the top level".to_owned()
            } else {
                format!(
                    "YAML reads the key `{}` as something else (a key that is null, or a \
                     number or boolean not in its plain form); quote the key",
                    entry.key.value
                )
            };
            return Err(ParseError::UnsupportedSyntax {
                reason,
                span: entry.key.span,
                line: line_number(text, entry.key.span.start),
            });
        }
    }
    // Every key found is in `values` and no two are the same (checked before),
    // so equal counts mean equal sets.
    if values.len() == entries.len() {
        return Ok(());
    }
    let found: HashSet<&str> = entries.iter().map(|entry| entry.key.as_str()).collect();
    if let Some(missing) = values.keys().find(|key| !found.contains(key.as_str())) {
        return Err(ParseError::UnsupportedSyntax {
            reason: format!(
                "the YAML has a top-level key `{missing}` that is not written as `key: value` at \
                 the first column (explicit `? ` keys and merged keys are not supported)"
            ),
            span: yaml,
            line: line_number(text, yaml.start),
        });
    }
    Ok(())
}

/// The entry with its final layout and value span; `value` is what
/// serde-saphyr read for its key.
pub(crate) fn finish(text: &str, raw: RawEntry, value: Option<&serde_json::Value>) -> Entry {
    let is_collection = value.is_some_and(|v| v.is_array() || v.is_object());
    let (layout, span) = match raw.inline {
        Inline::Empty => match raw.below.filter(|_| raw.has_content) {
            Some(below) if is_collection => (
                ValueLayout::BlockCollection,
                Span::new(below.start, raw.below_end(below.end)),
            ),
            Some(below) => (
                ValueLayout::MultilineScalar,
                Span::new(below.start, raw.below_end(below.end)),
            ),
            None => (ValueLayout::Empty, Span::at(raw.colon_end)),
        },
        Inline::Scalar(layout, span) if !raw.has_content => (layout, span),
        Inline::Scalar(_, span) => (
            ValueLayout::MultilineScalar,
            Span::new(span.start, raw.below_end(span.end)),
        ),
        Inline::OpenQuote(start) => (
            ValueLayout::MultilineScalar,
            Span::new(start, raw.below_end(trim_end(text, start, raw.line_end))),
        ),
        Inline::BlockHeader(span) => (
            ValueLayout::BlockScalar,
            Span::new(span.start, raw.below_end(span.end)),
        ),
        Inline::Flow(start) => {
            let limit = raw.below_end(raw.line_end);
            let end = flow_end(&text[start..limit]).map_or(limit, |len| start + len);
            (ValueLayout::FlowCollection, Span::new(start, end))
        }
        // `&a |1` may hold a line of only blanks below it, and `!!str >-`
        // or `!!str "open` lines that look like comments (`  # text`), which
        // are its content.
        Inline::Property(layout, span)
            if !raw.has_content
                && raw.blanks_end.is_none()
                && !holds_lines_like_comments(&text[span.range()]) =>
        {
            (layout, span)
        }
        Inline::Property(layout, span) => (layout, Span::new(span.start, raw.below_end(span.end))),
        Inline::Unrecognized(span) => (
            ValueLayout::MultilineScalar,
            Span::new(span.start, raw.below_end(span.end)),
        ),
    };
    let layout = if layout.is_single_line_scalar() && is_collection {
        ValueLayout::BlockCollection
    } else {
        layout
    };
    Entry {
        key: raw.key,
        value: span,
        layout,
    }
}

/// Does the node after the properties (`&anchor`, `!tag`) at the start of
/// `node` hold the lines below it even when they start with `#`? A block
/// scalar's header (`!!str >-`) does, and so does a quoted scalar that does
/// not close on its first line (`!!str "open`); a plain scalar ends at such
/// a line, which is a comment.
fn holds_lines_like_comments(node: &str) -> bool {
    let mut rest = node;
    while rest.starts_with(['&', '!']) {
        rest = rest[property_length(rest)..].trim_start_matches(is_space_or_tab);
    }
    match rest.chars().next() {
        Some('|' | '>') => true,
        Some('\'') => single_quoted(&mut Input::new(rest)).is_err(),
        Some('"') => double_quoted(&mut Input::new(rest)).is_err(),
        _ => false,
    }
}

/// `start..end` of `text` without trailing blanks: the end offset.
fn trim_end(text: &str, start: usize, end: usize) -> usize {
    start + text[start..end].trim_end_matches(is_space_or_tab).len()
}

// ------------------------------------------------------------------ lines ---

// frontmatter.ebnf: yaml-line-content, blank-line, comment-line, indented-line, sequence-line
fn line_kind(text: &str, line: Line) -> LineKind {
    let content = line.text(text);
    let mut input = line_input(text, line);
    let blank: RuleResult<_> =
        (take_while(0.., is_space_or_tab), eof).parse_next(&mut input.clone());
    if blank.is_ok() {
        return LineKind::Blank;
    }
    let Some(first) = content.chars().next() else {
        return LineKind::Blank;
    };
    if first == '#' {
        return LineKind::Comment;
    }
    if is_space_or_tab(first) {
        let comment = content.trim_start_matches(is_space_or_tab).starts_with('#');
        return LineKind::Indented { comment };
    }
    let item: RuleResult<_> =
        ('-', alt((eof.void(), one_of(is_space_or_tab).void()))).parse_next(&mut input.clone());
    if item.is_ok() {
        return LineKind::SequenceItem;
    }
    match key_line(&mut input) {
        Ok((key, colon_end)) => LineKind::Key {
            key,
            colon_end,
            inline: inline_value(&mut input)
                .unwrap_or(Inline::Unrecognized(Span::new(colon_end, line.end))),
        },
        Err(reason) => LineKind::Unsupported(reason),
    }
}

// ------------------------------------------------------------------- keys ---

// frontmatter.ebnf: key-line, key
//
// Yields the key and the offset right after the colon; the input is left
// after the colon. When the line is not one, the error says why, from the
// part of the rule that failed: no `key` (a YAML construct the grammar
// leaves out, named by the character that starts it), or no `":"` after it.
fn key_line(input: &mut Input<'_>) -> Result<(Spanned<String>, usize), &'static str> {
    let line = input.peek_finish();
    let key = alt((single_quoted_key, double_quoted_key, plain_key))
        .parse_next(input)
        .map_err(|_| no_key(line))?;
    let colon: RuleResult<_> = (take_while(0.., is_space_or_tab), ':').parse_next(input);
    colon.map_err(|_| no_colon(line))?;
    let colon_end = input.current_token_start();
    let after: RuleResult<_> =
        peek(alt((eof.void(), one_of(is_space_or_tab).void()))).parse_next(input);
    after.map_err(|_| no_colon(line))?;
    Ok((key, colon_end))
}

/// Why `key` does not match at the start of `line`: the YAML construct its
/// first character starts (plain-first excludes the indicators).
fn no_key(line: &str) -> &'static str {
    let mut chars = line.chars();
    let first = chars.next();
    let second_is_blank = chars.next().is_none_or(is_space_or_tab);
    match first {
        Some('?') if second_is_blank => "explicit keys (`? key`) are not supported",
        Some(':') if second_is_blank => "explicit values (`: value`) are not supported",
        Some('&') => "anchors on keys are not supported",
        Some('!') => "tags on keys are not supported",
        Some('*') => "aliases as keys are not supported",
        Some('[' | '{') => "flow collections at the first column are not supported",
        Some('%') => "directives are not supported",
        _ => no_colon(line),
    }
}

/// Why a key is not followed by `":"` and a blank or the line's end.
fn no_colon(line: &str) -> &'static str {
    if line.starts_with(['"', '\'']) {
        "the quoted key must end on its line and be followed by `: ` or a `:` at the end \
         of the line"
    } else {
        "expected a key followed by `: ` (or by a `:` at the end of the line)"
    }
}

// frontmatter.ebnf: single-quoted
fn single_quoted<'i>(input: &mut Input<'i>) -> RuleResult<(&'i str, Span)> {
    let body = repeat::<_, _, (), _, _>(0.., alt((none_of('\'').void(), "''".void())));
    ('\'', body, '\'')
        .take()
        .with_span()
        .map(|(text, range)| (text, Span::from(range)))
        .parse_next(input)
}

// frontmatter.ebnf: double-quoted
fn double_quoted<'i>(input: &mut Input<'i>) -> RuleResult<(&'i str, Span)> {
    let body =
        repeat::<_, _, (), _, _>(0.., alt((none_of(['"', '\\']).void(), ('\\', any).void())));
    ('"', body, '"')
        .take()
        .with_span()
        .map(|(text, range)| (text, Span::from(range)))
        .parse_next(input)
}

// frontmatter.ebnf: key (its single-quoted choice)
fn single_quoted_key(input: &mut Input<'_>) -> RuleResult<Spanned<String>> {
    let (text, span) = single_quoted(input)?;
    Ok(Spanned::new(scalar::decode_single(text), span))
}

// frontmatter.ebnf: double-quoted-key
fn double_quoted_key(input: &mut Input<'_>) -> RuleResult<Spanned<String>> {
    let (text, span) = double_quoted(input)?;
    let key = scalar::decode_double(text).ok_or(winnow::error::EmptyError)?;
    Ok(Spanned::new(key, span))
}

// frontmatter.ebnf: plain-key
fn plain_key(input: &mut Input<'_>) -> RuleResult<Spanned<String>> {
    let start = input.current_token_start();
    let text = input.peek_finish();
    let length = plain_key_length(text).ok_or(winnow::error::EmptyError)?;
    let key = input.next_slice(length);
    Ok(Spanned::new(
        key.to_owned(),
        Span::new(start, start + length),
    ))
}

/// The byte length of the plain key at the start of `text` (trailing blanks
/// excluded), if `text` starts with one followed by `:` and a blank or the end.
fn plain_key_length(text: &str) -> Option<usize> {
    if !starts_plain(text) {
        return None;
    }
    let bytes = text.as_bytes();
    let mut previous_blank = false;
    for (index, c) in text.char_indices() {
        match c {
            ':' if bytes
                .get(index + 1)
                .is_none_or(|&b| b == b' ' || b == b'\t') =>
            {
                let key = text[..index].trim_end_matches(is_space_or_tab);
                return (!key.is_empty()).then_some(key.len());
            }
            '#' if previous_blank => return None,
            _ => {}
        }
        previous_blank = is_space_or_tab(c);
    }
    None
}

// frontmatter.ebnf: indicator
const INDICATORS: &str = "-?:,[]{}#&*!|>'\"%@`";

// frontmatter.ebnf: plain-first
fn starts_plain(text: &str) -> bool {
    let mut chars = text.chars();
    match chars.next() {
        None => false,
        Some(c) if is_space_or_tab(c) => false,
        Some('-' | '?' | ':') => chars.next().is_some_and(|c| !is_space_or_tab(c)),
        Some(c) => !INDICATORS.contains(c),
    }
}

// ---------------------------------------------------------------- values ---

// frontmatter.ebnf: inline-value, comment, block-header
fn inline_value(input: &mut Input<'_>) -> RuleResult<Inline> {
    take_while(0.., is_space_or_tab).parse_next(input)?;
    if opt((opt(('#', rest)), eof)).parse_next(input)?.is_some() {
        return Ok(Inline::Empty);
    }
    let start = input.current_token_start();
    let text = input.peek_finish();
    let line_end = start + text.len();
    let rest_span = Span::new(start, line_end);
    let inline = match text.chars().next() {
        Some('|' | '>') => {
            let header = (one_of(['|', '>']), take_while(0.., ('0'..='9', '+', '-')))
                .span()
                .parse_next(input)?;
            match trailer(input) {
                Ok(()) => Inline::BlockHeader(header.into()),
                Err(_) => Inline::Unrecognized(rest_span),
            }
        }
        Some('[' | '{') => Inline::Flow(start),
        Some(c @ ('*' | '&' | '!')) => {
            let layout = match c {
                '*' => ValueLayout::Alias,
                '&' => ValueLayout::Anchored,
                _ => ValueLayout::Tagged,
            };
            Inline::Property(layout, Span::new(start, start + node_length(text)))
        }
        Some(quote @ ('\'' | '"')) => {
            let (layout, quoted) = if quote == '\'' {
                (
                    ValueLayout::SingleQuoted,
                    opt(single_quoted).parse_next(input)?,
                )
            } else {
                (
                    ValueLayout::DoubleQuoted,
                    opt(double_quoted).parse_next(input)?,
                )
            };
            match quoted {
                None => Inline::OpenQuote(start),
                Some((_, span)) => match trailer(input) {
                    Ok(()) => Inline::Scalar(layout, span),
                    Err(_) => Inline::Unrecognized(rest_span),
                },
            }
        }
        _ if starts_plain(text) => {
            let length = plain_length(text);
            Inline::Scalar(ValueLayout::Plain, Span::new(start, start + length))
        }
        _ => Inline::Unrecognized(rest_span),
    };
    Ok(inline)
}

// frontmatter.ebnf: trailer
fn trailer(input: &mut Input<'_>) -> RuleResult<()> {
    alt((
        eof.void(),
        (take_while(1.., is_space_or_tab), opt(('#', rest)), eof).void(),
    ))
    .parse_next(input)
}

/// The byte length of the plain scalar at the start of `text`: up to a
/// comment (`#` after a blank) or the end, without trailing blanks.
// frontmatter.ebnf: plain-scalar
fn plain_length(text: &str) -> usize {
    let mut previous_blank = false;
    let mut end = text.len();
    for (index, c) in text.char_indices() {
        if c == '#' && previous_blank {
            end = index;
            break;
        }
        previous_blank = is_space_or_tab(c);
    }
    text[..end].trim_end_matches(is_space_or_tab).len()
}

/// The byte length of a node that starts with properties (`&anchor`, `!tag`)
/// or is an alias, when it is all on one line: the properties and the node
/// after them, without a trailing comment.
fn node_length(text: &str) -> usize {
    let mut offset = 0;
    loop {
        let rest = &text[offset..];
        match rest.chars().next() {
            Some('&' | '!' | '*') => {
                let end = offset + property_length(rest);
                let after = &text[end..];
                let skipped = after.len() - after.trim_start_matches(is_space_or_tab).len();
                let node = &after[skipped..];
                // A flow collection may follow a property with no blank
                // between (`&a[1, 2]`): the property ends at its bracket.
                let flow_follows = skipped == 0 && node.starts_with(['[', '{']);
                if node.is_empty() || node.starts_with('#') || (skipped == 0 && !flow_follows) {
                    return end;
                }
                offset = end + skipped;
            }
            Some('\'') => {
                let mut input = Input::new(rest);
                return match single_quoted(&mut input) {
                    Ok((quoted, _)) => offset + quoted.len(),
                    Err(_) => text.trim_end_matches(is_space_or_tab).len(),
                };
            }
            Some('"') => {
                let mut input = Input::new(rest);
                return match double_quoted(&mut input) {
                    Ok((quoted, _)) => offset + quoted.len(),
                    Err(_) => text.trim_end_matches(is_space_or_tab).len(),
                };
            }
            Some('[' | '{') => {
                return flow_end(rest)
                    .map_or(text.trim_end_matches(is_space_or_tab).len(), |len| {
                        offset + len
                    });
            }
            _ => return offset + plain_length(rest),
        }
    }
}

// frontmatter.ebnf: property, tag, flow-indicator
fn property_length(text: &str) -> usize {
    if text.starts_with("!<")
        && let Some(close) = text.find('>')
    {
        return close + 1;
    }
    text.char_indices()
        .skip(1)
        .find(|&(_, c)| is_space_or_tab(c) || "[]{},".contains(c))
        .map_or(text.len(), |(index, _)| index)
}

/// The byte length of the flow collection at the start of `text` (through
/// its closing bracket), if it closes within `text`. A quote opens a quoted
/// scalar only where a node starts (after `[`, `{`, `,`, a value `:`, an
/// explicit `?` or a node's properties); anywhere else, in `[a "b]` or
/// `[x:"y]`, it is text of a plain scalar. Comments are skipped. This is for
/// spans only, the YAML itself is checked by serde-saphyr.
fn flow_end(text: &str) -> Option<usize> {
    #[derive(PartialEq)]
    enum State {
        Flow,
        Single,
        Double,
        Comment,
        Property,
    }
    let mut state = State::Flow;
    let mut depth = 0usize;
    // Whether the next solid character starts a node.
    let mut node_starts = true;
    let mut previous = '\n';
    // The last character that is not a blank or a line break.
    let mut last_solid = '\n';
    let mut chars = text.char_indices().peekable();
    while let Some((index, c)) = chars.next() {
        let next = chars.peek().map_or('\n', |&(_, next)| next);
        match state {
            State::Flow => match c {
                '[' | '{' => {
                    depth += 1;
                    node_starts = true;
                }
                ']' | '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return Some(index + 1);
                    }
                    node_starts = false;
                }
                ',' => node_starts = true,
                '#' if matches!(previous, ' ' | '\t' | '\n') => state = State::Comment,
                ' ' | '\t' | '\r' | '\n' => {}
                // A value indicator: followed by a blank or an indicator, or
                // right after a JSON-like key (`{"a":"b"}`).
                ':' if next.is_whitespace()
                    || "[]{},".contains(next)
                    || matches!(last_solid, '"' | '\'' | ']' | '}') =>
                {
                    node_starts = true;
                }
                '?' if node_starts && next.is_whitespace() => {}
                '&' | '!' if node_starts => state = State::Property,
                '\'' if node_starts => state = State::Single,
                '"' if node_starts => state = State::Double,
                _ => node_starts = false,
            },
            State::Property if c.is_whitespace() || "[]{},".contains(c) => {
                state = State::Flow;
                if matches!(c, '[' | '{') {
                    depth += 1;
                } else if matches!(c, ']' | '}') {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return Some(index + 1);
                    }
                    node_starts = false;
                }
            }
            // A doubled '' inside single quotes is an escaped quote.
            State::Single if c == '\'' && next == '\'' => {
                chars.next();
            }
            State::Single if c == '\'' => {
                state = State::Flow;
                node_starts = false;
            }
            State::Double if c == '\\' => {
                chars.next();
            }
            State::Double if c == '"' => {
                state = State::Flow;
                node_starts = false;
            }
            State::Comment if c == '\n' => state = State::Flow,
            State::Single | State::Double | State::Comment | State::Property => {}
        }
        if !c.is_whitespace() {
            last_solid = c;
        }
        previous = c;
    }
    None
}

// -------------------------------------------------------------- replacing ---

/// Where a value that is more than a single-line scalar (a block scalar, a
/// tagged scalar or an alias, a scalar over several lines) is replaced by a
/// single-line scalar on the key's line, keeping every comment: the one on
/// the key's line and the ones after the value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Replacement {
    /// The bytes the new scalar takes the place of: the node with its
    /// properties and, for a block scalar, its header. Empty (right after
    /// the key's colon) when the node starts below the key's line: the new
    /// scalar goes there, after a space.
    pub head: Span,
    /// The old value's lines below the key's line, removed: from the end of
    /// the key's line (before its line ending) to the end of the node's last
    /// line (before its line ending), so the last line's ending ends the
    /// key's line. `None` when the node ends on the key's line or `head`.
    pub tail: Option<Span>,
}

// frontmatter.ebnf: replaceable-value, alias
//
// `entry` is a top-level entry of `text` as `finish` made it, whose value
// YAML reads as a scalar. The error says why the value cannot be replaced.
pub(crate) fn replacement(text: &str, entry: &Entry) -> Result<Replacement, &'static str> {
    let line_end = content_end(text, entry.key.span.start);
    let after_key = &text[entry.key.span.end..line_end];
    let colon = after_key.len() - after_key.trim_start_matches(is_space_or_tab).len();
    if !after_key[colon..].starts_with(':') {
        return Err("its key line is not `key: value`");
    }
    let colon_end = entry.key.span.end + colon + 1;

    // Properties on the key's line: tags are dropped with the old node; an
    // anchor may be named by an alias elsewhere, so it is not.
    let mut at = skip_blanks(text, colon_end, line_end);
    let mut properties: Option<Span> = None;
    while at < line_end {
        match text[at..].chars().next() {
            Some('&') => return Err("it carries an anchor (`&name`) that other values may use"),
            Some('!') => {
                let end = at + property_length(&text[at..line_end]);
                properties = Some(Span::new(properties.map_or(at, |p| p.start), end));
                at = skip_blanks(text, end, line_end);
            }
            _ => break,
        }
    }
    let value_end = entry.value.end.max(line_end);
    let node_start = properties.map_or(at, |p| p.start);
    match text[at..line_end].chars().next() {
        // The node starts on a line below the key's.
        None | Some('#') => {
            let head = properties.unwrap_or(Span::at(colon_end));
            let below = next_line_start(text, line_end);
            let Some(start) = below.map_or(Ok(None), |below| below_node(text, below, value_end))?
            else {
                // Only a tag (`key: !!str`, an empty string): it goes.
                return Ok(Replacement { head, tail: None });
            };
            let node_end = scalar_end(text, start, value_end)?;
            Ok(Replacement {
                head,
                tail: Some(Span::new(line_end, node_end)),
            })
        }
        Some('|' | '>') => {
            let header = &text[at + 1..line_end];
            let indicators = header
                .find(|c: char| !matches!(c, '0'..='9' | '+' | '-'))
                .unwrap_or(header.len());
            let explicit = header[..indicators]
                .chars()
                .find_map(|c| c.to_digit(10))
                .map(|digit| digit as usize);
            let content = block_content_end(text, line_end, value_end, explicit)?;
            Ok(Replacement {
                head: Span::new(node_start, at + 1 + indicators),
                tail: content.map(|end| Span::new(line_end, end)),
            })
        }
        Some('*') => Ok(Replacement {
            head: Span::new(node_start, at + property_length(&text[at..line_end])),
            tail: None,
        }),
        Some('[' | '{') => Err("it is a collection, not a scalar"),
        Some(_) => Ok(Replacement {
            head: Span::new(node_start, scalar_end(text, at, value_end)?),
            tail: None,
        }),
    }
}

fn skip_blanks(text: &str, from: usize, end: usize) -> usize {
    end - text[from..end].trim_start_matches(is_space_or_tab).len()
}

/// The lines from `start` (a line start) whose content ends by `end`, as
/// (line start, content end).
fn lines_from(text: &str, start: usize, end: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut next = Some(start);
    std::iter::from_fn(move || {
        let line = next.filter(|&line| line <= end && line < text.len())?;
        let content = content_end(text, line);
        if content > end {
            return None;
        }
        next = next_line_start(text, content);
        Some((line, content))
    })
}

/// Where the first node below the key's line starts, if there is one.
/// Comment lines before it would be lost with the lines removed, and a node
/// that starts with properties or a block header below its key is rare
/// enough to be left to a person.
// frontmatter.ebnf: below-scalar
fn below_node(text: &str, below: usize, end: usize) -> Result<Option<usize>, &'static str> {
    let mut comment = false;
    for (line, content) in lines_from(text, below, end) {
        let start = skip_blanks(text, line, content);
        match text[start..content].chars().next() {
            None => continue,
            Some('#') => comment = true,
            _ if comment => return Err("a comment line stands between its key and its value"),
            Some('|' | '>') => return Err("its block scalar starts on a line below its key"),
            Some('!' | '&' | '*') => {
                return Err("its tag, anchor or alias is on a line below its key");
            }
            Some('[' | '{') => return Err("it is a collection, not a scalar"),
            Some(_) => return Ok(Some(start)),
        }
    }
    Ok(None)
}

/// The end of the flow scalar (quoted or plain) that starts at `start`,
/// possibly continued on the lines below, up to `end` at the most.
// frontmatter.ebnf: flow-scalar
fn scalar_end(text: &str, start: usize, end: usize) -> Result<usize, &'static str> {
    let rest = &text[start..end];
    match rest.chars().next() {
        Some('\'') => single_quoted(&mut Input::new(rest))
            .map(|(quoted, _)| start + quoted.len())
            .map_err(|_| "its quoted scalar does not end"),
        Some('"') => double_quoted(&mut Input::new(rest))
            .map(|(quoted, _)| start + quoted.len())
            .map_err(|_| "its quoted scalar does not end"),
        _ => {
            // A plain scalar goes on over the lines below until a comment
            // (`#` after a blank, or starting a line) or the end.
            let line_end = content_end(text, start);
            let first = &text[start..line_end.min(end)];
            let mut node_end = start + plain_length(first);
            if node_end < start + first.trim_end_matches(is_space_or_tab).len() {
                return Ok(node_end);
            }
            let Some(below) = next_line_start(text, line_end) else {
                return Ok(node_end);
            };
            for (line, content) in lines_from(text, below, end) {
                let from = skip_blanks(text, line, content);
                let words = &text[from..content];
                if words.is_empty() {
                    continue;
                }
                if words.starts_with('#') {
                    break;
                }
                node_end = from + plain_length(words);
                if node_end < from + words.trim_end_matches(is_space_or_tab).len() {
                    break;
                }
            }
            Ok(node_end)
        }
    }
}

/// The end of the last line of a block scalar's content below its header's
/// line (content ending at `line_end`), before `end`; `None` when it has no
/// content line. Content lines are indented by the explicit indentation or
/// by the first line that is not only spaces; a less indented line ends the
/// block (a comment: it stays).
// frontmatter.ebnf: block-lines
fn block_content_end(
    text: &str,
    line_end: usize,
    end: usize,
    explicit: Option<usize>,
) -> Result<Option<usize>, &'static str> {
    let Some(below) = next_line_start(text, line_end) else {
        return Ok(None);
    };
    let spaces = |line: usize, content: usize| {
        text[line..content].len() - text[line..content].trim_start_matches(' ').len()
    };
    let mut indentation = explicit;
    let mut last = None;
    for (line, content) in lines_from(text, below, end) {
        let indent = spaces(line, content);
        if line + indent == content {
            // Only spaces: an empty line of the block.
            continue;
        }
        let needed = *indentation.get_or_insert(indent);
        if needed == 0 {
            return Err("its block scalar is not indented");
        }
        if indent >= needed {
            last = Some(content);
        } else if text[line + indent..content]
            .trim_start_matches(is_space_or_tab)
            .starts_with('#')
        {
            break;
        } else {
            return Err("its block scalar's lines are not where YAML reads them");
        }
    }
    Ok(last)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontmatter::block::split;

    fn entries(text: &str) -> Vec<(String, String, ValueLayout)> {
        let block = split(text).unwrap().block.unwrap();
        let located = locate(text, &block.lines);
        assert!(located.unsupported.is_none(), "{text:?}");
        located
            .entries
            .into_iter()
            .map(|raw| {
                let entry = finish(text, raw, None);
                (
                    entry.key.value,
                    text[entry.value.range()].to_owned(),
                    entry.layout,
                )
            })
            .collect()
    }

    fn one(text: &str) -> (String, ValueLayout) {
        let mut all = entries(text);
        assert_eq!(all.len(), 1, "{text:?}");
        let (_, value, layout) = all.remove(0);
        (value, layout)
    }

    fn value(line: &str) -> (String, ValueLayout) {
        one(&format!("---\n{line}\n---\n"))
    }

    #[test]
    fn keys_plain_and_quoted() {
        let text = "---\na: 1\nb c : 2\n'it''s': 3\n\"x\\ty\": 4\nurl:x: 5\n-k: 6\n---\n";
        let keys: Vec<String> = entries(text).into_iter().map(|e| e.0).collect();
        assert_eq!(keys, ["a", "b c", "it's", "x\ty", "url:x", "-k"]);
        let block = split(text).unwrap().block.unwrap();
        let spans: Vec<&str> = locate(text, &block.lines)
            .entries
            .iter()
            .map(|e| &text[e.key.span.range()])
            .collect();
        assert_eq!(spans, ["a", "b c", "'it''s'", "\"x\\ty\"", "url:x", "-k"]);
    }

    #[test]
    fn inline_scalars_exclude_comments_and_trailing_blanks() {
        assert_eq!(value("a: x y  "), ("x y".into(), ValueLayout::Plain));
        assert_eq!(value("a: x # c"), ("x".into(), ValueLayout::Plain));
        assert_eq!(value("a:\tx\t# c"), ("x".into(), ValueLayout::Plain));
        assert_eq!(value("a: C#  # c"), ("C#".into(), ValueLayout::Plain));
        assert_eq!(value("a: don't"), ("don't".into(), ValueLayout::Plain));
        assert_eq!(
            value("a: 'x # y' # z"),
            ("'x # y'".into(), ValueLayout::SingleQuoted)
        );
        assert_eq!(
            value("a: 'it''s'"),
            ("'it''s'".into(), ValueLayout::SingleQuoted)
        );
        assert_eq!(
            value(r#"a: "q\"x" "#),
            (r#""q\"x""#.into(), ValueLayout::DoubleQuoted)
        );
        assert_eq!(value("a: ünï ✓"), ("ünï ✓".into(), ValueLayout::Plain));
    }

    #[test]
    fn empty_values_sit_right_after_the_colon() {
        let text = "---\na:\nb:   # c\n---\n";
        let block = split(text).unwrap().block.unwrap();
        let located = locate(text, &block.lines);
        let spans: Vec<Span> = located
            .entries
            .into_iter()
            .map(|raw| finish(text, raw, None).value)
            .collect();
        assert_eq!(spans, [Span::at(6), Span::at(9)]);
    }

    #[test]
    fn multi_line_values_cover_their_lines() {
        let text = "---\na: |\n  x\n  # in\n\n# out\nb: >-\n  y\nc:\n- 1\n# mid\n- 2\n\n---\n";
        assert_eq!(
            entries(text),
            [
                (
                    "a".into(),
                    "|\n  x\n  # in".into(),
                    ValueLayout::BlockScalar
                ),
                ("b".into(), ">-\n  y".into(), ValueLayout::BlockScalar),
                (
                    "c".into(),
                    "- 1\n# mid\n- 2".into(),
                    ValueLayout::MultilineScalar
                ),
            ]
        );
        assert_eq!(
            value("a: x\n  y"),
            ("x\n  y".into(), ValueLayout::MultilineScalar)
        );
        assert_eq!(
            value("a: 'x\n  y'"),
            ("'x\n  y'".into(), ValueLayout::MultilineScalar)
        );
        // Indented comments after a scalar are comments.
        assert_eq!(value("a: x\n  # c"), ("x".into(), ValueLayout::Plain));
        assert_eq!(value("a:\n  # c"), ("".into(), ValueLayout::Empty));
    }

    #[test]
    fn block_scalars_keep_their_lines_of_blanks() {
        // Found by fuzzing (frontmatter_parse): under `|1` the line "  " holds
        // the content " ", so the value's span must cover that line, also
        // when the header is on a line of its own, in a collection or after
        // an anchor.
        let text = "---\na: |1\n  \nb: |\n  x\n    \n\nc: x\n  \nd:\n |1\n  \n\
                    e:\n  k: |1\n    \nf: &x |1\n  \n---\n";
        let frontmatter = crate::frontmatter::parse(text)
            .unwrap()
            .frontmatter
            .unwrap();
        for (key, read, written) in [
            ("a", " \n", "|1\n  "),
            ("b", "x\n  \n", "|\n  x\n    "),
            ("d", " \n", " |1\n  "),
            ("f", " \n", "&x |1\n  "),
            // Not in a plain scalar: there the line only folds.
            ("c", "x", "x"),
        ] {
            assert_eq!(frontmatter.get(key), Some(&read.into()), "{key}");
            let entry = frontmatter.entry(key).unwrap();
            assert_eq!(&text[entry.value.range()], written, "{key}");
        }
        assert_eq!(frontmatter.get("e"), Some(&serde_json::json!({"k": " \n"})));
        let e = frontmatter.entry("e").unwrap();
        assert_eq!(&text[e.value.range()], "  k: |1\n    ");
    }

    #[test]
    fn scalars_after_properties_cover_lines_that_look_like_comments() {
        // Found by fuzzing (frontmatter_replace_scalar): under a tag or an
        // anchor, a block scalar or a quoted scalar over several lines whose
        // lines below all start with `#` holds them as content, so the
        // value's span must cover them, as it does without the property.
        let text = "---\na: !!str >- # c\n  # not a comment\nb: &x |\n  # text\n  # more\n\
                    c: !t |2-\n  # x\n# out\nd: !!str # c\n  # a comment\n\
                    e: !!str \"a\n  # b\" # c\nf: &y 'a\n  # b'\n---\n";
        let frontmatter = crate::frontmatter::parse(text)
            .unwrap()
            .frontmatter
            .unwrap();
        for (key, read, written, layout) in [
            (
                "a",
                "# not a comment",
                "!!str >- # c\n  # not a comment",
                ValueLayout::Tagged,
            ),
            (
                "b",
                "# text\n# more\n",
                "&x |\n  # text\n  # more",
                ValueLayout::Anchored,
            ),
            ("c", "# x", "!t |2-\n  # x", ValueLayout::Tagged),
            // A quoted scalar that goes on below holds such lines too.
            ("e", "a # b", "!!str \"a\n  # b\" # c", ValueLayout::Tagged),
            ("f", "a # b", "&y 'a\n  # b'", ValueLayout::Anchored),
            // A tag alone: the indented line below is a comment.
            ("d", "", "!!str", ValueLayout::Tagged),
        ] {
            assert_eq!(frontmatter.get(key), Some(&read.into()), "{key}");
            let entry = frontmatter.entry(key).unwrap();
            assert_eq!(&text[entry.value.range()], written, "{key}");
            assert_eq!(entry.layout, layout, "{key}");
        }
        assert!(holds_lines_like_comments("&a !t |+"));
        assert!(holds_lines_like_comments("!!str 'open"));
        assert!(holds_lines_like_comments("&a \"open \\\""));
        assert!(!holds_lines_like_comments("!t x |"));
        assert!(!holds_lines_like_comments("!t 'closed'"));
        assert!(!holds_lines_like_comments("*a"));
    }

    #[test]
    fn nested_collections_are_read_from_the_value() {
        let text = "---\nm:\n  k: v\n---\n";
        let block = split(text).unwrap().block.unwrap();
        let raw = locate(text, &block.lines).entries.remove(0);
        let entry = finish(text, raw, Some(&serde_json::json!({"k": "v"})));
        assert_eq!(entry.layout, ValueLayout::BlockCollection);
        assert_eq!(&text[entry.value.range()], "  k: v");
    }

    #[test]
    fn flow_collections_and_properties() {
        assert_eq!(
            value("a: [1, \"]\", 'x'] # c"),
            ("[1, \"]\", 'x']".into(), ValueLayout::FlowCollection)
        );
        assert_eq!(
            value("a: {b: [1,\n  2]} # c"),
            ("{b: [1,\n  2]}".into(), ValueLayout::FlowCollection)
        );
        assert_eq!(value("a: *x # c"), ("*x".into(), ValueLayout::Alias));
        assert_eq!(
            value("a: &x 'v w' # c"),
            ("&x 'v w'".into(), ValueLayout::Anchored)
        );
        assert_eq!(
            value("a: !!str v w # c"),
            ("!!str v w".into(), ValueLayout::Tagged)
        );
        assert_eq!(
            value("a: &x\n  b: 1"),
            ("&x\n  b: 1".into(), ValueLayout::Anchored)
        );
        // Found by fuzzing (frontmatter_parse): an anchor ends at a flow
        // indicator, and the collection after it is the node.
        assert_eq!(
            value("a: &x[1, \"2 ]\", &y 3] # c"),
            ("&x[1, \"2 ]\", &y 3]".into(), ValueLayout::Anchored)
        );
        assert_eq!(
            value("a: !<tag:x> {b: c}"),
            ("!<tag:x> {b: c}".into(), ValueLayout::Tagged)
        );
        assert_eq!(property_length("&a,b"), 2);
        // Found by fuzzing (frontmatter_parse): a quote right after a colon
        // inside a plain scalar is text, not the start of a quoted scalar.
        assert_eq!(flow_end("[x:\"y, z] # \"]"), Some(9));
        assert_eq!(flow_end("{\"a\":\"b]\"} x"), Some(10));
        assert_eq!(flow_end("{'a':'b]'}"), Some(10));
        assert_eq!(flow_end("{\"a\"\t:\"b]\"} x"), Some(11));
        // Found by fuzzing (frontmatter_parse): a quote after a blank inside
        // a plain scalar is text too, and so is one after a line break.
        for whole in [
            "[a &y \"b, \"c]\"]",
            "[a\n \"b, \"c]\"]",
            "[&y \"b]\", !t 'c]']",
            "['it''s ]', ok]",
            "[? \"a]\"]",
            "[a: \"b]\"]",
            "[&x[1], 2]",
        ] {
            assert_eq!(flow_end(whole), Some(whole.len()), "{whole}");
        }
        assert_eq!(property_length("!!str x"), 5);
    }

    #[test]
    fn unsupported_lines_are_reported() {
        for (line, reason) in [
            ("? a", "explicit keys"),
            (": a", "explicit values"),
            ("&k a: 1", "anchors on keys"),
            ("!t a: 1", "tags on keys"),
            ("*k: 1", "aliases as keys"),
            ("[a]: 1", "flow collections"),
            ("{a: 1}", "flow collections"),
            ("%YAML 1.2", "directives"),
            ("\"a\":1", "quoted key"),
            ("'a' b", "quoted key"),
            ("\"a: 1", "quoted key"),
            ("?a b", "expected a key"),
            ("a b", "expected a key"),
            ("a #b: 1", "expected a key"),
        ] {
            let text = format!("---\nx: 1\n{line}\n---\n");
            let block = split(&text).unwrap().block.unwrap();
            let error = locate(&text, &block.lines).unsupported.unwrap();
            assert!(error.to_string().contains(reason), "{line:?}: {error}");
            assert_eq!(&text[error.span().range()], line);
        }
        let text = "---\n  a: 1\n---\n";
        let block = split(text).unwrap().block.unwrap();
        assert!(locate(text, &block.lines).unsupported.is_some());
    }

    #[test]
    fn plain_keys_follow_yaml() {
        assert_eq!(plain_key_length("a: b"), Some(1));
        assert_eq!(plain_key_length("a  :"), Some(1));
        assert_eq!(plain_key_length("a:b"), None);
        assert_eq!(plain_key_length("a#b: 1"), Some(3));
        assert_eq!(plain_key_length("a #b: 1"), None);
        assert_eq!(plain_key_length("- a: 1"), None);
        assert_eq!(plain_key_length(":a: 1"), Some(2));
        assert_eq!(plain_key_length(": 1"), None);
        assert_eq!(plain_key_length("é: 1"), Some(2));
    }
}
