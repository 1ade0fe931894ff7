//! The kiln's write tools (`create_note`, `update_note`, `delete_note`), a
//! router of their own: the server offers them only when told to
//! (`--writes allow`); otherwise they are not listed, and a call to one is
//! refused as a call to any tool the server does not offer.

use rmcp::handler::server::common::{schema_for_output, schema_for_type};
use rmcp::handler::server::tool::ToolName;
use rmcp::model::JsonObject;
use rmcp::{tool, tool_router};

use super::kiln::category;
use super::result::{ToolFuture, run_tool};
use super::server::QuireServer;
use crate::kiln::{
    CreateNoteRequest, DeleteNoteRequest, KilnTools, NoteCreated, NoteDeleted, NoteUpdated,
    UpdateNoteRequest,
};

#[tool_router(router = kiln_write_router, vis = "pub(super)")]
impl QuireServer {
    /// Create a note.
    #[tool(
        name = "create_note",
        description = "Create a markdown note in the kiln: `content` (its markdown) and optionally `frontmatter` (properties \
                       written as its YAML block). Example: {\"path\": \"projects/Plan\", \"content\": \"# Plan\\n\", \
                       \"frontmatter\": {\"status\": \"draft\", \"tags\": [\"work\"]}}. The path is relative to the kiln root, \
                       `.md` optional; missing folders are created. Refused when the note exists (use update_note). Returns \
                       `path`, `word_count` and the file's `sha256`.",
        input_schema = schema_for_type::<CreateNoteRequest>(),
        output_schema = schema_for_output::<NoteCreated>(),
        meta = category("manipulate"),
        annotations(
            title = "Create note (manipulate)",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    fn create_note(&self, tool: ToolName, args: JsonObject) -> ToolFuture<'_> {
        run_tool(&self.kiln, tool, args, KilnTools::create_note)
    }

    /// Replace a note's body, its properties, or both.
    #[tool(
        name = "update_note",
        description = "Replace a note's body (`content`: its frontmatter block is kept byte for byte), its properties \
                       (`frontmatter`: the whole block is replaced, the body kept byte for byte), or both. Example: \
                       {\"path\": \"projects/Plan\", \"frontmatter\": {\"status\": \"done\"}, \"expected_sha256\": \"<sha256 from \
                       read_note>\"}. With `expected_sha256`, nothing is written if the note changed since it was read. A note \
                       whose frontmatter is broken is changed only by replacing its frontmatter. Returns `path`, `updated`, \
                       `word_count` and the new `sha256`.",
        input_schema = schema_for_type::<UpdateNoteRequest>(),
        output_schema = schema_for_output::<NoteUpdated>(),
        meta = category("manipulate"),
        annotations(
            title = "Update note (manipulate)",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    fn update_note(&self, tool: ToolName, args: JsonObject) -> ToolFuture<'_> {
        run_tool(&self.kiln, tool, args, KilnTools::update_note)
    }

    /// Delete a note (into the trash).
    #[tool(
        name = "delete_note",
        description = "Delete a note: it is moved into `.trash/` in the kiln root (recoverable, as Obsidian does), or removed \
                       with `permanent: true`. Example: {\"path\": \"projects/Old plan\"}. Returns `deleted`, `trashed_to`, and \
                       the notes that linked to it (`backlinks`, `backlink_count`; `ambiguous_backlinks` for links that matched \
                       it among several notes), whose links now lead nowhere.",
        input_schema = schema_for_type::<DeleteNoteRequest>(),
        output_schema = schema_for_output::<NoteDeleted>(),
        meta = category("manipulate"),
        annotations(
            title = "Delete note (manipulate)",
            read_only_hint = false,
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    fn delete_note(&self, tool: ToolName, args: JsonObject) -> ToolFuture<'_> {
        run_tool(&self.kiln, tool, args, KilnTools::delete_note)
    }
}
