//! The kiln's writes as typed operations: `create_note`, `update_note` and
//! `delete_note` (issue 11). Every byte goes through the confined file
//! layer: a note is created atomically with its missing folders, replaced
//! atomically only if it is still the file that was read (owner, group and
//! mode kept), and deleted by moving it into the root's `.trash/` (one
//! rename, recoverable, Obsidian's convention) or, when asked, removed.
//! The index is brought up to date at once, so the next call sees the
//! write even before the watcher reports it.
//!
//! What a note's new text is comes from [`super::compose`]; whether the
//! user allows a write is the MCP layer's business (`--writes`), not this
//! module's.

use sha2::{Digest, Sha256};

use super::compose::{ComposeError, compose_new, compose_update};
use super::edit::BodyEdit;
use super::index::KilnIndex;
use super::note_path::NotePath;
use super::read::{KilnError, MAX_NOTE_BYTES, hex};
use quire_fs::FsError;
use quire_grammar::frontmatter::{self, remove_property, set_property};
use quire_grammar::markdown::parse_note;

/// The folder beneath the root that deleted notes are moved into.
pub const TRASH_FOLDER: &str = ".trash";

/// The note [`KilnTools::create_note`](crate::KilnTools::create_note) creates.
#[derive(Clone, Debug, PartialEq)]
pub struct CreateNoteRequest {
    /// The new note's path relative to the kiln root, `/`-separated, `.md`
    /// optional; missing folders are created.
    pub path: String,
    /// The note's markdown (its body, when `frontmatter` is given).
    pub content: String,
    /// Properties to write as the note's YAML frontmatter.
    pub frontmatter: Option<serde_json::Map<String, serde_json::Value>>,
}

/// What `create_note` returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoteCreated {
    /// The note's path (NFC, with `.md`).
    pub path: String,
    /// Its words, as Obsidian counts them.
    pub word_count: usize,
    /// The SHA-256 of the file written (for a later `update_note`).
    pub sha256: String,
}

/// The change [`KilnTools::update_note`](crate::KilnTools::update_note) makes.
#[derive(Clone, Debug, PartialEq)]
pub struct UpdateNoteRequest {
    /// The note's path relative to the kiln root, `/`-separated, `.md` optional.
    pub path: String,
    /// The new body; the frontmatter block is kept byte for byte unless
    /// `frontmatter` is given too.
    pub content: Option<String>,
    /// The note's properties, all of them: the frontmatter block is replaced
    /// whole; the body is kept byte for byte unless `content` is given too.
    pub frontmatter: Option<serde_json::Map<String, serde_json::Value>>,
    /// Properties to set, each in place (added when missing), every other
    /// byte of the frontmatter kept; not with `frontmatter`.
    pub set_properties: Option<serde_json::Map<String, serde_json::Value>>,
    /// Properties to remove, each with its lines only; not with
    /// `frontmatter`.
    pub remove_properties: Option<Vec<String>>,
    /// A change to the body that does not resend it (`edit_note`): not with
    /// `content` or `frontmatter`.
    pub edit: Option<BodyEdit>,
    /// The `sha256` read_note returned: when the note changed since, nothing
    /// is written.
    pub expected_sha256: Option<String>,
}

impl UpdateNoteRequest {
    /// An update of the note `path` that changes nothing yet: set the parts
    /// to change.
    pub fn new(path: impl Into<String>) -> Self {
        UpdateNoteRequest {
            path: path.into(),
            content: None,
            frontmatter: None,
            set_properties: None,
            remove_properties: None,
            edit: None,
            expected_sha256: None,
        }
    }
}

/// What `update_note` returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoteUpdated {
    /// The note's path (NFC, with `.md`).
    pub path: String,
    /// What was replaced: `content`, `frontmatter`, or both.
    pub updated: Vec<&'static str>,
    /// Its words now, as Obsidian counts them.
    pub word_count: usize,
    /// The SHA-256 of the file now.
    pub sha256: String,
    /// The properties the update removed, in key order.
    pub removed_properties: Vec<String>,
    /// The properties it set to a new value (added ones included), in key
    /// order.
    pub changed_properties: Vec<String>,
}

/// The note [`KilnTools::delete_note`](crate::KilnTools::delete_note) deletes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeleteNoteRequest {
    /// The note's path relative to the kiln root, `/`-separated, `.md` optional.
    pub path: String,
    /// Remove the file instead of moving it to `.trash/`.
    pub permanent: bool,
}

