//! The kiln's notes indexed for link resolution and suggestions: by
//! lowercase stem and by lowercase path, each bucket kept shortest path
//! first, so resolving a link is a hash lookup whatever the kiln's size.
//! Its attachments (the other files Obsidian links to: images, PDFs, ...)
//! are indexed the same way, by lowercase file name with its extension.

use std::collections::{BTreeSet, HashMap};

use super::note_path::NotePath;

/// A set of note paths with the lookups link resolution needs
/// ([`resolve`](super::resolve)): by exact path, by path ignoring case, and
/// by file stem ignoring case, each O(1). Iterates in path order.
///
/// Build it once from a walk of the kiln and keep it in step with
/// [`NoteSet::insert`] and [`NoteSet::remove`].
#[derive(Clone, Debug, Default)]
pub(crate) struct NoteSet {
    notes: BTreeSet<NotePath>,
    by_lowercase_path: HashMap<String, Vec<NotePath>>,
    by_lowercase_stem: HashMap<String, Vec<NotePath>>,
    /// The attachments' paths (NFC, relative to the root).
    attachments: BTreeSet<String>,
    attachments_by_lowercase_path: HashMap<String, Vec<String>>,
    attachments_by_lowercase_name: HashMap<String, Vec<String>>,
}

impl NoteSet {
    /// An empty set.
    pub(crate) fn new() -> NoteSet {
        NoteSet::default()
    }

    /// Adds a note; `false` if it was already there.
    pub(crate) fn insert(&mut self, note: NotePath) -> bool {
        if self.notes.contains(&note) {
            return false;
        }
        add_to_bucket(&mut self.by_lowercase_path, lowercase_path(&note), &note);
        add_to_bucket(&mut self.by_lowercase_stem, lowercase_stem(&note), &note);
        self.notes.insert(note)
    }

    /// Removes a note; `false` if it was not there.
    pub(crate) fn remove(&mut self, note: &NotePath) -> bool {
        if !self.notes.remove(note) {
            return false;
        }
        remove_from_bucket(
            &mut self.by_lowercase_path,
            &lowercase_path(note),
            note.as_str(),
        );
        remove_from_bucket(
            &mut self.by_lowercase_stem,
            &lowercase_stem(note),
            note.as_str(),
        );
        true
    }

    /// The notes in path order.
    pub(crate) fn iter(&self) -> impl ExactSizeIterator<Item = &NotePath> + '_ {
        self.notes.iter()
    }

    /// The notes whose path is `path` ignoring case (`.md` included),
    /// shortest first then in path order. More than one only on a
    /// case-sensitive file system.
    pub(crate) fn with_path(&self, path: &str) -> &[NotePath] {
        lookup(&self.by_lowercase_path, path)
    }

    /// The notes whose file stem is `stem` ignoring case, anywhere in the
    /// kiln, shortest path first then in path order.
    pub(crate) fn with_stem(&self, stem: &str) -> &[NotePath] {
        lookup(&self.by_lowercase_stem, stem)
    }

    /// Adds an attachment (a path relative to the root, NFC, with its
    /// extension); `false` if it was already there.
    pub(crate) fn insert_attachment(&mut self, path: String) -> bool {
        if self.attachments.contains(&path) {
            return false;
        }
        let name = file_name(&path).to_lowercase();
        add_to_bucket(
            &mut self.attachments_by_lowercase_path,
            path.to_lowercase(),
            &path,
        );
        add_to_bucket(&mut self.attachments_by_lowercase_name, name, &path);
        self.attachments.insert(path)
    }

    /// Removes an attachment; `false` if it was not there.
    pub(crate) fn remove_attachment(&mut self, path: &str) -> bool {
        if !self.attachments.remove(path) {
            return false;
        }
        let name = file_name(path).to_lowercase();
        remove_from_bucket(
            &mut self.attachments_by_lowercase_path,
            &path.to_lowercase(),
            path,
        );
        remove_from_bucket(&mut self.attachments_by_lowercase_name, &name, path);
        true
    }

    /// The attachments in path order.
    pub(crate) fn attachments(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.attachments.iter().map(String::as_str)
    }

    /// The attachments whose path is `path` ignoring case, shortest first.
    pub(crate) fn attachments_with_path(&self, path: &str) -> &[String] {
        lookup(&self.attachments_by_lowercase_path, path)
    }

    /// The attachments whose file name (extension included) is `name`
    /// ignoring case, anywhere in the kiln, shortest path first.
    pub(crate) fn attachments_named(&self, name: &str) -> &[String] {
        lookup(&self.attachments_by_lowercase_name, name)
    }
}

