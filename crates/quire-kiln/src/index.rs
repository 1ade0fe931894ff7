//! The kiln's index: every note beneath the root with its file's size and
//! time, its facts ([`parse_note`]), its links resolved as Obsidian resolves
//! them, and the notes that link to it. `read_metadata`, `list_notes`,
//! `property_search` and `get_kiln_info` answer from it, so none of them
//! reads a note's text.
//!
//! A note that cannot be read whole (not UTF-8, over [`MAX_NOTE_BYTES`],
//! unreadable) or whose frontmatter is broken is indexed with its
//! problems, never skipped silently; its facts are those that could be read
//! (none, for a file that could not be read at all).
//!
//! The index also knows the kiln's attachments (the files of the formats
//! Obsidian accepts besides notes: images, PDFs, ...; never read), so that
//! a link to one that exists resolves to it.
//!
//! Every file is found by the confined walk ([`Workspace::walk`]) and read
//! through the confined layer, so a link out of the root is never read.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::note_path::{NotePath, has_note_extension, is_hidden, nfc};
use super::note_set::NoteSet;
use super::read::MAX_NOTE_BYTES;
use super::resolve::{candidate_stem, resolve};
use quire_fs::{FileKind, FileStat, FsError, WalkEntry, WalkOptions, Workspace};
use quire_grammar::markdown::{NoteFacts, WikilinkKind, is_attachment_name, parse_note};

/// One note and what the index knows of it.
#[derive(Clone, Debug, PartialEq)]
pub struct IndexedNote {
    /// The note's path (NFC).
    pub path: NotePath,
    /// Its path as on disk, which differs in normalization only (an NFD
    /// name).
    pub on_disk: String,
    /// The file's `stat` when it was read.
    pub stat: FileStat,
    /// What the note holds; empty when its file could not be read.
    pub facts: NoteFacts,
    /// Where each wikilink, Markdown link and property link of the note
    /// leads, in the order of `facts.wikilinks`, `facts.markdown_links`,
    /// then `facts.property_links`.
    pub links: Vec<LinkTarget>,
    /// Why the note could not be read whole, or what is wrong with it.
    pub problems: Vec<String>,
}

impl IndexedNote {
    /// The frontmatter's properties, as the tools return them (empty when
    /// the note has none or it is broken).
    pub fn properties(&self) -> serde_json::Map<String, serde_json::Value> {
        self.facts
            .frontmatter
            .as_ref()
            .map(|frontmatter| frontmatter.values.clone())
            .unwrap_or_default()
    }
}

/// Where one link of a note leads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkTarget {
    /// The target as written (without heading, block or alias).
    pub target: String,
    /// The note it leads to; `None` when none matches.
    pub path: Option<NotePath>,
    /// The attachment it leads to (a path relative to the root, NFC, such
    /// as `images/diagram.png`), when it names one that exists; `path` is
    /// `None` then.
    pub attachment: Option<String>,
    /// Whether several notes match (`path` is the one Obsidian picks).
    pub ambiguous: bool,
    /// Whether it is an embed (`![[...]]`).
    pub embed: bool,
}

/// Every note of the kiln, by path.
#[derive(Clone, Debug, Default)]
pub struct KilnIndex {
    notes: BTreeMap<NotePath, IndexedNote>,
    set: NoteSet,
    backlinks: HashMap<NotePath, BTreeSet<NotePath>>,
    /// The notes with a link that a note of each stem (lowercase) could
    /// take ([`candidate_stem`]).
    linking_by_stem: HashMap<String, BTreeSet<NotePath>>,
    /// The stems of the notes added or removed since links were last
    /// brought up to date ([`Self::relink`]).
    changed_stems: BTreeSet<String>,
    skipped: Vec<String>,
}

impl KilnIndex {
    /// Reads every note beneath `workspace`'s root. Fails only when the
    /// root itself cannot be walked; a note or folder that cannot be read
    /// is recorded ([`IndexedNote::problems`], [`Self::skipped`]).
    pub fn build(workspace: &Workspace) -> Result<KilnIndex, FsError> {
        KilnIndex::build_counting(workspace, &AtomicUsize::new(0))
    }

