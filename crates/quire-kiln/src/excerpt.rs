//! Which lines of a note `read_note` returns: the whole note, the first or
//! last N lines, or an inclusive 1-based range, capped so that one call
//! cannot flood a client, with what to ask for next when it was capped.
//!
//! A line ends at `\n`; the returned content keeps the note's bytes as they
//! are (CRLF stays CRLF). A final line ending does not start another line:
//! `"a\nb\n"` and `"a\nb"` both have 2 lines, and an empty note has none.
//! A range that is returned empty is written `start_line = end_line + 1`
//! (an empty note read whole is lines 1 to 0).

use std::fmt;

use thiserror::Error;

/// The lines a caller asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LineSelection {
    /// Every line.
    Whole,
    /// The first N lines (N ≥ 1).
    Head(usize),
    /// The last N lines (N ≥ 1).
    Tail(usize),
    /// Lines `start` to `end` inclusive, 1-based; to the last line when
    /// `end` is `None`.
    Range {
        /// The first line, from 1.
        start: usize,
        /// The last line, at least `start`.
        end: Option<usize>,
    },
}

/// Why a selection's arguments do not make one.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum SelectionError {
    /// `head` and `tail` together, or either with a line range.
    #[error(
        "{given} cannot be combined: ask for the first lines (`head`), the last lines (`tail`), or a range (`start_line`/`end_line`), one at a time"
    )]
    Conflicting {
        /// The arguments given together, as named in the tool.
        given: &'static str,
    },
    /// A line number or count of 0.
    #[error("`{argument}` is 0; lines are numbered from 1 (use `{argument}: 1` for the first)")]
    Zero {
        /// The argument that is 0.
        argument: &'static str,
    },
    /// A range that ends before it starts.
    #[error(
        "`start_line` ({start}) is after `end_line` ({end}); give `start_line` ≤ `end_line`, e.g. `start_line: {end}, end_line: {start}`"
    )]
    Reversed {
        /// The first line asked for.
        start: usize,
        /// The last line asked for.
        end: usize,
    },
}

impl LineSelection {
    /// The selection `read_note`'s optional arguments describe.
    pub(crate) fn from_arguments(
        start_line: Option<usize>,
        end_line: Option<usize>,
        head: Option<usize>,
        tail: Option<usize>,
    ) -> Result<LineSelection, SelectionError> {
        let ranged = start_line.is_some() || end_line.is_some();
        let given = match (head.is_some(), tail.is_some(), ranged) {
            (true, true, _) => Some("`head` and `tail`"),
            (true, false, true) => Some("`head` and a line range"),
            (false, true, true) => Some("`tail` and a line range"),
            _ => None,
        };
        if let Some(given) = given {
            return Err(SelectionError::Conflicting { given });
        }
        for (argument, value) in [
            ("start_line", start_line),
            ("end_line", end_line),
            ("head", head),
            ("tail", tail),
        ] {
            if value == Some(0) {
                return Err(SelectionError::Zero { argument });
            }
        }
        Ok(match (head, tail, start_line, end_line) {
            (Some(count), ..) => LineSelection::Head(count),
            (_, Some(count), ..) => LineSelection::Tail(count),
            (_, _, None, None) => LineSelection::Whole,
            (_, _, start, end) => {
                let start = start.unwrap_or(1);
                if let Some(end) = end.filter(|&end| end < start) {
                    return Err(SelectionError::Reversed { start, end });
                }
                LineSelection::Range { start, end }
            }
        })
    }
}

/// The most lines one read of a note returns.
pub const MAX_READ_LINES: usize = 2_000;

/// The most bytes of content one read of a note returns (256 KiB).
pub const MAX_READ_BYTES: usize = 256 * 1024;

/// How much one read returns at most.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ExcerptLimits {
    /// Lines per read.
    pub max_lines: usize,
    /// Bytes of content per read (whole lines; a single longer line is cut
    /// at a character boundary). Taken as at least 4, so that a cut line
    /// always returns a character.
    pub max_bytes: usize,
}

impl Default for ExcerptLimits {
    /// [`MAX_READ_LINES`] and [`MAX_READ_BYTES`].
    fn default() -> Self {
        ExcerptLimits {
            max_lines: MAX_READ_LINES,
            max_bytes: MAX_READ_BYTES,
        }
    }
}

/// The lines of a note a read returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Excerpt<'a> {
    /// The lines' bytes as in the note, line endings included (the last
    /// line's only if the note has one).
    pub content: &'a str,
    /// How many lines the note has.
    pub total_lines: usize,
    /// How many lines `content` holds (a cut line counts).
    pub lines_returned: usize,
    /// The first line returned, from 1.
    pub start_line: usize,
    /// The last line returned (`start_line - 1` when none is).
    pub end_line: usize,
    /// Set when the range asked for goes past the note's end.
    pub clamped: Option<Clamped>,
    /// Set when the read stopped at a limit before the lines asked for.
    pub truncated: Option<Truncated>,
}