/// The last segment of a path.
fn file_name(path: &str) -> &str {
    path.rsplit_once('/').map_or(path, |(_, name)| name)
}

impl FromIterator<NotePath> for NoteSet {
    fn from_iter<I: IntoIterator<Item = NotePath>>(notes: I) -> NoteSet {
        let mut set = NoteSet::new();
        set.extend(notes);
        set
    }
}

impl Extend<NotePath> for NoteSet {
    fn extend<I: IntoIterator<Item = NotePath>>(&mut self, notes: I) {
        for note in notes {
            self.insert(note);
        }
    }
}

/// The order within a bucket: the shortest path wins an ambiguous link,
/// ties broken by path.
/// Shortest path first, its length counted as Obsidian (JavaScript) counts
/// it, in UTF-16 code units, not bytes: `日本/a.md` (7) before `nihongo/a.md`
/// (12), although its UTF-8 is 12 bytes too. Ties in path order.
fn preference<P: AsRef<str>>(path: &P) -> (usize, &str) {
    let path = path.as_ref();
    (path.encode_utf16().count(), path)
}

fn lowercase_path(note: &NotePath) -> String {
    note.as_str().to_lowercase()
}

fn lowercase_stem(note: &NotePath) -> String {
    note.stem().to_lowercase()
}

fn lookup<'a, P>(index: &'a HashMap<String, Vec<P>>, key: &str) -> &'a [P] {
    index.get(&key.to_lowercase()).map_or(&[], Vec::as_slice)
}

fn add_to_bucket<P: AsRef<str> + Clone>(
    index: &mut HashMap<String, Vec<P>>,
    key: String,
    note: &P,
) {
    let bucket = index.entry(key).or_default();
    let at = bucket
        .binary_search_by(|held| preference(held).cmp(&preference(note)))
        .unwrap_or_else(|free| free);
    bucket.insert(at, note.clone());
}

fn remove_from_bucket<P: AsRef<str>>(index: &mut HashMap<String, Vec<P>>, key: &str, path: &str) {
    let Some(bucket) = index.get_mut(key) else {
        return;
    };
    bucket.retain(|held| held.as_ref() != path);
    if bucket.is_empty() {
        index.remove(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A set of notes, in path order, found by stem ignoring case.
    #[test]
    fn notes_are_kept_in_order_and_found_by_stem() -> Result<(), crate::PathError> {
        let notes: NoteSet = ["Projects/Plan", "daily/plan", "index"]
            .into_iter()
            .map(NotePath::parse_relative)
            .collect::<Result<_, _>>()?;
        assert_eq!(notes.iter().len(), 3);
        assert_eq!(notes.with_stem("PLAN").len(), 2);
        assert_eq!(notes.iter().next().unwrap().as_str(), "Projects/Plan.md");
        Ok(())
    }

    fn note(path: &str) -> NotePath {
        NotePath::parse_relative(path).unwrap()
    }

    #[test]
    fn buckets_keep_the_shortest_path_first_then_path_order() {
        let notes: NoteSet = ["z/long/Plan", "b/plan", "a/PLAN", "plan"]
            .into_iter()
            .map(note)
            .collect();
        let stems: Vec<_> = notes
            .with_stem("plan")
            .iter()
            .map(NotePath::as_str)
            .collect();
        assert_eq!(
            stems,
            ["plan.md", "a/PLAN.md", "b/plan.md", "z/long/Plan.md"]
        );
    }

    #[test]
    fn insert_and_remove_keep_every_index_in_step() {
        let mut notes = NoteSet::new();
        assert!(notes.insert(note("a/Plan")));
        assert!(!notes.insert(note("a/Plan")));
        assert!(notes.insert(note("a/plan")));
        assert_eq!(notes.with_path("A/PLAN.MD").len(), 2);
        assert!(notes.remove(&note("a/Plan")));
        assert!(!notes.remove(&note("a/Plan")));
        assert_eq!(notes.with_path("a/plan.md"), [note("a/plan")]);
        assert!(notes.remove(&note("a/plan")));
        assert_eq!(notes.iter().len(), 0);
        assert!(notes.with_stem("plan").is_empty());
        assert!(notes.by_lowercase_path.is_empty() && notes.by_lowercase_stem.is_empty());
    }

    #[test]
    fn ten_thousand_notes_build_and_look_up_cheaply() {
        let notes: NoteSet = (0..10_000)
            .map(|i| note(&format!("folder{}/note {i}", i % 97)))
            .collect();
        assert_eq!(notes.iter().len(), 10_000);
        assert_eq!(notes.with_stem("NOTE 4242"), [note("folder71/note 4242")]);
    }
}