    /// [`Self::build`], counting the notes read in `read` as it goes, for
    /// a status report while it runs.
    pub(crate) fn build_counting(
        workspace: &Workspace,
        read: &AtomicUsize,
    ) -> Result<KilnIndex, FsError> {
        let mut index = KilnIndex::default();
        for entry in workspace.walk("", notes_and_attachments())? {
            match entry {
                WalkEntry::File(file) if !has_note_extension(&file.path) => {
                    index.set.insert_attachment(nfc(&file.path).into_owned());
                }
                WalkEntry::File(file) => {
                    index.add(workspace, &file.path, file.stat);
                    read.fetch_add(1, Ordering::Relaxed);
                }
                WalkEntry::Skipped { path, reason } => {
                    index
                        .skipped
                        .push(format!("{path}: {}", reason.described()));
                }
                WalkEntry::Error(error) => index.skipped.push(error.to_string()),
                WalkEntry::LimitReached { limit } => {
                    index.skipped.push(format!("stopped at {limit} entries"));
                }
            }
        }
        index.resolve_links();
        Ok(index)
    }

    /// Reads and parses the note at `on_disk`.
    fn add(&mut self, workspace: &Workspace, on_disk: &str, stat: FileStat) {
        let path = match NotePath::parse_relative(on_disk) {
            Ok(path) => path,
            Err(error) => {
                self.skipped.push(format!("{on_disk}: {error}"));
                return;
            }
        };
        if let Some(first) = self.notes.get(&path) {
            self.skipped.push(format!(
                "{on_disk}: the same note as `{}` once normalized (NFC); only that one is indexed",
                first.on_disk
            ));
            return;
        }
        let text = read_text(workspace, on_disk);
        self.put(read_note(path, on_disk, stat, text));
    }

    /// Resolves every note's links against the whole set, and records the
    /// backlinks: after notes were added or removed, since a link's target
    /// can change with the set.
    pub(crate) fn resolve_links(&mut self) {
        self.backlinks.clear();
        self.linking_by_stem.clear();
        self.changed_stems.clear();
        let paths: Vec<NotePath> = self.notes.keys().cloned().collect();
        for path in paths {
            self.link(&path);
        }
    }

    /// Resolves again the links that the notes added or removed since the
    /// last call can change (those naming a note of the same stem), and
    /// records the backlinks: the same result as resolving every link anew
    /// (as [`Self::build`] does), without revisiting every note.
    pub fn relink(&mut self) {
        let stems = std::mem::take(&mut self.changed_stems);
        let mut sources = BTreeSet::new();
        for stem in &stems {
            if let Some(linking) = self.linking_by_stem.get(stem) {
                sources.extend(linking.iter().cloned());
            }
        }
        for source in sources {
            if let Some(note) = self.notes.remove(&source) {
                self.unlink(&note);
                self.notes.insert(source.clone(), note);
                self.link(&source);
            }
        }
    }

    /// Resolves the links of the note at `path` and records it as a
    /// backlink of each note it leads to.
    fn link(&mut self, path: &NotePath) {
        let Some(note) = self.notes.get_mut(path) else {
            return;
        };
        note.links = links_of(&note.facts, &note.path, &self.set);
        for link in &note.links {
            if let Some(target) = &link.path
                && target != &note.path
            {
                self.backlinks
                    .entry(target.clone())
                    .or_default()
                    .insert(note.path.clone());
            }
            if let Some(stem) = candidate_stem(&link.target, &note.path) {
                self.linking_by_stem
                    .entry(stem)
                    .or_default()
                    .insert(note.path.clone());
            }
        }
    }

    /// Reads the note `path` (its file at `on_disk`) again if the file
    /// changed since it was indexed, or indexes it if it is new, so that an
    /// edit made meanwhile is seen; returns the note as it is now. When the
    /// note is new, every note's links are resolved again (a new note can
    /// take a link from another).
    pub(crate) fn refresh(
        &mut self,
        workspace: &Workspace,
        path: &NotePath,
        on_disk: &str,
    ) -> Result<&IndexedNote, FsError> {
        let file = workspace.locate(on_disk)?.open()?;
        let stat = *file.stat();
        let current = self
            .notes
            .get(path)
            .is_some_and(|note| note.stat.unchanged_since(&stat));
        if !current {
            let text = file.read_to_string(MAX_NOTE_BYTES);
            let is_new = self.put(read_note(path.clone(), on_disk, stat, text));
            self.link(path);
            if is_new {
                self.relink();
            }
        }
        Ok(&self.notes[path])
    }