/// A range that went past the end of the note.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Clamped {
    /// The last line asked for (`None`: the first line asked for was
    /// already past the end).
    pub asked_end: Option<usize>,
    /// The first line asked for.
    pub asked_start: usize,
    /// How many lines the note has.
    pub total_lines: usize,
}

impl fmt::Display for Clamped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let total = self.total_lines;
        match self.asked_end {
            Some(end) => write!(
                f,
                "the note has {total} lines; the range ends at line {total}, not {end}"
            ),
            None => write!(
                f,
                "the note has {total} lines; start_line {} is past its end (nothing returned)",
                self.asked_start
            ),
        }
    }
}

/// A read that stopped at a limit: what was left, and how to read on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Truncated {
    /// The limit that stopped it.
    pub limit: Limit,
    /// Where to start the next read (the first line not returned, or the
    /// cut line itself when a single line was over the byte limit).
    pub next_start_line: usize,
    /// The last line that was asked for.
    pub asked_end: usize,
    /// Whether the last returned line was cut (it was longer than the byte
    /// limit on its own).
    pub line_cut: bool,
}

/// Which of [`ExcerptLimits`] stopped a read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Limit {
    /// [`ExcerptLimits::max_lines`].
    Lines(usize),
    /// [`ExcerptLimits::max_bytes`].
    Bytes(usize),
}

impl fmt::Display for Truncated {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.limit {
            Limit::Lines(lines) => write!(f, "capped at {lines} lines")?,
            Limit::Bytes(bytes) => write!(f, "capped at {bytes} bytes")?,
        }
        if self.line_cut {
            write!(
                f,
                "; line {} alone is longer and was cut",
                self.next_start_line
            )?;
            return Ok(());
        }
        write!(
            f,
            "; read on with start_line: {}, end_line: {}",
            self.next_start_line, self.asked_end
        )
    }
}

/// The byte offset where each line starts, and the text's length.
fn line_starts(text: &str) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|at| at + 1));
    // A final line ending does not start a line; nor does an empty text.
    if starts.last() == Some(&text.len()) {
        starts.pop();
    }
    starts
}

/// The lines of `text` that `selection` asks for, within `limits`.
pub(crate) fn select_lines(
    text: &str,
    selection: LineSelection,
    limits: ExcerptLimits,
) -> Excerpt<'_> {
    let starts = line_starts(text);
    let total = starts.len();
    let (first, asked_end, clamped) = match selection {
        LineSelection::Whole => (1, total, None),
        LineSelection::Head(count) => (1, count.min(total), None),
        LineSelection::Tail(count) => (total.saturating_sub(count) + 1, total, None),
        LineSelection::Range { start, end } => {
            let start = start.max(1);
            let clamped = match end {
                _ if start > total => Some(Clamped {
                    asked_end: None,
                    asked_start: start,
                    total_lines: total,
                }),
                Some(end) if end > total => Some(Clamped {
                    asked_end: Some(end),
                    asked_start: start,
                    total_lines: total,
                }),
                _ => None,
            };
            let end = end.unwrap_or(total).min(total);
            // Past the end: an empty range just after the last line.
            (
                start.min(total + 1),
                end.max(start.min(total + 1) - 1),
                clamped,
            )
        }
    };
    let byte_of = |line: usize| starts.get(line - 1).copied().unwrap_or(text.len());
    let mut end = asked_end;
    let mut limit = None;
    if end + 1 - first > limits.max_lines.max(1) {
        end = first + limits.max_lines.max(1) - 1;
        limit = Some(Limit::Lines(limits.max_lines.max(1)));
    }
    let from = byte_of(first);
    let mut to = byte_of(end + 1);
    let mut line_cut = false;
    let max_bytes = limits.max_bytes.max(4);
    if to - from > max_bytes {
        limit = Some(Limit::Bytes(max_bytes));
        // Whole lines that fit; else the first line, cut.
        let fitting = (first..=end)
            .rev()
            .find(|&line| byte_of(line + 1) - from <= max_bytes);
        match fitting {
            Some(line) => {
                end = line;
                to = byte_of(line + 1);
            }
            None => {
                end = first;
                to = quire_grammar::text::char_boundary(text, from + max_bytes);
                line_cut = true;
            }
        }
    }
    Excerpt {
        content: &text[from..to],
        total_lines: total,
        lines_returned: end + 1 - first,
        start_line: first,
        end_line: end,
        clamped,
        truncated: limit.map(|limit| Truncated {
            limit,
            next_start_line: if line_cut { first } else { end + 1 },
            asked_end,
            line_cut,
        }),
    }
}

#[cfg(test)]
#[path = "excerpt_tests.rs"]
mod tests;