/// What `delete_note` returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoteDeleted {
    /// The note's path (NFC, with `.md`).
    pub path: String,
    /// Whether it was deleted.
    pub deleted: bool,
    /// Where it was moved (`.trash/...`); `None` when removed for good.
    pub trashed_to: Option<String>,
    /// How many notes linked to it.
    pub backlink_count: usize,
    /// The notes that linked to it (their links now lead nowhere).
    pub backlinks: Vec<String>,
    /// Notes with a link that matched it among several notes (Obsidian
    /// picked it; the link now leads to another of them).
    pub ambiguous_backlinks: Vec<String>,
}

/// The note [`KilnTools::move_note`](crate::KilnTools::move_note) moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveNoteRequest {
    /// The note's path relative to the kiln root, `/`-separated, `.md`
    /// optional (or its name, as the other tools take it).
    pub path: String,
    /// Where it goes: a path relative to the root, `.md` optional; missing
    /// folders are made. Never an existing note.
    pub new_path: String,
    /// The `sha256` read_note returned: when the note changed since,
    /// nothing is moved.
    pub expected_sha256: Option<String>,
}

/// A note whose links `move_note` rewrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RelinkedNote {
    /// The note's path (after the move, for the moved note itself).
    pub path: String,
    /// The lines of the links rewritten (1-based, each once).
    pub lines: Vec<usize>,
    /// How many of its links were rewritten.
    pub links: usize,
}

/// What `move_note` returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoteMoved {
    /// Where the note was (NFC, with `.md`).
    pub path: String,
    /// Where it is now.
    pub new_path: String,
    /// The SHA-256 of the moved note's file now.
    pub sha256: String,
    /// The notes whose links were rewritten to keep leading where they
    /// led, in path order (the moved note among them when its own links
    /// changed).
    pub relinked: Vec<RelinkedNote>,
    /// How many links were rewritten in all.
    pub links_changed: usize,
}

/// One of the kiln's writes, as asked for.
#[derive(Clone, Debug, PartialEq)]
pub enum WriteRequest {
    /// `create_note`.
    Create(CreateNoteRequest),
    /// `update_note`.
    Update(UpdateNoteRequest),
    /// `delete_note`.
    Delete(DeleteNoteRequest),
    /// `move_note`.
    Move(MoveNoteRequest),
}

impl WriteRequest {
    /// The path the request names, as given.
    pub fn path(&self) -> &str {
        match self {
            WriteRequest::Create(request) => &request.path,
            WriteRequest::Update(request) => &request.path,
            WriteRequest::Delete(request) => &request.path,
            WriteRequest::Move(request) => &request.path,
        }
    }
}

/// One of the kiln's writes, done.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WriteDone {
    /// What `create_note` returns.
    Created(NoteCreated),
    /// What `update_note` returns.
    Updated(NoteUpdated),
    /// What `delete_note` returns.
    Deleted(NoteDeleted),
    /// What `move_note` returns.
    Moved(NoteMoved),
}

/// The properties of a request, in order.
pub(super) fn properties(
    map: Option<&serde_json::Map<String, serde_json::Value>>,
) -> Option<Vec<(String, serde_json::Value)>> {
    map.map(|map| {
        map.iter()
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect()
    })
}

/// The text of a new note, checked for size.
pub(super) fn new_note_text(request: &CreateNoteRequest) -> Result<String, KilnError> {
    let properties = properties(request.frontmatter.as_ref());
    let text = compose_new(&request.content, properties.as_deref())?;
    check_size(&text)?;
    Ok(text)
}

/// The text of `old` once `request` is applied.
pub(super) fn updated_text(old: &str, request: &UpdateNoteRequest) -> Result<String, KilnError> {
    if let Some(edit) = &request.edit {
        return edited_text(old, request, edit);
    }
    let set = request.set_properties.as_ref();
    let removed = request.remove_properties.as_deref();
    let edits = set.is_some() || removed.is_some();
    if edits && request.frontmatter.is_some() {
        return Err(ComposeError::WholeAndEdits.into());
    }
    if let (Some(set), Some(removed)) = (set, removed)
        && let Some(key) = removed.iter().find(|key| set.contains_key(*key))
    {
        return Err(ComposeError::SetAndRemoved(key.clone()).into());
    }
    let mut text = if request.content.is_some() || request.frontmatter.is_some() || !edits {
        let properties = properties(request.frontmatter.as_ref());
        compose_update(old, request.content.as_deref(), properties.as_deref())?
    } else {
        old.to_owned()
    };
    for (key, value) in set.into_iter().flatten() {
        text = set_property(&text, key, value).map_err(ComposeError::from)?;
    }
    for key in removed.into_iter().flatten() {
        text = remove_property(&text, key).map_err(ComposeError::from)?;
    }
    check_size(&text)?;
    Ok(text)
}

