//! Which note a wikilink or markdown link target names, as Obsidian
//! decides it. Written by hand: the rules are Obsidian's own, and no crate
//! implements them.

use super::note_path::{AboveTop, NotePath, has_note_extension, lexical_segments, nfc};
use super::note_set::NoteSet;
use quire_grammar::markdown::is_attachment_name;

/// The most candidates an [`Resolution::Ambiguous`] lists: a kiln with
/// thousands of `index` notes must not copy them all for every link.
pub(crate) const MAX_CANDIDATES: usize = 16;

/// Which note a link target names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Resolution {
    /// Exactly one note matches.
    Resolved(NotePath),
    /// Several notes match; the link goes to `chosen`, the shortest path
    /// (ties: the first in path order), as in Obsidian.
    Ambiguous {
        /// The note the link goes to.
        chosen: NotePath,
        /// The first [`MAX_CANDIDATES`] matches, `chosen` first, then by
        /// length and path.
        candidates: Vec<NotePath>,
        /// How many notes matched in all.
        match_count: usize,
    },
    /// The target names an attachment ([`is_attachment_name`]) that
    /// exists: this one (own folder first, then the shortest path).
    Attachment(String),
    /// Nothing matches: a broken link.
    Unresolved,
}

impl Resolution {
    /// The note the link goes to, if any.
    pub(crate) fn path(&self) -> Option<&NotePath> {
        match self {
            Resolution::Resolved(path) | Resolution::Ambiguous { chosen: path, .. } => Some(path),
            Resolution::Attachment(_) | Resolution::Unresolved => None,
        }
    }

    /// The attachment the link goes to, if it goes to one.
    pub(crate) fn attachment(&self) -> Option<&str> {
        match self {
            Resolution::Attachment(path) => Some(path),
            _ => None,
        }
    }

    /// Whether more than one note matched.
    pub(crate) fn is_ambiguous(&self) -> bool {
        matches!(self, Resolution::Ambiguous { .. })
    }

    /// The resolution of matches already in preference order.
    fn of<'a>(mut matches: impl Iterator<Item = &'a NotePath>) -> Resolution {
        let Some(chosen) = matches.next() else {
            return Resolution::Unresolved;
        };
        let Some(second) = matches.next() else {
            return Resolution::Resolved(chosen.clone());
        };
        let mut candidates = vec![chosen.clone(), second.clone()];
        let mut match_count = 2;
        for other in matches {
            if candidates.len() < MAX_CANDIDATES {
                candidates.push(other.clone());
            }
            match_count += 1;
        }
        Resolution::Ambiguous {
            chosen: chosen.clone(),
            candidates,
            match_count,
        }
    }
}

/// Resolves a link `target` written in the note `source`, as Obsidian does:
///
/// - An `|alias`, then a `#heading` or `#^block` part, is cut off, and the
///   rest trimmed and NFC-normalized; an empty rest (`[[#Heading]]`) is
///   `source` itself.
/// - A target starting with `./` or `../` is a path relative to `source`'s
///   folder; `.md` is optional. Matched ignoring case, exact case first.
/// - Another target with a `/` is a path from the root (a leading `/` is
///   allowed), or failing that the end of a path (`b/note` matches
///   `a/b/note.md`), as Obsidian allows.
/// - A bare name matches a note's file stem anywhere, ignoring case.
/// - A target whose name ends with an attachment's extension (`.png`,
///   `.pdf`, ...) goes to the attachment of that path or name when one
///   exists (by the same rules), else it is read as a note's.
///
/// One match is [`Resolution::Resolved`]; of several, a bare name's note in
/// `source`'s own folder wins, else the shortest path counted in UTF-16
/// code units as Obsidian counts it (ties: path order), and the result is
/// [`Resolution::Ambiguous`].
pub(crate) fn resolve(target: &str, source: &NotePath, notes: &NoteSet) -> Resolution {
    let target = nfc(link_path(target));
    if target.is_empty() {
        return Resolution::Resolved(source.clone());
    }
    if target.contains('\0') {
        return Resolution::Unresolved;
    }
    if let Some(attachment) = attachment(&target, source, notes) {
        return Resolution::Attachment(attachment.to_owned());
    }
    if is_relative(&target) {
        let joined = format!("{}/{target}", source.folder_str());
        match lexical_segments(&joined, AboveTop::Refuse) {
            Some(segments) => resolve_path(&segments, notes, false),
            None => Resolution::Unresolved,
        }
    } else if target.contains('/') {
        match lexical_segments(&target, AboveTop::Refuse) {
            Some(segments) => resolve_path(&segments, notes, true),
            None => Resolution::Unresolved,
        }
    } else {
        let stem = match target.len().checked_sub(3) {
            Some(end) if has_note_extension(&target) => &target[..end],
            _ => &target,
        };
        // A note in the linking note's own folder first (so a note's link
        // to its own name is to itself), then the others shortest first.
        let matches = notes.with_stem(stem);
        let folder = source.folder_str();
        let own = matches.iter().filter(|note| note.folder_str() == folder);
        let others = matches.iter().filter(|note| note.folder_str() != folder);
        Resolution::of(own.chain(others))
    }
}

