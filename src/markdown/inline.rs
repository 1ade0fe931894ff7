//! Inline `#tags` and line-ending `^block-ids` in one run of text.

use super::counts::LineIndex;
use super::facts::{BlockId, Tag};
use crate::span::Span;

/// Whether the byte before `offset` lets a `#tag` or `^id` start there: the
/// start of the text or a space, tab or line ending (so `a#b` and the
/// `/#part` of a URL are not tags).
fn starts_token(text: &str, offset: usize) -> bool {
    text[..offset]
        .bytes()
        .next_back()
        .is_none_or(|byte| matches!(byte, b' ' | b'\t' | b'\n' | b'\r'))
}

// markdown.ebnf: tag-char
/// Obsidian's tag characters: anything but white space, the ASCII
/// punctuation other than `_`, `-` and `/`, and the General and
/// Supplemental Punctuation blocks, so emoji and other symbols are tag
/// characters (`#tag🎉`, `#🏷️`) and `’` or `…` end a tag.
pub(super) fn is_tag_char(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '/');
    }
    !c.is_whitespace() && !matches!(c, '\u{2000}'..='\u{206F}' | '\u{2E00}'..='\u{2E7F}')
}

/// The tags written in `run` of `text`.
// markdown.ebnf: tag, tag-name
pub(super) fn tags_in(text: &str, run: std::ops::Range<usize>, lines: &LineIndex) -> Vec<Tag> {
    let mut tags = Vec::new();
    let mut at = run.start;
    while let Some(found) = text[at..run.end].find('#') {
        let hash = at + found;
        let name_start = hash + 1;
        let name_len: usize = text[name_start..run.end]
            .chars()
            .take_while(|&c| is_tag_char(c))
            .map(char::len_utf8)
            .sum();
        let name = &text[name_start..name_start + name_len];
        // markdown.ebnf: digit (a name of digits only is a number)
        if starts_token(text, hash) && name.chars().any(|c| !c.is_ascii_digit()) {
            tags.push(Tag {
                name: name.to_owned(),
                span: Span::new(hash, name_start + name_len),
                line: lines.line(hash),
            });
        }
        at = name_start + name_len;
    }
    tags
}

// markdown.ebnf: id-char
fn is_id_char(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'-'
}

/// The block id that ends `run` of `text`, when nothing but spaces follows
/// it on its line.
// markdown.ebnf: block-id
pub(super) fn block_id_at_end(
    text: &str,
    run: std::ops::Range<usize>,
    lines: &LineIndex,
) -> Option<BlockId> {
    let rest_of_line = text[run.end..].split('\n').next().unwrap_or("");
    if !rest_of_line.trim().is_empty() {
        return None;
    }
    let trimmed = text[run.clone()].trim_end();
    let id_len = trimmed
        .bytes()
        .rev()
        .take_while(|&byte| is_id_char(byte))
        .count();
    let caret = run.start + trimmed.len().checked_sub(id_len + 1)?;
    if id_len == 0 || text.as_bytes()[caret] != b'^' || !starts_token(text, caret) {
        return None;
    }
    let end = caret + 1 + id_len;
    Some(BlockId {
        id: text[caret + 1..end].to_owned(),
        span: Span::new(caret, end),
        line: lines.line(caret),
    })
}
