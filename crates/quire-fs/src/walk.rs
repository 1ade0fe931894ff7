//! Every file beneath a folder of the workspace, found without leaving it
//! ([`Workspace::walk`]).
//!
//! Each folder is opened relative to its parent's handle (`openat` with
//! `O_DIRECTORY | O_NOFOLLOW`) and held open while its entries are visited,
//! so a folder swapped for a symbolic link mid-walk cannot lead out. A
//! symbolic link is resolved by [`Workspace::locate`] from its real place,
//! so it is followed exactly when the layer would follow it anywhere else:
//! inside the root, never out. Folders are walked once: their identity
//! (device, inode) is remembered, which ends link loops. (The link's real
//! place is resolved by path from the root, so if its folder is renamed
//! while being walked, the link looked up may be another one; it is still
//! confined, since the resolver is.)
//!
//! Written by hand because `walkdir` and `ignore` open folders by path
//! string and follow links without regard to a root; the walk must go
//! through the layer's handles and its resolver instead.
//!
//! The walk is a lazy iterator rather than a collected list: an index built
//! in the background can stream a large vault, show progress and stop early,
//! and memory holds only the folders on the current path (one handle and the
//! sorted names of each).

use std::collections::{HashSet, VecDeque};
use std::ffi::OsString;
use std::fmt;
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::sync::Arc;

use rustix::fs::{AtFlags, Dir, Mode, OFlags};
use rustix::io::Errno;

use super::error::{FileKind, FsError};
use super::file::{FileStat, Located};
use super::workspace::Workspace;

/// How deep below the starting folder a walk goes unless told otherwise:
/// each level holds one folder handle open, so an absurdly deep tree cannot
/// exhaust the process's file descriptors.
pub const DEFAULT_MAX_DEPTH: usize = 64;

/// How folders are opened for reading: never through a link, never as
/// anything but a folder.
const FOLDER_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);

/// A file-name test, shared between clones of the options.
type NameFilter = Arc<dyn Fn(&str) -> bool + Send + Sync>;

/// What a walk lists and how far it goes.
///
/// The default skips hidden entries (names starting with `.`), lists every
/// file, goes [`DEFAULT_MAX_DEPTH`] folders deep and lists without limit.
#[derive(Clone)]
pub struct WalkOptions {
    skip_hidden: bool,
    filter: Option<NameFilter>,
    max_depth: usize,
    max_entries: usize,
}

impl Default for WalkOptions {
    fn default() -> Self {
        WalkOptions {
            skip_hidden: true,
            filter: None,
            max_depth: DEFAULT_MAX_DEPTH,
            max_entries: usize::MAX,
        }
    }
}

impl fmt::Debug for WalkOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WalkOptions")
            .field("skip_hidden", &self.skip_hidden)
            .field("filtered", &self.filter.is_some())
            .field("max_depth", &self.max_depth)
            .field("max_entries", &self.max_entries)
            .finish()
    }
}

impl WalkOptions {
    /// The default options (see [`WalkOptions`]).
    pub fn new() -> Self {
        WalkOptions::default()
    }

    /// Whether entries whose name starts with `.` are left out (files not
    /// listed, folders not entered, links not followed). On by default.
    pub fn skip_hidden(mut self, skip: bool) -> Self {
        self.skip_hidden = skip;
        self
    }

    /// Lists only files whose name passes `keep`. It sees the file's own
    /// name (the link's name for a linked file); it also decides which
    /// special files and non-UTF-8 names are reported as skipped. Folders
    /// are always entered, and links that cannot be followed are always
    /// reported, since what they would be is unknown.
    pub fn file_filter(mut self, keep: impl Fn(&str) -> bool + Send + Sync + 'static) -> Self {
        self.filter = Some(Arc::new(keep));
        self
    }

    /// Lists only files named `*.{extension}`, ignoring ASCII case
    /// (`extension("md")` keeps `a.md` and `B.MD`).
    pub fn extension(self, extension: &str) -> Self {
        let suffix = format!(".{extension}");
        self.file_filter(move |name| {
            name.len() > suffix.len()
                && name.is_char_boundary(name.len() - suffix.len())
                && name[name.len() - suffix.len()..].eq_ignore_ascii_case(&suffix)
        })
    }

    /// How many folders below the starting folder the walk enters: `0`
    /// lists the starting folder's own files only. A folder below the limit
    /// is reported as [`SkipReason::TooDeep`].
    pub fn max_depth(mut self, depth: usize) -> Self {
        self.max_depth = depth;
        self
    }

