//! Obsidian `%% comments %%`, found in the note's text runs so that `%%` in
//! code is not an opener.

use std::ops::Range;

/// The comment ranges in `runs` (text runs in order): `%%` opens, the next
/// `%%` closes, an unclosed comment runs to `end`.
// markdown.ebnf: comment
pub(super) fn comment_ranges(text: &str, runs: &[Range<usize>], end: usize) -> Vec<Range<usize>> {
    let mut ranges = Vec::new();
    let mut open: Option<usize> = None;
    for run in runs {
        let mut at = run.start;
        while let Some(found) = text[at..run.end].find("%%") {
            let marker = at + found;
            match open.take() {
                None => open = Some(marker),
                Some(start) => ranges.push(start..marker + 2),
            }
            at = marker + 2;
        }
    }
    if let Some(start) = open {
        ranges.push(start..end);
    }
    ranges
}

/// Whether `offset` is inside one of `comments` (sorted, disjoint).
pub(super) fn is_commented(comments: &[Range<usize>], offset: usize) -> bool {
    let index = comments.partition_point(|range| range.end <= offset);
    comments
        .get(index)
        .is_some_and(|range| range.start <= offset)
}

/// The parts of `run` outside `comments`.
pub(super) fn uncommented(comments: &[Range<usize>], run: Range<usize>) -> Vec<Range<usize>> {
    let mut parts = Vec::new();
    let mut start = run.start;
    for comment in comments {
        if comment.end <= start || comment.start >= run.end {
            continue;
        }
        if comment.start > start {
            parts.push(start..comment.start);
        }
        start = comment.end.min(run.end);
    }
    if start < run.end {
        parts.push(start..run.end);
    }
    parts
}
