//! What the kiln's read tools return, as a client receives it:
//! `read_note`, `read_metadata`, `list_notes` and `get_kiln_info`.

use quire_kiln as kiln;
use schemars::JsonSchema;
use serde::Serialize;

use super::search::SemanticTierState;

/// What `read_note` returns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub(in crate::mcp) struct NoteRead {
    /// The note's path, normalized (NFC, with `.md`).
    path: String,
    /// The lines returned, as in the file (line endings included).
    content: String,
    /// How many lines the note has.
    total_lines: usize,
    /// How many lines `content` holds.
    lines_returned: usize,
    /// The first line returned, from 1.
    start_line: usize,
    /// The last line returned (`start_line - 1` when none is).
    end_line: usize,
    /// The SHA-256 of the whole file, hex: give it to a write to refuse a
    /// lost update.
    sha256: String,
    /// Set when the range asked for went past the end: how it was clamped.
    #[serde(skip_serializing_if = "Option::is_none")]
    clamped: Option<String>,
    /// Set when the read stopped at a limit: where, and the range to read on.
    #[serde(skip_serializing_if = "Option::is_none")]
    truncated: Option<String>,
    /// With `truncated`: the `start_line` to read on from.
    #[serde(skip_serializing_if = "Option::is_none")]
    next_start_line: Option<usize>,
}

impl From<kiln::NoteRead> for NoteRead {
    fn from(read: kiln::NoteRead) -> Self {
        let kiln::NoteRead {
            path,
            content,
            total_lines,
            lines_returned,
            start_line,
            end_line,
            sha256,
            clamped,
            truncated,
            next_start_line,
        } = read;
        NoteRead {
            path,
            content,
            total_lines,
            lines_returned,
            start_line,
            end_line,
            sha256,
            clamped,
            truncated,
            next_start_line,
        }
    }
}

/// A note's metadata.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub(in crate::mcp) struct NoteMetadata {
    /// The note's path, normalized (NFC, with `.md`).
    path: String,
    /// The frontmatter's properties (empty without frontmatter, or when it
    /// is broken: see `problems`).
    frontmatter: serde_json::Map<String, serde_json::Value>,
    /// Counts of what the note holds.
    stats: NoteStats,
    /// The headings in order.
    headings: Vec<HeadingSummary>,
    /// The frontmatter's and the inline tags, without `#`, deduplicated.
    tags: Vec<String>,
    /// The frontmatter's aliases.
    aliases: Vec<String>,
    /// Where each wikilink, embed and Markdown link leads.
    links: Vec<LinkSummary>,
    /// The notes that link to this one, sorted.
    backlinks: Vec<String>,
    /// The file's size in bytes.
    size: u64,
    /// The file's last modification, RFC 3339 in UTC.
    modified: String,
    /// What is wrong with the note (broken frontmatter, not UTF-8); absent
    /// when nothing is.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    problems: Vec<String>,
}

impl From<kiln::NoteMetadata> for NoteMetadata {
    fn from(metadata: kiln::NoteMetadata) -> Self {
        let kiln::NoteMetadata {
            path,
            frontmatter,
            stats,
            headings,
            tags,
            aliases,
            links,
            backlinks,
            size,
            modified,
            problems,
        } = metadata;
        NoteMetadata {
            path,
            frontmatter,
            stats: stats.into(),
            headings: headings.into_iter().map(Into::into).collect(),
            tags,
            aliases,
            links: links.into_iter().map(Into::into).collect(),
            backlinks,
            size,
            modified,
            problems,
        }
    }
}

/// Counts of what a note holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub(in crate::mcp) struct NoteStats {
    /// Words, as Obsidian counts them (frontmatter excluded).
    word_count: usize,
    /// Lines.
    line_count: usize,
    /// Headings.
    heading_count: usize,
    /// Wikilinks (embeds not counted).
    wikilink_count: usize,
    /// Embeds (`![[...]]`).
    embed_count: usize,
    /// Distinct tags.
    tag_count: usize,
    /// Tasks (`- [ ]`, `- [x]`).
    task_count: usize,
    /// Notes that link here.
    backlink_count: usize,
}

impl From<kiln::NoteStats> for NoteStats {
    fn from(stats: kiln::NoteStats) -> Self {
        let kiln::NoteStats {
            word_count,
            line_count,
            heading_count,
            wikilink_count,
            embed_count,
            tag_count,
            task_count,
            backlink_count,
        } = stats;
        NoteStats {
            word_count,
            line_count,
            heading_count,
            wikilink_count,
            embed_count,
            tag_count,
            task_count,
            backlink_count,
        }
    }
}