    /// How many entries (of every kind) the walk yields at most; if there
    /// were more, the last one yielded is [`WalkEntry::LimitReached`].
    pub fn max_entries(mut self, entries: usize) -> Self {
        self.max_entries = entries;
        self
    }

    fn keeps(&self, name: &str) -> bool {
        self.filter.as_ref().is_none_or(|keep| keep(name))
    }
}

/// One thing a walk found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WalkEntry {
    /// A regular file (or a link inside the root to one).
    File(WalkedFile),
    /// Something that was neither listed nor entered, and why.
    Skipped {
        /// Its root-relative path (lossy if the name is not UTF-8).
        path: String,
        /// Why it was skipped.
        reason: SkipReason,
    },
    /// A folder (or entry) that could not be read, such as a folder without
    /// read permission; the walk went on without it.
    Error(FsError),
    /// The walk stopped at [`WalkOptions::max_entries`] with more to list.
    LimitReached {
        /// The limit that was reached.
        limit: usize,
    },
}

/// A regular file found by a walk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WalkedFile {
    /// Its root-relative, `/`-separated path as the caller shows it: through
    /// the starting folder as given and links by their own names.
    pub path: String,
    /// Its `stat` when it was visited (of the target, for a link).
    pub stat: FileStat,
    /// Where it really is, root-relative, when the path goes through a
    /// symbolic link (`None` also when that real path is not UTF-8).
    pub target: Option<String>,
}

/// Why a walk skipped an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SkipReason {
    /// A FIFO, socket or device: never opened, since reading it could block
    /// or never end.
    Special(FileKind),
    /// Its name (or, for a link, the real path of its folder) is not UTF-8,
    /// so no tool could name it.
    NotUtf8,
    /// A symbolic link leading outside the root.
    LinkOutside,
    /// A symbolic link leading nowhere.
    LinkDangling,
    /// A symbolic link through more than 40 links, almost always a loop.
    LinkLoop,
    /// A folder already walked: a link loop, or a second way to one folder.
    Repeated,
    /// A folder below [`WalkOptions::max_depth`].
    TooDeep,
}

impl SkipReason {
    /// Why, in words ("a symbolic link leading outside the workspace").
    pub fn described(self) -> &'static str {
        match self {
            SkipReason::Special(kind) => kind.described(),
            SkipReason::NotUtf8 => "a name that is not UTF-8",
            SkipReason::LinkOutside => "a symbolic link leading outside the workspace",
            SkipReason::LinkDangling => "a symbolic link leading nowhere",
            SkipReason::LinkLoop => "a symbolic link that loops",
            SkipReason::Repeated => "a folder already listed under another path",
            SkipReason::TooDeep => "a folder deeper than the depth limit",
        }
    }
}

impl Workspace {
    /// Walks every file beneath `folder` (root-relative, resolved like
    /// [`Workspace::locate`]; `""` is the root), in name order within each
    /// folder, as a lazy iterator. Fails only when `folder` cannot be walked
    /// at all: missing, outside the root, not a folder, or unreadable; any
    /// later trouble is an entry and the walk goes on.
    ///
    /// ```
    /// # let folder = tempfile::tempdir()?;
    /// # std::fs::create_dir_all(folder.path().join("notes/.obsidian"))?;
    /// # std::fs::write(folder.path().join("notes/a.md"), "a")?;
    /// # std::fs::write(folder.path().join("notes/b.png"), "b")?;
    /// # std::fs::write(folder.path().join("notes/.obsidian/c.md"), "c")?;
    /// use quire_fs::{WalkEntry, WalkOptions, Workspace};
    ///
    /// let workspace = Workspace::new(folder.path())?;
    /// let notes: Vec<String> = workspace
    ///     .walk("notes", WalkOptions::new().extension("md"))
    ///     .unwrap()
    ///     .filter_map(|entry| match entry {
    ///         WalkEntry::File(file) => Some(file.path),
    ///         _ => None,
    ///     })
    ///     .collect();
    /// assert_eq!(notes, ["notes/a.md"]);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn walk(&self, folder: &str, options: WalkOptions) -> Result<Walk, FsError> {
        let given = if folder.is_empty() { "." } else { folder };
        let located = self.locate(given)?;
        let handle = open_folder(&located)?;
        let shown = start_prefix(&located);
        let mut walk = Walk {
            workspace: self.clone(),
            options,
            frames: Vec::new(),
            linked: VecDeque::new(),
            seen: HashSet::new(),
            yielded: 0,
            finished: false,
        };
        let place = Place {
            shown,
            real: exact(located.real_path()),
            depth: 0,
        };
        match walk.enter(handle, place) {
            Some(WalkEntry::Error(error)) => Err(error),
            _ => Ok(walk),
        }
    }
}

