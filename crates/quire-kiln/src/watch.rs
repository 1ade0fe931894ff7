//! Seeing notes change on disk, so the kiln index stays fresh when a note is
//! edited, added, moved or deleted by another program (Obsidian, an editor,
//! git). A watcher from `notify` (inotify on Linux) reports the paths that
//! changed beneath the root; they wait in [`PendingChanges`] until the next
//! call that reads the index applies them, under the index's lock, so a
//! burst of writes costs one update and the index has one writer.
//!
//! The watcher does not follow symbolic links, so it never watches a folder
//! outside the root; a note reached through a link to a folder inside the
//! root is still checked against its file whenever a call names it, and a
//! full rescan (see [`super::LiveIndex`]) catches the rest. When no watcher
//! can run (the inotify watch limit, an unsupported file system), the index
//! rescans the root before answering, at most every few seconds.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use notify::event::{CreateKind, EventKind, ModifyKind, RemoveKind};
use notify::{Config, RecommendedWatcher, RecursiveMode, Watcher};

use super::note_path::is_hidden;
use quire_grammar::markdown::is_attachment_name;

/// More changed paths than this waiting at once are forgotten in favour of
/// one rescan of the root, so a storm of events cannot grow memory.
pub(super) const MAX_PENDING_PATHS: usize = 10_000;

/// The changes seen since the index was last brought up to date, as paths
/// relative to the root, `/`-separated, as on disk.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct PendingChanges {
    /// Files that may have changed, appeared or gone.
    pub(super) files: BTreeSet<String>,
    /// Folders (or paths that may be folders) whose notes may have changed
    /// all at once: created, removed or renamed.
    pub(super) folders: BTreeSet<String>,
    /// Whether the whole root must be rescanned (the watcher lost events,
    /// or too many paths changed to track one by one).
    pub(super) everything: bool,
}

impl PendingChanges {
    /// Whether there is nothing to apply.
    pub(super) fn is_empty(&self) -> bool {
        !self.everything && self.files.is_empty() && self.folders.is_empty()
    }

    /// Records what `event` says changed beneath `root`.
    pub(super) fn record(&mut self, event: &notify::Event, root: &Path) {
        if event.need_rescan() {
            self.rescan_all();
            return;
        }
        let what = match event.kind {
            // Reading a file changes nothing.
            EventKind::Access(_) => return,
            EventKind::Create(CreateKind::Folder) | EventKind::Remove(RemoveKind::Folder) => {
                Changed::Folder
            }
            EventKind::Create(CreateKind::File) | EventKind::Remove(RemoveKind::File) => {
                Changed::File
            }
            // A file's bytes or times changed: only a note's matter.
            EventKind::Modify(ModifyKind::Data(_) | ModifyKind::Metadata(_)) => Changed::File,
            // A rename, or a kind the platform does not tell: a folder
            // unless it is named like a note.
            _ => Changed::Unknown,
        };
        for path in &event.paths {
            self.record_path(path, root, what);
        }
    }

    fn record_path(&mut self, path: &Path, root: &Path, what: Changed) {
        let Ok(relative) = path.strip_prefix(root) else {
            return;
        };
        if relative.as_os_str().is_empty() {
            // The root itself was moved, removed or changed.
            self.rescan_all();
            return;
        }
        if is_hidden(relative) {
            return;
        }
        // A name that is not UTF-8 is never a note (the walk skips it too).
        let Some(relative) = relative.to_str() else {
            return;
        };
        // An attachment counts too: a link to it resolves once it exists.
        let is_note = relative.ends_with(".md") || is_attachment_name(relative);
        match what {
            Changed::File if is_note => self.files.insert(relative.to_owned()),
            Changed::File => return,
            Changed::Folder => self.folders.insert(relative.to_owned()),
            Changed::Unknown if is_note => self.files.insert(relative.to_owned()),
            Changed::Unknown => self.folders.insert(relative.to_owned()),
        };
        if self.files.len() + self.folders.len() > MAX_PENDING_PATHS {
            self.rescan_all();
        }
    }

    /// Forgets the paths in favour of one rescan of the root.
    pub(super) fn rescan_all(&mut self) {
        self.everything = true;
        self.files.clear();
        self.folders.clear();
    }
}

#[derive(Clone, Copy)]
enum Changed {
    File,
    Folder,
    Unknown,
}

/// A running watcher of the root; dropping it stops it.
pub(super) struct RootWatcher {
    _watcher: RecommendedWatcher,
}

