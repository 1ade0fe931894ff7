//! The `kiln` toolset's router. Each tool's category (access, manipulate,
//! admin), as the kiln spec asks for discovery, is in its title and in its
//! `_meta` as `{"category": ...}`.

use super::schema;
use std::borrow::Cow;

use rmcp::handler::server::common::FromContextPart;
use rmcp::handler::server::tool::{ToolCallContext, ToolName};
use rmcp::model::{CallToolResponse, CallToolResult, JsonObject, MetaObject};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, tool, tool_router};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::kiln_types::{
    FindLinksRequest, FoundLinks, KilnInfo, KilnInfoRequest, ListNotesRequest, NoteList,
    NoteMetadata, NoteRead, PropertySearch, PropertySearchRequest, ReadMetadataRequest,
    ReadNoteRequest, SemanticSearch, SemanticSearchRequest, TextSearch, TextSearchRequest,
};
use super::result::{ToolFuture, run_tool, to_call_result};
use super::scope::Stop;
use super::server::QuireServer;
use super::tool_error::ToolError;
use quire_kiln::{
    self as kiln, KilnTools, MAX_CONTEXT_LINES, MAX_LINE_CHARS, MAX_LINKS_LIMIT, MAX_LIST_LIMIT,
    MAX_NEIGHBOUR_DEPTH, MAX_PROPERTY_LIMIT, MAX_READ_BYTES, MAX_READ_LINES, MAX_SEARCH_LIMIT,
    MAX_SEMANTIC_LIMIT,
};

/// A tool's `_meta`: its category.
pub(super) fn category(name: &str) -> MetaObject {
    let mut meta = JsonObject::new();
    meta.insert("category".to_owned(), name.into());
    MetaObject(meta)
}

/// `number` as the descriptions write it, its thousands grouped with
/// commas (2,000).
fn grouped(number: usize) -> String {
    let digits = number.to_string();
    let mut text = String::with_capacity(digits.len() + digits.len() / 3);
    for (at, digit) in digits.chars().enumerate() {
        if at > 0 && (digits.len() - at).is_multiple_of(3) {
            text.push(',');
        }
        text.push(digit);
    }
    text
}