impl Workspace {
    /// The names in `folder` (the root when empty), byte-sorted, without
    /// `.` and `..`: one level, nothing beneath opened or followed. For a
    /// caller that matches names by rules of its own (the kiln finds a
    /// folder or note written under another Unicode normalization).
    ///
    /// ```
    /// # let folder = tempfile::tempdir()?;
    /// # std::fs::create_dir(folder.path().join("notes"))?;
    /// # std::fs::write(folder.path().join("notes/b.md"), "")?;
    /// # std::fs::create_dir(folder.path().join("notes/a"))?;
    /// use quire_fs::Workspace;
    ///
    /// let workspace = Workspace::new(folder.path())?;
    /// assert_eq!(workspace.names_in("notes").unwrap(), ["a", "b.md"]);
    /// assert!(workspace.names_in("notes/b.md").is_err());
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn names_in(&self, folder: &str) -> Result<Vec<OsString>, FsError> {
        let given = if folder.is_empty() { "." } else { folder };
        let located = self.locate(given)?;
        let handle = open_folder(&located)?;
        sorted_names(&handle).map_err(|error| FsError::io(located.shown(), "list", &error))
    }
}

/// A walk in progress: an iterator over [`WalkEntry`]. It owns what it
/// needs (a clone of the workspace), so it can move to another thread.
#[derive(Debug)]
pub struct Walk {
    workspace: Workspace,
    options: WalkOptions,
    /// The folders on the current path, innermost last.
    frames: Vec<Frame>,
    /// Links to folders met so far, walked once every real folder is: a
    /// folder reachable both ways is listed under its real path.
    linked: VecDeque<LinkedFolder>,
    /// (device, inode) of every folder entered.
    seen: HashSet<(u64, u64)>,
    yielded: usize,
    finished: bool,
}

/// Where a folder is: as shown, really, and how deep.
#[derive(Debug)]
struct Place {
    /// Root-relative path as the caller shows it (`""` for the root).
    shown: String,
    /// Root-relative path after links; `None` when a name on the way is not
    /// UTF-8, so links inside cannot be resolved by path.
    real: Option<String>,
    /// Folders below the starting folder.
    depth: usize,
}

/// A link to a folder, met during the walk and entered after it.
#[derive(Debug)]
struct LinkedFolder {
    /// The link's path as shown.
    shown: String,
    /// The link's own real path (its folder's real path and its name),
    /// resolved again when it is entered.
    link: String,
    /// Folders below the starting folder, the link counting as one.
    depth: usize,
}

impl Place {
    /// The real path, when it differs from the path shown (the folder was
    /// reached through a link).
    fn linked_real(&self) -> Option<&str> {
        self.real.as_deref().filter(|real| *real != self.shown)
    }
}

/// A folder being walked: its handle and the names still to visit.
#[derive(Debug)]
struct Frame {
    handle: OwnedFd,
    names: std::vec::IntoIter<OsString>,
    place: Place,
}

impl Iterator for Walk {
    type Item = WalkEntry;

    fn next(&mut self) -> Option<WalkEntry> {
        if self.finished {
            return None;
        }
        let Some(entry) = self.advance() else {
            self.finished = true;
            return None;
        };
        if self.yielded == self.options.max_entries {
            self.finished = true;
            return Some(WalkEntry::LimitReached {
                limit: self.options.max_entries,
            });
        }
        self.yielded += 1;
        Some(entry)
    }
}

impl Walk {
    /// The next entry to report, or `None` when everything was walked.
    fn advance(&mut self) -> Option<WalkEntry> {
        loop {
            let Some(frame) = self.frames.last_mut() else {
                let linked = self.linked.pop_front()?;
                if let Some(entry) = self.enter_linked(linked) {
                    return Some(entry);
                }
                continue;
            };
            let Some(name) = frame.names.next() else {
                self.frames.pop();
                continue;
            };
            if let Some(entry) = self.visit(name) {
                return Some(entry);
            }
        }
    }

