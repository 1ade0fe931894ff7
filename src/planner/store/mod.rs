//! Where a plan lives between tool calls: the description of the Jujutsu
//! working-copy change, a file in the git directory (offered as the next
//! commit message), or a plain file beneath the workspace root.

mod command;
mod file;
mod git;
mod jj;
mod plan_file;

use std::path::Path;
use std::time::Duration;

pub use command::COMMAND_TIMEOUT;
pub use file::FileStore;
pub use git::{GitStore, PLAN_FILE_NAME};
pub use jj::JjStore;

use crate::fs::{FolderLock, FsError, Workspace};

/// The largest stored plan read, in bytes. A plan is at most 100,000
/// characters (the grammar's limit); anything much larger is not one.
pub const MAX_PLAN_BYTES: u64 = 1024 * 1024;

/// A place that holds one plan document's text.
pub trait PlanStore: Send + Sync {
    /// `jj`, `git` or `file`.
    fn kind(&self) -> &'static str;
    /// The stored text (empty when nothing is stored yet).
    fn load(&self) -> Result<String, StoreError>;
    /// Replaces the stored text.
    fn save(&self, text: &str) -> Result<(), StoreError>;
    /// A summary of the working copy's file changes beneath the workspace
    /// root, `None` when it has none (or the store has no working copy).
    fn changes(&self) -> Result<Option<String>, StoreError>;
    /// Serializes read-modify-write of the plan across threads and
    /// processes until the guard is dropped. The lock is taken on a folder
    /// (the repository's metadata folder, or the plan file's folder), so no
    /// lock file is left anywhere.
    fn lock(&self, timeout: Duration) -> Result<FolderLock, StoreError>;
    /// How a user clears stored text that is not a plan.
    fn clear_hint(&self) -> String;
    /// Makes room for a new plan, keeping the stored one where the store
    /// can: Jujutsu starts a new change (`jj new`), so the old plan stays
    /// the description of the change before it. Returns whether the stored
    /// plan was kept; when not, the next [`PlanStore::save`] replaces it.
    fn start_new(&self) -> Result<bool, StoreError> {
        Ok(false)
    }
}

/// Why a store could not be used. Messages say what failed and what to do,
/// with paths relative to the workspace.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    #[error("`{program}` is not installed or not on PATH; {hint}")]
    ProgramMissing {
        program: &'static str,
        hint: &'static str,
    },
    #[error("`{command}` failed: {detail}")]
    CommandFailed { command: String, detail: String },
    #[error(
        "the workspace is neither a Jujutsu nor a git repository, so there is nowhere to keep the plan; \
         run `jj git init` or `git init` in it, or start the server with `--plan-file PATH`"
    )]
    NoRepository,
    #[error(
        "the workspace is a bare git repository, which has no working tree to plan changes in; \
         start the server in a clone with a working tree, or with `--plan-file PATH`"
    )]
    BareRepository,
    #[error("the plan file cannot be used: {0}")]
    File(FsError),
}

impl StoreError {
    /// Whether the same call may succeed if made again (a lock held by
    /// another process, a file changed meanwhile).
    pub fn retryable(&self) -> bool {
        matches!(self, StoreError::File(error) if error.retryable())
    }
}

/// Chooses the store for `workspace`: the plan file when one is given
/// (relative to the root, or absolute inside it), else Jujutsu when the
/// root is in a Jujutsu repository, else git when it is in a git repository.
pub fn detect(
    workspace: &Workspace,
    plan_file: Option<&Path>,
) -> Result<Box<dyn PlanStore>, StoreError> {
    if let Some(plan_file) = plan_file {
        return Ok(Box::new(FileStore::new(workspace.clone(), plan_file)?));
    }
    let root = workspace.root();
    // Like jj itself, a folder inside a Jujutsu repository belongs to it.
    if let Some(repository) = root.ancestors().find(|folder| folder.join(".jj").is_dir()) {
        return Ok(Box::new(JjStore::new(root, repository)));
    }
    match GitStore::discover(root) {
        Ok(Some(store)) => Ok(Box::new(store)),
        Ok(None) => Err(StoreError::NoRepository),
        Err(error) => Err(error),
    }
}