// The descriptions quote the kiln's limits and defaults rather than
// restating them, so a description cannot promise what the kiln no longer
// does. (The schemas' field descriptions are doc comments, which cannot;
// `tests::every_limit_a_schema_states_is_the_kilns` checks them.)
#[tool_router(router = kiln_router, vis = "pub(super)")]
impl QuireServer {
    /// Read a note's lines.
    #[tool(
        name = "read_note",
        description = format!(
            "Read a markdown note of the kiln: the whole note, the first `head` or last `tail` lines, or the \
                       inclusive 1-based range `start_line`..`end_line`. Example: {{\"path\": \"projects/Plan\", \"head\": 20}}. \
                       The path is relative to the kiln root, `/`-separated, `.md` optional. Returns the lines as written \
                       (`content`), `total_lines`, `lines_returned`, the actual `start_line`/`end_line` and the file's \
                       `sha256`. A range past the end is clamped (`clamped` says how); a read over {} lines or {} KiB \
                       stops there (`truncated` and `next_start_line` say how to read on). A missing note is \
                       FILE_NOT_FOUND with the closest paths.",
            grouped(MAX_READ_LINES), MAX_READ_BYTES / 1024
        ),
        input_schema = schema::input::<ReadNoteRequest>(),
        output_schema = schema::output::<NoteRead>(),
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
        input_schema = schema::input::<ReadMetadataRequest>(),
        output_schema = schema::output::<NoteMetadata>(),
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
        description = format!(
            "List the notes of a folder of the kiln, sorted by path, a page at a time: `notes` [{{path, and with \
                       include_details word_count, size, modified (RFC 3339), with include_frontmatter frontmatter}}], `total`, \
                       and `next_cursor` (absent on \
                       the last page; pass it back as `cursor`), and on the first page `folders` [{{path, notes}}]: the immediate \
                       subfolders with the count of notes beneath each, to walk the kiln folder by folder with \
                       `recursive: false`. Example: {{\"folder\": \"projects\", \"limit\": 50}}. `folder` is \
                       relative to the kiln root (the root when absent; one that does not exist is FILE_NOT_FOUND); \
                       `recursive` (default true) includes subfolders' notes; `limit` is 1 to {MAX_LIST_LIMIT} (default {}). \
                       Hidden folders (.obsidian, .git, .trash) are never listed.",
            kiln::ListNotesRequest::DEFAULT_LIMIT
        ),
        input_schema = schema::input::<ListNotesRequest>(),
        output_schema = schema::output::<NoteList>(),
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
            kiln.list_notes(&args.clone().into())
                .map(|list| NoteList::of(list, args.include_details()))
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
        input_schema = schema::input::<KilnInfoRequest>(),
        output_schema = schema::output::<KilnInfo>(),
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
        description = format!(
            "Search the text of the kiln's notes, as ripgrep does: `notes` [{{path, matches: [{{line_number, line, before, after}}]}}] \
                       by path then line, `total_matches` and `notes_matched` (over every page), `files_searched`, `files_skipped`, \
                       `truncated`, `truncated_reason` (`size`, `limit` or `time`) and `next_cursor`. Example: \
                       {{\"query\": \"quarterly review\", \"folder\": \"projects\"}}. The query is literal text \
                       unless `regex` is true (ripgrep's regex syntax); `case` is `smart` (default: insensitive unless the query has \
                       an uppercase letter), `sensitive` or `insensitive`; a match never spans lines. `context_lines` is 0 to {MAX_CONTEXT_LINES} \
                       (default {}). A page holds up to {} matches and about 16 KB; pass `next_cursor` back as `cursor` for the next page, \
                       or give `limit` (1 to {MAX_SEARCH_LIMIT}) to get that many matches at once whatever their size. \
                       Lines over {MAX_LINE_CHARS} characters are cut around the match with `…`. \
                       Reads the files as they are now; hidden folders (.obsidian, .git, .trash) and links out of the kiln are never \
                       searched.",
            kiln::TextSearchRequest::DEFAULT_CONTEXT_LINES, kiln::TextSearchRequest::DEFAULT_LIMIT
        ),
        input_schema = schema::input::<TextSearchRequest>(),
        output_schema = schema::output::<TextSearch>(),
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
        description = format!(
            "Find the notes whose frontmatter properties hold the values asked for, sorted by path, a page at a \
                       time: `notes` [{{path, and frontmatter with include_frontmatter}}], `total`, and `next_cursor` (absent on the \
                       last page; pass it back \
                       as `cursor`). Example: {{\"properties\": {{\"status\": \"active\", \"tags\": [\"project\", \"idea\"]}}}}. \
                       Every key must match; a list of values matches any one of them; a value matches a list property \
                       holding it. `tags` are the note's frontmatter and inline tags, compared without `#` ignoring case, \
                       and `project` also finds `project/quire`; `aliases` ignore case; other strings (dates included, as \
                       written: \"2024-01-05\") are exact. Numbers compare by value and \"3\" finds 3; null finds a key \
                       that is present and empty. A value may instead be an object of operators, all of which must hold: \
                       {{\"not\": v}} (none of the values v; a note without the key matches), {{\"exists\": true|false}} (the key is \
                       there, whatever its value), {{\"before\": v}} and {{\"after\": v}} (strictly; v a date YYYY-MM-DD compared as \
                       a date, or a number compared as a number; a value of the other kind does not match). Example: \
                       {{\"properties\": {{\"status\": {{\"not\": \"done\"}}, \"due\": {{\"after\": \"2026-01-01\", \"before\": \"2026-12-01\"}}}}}}. \
                       `folder` limits the search to a folder (recursive); `limit` is 1 to {MAX_PROPERTY_LIMIT} \
                       (default {}).",
            kiln::PropertySearchRequest::DEFAULT_LIMIT
        ),
        input_schema = schema::input::<PropertySearchRequest>(),
        output_schema = schema::output::<PropertySearch>(),
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
                    .map(|found| PropertySearch::of(found, args.include_frontmatter()))
            },
        )
    }

    /// What the kiln's link graph says: broken and ambiguous links,
    /// orphans, a note's neighbours.
    #[tool(
        name = "find_links",
        description = format!(
            "Ask the kiln's link graph (from its index, links resolved as Obsidian resolves them), a page at a time, \
                       with `total` and `next_cursor` (absent on the last page; pass it back as `cursor`). `kind`: \
                       `broken`: the links that lead to no note and no existing attachment, as `links` [{{note, line, target \
                       (as written), embed, property (for a link in the frontmatter, whose line is its key's)}}] by note and \
                       line; `ambiguous`: the links several notes match, each with `chosen` (the note it leads to) and \
                       `candidates` (how many match); `orphans`: the notes no other note links to, as `notes` [{{path}}]; \
                       `neighbours`: the notes around the note `path` (a path, name, alias or [[wikilink]]), following links \
                       out and in up to `depth` (1 to {MAX_NEIGHBOUR_DEPTH}, default {}) links away, as `notes` [{{path, distance, \
                       direction: out|in|both}}] nearest first, with `note` the note's path. Example: {{\"kind\": \"neighbours\", \
                       \"path\": \"projects/Plan\", \"depth\": 2}}. `folder` keeps the links written, or the notes, beneath a \
                       folder; `limit` is 1 to {MAX_LINKS_LIMIT} (default {}, about 8 KB). Hidden folders are never read.",
            kiln::FindLinksRequest::DEFAULT_DEPTH, kiln::FindLinksRequest::DEFAULT_LIMIT
        ),
        input_schema = schema::input::<FindLinksRequest>(),
        output_schema = schema::output::<FoundLinks>(),
        meta = category("access"),
        annotations(
            title = "Find links (access)",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn find_links(&self, tool: ToolName, args: JsonObject) -> ToolFuture<'_> {
        run_tool(&self.kiln, tool, args, |kiln, args: &FindLinksRequest| {
            kiln.find_links(&args.clone().into()).map(FoundLinks::from)
        })
    }

    /// The notes closest in meaning to a query.
    #[tool(
        name = "semantic_search",
        description = format!(
            "Find the notes closest in meaning to a question or description, even when they share none of its words: \
                       `results` [{{path, score, heading, snippet, frontmatter, indexing}}] best first, `embedder`, `mode`, and \
                       `index` {{ready, chunks_embedded, chunks_total, notes_pending}} saying how complete the index was. Example: \
                       {{\"query\": \"how did we decide on the database\", \"limit\": 5}}. Each note is scored by its best section \
                       (`heading`, `snippet`); `score` is that section's cosine similarity (-1 to 1). `properties` keeps only notes \
                       whose properties match, as property_search matches them; `folder` limits the search to a folder; \
                       `min_score` drops weak matches (semantic mode); `limit` is 1 to {MAX_SEMANTIC_LIMIT} (default {}). `mode`: `semantic` \
                       (default) or `hybrid`, which also ranks by the query's exact words (use it for identifiers, codes, rare \
                       names; its scores only order results). Notes are embedded in the background when the server starts and \
                       when they change: `indexing: true` marks a note changed since it was embedded. Without an installed \
                       embedder the error says how to install one; use text_search for exact words.",
            kiln::SemanticSearchRequest::DEFAULT_LIMIT
        ),
        input_schema = schema::input::<SemanticSearchRequest>(),
        output_schema = schema::output::<SemanticSearch>(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use quire_kiln::{MAX_QUERY_CHARS, MAX_SEMANTIC_QUERY_CHARS, POLL_INTERVAL, TRASH_FOLDER};
    use serde_json::Value;

    #[test]
    fn numbers_are_grouped_by_thousands() {
        let cases = [
            (0, "0"),
            (100, "100"),
            (1_000, "1,000"),
            (262_144, "262,144"),
            (1_234_567, "1,234,567"),
        ];
        for (number, text) in cases {
            assert_eq!(grouped(number), text);
        }
    }

    /// The served kiln tools: (name, description, input schema, output
    /// schema).
    fn tools() -> Vec<(String, String, Value, Value)> {
        let mut router = QuireServer::kiln_router();
        router += QuireServer::kiln_write_router();
        router
            .list_all()
            .into_iter()
            .map(|tool| {
                (
                    tool.name.to_string(),
                    tool.description.as_deref().unwrap_or_default().to_owned(),
                    Value::Object((*tool.input_schema).clone()),
                    Value::Object(tool.output_schema.as_deref().cloned().unwrap_or_default()),
                )
            })
            .collect()
    }

    /// Each tool description states the kiln's limits and defaults as
    /// the kiln has them now.
    #[test]
    fn every_limit_a_description_states_is_the_kilns() {
        let stated = [
            (
                "read_note",
                format!(
                    "a read over {} lines or {} KiB stops there",
                    grouped(MAX_READ_LINES),
                    MAX_READ_BYTES / 1024
                ),
            ),
            (
                "list_notes",
                format!(
                    "`limit` is 1 to {MAX_LIST_LIMIT} (default {})",
                    kiln::ListNotesRequest::DEFAULT_LIMIT
                ),
            ),
            (
                "text_search",
                format!(
                    "`context_lines` is 0 to {MAX_CONTEXT_LINES} (default {}). A page holds up to {} \
                     matches and about 16 KB; pass `next_cursor` back as `cursor` for the next page, \
                     or give `limit` (1 to {MAX_SEARCH_LIMIT})",
                    kiln::TextSearchRequest::DEFAULT_CONTEXT_LINES,
                    kiln::TextSearchRequest::DEFAULT_LIMIT
                ),
            ),
            (
                "property_search",
                format!(
                    "`limit` is 1 to {MAX_PROPERTY_LIMIT} (default {})",
                    kiln::PropertySearchRequest::DEFAULT_LIMIT
                ),
            ),
            (
                "semantic_search",
                format!(
                    "`limit` is 1 to {MAX_SEMANTIC_LIMIT} (default {})",
                    kiln::SemanticSearchRequest::DEFAULT_LIMIT
                ),
            ),
            (
                "find_links",
                format!(
                    "`limit` is 1 to {MAX_LINKS_LIMIT} (default {}, about 8 KB)",
                    kiln::FindLinksRequest::DEFAULT_LIMIT
                ),
            ),
            (
                "find_links",
                format!(
                    "up to `depth` (1 to {MAX_NEIGHBOUR_DEPTH}, default {})",
                    kiln::FindLinksRequest::DEFAULT_DEPTH
                ),
            ),
            (
                "delete_note",
                format!("moved into `{TRASH_FOLDER}/` in the kiln root"),
            ),
        ];
        let tools = tools();
        for (name, statement) in stated {
            let (_, description, _, _) = tools
                .iter()
                .find(|(tool, ..)| tool == name)
                .unwrap_or_else(|| panic!("no tool {name}"));
            assert!(description.contains(&statement), "{name}: {description}");
        }
    }

    /// The schemas' field descriptions are doc comments, which cannot quote
    /// a constant: each limit one states is checked against the kiln's here,
    /// and so are the defaults a schema shows.
    #[test]
    fn every_limit_a_schema_states_is_the_kilns() {
        let tools = tools();
        let schema = |name: &str, output: bool| {
            let (_, _, input, result) = tools
                .iter()
                .find(|(tool, ..)| tool == name)
                .unwrap_or_else(|| panic!("no tool {name}"));
            if output {
                result.clone()
            } else {
                input.clone()
            }
        };
        let stated = [
            (
                "list_notes",
                false,
                "/properties/limit/description",
                format!("(1 to {})", grouped(MAX_LIST_LIMIT)),
            ),
            (
                "text_search",
                false,
                "/properties/query/description",
                format!("(1 to {} characters", grouped(MAX_QUERY_CHARS)),
            ),
            (
                "text_search",
                false,
                "/properties/context_lines/description",
                format!("(0 to {MAX_CONTEXT_LINES})"),
            ),
            (
                "text_search",
                false,
                "/properties/limit/description",
                format!("(1 to {})", grouped(MAX_SEARCH_LIMIT)),
            ),
            (
                "text_search",
                true,
                "/$defs/LineMatch/properties/line/description",
                format!("past {MAX_LINE_CHARS} characters"),
            ),
            (
                "property_search",
                false,
                "/properties/limit/description",
                format!("(1 to {})", grouped(MAX_PROPERTY_LIMIT)),
            ),
            (
                "find_links",
                false,
                "/properties/limit/description",
                format!("(1 to {})", grouped(MAX_LINKS_LIMIT)),
            ),
            (
                "find_links",
                false,
                "/properties/depth/description",
                format!(
                    "(1 to {MAX_NEIGHBOUR_DEPTH}; {} when",
                    kiln::FindLinksRequest::DEFAULT_DEPTH
                ),
            ),
            (
                "semantic_search",
                false,
                "/properties/query/description",
                format!("(1 to {} characters)", grouped(MAX_SEMANTIC_QUERY_CHARS)),
            ),
            (
                "semantic_search",
                false,
                "/properties/limit/description",
                format!("(1 to {})", grouped(MAX_SEMANTIC_LIMIT)),
            ),
            (
                "get_kiln_info",
                true,
                "/$defs/IndexDetails/properties/watcher/description",
                format!("rescanned every {} s", POLL_INTERVAL.as_secs()),
            ),
            (
                "delete_note",
                false,
                "/properties/permanent/description",
                format!("moving it to `{TRASH_FOLDER}/`"),
            ),
            (
                "delete_note",
                true,
                "/anyOf/0/properties/trashed_to/description",
                format!("(`{TRASH_FOLDER}/...`)"),
            ),
        ];
        for (name, output, pointer, statement) in stated {
            let schema = schema(name, output);
            let description = schema
                .pointer(pointer)
                .and_then(Value::as_str)
                .unwrap_or_else(|| panic!("{name}: nothing at {pointer}"));
            assert!(
                description.contains(&statement),
                "{name} {pointer}: {description}"
            );
        }
        let defaults = [
            (
                "list_notes",
                "/properties/limit/default",
                kiln::ListNotesRequest::DEFAULT_LIMIT,
            ),
            (
                "text_search",
                "/properties/context_lines/default",
                kiln::TextSearchRequest::DEFAULT_CONTEXT_LINES,
            ),
            (
                "property_search",
                "/properties/limit/default",
                kiln::PropertySearchRequest::DEFAULT_LIMIT,
            ),
            (
                "semantic_search",
                "/properties/limit/default",
                kiln::SemanticSearchRequest::DEFAULT_LIMIT,
            ),
            (
                "find_links",
                "/properties/limit/default",
                kiln::FindLinksRequest::DEFAULT_LIMIT,
            ),
        ];
        for (name, pointer, default) in defaults {
            assert_eq!(
                schema(name, false).pointer(pointer),
                Some(&Value::from(default)),
                "{name} {pointer}"
            );
        }
    }
}
