//! Exclusive advisory locks (`flock`) with a deadline, and who holds a lock
//! when the deadline passes.
//!
//! `flock` locks belong to an open file, so two threads of one process that
//! open the same file exclude each other just as two processes do. A wait
//! polls with a growing pause instead of blocking, so it can end at its
//! deadline; the holder is then looked up in `/proc/locks` (Linux), by the
//! locked file's device and inode.

use std::fs::File;
use std::thread;
use std::time::{Duration, Instant};

use super::error::FsError;

/// When a wait for a lock ends: `timeout` after it started. One deadline can
/// span several waits (a call that retries after the file it waited for was
/// replaced), and a timeout converts into a deadline that starts now.
#[derive(Clone, Copy, Debug)]
pub struct Deadline {
    started: Instant,
    timeout: Duration,
}

impl Deadline {
    /// A deadline `timeout` from now.
    pub fn after(timeout: Duration) -> Deadline {
        Deadline {
            started: Instant::now(),
            timeout,
        }
    }

    fn remaining(&self) -> Duration {
        self.timeout.saturating_sub(self.started.elapsed())
    }
}

impl From<Duration> for Deadline {
    fn from(timeout: Duration) -> Deadline {
        Deadline::after(timeout)
    }
}

/// An exclusive lock on a folder; released when dropped.
#[derive(Debug)]
pub struct FolderLock {
    _folder: File,
}

impl FolderLock {
    pub(crate) fn new(folder: File) -> FolderLock {
        FolderLock { _folder: folder }
    }
}

/// Locks `file` exclusively, waiting until `deadline` at the most.
pub(crate) fn lock_exclusive(file: &File, shown: &str, deadline: Deadline) -> Result<(), FsError> {
    let mut pause = Duration::from_millis(1);
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(()),
            Err(std::fs::TryLockError::WouldBlock) => {}
            Err(std::fs::TryLockError::Error(error)) => {
                return Err(FsError::io(shown, "lock", &error));
            }
        }
        let remaining = deadline.remaining();
        if remaining.is_zero() {
            return Err(FsError::Busy {
                path: shown.to_owned(),
                holder: holder(file),
                waited: deadline.timeout,
            });
        }
        thread::sleep(pause.min(remaining));
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

/// Who holds the lock on `file`, in words.
fn holder(file: &File) -> String {
    let Some(pid) = lock_holder_pid(file) else {
        return "another process".to_owned();
    };
    if pid == std::process::id() {
        return "another call in this process".to_owned();
    }
    match std::fs::read_to_string(format!("/proc/{pid}/comm")) {
        Ok(name) => format!("another process (pid {pid}, `{}`)", name.trim()),
        Err(_) => format!("another process (pid {pid})"),
    }
}

/// The process that holds a `flock` on `file`, from `/proc/locks`.
fn lock_holder_pid(file: &File) -> Option<u32> {
    let stat = rustix::fs::fstat(file).ok()?;
    #[allow(clippy::unnecessary_cast)]
    let (dev, ino) = (stat.st_dev as u64, stat.st_ino as u64);
    let wanted = format!(
        "{:02x}:{:02x}:{ino}",
        rustix::fs::major(dev),
        rustix::fs::minor(dev)
    );
    // The kernel writes the list a page at a time, and an entry can slip
    // between two reads while other locks come and go: read it again then.
    (0..3).find_map(|_| {
        let locks = std::fs::read_to_string("/proc/locks").ok()?;
        parse_holder(&locks, &wanted)
    })
}

/// The pid of the granted `FLOCK` lock on `device_inode` (`MAJ:MIN:INODE`,
/// as `/proc/locks` writes it) in a `/proc/locks` text.
fn parse_holder(locks: &str, device_inode: &str) -> Option<u32> {
    locks.lines().find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        // `1: FLOCK  ADVISORY  WRITE 4242 fd:01:1234 0 EOF`; waiters carry `->`.
        match fields.as_slice() {
            [_, "FLOCK", _, _, pid, id, ..] if *id == device_inode => pid.parse().ok(),
            _ => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_holder_is_read_from_proc_locks() {
        let locks = "1: POSIX  ADVISORY  WRITE 11 fd:01:99 0 EOF\n\
                     2: FLOCK  ADVISORY  WRITE 4242 fd:01:1234 0 EOF\n\
                     2: -> FLOCK  ADVISORY  WRITE 5151 fd:01:1234 0 EOF\n";
        assert_eq!(parse_holder(locks, "fd:01:1234"), Some(4242));
        assert_eq!(parse_holder(locks, "fd:01:99"), None);
        assert_eq!(parse_holder(locks, "fd:01:7"), None);
    }

    #[test]
    fn a_second_open_file_waits_and_names_the_holder() {
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("note.md");
        std::fs::write(&path, "x").unwrap();
        let first = File::open(&path).unwrap();
        let second = File::open(&path).unwrap();
        lock_exclusive(&first, "note.md", Duration::from_millis(10).into()).unwrap();
        let error =
            lock_exclusive(&second, "note.md", Duration::from_millis(30).into()).unwrap_err();
        let text = error.to_string();
        assert!(matches!(error, FsError::Busy { .. }), "{text}");
        if std::path::Path::new("/proc/locks").exists() {
            assert!(text.contains("another call in this process"), "{text}");
        }
        drop(first);
        lock_exclusive(&second, "note.md", Duration::from_millis(10).into()).unwrap();
    }
}
