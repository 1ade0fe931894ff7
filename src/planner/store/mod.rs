//! Where a plan lives between tool calls: the description of the Jujutsu
//! working-copy change, a file in the git directory (offered as the next
//! commit message), or a plain file.

mod command;
mod file;
mod git;
mod jj;

use std::path::{Path, PathBuf};

pub use file::FileStore;
pub use git::{GitStore, PLAN_FILE_NAME};
pub use jj::JjStore;

/// A place that holds one plan document's text.
pub trait PlanStore: Send + Sync {
    /// `jj`, `git` or `file`.
    fn kind(&self) -> &'static str;
    /// The stored text (empty when nothing is stored yet).
    fn load(&self) -> Result<String, StoreError>;
    /// Replaces the stored text.
    fn save(&self, text: &str) -> Result<(), StoreError>;
    /// A summary of the working copy's file changes, `None` when it has none
    /// (or the store has no working copy).
    fn changes(&self) -> Result<Option<String>, StoreError>;
    /// The file whose lock serializes read-modify-write of the plan across
    /// processes (kept out of the work tree where the store allows).
    fn lock_path(&self) -> PathBuf;
    /// How a user clears stored text that is not a plan.
    fn clear_hint(&self) -> String;
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
    #[error("cannot {action} the plan file `{path}`: {reason}")]
    File {
        action: &'static str,
        path: String,
        reason: String,
    },
}

/// Chooses the store for `root`: the plan file when one is given (relative
/// to `root` unless absolute), else Jujutsu when `root` has `.jj/`, else git
/// when `root` is inside a git repository.
pub fn detect(root: &Path, plan_file: Option<&Path>) -> Result<Box<dyn PlanStore>, StoreError> {
    if let Some(plan_file) = plan_file {
        let path: PathBuf = if plan_file.is_absolute() {
            plan_file.to_owned()
        } else {
            root.join(plan_file)
        };
        return Ok(Box::new(FileStore::new(path, root)));
    }
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
