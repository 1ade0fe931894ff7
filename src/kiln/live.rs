//! The kiln's index as the server keeps it: built on a thread of its own
//! once the server starts (so a large vault never delays the handshake),
//! then shared by every call. A call that needs it waits for the build, up
//! to its time budget, and is told to retry when the budget runs out.

use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use super::index::KilnIndex;
use super::read::KilnError;
use crate::fs::Workspace;

/// Where the build is.
enum Build {
    /// Not asked for yet.
    NotStarted,
    /// Under way on its thread.
    Running(Instant),
    /// Done.
    Ready(KilnIndex),
    /// The root could not be walked.
    Failed(String),
}

/// The index of a workspace, built in the background.
#[derive(Clone)]
pub struct LiveIndex {
    workspace: Workspace,
    state: Arc<(Mutex<Build>, Condvar)>,
}

impl std::fmt::Debug for LiveIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveIndex").finish_non_exhaustive()
    }
}

impl LiveIndex {
    /// The index of `workspace`, not built until [`Self::start`] or the
    /// first call that needs it.
    pub fn new(workspace: Workspace) -> Self {
        LiveIndex {
            workspace,
            state: Arc::new((Mutex::new(Build::NotStarted), Condvar::new())),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Build> {
        // A panic while the lock was held leaves a state that is still
        // whole (each is replaced at once), so it is used as it is.
        self.state.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Starts building the index on its own thread, unless it was started.
    pub fn start(&self) {
        let mut build = self.lock();
        if !matches!(*build, Build::NotStarted) {
            return;
        }
        *build = Build::Running(Instant::now());
        let (workspace, state) = (self.workspace.clone(), Arc::clone(&self.state));
        let spawned = std::thread::Builder::new()
            .name("kiln-index".to_owned())
            .spawn(move || {
                let started = Instant::now();
                let built = KilnIndex::build(&workspace);
                let mut build = state.0.lock().unwrap_or_else(PoisonError::into_inner);
                *build = match built {
                    Ok(index) => {
                        tracing::info!(notes = index.len(), elapsed = ?started.elapsed(), "kiln index built");
                        Build::Ready(index)
                    }
                    Err(error) => {
                        tracing::warn!(%error, "kiln index failed");
                        Build::Failed(error.to_string())
                    }
                };
                state.1.notify_all();
            });
        if let Err(error) = spawned {
            *build = Build::Failed(format!("the index thread could not start: {error}"));
        }
    }

    /// Runs `use_index` on the index once it is built, waiting at most
    /// `budget` for the build.
    pub fn with<R>(
        &self,
        budget: Duration,
        use_index: impl FnOnce(&Workspace, &mut KilnIndex) -> Result<R, KilnError>,
    ) -> Result<R, KilnError> {
        self.start();
        let deadline = Instant::now() + budget;
        let mut build = self.lock();
        loop {
            match &mut *build {
                Build::Ready(index) => return use_index(&self.workspace, index),
                Build::Failed(reason) => return Err(KilnError::IndexFailed(reason.clone())),
                Build::Running(started) => {
                    let now = Instant::now();
                    if now >= deadline {
                        return Err(KilnError::IndexBuilding {
                            elapsed: now - *started,
                        });
                    }
                    build = self
                        .state
                        .1
                        .wait_timeout(build, deadline - now)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0;
                }
                Build::NotStarted => {
                    drop(build);
                    self.start();
                    build = self.lock();
                }
            }
        }
    }
}