/// One heading.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub(in crate::mcp) struct HeadingSummary {
    /// 1 to 6.
    level: u8,
    /// The heading's text.
    text: String,
    /// Its line, from 1.
    line: usize,
}

impl From<kiln::HeadingSummary> for HeadingSummary {
    fn from(heading: kiln::HeadingSummary) -> Self {
        let kiln::HeadingSummary { level, text, line } = heading;
        HeadingSummary { level, text, line }
    }
}

/// One link and where it leads.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub(in crate::mcp) struct LinkSummary {
    /// The target as written (without heading, block or alias).
    target: String,
    /// The note it leads to, or the attachment (an image, a PDF, ...: a
    /// path without `.md`) when it names one that exists; `null` when
    /// nothing matches.
    path: Option<String>,
    /// Whether several notes match (`path` is the one Obsidian picks).
    ambiguous: bool,
}

impl From<kiln::LinkSummary> for LinkSummary {
    fn from(link: kiln::LinkSummary) -> Self {
        let kiln::LinkSummary {
            target,
            path,
            ambiguous,
        } = link;
        LinkSummary {
            target,
            path,
            ambiguous,
        }
    }
}

/// One page of a listing.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub(in crate::mcp) struct NoteList {
    /// The notes of this page, sorted by path.
    notes: Vec<ListedNote>,
    /// Pass it as `cursor` for the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    next_cursor: Option<String>,
    /// How many notes the folder holds in all (every page).
    total: usize,
    /// The folder's immediate subfolders that hold notes, each with the
    /// count of notes beneath it: list one by passing its `path` as
    /// `folder`. On the first page only.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    folders: Vec<ListedFolder>,
}

impl NoteList {
    /// The kiln's page, each note's counts and dates kept when asked for.
    pub(in crate::mcp) fn of(list: kiln::NoteList, include_details: bool) -> Self {
        let kiln::NoteList {
            notes,
            next_cursor,
            total,
            folders,
        } = list;
        NoteList {
            notes: notes
                .into_iter()
                .map(|note| ListedNote::of(note, include_details))
                .collect(),
            next_cursor,
            total,
            folders: folders
                .into_iter()
                .map(|folder| ListedFolder {
                    path: folder.path,
                    notes: folder.notes,
                })
                .collect(),
        }
    }
}

/// A subfolder in a listing.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub(in crate::mcp) struct ListedFolder {
    /// The folder's path relative to the kiln root.
    path: String,
    /// How many notes it holds, subfolders included.
    notes: usize,
}

/// One listed note.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub(in crate::mcp) struct ListedNote {
    /// The note's path (NFC, with `.md`).
    path: String,
    /// Words, as Obsidian counts them, with `include_details`.
    #[serde(skip_serializing_if = "Option::is_none")]
    word_count: Option<usize>,
    /// The file's size in bytes, with `include_details`.
    #[serde(skip_serializing_if = "Option::is_none")]
    size: Option<u64>,
    /// The file's last modification, RFC 3339 in UTC, with `include_details`.
    #[serde(skip_serializing_if = "Option::is_none")]
    modified: Option<String>,
    /// The frontmatter's properties, with `include_frontmatter`.
    #[serde(skip_serializing_if = "Option::is_none")]
    frontmatter: Option<serde_json::Map<String, serde_json::Value>>,
}

impl ListedNote {
    fn of(note: kiln::ListedNote, include_details: bool) -> Self {
        let kiln::ListedNote {
            path,
            word_count,
            size,
            modified,
            frontmatter,
        } = note;
        ListedNote {
            path,
            word_count: include_details.then_some(word_count),
            size: include_details.then_some(size),
            modified: include_details.then_some(modified),
            frontmatter,
        }
    }
}

/// The kiln's root and totals.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub(in crate::mcp) struct KilnInfo {
    /// The URI of the root; each note is the MCP resource `kiln:///<path>`.
    root_uri: String,
    /// `ready`; `building` while the index is first built (the totals are
    /// then 0; call again shortly); `failed` when the root could not be
    /// read.
    state: &'static str,
    /// How many notes the kiln holds.
    note_count: usize,
    /// Their total size in bytes.
    total_size: u64,
    /// Their total word count, as Obsidian counts words.
    total_words: u64,
    /// How the index stands (with `detailed`).
    #[serde(skip_serializing_if = "Option::is_none")]
    index: Option<IndexDetails>,
    /// How the semantic index of `semantic_search` stands (with
    /// `detailed`).
    #[serde(skip_serializing_if = "Option::is_none")]
    semantic: Option<SemanticDetails>,
}