impl RootWatcher {
    /// Watches every folder beneath `root` (not through symbolic links),
    /// recording changes in `pending`; an error the watcher reports later
    /// (lost events) asks for a rescan and is kept in `last_error`. Fails
    /// with why when no watcher can run.
    pub(super) fn start(
        root: &Path,
        pending: Arc<Mutex<PendingChanges>>,
        last_error: Arc<Mutex<Option<String>>>,
    ) -> Result<RootWatcher, String> {
        let watched_root = root.to_path_buf();
        let handler = move |result: notify::Result<notify::Event>| {
            let mut pending = pending.lock().unwrap_or_else(PoisonError::into_inner);
            match result {
                Ok(event) => pending.record(&event, &watched_root),
                Err(error) => {
                    pending.rescan_all();
                    *last_error.lock().unwrap_or_else(PoisonError::into_inner) =
                        Some(error.to_string());
                }
            }
        };
        let mut watcher =
            RecommendedWatcher::new(handler, Config::default().with_follow_symlinks(false))
                .map_err(|error| format!("no file watcher: {error}"))?;
        watcher
            .watch(root, RecursiveMode::Recursive)
            .map_err(|error| format!("the root cannot be watched: {error}"))?;
        Ok(RootWatcher { _watcher: watcher })
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use notify::event::{DataChange, ModifyKind, RenameMode};

    use super::*;

    fn event(kind: EventKind, paths: &[&str]) -> notify::Event {
        let mut event = notify::Event::new(kind);
        for path in paths {
            event = event.add_path(PathBuf::from(path));
        }
        event
    }

    fn recorded(events: &[notify::Event]) -> PendingChanges {
        let mut pending = PendingChanges::default();
        for event in events {
            pending.record(event, Path::new("/vault"));
        }
        pending
    }

    fn set(paths: &[&str]) -> BTreeSet<String> {
        paths.iter().map(|path| (*path).to_owned()).collect()
    }

    #[test]
    fn notes_and_folders_are_told_apart() {
        let pending = recorded(&[
            event(
                EventKind::Modify(ModifyKind::Data(DataChange::Content)),
                &["/vault/a/Plan.md"],
            ),
            event(EventKind::Create(CreateKind::File), &["/vault/New.md"]),
            event(EventKind::Create(CreateKind::Folder), &["/vault/b"]),
            event(
                EventKind::Modify(ModifyKind::Name(RenameMode::Both)),
                &["/vault/c", "/vault/d"],
            ),
            event(
                EventKind::Modify(ModifyKind::Name(RenameMode::Both)),
                &["/vault/x.md", "/vault/y.md"],
            ),
            event(EventKind::Remove(RemoveKind::Any), &["/vault/old"]),
        ]);
        assert_eq!(pending.files, set(&["New.md", "a/Plan.md", "x.md", "y.md"]));
        assert_eq!(pending.folders, set(&["b", "c", "d", "old"]));
        assert!(!pending.everything && !pending.is_empty());
    }

    #[test]
    fn what_cannot_change_a_note_is_ignored() {
        let pending = recorded(&[
            event(
                EventKind::Access(notify::event::AccessKind::Read),
                &["/vault/a.md"],
            ),
            event(
                EventKind::Modify(ModifyKind::Data(DataChange::Any)),
                &["/vault/script.js"],
            ),
            event(
                EventKind::Create(CreateKind::File),
                &["/vault/.obsidian/workspace.json"],
            ),
            event(
                EventKind::Create(CreateKind::File),
                &["/vault/.trash/Old.md"],
            ),
            event(EventKind::Create(CreateKind::File), &["/elsewhere/x.md"]),
        ]);
        assert!(pending.is_empty(), "{pending:?}");
    }

    #[test]
    fn an_attachment_appearing_is_recorded_as_a_note_is() {
        let pending = recorded(&[event(
            EventKind::Create(CreateKind::File),
            &["/vault/img/diagram.png"],
        )]);
        assert_eq!(pending.files, set(&["img/diagram.png"]));
    }

    #[test]
    fn lost_events_the_root_itself_and_storms_ask_for_a_rescan() {
        let lost = notify::Event::new(EventKind::Other).set_flag(notify::event::Flag::Rescan);
        assert!(recorded(&[lost]).everything);
        assert!(recorded(&[event(EventKind::Remove(RemoveKind::Folder), &["/vault"])]).everything);

        let mut pending = PendingChanges::default();
        for n in 0..=MAX_PENDING_PATHS {
            pending.record(
                &event(
                    EventKind::Create(CreateKind::File),
                    &[&format!("/vault/{n}.md")],
                ),
                Path::new("/vault"),
            );
        }
        assert!(pending.everything);
        assert!(pending.files.len() + pending.folders.len() < MAX_PENDING_PATHS);
    }

    #[test]
    fn a_running_watcher_records_an_edit() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("sub")).unwrap();
        let pending = Arc::new(Mutex::new(PendingChanges::default()));
        let errors = Arc::new(Mutex::new(None));
        let _watcher = RootWatcher::start(&root, Arc::clone(&pending), errors).unwrap();
        std::fs::write(root.join("sub/Note.md"), "text\n").unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            if pending.lock().unwrap().files.contains("sub/Note.md") {
                break;
            }
            assert!(std::time::Instant::now() < deadline, "no event in 10 s");
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }
}
