//! Short calls of the kiln's tools for the integration tests.

use quire_kiln::{KilnTools, ListNotesRequest, ReadNoteRequest};

/// The path of every note of the kiln, sorted (the first 1,000).
pub(crate) fn listed(tools: &KilnTools) -> Vec<String> {
    let request = ListNotesRequest {
        folder: None,
        recursive: true,
        include_frontmatter: false,
        limit: 1_000,
        cursor: None,
    };
    let list = tools.list_notes(&request).unwrap();
    list.notes.into_iter().map(|note| note.path).collect()
}

/// `read_note` of the whole note at `path`.
pub(crate) fn read_whole(path: &str) -> ReadNoteRequest {
    ReadNoteRequest {
        path: path.to_owned(),
        start_line: None,
        end_line: None,
        head: None,
        tail: None,
    }
}
