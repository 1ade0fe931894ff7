//! Reading a note of the kiln: the `read_note` operation.
//!
//! The path argument becomes a [`NotePath`] (refused with a [`PathError`]
//! when it cannot name a note), the file is found and read through the
//! confined file layer ([`Workspace`]), and [`select_lines`] picks the lines
//! asked for. A note whose file name is written NFD on disk (as macOS
//! writes them) is found by its NFC path. A missing note is
//! [`KilnError::NotFound`] with the closest notes there are, so a model can
//! correct its call.

use sha2::{Digest, Sha256};

use super::error::PathError;
use super::excerpt::{ExcerptLimits, LineSelection, SelectionError, select_lines};
use super::note_path::NotePath;
use super::suggest::suggest;
use quire_fs::{FsError, Located, WalkEntry, WalkOptions, Workspace};

/// How many suggestions a missing note's error lists.
const SUGGESTIONS: usize = 5;

/// The largest note read (16 MiB): a note is text a person writes, and a
/// larger file would only exhaust memory.
pub const MAX_NOTE_BYTES: u64 = 16 * 1024 * 1024;

/// The lines of a note [`KilnTools::read_note`](crate::KilnTools::read_note)
/// reads: the whole note, or one of `head`, `tail` or a range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadNoteRequest {
    /// The note's path relative to the kiln root, `/`-separated, `.md` optional.
    pub path: String,
    /// The first line to return, from 1 (with `end_line`: an inclusive range).
    pub start_line: Option<usize>,
    /// The last line to return, inclusive.
    pub end_line: Option<usize>,
    /// Return only the first N lines.
    pub head: Option<usize>,
    /// Return only the last N lines.
    pub tail: Option<usize>,
}

/// What [`KilnTools::read_note`](crate::KilnTools::read_note) returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoteRead {
    /// The note's path, normalized (NFC, with `.md`).
    pub path: String,
    /// The lines returned, as in the file (line endings included).
    pub content: String,
    /// How many lines the note has.
    pub total_lines: usize,
    /// How many lines `content` holds.
    pub lines_returned: usize,
    /// The first line returned, from 1.
    pub start_line: usize,
    /// The last line returned (`start_line - 1` when none is).
    pub end_line: usize,
    /// The SHA-256 of the whole file, hex: give it to a write to refuse a
    /// lost update.
    pub sha256: String,
    /// Set when the range asked for went past the end: how it was clamped.
    pub clamped: Option<String>,
    /// Set when the read stopped at a limit: where, and the range to read on.
    pub truncated: Option<String>,
    /// With `truncated`: the `start_line` to read on from.
    pub next_start_line: Option<usize>,
}