    /// Brings the entry of the file at `on_disk` (a path relative to the
    /// root, as on disk) up to date: read again if it changed, added if it
    /// is a new note, removed if it is gone or no longer a note (moved
    /// away, replaced by a folder, a link out of the root, a special file).
    /// Returns whether the set of notes changed, in which case the caller
    /// calls [`Self::relink`] once it has synced every file.
    pub fn sync_file(&mut self, workspace: &Workspace, on_disk: &str) -> bool {
        if is_attachment_name(on_disk) && !is_hidden(on_disk) {
            return self.sync_attachment(workspace, on_disk);
        }
        let Ok(path) = NotePath::parse_relative(on_disk) else {
            return false;
        };
        if is_hidden(on_disk) || !path.as_str().ends_with(".md") || !on_disk.ends_with(".md") {
            return false;
        }
        // Another name of the same note (NFC and NFD) is left to the
        // name that was indexed.
        if self
            .notes
            .get(&path)
            .is_some_and(|note| note.on_disk != on_disk)
        {
            return false;
        }
        let opened = workspace.locate(on_disk).and_then(|located| located.open());
        match opened {
            Ok(file) => {
                let stat = *file.stat();
                if self
                    .notes
                    .get(&path)
                    .is_some_and(|note| note.stat.unchanged_since(&stat))
                {
                    return false;
                }
                let text = file.read_to_string(MAX_NOTE_BYTES);
                let is_new = self.put(read_note(path.clone(), on_disk, stat, text));
                self.link(&path);
                is_new
            }
            // Unreadable now but still there: kept, with why.
            Err(error @ FsError::Io { .. }) if self.notes.contains_key(&path) => {
                let note = self.notes.get_mut(&path).expect("checked above");
                note.problems = vec![error.to_string()];
                false
            }
            Err(_) => self.remove(&path),
        }
    }

    /// Adds or removes the attachment at `on_disk` as the disk has it now;
    /// returns whether the set changed.
    fn sync_attachment(&mut self, workspace: &Workspace, on_disk: &str) -> bool {
        let exists = workspace
            .locate(on_disk)
            .is_ok_and(|located| located.kind() == Some(FileKind::Regular));
        let path = nfc(on_disk).into_owned();
        let name = path
            .rsplit_once('/')
            .map_or(path.as_str(), |(_, name)| name)
            .to_lowercase();
        let changed = if exists {
            self.set.insert_attachment(path)
        } else {
            self.set.remove_attachment(&path)
        };
        if changed {
            self.changed_stems.insert(name);
        }
        changed
    }

    /// Brings every note beneath the folder `on_disk` (relative to the
    /// root, as on disk; empty for the root) up to date with the disk: the
    /// notes found are synced, the notes indexed there that the walk no
    /// longer finds are removed. A folder that is gone removes its notes.
    /// Returns whether the set of notes changed (see [`Self::sync_file`]).
    pub fn rescan(&mut self, workspace: &Workspace, on_disk: &str) -> bool {
        let prefix = if on_disk.is_empty() {
            String::new()
        } else {
            format!("{on_disk}/")
        };
        let mut seen = BTreeSet::new();
        let mut seen_attachments = BTreeSet::new();
        let mut changed = false;
        if let Ok(walk) = workspace.walk(on_disk, notes_and_attachments()) {
            for entry in walk {
                if let WalkEntry::File(file) = entry {
                    if has_note_extension(&file.path) {
                        changed |= self.sync_file(workspace, &file.path);
                    } else {
                        let path = nfc(&file.path).into_owned();
                        if !self.set.attachments_with_path(&path).contains(&path) {
                            changed |= self.sync_attachment(workspace, &file.path);
                        }
                        seen_attachments.insert(path);
                    }
                    seen.insert(file.path);
                }
            }
        }
        let gone_attachments: Vec<String> = self
            .set
            .attachments()
            .filter(|path| path.starts_with(&prefix) && !seen_attachments.contains(*path))
            .map(str::to_owned)
            .collect();
        for path in &gone_attachments {
            changed |= self.sync_attachment(workspace, path);
        }
        let gone: Vec<NotePath> = self
            .notes
            .values()
            .filter(|note| note.on_disk.starts_with(&prefix) && !seen.contains(&note.on_disk))
            .map(|note| note.path.clone())
            .collect();
        for path in &gone {
            changed |= self.remove(path);
        }
        changed
    }

    /// Adds `note`, or puts it in the place of the note with its path;
    /// returns whether it is new. Its links are not resolved.
    fn put(&mut self, note: IndexedNote) -> bool {
        let path = note.path.clone();
        let old = self.notes.insert(path.clone(), note);
        if let Some(old) = &old {
            self.unlink(old);
        }
        if old.is_none() {
            self.changed_stems.insert(path.stem().to_lowercase());
        }
        self.set.insert(path);
        old.is_none()
    }