impl From<kiln::KilnInfo> for KilnInfo {
    fn from(info: kiln::KilnInfo) -> Self {
        let kiln::KilnInfo {
            root_uri,
            state,
            note_count,
            total_size,
            total_words,
            index,
            semantic,
        } = info;
        KilnInfo {
            root_uri,
            state,
            note_count,
            total_size,
            total_words,
            index: index.map(Into::into),
            semantic: semantic.map(Into::into),
        }
    }
}

/// How the index stands.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub(in crate::mcp) struct IndexDetails {
    /// Notes read so far (while building) or indexed.
    notes_indexed: usize,
    /// Notes indexed with problems (broken frontmatter, not UTF-8, too
    /// large, unreadable); `read_metadata` lists each one's.
    notes_with_problems: usize,
    /// Entries the walk passed over (links out of the root, special files,
    /// unreadable folders, names that are not note paths).
    skipped: usize,
    /// Links that lead to no note and no attachment (a link to an image
    /// or a PDF that exists is not broken).
    broken_links: usize,
    /// Links that several notes match.
    ambiguous_links: usize,
    /// How long the first build took (so far, while building), in
    /// milliseconds.
    build_ms: u64,
    /// When the root was last scanned whole (RFC 3339, UTC).
    #[serde(skip_serializing_if = "Option::is_none")]
    last_scan: Option<String>,
    /// When changes seen on disk were last applied (RFC 3339, UTC).
    #[serde(skip_serializing_if = "Option::is_none")]
    last_update: Option<String>,
    /// `watching` (changes on disk are seen at once), `unavailable` (the
    /// root is rescanned every 2 s instead) or `not started`.
    watcher: &'static str,
    /// Why the watcher is unavailable, or the last error it reported.
    #[serde(skip_serializing_if = "Option::is_none")]
    watcher_detail: Option<String>,
    /// Why the index failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

impl From<kiln::IndexDetails> for IndexDetails {
    fn from(details: kiln::IndexDetails) -> Self {
        let kiln::IndexDetails {
            notes_indexed,
            notes_with_problems,
            skipped,
            broken_links,
            ambiguous_links,
            build_ms,
            last_scan,
            last_update,
            watcher,
            watcher_detail,
            error,
        } = details;
        IndexDetails {
            notes_indexed,
            notes_with_problems,
            skipped,
            broken_links,
            ambiguous_links,
            build_ms,
            last_scan,
            last_update,
            watcher,
            watcher_detail,
            error,
        }
    }
}

/// How the semantic index stands: embedded in the background when the
/// server starts and whenever notes change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub(in crate::mcp) struct SemanticDetails {
    /// `unavailable` (no embedder: `problem` says how to install one),
    /// `loading`, `indexing`, `ready` or `failed`.
    state: &'static str,
    /// The embedder's id (its name while it loads); absent without one.
    #[serde(skip_serializing_if = "Option::is_none")]
    embedder: Option<String>,
    /// Chunks (note sections) embedded.
    chunks_embedded: usize,
    /// Chunks there are: embedded and waiting.
    chunks_total: usize,
    /// Notes waiting to be embedded.
    notes_pending: usize,
    /// Whether every note is embedded as it is now.
    ready: bool,
    /// Why there is no semantic index, or the last problem met.
    #[serde(skip_serializing_if = "Option::is_none")]
    problem: Option<String>,
    /// With several tiers (embedders, best first; the fields above are the
    /// best one's), how each stands; absent with one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tiers: Vec<SemanticTierState>,
}

impl From<kiln::SemanticDetails> for SemanticDetails {
    fn from(details: kiln::SemanticDetails) -> Self {
        let kiln::SemanticDetails {
            state,
            embedder,
            chunks_embedded,
            chunks_total,
            notes_pending,
            ready,
            problem,
            tiers,
        } = details;
        SemanticDetails {
            state,
            embedder,
            chunks_embedded,
            chunks_total,
            notes_pending,
            ready,
            problem,
            tiers: tiers.into_iter().map(Into::into).collect(),
        }
    }
}