/// Why a kiln operation could not be carried out.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KilnError {
    /// The path argument cannot name a note.
    #[error(transparent)]
    Path(#[from] PathError),
    /// The line arguments do not make one selection.
    #[error(transparent)]
    Selection(#[from] SelectionError),
    /// No note has the path.
    #[error("there is no note `{path}`{}", did_you_mean(.suggestions))]
    NotFound {
        /// The note asked for, normalized.
        path: String,
        /// The closest notes there are, closest first.
        suggestions: Vec<String>,
    },
    /// A note's name (or alias, or wikilink) given for its path that
    /// several notes have.
    #[error(
        "`{name}` names {count} notes: {}{}; give the path of the one you mean",
        .candidates.iter().map(|path| format!("`{path}`")).collect::<Vec<_>>().join(", "),
        if *.count > .candidates.len() { ", ..." } else { "" }
    )]
    Ambiguous {
        /// The name as given (escaped, clipped).
        name: String,
        /// The notes that have it, the one a link would lead to first.
        candidates: Vec<String>,
        /// How many notes have it in all.
        count: usize,
    },
    /// The file layer refused or failed (outside the root, not a file, too
    /// large, not UTF-8, unreadable).
    #[error(transparent)]
    File(#[from] FsError),
    /// The index of the kiln is still being built.
    #[error("the kiln's index is still being built ({:.1} s so far); retry in a moment", .elapsed.as_secs_f64())]
    IndexBuilding {
        /// How long the build has run.
        elapsed: std::time::Duration,
    },
    /// The listing's arguments do not make one.
    #[error(transparent)]
    List(#[from] super::listing::ListError),
    /// The index could not be built.
    #[error("the kiln's index could not be built: {0}")]
    IndexFailed(String),
    /// A write the kiln refuses (the note exists, changed since it was
    /// read, would be too large, or its text cannot be composed).
    #[error(transparent)]
    Write(#[from] super::write::WriteRefusal),
    /// A resource URI that names no note.
    #[error(transparent)]
    Uri(#[from] super::resources::UriError),
    /// The search's arguments do not make one.
    #[error(transparent)]
    Search(#[from] super::search::SearchError),
    /// The property search's arguments do not make one.
    #[error(transparent)]
    Properties(#[from] super::properties::PropertySearchError),
    /// `find_links`'s arguments do not make a query.
    #[error(transparent)]
    Links(#[from] super::links::FindLinksError),
    /// An `edit_note` change that cannot be made (no such heading, a text
    /// that is not there once).
    #[error(transparent)]
    Edit(#[from] super::edit::EditError),
    /// The semantic search's arguments do not make one.
    #[error(transparent)]
    SemanticSearch(#[from] super::semantic_search::SemanticSearchError),
    /// Semantic search cannot answer: no embedder, or it is loading.
    #[error(transparent)]
    Semantic(#[from] super::semantic::SemanticUnavailable),
}

fn did_you_mean(suggestions: &[String]) -> String {
    match suggestions {
        [] => ", nor any with a similar path; list the notes to see those there are".to_owned(),
        _ => format!(
            "; did you mean {}?",
            suggestions
                .iter()
                .map(|path| format!("`{path}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

impl KilnError {
    /// Whether the caller's arguments were wrong (as opposed to a missing
    /// note or a file that failed).
    pub fn is_invalid(&self) -> bool {
        match self {
            // The arguments were right; a file failed midway.
            KilnError::Write(super::write::WriteRefusal::MoveFailed { .. }) => false,
            KilnError::Path(_)
            | KilnError::Selection(_)
            | KilnError::List(_)
            | KilnError::Uri(_)
            | KilnError::Write(_)
            | KilnError::Search(_)
            | KilnError::Properties(_)
            | KilnError::Links(_)
            | KilnError::Edit(_)
            | KilnError::SemanticSearch(_)
            | KilnError::Ambiguous { .. } => true,
            KilnError::NotFound { .. }
            | KilnError::Semantic(_)
            | KilnError::IndexBuilding { .. }
            | KilnError::IndexFailed(_) => false,
            KilnError::File(error) => {
                !error.retryable() && !matches!(error, FsError::NotFound { .. })
            }
        }
    }

    /// Whether semantic search has no embedder (none configured or
    /// installed, or it failed to load).
    pub fn is_unavailable(&self) -> bool {
        matches!(
            self,
            KilnError::Semantic(super::semantic::SemanticUnavailable::NoEmbedder(_))
        )
    }

    /// Whether no note was found at the path.
    pub fn is_not_found(&self) -> bool {
        matches!(
            self,
            KilnError::NotFound { .. } | KilnError::File(FsError::NotFound { .. })
        )
    }

    /// Whether the same call may succeed if made again.
    pub fn retryable(&self) -> bool {
        match self {
            KilnError::File(error) => error.retryable(),
            KilnError::IndexBuilding { .. } => true,
            KilnError::Semantic(unavailable) => !matches!(
                unavailable,
                super::semantic::SemanticUnavailable::NoEmbedder(_)
            ),
            _ => false,
        }
    }
}

/// The kiln's read operations over a root folder.
#[derive(Clone, Debug)]
pub(crate) struct KilnReader {
    workspace: Workspace,
    limits: ExcerptLimits,
}

impl KilnReader {
    /// A reader of the notes beneath `workspace`'s root, with the default
    /// limits.
    pub(crate) fn new(workspace: Workspace) -> Self {
        KilnReader {
            workspace,
            limits: ExcerptLimits::default(),
        }
    }

    /// The same reader returning at most `limits` per read.
    pub(crate) fn with_limits(mut self, limits: ExcerptLimits) -> Self {
        self.limits = limits;
        self
    }

    /// The workspace the notes are beneath.
    pub(crate) fn workspace(&self) -> &Workspace {
        &self.workspace
    }

    /// [`Self::read_note`], asking `find` for the file of a note that is
    /// not at its own path (an NFD name on disk), or for the error that says
    /// it is missing (with suggestions): the kiln's index knows both without
    /// walking the root.
    pub(super) fn read_note_finding(
        &self,
        request: &ReadNoteRequest,
        find: impl FnOnce(&NotePath) -> Result<String, KilnError>,
    ) -> Result<NoteRead, KilnError> {
        let selection = LineSelection::from_arguments(
            request.start_line,
            request.end_line,
            request.head,
            request.tail,
        )?;
        let path = NotePath::parse(&request.path, self.workspace.root())?;
        let located = self.locate_finding(&path, find)?;
        let bytes = located.open()?.read(MAX_NOTE_BYTES)?;
        let sha256 = hex(&Sha256::digest(&bytes));
        let text = String::from_utf8(bytes).map_err(|error| FsError::NotUtf8 {
            path: path.to_string(),
            offset: error.utf8_error().valid_up_to(),
        })?;
        let excerpt = select_lines(&text, selection, self.limits);
        Ok(NoteRead {
            path: path.to_string(),
            content: excerpt.content.to_owned(),
            total_lines: excerpt.total_lines,
            lines_returned: excerpt.lines_returned,
            start_line: excerpt.start_line,
            end_line: excerpt.end_line,
            sha256,
            clamped: excerpt.clamped.map(|clamped| clamped.to_string()),
            truncated: excerpt.truncated.map(|truncated| truncated.to_string()),
            next_start_line: excerpt.truncated.map(|truncated| truncated.next_start_line),
        })
    }

    /// The file of the note `path`: at its own path, else where `find` says
    /// (see [`Self::read_note_finding`]).
    pub(super) fn locate_finding(
        &self,
        path: &NotePath,
        find: impl FnOnce(&NotePath) -> Result<String, KilnError>,
    ) -> Result<Located, KilnError> {
        match self.workspace.locate(path.as_str()) {
            Ok(located) if located.exists() => Ok(located),
            Ok(_) | Err(FsError::NotFound { .. }) => {
                let on_disk = find(path)?;
                Ok(self.workspace.locate_shown(&on_disk, path.as_str())?)
            }
            Err(error) => Err(error.into()),
        }
    }

    /// The file of the note `path` that is not at its own path: the note
    /// whose name normalizes to it (an NFD name on disk), found by walking
    /// the root; else not found, with suggestions.
    pub(super) fn find_by_walking(&self, path: &NotePath) -> Result<String, KilnError> {
        let notes = self.notes_on_disk();
        if let Some((_, on_disk)) = notes.iter().find(|(note, _)| note == path) {
            return Ok(on_disk.clone());
        }
        let suggestions = suggest(path, notes.iter().map(|(note, _)| note), SUGGESTIONS);
        Err(KilnError::NotFound {
            path: path.to_string(),
            suggestions: suggestions.iter().map(ToString::to_string).collect(),
        })
    }

    /// Every note beneath the root with its path as on disk (which differs
    /// from the note's path only in normalization). Walked on demand until
    /// the kiln keeps an index.
    fn notes_on_disk(&self) -> Vec<(NotePath, String)> {
        let Ok(walk) = self.workspace.walk("", WalkOptions::new().extension("md")) else {
            return Vec::new();
        };
        walk.filter_map(|entry| match entry {
            WalkEntry::File(file) => {
                let note = NotePath::parse_relative(&file.path).ok()?;
                Some((note, file.path))
            }
            _ => None,
        })
        .collect()
    }
}

/// `bytes` as lowercase hexadecimal.
pub(super) fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut text, byte| {
            let _ = write!(text, "{byte:02x}");
            text
        })
}

#[cfg(test)]
#[path = "read_tests.rs"]
mod tests;