    /// Visits one name of the innermost folder.
    fn visit(&mut self, name: OsString) -> Option<WalkEntry> {
        if self.options.skip_hidden && name.as_bytes().starts_with(b".") {
            return None;
        }
        let frame = self.frames.last()?;
        let lossy = name.to_string_lossy();
        let shown = join(&frame.place.shown, &lossy);
        let stat = match rustix::fs::statat(&frame.handle, &name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => FileStat::from_raw(&stat),
            // Removed since the folder was read.
            Err(Errno::NOENT) => return None,
            // A folder that may be listed but not looked into: one error
            // for the folder, not one per name.
            Err(errno @ (Errno::ACCESS | Errno::PERM)) => {
                let frame = self.frames.pop()?;
                let error = FsError::io(&frame.place.shown, "look inside", &errno.into());
                return Some(WalkEntry::Error(error));
            }
            Err(errno) => {
                return Some(WalkEntry::Error(FsError::io(
                    &shown,
                    "look up",
                    &errno.into(),
                )));
            }
        };
        let kind = stat.kind();
        let Some(name_text) = name.to_str() else {
            let reported =
                matches!(kind, FileKind::Folder | FileKind::Symlink) || self.options.keeps(&lossy);
            return reported.then_some(WalkEntry::Skipped {
                path: shown,
                reason: SkipReason::NotUtf8,
            });
        };
        match kind {
            FileKind::Regular if self.options.keeps(name_text) => {
                let target = frame.place.linked_real().map(|real| join(real, name_text));
                Some(WalkEntry::File(WalkedFile {
                    path: shown,
                    stat,
                    target,
                }))
            }
            FileKind::Regular => None,
            FileKind::Folder => self.enter_child(&name, shown),
            FileKind::Symlink => self.follow(name_text, shown),
            special => self.options.keeps(name_text).then_some(WalkEntry::Skipped {
                path: shown,
                reason: SkipReason::Special(special),
            }),
        }
    }

    /// Enters a folder met as a folder (not through a link).
    fn enter_child(&mut self, name: &OsString, shown: String) -> Option<WalkEntry> {
        let frame = self.frames.last()?;
        let depth = frame.place.depth + 1;
        if depth > self.options.max_depth {
            return Some(skipped(shown, SkipReason::TooDeep));
        }
        let real = frame
            .place
            .real
            .as_ref()
            .and_then(|real| name.to_str().map(|name| join(real, name)));
        let handle = match rustix::fs::openat(&frame.handle, name, FOLDER_FLAGS, Mode::empty()) {
            Ok(handle) => handle,
            Err(Errno::NOENT) => return None,
            // Swapped for a link or a file since it was looked at.
            Err(Errno::LOOP | Errno::NOTDIR) => {
                return Some(WalkEntry::Error(FsError::Changed { path: shown }));
            }
            Err(errno) => {
                return Some(WalkEntry::Error(FsError::io(
                    &shown,
                    "open the folder",
                    &errno.into(),
                )));
            }
        };
        self.enter(handle, Place { shown, real, depth })
    }

    /// Decides what a symbolic link named `name` in the innermost folder
    /// leads to, by resolving it from its real place as any path is.
    fn follow(&mut self, name: &str, shown: String) -> Option<WalkEntry> {
        let frame = self.frames.last()?;
        let Some(folder_real) = &frame.place.real else {
            return Some(skipped(shown, SkipReason::NotUtf8));
        };
        let link_real = join(folder_real, name);
        let depth = frame.place.depth + 1;
        let located = match self.workspace.locate_shown(&link_real, &shown) {
            Ok(located) => located,
            Err(error) => return link_failure(error, shown),
        };
        match located.kind() {
            None => Some(skipped(shown, SkipReason::LinkDangling)),
            Some(FileKind::Regular) if self.options.keeps(name) => match located.stat() {
                Ok(stat) if stat.kind() == FileKind::Regular => Some(WalkEntry::File(WalkedFile {
                    path: shown,
                    stat,
                    target: Some(located.real_path().to_owned()),
                })),
                // Replaced by something else since the link was resolved.
                Ok(_) => Some(WalkEntry::Error(FsError::Changed { path: shown })),
                Err(error) => Some(WalkEntry::Error(error)),
            },
            Some(FileKind::Regular) => None,
            Some(FileKind::Folder) if depth > self.options.max_depth => {
                Some(skipped(shown, SkipReason::TooDeep))
            }
            Some(FileKind::Folder) => {
                self.linked.push_back(LinkedFolder {
                    shown,
                    link: link_real,
                    depth,
                });
                None
            }
            Some(kind) => self
                .options
                .keeps(name)
                .then_some(skipped(shown, SkipReason::Special(kind))),
        }
    }

