//! Creating folders beneath the root, like `mkdir -p`, and a file whose
//! folders may not exist yet.
//!
//! The folders are made by the resolver itself ([`Workspace::locate`]'s),
//! one at a time: `mkdirat` relative to the parent's handle, then the new
//! folder opened with `O_NOFOLLOW | O_DIRECTORY`. So a folder on the way
//! swapped for a link out of the root while this runs is met as a link and
//! refused, never created through; nothing is ever made outside the root.
//! `create_dir_all` on a path would follow such a link.

use std::ffi::OsString;
use std::os::fd::OwnedFd;
use std::path::{Component, Path};

use rustix::fs::{AtFlags, Mode};
use rustix::io::Errno;

use super::error::FsError;
use super::file::{FileStat, Located};
use super::workspace::{FOLDER_FLAGS, Resolve, Workspace};

impl Workspace {
    /// Makes every missing folder of the folder path `path` (relative to
    /// the root), like `mkdir -p`, and returns the last one, held open.
    ///
    /// Guarantees:
    /// - nothing is created outside the root: each folder is made with
    ///   `mkdirat` through its parent's handle and opened without following
    ///   a link; a link met on the way is followed exactly as
    ///   [`Workspace::locate`] follows it (inside the root only, else
    ///   [`FsError::Outside`]);
    /// - a folder is created only where `path` itself names one, never at a
    ///   missing link target ([`FsError::DanglingLink`]);
    /// - a file (or FIFO, ...) where a folder should be is
    ///   [`FsError::NotAFolder`], naming it;
    /// - another process creating the same folders at the same time is no
    ///   error: both calls succeed;
    /// - new folders get mode `0o777` less the umask, and each parent's
    ///   entries are flushed to disk (`fsync`) once a folder is made in it;
    /// - a path deeper than [`super::DEFAULT_MAX_DEPTH`] folders is refused
    ///   ([`FsError::Invalid`]) before anything is made; a refused `mkdirat`
    ///   (a read-only parent) is [`FsError::Io`] naming the folder, with
    ///   [`super::IoKind::PermissionDenied`].
    ///
    /// Folders made before a failure stay (as with `mkdir -p`). The returned
    /// entry names the folder itself ([`Located::real_path`] is where it
    /// is); [`Located::open_child`] finds an entry inside it without
    /// resolving the path again.
    ///
    /// ```
    /// # let folder = tempfile::tempdir()?;
    /// use quire_fs::Workspace;
    ///
    /// let workspace = Workspace::new(folder.path())?;
    /// let projects = workspace.make_folders("notes/2026/projects").unwrap();
    /// assert_eq!(projects.real_path(), "notes/2026/projects");
    /// projects.open_child("plan.md").unwrap().create(b"# Plan\n", 0o644).unwrap();
    /// assert_eq!(workspace.read_to_string("notes/2026/projects/plan.md", 100).unwrap(), "# Plan\n");
    /// // Again: nothing to make, no error.
    /// workspace.make_folders("notes/2026/projects").unwrap();
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn make_folders(&self, path: &str) -> Result<Located, FsError> {
        self.resolve(path, Resolve::CreateFolders, None)
    }

    /// Creates the regular file `path` with `contents` (permissions `mode`,
    /// less the umask), making its missing folders first as
    /// [`Workspace::make_folders`] does. The file is created as
    /// [`Located::create`] does: atomically, and only where nothing exists
    /// ([`FsError::AlreadyExists`] otherwise, even a link). Returns the new
    /// file's entry.
    pub fn create_with_folders(
        &self,
        path: &str,
        contents: &[u8],
        mode: u32,
    ) -> Result<Located, FsError> {
        let shown = self.shown(path);
        if path.ends_with('/') {
            return Err(FsError::TrailingSlash { path: shown });
        }
        let given = Path::new(path);
        // `Path::components` drops a final `.`, which names a folder here.
        let ends_in_dot = path == "." || path.ends_with("/.");
        let last = given.components().next_back().filter(|_| !ends_in_dot);
        let Some(Component::Normal(name)) = last else {
            return Err(if path.is_empty() {
                FsError::Empty
            } else {
                FsError::Invalid {
                    path: shown,
                    reason: "does not end in a file name",
                }
            });
        };
        let parent = given
            .parent()
            .and_then(Path::to_str)
            .filter(|parent| !parent.is_empty())
            .unwrap_or(".");
        let folder = self.resolve(parent, Resolve::CreateFolders, Some(&shown))?;
        let mut file = folder.open_child(name)?;
        file.shown = shown;
        file.create(contents, mode)?;
        Ok(file)
    }
}

impl Located {
    /// The entry `name` inside this folder (found through the folder's
    /// handle, not by resolving a path again), not following a link; it
    /// need not exist. For a folder from [`Workspace::make_folders`] (or
    /// [`Workspace::locate`] of a path ending in `/` or `.`).
    pub fn open_child(&self, name: impl Into<OsString>) -> Result<Located, FsError> {
        let name = name.into();
        let bytes = name.as_encoded_bytes();
        if bytes.is_empty() || bytes == b"." || bytes == b".." || bytes.contains(&b'/') {
            return Err(FsError::Invalid {
                path: name.to_string_lossy().into_owned(),
                reason: "is not a file name",
            });
        }
        if bytes.contains(&0) {
            return Err(FsError::Invalid {
                path: name.to_string_lossy().replace('\0', "\\0"),
                reason: "contains a NUL character",
            });
        }
        let folder = self.open_folder()?;
        let real = join(&self.real, &name.to_string_lossy());
        let shown = join(&self.shown, &name.to_string_lossy());
        let kind = match rustix::fs::statat(&folder, &name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => Some(FileStat::from_raw(&stat).kind()),
            Err(Errno::NOENT) => None,
            Err(errno) => {
                return Err(FsError::io(&shown, "look up", &std::io::Error::from(errno)));
            }
        };
        Ok(Located {
            folder,
            name,
            shown,
            real,
            kind,
            names_folder: false,
        })
    }

    /// A handle on this entry as a folder: the folder itself for an entry
    /// that names one (`.`), else the entry opened without following a link.
    pub(super) fn open_folder(&self) -> Result<OwnedFd, FsError> {
        if self.name == "." {
            return self
                .folder
                .try_clone()
                .map_err(|error| FsError::io(&self.shown, "open", &error));
        }
        match rustix::fs::openat(&self.folder, &self.name, FOLDER_FLAGS, Mode::empty()) {
            Ok(folder) => Ok(folder),
            Err(Errno::NOENT) => Err(FsError::NotFound {
                path: self.shown.clone(),
            }),
            Err(Errno::NOTDIR | Errno::LOOP) => Err(FsError::NotAFolder {
                path: self.shown.clone(),
                kind: self.stat()?.kind(),
            }),
            Err(errno) => Err(FsError::io(
                &self.shown,
                "open the folder",
                &std::io::Error::from(errno),
            )),
        }
    }
}

/// `folder/name`, or `name` at the root (`""` or `.`).
pub(super) fn join(folder: &str, name: &str) -> String {
    let folder = folder.trim_end_matches('/');
    if folder.is_empty() || folder == "." {
        name.to_owned()
    } else {
        format!("{folder}/{name}")
    }
}
