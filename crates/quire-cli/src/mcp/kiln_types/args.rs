//! The kiln tools' arguments as a client sends them: each tool's JSON
//! object decoded (unknown properties refused, defaults filled in), its
//! JSON Schema, and the conversion into the request `quire_kiln` runs. The
//! defaults are the kiln's own (`quire_kiln::ListNotesRequest::DEFAULT_LIMIT`
//! and its siblings), so a call that leaves an argument out gets what a
//! library user gets.

use quire_kiln as kiln;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

fn default_list_limit() -> usize {
    kiln::ListNotesRequest::DEFAULT_LIMIT
}

fn default_recursive() -> bool {
    kiln::ListNotesRequest::default().recursive
}

fn default_context_lines() -> usize {
    kiln::TextSearchRequest::DEFAULT_CONTEXT_LINES
}

fn default_property_limit() -> usize {
    kiln::PropertySearchRequest::DEFAULT_LIMIT
}

fn default_links_limit() -> usize {
    kiln::FindLinksRequest::DEFAULT_LIMIT
}

fn default_semantic_limit() -> usize {
    kiln::SemanticSearchRequest::DEFAULT_LIMIT
}

/// The schema of `properties`: an object whose values are scalars, objects
/// of operators (`not`, `exists`, `before`, `after`, each typed, no other
/// key), or lists of either (a bare `Map<String, Value>` would allow
/// anything). Its description is the field's doc comment.
fn properties_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let scalar = serde_json::json!({"type": ["string", "number", "boolean", "null"]});
    let operators = serde_json::json!({
        "type": "object",
        "properties": {
            "not": {
                "description": "No note holding this value (or any of these values) matches; a note without the property does.",
                "anyOf": [scalar, {"type": "array", "items": scalar, "minItems": 1}]
            },
            "exists": {
                "description": "true: the note has the property (whatever its value); false: it has not.",
                "type": "boolean"
            },
            "before": {
                "description": "A value strictly before this date (YYYY-MM-DD) or below this number.",
                "type": ["string", "number"]
            },
            "after": {
                "description": "A value strictly after this date (YYYY-MM-DD) or above this number.",
                "type": ["string", "number"]
            }
        },
        "additionalProperties": false,
        "minProperties": 1
    });
    schemars::json_schema!({
        "type": "object",
        "additionalProperties": {
            "anyOf": [
                scalar,
                operators,
                {"type": "array", "items": {"anyOf": [scalar, operators]}}
            ]
        }
    })
}

/// `read_note`'s parameters (unknown properties are refused).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(in crate::mcp) struct ReadNoteRequest {
    /// The note's path relative to the kiln root, `/`-separated, `.md`
    /// optional; or, when no note is at that path, its name, an alias or a
    /// wikilink (`Hotkeys`, `[[Hotkeys#Custom hotkeys]]`), found as a link
    /// from the root would find it. The result gives the real path.
    path: String,
    /// The first line to return, from 1 (with `end_line`: an inclusive range).
    #[schemars(range(min = 1))]
    start_line: Option<usize>,
    /// The last line to return, inclusive.
    #[schemars(range(min = 1))]
    end_line: Option<usize>,
    /// Return only the first N lines.
    #[schemars(range(min = 1))]
    head: Option<usize>,
    /// Return only the last N lines.
    #[schemars(range(min = 1))]
    tail: Option<usize>,
}

impl From<ReadNoteRequest> for kiln::ReadNoteRequest {
    fn from(args: ReadNoteRequest) -> Self {
        kiln::ReadNoteRequest {
            path: args.path,
            start_line: args.start_line,
            end_line: args.end_line,
            head: args.head,
            tail: args.tail,
        }
    }
}

/// `read_metadata`'s parameters (unknown properties are refused).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(in crate::mcp) struct ReadMetadataRequest {
    /// The note's path relative to the kiln root, `/`-separated, `.md`
    /// optional; or, when no note is at that path, its name, an alias or a
    /// wikilink (`Hotkeys`, `[[Hotkeys#Custom hotkeys]]`), found as a link
    /// from the root would find it. The result gives the real path.
    path: String,
}

impl From<ReadMetadataRequest> for kiln::ReadMetadataRequest {
    fn from(args: ReadMetadataRequest) -> Self {
        kiln::ReadMetadataRequest { path: args.path }
    }
}

