//! The kiln: an Obsidian-style vault of markdown notes beneath a root
//! folder, and the operations the kiln tools of quire's MCP server run on
//! it, as typed Rust (the JSON arguments, schemas and tool names are
//! quire-cli's):
//!
//! - [`KilnTools`]: every operation over one workspace, each taking its
//!   request ([`ReadNoteRequest`], [`ListNotesRequest`],
//!   [`TextSearchRequest`], [`CreateNoteRequest`], ...) and giving its
//!   result or a [`KilnError`] that says what was wrong and what to do;
//!   writes can be previewed ([`WritePreview`]) and applied only to the
//!   note as it was previewed;
//! - [`NotePath`] and [`FolderPath`]: a path argument, validated and
//!   normalized (or refused with a [`PathError`] saying what to write);
//!   [`is_hidden`]: the names listing and search skip;
//! - [`KilnIndex`]: every note's facts, links (resolved as Obsidian
//!   resolves them) and backlinks, read once and kept fresh; asked about
//!   by [`KilnTools::find_links`] (broken and ambiguous links, orphans,
//!   a note's neighbours);
//! - [`search_text`]: the lines of the notes that match a query, with
//!   ripgrep's engine, read from the files as they are;
//! - [`note_uri`] and [`note_path_of_uri`]: the notes as resources
//!   (`kiln:///<path>`);
//! - [`SemanticIndex`]: notes chunked by heading ([`chunk_note`]), their
//!   vectors searched by cosine similarity, alone or fused with BM25
//!   ([`hybrid_search`]), brought up to date by [`refresh`] and persisted
//!   in `.quire/`.
//!
//! The limits a tool's description states are constants here
//! ([`MAX_LIST_LIMIT`], [`MAX_LINKS_LIMIT`], [`MAX_SEARCH_LIMIT`], [`MAX_READ_LINES`], ...), so
//! a description can quote them.

mod by_name;
mod compose;
mod edit;
mod error;
mod excerpt;
mod index;
mod info;
mod links;
mod listing;
mod live;
mod metadata;
mod note_path;
mod note_set;
mod on_disk;
mod page;
mod preview;
mod properties;
mod read;
mod relink;
mod resolve;
mod resources;
mod search;
mod semantic;
mod semantic_search;
mod suggest;
mod tools;
mod watch;
mod write;

// What a user of the crate calls: the tools and their requests, results
// and errors; the index, paths and resources they rest on; the semantic
// index that `quire index` builds; and the limits the tools' descriptions
// quote. The rest (line selection, link resolution, pages, the live
// indexes, tuning constants) is the crate's own.
pub use compose::ComposeError;
pub use edit::{BodyEdit, EditError, MAX_EDIT_TEXT_BYTES};
pub use error::PathError;
pub use excerpt::{MAX_READ_BYTES, MAX_READ_LINES, SelectionError};
pub use index::{IndexedNote, KilnIndex, LinkTarget};
pub use info::{IndexDetails, KilnInfo, KilnInfoRequest, ROOT_URI, SemanticDetails};
pub use links::{
    Direction, FindLinksError, FindLinksRequest, FoundLink, FoundLinks, LinkQuery, LinkedNote,
    MAX_LINKS_LIMIT, MAX_NEIGHBOUR_DEPTH,
};
pub use listing::{
    ListError, ListNotesRequest, ListedFolder, ListedNote, MAX_LIST_LIMIT, NoteList,
};
pub use live::POLL_INTERVAL;
pub use metadata::{HeadingSummary, LinkSummary, NoteMetadata, NoteStats, ReadMetadataRequest};
pub use note_path::{FolderPath, MAX_PATH_BYTES, MAX_SEGMENT_BYTES, NotePath, is_hidden};
pub use page::CursorError;
pub use preview::{FileIdentity, PlannedChange, WritePreview};
pub use properties::{
    MAX_PROPERTY_KEYS, MAX_PROPERTY_LIMIT, MAX_WANTED_VALUES, MatchedNote, PROPERTY_OPERATORS,
    PropertySearch, PropertySearchError, PropertySearchRequest,
};
pub use read::{KilnError, MAX_NOTE_BYTES, NoteRead, ReadNoteRequest};
pub use relink::{RelinkError, relinked_note};
pub use resources::{
    NoteResource, NoteText, RESOURCE_PAGE, ResourcePage, UriError, note_path_of_uri, note_uri,
};
pub use search::{
    CaseMode, MAX_CONTEXT_LINES, MAX_LINE_CHARS, MAX_QUERY_CHARS, MAX_SEARCH_LIMIT, SearchError,
    SearchMatch, SkippedNote, TextSearch, TextSearchRequest, TruncatedReason, search_text,
};
pub use semantic::{
    Bm25Index, Chunk, ChunkOptions, ContentSha, EmbedderSource, Hit, HybridParams, INDEX_FOLDER,
    LoadEmbedder, PlannedNote, RefreshPlan, RefreshReport, SAVE_EVERY, SemanticError,
    SemanticIndex, SemanticProgress, SemanticUnavailable, apply_plan, chunk_note, content_sha,
    hybrid_search, hybrid_search_with, index_file_name, note_title, plan_refresh, refresh,
};
pub use semantic_search::{
    MAX_SEMANTIC_LIMIT, MAX_SEMANTIC_QUERY_CHARS, SearchMode, SemanticIndexState, SemanticMatch,
    SemanticSearch, SemanticSearchError, SemanticSearchRequest, SemanticTierState,
};
pub use tools::{DEFAULT_TOOL_BUDGET, KilnOptions, KilnTools};
pub use write::{
    CreateNoteRequest, DeleteNoteRequest, MoveNoteRequest, NoteCreated, NoteDeleted, NoteMoved,
    NoteUpdated, RelinkedNote, TRASH_FOLDER, UpdateNoteRequest, WriteDone, WriteRefusal,
    WriteRequest,
};

#[cfg(test)]
mod proptests;
