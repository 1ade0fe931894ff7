//! Why a file beneath a root could not be used: one error type for the
//! confined file layer, with messages a person or a model can act on. No
//! message holds an absolute path of the machine or an OS error number.

use std::fmt;
use std::io;
use std::time::Duration;

/// What kind of thing a path names, in words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// A regular file: the only kind the tools read or write.
    Regular,
    /// A directory.
    Folder,
    /// A symbolic link, seen without following it.
    Symlink,
    /// A named pipe; opening it could block forever, so it is never opened.
    Fifo,
    /// A Unix domain socket.
    Socket,
    /// A character device such as `/dev/zero`, which could be read forever.
    CharDevice,
    /// A block device.
    BlockDevice,
    /// A file type bit pattern the layer does not know.
    Unknown,
}

impl FileKind {
    pub(crate) fn from_mode(mode: u32) -> FileKind {
        match mode & 0o170000 {
            0o100000 => FileKind::Regular,
            0o040000 => FileKind::Folder,
            0o120000 => FileKind::Symlink,
            0o010000 => FileKind::Fifo,
            0o140000 => FileKind::Socket,
            0o020000 => FileKind::CharDevice,
            0o060000 => FileKind::BlockDevice,
            _ => FileKind::Unknown,
        }
    }

    /// "a folder", "a FIFO (named pipe)", ...
    pub fn described(self) -> &'static str {
        match self {
            FileKind::Regular => "a regular file",
            FileKind::Folder => "a folder",
            FileKind::Symlink => "a symbolic link",
            FileKind::Fifo => "a FIFO (named pipe)",
            FileKind::Socket => "a socket",
            FileKind::CharDevice => "a character device",
            FileKind::BlockDevice => "a block device",
            FileKind::Unknown => "not a regular file",
        }
    }
}

