//! The kiln's index as the server keeps it: built on a thread of its own
//! once the server starts (so a large vault never delays the handshake),
//! then shared by every call and kept fresh. A call that needs it waits for
//! the build, up to its time budget, and is told to retry when the budget
//! runs out.
//!
//! Fresh: a watcher ([`super::watch`]) records the paths that change on
//! disk, and every call applies them before it reads the index, so a note
//! written, added, moved or deleted by another program is seen by the next
//! call. The watcher starts before the build's walk, so nothing changed
//! during the build is missed. Without a watcher the root is rescanned
//! (unchanged files are not read again) before a call, at most every
//! [`POLL_INTERVAL`].

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use super::index::KilnIndex;
use super::read::KilnError;
use super::watch::{PendingChanges, RootWatcher};
use quire_fs::Workspace;

/// How often the root is rescanned when no watcher runs.
pub const POLL_INTERVAL: Duration = Duration::from_secs(2);

/// Where the build is.
enum Build {
    /// Not asked for yet.
    NotStarted,
    /// Under way on its thread.
    Running(Instant),
    /// Done.
    Ready(Box<ReadyIndex>),
    /// The root could not be walked.
    Failed(String),
}

/// A built index and when it was last brought up to date.
struct ReadyIndex {
    index: KilnIndex,
    freshness: Freshness,
}

/// When the index was built and last brought up to date with the disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Freshness {
    /// How long the first build took.
    pub build_time: Duration,
    /// When the last full scan of the root (the build, or a rescan) ended.
    pub last_scan: SystemTime,
    /// When changes seen on disk were last applied (the last scan if none
    /// were since).
    pub last_update: SystemTime,
    last_scan_at: Instant,
}

/// Whether changes on disk are being watched.
enum WatchState {
    /// Not started yet (the index is not being built).
    NotStarted,
    /// Running.
    Watching(#[allow(dead_code)] RootWatcher),
    /// No watcher could run; why.
    Unavailable(String),
}

/// What [`LiveIndex::peek`] sees.
pub(crate) enum IndexView<'a> {
    /// The build is under way.
    Building {
        /// How long it has run.
        elapsed: Duration,
        /// How many notes it has read so far.
        notes_read: usize,
    },
    /// The index, up to date with the changes seen on disk.
    Ready {
        /// The index.
        index: &'a KilnIndex,
        /// When it was built and updated.
        freshness: Freshness,
    },
    /// The root could not be walked; why.
    Failed(&'a str),
}

/// How the watch on the root stands, in words for a status report:
/// `watching`, `not started`, or `unavailable: why` (the index is then
/// rescanned every [`POLL_INTERVAL`]). A watcher error seen since (lost
/// events, which cost a rescan) is added.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct WatcherStatus {
    /// `watching`, `not started` or `unavailable`.
    pub state: &'static str,
    /// Why it is unavailable, or the last error it reported.
    pub detail: Option<String>,
}

struct Shared {
    build: Mutex<Build>,
    built: Condvar,
    pending: Arc<Mutex<PendingChanges>>,
    watcher_error: Arc<Mutex<Option<String>>>,
    watch: Mutex<WatchState>,
    /// Whether a watcher is wanted (else the root is polled).
    watcher_wanted: bool,
    notes_read: AtomicUsize,
}

/// The index of a workspace, built in the background and kept fresh.
#[derive(Clone)]
pub(crate) struct LiveIndex {
    workspace: Workspace,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for LiveIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveIndex").finish_non_exhaustive()
    }
}

