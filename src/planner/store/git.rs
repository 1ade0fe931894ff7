//! The plan in the git directory (`.git/QUIRE_PLAN`), outside the work tree,
//! offered as the next commit message by `quire hook prepare-commit-msg`.

use std::path::{Path, PathBuf};

use super::command::run;
use super::file::{read_or_empty, write_atomically};
use super::{PlanStore, StoreError};

const INSTALL: &str = "install git, or start the server with `--plan-file PATH`";

/// The plan's file name inside the git directory.
pub const PLAN_FILE_NAME: &str = "QUIRE_PLAN";

pub struct GitStore {
    root: PathBuf,
    plan: PathBuf,
}

impl GitStore {
    /// The store of the git repository `root` is in; `None` when it is in none.
    pub fn discover(root: &Path) -> Result<Option<GitStore>, StoreError> {
        match run(
            "git",
            &["rev-parse", "--absolute-git-dir"],
            root,
            None,
            INSTALL,
        ) {
            Ok(git_dir) => Ok(Some(GitStore {
                root: root.to_owned(),
                plan: PathBuf::from(git_dir.trim_end()).join(PLAN_FILE_NAME),
            })),
            Err(StoreError::CommandFailed { .. }) => Ok(None),
            Err(error) => Err(error),
        }
    }

    /// Where the plan is kept.
    pub fn plan_path(&self) -> &Path {
        &self.plan
    }
}

impl PlanStore for GitStore {
    fn kind(&self) -> &'static str {
        "git"
    }

    fn load(&self) -> Result<String, StoreError> {
        read_or_empty(&self.plan, &self.root)
    }

    fn save(&self, text: &str) -> Result<(), StoreError> {
        write_atomically(&self.plan, text, &self.root)
    }

    fn changes(&self) -> Result<Option<String>, StoreError> {
        let status = run("git", &["status", "--short"], &self.root, None, INSTALL)?;
        Ok(Some(status.trim_end().to_owned()).filter(|status| !status.is_empty()))
    }

    fn lock_path(&self) -> PathBuf {
        self.plan.with_file_name(format!("{PLAN_FILE_NAME}.lock"))
    }

    fn clear_hint(&self) -> String {
        format!(
            "delete `.git/{PLAN_FILE_NAME}` (or the file of that name in the git directory) to start a new plan"
        )
    }
}
