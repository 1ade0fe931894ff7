//! The root every tool path is relative to, and the resolver that walks a
//! path beneath it one folder at a time.
//!
//! Each step opens the next folder relative to the folder already held open
//! (`openat` with `O_NOFOLLOW`), so swapping a folder for a symbolic link
//! while a call runs cannot redirect it: a link met on the way is read and
//! followed only if its target stays beneath the root, and `..` never climbs
//! above it. This is the resolution `openat2(RESOLVE_BENEATH)` and cap-std
//! do; it is written here because both refuse every absolute link target,
//! even one inside the root, and neither reports where a final symbolic link
//! leads, which writing *through* a link needs.
//!
//! The same walk makes missing folders ([`Workspace::make_folders`]): a
//! folder the path names that is not there is made with `mkdirat` in the
//! folder held open, then entered like any other, so creation can no more be
//! redirected than resolution.

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use rustix::fs::{AtFlags, Mode, OFlags};
use rustix::io::Errno;

use super::error::{FileKind, FsError};
use super::file::{FileStat, Located, sync_folder};
use super::walk::DEFAULT_MAX_DEPTH;

/// A folder that confines every path a tool is given: paths are resolved
/// beneath it, and no path leaves it, not by `..`, not as an absolute path
/// elsewhere, not through a symbolic link that points outside.
///
/// ```
/// # let folder = tempfile::tempdir()?;
/// # std::fs::create_dir(folder.path().join("notes"))?;
/// # std::fs::write(folder.path().join("notes/a.md"), "hello")?;
/// use quire_fs::{FsError, Workspace};
///
/// let workspace = Workspace::new(folder.path())?;
/// assert_eq!(workspace.read_to_string("notes/a.md", 1024).unwrap(), "hello");
/// assert!(matches!(workspace.locate("../a.md"), Err(FsError::Outside { .. })));
/// assert!(matches!(workspace.read("notes/b.md", 1024), Err(FsError::NotFound { .. })));
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Workspace {
    /// Canonical: absolute, without symbolic links. Used to show paths and
    /// to accept absolute paths inside the root; never to open anything.
    root: PathBuf,
    /// The root folder, held open for the workspace's lifetime.
    dir: Arc<OwnedFd>,
}

/// Symbolic links followed in one resolution before it is called a loop
/// (Linux's own limit).
const MAX_SYMLINKS: usize = 40;

/// How folders on the way are held: only as a place to resolve from.
#[cfg(any(target_os = "linux", target_os = "android"))]
pub(super) const FOLDER_FLAGS: OFlags = OFlags::PATH
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);
#[cfg(not(any(target_os = "linux", target_os = "android")))]
pub(super) const FOLDER_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);

/// How a path is resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Resolve {
    /// To the entry a final symbolic link leads to.
    FollowFinal,
    /// To the final entry itself, a link included.
    Entry,
    /// To a folder, every missing one on the way created
    /// ([`Workspace::make_folders`]).
    CreateFolders,
}

/// How many times a folder is looked for again while other processes create
/// or remove it under us, before the path is called changed.
const CREATE_ATTEMPTS: usize = 16;

/// Why a folder path too deep to create is refused: the walk would not see
/// what is put there.
const TOO_DEEP: &str = "is more than 64 folders deep, deeper than a walk goes";
const _: () = assert!(DEFAULT_MAX_DEPTH == 64, "TOO_DEEP names the depth");

/// One step of a path still to resolve.
enum Step {
    Up,
    Name(OsString),
}

impl Workspace {
    /// Opens the workspace rooted at `root`, which must be an existing folder.
    pub fn new(root: &Path) -> io::Result<Self> {
        let root = root.canonicalize()?;
        let dir = rustix::fs::open(&root, FOLDER_FLAGS, Mode::empty()).map_err(|errno| {
            if errno == Errno::NOTDIR {
                io::Error::new(
                    io::ErrorKind::NotADirectory,
                    "the workspace root is not a folder",
                )
            } else {
                io::Error::from(errno)
            }
        })?;
        Ok(Workspace {
            root,
            dir: Arc::new(dir),
        })
    }

    /// The whole file system as a workspace: the CLI acts for the person
    /// running it, so any path they name is theirs to use. Paths are still
    /// opened without following a final link blindly, checked to be regular
    /// files, read with a size limit and written atomically.
    pub fn filesystem() -> io::Result<Self> {
        Workspace::new(Path::new("/"))
    }

    /// Whether this is the whole file system (where `..` at the top stays
    /// at the top, as in the kernel, and nothing is outside).
    fn is_filesystem(&self) -> bool {
        self.root == Path::new("/")
    }

