//! Splitting a document into lines that remember their byte offsets.
//!
//! A line ends at `\n`; a `\r` right before it belongs to the line ending, so
//! CRLF text parses exactly as LF text while spans still index the original
//! bytes.

use crate::span::Span;

/// One line's content (without its line ending) as a span of the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Line {
    pub start: usize,
    pub end: usize,
}

impl Line {
    pub fn span(self) -> Span {
        Span::new(self.start, self.end)
    }

    pub fn text(self, source: &str) -> &str {
        &source[self.start..self.end]
    }

    pub fn is_blank(self) -> bool {
        self.start == self.end
    }
}

/// The lines of `text`. Text ending in a line ending has an empty last line,
/// as `split('\n')` would give.
pub(crate) fn split_lines(text: &str) -> Vec<Line> {
    let bytes = text.as_bytes();
    let mut lines = Vec::with_capacity(memchr::memchr_iter(b'\n', bytes).count() + 1);
    let mut start = 0;
    for newline in memchr::memchr_iter(b'\n', bytes) {
        let end = if newline > start && bytes[newline - 1] == b'\r' {
            newline - 1
        } else {
            newline
        };
        lines.push(Line { start, end });
        start = newline + 1;
    }
    lines.push(Line {
        start,
        end: text.len(),
    });
    lines
}

/// `text` without one trailing line ending (`\n` or `\r\n`), if it has one.
pub(crate) fn strip_one_line_ending(text: &str) -> &str {
    text.strip_suffix("\r\n")
        .or_else(|| text.strip_suffix('\n'))
        .unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contents(text: &str) -> Vec<&str> {
        split_lines(text)
            .into_iter()
            .map(|line| line.text(text))
            .collect()
    }

    #[test]
    fn crlf_and_lf_give_the_same_contents() {
        assert_eq!(contents("a\nb\n\nc"), ["a", "b", "", "c"]);
        assert_eq!(contents("a\r\nb\r\n\r\nc"), ["a", "b", "", "c"]);
        assert_eq!(contents("a\n"), ["a", ""]);
        assert_eq!(contents(""), [""]);
    }

    #[test]
    fn a_lone_carriage_return_is_content() {
        assert_eq!(contents("a\rb\r\r\nc"), ["a\rb\r", "c"]);
    }

    #[test]
    fn spans_index_the_original_bytes() {
        let lines = split_lines("ab\r\ncd");
        assert_eq!(lines[1].span(), Span::new(4, 6));
    }

    #[test]
    fn only_one_line_ending_is_stripped() {
        assert_eq!(strip_one_line_ending("a\n\n"), "a\n");
        assert_eq!(strip_one_line_ending("a\r\n"), "a");
        assert_eq!(strip_one_line_ending("a"), "a");
    }
}