/// `list_notes`'s parameters (unknown properties are refused).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(in crate::mcp) struct ListNotesRequest {
    /// The folder to list, relative to the kiln root (the root when absent).
    folder: Option<String>,
    /// Whether notes in subfolders are listed too.
    #[serde(default = "default_recursive")]
    recursive: bool,
    /// Whether each note's frontmatter properties are included.
    #[serde(default)]
    include_frontmatter: bool,
    /// Whether each note comes with its `word_count`, `size` and `modified`
    /// (without it, only its `path`).
    #[serde(default)]
    include_details: bool,
    /// The most notes per page (1 to 1,000).
    #[serde(default = "default_list_limit")]
    #[schemars(range(min = 1, max = kiln::MAX_LIST_LIMIT))]
    limit: usize,
    /// The `next_cursor` of the previous page.
    cursor: Option<String>,
}

impl ListNotesRequest {
    /// Whether the notes come with their counts and dates.
    pub(in crate::mcp) fn include_details(&self) -> bool {
        self.include_details
    }
}

impl From<ListNotesRequest> for kiln::ListNotesRequest {
    fn from(args: ListNotesRequest) -> Self {
        kiln::ListNotesRequest {
            folder: args.folder,
            recursive: args.recursive,
            include_frontmatter: args.include_frontmatter,
            limit: args.limit,
            cursor: args.cursor,
        }
    }
}

/// `get_kiln_info`'s parameters (unknown properties are refused).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(in crate::mcp) struct KilnInfoRequest {
    /// Whether to add how the index stands (state, freshness, watcher,
    /// notes with problems, broken and ambiguous links).
    #[serde(default)]
    detailed: bool,
}

impl From<KilnInfoRequest> for kiln::KilnInfoRequest {
    fn from(args: KilnInfoRequest) -> Self {
        kiln::KilnInfoRequest {
            detailed: args.detailed,
        }
    }
}

/// How letter case is compared.
// Serialize: the schema shows the default (`"default": "smart"`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(in crate::mcp) enum CaseMode {
    /// Insensitive unless the query has an uppercase letter (as ripgrep's
    /// `--smart-case`).
    #[default]
    Smart,
    /// Exactly as written.
    Sensitive,
    /// Ignoring case.
    Insensitive,
}

impl From<CaseMode> for kiln::CaseMode {
    fn from(case: CaseMode) -> Self {
        match case {
            CaseMode::Smart => kiln::CaseMode::Smart,
            CaseMode::Sensitive => kiln::CaseMode::Sensitive,
            CaseMode::Insensitive => kiln::CaseMode::Insensitive,
        }
    }
}

/// `text_search`'s parameters (unknown properties are refused).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(in crate::mcp) struct TextSearchRequest {
    /// What to find on a line: literal text (1 to 1,000 characters, one
    /// line), or a regular expression (ripgrep's syntax) with `regex`.
    #[schemars(length(min = 1, max = kiln::MAX_QUERY_CHARS))]
    query: String,
    /// Whether `query` is a regular expression rather than literal text.
    #[serde(default)]
    regex: bool,
    /// `smart` (the default: insensitive unless the query has an uppercase
    /// letter), `sensitive` or `insensitive`.
    #[serde(default)]
    case: CaseMode,
    /// The folder to search, relative to the kiln root (the root when
    /// absent), subfolders included.
    folder: Option<String>,
    /// Lines shown before and after each match (0 to 10).
    #[serde(default = "default_context_lines")]
    #[schemars(range(max = kiln::MAX_CONTEXT_LINES))]
    context_lines: usize,
    /// The most matches returned (1 to 1,000). Without it, a page holds
    /// up to 100 matches and about 16 KB; with it, up to `limit` matches
    /// whatever their size.
    #[schemars(range(min = 1, max = kiln::MAX_SEARCH_LIMIT))]
    limit: Option<usize>,
    /// The `next_cursor` of the previous answer to the same query, to go
    /// on after its last match.
    cursor: Option<String>,
}