/// Locks `mutex`. A panic while it was held leaves a value that is still
/// whole (each is replaced at once), so it is used as it is.
fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl LiveIndex {
    /// The index of `workspace`, kept fresh by a watcher when `watch`, else
    /// by rescanning the root before a call, at most every
    /// [`POLL_INTERVAL`] (for file systems where watching does not work,
    /// such as some network mounts).
    pub(crate) fn with_watcher(workspace: Workspace, watch: bool) -> Self {
        LiveIndex {
            workspace,
            shared: Arc::new(Shared {
                build: Mutex::new(Build::NotStarted),
                built: Condvar::new(),
                pending: Arc::default(),
                watcher_error: Arc::default(),
                watch: Mutex::new(WatchState::NotStarted),
                watcher_wanted: watch,
                notes_read: AtomicUsize::new(0),
            }),
        }
    }

    /// Starts watching the root and building the index on a thread of its
    /// own, unless it was started.
    pub(crate) fn start(&self) {
        let mut build = locked(&self.shared.build);
        if !matches!(*build, Build::NotStarted) {
            return;
        }
        *build = Build::Running(Instant::now());
        let (workspace, shared) = (self.workspace.clone(), Arc::clone(&self.shared));
        let spawned = std::thread::Builder::new()
            .name("kiln-index".to_owned())
            .spawn(move || build_in_background(&workspace, &shared));
        if let Err(error) = spawned {
            *build = Build::Failed(format!("the index thread could not start: {error}"));
        }
    }

    /// Whether [`Self::start`] has run (by itself or through a call).
    pub(crate) fn started(&self) -> bool {
        !matches!(*locked(&self.shared.build), Build::NotStarted)
    }

    /// Runs `use_index` on the index once it is built and brought up to
    /// date with the changes seen on disk, waiting at most `budget` for the
    /// build.
    pub(crate) fn with<R>(
        &self,
        budget: Duration,
        use_index: impl FnOnce(&Workspace, &mut KilnIndex) -> Result<R, KilnError>,
    ) -> Result<R, KilnError> {
        self.start();
        let deadline = Instant::now() + budget;
        let mut build = locked(&self.shared.build);
        loop {
            match &mut *build {
                Build::Ready(ready) => {
                    self.catch_up(ready);
                    return use_index(&self.workspace, &mut ready.index);
                }
                Build::Failed(reason) => return Err(KilnError::IndexFailed(reason.clone())),
                Build::Running(started) => {
                    let now = Instant::now();
                    if now >= deadline {
                        return Err(KilnError::IndexBuilding {
                            elapsed: now - *started,
                        });
                    }
                    build = self
                        .shared
                        .built
                        .wait_timeout(build, deadline - now)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0;
                }
                Build::NotStarted => {
                    drop(build);
                    self.start();
                    build = locked(&self.shared.build);
                }
            }
        }
    }

    /// Runs `look` on the index as it is now, without waiting for a build
    /// under way (for a status report that must answer at once).
    pub(crate) fn peek<R>(&self, look: impl FnOnce(IndexView<'_>) -> R) -> R {
        self.start();
        let mut build = locked(&self.shared.build);
        match &mut *build {
            Build::Ready(ready) => {
                self.catch_up(ready);
                look(IndexView::Ready {
                    index: &ready.index,
                    freshness: ready.freshness,
                })
            }
            Build::Failed(reason) => look(IndexView::Failed(reason)),
            Build::Running(started) => look(IndexView::Building {
                elapsed: started.elapsed(),
                notes_read: self.shared.notes_read.load(Ordering::Relaxed),
            }),
            // `start` has just left it running or failed.
            Build::NotStarted => look(IndexView::Building {
                elapsed: Duration::ZERO,
                notes_read: 0,
            }),
        }
    }

    /// Whether a file watcher keeps the index fresh (else the root is
    /// rescanned, at most every [`POLL_INTERVAL`]).
    pub(crate) fn is_watching(&self) -> bool {
        matches!(*locked(&self.shared.watch), WatchState::Watching(_))
    }

    /// How the watch on the root stands.
    pub(crate) fn watcher_status(&self) -> WatcherStatus {
        let last_error = locked(&self.shared.watcher_error).clone();
        match &*locked(&self.shared.watch) {
            WatchState::NotStarted => WatcherStatus {
                state: "not started",
                detail: None,
            },
            WatchState::Watching(_) => WatcherStatus {
                state: "watching",
                detail: last_error,
            },
            WatchState::Unavailable(why) => WatcherStatus {
                state: "unavailable",
                detail: Some(why.clone()),
            },
        }
    }

    /// Applies the changes seen on disk since the last call; without a
    /// watcher, rescans the root when the last scan is older than
    /// [`POLL_INTERVAL`].
    fn catch_up(&self, ready: &mut ReadyIndex) {
        let mut changes = std::mem::take(&mut *locked(&self.shared.pending));
        let watching = matches!(*locked(&self.shared.watch), WatchState::Watching(_));
        if !watching && ready.freshness.last_scan_at.elapsed() >= POLL_INTERVAL {
            changes.everything = true;
        }
        if changes.is_empty() {
            return;
        }
        let started = Instant::now();
        let index = &mut ready.index;
        let mut set_changed = false;
        if changes.everything {
            set_changed |= index.rescan(&self.workspace, "");
            ready.freshness.last_scan = SystemTime::now();
            ready.freshness.last_scan_at = Instant::now();
        } else {
            for folder in &changes.folders {
                set_changed |= index.rescan(&self.workspace, folder);
            }
            for file in &changes.files {
                set_changed |= index.sync_file(&self.workspace, file);
            }
        }
        if set_changed {
            index.relink();
        }
        ready.freshness.last_update = SystemTime::now();
        tracing::debug!(
            files = changes.files.len(),
            folders = changes.folders.len(),
            everything = changes.everything,
            elapsed = ?started.elapsed(),
            "kiln index updated"
        );
    }
}

/// The build thread: starts the watcher (before the walk, so a change made
/// during the build is recorded and applied after it), then builds.
fn build_in_background(workspace: &Workspace, shared: &Shared) {
    let started = if shared.watcher_wanted {
        RootWatcher::start(
            workspace.root(),
            Arc::clone(&shared.pending),
            Arc::clone(&shared.watcher_error),
        )
    } else {
        Err("turned off".to_owned())
    };
    let watch = match started {
        Ok(watcher) => WatchState::Watching(watcher),
        Err(why) => {
            tracing::warn!(%why, "no file watcher; the kiln index is rescanned every {POLL_INTERVAL:?} instead");
            WatchState::Unavailable(why)
        }
    };
    *locked(&shared.watch) = watch;
    let started = Instant::now();
    let built = KilnIndex::build_counting(workspace, &shared.notes_read);
    let mut build = locked(&shared.build);
    *build = match built {
        Ok(index) => {
            let build_time = started.elapsed();
            tracing::info!(notes = index.len(), elapsed = ?build_time, "kiln index built");
            let now = SystemTime::now();
            Build::Ready(Box::new(ReadyIndex {
                index,
                freshness: Freshness {
                    build_time,
                    last_scan: now,
                    last_update: now,
                    last_scan_at: Instant::now(),
                },
            }))
        }
        Err(error) => {
            tracing::warn!(%error, "kiln index failed");
            Build::Failed(error.to_string())
        }
    };
    shared.built.notify_all();
}
