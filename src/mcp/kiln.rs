//! The `kiln` toolset's router.

use rmcp::handler::server::common::{schema_for_output, schema_for_type};
use rmcp::handler::server::tool::ToolName;
use rmcp::model::JsonObject;
use rmcp::{tool, tool_router};

use super::result::{ToolFuture, run_tool};
use super::server::QuireServer;
use crate::kiln::{
    KilnTools, ListNotesRequest, NoteList, NoteMetadata, NoteRead, PropertySearch,
    PropertySearchRequest, ReadMetadataRequest, ReadNoteRequest,
};

#[tool_router(router = kiln_router, vis = "pub(super)")]
impl QuireServer {
    /// Read a note's lines.
    #[tool(
        name = "read_note",
        description = "Read a markdown note of the kiln: the whole note, the first `head` or last `tail` lines, or the \
                       inclusive 1-based range `start_line`..`end_line`. Example: {\"path\": \"projects/Plan\", \"head\": 20}. \
                       The path is relative to the kiln root, `/`-separated, `.md` optional. Returns the lines as written \
                       (`content`), `total_lines`, `lines_returned`, the actual `start_line`/`end_line` and the file's \
                       `sha256`. A range past the end is clamped (`clamped` says how); a read over 2,000 lines or 256 KiB \
                       stops there (`truncated` and `next_start_line` say how to read on). A missing note is \
                       FILE_NOT_FOUND with the closest paths.",
        input_schema = schema_for_type::<ReadNoteRequest>(),
        output_schema = schema_for_output::<NoteRead>(),
        annotations(
            title = "Read note (access)",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn read_note(&self, tool: ToolName, args: JsonObject) -> ToolFuture<'_> {
        run_tool(&self.kiln, tool, args, KilnTools::read_note)
    }

    /// A note's metadata, without its text.
    #[tool(
        name = "read_metadata",
        description = "A note's metadata without its text: `frontmatter` (the properties), `stats` (word, line, heading, \
                       wikilink, embed, tag, task and backlink counts), `headings` [{level, text, line}], `tags` (frontmatter \
                       and inline, without `#`), `aliases`, `links` [{target, path (resolved as Obsidian does, or null), \
                       ambiguous}], `backlinks` (notes linking here), `size` and `modified` (RFC 3339). Example: \
                       {\"path\": \"projects/Plan\"}. Answered from the kiln's index; the note's file is checked first, so an \
                       edit made meanwhile is seen. A note with broken frontmatter or that is not UTF-8 lists its `problems`.",
        input_schema = schema_for_type::<ReadMetadataRequest>(),
        output_schema = schema_for_output::<NoteMetadata>(),
        annotations(
            title = "Read note metadata (access)",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn read_metadata(&self, tool: ToolName, args: JsonObject) -> ToolFuture<'_> {
        run_tool(&self.kiln, tool, args, KilnTools::read_metadata)
    }

    /// A page of a folder's notes.
    #[tool(
        name = "list_notes",
        description = "List the notes of a folder of the kiln, sorted by path, a page at a time: `notes` [{path, word_count, \
                       size, modified (RFC 3339), frontmatter (with include_frontmatter)}], `total`, and `next_cursor` (absent on \
                       the last page; pass it back as `cursor`). Example: {\"folder\": \"projects\", \"limit\": 50}. `folder` is \
                       relative to the kiln root (the root when absent); `recursive` (default true) includes subfolders; \
                       `limit` is 1 to 1000 (default 200). Hidden folders (.obsidian, .git, .trash) are never listed.",
        input_schema = schema_for_type::<ListNotesRequest>(),
        output_schema = schema_for_output::<NoteList>(),
        annotations(
            title = "List notes (access)",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn list_notes(&self, tool: ToolName, args: JsonObject) -> ToolFuture<'_> {
        run_tool(&self.kiln, tool, args, KilnTools::list_notes)
    }

    /// The notes whose properties hold the values asked for.
    #[tool(
        name = "property_search",
        description = "Find the notes whose frontmatter properties hold the values asked for, sorted by path, a page at a \
                       time: `notes` [{path, frontmatter}], `total`, and `next_cursor` (absent on the last page; pass it back \
                       as `cursor`). Example: {\"properties\": {\"status\": \"active\", \"tags\": [\"project\", \"idea\"]}}. \
                       Every key must match; a list of values matches any one of them; a value matches a list property \
                       holding it. `tags` are the note's frontmatter and inline tags, compared without `#` ignoring case, \
                       and `project` also finds `project/quire`; `aliases` ignore case; other strings (dates included, as \
                       written: \"2024-01-05\") are exact. Numbers compare by value and \"3\" finds 3; null finds a key \
                       that is present and empty. `folder` limits the search to a folder (recursive); `limit` is 1 to 1000 \
                       (default 100).",
        input_schema = schema_for_type::<PropertySearchRequest>(),
        output_schema = schema_for_output::<PropertySearch>(),
        annotations(
            title = "Search note properties (access)",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn property_search(&self, tool: ToolName, args: JsonObject) -> ToolFuture<'_> {
        run_tool(&self.kiln, tool, args, KilnTools::property_search)
    }
}