impl From<TextSearchRequest> for kiln::TextSearchRequest {
    fn from(args: TextSearchRequest) -> Self {
        kiln::TextSearchRequest {
            query: args.query,
            regex: args.regex,
            case: args.case.into(),
            folder: args.folder,
            context_lines: args.context_lines,
            limit: args.limit.unwrap_or(kiln::TextSearchRequest::DEFAULT_LIMIT),
            cursor: args.cursor,
            // A limit named is a size asked for; without one, the page
            // is kept affordable.
            answer_bytes: match args.limit {
                Some(_) => None,
                None => Some(kiln::TextSearchRequest::DEFAULT_ANSWER_BYTES),
            },
        }
    }
}

/// `property_search`'s parameters (unknown properties are refused).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(in crate::mcp) struct PropertySearchRequest {
    /// The properties a note must have, at least one: each key's value is a
    /// string, number, boolean or null; an object of operators, all of
    /// which must hold: {"not": v}, {"exists": true|false}, {"before": v},
    /// {"after": v} (v a date YYYY-MM-DD or a number); or a list of these
    /// (any one matches). Every key must match. Example: {"status": {"not":
    /// "done"}, "due": {"before": "2026-12-01"}, "tags": ["project", "idea"]}.
    #[schemars(schema_with = "properties_schema")]
    properties: Map<String, Value>,
    /// Search only this folder and its subfolders, relative to the kiln
    /// root (the whole kiln when absent).
    folder: Option<String>,
    /// Whether each note found comes with its frontmatter properties
    /// (without it, only its `path`).
    #[serde(default)]
    include_frontmatter: bool,
    /// The most notes per page (1 to 1,000).
    #[serde(default = "default_property_limit")]
    #[schemars(range(min = 1, max = kiln::MAX_PROPERTY_LIMIT))]
    limit: usize,
    /// The `next_cursor` of the previous page.
    cursor: Option<String>,
}

impl PropertySearchRequest {
    /// Whether the notes come with their frontmatter.
    pub(in crate::mcp) fn include_frontmatter(&self) -> bool {
        self.include_frontmatter
    }
}

impl From<PropertySearchRequest> for kiln::PropertySearchRequest {
    fn from(args: PropertySearchRequest) -> Self {
        kiln::PropertySearchRequest {
            properties: args.properties,
            folder: args.folder,
            limit: args.limit,
            cursor: args.cursor,
        }
    }
}

/// What `find_links` looks for.
// Serialize: the answer says which kind it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(in crate::mcp) enum LinkKind {
    /// The links that lead to no note and no existing attachment.
    Broken,
    /// The links several notes match.
    Ambiguous,
    /// The notes no other note links to.
    Orphans,
    /// The notes linked from and to the note `path`, out to `depth`.
    Neighbours,
}

impl From<LinkKind> for kiln::LinkQuery {
    fn from(kind: LinkKind) -> Self {
        match kind {
            LinkKind::Broken => kiln::LinkQuery::Broken,
            LinkKind::Ambiguous => kiln::LinkQuery::Ambiguous,
            LinkKind::Orphans => kiln::LinkQuery::Orphans,
            LinkKind::Neighbours => kiln::LinkQuery::Neighbours,
        }
    }
}

impl From<kiln::LinkQuery> for LinkKind {
    fn from(kind: kiln::LinkQuery) -> Self {
        match kind {
            kiln::LinkQuery::Broken => LinkKind::Broken,
            kiln::LinkQuery::Ambiguous => LinkKind::Ambiguous,
            kiln::LinkQuery::Orphans => LinkKind::Orphans,
            kiln::LinkQuery::Neighbours => LinkKind::Neighbours,
        }
    }
}

/// `find_links`'s parameters (unknown properties are refused).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(in crate::mcp) struct FindLinksRequest {
    /// `broken`, `ambiguous`, `orphans` or `neighbours` (with `path`).
    kind: LinkKind,
    /// With `neighbours` only: the note's path relative to the kiln root,
    /// `.md` optional; or its name, an alias or a wikilink (`Hotkeys`,
    /// `[[Hotkeys]]`).
    path: Option<String>,
    /// With `neighbours` only: how many links away to look (1 to 3; 1 when
    /// absent).
    #[schemars(range(min = 1, max = kiln::MAX_NEIGHBOUR_DEPTH))]
    depth: Option<usize>,
    /// Only the links written in, or the notes, beneath this folder,
    /// relative to the kiln root (the whole kiln when absent).
    folder: Option<String>,
    /// The most links or notes per page (1 to 1,000).
    #[serde(default = "default_links_limit")]
    #[schemars(range(min = 1, max = kiln::MAX_LINKS_LIMIT))]
    limit: usize,
    /// The `next_cursor` of the previous page.
    cursor: Option<String>,
}

