//! A resolved entry beneath the root ([`Located`]: its folder, held open,
//! and its name) and a regular file opened from it ([`OpenFile`]).
//!
//! Opening never blocks and never follows a link the resolver has not
//! checked: `O_NONBLOCK | O_NOFOLLOW`, then `fstat` on the opened file must
//! say "regular file". Reads stop at a size limit. Replacing keeps owner,
//! group and mode and goes through [`super::stage`].

use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::fs::FileExt;

use rustix::fs::{Access, AtFlags, Mode, OFlags};
use rustix::io::Errno;

use super::error::{FileKind, FsError};
use super::lock::{Deadline, FolderLock, lock_exclusive};
use super::stage::{Install, open_readable, settle, stage};

/// What `stat` says about a file, in portable integer types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileStat {
    /// The device the file is on; with `ino`, the file's identity.
    pub dev: u64,
    /// The inode number; with `dev`, the file's identity, compared to see
    /// whether it was replaced.
    pub ino: u64,
    /// The file type and permission bits, as `st_mode`.
    pub mode: u32,
    /// How many hard links (names) the file has.
    pub nlink: u64,
    /// The owner's user id.
    pub uid: u32,
    /// The owner's group id.
    pub gid: u32,
    /// The size in bytes.
    pub size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl FileStat {
    #[allow(clippy::unnecessary_cast)] // the field types differ between targets
    pub(crate) fn from_raw(stat: &rustix::fs::Stat) -> FileStat {
        FileStat {
            dev: stat.st_dev as u64,
            ino: stat.st_ino as u64,
            mode: stat.st_mode as u32,
            nlink: stat.st_nlink as u64,
            uid: stat.st_uid as u32,
            gid: stat.st_gid as u32,
            size: u64::try_from(stat.st_size).unwrap_or(0),
            mtime: (stat.st_mtime as i64, stat.st_mtime_nsec as i64),
            ctime: (stat.st_ctime as i64, stat.st_ctime_nsec as i64),
        }
    }

    /// What kind of file this is, from the type bits of `mode`.
    pub fn kind(&self) -> FileKind {
        FileKind::from_mode(self.mode)
    }

    /// Seconds since the epoch of the last modification.
    pub fn mtime_seconds(&self) -> i64 {
        self.mtime.0
    }

    /// The last modification time: seconds and nanoseconds since the epoch.
    pub fn modified(&self) -> (i64, i64) {
        self.mtime
    }

    /// Whether both describe the same file (device and inode).
    pub fn same_file(&self, other: &FileStat) -> bool {
        (self.dev, self.ino) == (other.dev, other.ino)
    }

    /// Whether nothing about the file's content or attributes changed
    /// between the two: same file, size, modification and change times.
    pub fn unchanged_since(&self, earlier: &FileStat) -> bool {
        self.same_file(earlier)
            && self.size == earlier.size
            && self.mtime == earlier.mtime
            && self.ctime == earlier.ctime
    }
}

/// An entry beneath the root: the folder that holds it (open) and its name.
/// It may not exist yet ([`Located::exists`]).
#[derive(Debug)]
pub struct Located {
    /// The folder holding the entry (a path-only handle on Linux).
    pub(super) folder: OwnedFd,
    pub(super) name: OsString,
    /// The path as the caller gave it.
    pub(super) shown: String,
    /// Where the entry really is, relative to the root, after links.
    pub(super) real: String,
    /// What the entry was when resolved; `None` when it does not exist.
    pub(super) kind: Option<FileKind>,
    /// The path ended in `/` (or `/.`): it names a folder.
    pub(super) names_folder: bool,
}

impl Located {
    /// The path as the caller gave it (for messages).
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// Where the entry really is, relative to the root, after links.
    pub fn real_path(&self) -> &str {
        &self.real
    }

    /// What the entry was when it was resolved; `None` when it does not exist.
    pub fn kind(&self) -> Option<FileKind> {
        self.kind
    }

