//! New bytes staged beside the file they will replace (or become), then
//! installed with one rename (or link) through the folder's handle.
//!
//! On Linux the bytes go to an unnamed file (`O_TMPFILE`): a process killed
//! while writing leaves nothing behind. The file gets a name only for the
//! instant between `linkat` and `renameat`. Where unnamed files are not
//! available, a named `.quire-<random>.tmp` file is used, and temporary files
//! of ours that a killed process left are removed on the next write in that
//! folder ([`settle`]).

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::time::{Duration, SystemTime};

use rustix::fs::{AtFlags, Mode, OFlags, Uid};
use rustix::io::Errno;

use super::error::FsError;

/// Temporary files of ours are `.quire-<random>.tmp`.
const PREFIX: &str = ".quire-";
const SUFFIX: &str = ".tmp";

/// A temporary file older than this cannot belong to a write in progress.
const STALE_AFTER: Duration = Duration::from_secs(10 * 60);

/// How staged bytes take their place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Install {
    /// Over an existing file (rename).
    Replace,
    /// Where nothing is (fails if something appeared meanwhile).
    Create,
}

/// Bytes on disk, flushed, with their final owner and mode, not yet visible
/// under the target's name.
pub(crate) struct Staged {
    file: OwnedFd,
    /// The temporary name, when the file has one.
    name: Option<OsString>,
}

fn temporary_name() -> OsString {
    OsString::from(format!("{PREFIX}{:016x}{SUFFIX}", fastrand::u64(..)))
}

/// Writes `contents` into a new file in `folder`, gives it `owner` (when
/// given) and `mode`, and flushes it.
pub(crate) fn stage(
    folder: &OwnedFd,
    shown: &str,
    contents: &[u8],
    owner: Option<(u32, u32)>,
    mode: u32,
) -> Result<Staged, FsError> {
    let fail =
        |action: &'static str, errno: Errno| FsError::io(shown, action, &io::Error::from(errno));
    let staged = match unnamed(folder, mode) {
        Some(file) => Staged { file, name: None },
        None => named(folder, mode).map_err(|errno| fail("write", errno))?,
    };
    match staged.fill(contents, owner, mode, shown) {
        Ok(()) => Ok(staged),
        Err(error) => {
            staged.discard(folder);
            Err(error)
        }
    }
}

/// An unnamed file in `folder`, where the OS and file system have them.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn unnamed(folder: &OwnedFd, mode: u32) -> Option<OwnedFd> {
    // Linking an unnamed file needs /proc (or CAP_DAC_READ_SEARCH); without
    // either, use a named file from the start.
    let linkable =
        rustix::process::geteuid().as_raw() == 0 || std::path::Path::new("/proc/self/fd").is_dir();
    if !linkable {
        return None;
    }
    rustix::fs::openat(
        folder,
        ".",
        OFlags::WRONLY | OFlags::TMPFILE | OFlags::CLOEXEC,
        Mode::from_raw_mode(mode & 0o777),
    )
    .ok()
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn unnamed(_folder: &OwnedFd, _mode: u32) -> Option<OwnedFd> {
    None
}

fn named(folder: &OwnedFd, mode: u32) -> Result<Staged, Errno> {
    let mut attempts = 0;
    loop {
        let name = temporary_name();
        match rustix::fs::openat(
            folder,
            &name,
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::from_raw_mode(mode & 0o777),
        ) {
            Ok(file) => {
                return Ok(Staged {
                    file,
                    name: Some(name),
                });
            }
            Err(Errno::EXIST) if attempts < 16 => attempts += 1,
            Err(errno) => return Err(errno),
        }
    }
}