impl From<FindLinksRequest> for kiln::FindLinksRequest {
    fn from(args: FindLinksRequest) -> Self {
        kiln::FindLinksRequest {
            kind: args.kind.into(),
            path: args.path,
            depth: args.depth,
            folder: args.folder,
            limit: args.limit,
            cursor: args.cursor,
        }
    }
}

/// How results are ranked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(in crate::mcp) enum SearchMode {
    /// By the cosine similarity of each note's best chunk.
    #[default]
    Semantic,
    /// That ranking fused with a BM25 ranking of the same chunks
    /// (reciprocal rank fusion), so exact names and rare terms count too.
    Hybrid,
}

impl From<SearchMode> for kiln::SearchMode {
    fn from(mode: SearchMode) -> Self {
        match mode {
            SearchMode::Semantic => kiln::SearchMode::Semantic,
            SearchMode::Hybrid => kiln::SearchMode::Hybrid,
        }
    }
}

impl From<kiln::SearchMode> for SearchMode {
    fn from(mode: kiln::SearchMode) -> Self {
        match mode {
            kiln::SearchMode::Semantic => SearchMode::Semantic,
            kiln::SearchMode::Hybrid => SearchMode::Hybrid,
        }
    }
}

/// `semantic_search`'s parameters (unknown properties are refused).
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(in crate::mcp) struct SemanticSearchRequest {
    /// What to look for, in words: a question or a description of the
    /// notes wanted (1 to 2,000 characters). The notes need not share its
    /// words.
    #[schemars(length(min = 1, max = kiln::MAX_SEMANTIC_QUERY_CHARS))]
    query: String,
    /// The most notes to return (1 to 100).
    #[serde(default = "default_semantic_limit")]
    #[schemars(range(min = 1, max = kiln::MAX_SEMANTIC_LIMIT))]
    limit: usize,
    /// Search only the notes whose properties hold these values, matched as
    /// `property_search` matches them (every key must match; a list means
    /// any of its values). Example: {"status": "active"}.
    #[serde(default)]
    #[schemars(schema_with = "properties_schema")]
    properties: Option<Map<String, Value>>,
    /// Search only this folder and its subfolders, relative to the kiln
    /// root (the whole kiln when absent).
    folder: Option<String>,
    /// Leave out notes whose best chunk is less similar than this (cosine
    /// similarity, -1 to 1; around 0.3 keeps only clearly related notes).
    /// `semantic` mode only.
    #[schemars(range(min = -1.0, max = 1.0))]
    min_score: Option<f32>,
    /// `semantic` (the default) ranks by meaning alone; `hybrid` also
    /// ranks by the query's exact words (BM25) and fuses the two, for
    /// queries naming identifiers, codes or rare names.
    #[serde(default)]
    mode: SearchMode,
}

impl From<SemanticSearchRequest> for kiln::SemanticSearchRequest {
    fn from(args: SemanticSearchRequest) -> Self {
        kiln::SemanticSearchRequest {
            query: args.query,
            limit: args.limit,
            properties: args.properties,
            folder: args.folder,
            min_score: args.min_score,
            mode: args.mode.into(),
        }
    }
}

/// `create_note`'s parameters (unknown properties are refused).
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(in crate::mcp) struct CreateNoteRequest {
    /// The new note's path relative to the kiln root, `/`-separated, `.md`
    /// optional; missing folders are created.
    path: String,
    /// The note's markdown (its body, when `frontmatter` is given).
    content: String,
    /// Properties to write as the note's YAML frontmatter.
    frontmatter: Option<serde_json::Map<String, serde_json::Value>>,
}

impl From<CreateNoteRequest> for kiln::CreateNoteRequest {
    fn from(args: CreateNoteRequest) -> Self {
        kiln::CreateNoteRequest {
            path: args.path,
            content: args.content,
            frontmatter: args.frontmatter,
        }
    }
}