/// `old` with `edit` made to its body, the frontmatter block and every
/// other byte kept; refused with `content` or `frontmatter` (a change that
/// resends them is update_note's).
fn edited_text(
    old: &str,
    request: &UpdateNoteRequest,
    edit: &BodyEdit,
) -> Result<String, KilnError> {
    if request.content.is_some() || request.frontmatter.is_some() {
        return Err(ComposeError::EditAndReplace.into());
    }
    let body = match frontmatter::parse(old) {
        Ok(document) => document.body.range(),
        // Its block cannot be read: where the body starts is not known.
        Err(_) => return Err(ComposeError::EditBrokenFrontmatter.into()),
    };
    let mut text = format!(
        "{}{}{}",
        &old[..body.start],
        super::edit::edited_body(old, body.clone(), edit)?,
        &old[body.end..]
    );
    for (key, value) in request.set_properties.iter().flatten() {
        text = set_property(&text, key, value).map_err(ComposeError::from)?;
    }
    for key in request.remove_properties.iter().flatten() {
        text = remove_property(&text, key).map_err(ComposeError::from)?;
    }
    check_size(&text)?;
    Ok(text)
}

fn check_size(text: &str) -> Result<(), KilnError> {
    if text.len() as u64 > MAX_NOTE_BYTES {
        return Err(KilnError::Write(WriteRefusal::TooLarge {
            size: text.len() as u64,
        }));
    }
    Ok(())
}

/// The properties an update removes from the note `old` becomes `new`,
/// and those it sets to a new value (added ones included), each in key
/// order: what the user is told before a replace that reads like a one-key
/// edit wipes the others. Nothing when the old block cannot be read.
pub(super) fn property_changes(old: &str, new: &str) -> (Vec<String>, Vec<String>) {
    let (mut removed, mut changed) = (Vec::new(), Vec::new());
    // The frontmatter alone: no need to read the body's markdown.
    let values = |text: &str| {
        frontmatter::parse(text)
            .ok()
            .and_then(|document| document.frontmatter)
            .map(|fm| fm.values)
    };
    let Some(before) = values(old) else {
        return (removed, changed);
    };
    let after = values(new).unwrap_or_default();
    for (key, value) in &before {
        match after.get(key) {
            None => removed.push(key.clone()),
            Some(now) if now != value => changed.push(key.clone()),
            Some(_) => {}
        }
    }
    changed.extend(
        after
            .keys()
            .filter(|key| !before.contains_key(*key))
            .cloned(),
    );
    (removed, changed)
}

/// What was updated, by name.
pub(super) fn updated_parts(request: &UpdateNoteRequest) -> Vec<&'static str> {
    let mut parts = Vec::new();
    if request.content.is_some() {
        parts.push("content");
    }
    if request.edit.is_some() {
        parts.push("body");
    }
    if request.frontmatter.is_some() {
        parts.push("frontmatter");
    }
    if request.set_properties.is_some() || request.remove_properties.is_some() {
        parts.push("properties");
    }
    parts
}

