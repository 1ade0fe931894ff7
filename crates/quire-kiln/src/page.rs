//! Pages of a listing sorted by path, with an opaque cursor: `list_notes`
//! returns a page and the cursor of the next one; given back, the cursor
//! resumes after the last path returned, so notes created or deleted
//! between two calls neither repeat nor shift a page.
//!
//! The cursor is the last path returned, hex-encoded behind a version tag:
//! opaque to the caller (it is not a path to edit), checkable (anything
//! else is refused with what to do), and stateless on the server.

use thiserror::Error;

/// The version tag every cursor starts with.
const CURSOR_TAG: &str = "p1.";

/// Longest cursor accepted: the tag and a path of at most 4,096 bytes, with
/// room for what `find_links` adds to a path to make its keys (a line and
/// a place in the note).
const MAX_CURSOR_CHARS: usize = CURSOR_TAG.len() + 2 * (super::MAX_PATH_BYTES + 32);

/// A cursor that the listing did not return.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error(
    "`cursor` is not one this listing returned; pass the `next_cursor` of the previous page unchanged, or leave it out to start from the first page"
)]
pub struct CursorError;

/// One page of `items`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Page<'a, T> {
    /// The items of this page, in order.
    pub items: &'a [T],
    /// The cursor of the next page; `None` on the last.
    pub next_cursor: Option<String>,
}

/// The page of `items` (sorted by `path`, ascending) that starts after
/// `cursor` (from the first item when `None`), at most `limit` long (at
/// least 1).
pub(crate) fn page<'a, T>(
    items: &'a [T],
    path: impl Fn(&T) -> &str,
    cursor: Option<&str>,
    limit: usize,
) -> Result<Page<'a, T>, CursorError> {
    let start = match cursor {
        None => 0,
        Some(cursor) => {
            let after = decode(cursor)?;
            items.partition_point(|item| path(item) <= after.as_str())
        }
    };
    let end = start.saturating_add(limit.max(1)).min(items.len());
    let next_cursor = (end < items.len()).then(|| encode(path(&items[end - 1])));
    Ok(Page {
        items: &items[start..end],
        next_cursor,
    })
}

/// The cursor that resumes after `path`.
fn encode(path: &str) -> String {
    format!("{CURSOR_TAG}{}", hex(path.as_bytes()))
}

/// The path a cursor resumes after.
fn decode(cursor: &str) -> Result<String, CursorError> {
    if cursor.len() > MAX_CURSOR_CHARS {
        return Err(CursorError);
    }
    let hex = cursor.strip_prefix(CURSOR_TAG).ok_or(CursorError)?;
    let bytes = unhex(hex).ok_or(CursorError)?;
    String::from_utf8(bytes).map_err(|_| CursorError)
}

/// `bytes` as lowercase hex digits: how a cursor carries a path opaquely.
pub(crate) fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut text = String::with_capacity(2 * bytes.len());
    for byte in bytes {
        let _ = write!(text, "{byte:02x}");
    }
    text
}

/// The bytes `text` spells in hex digits, or `None` when it is not hex.
pub(crate) fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) || !text.bytes().all(|byte| byte.is_ascii_hexdigit()) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|at| u8::from_str_radix(&text[at..at + 2], 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn pages(paths: &[&str], limit: usize) -> Vec<Vec<String>> {
        let mut found = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let page = page(paths, |path| path, cursor.as_deref(), limit).unwrap();
            found.push(page.items.iter().map(|p| p.to_string()).collect());
            match page.next_cursor {
                Some(next) => cursor = Some(next),
                None => return found,
            }
        }
    }

    #[test]
    fn a_page_and_the_cursor_of_the_next() {
        let paths = ["a.md", "b.md", "c.md"];
        let first = page(&paths, |path| path, None, 2).unwrap();
        assert_eq!(first.items, ["a.md", "b.md"]);
        let second = page(&paths, |path| path, first.next_cursor.as_deref(), 2).unwrap();
        assert_eq!((second.items, second.next_cursor), (&["c.md"][..], None));
    }

    #[test]
    fn pages_cover_the_listing_once_and_the_last_has_no_cursor() {
        let paths = ["a.md", "b/c.md", "b/d.md", "é.md", "日本.md"];
        assert_eq!(
            pages(&paths, 2),
            [
                vec!["a.md", "b/c.md"],
                vec!["b/d.md", "é.md"],
                vec!["日本.md"]
            ]
        );
        assert_eq!(pages(&paths, 5), [paths.map(String::from).to_vec()]);
        assert_eq!(pages(&[], 3), [Vec::<String>::new()]);
        // A limit of 0 is taken as 1.
        assert_eq!(pages(&paths[..2], 0).len(), 2);
    }

    #[test]
    fn a_cursor_resumes_after_its_path_even_when_the_listing_changed() {
        let first = page(&["a.md", "b.md", "c.md"], |p| p, None, 1).unwrap();
        let cursor = first.next_cursor.unwrap();
        // `a.md` was deleted and `aa.md` created meanwhile.
        let next = page(&["aa.md", "b.md", "c.md"], |p| p, Some(&cursor), 1).unwrap();
        assert_eq!(next.items, ["aa.md"]);
    }

    #[test]
    fn a_cursor_not_returned_is_refused() {
        let huge = format!("p1.{}", "61".repeat(5_000));
        for cursor in [
            "",
            "a.md",
            "p1.6",
            "p1.zz",
            "p1.+6",
            "p2.61",
            "p1.ff",
            huge.as_str(),
        ] {
            assert_eq!(
                page(&["a.md"], |p| p, Some(cursor), 1),
                Err(CursorError),
                "{cursor:?}"
            );
        }
        assert!(CursorError.to_string().contains("leave it out"));
    }

    proptest! {
        #[test]
        fn any_path_survives_its_cursor(path in "\\PC{0,40}") {
            prop_assert_eq!(decode(&encode(&path)), Ok(path));
        }
    }
}