/// `update_note`'s parameters (unknown properties are refused).
#[derive(Clone, Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(in crate::mcp) struct UpdateNoteRequest {
    /// The note's path relative to the kiln root, `/`-separated, `.md`
    /// optional; or, when no note is at that path, its name, an alias or a
    /// wikilink (`Hotkeys`, `[[Hotkeys#Custom hotkeys]]`), found as a link
    /// from the root would find it. The result gives the real path.
    path: String,
    /// The new body; the frontmatter block is kept byte for byte unless
    /// `frontmatter` is given too.
    content: Option<String>,
    /// The note's properties, ALL of them: the frontmatter block is replaced
    /// whole (every property left out is removed); the body is kept byte for
    /// byte unless `content` is given too. To change some properties only,
    /// use `set_properties` and `remove_properties`.
    frontmatter: Option<serde_json::Map<String, serde_json::Value>>,
    /// Properties to set, each in place (added when missing), every other
    /// property, comment and byte kept. Example: {"tags": ["project", "idea"],
    /// "status": "done"}. Not with `frontmatter`.
    set_properties: Option<serde_json::Map<String, serde_json::Value>>,
    /// Names of properties to remove, each with its lines only. Example:
    /// ["draft"]. Not with `frontmatter`.
    remove_properties: Option<Vec<String>>,
    /// The `sha256` read_note returned: when the note changed since, nothing
    /// is written.
    expected_sha256: Option<String>,
}

impl From<UpdateNoteRequest> for kiln::UpdateNoteRequest {
    fn from(args: UpdateNoteRequest) -> Self {
        kiln::UpdateNoteRequest {
            path: args.path,
            content: args.content,
            frontmatter: args.frontmatter,
            set_properties: args.set_properties,
            remove_properties: args.remove_properties,
            edit: None,
            expected_sha256: args.expected_sha256,
        }
    }
}

/// What `edit_note` does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(in crate::mcp) enum EditOperation {
    /// `text` after the last line of the note.
    Append,
    /// `text` before the first line of the body (after the frontmatter).
    Prepend,
    /// `text` at the end of the section of `heading`.
    InsertUnderHeading,
    /// The body of the section of `heading` replaced by `text`.
    ReplaceSection,
    /// The one occurrence of `old_text` replaced by `text`.
    ReplaceText,
}

/// `edit_note`'s parameters (unknown properties are refused).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(in crate::mcp) struct EditNoteRequest {
    /// The note's path relative to the kiln root, `/`-separated, `.md`
    /// optional; or its name, an alias or a wikilink (`Hotkeys`,
    /// `[[Hotkeys]]`). The result gives the real path.
    path: String,
    /// `append`, `prepend`, `insert_under_heading` (at the end of the
    /// section of `heading`), `replace_section` (that section's body) or
    /// `replace_text` (`old_text`, which must occur exactly once).
    operation: EditOperation,
    /// The text to add, or the replacement; written with the note's line
    /// ending.
    text: String,
    /// With `insert_under_heading` and `replace_section`: the heading's text
    /// as read_metadata lists it (`Tasks`, without `#`).
    heading: Option<String>,
    /// With `replace_text`: the text to replace, exactly as read_note shows
    /// it; it must occur exactly once in the body.
    old_text: Option<String>,
    /// The `sha256` read_note returned: when the note changed since, nothing
    /// is written.
    expected_sha256: Option<String>,
}