    /// Whether anything exists at the path.
    pub fn exists(&self) -> bool {
        self.kind.is_some()
    }

    /// The entry's `stat`, without opening it (and without following a link).
    pub fn stat(&self) -> Result<FileStat, FsError> {
        match rustix::fs::statat(&self.folder, &self.name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => Ok(FileStat::from_raw(&stat)),
            Err(Errno::NOENT) => Err(self.not_found()),
            Err(errno) => Err(FsError::io(&self.shown, "look up", &io::Error::from(errno))),
        }
    }

    fn not_found(&self) -> FsError {
        FsError::NotFound {
            path: self.shown.clone(),
        }
    }

    /// Refuses anything that is not (or no longer) a regular file.
    fn expect_regular(&self, kind: Option<FileKind>) -> Result<(), FsError> {
        match kind {
            None => Err(self.not_found()),
            Some(FileKind::Regular) if self.names_folder => Err(FsError::TrailingSlash {
                path: self.shown.clone(),
            }),
            Some(FileKind::Regular) => Ok(()),
            Some(kind) => Err(FsError::NotAFile {
                path: self.shown.clone(),
                kind,
            }),
        }
    }

    /// Opens the regular file for reading: without blocking (a FIFO cannot
    /// hang the call), without following a link, and checked with `fstat`
    /// after opening, so a file swapped for something else is refused.
    pub fn open(&self) -> Result<OpenFile, FsError> {
        self.expect_regular(self.kind)?;
        let flags =
            OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
        let fd = match rustix::fs::openat(&self.folder, &self.name, flags, Mode::empty()) {
            Ok(fd) => fd,
            Err(Errno::NOENT) => return Err(self.not_found()),
            // It became a symbolic link since it was resolved.
            Err(Errno::LOOP) => {
                return Err(FsError::Changed {
                    path: self.shown.clone(),
                });
            }
            Err(errno) => {
                return Err(FsError::io(&self.shown, "open", &io::Error::from(errno)));
            }
        };
        let stat = rustix::fs::fstat(&fd)
            .map(|stat| FileStat::from_raw(&stat))
            .map_err(|errno| FsError::io(&self.shown, "inspect", &io::Error::from(errno)))?;
        self.expect_regular(Some(stat.kind()))?;
        Ok(OpenFile {
            file: File::from(fd),
            stat,
            shown: self.shown.clone(),
        })
    }

    /// Whether the entry's name still leads to `file` (it was not replaced
    /// or removed since `file` was opened).
    pub fn is_current(&self, file: &OpenFile) -> Result<bool, FsError> {
        match self.stat() {
            Ok(now) => Ok(now.same_file(&file.stat)),
            Err(FsError::NotFound { .. }) => Ok(false),
            Err(error) => Err(error),
        }
    }

    /// Refuses to replace `file` when that would lose something: it has no
    /// write permission for this process (or none at all: mode `0444` is
    /// read-only even for root), other hard links would keep the old text,
    /// or its owner could not be kept.
    pub fn check_replaceable(&self, file: &OpenFile) -> Result<(), FsError> {
        let stat = &file.stat;
        if stat.mode & 0o222 == 0 {
            return Err(FsError::ReadOnly {
                path: self.shown.clone(),
                mode: stat.mode & 0o7777,
            });
        }
        let uid = rustix::process::geteuid().as_raw();
        match rustix::fs::accessat(&self.folder, &self.name, Access::WRITE_OK, AtFlags::EACCESS) {
            Ok(()) => {}
            Err(Errno::ACCESS | Errno::PERM) => {
                return Err(FsError::NotWritable {
                    path: self.shown.clone(),
                    uid,
                });
            }
            Err(errno) => {
                return Err(FsError::io(
                    &self.shown,
                    "check the permissions of",
                    &io::Error::from(errno),
                ));
            }
        }
        match rustix::fs::accessat(
            &self.folder,
            ".",
            Access::WRITE_OK | Access::EXEC_OK,
            AtFlags::EACCESS,
        ) {
            Ok(()) => {}
            Err(Errno::ACCESS | Errno::PERM) => {
                return Err(FsError::FolderNotWritable {
                    path: self.shown.clone(),
                });
            }
            Err(errno) => {
                return Err(FsError::io(
                    &self.shown,
                    "check the permissions of the folder of",
                    &io::Error::from(errno),
                ));
            }
        }
        if stat.nlink > 1 {
            return Err(FsError::HardLinked {
                path: self.shown.clone(),
                links: stat.nlink,
            });
        }
        if uid != 0 && stat.uid != uid {
            return Err(FsError::ForeignOwner {
                path: self.shown.clone(),
            });
        }
        Ok(())
    }

