//! What `list_notes` returns: the notes of a folder, sorted by path, a page
//! at a time, and the folder's subfolders with their note counts, from the
//! index.

use std::collections::BTreeMap;

use super::index::KilnIndex;
use super::metadata::rfc3339;
use super::note_path::FolderPath;
use super::page::{CursorError, page};

/// The most notes one page holds.
pub const MAX_LIST_LIMIT: usize = 1_000;

/// The page of a folder's notes
/// [`KilnTools::list_notes`](crate::KilnTools::list_notes) returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListNotesRequest {
    /// The folder to list, relative to the kiln root (the root when `None`).
    pub folder: Option<String>,
    /// Whether notes in subfolders are listed too.
    pub recursive: bool,
    /// Whether each note's frontmatter properties are included.
    pub include_frontmatter: bool,
    /// The most notes per page (1 to [`MAX_LIST_LIMIT`]).
    pub limit: usize,
    /// The `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

impl ListNotesRequest {
    /// The most notes per page when the caller names no limit.
    pub const DEFAULT_LIMIT: usize = 200;
}

impl Default for ListNotesRequest {
    /// The first page of the whole kiln, subfolders included, without
    /// frontmatter, [`ListNotesRequest::DEFAULT_LIMIT`] notes long.
    fn default() -> Self {
        ListNotesRequest {
            folder: None,
            recursive: true,
            include_frontmatter: false,
            limit: Self::DEFAULT_LIMIT,
            cursor: None,
        }
    }
}

/// One page of a listing.
#[derive(Clone, Debug, PartialEq)]
pub struct NoteList {
    /// The notes of this page, sorted by path.
    pub notes: Vec<ListedNote>,
    /// Pass it as `cursor` for the next page; `None` on the last page.
    pub next_cursor: Option<String>,
    /// How many notes the folder holds in all (every page).
    pub total: usize,
    /// The folder's immediate subfolders that hold notes, sorted by path,
    /// each with the count of notes beneath it (on the first page only: a
    /// page asked for by `cursor` repeats none of them).
    pub folders: Vec<ListedFolder>,
}

/// A subfolder in a listing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ListedFolder {
    /// The folder's path relative to the kiln root (NFC, no trailing `/`).
    pub path: String,
    /// How many notes it holds, in it and in every folder beneath it.
    pub notes: usize,
}

/// One listed note.
#[derive(Clone, Debug, PartialEq)]
pub struct ListedNote {
    /// The note's path (NFC, with `.md`).
    pub path: String,
    /// Words, as Obsidian counts them.
    pub word_count: usize,
    /// The file's size in bytes.
    pub size: u64,
    /// The file's last modification, RFC 3339 in UTC.
    pub modified: String,
    /// The frontmatter's properties, with `include_frontmatter`.
    pub frontmatter: Option<serde_json::Map<String, serde_json::Value>>,
}

/// Why a listing's arguments do not make one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ListError {
    /// A limit of 0 or over [`MAX_LIST_LIMIT`].
    #[error("`limit` is {0}; give 1 to {MAX_LIST_LIMIT}, and page with `cursor` for more")]
    Limit(usize),
    /// A cursor `list_notes` did not return.
    #[error(transparent)]
    Cursor(#[from] CursorError),
}

/// The page of `folder`'s notes that `request` asks for.
pub(crate) fn list_notes(
    index: &KilnIndex,
    folder: &FolderPath,
    request: &ListNotesRequest,
) -> Result<NoteList, ListError> {
    if request.limit == 0 || request.limit > MAX_LIST_LIMIT {
        return Err(ListError::Limit(request.limit));
    }
    let mut notes = Vec::new();
    let mut folders: BTreeMap<&str, usize> = BTreeMap::new();
    for note in index.notes().filter(|note| folder.contains(&note.path)) {
        if folder.contains_directly(&note.path) {
            notes.push(note);
            continue;
        }
        if request.recursive {
            notes.push(note);
        }
        if request.cursor.is_none() {
            *folders
                .entry(subfolder(folder, note.path.as_str()))
                .or_default() += 1;
        }
    }
    let page = page(
        &notes,
        |note| note.path.as_str(),
        request.cursor.as_deref(),
        request.limit,
    )?;
    Ok(NoteList {
        notes: page
            .items
            .iter()
            .map(|note| ListedNote {
                path: note.path.to_string(),
                word_count: note.facts.word_count,
                size: note.stat.size,
                modified: rfc3339(note.stat.mtime_seconds()),
                frontmatter: request.include_frontmatter.then(|| note.properties()),
            })
            .collect(),
        next_cursor: page.next_cursor,
        total: notes.len(),
        folders: folders
            .into_iter()
            .map(|(path, notes)| ListedFolder {
                path: path.to_owned(),
                notes,
            })
            .collect(),
    })
}

/// The immediate subfolder of `folder` that `note` (beneath it, not in it)
/// lies in: `a/b` for `a/b/c/d.md` in `a`.
fn subfolder<'a>(folder: &FolderPath, note: &'a str) -> &'a str {
    let skip = if folder.is_root() {
        0
    } else {
        folder.as_str().len() + 1
    };
    let end = note[skip..]
        .find('/')
        .map_or(note.len(), |slash| skip + slash);
    &note[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subfolder_is_the_next_name_below_the_folder() {
        let root = FolderPath::root();
        assert_eq!(subfolder(&root, "a/b/c.md"), "a");
        let folder = FolderPath::parse_relative("a").unwrap();
        assert_eq!(subfolder(&folder, "a/b/c/d.md"), "a/b");
        assert_eq!(subfolder(&folder, "a/b/d.md"), "a/b");
    }
}
