//! A note's `path` argument given as people and wikilinks name a note: its
//! name, one of its aliases, or a wikilink (`Hotkeys`, `Keyboard shortcuts`,
//! `[[Hotkeys]]`, `[[Hotkeys#Custom hotkeys]]`), turned into the note's
//! path.
//!
//! A path that names a note on disk is that note, as before; only a path
//! that names none is read as a name. The name is resolved as the index
//! resolves a link written in a note at the vault root ([`resolve`]), and
//! when no note has it as a file name, it is looked for among the notes'
//! aliases (ignoring case, as Obsidian's suggestions do). Several notes is
//! an error listing them, never a guess: a tool that writes must act on the
//! note the caller meant.

use super::index::KilnIndex;
use super::note_path::{NotePath, nfc};
use super::resolve::{MAX_CANDIDATES, Resolution, link_path, resolve};

/// What a note's name resolves to.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Named {
    /// The note's path.
    Note(NotePath),
    /// No note has the name: the argument stays a path (and its error, with
    /// suggestions, is the path's).
    Nothing,
    /// Several notes have it.
    Several {
        /// The first [`MAX_CANDIDATES`] of them, in the order a link would
        /// prefer them.
        candidates: Vec<String>,
        /// How many in all.
        count: usize,
    },
}

/// The link target inside `given` when it is written as a wikilink or an
/// embed (`[[...]]`, `![[...]]`), else `given` itself, trimmed.
pub(crate) fn link_target(given: &str) -> (&str, bool) {
    let trimmed = given.trim();
    let inner = trimmed
        .strip_prefix('!')
        .unwrap_or(trimmed)
        .strip_prefix("[[")
        .and_then(|rest| rest.strip_suffix("]]"));
    match inner {
        Some(inner) => (inner, true),
        None => (trimmed, false),
    }
}

/// The note `target` (a link target, without brackets) names from the
/// vault root, by file name or else by alias.
pub(crate) fn note_named(target: &str, index: &KilnIndex) -> Named {
    let name = link_path(target);
    if name.is_empty() {
        return Named::Nothing;
    }
    // A link resolves relative to the note it is written in only for `./`
    // and `../` targets, which from the root lead nowhere or to the root's
    // notes; a placeholder note at the root stands for "written at the
    // root".
    let Ok(at_root) = NotePath::parse_relative("_") else {
        return Named::Nothing;
    };
    match resolve(target, &at_root, index.note_set()) {
        Resolution::Resolved(path) => Named::Note(path),
        Resolution::Ambiguous {
            candidates,
            match_count,
            ..
        } => Named::Several {
            candidates: candidates.iter().map(ToString::to_string).collect(),
            count: match_count,
        },
        // A tool's note is never an attachment.
        Resolution::Attachment(_) | Resolution::Unresolved => by_alias(name, index),
    }
}

fn by_alias(name: &str, index: &KilnIndex) -> Named {
    let wanted = nfc(name).to_lowercase();
    let mut found = index.notes().filter(|note| {
        note.facts
            .aliases
            .iter()
            .any(|alias| nfc(alias.trim()).to_lowercase() == wanted)
    });
    let Some(first) = found.next() else {
        return Named::Nothing;
    };
    let rest: Vec<_> = found.collect();
    if rest.is_empty() {
        return Named::Note(first.path.clone());
    }
    let count = rest.len() + 1;
    let candidates = std::iter::once(first)
        .chain(rest)
        .take(MAX_CANDIDATES)
        .map(|note| note.path.to_string())
        .collect();
    Named::Several { candidates, count }
}