    /// Removes the note at `path`; returns whether it was there.
    fn remove(&mut self, path: &NotePath) -> bool {
        let Some(old) = self.notes.remove(path) else {
            return false;
        };
        self.unlink(&old);
        self.set.remove(path);
        self.changed_stems.insert(path.stem().to_lowercase());
        true
    }

    /// Forgets that `note` links to the notes it leads to.
    fn unlink(&mut self, note: &IndexedNote) {
        for link in &note.links {
            if let Some(target) = &link.path
                && let Some(sources) = self.backlinks.get_mut(target)
            {
                sources.remove(&note.path);
                if sources.is_empty() {
                    self.backlinks.remove(target);
                }
            }
            if let Some(stem) = candidate_stem(&link.target, &note.path)
                && let Some(sources) = self.linking_by_stem.get_mut(&stem)
            {
                sources.remove(&note.path);
                if sources.is_empty() {
                    self.linking_by_stem.remove(&stem);
                }
            }
        }
    }

    /// The note at `path`.
    pub fn get(&self, path: &NotePath) -> Option<&IndexedNote> {
        self.notes.get(path)
    }

    /// Every note, sorted by path.
    pub fn notes(&self) -> impl ExactSizeIterator<Item = &IndexedNote> + '_ {
        self.notes.values()
    }

    /// How many notes there are.
    pub fn len(&self) -> usize {
        self.notes.len()
    }

    /// Whether there is no note.
    pub fn is_empty(&self) -> bool {
        self.notes.is_empty()
    }

    /// The notes' paths, for resolving links and suggesting paths.
    /// The notes with a link that a note of the file stem `stem` (any
    /// case) could take: every note whose links a note moving to or from
    /// that stem can change.
    pub(crate) fn linking_to_stem(&self, stem: &str) -> impl Iterator<Item = &NotePath> + '_ {
        self.linking_by_stem
            .get(&stem.to_lowercase())
            .into_iter()
            .flatten()
    }

    pub(crate) fn note_set(&self) -> &NoteSet {
        &self.set
    }

    /// The notes that link to `path` (not counting itself), sorted.
    pub fn backlinks(&self, path: &NotePath) -> impl Iterator<Item = &NotePath> + '_ {
        self.backlinks.get(path).into_iter().flatten()
    }

    /// What the walk could not index, and why (links out of the root,
    /// special files, unreadable folders, names that are not note paths).
    pub fn skipped(&self) -> &[String] {
        &self.skipped
    }
}

/// The note at `on_disk` parsed from its `text`, or with why it could not
/// be read (its links not yet resolved).
fn read_note(
    path: NotePath,
    on_disk: &str,
    stat: FileStat,
    text: Result<String, FsError>,
) -> IndexedNote {
    let mut problems = Vec::new();
    let facts = match text {
        Ok(text) => parse_note(&text),
        Err(error) => {
            problems.push(error.to_string());
            NoteFacts::default()
        }
    };
    problems.extend(facts.issues.iter().map(ToString::to_string));
    IndexedNote {
        path,
        on_disk: on_disk.to_owned(),
        stat,
        facts,
        links: Vec::new(),
        problems,
    }
}

/// Where each wikilink, then each Markdown link, then each property link
/// of `facts` leads.
fn links_of(facts: &NoteFacts, source: &NotePath, notes: &NoteSet) -> Vec<LinkTarget> {
    let wikilinks = facts
        .wikilinks
        .iter()
        .map(|link| (link.target.as_str(), link.kind == WikilinkKind::Embed));
    let markdown = facts
        .markdown_links
        .iter()
        .map(|link| (link.target.as_str(), false));
    let properties = facts
        .property_links
        .iter()
        .map(|link| (link.target.as_str(), false));
    wikilinks
        .chain(markdown)
        .chain(properties)
        .map(|(target, embed)| {
            let resolution = resolve(target, source, notes);
            LinkTarget {
                target: target.to_owned(),
                ambiguous: resolution.is_ambiguous(),
                path: resolution.path().cloned(),
                attachment: resolution.attachment().map(str::to_owned),
                embed,
            }
        })
        .collect()
}

/// What the index walks: notes, and the attachments links can lead to.
fn notes_and_attachments() -> WalkOptions {
    WalkOptions::new().file_filter(|name| has_note_extension(name) || is_attachment_name(name))
}

/// The text of the note at `on_disk`.
fn read_text(workspace: &Workspace, on_disk: &str) -> Result<String, FsError> {
    workspace
        .locate(on_disk)?
        .open()?
        .read_to_string(MAX_NOTE_BYTES)
}