/// The digest of `bytes`, as read_note gives it.
pub(super) fn sha256(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Words in `text`, as Obsidian counts them.
pub(super) fn word_count(text: &str) -> usize {
    parse_note(text).word_count
}

/// The notes that link to `path`, and those whose link to it was one of
/// several matches.
pub(super) fn linking_notes(index: &KilnIndex, path: &NotePath) -> (Vec<String>, Vec<String>) {
    let mut certain = Vec::new();
    let mut ambiguous = Vec::new();
    for source in index.backlinks(path) {
        let Some(note) = index.get(source) else {
            continue;
        };
        let links: Vec<_> = note
            .links
            .iter()
            .filter(|link| link.path.as_ref() == Some(path))
            .collect();
        if links.iter().all(|link| link.ambiguous) {
            ambiguous.push(source.to_string());
        } else {
            certain.push(source.to_string());
        }
    }
    (certain, ambiguous)
}

/// A write the kiln refuses.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WriteRefusal {
    /// `create_note` on a note that exists.
    #[error("`{path}` already exists; nothing was written. Change the existing note instead")]
    Exists {
        /// The note.
        path: String,
    },
    /// `expected_sha256` no longer matches.
    #[error(
        "`{path}` changed since it was read (its sha256 is no longer `{expected}`); nothing was written. \
         Read it again and make the change on what it holds now"
    )]
    Changed {
        /// The note.
        path: String,
        /// The digest given.
        expected: String,
    },
    /// The note's file is not the one the user approved a change to: it
    /// was replaced (by another file, or a link to one) or changed since.
    #[error(
        "`{path}` is no longer the file the change was approved for (it was replaced or changed since); nothing \
         was written. Read it again and ask for the change on what is there now"
    )]
    Replaced {
        /// The note.
        path: String,
    },
    /// The trash folder is a symbolic link: a note moved there would land
    /// wherever it leads, perhaps among the live notes.
    #[error(
        "the trash folder `{folder}` is a symbolic link (it leads {leads_to}), so a note moved there would not \
         leave the notes; nothing was deleted. Make `{folder}` a real folder, or delete with `permanent: true`"
    )]
    TrashIsLink {
        /// The trash folder.
        folder: String,
        /// Where it leads: to a folder of the kiln (quoted), or outside.
        leads_to: String,
    },
    /// The note would be too large.
    #[error("the note would be {size} bytes, over the 16 MiB a note may hold; nothing was written")]
    TooLarge {
        /// Its size.
        size: u64,
    },
    /// `permanent` on a note that is a symbolic link.
    #[error(
        "`{path}` is a symbolic link to another file; it was not removed. Delete it without `permanent` to move \
         the link to the trash (the file it leads to is kept)"
    )]
    LinkedNote {
        /// The note.
        path: String,
    },
    /// The text cannot be composed.
    #[error(transparent)]
    Compose(#[from] ComposeError),
    /// `move_note` onto a file that exists.
    #[error(
        "`{new_path}` already exists, so `{path}` was not moved there (a move never replaces a note); nothing was \
         changed. Choose another path, or delete or rename `{new_path}` first"
    )]
    MoveOntoExisting {
        /// The note to move.
        path: String,
        /// Where it was to go.
        new_path: String,
    },
    /// `move_note` to where no note can be.
    #[error("`{path}` cannot be moved to `{new_path}`: {why}; nothing was changed")]
    MoveNowhere {
        /// The note to move.
        path: String,
        /// Where it was to go.
        new_path: String,
        /// Why not.
        why: &'static str,
    },
    /// A link that cannot be kept leading to where it led.
    #[error(transparent)]
    Relink(#[from] super::relink::RelinkError),
    /// The notes whose links a move rewrites are not those the user
    /// approved.
    #[error(
        "the notes linking to `{path}` changed since the move was shown for approval (now: {now}); nothing was \
         changed. Ask for the move again"
    )]
    RelinkedChanged {
        /// The note to move.
        path: String,
        /// The notes the move would change now.
        now: String,
    },
    /// A move that failed midway, and what undoing it achieved.
    #[error("{}", move_failed(path, new_path, failed_at, error, not_undone))]
    MoveFailed {
        /// The note to move.
        path: String,
        /// Where it was to go.
        new_path: String,
        /// The file whose change failed.
        failed_at: String,
        /// Why it failed.
        error: String,
        /// The files whose changes could not be undone (empty: the kiln is
        /// as it was).
        not_undone: Vec<String>,
    },
}

fn move_failed(
    path: &str,
    new_path: &str,
    failed_at: &str,
    error: &str,
    not_undone: &[String],
) -> String {
    let head = format!("moving `{path}` to `{new_path}` failed at `{failed_at}` ({error})");
    if not_undone.is_empty() {
        format!(
            "{head}; every change made was undone, so nothing changed. Fix the cause and move it again"
        )
    } else {
        format!(
            "{head}, and these changes could not be undone: {}. Check those notes",
            not_undone
                .iter()
                .map(|path| format!("`{path}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

impl From<super::relink::RelinkError> for KilnError {
    fn from(error: super::relink::RelinkError) -> Self {
        KilnError::Write(WriteRefusal::Relink(error))
    }
}

impl From<ComposeError> for KilnError {
    fn from(error: ComposeError) -> Self {
        KilnError::Write(WriteRefusal::Compose(error))
    }
}

/// The error for a file that exists where a note is to be created.
pub(super) fn exists(path: &NotePath, error: FsError) -> KilnError {
    match error {
        FsError::AlreadyExists { .. } => KilnError::Write(WriteRefusal::Exists {
            path: path.to_string(),
        }),
        other => other.into(),
    }
}