    /// The root's canonical path.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `path` as shown to a tool's caller: relative to the root,
    /// `/`-separated. Paths outside the root show only their file name, so
    /// no absolute path of the machine leaks into a message.
    pub fn display(&self, path: &Path) -> String {
        match path.strip_prefix(&self.root) {
            Ok(relative) => slash_path(relative),
            Err(_) => path.file_name().map_or_else(
                || "(outside the workspace)".to_owned(),
                |name| name.to_string_lossy().into_owned(),
            ),
        }
    }

    /// Finds what `path` names beneath the root, following symbolic links
    /// (the final one too) as long as they stay beneath it. The final entry
    /// need not exist (see [`Located::exists`]); every folder on the way must.
    pub fn locate(&self, path: &str) -> Result<Located, FsError> {
        self.resolve(path, Resolve::FollowFinal, None)
    }

    /// Like [`Workspace::locate`], but a final symbolic link is the entry
    /// itself, not its target.
    pub fn locate_entry(&self, path: &str) -> Result<Located, FsError> {
        self.resolve(path, Resolve::Entry, None)
    }

    /// Like [`Workspace::locate`], with messages naming the path as `shown`
    /// (the CLI resolves absolute paths but names them as the user typed).
    pub fn locate_shown(&self, path: &str, shown: &str) -> Result<Located, FsError> {
        self.resolve(path, Resolve::FollowFinal, Some(shown))
    }

    /// The whole content of the regular file at `path`, at most `limit` bytes.
    pub fn read(&self, path: &str, limit: u64) -> Result<Vec<u8>, FsError> {
        self.locate(path)?.open()?.read(limit)
    }

    /// [`Workspace::read`] as UTF-8 text.
    pub fn read_to_string(&self, path: &str, limit: u64) -> Result<String, FsError> {
        self.locate(path)?.open()?.read_to_string(limit)
    }

    /// The path as messages show it: relative paths as given; absolute ones
    /// relative to the root when inside it, else by file name only
    /// (`.../name`). Tools name paths in their own messages the same way.
    pub fn shown(&self, given: &str) -> String {
        let path = Path::new(given);
        if !path.is_absolute() {
            return given.to_owned();
        }
        match path.strip_prefix(&self.root) {
            Ok(relative) if !self.is_filesystem() => slash_path(relative),
            Ok(_) => given.to_owned(),
            Err(_) => path.file_name().map_or_else(
                || "(an absolute path)".to_owned(),
                |name| format!(".../{}", name.to_string_lossy()),
            ),
        }
    }

    pub(super) fn resolve(
        &self,
        given: &str,
        how: Resolve,
        shown: Option<&str>,
    ) -> Result<Located, FsError> {
        if given.is_empty() {
            return Err(FsError::Empty);
        }
        let shown = shown.map_or_else(|| self.shown(given), str::to_owned);
        if given.contains('\0') {
            return Err(FsError::Invalid {
                path: shown.replace('\0', "\\0"),
                reason: "contains a NUL character",
            });
        }
        let relative = if Path::new(given).is_absolute() {
            match Path::new(given).strip_prefix(&self.root) {
                Ok(relative) => relative,
                Err(_) => {
                    return Err(FsError::Outside {
                        path: shown,
                        how: "",
                    });
                }
            }
        } else {
            Path::new(given)
        };
        let mut pending = steps(relative);
        // A path that climbs above the root on paper is refused as such,
        // even when a folder it names on the way does not exist.
        if !self.is_filesystem() && climbs_above(&pending) {
            return Err(FsError::Outside {
                path: shown,
                how: "",
            });
        }
        let create = how == Resolve::CreateFolders;
        if create && deepest(&pending) > DEFAULT_MAX_DEPTH {
            return Err(too_deep(&shown));
        }
        // A path that ends in `/` or `/.` names a folder.
        let names_folder = create || given.ends_with('/') || given.ends_with("/.") || given == ".";
        let mut walk = Walk {
            workspace: self,
            shown: &shown,
            stack: Vec::new(),
            real: Vec::new(),
            links: 0,
            via_link: false,
            create,
            last_link: String::new(),
        };
        // The steps still pending that the caller's path gave (at the back
        // of `pending`); a link's target is pushed in front of them. Only
        // those are created: a folder is never made where a link points.
        let mut given_left = pending.len();
        loop {
            let given_step = pending.len() == given_left;
            if given_step {
                given_left = given_left.saturating_sub(1);
            }
            let Some(step) = pending.pop_front() else {
                // Everything resolved to a folder (`.`, `a/..`).
                let dir = walk.take_top()?;
                return Ok(Located {
                    folder: dir,
                    name: OsString::from("."),
                    shown: shown.clone(),
                    real: slash_join(&walk.real),
                    kind: Some(FileKind::Folder),
                    names_folder,
                });
            };
            match step {
                Step::Up => walk.up()?,
                Step::Name(name) if pending.is_empty() && !create => {
                    let top = walk.top_dup()?;
                    let kind = match rustix::fs::statat(&top, &name, AtFlags::SYMLINK_NOFOLLOW) {
                        Ok(stat) => Some(FileStat::from_raw(&stat).kind()),
                        Err(Errno::NOENT) => None,
                        Err(errno) => {
                            return Err(FsError::io(&shown, "look up", &io::Error::from(errno)));
                        }
                    };
                    if kind == Some(FileKind::Symlink) && how == Resolve::FollowFinal {
                        let target = walk.read_link(&top, &name)?;
                        walk.follow(&target, &mut pending)?;
                        continue;
                    }
                    let mut real = walk.real.clone();
                    real.push(name.clone());
                    return Ok(Located {
                        folder: top,
                        name,
                        shown: shown.clone(),
                        real: slash_join(&real),
                        kind,
                        names_folder,
                    });
                }
                Step::Name(name) => walk.down(&name, &mut pending, given_step)?,
            }
        }
    }
}

