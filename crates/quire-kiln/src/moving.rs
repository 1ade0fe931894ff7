//! `move_note` (issue 28): a note moved or renamed, and every link that
//! led to it (or that the move would send elsewhere) rewritten by
//! [`super::super::relink`], all or nothing.
//!
//! The notes to change are found from the index (those with a link that a
//! note of the old or the new name could take), read, and worked out
//! without locks; then each of them and the note itself is locked (in
//! path order, waiting at most the call's budget), read again and worked
//! out again under its lock, so no writer's change is lost. Only then is
//! anything written: the note renamed (never onto an existing file), its
//! own text, then each linking note replaced atomically. A failure midway
//! undoes what was done (a note changed since by someone else is left as
//! it is and named), and says so.

use std::ffi::OsStr;

use super::*;
use crate::note_path::is_hidden;
use crate::note_set::NoteSet;
use crate::relink::{Move, Relinked};
use crate::write::{MoveNoteRequest, NoteMoved, RelinkedNote};

/// What a move changes, worked out from the index.
struct MovePlan {
    from: NotePath,
    from_on_disk: String,
    to: NotePath,
    before: NoteSet,
    after: NoteSet,
    /// The other notes whose links the move can change, with their
    /// on-disk names, in path order.
    linking: Vec<(NotePath, String)>,
}

impl MovePlan {
    fn relinker(&self) -> Move<'_> {
        Move {
            from: &self.from,
            to: &self.to,
            before: &self.before,
            after: &self.after,
        }
    }
}

/// A note a move changes, locked, with its text before and after.
struct LockedChange {
    /// The note's path before the move.
    path: NotePath,
    on_disk: String,
    file: OpenFile,
    old: Vec<u8>,
    relinked: Relinked,
}

/// One write of a move, done: what undoing it takes.
enum Done {
    /// The note renamed from `from` (on disk) to `to` (on disk).
    Renamed { from: String, to: String },
    /// A note's file at `on_disk` replaced: `old` was there, `new` now.
    Replaced {
        on_disk: String,
        old: Vec<u8>,
        new: Vec<u8>,
    },
}

/// A write of a move that failed: the file, and why.
struct StepFailure {
    at: String,
    error: KilnError,
}

/// Which write a move makes, for [`KilnTools::move_note_checked`]'s
/// `before_write` (a test fails one to see the move undone).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum MoveStep<'a> {
    /// The note renamed.
    Rename,
    /// The note (after the rename: at its new path) or a linking note
    /// replaced, by its on-disk name.
    Replace(&'a str),
}

impl KilnTools {
    /// `move_note`: the note moved (or renamed) to `new_path`, its missing
    /// folders made, never onto an existing note, and every link to it in
    /// every note rewritten to keep leading to it; all or nothing.
    pub fn move_note(&self, request: &MoveNoteRequest) -> Result<NoteMoved, KilnError> {
        self.move_note_checked(request, None, &mut |_| Ok(()))
    }

    /// What `move_note` would do: the notes whose links it rewrites,
    /// checked as the move checks them (nothing is written).
    pub fn preview_move(&self, request: &MoveNoteRequest) -> Result<WritePreview, KilnError> {
        let plan = self.plan_move(request)?;
        let workspace = self.reader.workspace();
        let located = workspace.locate_shown(&plan.from_on_disk, plan.from.as_str())?;
        if located.real_path() != plan.from_on_disk {
            return Err(linked_note(&plan));
        }
        let file = located.open()?;
        let bytes = file.read(MAX_NOTE_BYTES)?;
        if let Some(expected) = &request.expected_sha256 {
            check_unchanged(&plan.from, &bytes, expected)?;
        }
        let mut relinked = Vec::new();
        if let Ok(text) = std::str::from_utf8(&bytes)
            && let Some(change) = plan.relinker().relink(&plan.from, text)?
        {
            relinked.push((plan.to.to_string(), change.links));
        }
        for (path, on_disk) in &plan.linking {
            if let Some(text) = self.linking_text(path, on_disk)?
                && let Some(change) = plan.relinker().relink(path, &text)?
            {
                relinked.push((path.to_string(), change.links));
            }
        }
        relinked.sort();
        Ok(WritePreview {
            path: plan.from.to_string(),
            change: PlannedChange::Move {
                new_path: plan.to.to_string(),
                relinked,
            },
            sha256: Some(write::sha256(&bytes)),
            link_target: None,
            identity: Some(identity(file.stat())),
        })
    }