impl EditNoteRequest {
    /// The kiln's request, or what the arguments lack (or have too many of)
    /// for the operation.
    pub(in crate::mcp) fn into_request(self) -> Result<kiln::UpdateNoteRequest, String> {
        let EditNoteRequest {
            path,
            operation,
            text,
            heading,
            old_text,
            expected_sha256,
        } = self;
        let needs_heading = matches!(
            operation,
            EditOperation::InsertUnderHeading | EditOperation::ReplaceSection
        );
        let name = match operation {
            EditOperation::Append => "append",
            EditOperation::Prepend => "prepend",
            EditOperation::InsertUnderHeading => "insert_under_heading",
            EditOperation::ReplaceSection => "replace_section",
            EditOperation::ReplaceText => "replace_text",
        };
        let edit = match (operation, heading, old_text) {
            (_, Some(_), _) if !needs_heading => {
                return Err(format!(
                    "`heading` goes with insert_under_heading and replace_section, not {name}; leave it out"
                ));
            }
            (_, _, Some(_)) if operation != EditOperation::ReplaceText => {
                return Err(format!(
                    "`old_text` goes with replace_text, not {name}; leave it out"
                ));
            }
            (EditOperation::Append, None, None) => kiln::BodyEdit::Append { text },
            (EditOperation::Prepend, None, None) => kiln::BodyEdit::Prepend { text },
            (EditOperation::InsertUnderHeading, Some(heading), None) => {
                kiln::BodyEdit::InsertUnderHeading { heading, text }
            }
            (EditOperation::ReplaceSection, Some(heading), None) => {
                kiln::BodyEdit::ReplaceSection { heading, text }
            }
            (EditOperation::ReplaceText, None, Some(old_text)) => {
                kiln::BodyEdit::ReplaceText { old_text, text }
            }
            (EditOperation::ReplaceText, _, None) => {
                return Err("replace_text needs `old_text`: the text to replace, exactly as read_note shows it".to_owned());
            }
            _ => {
                return Err(format!(
                    "{name} needs `heading`: the heading's text as read_metadata lists it, such as \"Tasks\""
                ));
            }
        };
        Ok(kiln::UpdateNoteRequest {
            edit: Some(edit),
            expected_sha256,
            ..kiln::UpdateNoteRequest::new(path)
        })
    }
}

/// `delete_note`'s parameters (unknown properties are refused).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(in crate::mcp) struct DeleteNoteRequest {
    /// The note's path relative to the kiln root, `/`-separated, `.md`
    /// optional; or, when no note is at that path, its name, an alias or a
    /// wikilink (`Hotkeys`, `[[Hotkeys#Custom hotkeys]]`), found as a link
    /// from the root would find it. The result gives the real path.
    path: String,
    /// Remove the file instead of moving it to `.trash/`.
    #[serde(default)]
    permanent: bool,
}

impl From<DeleteNoteRequest> for kiln::DeleteNoteRequest {
    fn from(args: DeleteNoteRequest) -> Self {
        kiln::DeleteNoteRequest {
            path: args.path,
            permanent: args.permanent,
        }
    }
}

/// `move_note`'s parameters (unknown properties are refused).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(in crate::mcp) struct MoveNoteRequest {
    /// The note to move: its path relative to the kiln root, `/`-separated,
    /// `.md` optional; or, when no note is at that path, its name, an alias
    /// or a wikilink, found as a link from the root would find it.
    path: String,
    /// Where it goes: a path relative to the kiln root, `.md` optional
    /// (`archive/2026/Plan`); missing folders are made. Never an existing
    /// note, never a hidden folder.
    new_path: String,
    /// The `sha256` read_note returned: when the note changed since,
    /// nothing is moved.
    #[serde(default)]
    expected_sha256: Option<String>,
}

