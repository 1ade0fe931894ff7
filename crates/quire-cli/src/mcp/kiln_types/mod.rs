//! The kiln tools' argument and result types as a client sees them: serde
//! decodes the arguments and encodes the results, schemars makes their JSON
//! Schemas (each doc comment is the description a client reads), and each
//! converts to or from the plain type `quire_kiln` works with. The kiln
//! itself knows nothing of JSON arguments or schemas.
//!
//! The names are the kiln's own: they are the schemas' titles and `$defs`
//! names in `tools/list`.

mod args;
mod links;
mod notes;
mod search;
mod writes;

pub(super) use args::{
    CreateNoteRequest, DeleteNoteRequest, EditNoteRequest, FindLinksRequest, KilnInfoRequest,
    ListNotesRequest, MoveNoteRequest, PropertySearchRequest, ReadMetadataRequest, ReadNoteRequest,
    SemanticSearchRequest, TextSearchRequest, UpdateNoteRequest,
};
pub(super) use links::FoundLinks;
pub(super) use notes::{KilnInfo, NoteList, NoteMetadata, NoteRead};
pub(super) use search::{PropertySearch, SemanticSearch, TextSearch};
pub(super) use writes::{NoteCreated, NoteDeleted, NoteMoved, NoteUpdated};
