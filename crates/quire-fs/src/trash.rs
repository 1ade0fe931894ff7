//! Moving a file into another folder beneath the root under a name nobody
//! uses yet: how a note goes to the trash (`.trash/` in the root, Obsidian's
//! own convention), recoverable, never overwriting what is already there.
//!
//! The move is one `renameat` between two folder handles (no copy: the inode
//! and its hard links are kept), made with `RENAME_NOREPLACE` where the
//! kernel has it, so an existing file is never replaced; a taken name gets a
//! number as Obsidian numbers them (`a.md`, `a 1.md`, `a 2.md`, ...).

use std::ffi::{OsStr, OsString};
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::{OsStrExt, OsStringExt};

use rustix::fs::AtFlags;
use rustix::io::Errno;

use super::error::{FileKind, FsError};
use super::file::{FileStat, Located, sync_folder};
use super::folders::join;
use super::workspace::Workspace;

/// How many numbered names are tried before the folder is called full.
const MAX_NUMBER: u32 = 10_000;

impl Workspace {
    /// Moves the note at `path` into the folder `trash_folder` (made if
    /// missing, as [`Workspace::make_folders`] does) and returns where it is
    /// now, relative to the root: `.trash/a.md`, or `.trash/a 1.md` when
    /// that name is taken (see [`Located::move_into`] for the guarantees).
    ///
    /// A note that is a symbolic link is moved itself, not the file it leads
    /// to (as Obsidian does): the target may be another note, or lie beyond
    /// the link's reach. Anything else but a regular file is refused. A
    /// note already in `trash_folder` is renamed there to a numbered name;
    /// a caller that means "delete for good" there removes it instead.
    ///
    /// ```
    /// # let folder = tempfile::tempdir()?;
    /// # std::fs::write(folder.path().join("a.md"), "first")?;
    /// use quire_fs::Workspace;
    ///
    /// let workspace = Workspace::new(folder.path())?;
    /// assert_eq!(workspace.trash("a.md", ".trash").unwrap(), ".trash/a.md");
    /// workspace.create_with_folders("a.md", b"second", 0o644).unwrap();
    /// assert_eq!(workspace.trash("a.md", ".trash").unwrap(), ".trash/a 1.md");
    /// assert_eq!(workspace.read_to_string(".trash/a.md", 100).unwrap(), "first");
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn trash(&self, path: &str, trash_folder: &str) -> Result<String, FsError> {
        let entry = self.locate_entry(path)?;
        let expected = match entry.kind() {
            Some(FileKind::Symlink) if !entry.names_folder => entry.stat()?,
            _ => *entry.open()?.stat(),
        };
        let folder = self.make_folders(trash_folder)?;
        entry.move_into(&expected, &folder)
    }
}

impl Located {
    /// Moves this entry (a regular file, or a symbolic link itself) into
    /// `folder` (from [`Workspace::make_folders`], say) under its own name,
    /// or the first free numbered one (`a.md`, `a 1.md`, `a 2.md`, ...), and
    /// returns its new path relative to the root.
    ///
    /// `expected` is what the entry must still be (same device and inode):
    /// [`OpenFile::stat`](super::OpenFile::stat) of the file as it was read,
    /// or [`Located::stat`] of a link. Guarantees:
    /// - the entry is renamed, never copied: contents, owner, mode and hard
    ///   links are kept; a rename across file systems is refused
    ///   ([`FsError::Io`]), not turned into a copy;
    /// - nothing in `folder` is ever overwritten (`RENAME_NOREPLACE` on
    ///   Linux; elsewhere a name is checked free right before the rename);
    /// - an entry no longer `expected` (replaced, removed, or moved by a
    ///   concurrent call) is [`FsError::Changed`] and is not moved; of
    ///   concurrent moves of one file, exactly one succeeds. An entry replaced
    ///   in the instant between the check and the rename is moved back and
    ///   also reported as changed;
    /// - both folders' entries are flushed to disk (`fsync`) after the move.
    pub fn move_into(&self, expected: &FileStat, folder: &Located) -> Result<String, FsError> {
        self.rename_into(expected, folder, |number| {
            (number <= MAX_NUMBER).then(|| numbered(&self.name, number))
        })
    }

    /// Moves (or renames) this entry to `name` in `folder`, as
    /// [`Located::move_into`] moves it, with the same guarantees, but under
    /// that one name: [`FsError::AlreadyExists`] when it is taken (nothing
    /// is ever replaced). Returns the new path relative to the root.
    ///
    /// ```
    /// # let folder = tempfile::tempdir()?;
    /// # std::fs::write(folder.path().join("a.md"), "first")?;
    /// use quire_fs::Workspace;
    ///
    /// let workspace = Workspace::new(folder.path())?;
    /// let note = workspace.locate_entry("a.md").unwrap();
    /// let read = note.open().unwrap();
    /// let archive = workspace.make_folders("archive").unwrap();
    /// assert_eq!(note.rename_to(read.stat(), &archive, "b.md".as_ref()).unwrap(), "archive/b.md");
    /// assert_eq!(workspace.read_to_string("archive/b.md", 100).unwrap(), "first");
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn rename_to(
        &self,
        expected: &FileStat,
        folder: &Located,
        name: &OsStr,
    ) -> Result<String, FsError> {
        let bytes = name.as_bytes();
        if bytes.is_empty()
            || bytes == b"."
            || bytes == b".."
            || bytes.contains(&b'/')
            || bytes.contains(&0)
        {
            return Err(FsError::Invalid {
                path: name.to_string_lossy().replace('\0', "\\0"),
                reason: "is not a file name",
            });
        }
        self.rename_into(expected, folder, |number| {
            (number == 0).then(|| name.to_owned())
        })
    }

