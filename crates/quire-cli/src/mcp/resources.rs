//! The kiln's notes as MCP resources: `resources/list` pages through the
//! notes (from the index), `resources/templates/list` gives the one URI
//! template, `resources/read` returns a note's whole text. The domain side
//! (URIs, pages, reading) is `quire_kiln`; this maps it to rmcp's types
//! and the JSON-RPC error codes (`-32002` for a note that does not exist,
//! invalid params for a URI that names none).

use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::model::{
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate,
};

use quire_kiln::{KilnError, KilnTools, NoteResource, ROOT_URI};

/// The MIME type of a note.
const MARKDOWN: &str = "text/markdown";

/// A page of the notes as resources.
pub(super) async fn list(
    kiln: &Arc<KilnTools>,
    cursor: Option<String>,
) -> Result<ListResourcesResult, ErrorData> {
    let page = blocking(kiln, move |kiln| kiln.list_resources(cursor.as_deref())).await?;
    let mut result =
        ListResourcesResult::with_all_items(page.notes.into_iter().map(resource).collect());
    result.next_cursor = page.next_cursor;
    Ok(result)
}

/// The template every note's URI follows.
pub(super) fn templates() -> ListResourceTemplatesResult {
    ListResourceTemplatesResult::with_all_items(vec![
        ResourceTemplate::new(format!("{ROOT_URI}{{+path}}"), "note")
            .with_title("A note of the kiln")
            .with_description(
                "A markdown note by its path relative to the kiln root, `/`-separated, with `.md`, each \
                 segment percent-encoded (kiln:///projects/Plan.md).",
            )
            .with_mime_type(MARKDOWN),
    ])
}

/// The whole text of the note `uri` names.
pub(super) async fn read(
    kiln: &Arc<KilnTools>,
    uri: String,
) -> Result<ReadResourceResult, ErrorData> {
    let note = blocking(kiln, move |kiln| kiln.read_resource(&uri)).await?;
    Ok(ReadResourceResult::new(vec![
        ResourceContents::TextResourceContents {
            uri: note.uri,
            mime_type: Some(MARKDOWN.to_owned()),
            text: note.text,
            meta: None,
        },
    ]))
}

fn resource(note: NoteResource) -> Resource {
    Resource::new(note.uri, note.path)
        .with_title(note.title)
        .with_mime_type(MARKDOWN)
        .with_size(note.size)
}

/// Runs `operation` off the async runtime, its error as JSON-RPC's.
async fn blocking<T: Send + 'static>(
    kiln: &Arc<KilnTools>,
    operation: impl FnOnce(&KilnTools) -> Result<T, KilnError> + Send + 'static,
) -> Result<T, ErrorData> {
    let kiln = Arc::clone(kiln);
    match tokio::task::spawn_blocking(move || operation(&kiln)).await {
        Ok(outcome) => outcome.map_err(error),
        Err(join_error) => {
            tracing::error!(%join_error, "resource operation failed unexpectedly");
            Err(ErrorData::internal_error(
                "the resource could not be read",
                None,
            ))
        }
    }
}

fn error(error: KilnError) -> ErrorData {
    let message = error.to_string();
    if error.is_not_found() {
        ErrorData::resource_not_found(message, None)
    } else if error.is_invalid() {
        ErrorData::invalid_params(message, None)
    } else {
        ErrorData::internal_error(message, None)
    }
}