    /// Enters a folder met through a link, once every real folder is walked,
    /// resolving the link again: it may have changed meanwhile.
    fn enter_linked(&mut self, linked: LinkedFolder) -> Option<WalkEntry> {
        let LinkedFolder { shown, link, depth } = linked;
        let located = match self.workspace.locate_shown(&link, &shown) {
            Ok(located) => located,
            Err(error) => return link_failure(error, shown),
        };
        if located.kind() != Some(FileKind::Folder) {
            return Some(WalkEntry::Error(FsError::Changed { path: shown }));
        }
        let handle = match open_folder(&located) {
            Ok(handle) => handle,
            Err(error) => return Some(WalkEntry::Error(error)),
        };
        let real = exact(located.real_path());
        self.enter(handle, Place { shown, real, depth })
    }

    /// Reads an opened folder's names and makes it the innermost folder,
    /// unless it was entered before.
    fn enter(&mut self, handle: OwnedFd, place: Place) -> Option<WalkEntry> {
        let stat = match rustix::fs::fstat(&handle) {
            Ok(stat) => FileStat::from_raw(&stat),
            Err(errno) => {
                return Some(WalkEntry::Error(FsError::io(
                    &place.shown,
                    "inspect",
                    &errno.into(),
                )));
            }
        };
        if !self.seen.insert((stat.dev, stat.ino)) {
            return Some(skipped(place.shown, SkipReason::Repeated));
        }
        match sorted_names(&handle) {
            Ok(names) => {
                self.frames.push(Frame {
                    handle,
                    names: names.into_iter(),
                    place,
                });
                None
            }
            Err(error) => Some(WalkEntry::Error(FsError::io(
                &place.shown,
                "read the folder",
                &error,
            ))),
        }
    }
}

/// Opens the folder `located` names, for reading, without following a link.
fn open_folder(located: &Located) -> Result<OwnedFd, FsError> {
    let shown = located.shown();
    match located.kind() {
        Some(FileKind::Folder) => {}
        None => {
            return Err(FsError::NotFound {
                path: shown.to_owned(),
            });
        }
        Some(kind) => {
            return Err(FsError::NotAFolder {
                path: shown.to_owned(),
                kind,
            });
        }
    }
    rustix::fs::openat(&located.folder, &located.name, FOLDER_FLAGS, Mode::empty()).map_err(
        |errno| match errno {
            Errno::NOENT => FsError::NotFound {
                path: shown.to_owned(),
            },
            Errno::LOOP | Errno::NOTDIR => FsError::Changed {
                path: shown.to_owned(),
            },
            errno => FsError::io(shown, "open the folder", &errno.into()),
        },
    )
}

/// The names in a folder, byte-sorted, without `.` and `..`.
fn sorted_names(handle: &OwnedFd) -> io::Result<Vec<OsString>> {
    let mut dir = Dir::new(handle.try_clone()?)?;
    let mut names = Vec::new();
    while let Some(entry) = dir.read() {
        let name = entry?.file_name().to_bytes().to_vec();
        if name != b"." && name != b".." {
            names.push(OsString::from(std::ffi::OsStr::from_bytes(&name)));
        }
    }
    names.sort_unstable();
    Ok(names)
}

/// The starting folder's path as entries are shown under it: as given, with
/// `.` and empty components dropped; after links (its real path) when it
/// climbs with `..`, so every path shown resolves to what was listed.
fn start_prefix(located: &Located) -> String {
    let shown = located.shown();
    let parts: Vec<&str> = shown
        .split('/')
        .filter(|part| !part.is_empty() && *part != ".")
        .collect();
    if parts.contains(&"..") {
        return located.real_path().to_owned();
    }
    let joined = parts.join("/");
    if shown.starts_with('/') {
        format!("/{joined}")
    } else {
        joined
    }
}

/// `name` inside the folder shown as `folder`.
fn join(folder: &str, name: &str) -> String {
    match folder {
        "" => name.to_owned(),
        "/" => format!("/{name}"),
        _ => format!("{folder}/{name}"),
    }
}

/// A real path as resolved, unless a name on it was not UTF-8 (the
/// resolver shows such names lossily, so the path would name another file).
fn exact(real: &str) -> Option<String> {
    (!real.contains(char::REPLACEMENT_CHARACTER)).then(|| real.to_owned())
}

fn skipped(path: String, reason: SkipReason) -> WalkEntry {
    WalkEntry::Skipped { path, reason }
}

/// What a link that could not be resolved is reported as.
fn link_failure(error: FsError, shown: String) -> Option<WalkEntry> {
    Some(match error {
        FsError::Outside { .. } => skipped(shown, SkipReason::LinkOutside),
        FsError::NotFound { .. } => skipped(shown, SkipReason::LinkDangling),
        FsError::TooManyLinks { .. } => skipped(shown, SkipReason::LinkLoop),
        error => WalkEntry::Error(error),
    })
}

#[cfg(test)]
mod tests;
