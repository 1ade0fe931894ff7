//! Splitting a document into lines that remember their byte offsets.
//!
//! A line ends at `\n`; carriage returns right before it belong to the line
//! ending, so CRLF text parses exactly as LF text while spans still index the
//! original bytes. A carriage return inside a line is content.

use crate::span::Span;

/// One line's content (without its line ending) as a span of the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Line {
    pub start: usize,
    pub end: usize,
    /// Empty or only whitespace: a blank line.
    blank: bool,
}

impl Line {
    pub(super) fn span(self) -> Span {
        Span::new(self.start, self.end)
    }

    pub(super) fn text(self, source: &str) -> &str {
        &source[self.start..self.end]
    }

    pub(super) fn is_blank(self) -> bool {
        self.blank
    }
}

/// The lines of `text[start..end]`, with offsets into `text`. A range ending
/// in a line ending has an empty last line, as `split('\n')` would give.
pub(crate) fn split_lines(text: &str, start: usize, end: usize) -> Vec<Line> {
    let bytes = &text.as_bytes()[..end];
    let newlines = memchr::memchr_iter(b'\n', &bytes[start..]).map(|at| start + at);
    let mut lines = Vec::with_capacity(memchr::memchr_iter(b'\n', &bytes[start..]).count() + 1);
    let mut line_start = start;
    for newline in newlines.chain(std::iter::once(end)) {
        let mut line_end = newline;
        while line_end > line_start && bytes[line_end - 1] == b'\r' {
            line_end -= 1;
        }
        let blank = text[line_start..line_end].trim().is_empty();
        lines.push(Line {
            start: line_start,
            end: line_end,
            blank,
        });
        line_start = newline + 1;
    }
    lines
}

/// The end of `text` without one trailing line ending (`\n`, with any
/// carriage returns before it), if it has one.
pub(crate) fn end_without_line_ending(text: &str) -> usize {
    match text.strip_suffix('\n') {
        Some(rest) => rest.trim_end_matches('\r').len(),
        None => text.len(),
    }
}

/// The contents of `lines` joined with `\n`.
pub(crate) fn join_contents(text: &str, lines: &[Line]) -> String {
    let mut joined =
        String::with_capacity(lines.iter().map(|line| line.end - line.start + 1).sum());
    for (index, line) in lines.iter().enumerate() {
        if index > 0 {
            joined.push('\n');
        }
        joined.push_str(line.text(text));
    }
    joined
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contents(text: &str) -> Vec<&str> {
        split_lines(text, 0, text.len())
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
    fn carriage_returns_end_lines_only_before_a_line_feed_or_the_end() {
        assert_eq!(contents("a\rb\r\r\nc\r"), ["a\rb", "c"]);
    }

    #[test]
    fn whitespace_only_lines_are_blank() {
        let text = "a\n \t\n\nb";
        let blank: Vec<bool> = split_lines(text, 0, text.len())
            .iter()
            .map(|line| line.is_blank())
            .collect();
        assert_eq!(blank, [false, true, true, false]);
    }

    #[test]
    fn spans_index_the_original_bytes() {
        let lines = split_lines("\u{feff}ab\r\ncd", 3, 9);
        assert_eq!(
            (lines[0].span(), lines[1].span()),
            (Span::new(3, 5), Span::new(7, 9))
        );
    }

    #[test]
    fn only_one_line_ending_is_stripped() {
        assert_eq!(end_without_line_ending("a\n\n"), 2);
        assert_eq!(end_without_line_ending("a\r\r\n"), 1);
        assert_eq!(end_without_line_ending("a"), 1);
    }

    #[test]
    fn joined_contents_use_lf() {
        let text = "a\r\r\nb\r\nc";
        let lines = split_lines(text, 0, text.len());
        assert_eq!(join_contents(text, &lines), "a\nb\nc");
    }
}
