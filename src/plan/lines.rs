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
#[cfg(test)]
pub(crate) fn split_lines(text: &str, start: usize, end: usize) -> Vec<Line> {
    let lines = Lines::new(text, start, end);
    let mut all = Vec::with_capacity(lines.remaining());
    all.extend(lines);
    all
}

/// The lines of `text[start..end]` one at a time, with offsets into `text`
/// (what [`split_lines`] collects).
#[derive(Clone, Debug)]
pub(crate) struct Lines<'t> {
    text: &'t str,
    /// Where the next line starts; past `end` when every line was read.
    next: usize,
    end: usize,
}

impl<'t> Lines<'t> {
    pub(crate) fn new(text: &'t str, start: usize, end: usize) -> Self {
        Lines {
            text,
            next: start,
            end,
        }
    }

    /// How many lines are left.
    pub(crate) fn remaining(&self) -> usize {
        match self.text.as_bytes().get(self.next..self.end) {
            Some(rest) => memchr::memchr_iter(b'\n', rest).count() + 1,
            None => 0,
        }
    }

    /// Where the next line starts, if there is one.
    pub(crate) fn next_start(&self) -> Option<usize> {
        (self.next <= self.end).then_some(self.next)
    }
}

impl Iterator for Lines<'_> {
    type Item = Line;

    // plan.ebnf: EOL, blank-line
    fn next(&mut self) -> Option<Line> {
        let line_start = self.next;
        let bytes = self.text.as_bytes().get(line_start..self.end)?;
        let newline = memchr::memchr(b'\n', bytes).map_or(self.end, |at| line_start + at);
        let mut line_end = newline;
        let all = self.text.as_bytes();
        while line_end > line_start && all[line_end - 1] == b'\r' {
            line_end -= 1;
        }
        let blank = self.text[line_start..line_end].trim_start().is_empty();
        self.next = newline + 1;
        Some(Line {
            start: line_start,
            end: line_end,
            blank,
        })
    }
}

/// The end of `text` without one trailing line ending (`\n`, with any
/// carriage returns before it), if it has one.
pub(crate) fn end_without_line_ending(text: &str) -> usize {
    match text.strip_suffix('\n') {
        Some(rest) => rest.trim_end_matches('\r').len(),
        None => text.len(),
    }
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
}