/// The attachment `target` (an NFC link path) names, if it names one that
/// exists.
fn attachment<'a>(target: &str, source: &NotePath, notes: &'a NoteSet) -> Option<&'a str> {
    let name = target.rsplit_once('/').map_or(target, |(_, name)| name);
    if !is_attachment_name(name) {
        return None;
    }
    let joined;
    let (path, by_suffix) = if is_relative(target) {
        joined = format!("{}/{target}", source.folder_str());
        (joined.as_str(), false)
    } else if target.contains('/') {
        (target, true)
    } else {
        let named = notes.attachments_named(name);
        let folder = source.folder_str();
        let in_folder = |path: &&String| path.rsplit_once('/').map_or("", |(f, _)| f) == folder;
        return named
            .iter()
            .find(in_folder)
            .or(named.first())
            .map(String::as_str);
    };
    let path = lexical_segments(path, AboveTop::Refuse)?.join("/");
    let same_path = notes.attachments_with_path(&path);
    if let Some(found) = same_path
        .iter()
        .find(|held| **held == path)
        .or(same_path.first())
    {
        return Some(found);
    }
    if !by_suffix {
        return None;
    }
    let suffix = format!("/{}", path.to_lowercase());
    notes
        .attachments_named(name)
        .iter()
        .find(|held| held.to_lowercase().ends_with(&suffix))
        .map(String::as_str)
}

/// The lowercase file stem of every note a link to `target` from `source`
/// can lead to, as [`NoteSet::with_stem`] keys them, whatever notes the kiln
/// holds: a note with another stem never changes where the link leads.
/// `None` for a link that leads to its own note or to none whatever the
/// kiln holds. The index uses it to resolve again only the links a new or
/// deleted note can change.
pub(crate) fn candidate_stem(target: &str, source: &NotePath) -> Option<String> {
    let target = nfc(link_path(target));
    if target.is_empty() || target.contains('\0') {
        return None;
    }
    let joined;
    let path = if is_relative(&target) {
        joined = format!("{}/{target}", source.folder_str());
        joined.as_str()
    } else {
        &target
    };
    let segments = lexical_segments(path, AboveTop::Refuse)?;
    let last = segments.last()?;
    let stem = if has_note_extension(last) {
        &last[..last.len() - 3]
    } else {
        last
    };
    Some(stem.to_lowercase())
}

/// The part of a link target that names a file: without `|alias` and
/// without `#heading` / `#^block`, trimmed.
pub(crate) fn link_path(target: &str) -> &str {
    let target = target.split_once('|').map_or(target, |(path, _alias)| path);
    let target = target
        .split_once('#')
        .map_or(target, |(path, _subpath)| path);
    target.trim()
}

fn is_relative(target: &str) -> bool {
    target.starts_with("./") || target.starts_with("../") || target == "." || target == ".."
}

/// Resolves a path's names: exact path first, then the path ignoring case,
/// then (`by_suffix`) paths that end with it.
fn resolve_path(segments: &[&str], notes: &NoteSet, by_suffix: bool) -> Resolution {
    let Some(last) = segments.last() else {
        return Resolution::Unresolved;
    };
    let mut path = segments.join("/");
    if !has_note_extension(last) {
        path.push_str(".md");
    }
    let same_path = notes.with_path(&path);
    if let Some(exact) = same_path.iter().find(|note| note.as_str() == path) {
        return Resolution::Resolved(exact.clone());
    }
    if !same_path.is_empty() || !by_suffix {
        return Resolution::of(same_path.iter());
    }
    let stem = &path[path.rfind('/').map_or(0, |slash| slash + 1)..path.len() - 3];
    let suffix = format!("/{}", path.to_lowercase());
    let ending = notes
        .with_stem(stem)
        .iter()
        .filter(|note| note.as_str().to_lowercase().ends_with(&suffix));
    Resolution::of(ending)
}

#[cfg(test)]
#[path = "resolve_tests.rs"]
mod tests;