/// Why a path given to a tool (or the CLI) cannot be used. `path` is always
/// the path as the caller gave it (relative to the root), never an absolute
/// path of the machine.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FsError {
    /// The path given was the empty string.
    #[error("the path is empty; give a path relative to the workspace root")]
    Empty,
    /// The path cannot name a file beneath the root at all (absolute, a NUL
    /// byte, a component the layer refuses).
    #[error("`{path}` {reason}; give a path relative to the workspace root")]
    Invalid {
        /// The path as the caller gave it, relative to the root.
        path: String,
        /// What is wrong with it, as a phrase following the path.
        reason: &'static str,
    },
    /// The path leads out of the root, by `..` or through a symbolic link.
    #[error(
        "`{path}` is outside the workspace{how}; give a path inside it, relative to the workspace root"
    )]
    Outside {
        /// The path as the caller gave it, relative to the root.
        path: String,
        /// How it leaves the root (for instance " (through a symbolic link)"),
        /// or empty.
        how: &'static str,
    },
    /// Nothing exists at the path.
    #[error("`{path}` does not exist in the workspace")]
    NotFound {
        /// The path as the caller gave it, relative to the root.
        path: String,
    },
    /// The path ends with `/`, which names a folder where a file was asked
    /// for.
    #[error(
        "`{path}` ends with `/`, so it names a folder; give the file's path without the trailing slash"
    )]
    TrailingSlash {
        /// The path as the caller gave it, relative to the root.
        path: String,
    },
    /// The path names something other than a regular file.
    #[error("`{path}` is {}, not a regular file; give the path of a file", .kind.described())]
    NotAFile {
        /// The path as the caller gave it, relative to the root.
        path: String,
        /// What it names instead.
        kind: FileKind,
    },
    /// The path names something other than a folder where a folder was
    /// asked for (a folder to walk).
    #[error("`{path}` is {}, not a folder; give the path of a folder", .kind.described())]
    NotAFolder {
        /// The path as the caller gave it, relative to the root.
        path: String,
        /// What it names instead.
        kind: FileKind,
    },
    /// A folder to create lies behind a symbolic link whose target does not
    /// exist; folders are created only where the path itself names them,
    /// never where a link points (as `mkdir -p` does).
    #[error(
        "`{path}` is a symbolic link to a folder that does not exist, and folders are not created through a link; create its target first, or give a path without the link"
    )]
    DanglingLink {
        /// The link's path, relative to the root.
        path: String,
    },
    /// Resolving the path followed more than 40 symbolic links, the kernel's
    /// own limit, which almost always means a loop.
    #[error("`{path}` goes through more than 40 symbolic links; it probably loops")]
    TooManyLinks {
        /// The path as the caller gave it, relative to the root.
        path: String,
    },
    /// The file is larger than the limit for its kind; it was not read, so
    /// a huge file cannot exhaust memory.
    #[error(
        "`{path}` is larger than the limit of {} for this kind of file; nothing was read",
        human_size(*.limit)
    )]
    TooLarge {
        /// The path as the caller gave it, relative to the root.
        path: String,
        /// The largest size accepted, in bytes.
        limit: u64,
    },
    /// The file's bytes are not valid UTF-8, so it is not text the grammars
    /// can read.
    #[error("`{path}` is not UTF-8 text (invalid byte at offset {offset})")]
    NotUtf8 {
        /// The path as the caller gave it, relative to the root.
        path: String,
        /// The byte offset of the first byte that is not valid UTF-8.
        offset: usize,
    },
    /// The file has no write permission for anyone; the layer respects that
    /// rather than replacing it.
    #[error(
        "`{path}` is read-only (mode {mode:04o}); nothing was changed. Make it writable (chmod u+w) if it should change"
    )]
    ReadOnly {
        /// The path as the caller gave it, relative to the root.
        path: String,
        /// The file's permission bits.
        mode: u32,
    },
    /// The file is writable by someone, but not by this process's user.
    #[error(
        "`{path}` is not writable by this process (user {uid}); nothing was changed. Give this user write permission on the file, or run as its owner"
    )]
    NotWritable {
        /// The path as the caller gave it, relative to the root.
        path: String,
        /// The user id of this process.
        uid: u32,
    },
    /// The file's folder is not writable, so the atomic replace (write a
    /// temporary file beside it, then rename) cannot happen.
    #[error(
        "the folder holding `{path}` is not writable by this process, so the file cannot be replaced safely; nothing was changed"
    )]
    FolderNotWritable {
        /// The path as the caller gave it, relative to the root.
        path: String,
    },
    /// The file has more than one hard link; an atomic replace would give
    /// only this name the new text.
    #[error(
        "`{path}` has {links} hard links; replacing it would split them (the other names would keep the old text), so nothing was changed. Edit it in place, or remove the other links"
    )]
    HardLinked {
        /// The path as the caller gave it, relative to the root.
        path: String,
        /// How many names the file has.
        links: u64,
    },
    /// The file's owner or group differs from this process's, and the
    /// replacement could not be given them, so the write would change who
    /// owns the file.
    #[error(
        "`{path}` belongs to another user or group, which this process cannot give to the replacement; nothing was changed. Run as the file's owner"
    )]
    ForeignOwner {
        /// The path as the caller gave it, relative to the root.
        path: String,
    },
    /// Another writer holds the file's lock; a retry later may succeed.
    #[error(
        "`{path}` is being changed by {holder}; it was still locked after {}. Try again in a moment",
        seconds(*.waited)
    )]
    Busy {
        /// The path as the caller gave it, relative to the root.
        path: String,
        /// Who holds the lock, in words.
        holder: String,
        /// How long this call waited for the lock before giving up.
        waited: Duration,
    },
    /// The file changed between being read and being replaced, so writing
    /// now would lose the other program's change.
    #[error(
        "`{path}` changed while it was being updated (another program wrote or replaced it); nothing was changed. Try again"
    )]
    Changed {
        /// The path as the caller gave it, relative to the root.
        path: String,
    },
    /// A file was to be created, but something already exists at the path.
    #[error("`{path}` already exists; nothing was changed")]
    AlreadyExists {
        /// The path as the caller gave it, relative to the root.
        path: String,
    },
    /// An operating-system call failed for a reason not named above.
    #[error("cannot {action} `{path}`: {reason}")]
    Io {
        /// The path as the caller gave it, relative to the root.
        path: String,
        /// What was being done, as a verb ("open", "look up").
        action: &'static str,
        /// The failure in words, without an OS error number.
        reason: String,
        /// Its class, which decides whether a retry can help.
        kind: IoKind,
    },
}

/// The class of an I/O failure, for deciding whether a retry can help.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum IoKind {
    /// Permission was refused (or the file system is read-only): a retry
    /// fails the same way.
    PermissionDenied,
    /// The disk or the quota is full, or the file would pass the file
    /// system's or the process's file-size limit (`EFBIG`): a retry fails
    /// until space is freed or the limit raised.
    NoSpace,
    /// Anything else, possibly transient, so a retry may help.
    Other,
}