/// The state of one resolution: the folders entered so far (the root at the
/// bottom, implicitly, while the stack is empty) and their names.
struct Walk<'a> {
    workspace: &'a Workspace,
    shown: &'a str,
    stack: Vec<OwnedFd>,
    real: Vec<OsString>,
    links: usize,
    /// Whether a symbolic link has been followed (for the message).
    via_link: bool,
    /// Whether missing folders are created ([`Resolve::CreateFolders`]).
    create: bool,
    /// The root-relative path of the last link read (for the message about
    /// a link whose target folder is missing).
    last_link: String,
}

impl Walk<'_> {
    fn top(&self) -> &OwnedFd {
        self.stack.last().unwrap_or(&self.workspace.dir)
    }

    fn top_dup(&self) -> Result<OwnedFd, FsError> {
        self.top()
            .try_clone()
            .map_err(|error| FsError::io(self.shown, "open", &error))
    }

    fn take_top(&mut self) -> Result<OwnedFd, FsError> {
        match self.stack.pop() {
            Some(top) => Ok(top),
            None => self.top_dup(),
        }
    }

    fn outside(&self) -> FsError {
        FsError::Outside {
            path: self.shown.to_owned(),
            how: if self.via_link {
                " (through a symbolic link)"
            } else {
                ""
            },
        }
    }

    fn up(&mut self) -> Result<(), FsError> {
        if self.stack.pop().is_none() {
            // `..` at the file system's root is the root itself.
            if !self.workspace.is_filesystem() {
                return Err(self.outside());
            }
        }
        self.real.pop();
        Ok(())
    }

    /// Enters the folder `name` of the folder on top. When creating, a
    /// missing `name` that the caller's path gave (`given`) is made first;
    /// a missing folder behind a link is not (see [`FsError::DanglingLink`]).
    fn down(
        &mut self,
        name: &OsStr,
        pending: &mut VecDeque<Step>,
        given: bool,
    ) -> Result<(), FsError> {
        // Another process may create or remove the folder between our calls:
        // each round looks again, a few rounds at most.
        for _ in 0..CREATE_ATTEMPTS {
            match rustix::fs::openat(self.top(), name, FOLDER_FLAGS, Mode::empty()) {
                Ok(folder) => {
                    self.stack.push(folder);
                    self.real.push(name.to_owned());
                    return Ok(());
                }
                Err(Errno::NOTDIR | Errno::LOOP) => {
                    let top = self.top_dup()?;
                    match rustix::fs::statat(&top, name, AtFlags::SYMLINK_NOFOLLOW) {
                        Ok(stat) if FileStat::from_raw(&stat).kind() == FileKind::Symlink => {
                            let target = self.read_link(&top, name)?;
                            return self.follow(&target, pending);
                        }
                        // A link a moment ago, a folder now: look again.
                        Ok(stat)
                            if self.create
                                && FileStat::from_raw(&stat).kind() == FileKind::Folder => {}
                        // A "folder" on the way that is a file.
                        Ok(stat) if self.create => {
                            return Err(FsError::NotAFolder {
                                path: self.real_path_of(name),
                                kind: FileStat::from_raw(&stat).kind(),
                            });
                        }
                        // Gone since the open: look again.
                        Err(Errno::NOENT) if self.create => {}
                        Ok(_) | Err(Errno::NOENT) => {
                            return Err(FsError::NotFound {
                                path: self.shown.to_owned(),
                            });
                        }
                        Err(errno) => {
                            return Err(FsError::io(
                                self.shown,
                                "look up",
                                &io::Error::from(errno),
                            ));
                        }
                    }
                }
                Err(Errno::NOENT) if self.create && given => self.make_folder(name)?,
                Err(Errno::NOENT) if self.create => {
                    return Err(FsError::DanglingLink {
                        path: self.last_link.clone(),
                    });
                }
                Err(Errno::NOENT) => {
                    return Err(FsError::NotFound {
                        path: self.shown.to_owned(),
                    });
                }
                Err(errno) => {
                    return Err(FsError::io(
                        self.shown,
                        "open a folder of",
                        &io::Error::from(errno),
                    ));
                }
            }
        }
        Err(FsError::Changed {
            path: self.shown.to_owned(),
        })
    }

    /// Makes the folder `name` in the folder on top (`mkdirat` through its
    /// handle, mode `0o777` less the umask) and flushes the parent's entries,
    /// so the new folder survives a crash. One already there (another
    /// creator won the race) is fine: the caller opens it next.
    fn make_folder(&self, name: &OsStr) -> Result<(), FsError> {
        if self.stack.len() >= DEFAULT_MAX_DEPTH {
            return Err(too_deep(self.shown));
        }
        match rustix::fs::mkdirat(self.top(), name, Mode::from_raw_mode(0o777)) {
            Ok(()) => {
                sync_folder(self.top());
                Ok(())
            }
            Err(Errno::EXIST) => Ok(()),
            Err(errno) => Err(FsError::io(
                &self.real_path_of(name),
                "create the folder",
                &io::Error::from(errno),
            )),
        }
    }

    /// `name` in the folder on top, as a path relative to the root.
    fn real_path_of(&self, name: &OsStr) -> String {
        let mut real = self.real.clone();
        real.push(name.to_owned());
        slash_join(&real)
    }

    fn read_link(&mut self, folder: &OwnedFd, name: &OsStr) -> Result<PathBuf, FsError> {
        self.links += 1;
        self.last_link = self.real_path_of(name);
        if self.links > MAX_SYMLINKS {
            return Err(FsError::TooManyLinks {
                path: self.shown.to_owned(),
            });
        }
        match rustix::fs::readlinkat(folder, name, Vec::new()) {
            Ok(target) => Ok(PathBuf::from(OsStr::from_bytes(target.as_bytes()))),
            // Replaced by something else since it was looked at.
            Err(Errno::INVAL | Errno::NOENT) => Err(FsError::Changed {
                path: self.shown.to_owned(),
            }),
            Err(errno) => Err(FsError::io(
                self.shown,
                "read the link",
                &io::Error::from(errno),
            )),
        }
    }

    /// Continues the resolution at a link's target: relative targets from
    /// the link's folder, absolute ones from the root when they lie inside it.
    fn follow(&mut self, target: &Path, pending: &mut VecDeque<Step>) -> Result<(), FsError> {
        if target.as_os_str().is_empty() {
            return Err(FsError::NotFound {
                path: self.shown.to_owned(),
            });
        }
        let relative = if target.is_absolute() {
            self.via_link = true;
            let Ok(relative) = target.strip_prefix(&self.workspace.root) else {
                return Err(self.outside());
            };
            self.stack.clear();
            self.real.clear();
            relative
        } else {
            target
        };
        self.via_link = true;
        let mut steps = steps(relative);
        while let Some(step) = steps.pop_back() {
            pending.push_front(step);
        }
        Ok(())
    }
}

