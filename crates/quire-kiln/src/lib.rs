//! The kiln: an Obsidian-style vault of markdown notes beneath a root
//! folder. This part is its pure path and link logic, with no file access:
//!
//! - [`NotePath`] and [`FolderPath`]: a tool's path argument, validated and
//!   normalized (or refused with a [`PathError`] saying what to write);
//! - [`is_hidden`]: the names listing and search skip;
//! - [`NoteSet`] and [`resolve`]: which note a link names, as Obsidian
//!   decides it;
//! - [`suggest`]: the closest notes to a path that names none;
//! - [`select_lines`]: the lines of a note a read returns;
//! - [`compose_new`] and [`compose_update`]: the text of a note a write
//!   leaves;
//! - [`page`]: a page of a listing and the cursor of the next;
//! - [`KilnReader`] (with the `fs` feature): reading notes through the
//!   confined file layer;
//! - [`KilnIndex`] (with the `fs` feature): every note's facts, links and
//!   backlinks, read once;
//! - [`LiveIndex`] (with the `fs` feature): that index built in the
//!   background and kept fresh by a file watcher;
//! - [`search_text`] (with the `fs` feature): the lines of the notes that
//!   match a query, with ripgrep's engine, read from the files as they are;
//! - [`property_search`] (with the `fs` feature): the notes whose
//!   properties hold the values asked for;
//! - [`SemanticIndex`] (with the `fs` feature): notes chunked by heading,
//!   their vectors searched by cosine similarity, alone or fused with BM25
//!   ([`hybrid_search`]), persisted in `.quire/`.

mod compose;
mod error;
mod excerpt;
mod index;
mod info;
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
mod resolve;
mod resources;
mod search;
mod semantic;
mod semantic_search;
mod suggest;
mod tools;
mod watch;
mod write;

pub use compose::{ComposeError, compose_new, compose_update};
pub use error::{MAX_SHOWN_CHARS, PathError};
pub use excerpt::{
    Clamped, Excerpt, ExcerptLimits, Limit, LineSelection, MAX_READ_BYTES, MAX_READ_LINES,
    SelectionError, Truncated, select_lines,
};
pub use index::{IndexedNote, KilnIndex, LinkTarget};
pub use info::{IndexDetails, KilnInfo, KilnInfoRequest, ROOT_URI, SemanticDetails, kiln_info};
pub use listing::{ListError, ListNotesRequest, ListedNote, MAX_LIST_LIMIT, NoteList, list_notes};
pub use live::{Freshness, IndexView, LiveIndex, POLL_INTERVAL, WatcherStatus};
pub use metadata::{
    HeadingSummary, LinkSummary, NoteMetadata, NoteStats, ReadMetadataRequest, metadata,
};
pub use note_path::{FolderPath, MAX_PATH_BYTES, MAX_SEGMENT_BYTES, NotePath, is_hidden};
pub use note_set::NoteSet;
pub use page::{CursorError, Page, page};
pub use preview::{PlannedChange, WritePreview};
pub use properties::{
    MAX_PROPERTY_KEYS, MAX_PROPERTY_LIMIT, MAX_WANTED_VALUES, MatchedNote, PropertyQuery,
    PropertySearch, PropertySearchError, PropertySearchRequest, property_search,
};
pub use read::{KilnError, KilnReader, MAX_NOTE_BYTES, NoteRead, ReadNoteRequest};
pub use resolve::{MAX_CANDIDATES, Resolution, resolve};
pub use resources::{
    NoteResource, NoteText, RESOURCE_PAGE, ResourcePage, UriError, note_path_of_uri, note_uri,
};
pub use search::{
    CaseMode, MAX_CONTEXT_LINES, MAX_LINE_CHARS, MAX_QUERY_CHARS, MAX_SEARCH_LIMIT,
    MAX_SKIPPED_SHOWN, SearchError, SearchMatch, SkippedNote, TextSearch, TextSearchRequest,
    TruncatedReason, search_text,
};
pub use semantic::{
    BM25_WEIGHT, Bm25Index, Chunk, ChunkOptions, ContentSha, DEFAULT_MAX_CHUNK_CHARS, EMBED_BATCH,
    EmbedderSource, Hit, HybridParams, INDEX_FOLDER, LiveSemantic, LoadEmbedder, MAX_INDEX_BYTES,
    MIN_QUERY_COVERAGE, PlannedNote, RRF_K, RefreshPlan, RefreshReport, SAVE_EVERY, SNIPPET_CHARS,
    SemanticError, SemanticIndex, SemanticProgress, SemanticUnavailable, SemanticView, TICK,
    apply_plan, chunk_note, content_sha, embed_chunks, fuse_rrf, fuse_weighted_rrf, hybrid_search,
    hybrid_search_with, index_file_name, index_note, note_title, plan_refresh, refresh,
};
pub use semantic_search::{
    MAX_SEMANTIC_LIMIT, MAX_SEMANTIC_QUERY_CHARS, SearchMode, SemanticIndexState, SemanticMatch,
    SemanticSearch, SemanticSearchError, SemanticSearchRequest, rank_notes,
};
pub use suggest::suggest;
pub use tools::{DEFAULT_TOOL_BUDGET, KilnOptions, KilnTools};
pub use write::{
    CreateNoteRequest, DeleteNoteRequest, NoteCreated, NoteDeleted, NoteUpdated, TRASH_FOLDER,
    UpdateNoteRequest, WriteDone, WriteRefusal, WriteRequest,
};

#[cfg(test)]
mod proptests;
