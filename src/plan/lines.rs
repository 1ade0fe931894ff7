//! Walking a plan document's lines one at a time (the [`Line`]s of
//! [`crate::text`]), and the end of a document without its last line ending.

use crate::text::Line;

/// The lines of `text[start..end]` one at a time, with offsets into `text`
/// (what [`crate::text::split_lines`] collects).
#[derive(Clone, Debug)]
pub(crate) struct Lines<'t> {
    text: &'t str,
    /// Where the next line starts; past `end` when every line was read.
    next: usize,
    end: usize,
    /// How many lines are left, once [`Self::remaining`] has counted them
    /// (counted once: the sections ask as each begins).
    left: Option<usize>,
}

impl<'t> Lines<'t> {
    pub(crate) fn new(text: &'t str, start: usize, end: usize) -> Self {
        Lines {
            text,
            next: start,
            end,
            left: None,
        }
    }

    /// How many lines are left.
    pub(crate) fn remaining(&mut self) -> usize {
        let (text, next, end) = (self.text, self.next, self.end);
        *self
            .left
            .get_or_insert_with(|| match text.as_bytes().get(next..end) {
                Some(rest) => memchr::memchr_iter(b'\n', rest).count() + 1,
                None => 0,
            })
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
        self.next = newline + 1;
        if let Some(left) = &mut self.left {
            *left -= 1;
        }
        Some(Line::up_to(self.text, line_start, newline))
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
    use crate::text::split_lines;

    #[test]
    fn lines_yields_what_split_lines_collects() {
        for text in ["a\nb\r\n\r\nc", "a\rb\r\r\nc\r", "a\n", "", "x\n \t\n"] {
            let expected = split_lines(text, 0, text.len());
            let mut lines = Lines::new(text, 0, text.len());
            assert_eq!(lines.remaining(), expected.len());
            let first = lines.next();
            // Counted once, then kept up to date as lines are read.
            assert_eq!(lines.remaining(), expected.len() - 1, "{text:?}");
            let read: Vec<Line> = first.into_iter().chain(lines).collect();
            assert_eq!(read, expected, "{text:?}");
        }
    }

    #[test]
    fn only_one_line_ending_is_stripped() {
        assert_eq!(end_without_line_ending("a\n\n"), 2);
        assert_eq!(end_without_line_ending("a\r\r\n"), 1);
        assert_eq!(end_without_line_ending("a"), 1);
    }
}