impl Staged {
    fn fill(
        &self,
        contents: &[u8],
        owner: Option<(u32, u32)>,
        mode: u32,
        shown: &str,
    ) -> Result<(), FsError> {
        let fail = |action: &'static str, errno: Errno| {
            FsError::io(shown, action, &io::Error::from(errno))
        };
        let mut file = File::from(
            self.file
                .try_clone()
                .map_err(|error| FsError::io(shown, "write", &error))?,
        );
        file.write_all(contents)
            .map_err(|error| FsError::io(shown, "write", &error))?;
        if let Some((uid, gid)) = owner {
            let now = rustix::fs::fstat(&self.file).map_err(|errno| fail("write", errno))?;
            #[allow(clippy::unnecessary_cast)]
            let (now_uid, now_gid) = (now.st_uid as u32, now.st_gid as u32);
            if (now_uid, now_gid) != (uid, gid) {
                let uid = (now_uid != uid).then(|| Uid::from_raw(uid));
                let gid = (now_gid != gid).then(|| rustix::fs::Gid::from_raw(gid));
                match rustix::fs::fchown(&self.file, uid, gid) {
                    Ok(()) => {}
                    Err(Errno::PERM) => {
                        return Err(FsError::ForeignOwner {
                            path: shown.to_owned(),
                        });
                    }
                    Err(errno) => return Err(fail("keep the owner of", errno)),
                }
            }
            // After chown, which clears set-user-ID and set-group-ID bits.
            rustix::fs::fchmod(&self.file, Mode::from_raw_mode(mode))
                .map_err(|errno| fail("keep the permissions of", errno))?;
        }
        rustix::fs::fsync(&self.file).map_err(|errno| fail("write", errno))?;
        Ok(())
    }

    /// Gives up the staged bytes, removing the temporary name if any.
    pub(crate) fn discard(self, folder: &OwnedFd) {
        if let Some(name) = &self.name {
            let _ = rustix::fs::unlinkat(folder, name, AtFlags::empty());
        }
    }

    /// Puts the staged file at `target` in `folder` (the caller then
    /// [`settle`]s the folder).
    pub(crate) fn install(
        self,
        folder: &OwnedFd,
        target: &OsStr,
        shown: &str,
        how: Install,
    ) -> Result<(), FsError> {
        let name = match &self.name {
            Some(name) => name.clone(),
            None => match self.link_unnamed(folder, target, how) {
                Ok(Some(name)) => name,
                // Created in one step: the unnamed file linked as `target`.
                Ok(None) => return Ok(()),
                Err(Errno::EXIST) => return Err(already_exists(shown)),
                Err(errno) => return Err(FsError::io(shown, "write", &io::Error::from(errno))),
            },
        };
        let result = match how {
            Install::Replace => rustix::fs::renameat(folder, &name, folder, target),
            // A hard link fails if the target exists, unlike a rename.
            Install::Create => rustix::fs::linkat(folder, &name, folder, target, AtFlags::empty())
                .and_then(|()| rustix::fs::unlinkat(folder, &name, AtFlags::empty())),
        };
        match result {
            Ok(()) => Ok(()),
            Err(errno) => {
                let _ = rustix::fs::unlinkat(folder, &name, AtFlags::empty());
                if errno == Errno::EXIST {
                    return Err(already_exists(shown));
                }
                Err(FsError::io(shown, "write", &io::Error::from(errno)))
            }
        }
    }

    /// Gives the unnamed file a name in `folder`: `target` itself when
    /// creating (`Ok(None)`), else a temporary name to rename from.
    fn link_unnamed(
        &self,
        folder: &OwnedFd,
        target: &OsStr,
        how: Install,
    ) -> Result<Option<OsString>, Errno> {
        if how == Install::Create {
            return self.link_as(folder, target).map(|()| None);
        }
        let mut attempts = 0;
        loop {
            let name = temporary_name();
            match self.link_as(folder, &name) {
                Ok(()) => return Ok(Some(name)),
                Err(Errno::EXIST) if attempts < 16 => attempts += 1,
                Err(errno) => return Err(errno),
            }
        }
    }

    fn link_as(&self, folder: &OwnedFd, name: &OsStr) -> Result<(), Errno> {
        match rustix::fs::linkat(&self.file, "", folder, name, AtFlags::EMPTY_PATH) {
            Ok(()) => Ok(()),
            // AT_EMPTY_PATH needs a capability; /proc's view of the file
            // does not.
            Err(Errno::NOENT | Errno::PERM | Errno::ACCESS | Errno::INVAL) => {
                let proc_path = format!("/proc/self/fd/{}", self.file.as_raw_fd());
                rustix::fs::linkat(
                    rustix::fs::CWD,
                    proc_path.as_str(),
                    folder,
                    name,
                    AtFlags::SYMLINK_FOLLOW,
                )
            }
            Err(errno) => Err(errno),
        }
    }
}

fn already_exists(shown: &str) -> FsError {
    FsError::AlreadyExists {
        path: shown.to_owned(),
    }
}

/// After a write in `folder`: flushes its entries to disk (so the rename or
/// link is durable), and removes temporary files of ours that a killed
/// write left there: regular files named `.quire-*.tmp`, untouched for
/// longer than any write takes. Best effort: what fails is left.
pub(crate) fn settle(folder: &OwnedFd) {
    let Some(readable) = open_readable(folder) else {
        return;
    };
    let _ = rustix::fs::fsync(&readable);
    sweep_stale_temporaries(&readable);
}

/// The folder opened for reading its entries (`folder` may be a path-only
/// handle, which can neither be read nor flushed).
pub(crate) fn open_readable(folder: &OwnedFd) -> Option<OwnedFd> {
    rustix::fs::openat(
        folder,
        ".",
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
    .ok()
}

fn sweep_stale_temporaries(readable: &OwnedFd) {
    let Ok(mut entries) = rustix::fs::Dir::read_from(readable) else {
        return;
    };
    let now = SystemTime::now();
    let mut stale = Vec::new();
    while let Some(Ok(entry)) = entries.next() {
        let name = entry.file_name().to_bytes();
        if !(name.starts_with(PREFIX.as_bytes())
            && name.ends_with(SUFFIX.as_bytes())
            && name.len() > PREFIX.len() + SUFFIX.len())
        {
            continue;
        }
        let name = OsStr::from_bytes(name).to_owned();
        let Ok(stat) = rustix::fs::statat(readable, &name, AtFlags::SYMLINK_NOFOLLOW) else {
            continue;
        };
        let stat = super::file::FileStat::from_raw(&stat);
        let modified = SystemTime::UNIX_EPOCH
            + Duration::from_secs(u64::try_from(stat.mtime_seconds()).unwrap_or(0));
        let old = now
            .duration_since(modified)
            .is_ok_and(|age| age > STALE_AFTER);
        if stat.kind() == super::error::FileKind::Regular && old {
            stale.push(name);
        }
    }
    for name in stale {
        let _ = rustix::fs::unlinkat(readable, &name, AtFlags::empty());
    }
}