impl FsError {
    /// The failure of `action` (a verb: "read", "write", "open the folder")
    /// on `path` with the I/O error `error`, classified by what a caller
    /// can do about it ([`IoKind`]).
    pub fn io(path: &str, action: &'static str, error: &io::Error) -> FsError {
        let kind = match error.kind() {
            io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem => {
                IoKind::PermissionDenied
            }
            io::ErrorKind::StorageFull
            | io::ErrorKind::QuotaExceeded
            | io::ErrorKind::FileTooLarge => IoKind::NoSpace,
            _ if error.raw_os_error() == Some(libc_eperm()) => IoKind::PermissionDenied,
            _ => IoKind::Other,
        };
        let mut reason = describe(error);
        if action == "write" {
            reason.push_str(&write_advice(error.kind()));
        }
        FsError::Io {
            path: path.to_owned(),
            action,
            reason,
            kind,
        }
    }

    /// Whether the same call may succeed if made again unchanged.
    pub fn retryable(&self) -> bool {
        match self {
            FsError::Busy { .. } | FsError::Changed { .. } => true,
            FsError::Io { kind, .. } => *kind == IoKind::Other,
            _ => false,
        }
    }

    /// Whether the file is there but may not be replaced (a write
    /// precondition): read-only, not writable, hard-linked, owned by another
    /// user. Tools report these as a refused change, not as a failure.
    pub fn is_write_precondition(&self) -> bool {
        matches!(
            self,
            FsError::ReadOnly { .. }
                | FsError::NotWritable { .. }
                | FsError::FolderNotWritable { .. }
                | FsError::HardLinked { .. }
                | FsError::ForeignOwner { .. }
        )
    }

    /// The path as the caller gave it, when the error is about one.
    pub fn path(&self) -> Option<&str> {
        match self {
            FsError::Empty => None,
            FsError::Invalid { path, .. }
            | FsError::Outside { path, .. }
            | FsError::NotFound { path }
            | FsError::TrailingSlash { path }
            | FsError::NotAFile { path, .. }
            | FsError::NotAFolder { path, .. }
            | FsError::DanglingLink { path }
            | FsError::TooManyLinks { path }
            | FsError::TooLarge { path, .. }
            | FsError::NotUtf8 { path, .. }
            | FsError::ReadOnly { path, .. }
            | FsError::NotWritable { path, .. }
            | FsError::FolderNotWritable { path }
            | FsError::HardLinked { path, .. }
            | FsError::ForeignOwner { path }
            | FsError::Busy { path, .. }
            | FsError::Changed { path }
            | FsError::AlreadyExists { path }
            | FsError::Io { path, .. } => Some(path),
        }
    }
}

/// What a failed write (action "write": staging the new bytes or
/// installing them) left: the file as it was, since the layer replaces a
/// file only by renaming a complete copy over it. For a full disk or a
/// file-size limit, also what to do: the same call fails until then.
fn write_advice(kind: io::ErrorKind) -> String {
    let what_to_do = match kind {
        io::ErrorKind::FileTooLarge => {
            ". Raise the file-size limit of the process running quire (`ulimit -f`), or write less; \
             then try again"
        }
        io::ErrorKind::StorageFull => ". Free some disk space, then try again",
        io::ErrorKind::QuotaExceeded => ". Free some space within the disk quota, then try again",
        _ => "",
    };
    format!("; the file was left as it was{what_to_do}")
}

fn libc_eperm() -> i32 {
    rustix::io::Errno::PERM.raw_os_error()
}

/// An I/O error in words, without the path or the error number the OS may
/// put in it.
pub fn describe(error: &io::Error) -> String {
    use io::ErrorKind as K;
    match error.kind() {
        K::NotFound => "not found".to_owned(),
        K::PermissionDenied => "permission denied".to_owned(),
        K::IsADirectory => "it is a folder, not a file".to_owned(),
        K::NotADirectory => "a folder on the way is a file".to_owned(),
        K::InvalidData => "it is not UTF-8 text".to_owned(),
        K::StorageFull => "the disk is full".to_owned(),
        K::QuotaExceeded => "the disk quota is exceeded".to_owned(),
        K::ReadOnlyFilesystem => "the file system is read-only".to_owned(),
        K::FileTooLarge => "the file is too large for this file system or process limit".to_owned(),
        K::AlreadyExists => "it already exists".to_owned(),
        K::CrossesDevices => "it is on another file system".to_owned(),
        K::TimedOut => "it timed out".to_owned(),
        _ if error.raw_os_error() == Some(libc_eperm()) => "operation not permitted".to_owned(),
        _ if error.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) => {
            "too many symbolic links".to_owned()
        }
        // The system's own words ("Input/output error"), without the
        // "(os error N)" that Rust's Display appends.
        _ if error.raw_os_error().is_some() => {
            let code = error.raw_os_error().unwrap_or_default();
            let text = io::Error::from_raw_os_error(code).to_string();
            let words = text
                .strip_suffix(&format!(" (os error {code})"))
                .unwrap_or(&text);
            let mut chars = words.chars();
            match chars.next() {
                Some(first) => first.to_lowercase().chain(chars).collect(),
                None => "an I/O error".to_owned(),
            }
        }
        // Plain words ("broken pipe").
        kind => kind.to_string(),
    }
}

