//! The plan as the description of the Jujutsu working-copy change (`@`).

use std::path::{Path, PathBuf};

use super::command::run;
use super::{PlanStore, StoreError};

const INSTALL: &str = "install Jujutsu (`cargo install --locked jj-cli`), or start the server with `--plan-file PATH`";

pub struct JjStore {
    root: PathBuf,
    repository: PathBuf,
}

impl JjStore {
    /// The store of the repository at `repository` (which has `.jj/`), run
    /// from `root` (the repository or a folder inside it).
    pub fn new(root: &Path, repository: &Path) -> Self {
        JjStore {
            root: root.to_owned(),
            repository: repository.to_owned(),
        }
    }

    fn jj(&self, args: &[&str], stdin: Option<&str>) -> Result<String, StoreError> {
        let mut full = vec!["--no-pager", "--color", "never"];
        full.extend_from_slice(args);
        run("jj", &full, &self.root, stdin, INSTALL)
    }
}

impl PlanStore for JjStore {
    fn kind(&self) -> &'static str {
        "jj"
    }

    fn load(&self) -> Result<String, StoreError> {
        self.jj(&["log", "-r", "@", "--no-graph", "-T", "description"], None)
    }

    fn save(&self, text: &str) -> Result<(), StoreError> {
        self.jj(&["describe", "--stdin"], Some(text)).map(drop)
    }

    fn changes(&self) -> Result<Option<String>, StoreError> {
        let summary = self.jj(&["diff", "--summary"], None)?;
        Ok(Some(summary.trim_end().to_owned()).filter(|summary| !summary.is_empty()))
    }

    fn lock_path(&self) -> PathBuf {
        self.repository.join(".jj").join("quire-plan.lock")
    }

    fn clear_hint(&self) -> String {
        "clear the change description with `jj describe -m \"\"`, or start a new change with `jj new`".to_owned()
    }
}
