//! Lines that remember their byte offsets.
//!
//! A line ends at `\n`; the carriage returns right before it (or right
//! before the end of the text) belong to the line ending, so CRLF text reads
//! exactly as LF text while spans still index the original bytes. A carriage
//! return inside a line is content.

use crate::span::Span;

/// One line's content, without its line ending, as byte offsets of the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Line {
    /// Where the line starts.
    pub start: usize,
    /// Where its content ends: before the line ending.
    pub end: usize,
}

impl Line {
    /// The line that starts at `start` and whose line ending starts at or
    /// before `ending` (the offset of its `\n`, or the end of the text): the
    /// carriage returns before `ending` are not content.
    pub(crate) fn up_to(text: &str, start: usize, ending: usize) -> Line {
        Line {
            start,
            end: without_carriage_returns(text.as_bytes(), start, ending),
        }
    }

    /// The content's span.
    pub(crate) fn span(self) -> Span {
        Span::new(self.start, self.end)
    }

    /// The content, in `source` (the text the line was split from).
    pub(crate) fn text(self, source: &str) -> &str {
        &source[self.start..self.end]
    }

    /// Whether the content (in `source`) is empty or only whitespace.
    pub(crate) fn is_blank(self, source: &str) -> bool {
        is_blank(self.text(source))
    }
}

/// Whether `content` is empty or only whitespace. Byte by byte while the
/// bytes are ASCII (most lines end the test at their first byte); the rest,
/// from the first non-ASCII byte, by characters.
pub(crate) fn is_blank(content: &str) -> bool {
    for (at, &byte) in content.as_bytes().iter().enumerate() {
        if !byte.is_ascii() {
            return content[at..].trim_start().is_empty();
        }
        // `char::is_whitespace` on ASCII: tab, line feed, vertical tab,
        // form feed, carriage return and space.
        if !matches!(byte, b'\t'..=b'\r' | b' ') {
            return false;
        }
    }
    true
}

/// `ending` moved back over the carriage returns before it, down to `floor`.
fn without_carriage_returns(bytes: &[u8], floor: usize, ending: usize) -> usize {
    let carriage_returns = bytes[floor..ending]
        .iter()
        .rev()
        .take_while(|&&byte| byte == b'\r')
        .count();
    ending - carriage_returns
}

/// The lines of `text[start..end]`, with offsets into `text`. A range ending
/// in a line ending has an empty last line, as `split('\n')` would give.
#[cfg(test)]
pub(crate) fn split_lines(text: &str, start: usize, end: usize) -> Vec<Line> {
    let region = &text.as_bytes()[start..end];
    let mut lines = Vec::with_capacity(memchr::memchr_iter(b'\n', region).count() + 1);
    let mut line_start = start;
    for newline in memchr::memchr_iter(b'\n', region).map(|at| start + at) {
        lines.push(Line::up_to(text, line_start, newline));
        line_start = newline + 1;
    }
    lines.push(Line::up_to(text, line_start, end));
    lines
}

/// The start of the line holding `offset` (an offset on a `\n` belongs to
/// the line that `\n` ends).
pub(crate) fn line_start(text: &str, offset: usize) -> usize {
    memchr::memrchr(b'\n', &text.as_bytes()[..offset]).map_or(0, |newline| newline + 1)
}

/// The end of the content of the line holding `offset`: before its line
/// ending, or the end of the text; never before `offset`.
pub(crate) fn content_end(text: &str, offset: usize) -> usize {
    let bytes = text.as_bytes();
    let ending = memchr::memchr(b'\n', &bytes[offset..]).map_or(text.len(), |at| offset + at);
    without_carriage_returns(bytes, offset, ending)
}

/// The start of the line after the one holding `offset`; `None` on the last
/// line (no `\n` follows `offset`).
pub(crate) fn next_line_start(text: &str, offset: usize) -> Option<usize> {
    memchr::memchr(b'\n', &text.as_bytes()[offset..]).map(|at| offset + at + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contents(text: &str) -> Vec<&str> {
        let lines = split_lines(text, 0, text.len());
        lines.iter().map(|line| line.text(text)).collect()
    }

    #[test]
    fn lf_and_crlf_lines_have_the_same_contents() {
        for (lf, crlf) in [("x\ny\n\nz", "x\r\ny\r\n\r\nz"), ("x\n", "x\r\n")] {
            assert_eq!(contents(lf), contents(crlf), "{crlf:?}");
        }
        assert_eq!(contents("x\n"), ["x", ""]);
        assert_eq!(contents(""), [""]);
    }

    #[test]
    fn only_carriage_returns_before_a_line_end_end_a_line() {
        assert_eq!(contents("p\rq\r\r\nr\r"), ["p\rq", "r"]);
        assert_eq!(contents("\r\r"), [""]);
    }

    #[test]
    fn blank_lines_hold_only_whitespace() {
        let text = "x\n\t \n\n\u{a0}\ny";
        let blank: Vec<bool> = split_lines(text, 0, text.len())
            .into_iter()
            .map(|line| line.is_blank(text))
            .collect();
        assert_eq!(blank, [false, true, true, true, false]);
    }

    #[test]
    fn blank_by_bytes_agrees_with_trim() {
        for content in [
            "",
            " ",
            "\t\u{b}\u{c}\r ",
            "x",
            " x",
            "\u{a0}",
            " \u{2003}\t",
            " \u{a0}x",
            "é",
            "\u{1c}",
        ] {
            assert_eq!(is_blank(content), content.trim().is_empty(), "{content:?}");
        }
    }

    #[test]
    fn a_range_keeps_the_offsets_of_the_whole_text() {
        let text = "\u{feff}xy\r\nzw\r\nrest";
        let spans: Vec<Span> = split_lines(text, 3, 9)
            .into_iter()
            .map(Line::span)
            .collect();
        assert_eq!(spans, [Span::new(3, 5), Span::new(7, 9)]);
    }

    #[test]
    fn the_line_around_an_offset() {
        let text = "ab\r\ncd\r\r\nef";
        // (offset, line start, content end, next line start)
        for (offset, start, end, next) in [
            (0, 0, 2, Some(4)),
            (2, 0, 2, Some(4)),
            (3, 0, 3, Some(4)),
            (4, 4, 6, Some(9)),
            (9, 9, 11, None),
            (11, 9, 11, None),
        ] {
            assert_eq!(
                (
                    line_start(text, offset),
                    content_end(text, offset),
                    next_line_start(text, offset)
                ),
                (start, end, next),
                "{offset}"
            );
        }
        assert_eq!(content_end("a\r", 0), 1);
    }
}
