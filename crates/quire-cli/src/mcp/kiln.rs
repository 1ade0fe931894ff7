//! The `kiln` toolset's router. Each tool's category (access, manipulate,
//! admin), as the kiln spec asks for discovery, is in its title and in its
//! `_meta` as `{"category": ...}`.

use rmcp::handler::server::common::{schema_for_output, schema_for_type};
use std::borrow::Cow;

use rmcp::handler::server::common::FromContextPart;
use rmcp::handler::server::tool::{ToolCallContext, ToolName};
use rmcp::model::{CallToolResponse, CallToolResult, JsonObject, MetaObject};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, tool, tool_router};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::kiln_types::{
    KilnInfo, KilnInfoRequest, ListNotesRequest, NoteList, NoteMetadata, NoteRead, PropertySearch,
    PropertySearchRequest, ReadMetadataRequest, ReadNoteRequest, SemanticSearch,
    SemanticSearchRequest, TextSearch, TextSearchRequest,
};
use super::result::{ToolFuture, run_tool, to_call_result};
use super::scope::Stop;
use super::server::QuireServer;
use super::tool_error::ToolError;
use quire_kiln::KilnTools;

/// A tool's `_meta`: its category.
pub(super) fn category(name: &str) -> MetaObject {
    let mut meta = JsonObject::new();
    meta.insert("category".to_owned(), name.into());
    MetaObject(meta)
}

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
        meta = category("access"),
        annotations(
            title = "Read note (access)",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn read_note(&self, call: ScopedCall) -> CallToolResponse {
        self.run_scoped(call, |kiln, args: &ReadNoteRequest| {
            kiln.read_note(&args.clone().into()).map(NoteRead::from)
        })
        .await
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
        meta = category("access"),
        annotations(
            title = "Read note metadata (access)",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    async fn read_metadata(&self, call: ScopedCall) -> CallToolResponse {
        self.run_scoped(call, |kiln, args: &ReadMetadataRequest| {
            kiln.read_metadata(&args.clone().into())
                .map(NoteMetadata::from)
        })
        .await
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
        meta = category("access"),
        annotations(
            title = "List notes (access)",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn list_notes(&self, tool: ToolName, args: JsonObject) -> ToolFuture<'_> {
        run_tool(&self.kiln, tool, args, |kiln, args: &ListNotesRequest| {
            kiln.list_notes(&args.clone().into()).map(NoteList::from)
        })
    }

    /// The kiln's root URI, totals and index state.
    #[tool(
        name = "get_kiln_info",
        description = "The kiln's root URI (each note is the MCP resource `kiln:///<path>`), `note_count`, `total_size` \
                       (bytes) and `total_words`, and with `detailed` how the index stands: notes indexed and with problems, \
                       entries skipped, broken and ambiguous links, build time, last scan and update (RFC 3339) and whether a \
                       file watcher keeps it fresh. Example: {\"detailed\": true}. Answers at once, from the index, so it can be \
                       polled; while the index is first built `state` is `building` and the totals are 0.",
        input_schema = schema_for_type::<KilnInfoRequest>(),
        output_schema = schema_for_output::<KilnInfo>(),
        meta = category("admin"),
        annotations(
            title = "Kiln info (admin)",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn get_kiln_info(&self, tool: ToolName, args: JsonObject) -> ToolFuture<'_> {
        run_tool(&self.kiln, tool, args, |kiln, args: &KilnInfoRequest| {
            kiln.get_kiln_info(&args.clone().into()).map(KilnInfo::from)
        })
    }

    /// The lines of the notes that match a query, with context.
    #[tool(
        name = "text_search",
        description = "Search the text of the kiln's notes, as ripgrep does: `matches` [{path, line_number, line, before, after}] \
                       ordered by path then line, `total_matches` (matching lines in all the notes searched, past `limit` too), \
                       `files_searched`, `files_skipped`, `truncated` and `truncated_reason` (`limit` or `time`). Example: \
                       {\"query\": \"quarterly review\", \"folder\": \"projects\", \"context_lines\": 1}. The query is literal text \
                       unless `regex` is true (ripgrep's regex syntax); `case` is `smart` (default: insensitive unless the query has \
                       an uppercase letter), `sensitive` or `insensitive`; a match never spans lines. `context_lines` is 0 to 10 \
                       (default 2), `limit` 1 to 1000 (default 100). Lines over 500 characters are cut around the match with `…`. \
                       Reads the files as they are now; hidden folders (.obsidian, .git, .trash) and links out of the kiln are never \
                       searched.",
        input_schema = schema_for_type::<TextSearchRequest>(),
        output_schema = schema_for_output::<TextSearch>(),
        meta = category("access"),
        annotations(
            title = "Search note text (access)",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn text_search(&self, tool: ToolName, args: JsonObject) -> ToolFuture<'_> {
        run_tool(&self.kiln, tool, args, |kiln, args: &TextSearchRequest| {
            kiln.text_search(&args.clone().into()).map(TextSearch::from)
        })
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
        meta = category("access"),
        annotations(
            title = "Search note properties (access)",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn property_search(&self, tool: ToolName, args: JsonObject) -> ToolFuture<'_> {
        run_tool(
            &self.kiln,
            tool,
            args,
            |kiln, args: &PropertySearchRequest| {
                kiln.property_search(&args.clone().into())
                    .map(PropertySearch::from)
            },
        )
    }

    /// The notes closest in meaning to a query.
    #[tool(
        name = "semantic_search",
        description = "Find the notes closest in meaning to a question or description, even when they share none of its words: \
                       `results` [{path, score, heading, snippet, frontmatter, indexing}] best first, `embedder`, `mode`, and \
                       `index` {ready, chunks_embedded, chunks_total, notes_pending} saying how complete the index was. Example: \
                       {\"query\": \"how did we decide on the database\", \"limit\": 5}. Each note is scored by its best section \
                       (`heading`, `snippet`); `score` is that section's cosine similarity (-1 to 1). `properties` keeps only notes \
                       whose properties match, as property_search matches them; `folder` limits the search to a folder; \
                       `min_score` drops weak matches (semantic mode); `limit` is 1 to 100 (default 10). `mode`: `semantic` \
                       (default) or `hybrid`, which also ranks by the query's exact words (use it for identifiers, codes, rare \
                       names; its scores only order results). Notes are embedded in the background when the server starts and \
                       when they change: `indexing: true` marks a note changed since it was embedded. Without an installed \
                       embedder the error says how to install one; use text_search for exact words.",
        input_schema = schema_for_type::<SemanticSearchRequest>(),
        output_schema = schema_for_output::<SemanticSearch>(),
        meta = category("access"),
        annotations(
            title = "Search notes by meaning (access)",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn semantic_search(&self, tool: ToolName, args: JsonObject) -> ToolFuture<'_> {
        run_tool(
            &self.kiln,
            tool,
            args,
            |kiln, args: &SemanticSearchRequest| {
                kiln.semantic_search(&args.clone().into())
                    .map(SemanticSearch::from)
            },
        )
    }
}

/// A call of a tool that takes a note `path`, which may lie in a folder
/// outside the root the user lets the session use (see `scope.rs`): what
/// rmcp gives such a tool, taken from the call in one extractor.
pub(super) struct ScopedCall {
    pub(super) tool: Cow<'static, str>,
    pub(super) args: JsonObject,
    pub(super) context: RequestContext<RoleServer>,
    pub(super) responses: Option<rmcp::model::InputResponses>,
    pub(super) state: Option<String>,
}

impl<S> FromContextPart<ToolCallContext<'_, S>> for ScopedCall {
    fn from_context_part(call: &mut ToolCallContext<'_, S>) -> Result<Self, ErrorData> {
        Ok(ScopedCall {
            tool: call.name.clone(),
            args: call.arguments.take().unwrap_or_default(),
            context: call.request_context.clone(),
            responses: call.input_responses.take(),
            state: call.request_state.take(),
        })
    }
}

impl QuireServer {
    /// Runs a read of one note on the kiln its path lies in.
    async fn run_scoped<Request, Response, Error>(
        &self,
        mut call: ScopedCall,
        operation: impl FnOnce(&KilnTools, &Request) -> Result<Response, Error> + Send + 'static,
    ) -> CallToolResponse
    where
        Request: DeserializeOwned,
        Response: Serialize + Send + 'static,
        Error: Into<ToolError>,
    {
        let scope = self
            .scope_of(
                &call.tool,
                &mut call.args,
                &call.context,
                &mut call.responses,
                &mut call.state,
            )
            .await;
        let scope = match scope {
            Ok(scope) => scope,
            Err(Stop::Asking(input)) => return input.into(),
            Err(Stop::Refused(error)) => return to_call_result::<()>(Err(error)).into(),
        };
        let result = run_tool(
            scope.kiln(&self.kiln),
            ToolName(call.tool),
            call.args,
            operation,
        )
        .await;
        match (&scope, result.structured_content.clone()) {
            (super::scope::Scope::Extra(_), Some(mut value)) if result.is_error != Some(true) => {
                scope.show_path_in(&mut value);
                CallToolResult::structured(value).into()
            }
            _ => result.into(),
        }
    }
}
