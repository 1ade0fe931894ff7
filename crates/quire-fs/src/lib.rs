//! The one confined file layer: every file a tool (or the CLI) reads or
//! writes goes through here.
//!
//! - [`Workspace`] resolves a path beneath a root folder without a
//!   check-then-use race: one folder at a time through handles held open,
//!   links followed only while they stay inside, `..` never above the root.
//! - [`Located::open`] opens without blocking and without following a final
//!   link, and refuses anything but a regular file (checked with `fstat`
//!   after opening); [`OpenFile::read`] stops at a size limit.
//! - [`Located::replace`] replaces a file atomically through the folder's
//!   handle, keeping owner, group and mode, writing through links to their
//!   target, refusing read-only and hard-linked files, and checking right
//!   before the rename that nobody changed the file meanwhile.
//! - [`Workspace::make_folders`] creates missing folders (`mkdir -p`)
//!   through the same resolver: `mkdirat` relative to the parent's handle,
//!   never through a link that leads out, never at a link's missing target;
//!   [`Workspace::create_with_folders`] then creates a file inside.
//! - [`Located::move_into`] moves a file (or a link itself) into another
//!   folder with one rename that never overwrites (`RENAME_NOREPLACE`),
//!   numbering a taken name as Obsidian does; [`Workspace::trash`] moves a
//!   note to `.trash/` that way.
//! - [`OpenFile::lock`] and [`Located::lock_folder`] serialize writers across
//!   threads and processes, with a deadline that names who holds the lock.
//! - [`Workspace::walk`] lists every file beneath a folder through the same
//!   handles and resolver: links followed once and only inside, FIFOs and
//!   devices reported, never opened.
//!
//! Unix only: it is built on `openat`, `O_NOFOLLOW`, `O_NONBLOCK` and
//! `flock` (through rustix), and on Linux's `O_TMPFILE`.

mod error;
mod file;
mod folders;
mod lock;
mod stage;
mod trash;
mod walk;
mod workspace;

pub use error::{FileKind, FsError, IoKind, describe};
pub use file::{FileStat, Located, OpenFile};
pub use lock::{Deadline, FolderLock};
pub use walk::{DEFAULT_MAX_DEPTH, SkipReason, Walk, WalkEntry, WalkOptions, WalkedFile};
pub use workspace::Workspace;

#[cfg(test)]
mod tests;
// Linux: per-thread uids (a permission test run as root), `renameat2`'s
// exchange (an atomic folder/link swap) and /proc (the umask).
#[cfg(all(test, any(target_os = "linux", target_os = "android")))]
mod write_tests;