    /// Atomically replaces the regular file `original` (opened from this
    /// entry) with `contents`: a reader sees the old bytes or the new ones,
    /// never a mix; owner, group and mode are kept; a failure at any point
    /// leaves the old file exactly as it was and no temporary file behind.
    ///
    /// Right before the rename, the entry must still be `original`, unchanged
    /// since it was opened; otherwise nothing is written and the result is
    /// [`FsError::Changed`] (read again and retry).
    pub fn replace(&self, original: &OpenFile, contents: &[u8]) -> Result<(), FsError> {
        self.replace_checked(original, contents, || Ok(()))
    }

    /// [`Located::replace`], with `before_rename` run once the new bytes are
    /// on disk, right before they replace the old ones: an error from it
    /// abandons the write (tests use it to inject a failure).
    pub fn replace_checked(
        &self,
        original: &OpenFile,
        contents: &[u8],
        before_rename: impl FnOnce() -> io::Result<()>,
    ) -> Result<(), FsError> {
        self.check_replaceable(original)?;
        let stat = &original.stat;
        let staged = stage(
            &self.folder,
            &self.shown,
            contents,
            Some((stat.uid, stat.gid)),
            stat.mode & 0o7777,
        )?;
        let unchanged =
            self.is_current(original)? && original.fresh_stat()?.unchanged_since(&original.stat);
        if !unchanged {
            staged.discard(&self.folder);
            return Err(FsError::Changed {
                path: self.shown.clone(),
            });
        }
        if let Err(error) = before_rename() {
            staged.discard(&self.folder);
            return Err(FsError::io(&self.shown, "write", &error));
        }
        staged.install(&self.folder, &self.name, &self.shown, Install::Replace)?;
        settle(&self.folder);
        Ok(())
    }

    /// Creates the file with `contents` (permissions `mode`, less the umask)
    /// if nothing is there; atomically, so no reader sees a partial file.
    /// [`FsError::AlreadyExists`] if something appeared in the meantime.
    pub fn create(&self, contents: &[u8], mode: u32) -> Result<(), FsError> {
        if self.names_folder {
            return Err(FsError::TrailingSlash {
                path: self.shown.clone(),
            });
        }
        if self.exists() {
            return Err(FsError::AlreadyExists {
                path: self.shown.clone(),
            });
        }
        let staged = stage(&self.folder, &self.shown, contents, None, mode)?;
        staged.install(&self.folder, &self.name, &self.shown, Install::Create)?;
        settle(&self.folder);
        Ok(())
    }

    /// Removes the entry if it is still `original`.
    pub fn remove(&self, original: &OpenFile) -> Result<(), FsError> {
        if !self.is_current(original)? {
            return Err(FsError::Changed {
                path: self.shown.clone(),
            });
        }
        rustix::fs::unlinkat(&self.folder, &self.name, AtFlags::empty())
            .map_err(|errno| FsError::io(&self.shown, "remove", &io::Error::from(errno)))?;
        sync_folder(&self.folder);
        Ok(())
    }