fn human_size(bytes: u64) -> String {
    const MIB: u64 = 1024 * 1024;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= 1024 && bytes.is_multiple_of(1024) {
        format!("{} KiB", bytes / 1024)
    } else {
        format!("{bytes} bytes")
    }
}

fn seconds(duration: Duration) -> String {
    let millis = duration.as_millis();
    if millis < 1000 {
        format!("{millis} ms")
    } else if millis.is_multiple_of(1000) {
        format!("{} s", millis / 1000)
    } else {
        format!("{:.1} s", duration.as_secs_f64())
    }
}

impl fmt::Display for IoKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            IoKind::PermissionDenied => "permission denied",
            IoKind::NoSpace => "no space",
            IoKind::Other => "other",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_carry_no_error_numbers() {
        let error = io::Error::from_raw_os_error(21);
        assert_eq!(describe(&error), "it is a folder, not a file");
        // Kinds without words of ours take the system's.
        assert_eq!(
            describe(&io::Error::from_raw_os_error(5)),
            "input/output error"
        );
        assert_eq!(
            describe(&io::Error::from_raw_os_error(24)),
            "too many open files"
        );
        let error = FsError::io("t/a.md", "read", &io::Error::from_raw_os_error(5));
        let text = error.to_string();
        assert!(!text.contains("os error"), "{text}");
        assert!(error.retryable());
        let denied = FsError::io("t/a.md", "write", &io::Error::from_raw_os_error(13));
        assert!(!denied.retryable(), "permission errors are not retryable");
        let eperm = FsError::io("t/a.md", "write", &io::Error::from_raw_os_error(1));
        assert!(!eperm.retryable());
    }

    #[test]
    fn a_write_over_a_size_limit_or_a_full_disk_says_what_was_kept_and_what_to_do() {
        // EFBIG: over RLIMIT_FSIZE (`ulimit -f`) or the file system's limit.
        let too_large = FsError::io("notes/Big.md", "write", &io::Error::from_raw_os_error(27));
        assert_eq!(
            too_large.to_string(),
            "cannot write `notes/Big.md`: the file is too large for this file system or process limit; \
             the file was left as it was. Raise the file-size limit of the process running quire \
             (`ulimit -f`), or write less; then try again"
        );
        assert!(!too_large.retryable(), "the same write fails the same way");
        assert!(matches!(
            too_large,
            FsError::Io {
                kind: IoKind::NoSpace,
                ..
            }
        ));
        let full = FsError::io("a.md", "write", &io::Error::from_raw_os_error(28));
        assert!(
            full.to_string().ends_with(
                "the disk is full; the file was left as it was. Free some disk space, then try again"
            ),
            "{full}"
        );
        assert!(!full.retryable());
        // Any failed write says the file was kept; other actions add nothing.
        let failed = FsError::io("a.md", "write", &io::Error::from_raw_os_error(5));
        assert_eq!(
            failed.to_string(),
            "cannot write `a.md`: input/output error; the file was left as it was"
        );
        let read = FsError::io("a.md", "read", &io::Error::from_raw_os_error(5));
        assert_eq!(read.to_string(), "cannot read `a.md`: input/output error");
    }

    #[test]
    fn sizes_and_waits_read_naturally() {
        assert_eq!(human_size(4 * 1024 * 1024), "4 MiB");
        assert_eq!(human_size(1536), "1536 bytes");
        assert_eq!(seconds(Duration::from_millis(250)), "250 ms");
        assert_eq!(seconds(Duration::from_secs(10)), "10 s");
        let error = FsError::TooLarge {
            path: "cv/resume.tex".into(),
            limit: 4 * 1024 * 1024,
        };
        assert_eq!(
            error.to_string(),
            "`cv/resume.tex` is larger than the limit of 4 MiB for this kind of file; nothing was read"
        );
    }
}