    /// Renames this entry into `folder` under the first free name of
    /// `names(0)`, `names(1)`, ... (`None`: no more to try).
    fn rename_into(
        &self,
        expected: &FileStat,
        folder: &Located,
        names: impl Fn(u32) -> Option<OsString>,
    ) -> Result<String, FsError> {
        if self.names_folder {
            return Err(FsError::TrailingSlash {
                path: self.shown.clone(),
            });
        }
        let changed = || FsError::Changed {
            path: self.shown.clone(),
        };
        let now = match self.stat() {
            Ok(now) => now,
            Err(FsError::NotFound { .. }) if self.kind.is_some() => return Err(changed()),
            Err(error) => return Err(error),
        };
        if !matches!(now.kind(), FileKind::Regular | FileKind::Symlink) || self.name == "." {
            return Err(FsError::NotAFile {
                path: self.shown.clone(),
                kind: now.kind(),
            });
        }
        if !now.same_file(expected) {
            return Err(changed());
        }
        let destination = folder.open_folder()?;
        let mut number = 0;
        let moved_as = loop {
            let Some(candidate) = names(number) else {
                return Err(FsError::Invalid {
                    path: self.shown.clone(),
                    reason: "has no name left to move it under",
                });
            };
            match rename_no_replace(&self.folder, &self.name, &destination, &candidate) {
                Ok(()) => break candidate,
                Err(Errno::EXIST) if names(number + 1).is_some() => number += 1,
                Err(Errno::EXIST) => {
                    return Err(FsError::AlreadyExists {
                        path: join(&folder.real, &candidate.to_string_lossy()),
                    });
                }
                // Moved or removed by someone else since the check.
                Err(Errno::NOENT) => return Err(changed()),
                Err(errno) => {
                    return Err(FsError::io(&self.shown, "move", &io::Error::from(errno)));
                }
            }
        };
        let arrived = rustix::fs::statat(&destination, &moved_as, AtFlags::SYMLINK_NOFOLLOW)
            .map(|stat| FileStat::from_raw(&stat));
        if !arrived.is_ok_and(|arrived| arrived.same_file(expected)) {
            // Replaced in the instant between the check and the rename: put
            // back what was moved (unless something took its place again).
            let _ = rename_no_replace(&destination, &moved_as, &self.folder, &self.name);
            sync_folder(&destination);
            sync_folder(&self.folder);
            return Err(changed());
        }
        sync_folder(&destination);
        sync_folder(&self.folder);
        Ok(join(&folder.real, &moved_as.to_string_lossy()))
    }
}

/// `name` with ` <number>` before its extension, as Obsidian numbers a
/// taken name: `a.md`, `a 1.md`; `notes` → `notes 1`; `.hidden` → `.hidden 1`
/// (a leading dot starts no extension).
fn numbered(name: &OsStr, number: u32) -> OsString {
    if number == 0 {
        return name.to_owned();
    }
    let bytes = name.as_bytes();
    let split = match bytes.iter().rposition(|&byte| byte == b'.') {
        Some(0) | None => bytes.len(),
        Some(dot) => dot,
    };
    let mut numbered = bytes[..split].to_vec();
    numbered.extend_from_slice(format!(" {number}").as_bytes());
    numbered.extend_from_slice(&bytes[split..]);
    OsString::from_vec(numbered)
}

/// Renames `from/name` to `to/target` unless `target` exists (`EEXIST`).
fn rename_no_replace(
    from: &OwnedFd,
    name: &OsStr,
    to: &OwnedFd,
    target: &OsStr,
) -> Result<(), Errno> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    match rustix::fs::renameat_with(from, name, to, target, rustix::fs::RenameFlags::NOREPLACE) {
        // A file system (or kernel) without RENAME_NOREPLACE.
        Err(Errno::INVAL | Errno::NOSYS | Errno::OPNOTSUPP) => {}
        result => return result,
    }
    // Checked right before: only a file created in that instant under the
    // very same name could be replaced.
    match rustix::fs::statat(to, target, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(_) => return Err(Errno::EXIST),
        Err(Errno::NOENT) => {}
        Err(errno) => return Err(errno),
    }
    rustix::fs::renameat(from, name, to, target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn taken_names_are_numbered_as_obsidian_numbers_them() {
        let cases = [
            ("a.md", 0, "a.md"),
            ("a.md", 1, "a 1.md"),
            ("a.md", 12, "a 12.md"),
            ("a.tar.gz", 2, "a.tar 2.gz"),
            ("notes", 1, "notes 1"),
            (".hidden", 1, ".hidden 1"),
            (".hidden.md", 3, ".hidden 3.md"),
        ];
        for (name, number, expected) in cases {
            assert_eq!(numbered(OsStr::new(name), number), expected, "{name}");
        }
    }
}