    /// `move_note`, refused when the note or the notes whose links change
    /// are not what `preview` showed (when given); `before_write` runs
    /// before each write and may refuse it (as a failing disk would).
    pub(super) fn move_note_checked(
        &self,
        request: &MoveNoteRequest,
        preview: Option<&WritePreview>,
        before_write: &mut dyn FnMut(MoveStep<'_>) -> Result<(), FsError>,
    ) -> Result<NoteMoved, KilnError> {
        let plan = self.plan_move(request)?;
        let expected_sha256 = preview
            .and_then(|preview| preview.sha256.clone())
            .or_else(|| request.expected_sha256.clone());
        // The notes that would change, read without locks...
        let mut changing = vec![plan.from.clone()];
        for (path, on_disk) in &plan.linking {
            if let Some(text) = self.linking_text(path, on_disk)?
                && plan.relinker().relink(path, &text)?.is_some()
            {
                changing.push(path.clone());
            }
        }
        changing.sort();
        // ...then locked, in path order, and worked out again.
        let deadline = Deadline::after(self.budget);
        let mut locked = Vec::with_capacity(changing.len());
        let mut moved_file = None;
        let mut moved_sha256 = String::new();
        for path in &changing {
            let on_disk = match path == &plan.from {
                true => plan.from_on_disk.clone(),
                false => match plan.linking.iter().find(|(linking, _)| linking == path) {
                    Some((_, on_disk)) => on_disk.clone(),
                    None => continue,
                },
            };
            let (located, file) = self.lock_note_until(path, &on_disk, deadline)?;
            let old = file.read(MAX_NOTE_BYTES)?;
            if path == &plan.from {
                if let Some(expected) = &expected_sha256 {
                    check_unchanged(&plan.from, &old, expected)?;
                }
                let identity = preview.and_then(|preview| preview.identity.as_ref());
                check_identity(&plan.from, file.stat(), identity, true)?;
                if located.real_path() != on_disk {
                    return Err(linked_note(&plan));
                }
                moved_file = Some(*file.stat());
                moved_sha256 = write::sha256(&old);
            }
            let Ok(text) = std::str::from_utf8(&old) else {
                if path == &plan.from {
                    // Moved as it is (its links are not read), and held.
                    locked.push(LockedChange {
                        path: path.clone(),
                        on_disk,
                        file,
                        relinked: Relinked {
                            text: String::new(),
                            lines: Vec::new(),
                            links: 0,
                        },
                        old,
                    });
                }
                continue;
            };
            if let Some(relinked) = plan.relinker().relink(path, text)? {
                locked.push(LockedChange {
                    path: path.clone(),
                    on_disk,
                    file,
                    old,
                    relinked,
                });
            } else if path == &plan.from {
                // Held, unchanged, so nobody writes it while it moves.
                locked.push(LockedChange {
                    path: path.clone(),
                    on_disk,
                    file,
                    relinked: Relinked {
                        text: String::from_utf8_lossy(&old).into_owned(),
                        lines: Vec::new(),
                        links: 0,
                    },
                    old,
                });
            }
        }
        let Some(moved_file) = moved_file else {
            return Err(not_found_now(&plan.from));
        };
        if let Some(PlannedChange::Move { relinked, .. }) = preview.map(|preview| &preview.change) {
            let now: Vec<(String, usize)> = locked
                .iter()
                .filter(|change| change.relinked.links > 0)
                .map(|change| (shown_after(&plan, &change.path), change.relinked.links))
                .collect();
            let mut now_sorted = now.clone();
            now_sorted.sort();
            if &now_sorted != relinked {
                return Err(KilnError::Write(WriteRefusal::RelinkedChanged {
                    path: plan.from.to_string(),
                    now: now_sorted
                        .iter()
                        .map(|(path, _)| path.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                }));
            }
        }
        if self.on_disk(&plan.to)?.is_some() {
            return Err(onto_existing(&plan));
        }
        let to_on_disk = self.carry_out(&plan, &locked, &moved_file, before_write)?;
        let workspace = self.reader.workspace();
        let _ = self.index.with(Duration::ZERO, |_, index| {
            let mut changed = index.sync_file(workspace, &plan.from_on_disk);
            changed |= index.sync_file(workspace, &to_on_disk);
            for change in &locked {
                if change.path != plan.from {
                    changed |= index.sync_file(workspace, &change.on_disk);
                }
            }
            if changed {
                index.relink();
            }
            Ok(())
        });
        // The moved note's digest now: of its new text when its links
        // changed, else of the bytes it held.
        let moved_sha256 = locked
            .iter()
            .find(|change| change.path == plan.from && change.relinked.links > 0)
            .map_or(moved_sha256, |change| {
                write::sha256(change.relinked.text.as_bytes())
            });
        let relinked: Vec<RelinkedNote> = locked
            .iter()
            .filter(|change| change.relinked.links > 0)
            .map(|change| RelinkedNote {
                path: shown_after(&plan, &change.path),
                lines: change.relinked.lines.clone(),
                links: change.relinked.links,
            })
            .collect();
        let mut relinked = relinked;
        relinked.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(NoteMoved {
            path: plan.from.to_string(),
            new_path: plan.to.to_string(),
            sha256: moved_sha256,
            links_changed: relinked.iter().map(|note| note.links).sum(),
            relinked,
        })
    }

    /// The move's writes, in order; on a failure, those done are undone.
    /// Returns the moved note's new on-disk name.
    fn carry_out(
        &self,
        plan: &MovePlan,
        locked: &[LockedChange],
        moved_file: &FileStat,
        before_write: &mut dyn FnMut(MoveStep<'_>) -> Result<(), FsError>,
    ) -> Result<String, KilnError> {
        let to_on_disk = on_disk_spelling(self.reader.workspace(), plan.to.as_str());
        let mut done = Vec::new();
        let result = self.write_steps(
            plan,
            locked,
            moved_file,
            &to_on_disk,
            before_write,
            &mut done,
        );
        let Err(failure) = result else {
            return Ok(to_on_disk);
        };
        let StepFailure { at, error } = *failure;
        if done.is_empty()
            && let KilnError::Write(WriteRefusal::MoveOntoExisting { .. }) = error
        {
            return Err(error);
        }
        let not_undone = self.undo(done);
        Err(KilnError::Write(WriteRefusal::MoveFailed {
            path: plan.from.to_string(),
            new_path: plan.to.to_string(),
            failed_at: crate::error::shown(&at),
            error: quire_grammar::diagnostics::one_line(&error.to_string()).into_owned(),
            not_undone,
        }))
    }

    /// Renames the note, then replaces each changed note, recording in
    /// `done` what was done; stops at the first failure.
    fn write_steps(
        &self,
        plan: &MovePlan,
        locked: &[LockedChange],
        moved_file: &FileStat,
        to_on_disk: &str,
        before_write: &mut dyn FnMut(MoveStep<'_>) -> Result<(), FsError>,
        done: &mut Vec<Done>,
    ) -> Result<(), Box<StepFailure>> {
        let workspace = self.reader.workspace();
        let failed = |at: &str| {
            let at = at.to_owned();
            move |error: KilnError| Box::new(StepFailure { at, error })
        };
        let from = plan.from.as_str();
        before_write(MoveStep::Rename).map_err(|error| failed(from)(error.into()))?;
        let (folder, name) = to_on_disk.rsplit_once('/').unwrap_or(("", to_on_disk));
        let folder = workspace
            .make_folders(if folder.is_empty() { "." } else { folder })
            .map_err(|error| failed(plan.to.as_str())(error.into()))?;
        let entry = workspace
            .locate_entry(&plan.from_on_disk)
            .map_err(|error| failed(from)(error.into()))?;
        match entry.rename_to(moved_file, &folder, OsStr::new(name)) {
            Ok(_) => done.push(Done::Renamed {
                from: plan.from_on_disk.clone(),
                to: to_on_disk.to_owned(),
            }),
            Err(FsError::AlreadyExists { .. }) => {
                return Err(failed(plan.to.as_str())(onto_existing(plan)));
            }
            Err(error) => return Err(failed(from)(error.into())),
        }
        for change in locked {
            if change.relinked.links == 0 {
                continue;
            }
            let on_disk = match change.path == plan.from {
                true => to_on_disk,
                false => change.on_disk.as_str(),
            };
            before_write(MoveStep::Replace(on_disk))
                .map_err(|error| failed(on_disk)(error.into()))?;
            let located = workspace
                .locate(on_disk)
                .map_err(|error| failed(on_disk)(error.into()))?;
            // The renamed note's file is the one locked, but the rename
            // changed its status time: replaced as opened anew, once it is
            // known to be that file still.
            let renamed;
            let file = match change.path == plan.from {
                true => {
                    renamed = located
                        .open()
                        .map_err(|error| failed(on_disk)(error.into()))?;
                    if !renamed.stat().same_file(moved_file) {
                        let changed = FsError::Changed {
                            path: on_disk.to_owned(),
                        };
                        return Err(failed(on_disk)(changed.into()));
                    }
                    &renamed
                }
                false => &change.file,
            };
            located
                .replace(file, change.relinked.text.as_bytes())
                .map_err(|error| failed(on_disk)(error.into()))?;
            done.push(Done::Replaced {
                on_disk: on_disk.to_owned(),
                old: change.old.clone(),
                new: change.relinked.text.as_bytes().to_vec(),
            });
        }
        Ok(())
    }

    /// Undoes `done`, last first; returns the files it could not put back
    /// (changed since by someone else, or the old name taken).
    fn undo(&self, done: Vec<Done>) -> Vec<String> {
        let workspace = self.reader.workspace();
        let mut not_undone = Vec::new();
        for step in done.into_iter().rev() {
            let undone = match &step {
                Done::Replaced { on_disk, old, new } => workspace
                    .locate(on_disk)
                    .and_then(|located| {
                        let file = located.open()?;
                        if file.read(MAX_NOTE_BYTES)? != *new {
                            return Err(FsError::Changed {
                                path: on_disk.clone(),
                            });
                        }
                        located.replace(&file, old)
                    })
                    .is_ok(),
                Done::Renamed { from, to } => {
                    let (folder, name) = from.rsplit_once('/').unwrap_or((".", from));
                    workspace
                        .locate_entry(to)
                        .and_then(|entry| {
                            let stat = entry.stat()?;
                            let folder = workspace.make_folders(folder)?;
                            entry.rename_to(&stat, &folder, OsStr::new(name))
                        })
                        .is_ok()
                }
            };
            if !undone {
                not_undone.push(match &step {
                    Done::Replaced { on_disk, .. } => crate::error::shown(on_disk),
                    Done::Renamed { to, .. } => crate::error::shown(to),
                });
            }
            match &step {
                Done::Replaced { on_disk, .. } => self.sync_now(on_disk),
                Done::Renamed { from, to } => {
                    self.sync_now(to);
                    self.sync_now(from);
                }
            }
        }
        not_undone
    }

    /// The text of the note `path` (at `on_disk`) whose links a move may
    /// change; `None` when it is gone or holds no links the index reads
    /// (over 16 MiB, not UTF-8). Any other failure refuses the move: its
    /// links could not be kept.
    fn linking_text(&self, path: &NotePath, on_disk: &str) -> Result<Option<String>, KilnError> {
        let read = self
            .reader
            .workspace()
            .locate_shown(on_disk, path.as_str())
            .and_then(|located| located.open()?.read_to_string(MAX_NOTE_BYTES));
        match read {
            Ok(text) => Ok(Some(text)),
            Err(FsError::NotFound { .. } | FsError::TooLarge { .. } | FsError::NotUtf8 { .. }) => {
                Ok(None)
            }
            Err(error) => Err(error.into()),
        }
    }

    /// The note to move, where it goes, and the notes whose links can
    /// change, from the index (waiting for it at most the call's budget).
    fn plan_move(&self, request: &MoveNoteRequest) -> Result<MovePlan, KilnError> {
        let root = self.reader.workspace().root();
        let from = NotePath::parse(&self.path_of_named(&request.path)?, root)?;
        let to = NotePath::parse(&request.new_path, root)?;
        let nowhere = |why| {
            KilnError::Write(WriteRefusal::MoveNowhere {
                path: from.to_string(),
                new_path: to.to_string(),
                why,
            })
        };
        if to == from {
            return Err(nowhere("that is where it is"));
        }
        if is_hidden(to.as_str()) {
            return Err(nowhere(
                "a note in a hidden folder or with a hidden name is no longer one of the kiln's notes (to delete it, use delete_note)",
            ));
        }
        let from_on_disk = self.existing_on_disk(&from)?;
        let watching = self.index.is_watching();
        let mut plan = self.index.with(self.budget, |workspace, index| {
            // Without a watcher, up to date with the disk first (a walk and
            // an open per file: about 50 ms for 10,000 notes), so a link
            // written since the last poll is found and rewritten; with one,
            // the changes it reported are applied already.
            if !watching && index.rescan(workspace, "") {
                index.relink();
            }
            let before = index.note_set().clone();
            let mut after = before.clone();
            after.remove(&from);
            after.insert(to.clone());
            let mut linking: Vec<(NotePath, String)> = index
                .linking_to_stem(from.stem())
                .chain(index.linking_to_stem(to.stem()))
                .filter(|path| **path != from)
                .filter_map(|path| index.get(path))
                .map(|note| (note.path.clone(), note.on_disk.clone()))
                .collect();
            linking.sort();
            linking.dedup();
            Ok(MovePlan {
                from: from.clone(),
                from_on_disk: from_on_disk.clone(),
                to: to.clone(),
                before,
                after,
                linking,
            })
        })?;
        let indexed = plan.before.with_path(plan.to.as_str()).contains(&plan.to);
        if indexed || self.on_disk(&plan.to)?.is_some() {
            return Err(onto_existing(&plan));
        }
        plan.linking.retain(|(path, _)| path != &plan.to);
        Ok(plan)
    }
}

/// The path a relinked note is reported by: the moved note by its new one.
fn shown_after(plan: &MovePlan, path: &NotePath) -> String {
    if path == &plan.from {
        plan.to.to_string()
    } else {
        path.to_string()
    }
}

fn linked_note(plan: &MovePlan) -> KilnError {
    KilnError::Write(WriteRefusal::MoveNowhere {
        path: plan.from.to_string(),
        new_path: plan.to.to_string(),
        why: "the note is a symbolic link (or lies beneath one); move the file it leads to",
    })
}

fn onto_existing(plan: &MovePlan) -> KilnError {
    KilnError::Write(WriteRefusal::MoveOntoExisting {
        path: plan.from.to_string(),
        new_path: plan.to.to_string(),
    })
}

fn not_found_now(path: &NotePath) -> KilnError {
    KilnError::File(FsError::NotFound {
        path: path.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    use std::path::Path;

    use super::*;

    const OLD: &str =
        "---\naliases: [Old one]\n---\n# Old\nSee [[#Old]], [[Old#Old]] and [sibling](./sib.md).\n";
    const LINKER: &str = "---\nup: \"[[Old]]\"\n---\r\n[[Old]] ![[Old#Old|x]] [[a/Old.md]]\r\n[o](../a/Old.md#Old) [[Other]]\r\n";
    const BROKEN: &str = "---\nup: [oops\n---\nSee [[Old]].\n";
    const UNRELATED: &str = "[[Other]] and [[sib]]\n";

    /// The kiln of these tests: a note with links to it in every form,
    /// in a CRLF note and one with broken frontmatter.
    fn kiln() -> (tempfile::TempDir, KilnTools) {
        let dir = tempfile::tempdir().unwrap();
        let files = [
            ("a/Old.md", OLD),
            ("a/sib.md", "sibling\n"),
            ("b/Other.md", "other\n"),
            ("c/Linker.md", LINKER),
            ("c/Broken.md", BROKEN),
            ("c/Unrelated.md", UNRELATED),
            ("x/Same.md", ""),
            ("y/Same.md", ""),
        ];
        for (path, text) in files {
            let path = dir.path().join(path);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        let tools = KilnTools::new(Workspace::new(dir.path()).unwrap())
            .with_watcher(false)
            .with_budget(Duration::from_secs(5));
        (dir, tools)
    }

    fn request(path: &str, new_path: &str) -> MoveNoteRequest {
        MoveNoteRequest {
            path: path.to_owned(),
            new_path: new_path.to_owned(),
            expected_sha256: None,
        }
    }

    /// Every file of the kiln with its bytes, in path order.
    fn files(root: &Path) -> Vec<(String, Vec<u8>)> {
        fn walk(root: &Path, folder: &Path, files: &mut Vec<(String, Vec<u8>)>) {
            for entry in fs::read_dir(folder).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    walk(root, &path, files);
                } else {
                    let name = path
                        .strip_prefix(root)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned();
                    files.push((name, fs::read(&path).unwrap()));
                }
            }
        }
        let mut files = Vec::new();
        walk(root, root, &mut files);
        files.sort();
        files
    }

    /// Where every link of every note leads, the moved note named by its
    /// new path: what a move must keep.
    fn destinations(tools: &KilnTools, from: &str, to: &str) -> Vec<(String, Option<String>)> {
        tools
            .index
            .with(Duration::from_secs(5), |_, index| {
                let mut all = Vec::new();
                for note in index.notes() {
                    let source = match note.path.as_str() == from {
                        true => to.to_owned(),
                        false => note.path.to_string(),
                    };
                    for link in &note.links {
                        let leads = link.path.as_ref().map(|path| match path.as_str() == from {
                            true => to.to_owned(),
                            false => path.to_string(),
                        });
                        all.push((source.clone(), leads.or(link.attachment.clone())));
                    }
                }
                all.sort();
                Ok(all)
            })
            .unwrap()
    }

    #[test]
    fn a_move_rewrites_every_form_of_link_and_the_files_agree_with_the_result() {
        let (dir, tools) = kiln();
        let root = dir.path();
        let before = destinations(&tools, "a/Old.md", "n/New plan.md");
        let preview = tools.preview_move(&request("Old", "n/New plan")).unwrap();
        assert_eq!(
            preview.summary(),
            "Move `a/Old.md` to `n/New plan.md`. 8 links in 3 notes will be rewritten to keep leading where \
             they led: c/Broken.md, c/Linker.md (5 links), n/New plan.md (2 links)."
        );
        let moved = tools.move_note(&request("Old", "n/New plan")).unwrap();
        assert_eq!(
            (moved.path.as_str(), moved.new_path.as_str()),
            ("a/Old.md", "n/New plan.md")
        );
        assert_eq!(moved.links_changed, 8);
        let relinked: Vec<(&str, &[usize])> = moved
            .relinked
            .iter()
            .map(|note| (note.path.as_str(), note.lines.as_slice()))
            .collect();
        assert_eq!(
            relinked,
            [
                ("c/Broken.md", &[4][..]),
                ("c/Linker.md", &[2, 4, 5][..]),
                ("n/New plan.md", &[5][..]),
            ]
        );
        // The files: the note moved, each link rewritten in its own form,
        // every other byte kept.
        assert!(!root.join("a/Old.md").exists());
        let new = root.join("n/New plan.md");
        assert_eq!(
            fs::read_to_string(&new).unwrap(),
            OLD.replace("[[Old#Old]]", "[[New plan#Old]]")
                .replace("./sib.md", "../a/sib.md")
        );
        assert_eq!(write::sha256(&fs::read(&new).unwrap()), moved.sha256);
        assert_eq!(
            fs::read_to_string(root.join("c/Linker.md")).unwrap(),
            "---\nup: \"[[New plan]]\"\n---\r\n[[New plan]] ![[New plan#Old|x]] [[n/New plan.md]]\r\n\
             [o](../n/New%20plan.md#Old) [[Other]]\r\n"
        );
        assert_eq!(
            fs::read_to_string(root.join("c/Broken.md")).unwrap(),
            BROKEN.replace("[[Old]]", "[[New plan]]")
        );
        assert_eq!(
            fs::read_to_string(root.join("c/Unrelated.md")).unwrap(),
            UNRELATED
        );
        // The index saw it all at once: every link leads where it led.
        assert_eq!(
            destinations(&tools, "n/New plan.md", "n/New plan.md"),
            before
        );
    }

    #[test]
    fn a_note_whose_own_links_keep_is_renamed_as_the_same_file() {
        let (dir, tools) = kiln();
        let inode = fs::metadata(dir.path().join("b/Other.md")).unwrap().ino();
        let moved = tools
            .move_note(&request("b/Other.md", "b/Another.md"))
            .unwrap();
        let relinked: Vec<&str> = moved
            .relinked
            .iter()
            .map(|note| note.path.as_str())
            .collect();
        assert_eq!(relinked, ["c/Linker.md", "c/Unrelated.md"]);
        let after = fs::metadata(dir.path().join("b/Another.md")).unwrap();
        assert_eq!(after.ino(), inode);
        assert_eq!(
            fs::read_to_string(dir.path().join("b/Another.md")).unwrap(),
            "other\n"
        );
    }

    #[test]
    fn a_note_that_is_not_utf8_moves_as_it_is_and_its_digest_is_its_bytes() {
        let (dir, tools) = kiln();
        let bytes = b"# Latin-1 \xe9t\xe9 [[Other]]\n";
        fs::write(dir.path().join("a/Old.md"), bytes).unwrap();
        let moved = tools.move_note(&request("a/Old.md", "n/New.md")).unwrap();
        assert_eq!(fs::read(dir.path().join("n/New.md")).unwrap(), bytes);
        assert_eq!(moved.sha256, write::sha256(bytes));
        // The links to it are rewritten all the same.
        assert!(
            fs::read_to_string(dir.path().join("c/Linker.md"))
                .unwrap()
                .contains("[[New]]")
        );
    }

    #[test]
    fn a_move_onto_an_existing_note_or_nowhere_changes_nothing() {
        let (dir, tools) = kiln();
        let before = files(dir.path());
        for (to, says) in [
            ("b/Other", "already exists"),
            ("a/Old", "that is where it is"),
            (".hidden/Old", "hidden"),
            ("../out", "above the kiln root"),
        ] {
            let error = tools.move_note(&request("a/Old.md", to)).unwrap_err();
            assert!(error.to_string().contains(says), "{to}: {error}");
            assert!(
                tools.preview_move(&request("a/Old.md", to)).is_err(),
                "{to}"
            );
        }
        assert_eq!(files(dir.path()), before);
        // Nor a note that is not there, or changed since it was read.
        assert!(tools.move_note(&request("a/Gone.md", "z.md")).is_err());
        let mut stale = request("a/Old.md", "z.md");
        stale.expected_sha256 = Some("0".repeat(64));
        assert!(
            tools
                .move_note(&stale)
                .unwrap_err()
                .to_string()
                .contains("changed since it was read")
        );
        assert_eq!(files(dir.path()), before);
    }

    #[test]
    fn a_note_locked_by_another_writer_holds_the_move_until_it_is_free() {
        let (dir, tools) = kiln();
        let tools = tools.with_budget(Duration::from_millis(300));
        let before = files(dir.path());
        let other = Workspace::new(dir.path()).unwrap();
        let held = other.locate("c/Linker.md").unwrap().open().unwrap();
        held.lock(Duration::from_secs(1)).unwrap();
        let error = tools
            .move_note(&request("a/Old.md", "n/New.md"))
            .unwrap_err();
        assert!(
            error.to_string().contains("timed out") || error.to_string().contains("lock"),
            "{error}"
        );
        assert_eq!(files(dir.path()), before);
        drop(held);
        tools.move_note(&request("a/Old.md", "n/New.md")).unwrap();
        assert!(dir.path().join("n/New.md").exists());
    }

    #[test]
    fn a_failure_midway_undoes_every_change_made() {
        for failing in 1..=3 {
            let (dir, tools) = kiln();
            let before = files(dir.path());
            let mut writes = 0;
            let error = tools
                .move_note_checked(&request("a/Old.md", "n/New.md"), None, &mut |step| {
                    writes += 1;
                    if writes == failing {
                        return Err(FsError::Io {
                            path: format!("{step:?}"),
                            action: "write",
                            reason: "no space left on device".to_owned(),
                            kind: quire_fs::IoKind::NoSpace,
                        });
                    }
                    Ok(())
                })
                .unwrap_err();
            let message = error.to_string();
            assert!(
                message.contains("every change made was undone"),
                "{message}"
            );
            assert_eq!(files(dir.path()), before, "failing write {failing}");
            // The index agrees: the note is where it was.
            assert!(
                tools
                    .read_note(&ReadNoteRequest {
                        path: "a/Old.md".to_owned(),
                        start_line: None,
                        end_line: None,
                        head: None,
                        tail: None,
                    })
                    .is_ok()
            );
        }
    }

    #[test]
    fn a_note_that_cannot_be_replaced_undoes_the_move_done_so_far() {
        // The last note in path order is read-only (mode 0444, refused even
        // for root): the rename and the notes before it are undone.
        let (dir, tools) = kiln();
        let root = dir.path();
        std::fs::create_dir(root.join("z")).unwrap();
        fs::write(root.join("z/Last.md"), "[[Old]]\n").unwrap();
        fs::set_permissions(root.join("z/Last.md"), fs::Permissions::from_mode(0o444)).unwrap();
        let before = files(root);
        let error = tools
            .move_note(&request("a/Old.md", "n/New.md"))
            .unwrap_err();
        let message = error.to_string();
        assert!(message.contains("failed at `z/Last.md`"), "{message}");
        assert!(
            message.contains("every change made was undone"),
            "{message}"
        );
        assert_eq!(files(root), before);
        // A hard-linked note (its other name would keep the old text) too.
        fs::set_permissions(root.join("z/Last.md"), fs::Permissions::from_mode(0o644)).unwrap();
        fs::hard_link(root.join("z/Last.md"), root.join("twin.txt")).unwrap();
        let error = tools
            .move_note(&request("a/Old.md", "n/New.md"))
            .unwrap_err();
        assert!(error.to_string().contains("undone"), "{error}");
        assert_eq!(
            fs::read(root.join("c/Linker.md")).unwrap(),
            LINKER.as_bytes()
        );
        assert!(root.join("a/Old.md").exists() && !root.join("n/New.md").exists());
    }

    #[test]
    fn links_fifos_and_hostile_destinations_are_refused() {
        let (dir, tools) = kiln();
        let root = dir.path();
        // A note that is a symbolic link: its file is moved, not the link.
        std::os::unix::fs::symlink("Old.md", root.join("a/Alias.md")).unwrap();
        let error = tools
            .move_note(&request("a/Alias.md", "n/New.md"))
            .unwrap_err();
        assert!(error.to_string().contains("symbolic link"), "{error}");
        assert!(
            tools
                .preview_move(&request("a/Alias.md", "n/New.md"))
                .is_err()
        );
        // A FIFO already at the destination's name: never replaced, and
        // never opened (a move would block on it).
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            root.join("fifo.md"),
            rustix::fs::Mode::from(0o644),
        )
        .unwrap();
        let error = tools
            .move_note(&request("a/Old.md", "fifo.md"))
            .unwrap_err();
        assert!(error.to_string().contains("already exists"), "{error}");
        // A destination folder that is a link out of the root.
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("out")).unwrap();
        assert!(tools.move_note(&request("a/Old.md", "out/New.md")).is_err());
        assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);
        assert!(root.join("a/Old.md").exists());
        assert_eq!(
            fs::read(root.join("c/Linker.md")).unwrap(),
            LINKER.as_bytes()
        );
    }

    #[test]
    fn an_approved_move_is_refused_when_the_links_to_rewrite_changed() {
        let (dir, tools) = kiln();
        let preview = tools
            .preview_move(&request("a/Old.md", "n/New.md"))
            .unwrap();
        fs::write(dir.path().join("c/Unrelated.md"), "now [[Old]] too\n").unwrap();
        let error = tools
            .apply_approved(
                &WriteRequest::Move(request("a/Old.md", "n/New.md")),
                &preview,
            )
            .unwrap_err();
        assert!(
            error
                .to_string()
                .contains("changed since the move was shown"),
            "{error}"
        );
        assert!(dir.path().join("a/Old.md").exists());
        // Approved as it is now, it goes through.
        let preview = tools
            .preview_move(&request("a/Old.md", "n/New.md"))
            .unwrap();
        let done = tools
            .apply_approved(
                &WriteRequest::Move(request("a/Old.md", "n/New.md")),
                &preview,
            )
            .unwrap();
        assert!(matches!(done, WriteDone::Moved(moved) if moved.relinked.len() == 4));
    }
}