/// The most folders deep the steps go, counted from where they start.
fn deepest(steps: &VecDeque<Step>) -> usize {
    let mut depth = 0usize;
    let mut deepest = 0;
    for step in steps {
        match step {
            Step::Up => depth = depth.saturating_sub(1),
            Step::Name(_) => depth += 1,
        }
        deepest = deepest.max(depth);
    }
    deepest
}

fn too_deep(shown: &str) -> FsError {
    FsError::Invalid {
        path: shown.to_owned(),
        reason: TOO_DEEP,
    }
}

fn climbs_above(steps: &VecDeque<Step>) -> bool {
    let mut depth = 0usize;
    for step in steps {
        match step {
            Step::Up if depth == 0 => return true,
            Step::Up => depth -= 1,
            Step::Name(_) => depth += 1,
        }
    }
    false
}

fn steps(path: &Path) -> VecDeque<Step> {
    path.components()
        .filter_map(|component| match component {
            Component::ParentDir => Some(Step::Up),
            Component::Normal(name) => Some(Step::Name(name.to_owned())),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => None,
        })
        .collect()
}

fn slash_path(path: &Path) -> String {
    path.components()
        .map(|component| component.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

fn slash_join(names: &[OsString]) -> String {
    names
        .iter()
        .map(|name| name.to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}
