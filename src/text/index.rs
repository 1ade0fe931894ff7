//! Line and column numbers of byte offsets.

use super::char_boundary;

/// Maps byte offsets of a text to 1-based line and column numbers, as the
/// diagnostics show them. Lines end at `\n`; columns count characters.
///
/// ```
/// use quire_grammar::diagnostics::LineIndex;
///
/// let index = LineIndex::new("fix: a\r\nnaïve b\n");
/// assert_eq!(index.line_column(0), (1, 1));
/// // `b` is byte 15 but the 7th character of line 2.
/// assert_eq!(index.line_column(15), (2, 7));
/// ```
#[derive(Clone, Debug)]
pub struct LineIndex<'a> {
    text: &'a str,
    line_starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    /// Indexes `text`'s line starts once, so each lookup is a binary search.
    pub fn new(text: &'a str) -> Self {
        let line_starts = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1))
            .collect();
        LineIndex { text, line_starts }
    }

    /// 1-based line and column of `offset`; the column counts characters.
    /// Offsets past the end (or inside a character) are clamped.
    pub fn line_column(&self, offset: usize) -> (usize, usize) {
        let offset = char_boundary(self.text, offset);
        let line = self.line_starts.partition_point(|&start| start <= offset);
        let line_start = self.line_starts[line - 1];
        let column = self.text[line_start..offset].chars().count() + 1;
        (line, column)
    }
}

/// The 1-based line of `offset` in `text` (clamped to the end), for one
/// lookup where indexing the whole text would cost more.
pub(crate) fn line_number(text: &str, offset: usize) -> usize {
    let offset = offset.min(text.len());
    memchr::memchr_iter(b'\n', &text.as_bytes()[..offset]).count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_column_is_one_based_and_counts_characters() {
        let index = LineIndex::new("ab\nçd\r\nx");
        assert_eq!(index.line_column(0), (1, 1));
        assert_eq!(index.line_column(2), (1, 3));
        assert_eq!(index.line_column(3), (2, 1));
        // 'ç' is two bytes: 'd' is the second character of line 2.
        assert_eq!(index.line_column(5), (2, 2));
        assert_eq!(index.line_column(8), (3, 1));
        assert_eq!(index.line_column(999), (3, 2));
        // Inside a multi-byte character: clamped back to its start.
        assert_eq!(index.line_column(4), (2, 1));
    }

    #[test]
    fn line_number_agrees_with_the_index() {
        let text = "a\r\n\nbc\n";
        let index = LineIndex::new(text);
        for offset in 0..=text.len() + 2 {
            assert_eq!(
                line_number(text, offset),
                index.line_column(offset).0,
                "{offset}"
            );
        }
    }
}
