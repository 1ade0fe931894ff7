//! What the kiln's write tools return once a write is done, as a client
//! receives it: `create_note`, `update_note` and `delete_note`.

use quire_kiln as kiln;
use schemars::JsonSchema;
use serde::Serialize;

/// What `create_note` returns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub(in crate::mcp) struct NoteCreated {
    /// The note's path (NFC, with `.md`).
    path: String,
    /// Its words, as Obsidian counts them.
    word_count: usize,
    /// The SHA-256 of the file written (for a later `update_note`).
    sha256: String,
}

impl From<kiln::NoteCreated> for NoteCreated {
    fn from(created: kiln::NoteCreated) -> Self {
        let kiln::NoteCreated {
            path,
            word_count,
            sha256,
        } = created;
        NoteCreated {
            path,
            word_count,
            sha256,
        }
    }
}

/// What `update_note` returns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub(in crate::mcp) struct NoteUpdated {
    /// The note's path (NFC, with `.md`).
    path: String,
    /// What was replaced: `content`, `frontmatter`, or both.
    updated: Vec<&'static str>,
    /// Its words now, as Obsidian counts them.
    word_count: usize,
    /// The SHA-256 of the file now.
    sha256: String,
    /// The properties a `frontmatter` replace removed (absent when none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    removed_properties: Vec<String>,
    /// The properties it gave another value (absent when none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    changed_properties: Vec<String>,
}

impl From<kiln::NoteUpdated> for NoteUpdated {
    fn from(updated: kiln::NoteUpdated) -> Self {
        let kiln::NoteUpdated {
            path,
            updated,
            word_count,
            sha256,
            removed_properties,
            changed_properties,
        } = updated;
        NoteUpdated {
            path,
            updated,
            word_count,
            sha256,
            removed_properties,
            changed_properties,
        }
    }
}

/// What `delete_note` returns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub(in crate::mcp) struct NoteDeleted {
    /// The note's path (NFC, with `.md`).
    path: String,
    /// Whether it was deleted.
    deleted: bool,
    /// Where it was moved (`.trash/...`); null when removed for good.
    trashed_to: Option<String>,
    /// How many notes linked to it.
    backlink_count: usize,
    /// The notes that linked to it (their links now lead nowhere).
    backlinks: Vec<String>,
    /// Notes with a link that matched it among several notes (Obsidian
    /// picked it; the link now leads to another of them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    ambiguous_backlinks: Vec<String>,
}

impl From<kiln::NoteDeleted> for NoteDeleted {
    fn from(deleted: kiln::NoteDeleted) -> Self {
        let kiln::NoteDeleted {
            path,
            deleted,
            trashed_to,
            backlink_count,
            backlinks,
            ambiguous_backlinks,
        } = deleted;
        NoteDeleted {
            path,
            deleted,
            trashed_to,
            backlink_count,
            backlinks,
            ambiguous_backlinks,
        }
    }
}

/// A note whose links `move_note` rewrote.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub(in crate::mcp) struct RelinkedNote {
    /// The note's path (the moved note by its new path).
    path: String,
    /// How many of its links were rewritten.
    links: usize,
    /// The lines they are on (1-based).
    lines: Vec<usize>,
}

/// What `move_note` returns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub(in crate::mcp) struct NoteMoved {
    /// Where the note was (NFC, with `.md`).
    path: String,
    /// Where it is now.
    new_path: String,
    /// Always true: the note was moved.
    moved: bool,
    /// The SHA-256 of the moved note's file now (for a later update_note).
    sha256: String,
    /// How many links were rewritten, in all notes.
    links_changed: usize,
    /// The notes whose links were rewritten to keep leading where they
    /// led, in path order.
    relinked: Vec<RelinkedNote>,
}

impl From<kiln::NoteMoved> for NoteMoved {
    fn from(moved: kiln::NoteMoved) -> Self {
        let kiln::NoteMoved {
            path,
            new_path,
            sha256,
            relinked,
            links_changed,
        } = moved;
        NoteMoved {
            path,
            new_path,
            moved: true,
            sha256,
            links_changed,
            relinked: relinked
                .into_iter()
                .map(|note| RelinkedNote {
                    path: note.path,
                    links: note.links,
                    lines: note.lines,
                })
                .collect(),
        }
    }
}