impl From<MoveNoteRequest> for kiln::MoveNoteRequest {
    fn from(args: MoveNoteRequest) -> Self {
        kiln::MoveNoteRequest {
            path: args.path,
            new_path: args.new_path,
            expected_sha256: args.expected_sha256,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `T` decoded from `json`, as a call's arguments are.
    fn decode<T: serde::de::DeserializeOwned>(json: Value) -> Result<T, serde_json::Error> {
        serde_json::from_value(json)
    }

    #[test]
    fn text_search_defaults_and_refusals() {
        let request: kiln::TextSearchRequest =
            decode::<TextSearchRequest>(json!({"query": "x", "case": "insensitive"}))
                .unwrap()
                .into();
        assert_eq!(
            (
                request.case,
                request.context_lines,
                request.limit,
                request.regex
            ),
            (kiln::CaseMode::Insensitive, 1, 100, false)
        );
        assert_eq!(
            request.answer_bytes,
            Some(kiln::TextSearchRequest::DEFAULT_ANSWER_BYTES)
        );
        let sized: kiln::TextSearchRequest =
            decode::<TextSearchRequest>(json!({"query": "x", "limit": 100, "cursor": "s1.61.2"}))
                .unwrap()
                .into();
        assert_eq!(
            (sized.limit, sized.answer_bytes, sized.cursor.as_deref()),
            (100, None, Some("s1.61.2"))
        );
        assert!(decode::<TextSearchRequest>(json!({"query": "x", "case": "upper"})).is_err());
        assert!(decode::<TextSearchRequest>(json!({"query": "x", "regexp": true})).is_err());
    }

    #[test]
    fn semantic_search_defaults_and_unknown_fields() {
        let r: kiln::SemanticSearchRequest =
            decode::<SemanticSearchRequest>(json!({"query": "garden"}))
                .unwrap()
                .into();
        assert_eq!(r, kiln::SemanticSearchRequest::new("garden"));
        assert_eq!(r.limit, 10);
        assert_eq!(r.mode, kiln::SearchMode::Semantic);
        assert!(decode::<SemanticSearchRequest>(json!({"query": "x", "k": 3})).is_err());
        assert!(decode::<SemanticSearchRequest>(json!({"query": "x", "mode": "lexical"})).is_err());
        let hybrid: kiln::SemanticSearchRequest =
            decode::<SemanticSearchRequest>(json!({"query": "x", "mode": "hybrid"}))
                .unwrap()
                .into();
        assert_eq!(hybrid.mode, kiln::SearchMode::Hybrid);
    }

    #[test]
    fn property_search_refuses_unknown_and_ill_typed_arguments() {
        for arguments in [
            json!({"properties": {"s": 1}, "limits": 3}),
            json!({"properties": "status"}),
            json!({"folder": "x"}),
        ] {
            assert!(decode::<PropertySearchRequest>(arguments).is_err());
        }
        let request: kiln::PropertySearchRequest =
            decode::<PropertySearchRequest>(json!({"properties": {"s": 1}}))
                .unwrap()
                .into();
        assert_eq!(
            request,
            kiln::PropertySearchRequest::new(Map::from_iter([("s".to_owned(), json!(1))]))
        );
    }

    #[test]
    fn find_links_defaults_are_the_kilns_and_kinds_are_exact() {
        let request: kiln::FindLinksRequest =
            decode::<FindLinksRequest>(json!({"kind": "orphans"}))
                .unwrap()
                .into();
        assert_eq!(
            request,
            kiln::FindLinksRequest::new(kiln::LinkQuery::Orphans)
        );
        let request: kiln::FindLinksRequest =
            decode::<FindLinksRequest>(json!({"kind": "neighbours", "path": "Plan", "depth": 2}))
                .unwrap()
                .into();
        assert_eq!(
            (request.kind, request.depth, request.path.as_deref()),
            (kiln::LinkQuery::Neighbours, Some(2), Some("Plan"))
        );
        for arguments in [
            json!({}),
            json!({"kind": "Broken"}),
            json!({"kind": "neighbors", "path": "Plan"}),
            json!({"kind": "broken", "depth": "2"}),
            json!({"kind": "broken", "note": "x"}),
        ] {
            assert!(
                decode::<FindLinksRequest>(arguments.clone()).is_err(),
                "{arguments}"
            );
        }
    }

    #[test]
    fn list_notes_defaults_are_the_kilns() {
        let request: kiln::ListNotesRequest = decode::<ListNotesRequest>(json!({})).unwrap().into();
        assert_eq!(request, kiln::ListNotesRequest::default());
        assert_eq!((request.recursive, request.limit), (true, 200));
    }

    /// The properties of a write reach the kiln in the order the call's
    /// JSON text gives them (serde_json's `preserve_order`): a sorted map
    /// would write another note than the one asked for.
    #[test]
    fn a_writes_properties_keep_the_order_of_the_call() {
        let create: CreateNoteRequest = serde_json::from_str(
            r#"{"path": "Order", "content": "Body\n",
                "frontmatter": {"zeta": 1, "alpha": 2, "mid": ["b", "a"]}}"#,
        )
        .unwrap();
        let create = kiln::CreateNoteRequest::from(create);
        let keys: Vec<&str> = create
            .frontmatter
            .as_ref()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ["zeta", "alpha", "mid"]);
        let update: UpdateNoteRequest = serde_json::from_str(
            r#"{"path": "Order.md", "frontmatter": {"mid": {"z": true, "a": null}, "zeta": "last"}}"#,
        )
        .unwrap();
        let update = kiln::UpdateNoteRequest::from(update);
        let frontmatter = update.frontmatter.unwrap();
        assert_eq!(frontmatter.keys().collect::<Vec<_>>(), ["mid", "zeta"]);
        assert_eq!(
            serde_json::to_string(&frontmatter["mid"]).unwrap(),
            r#"{"z":true,"a":null}"#
        );
    }
}
