//! Text primitives every grammar shares: the winnow input type, lines with
//! their byte offsets, the line and column of an offset, and character
//! boundaries.
//!
//! Public here: [`char_boundary`], for a caller that cuts a text at a byte
//! offset (an excerpt, a limit) and must not cut a character in two. The
//! line index is public as [`crate::diagnostics::LineIndex`], beside the
//! diagnostics that take it; the rest is the grammars' own.
//!
//! A leaf: it depends on nothing in the crate but [`crate::span`], so a
//! grammar's modules can all use it without using each other.
//!
//! Hand-written because the rules are the grammars' own and no crate keeps
//! them all: a line ends at `\n`, the carriage returns right before it (or
//! before the end of the text) belong to the line ending while a carriage
//! return anywhere else is content; every line keeps the byte offsets of the
//! original text (CRLF and all) so spans index it unchanged; columns count
//! characters from 1, and an offset past the end or inside a character is
//! clamped, not a panic. `str::lines` loses the offsets and strips a single
//! `\r`; rust-analyzer's `line-index` is 0-based, keeps the `\r` in the
//! line and refuses (or panics on) an offset inside a character or past the
//! end. What is left is a few memchr scans, smaller than an adapter.

mod boundary;
pub(crate) mod index;
mod input;
mod lines;

pub use boundary::char_boundary;
pub(crate) use index::line_number;
pub(crate) use input::{Input, RuleResult, line_input};
#[cfg(test)]
pub(crate) use lines::split_lines;
pub(crate) use lines::{Line, content_end, is_blank, line_start, next_line_start};

// frontmatter.ebnf: blank
/// A space or a tab: a blank of YAML and of the frontmatter grammar (plan's
/// `ws` is any Unicode whitespace instead).
#[cfg(feature = "frontmatter")]
pub(crate) fn is_space_or_tab(c: char) -> bool {
    c == ' ' || c == '\t'
}

#[cfg(all(test, feature = "frontmatter"))]
mod tests {
    use super::*;

    #[test]
    fn blanks_are_spaces_and_tabs_only() {
        assert!(is_space_or_tab(' ') && is_space_or_tab('\t'));
        for other in ['\r', '\n', '\u{a0}', '\u{2003}', 'x'] {
            assert!(!is_space_or_tab(other), "{other:?}");
        }
    }
}