    /// Locks the folder that holds the entry (exclusively, across threads
    /// and processes) until the returned guard is dropped; waits until the
    /// deadline (or for a timeout) at the most, then says who holds it.
    pub fn lock_folder(&self, deadline: impl Into<Deadline>) -> Result<FolderLock, FsError> {
        let folder = rustix::fs::openat(
            &self.folder,
            ".",
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|errno| FsError::io(&self.shown, "lock the folder of", &io::Error::from(errno)))?;
        let folder = File::from(folder);
        lock_exclusive(&folder, &self.shown, deadline.into())?;
        Ok(FolderLock::new(folder))
    }
}

/// Flushes a folder's entries (an unlink, a new folder) to disk; best effort.
pub(super) fn sync_folder(folder: &OwnedFd) {
    if let Some(readable) = open_readable(folder) {
        let _ = rustix::fs::fsync(&readable);
    }
}

/// A regular file opened for reading from a [`Located`] entry.
#[derive(Debug)]
pub struct OpenFile {
    file: File,
    stat: FileStat,
    shown: String,
}

impl OpenFile {
    /// The file's `stat` as of opening.
    pub fn stat(&self) -> &FileStat {
        &self.stat
    }

    fn fresh_stat(&self) -> Result<FileStat, FsError> {
        rustix::fs::fstat(&self.file)
            .map(|stat| FileStat::from_raw(&stat))
            .map_err(|errno| FsError::io(&self.shown, "inspect", &io::Error::from(errno)))
    }

    /// The whole file, at most `limit` bytes ([`FsError::TooLarge`] beyond,
    /// found without reading past the limit).
    pub fn read(&self, limit: u64) -> Result<Vec<u8>, FsError> {
        let too_large = || FsError::TooLarge {
            path: self.shown.clone(),
            limit,
        };
        if self.stat.size > limit {
            return Err(too_large());
        }
        let capacity = usize::try_from(self.stat.size.min(limit)).unwrap_or(0);
        let mut bytes = Vec::with_capacity(capacity);
        let mut chunk = vec![0; 64 * 1024];
        loop {
            let offset = bytes.len() as u64;
            // One byte past the limit tells a file that grew beyond it.
            let room = (limit + 1 - offset).min(chunk.len() as u64) as usize;
            match self.file.read_at(&mut chunk[..room], offset) {
                Ok(0) => break,
                Ok(read) => {
                    bytes.extend_from_slice(&chunk[..read]);
                    if bytes.len() as u64 > limit {
                        return Err(too_large());
                    }
                }
                Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
                Err(error) => return Err(FsError::io(&self.shown, "read", &error)),
            }
        }
        Ok(bytes)
    }

    /// The file's bytes as a stream from its start, for a caller that
    /// decodes as it reads instead of holding the whole file;
    /// [`FsError::TooLarge`] when the file is over `limit` (by its size when
    /// opened). The stream never yields more than `limit` bytes.
    pub fn reader(&self, limit: u64) -> Result<impl io::Read + '_, FsError> {
        if self.stat.size > limit {
            return Err(FsError::TooLarge {
                path: self.shown.clone(),
                limit,
            });
        }
        Ok(io::Read::take(&self.file, limit))
    }

    /// [`OpenFile::read`] as UTF-8 text.
    pub fn read_to_string(&self, limit: u64) -> Result<String, FsError> {
        String::from_utf8(self.read(limit)?).map_err(|error| FsError::NotUtf8 {
            path: self.shown.clone(),
            offset: error.utf8_error().valid_up_to(),
        })
    }

    /// Takes an exclusive lock on the file (released when the `OpenFile` is
    /// dropped), waiting until the deadline (or for a timeout) at the most.
    /// Only cooperating writers (quire's own) take it; [`Located::replace`]
    /// also checks that nobody else changed the file.
    pub fn lock(&self, deadline: impl Into<Deadline>) -> Result<(), FsError> {
        lock_exclusive(&self.file, &self.shown, deadline.into())
    }
}
