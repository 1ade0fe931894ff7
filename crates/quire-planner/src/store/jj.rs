//! The plan as the description of the Jujutsu working-copy change (`@`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::changes::{JJ_LISTING_ALIAS, JJ_LISTING_TEMPLATE, jj_listing, jj_summary};
use super::command::Invocation;
use super::git::NO_FETCH;
use super::{
    ChangedFile, ChangesDetail, Diff, PlanStore, StoreError, StoreKind, WorkingCopyChanges,
};
use quire_fs::{FolderLock, Workspace};

const INSTALL: &str = "install Jujutsu (`cargo install --locked jj-cli`), or start the server with `--plan-file PATH`";

/// A plan kept in the description of Jujutsu's working-copy change, where it
/// becomes the commit message.
pub(crate) struct JjStore {
    root: PathBuf,
    repository: PathBuf,
}

impl JjStore {
    /// The store of the repository at `repository` (which has `.jj/`), run
    /// from `root` (the repository or a folder inside it).
    pub(crate) fn new(root: &Path, repository: &Path) -> Self {
        JjStore {
            root: root.to_owned(),
            repository: repository.to_owned(),
        }
    }

    /// A `jj` command that runs no program the configuration names: no
    /// pager, no file-system monitor (`fsmonitor.backend`), no signing
    /// program (`signing.behavior = "drop"`: with a signing backend
    /// configured, jj signs, or keeps signed, every commit it rewrites,
    /// and the working-copy commit is rewritten by `describe`, `new` and
    /// each snapshot), no signature check (`ui.show-cryptographic-signatures`),
    /// and, should it call git, no fetch (`NO_FETCH`). No colour either.
    fn invocation<'a>(&self, args: &[&str]) -> Invocation<'a> {
        let mut invocation = Invocation::new("jj", INSTALL)
            .quiet_args(["--no-pager", "--color", "never"])
            .quiet_args([
                "--config",
                "fsmonitor.backend=none",
                "--config",
                "signing.behavior=drop",
                "--config",
                "ui.show-cryptographic-signatures=false",
            ])
            .args(args.iter().copied());
        for (key, value) in NO_FETCH {
            invocation = invocation.env(key, value);
        }
        invocation
    }

    /// The changed files of `@` beneath the root, with their line counts
    /// ([`JJ_LISTING_TEMPLATE`]); from `jj diff --summary`, uncounted, when
    /// this jj's templates cannot count them.
    fn files(&self) -> Result<Vec<ChangedFile>, StoreError> {
        // The template goes in as an alias (a TOML literal string: it holds
        // no `'`), so that messages name the command, not the template.
        let alias = format!("template-aliases.{JJ_LISTING_ALIAS}='{JJ_LISTING_TEMPLATE}'");
        let listing = self
            .invocation(&["log", "-r", "@", "--no-graph", "-T", JJ_LISTING_ALIAS])
            .quiet_args(["--config", alias.as_str()]);
        let shown = listing.shown();
        match listing.run(&self.root) {
            Ok(output) => jj_listing(&output, &shown),
            // An older jj: its template language lacks a method used.
            Err(StoreError::CommandFailed { detail, .. })
                if detail.contains("Failed to parse template") =>
            {
                Ok(jj_summary(&self.jj(&["diff", "--summary", "."], None)?))
            }
            Err(error) => Err(error),
        }
    }

    fn jj(&self, args: &[&str], stdin: Option<&str>) -> Result<String, StoreError> {
        let mut invocation = self.invocation(args);
        if let Some(stdin) = stdin {
            invocation = invocation.stdin(stdin);
        }
        invocation.run(&self.root)
    }
}

impl PlanStore for JjStore {
    fn kind(&self) -> StoreKind {
        StoreKind::Jj
    }

    fn load(&self) -> Result<String, StoreError> {
        self.jj(&["log", "-r", "@", "--no-graph", "-T", "description"], None)
    }

    fn save(&self, text: &str) -> Result<(), StoreError> {
        self.jj(&["describe", "--stdin"], Some(text)).map(drop)
    }

    fn changes(&self, detail: ChangesDetail) -> Result<Option<WorkingCopyChanges>, StoreError> {
        let files = self.files()?;
        if files.is_empty() {
            return Ok(None);
        }
        let diff = match detail {
            ChangesDetail::Files => None,
            // `--git`: git's format whatever diff formatter or tool the
            // configuration names. `.`: only what lies beneath the
            // workspace root, shown relative to it.
            ChangesDetail::FilesAndDiff => {
                let mut diff = Diff::new();
                diff.push(
                    self.invocation(&["diff", "--git", "."])
                        .run_capped(&self.root, diff.room())?,
                );
                Some(diff.finish())
            }
        };
        Ok(WorkingCopyChanges::of(files, diff))
    }

    fn lock(&self, timeout: Duration) -> Result<FolderLock, StoreError> {
        Workspace::new(&self.repository.join(".jj"))
            .map_err(|error| StoreError::CommandFailed {
                command: "jj".into(),
                detail: format!(
                    "the repository's `.jj` folder cannot be opened ({})",
                    quire_fs::describe(&error)
                ),
            })?
            .locate(".")
            .and_then(|folder| folder.lock_folder(timeout))
            .map_err(StoreError::File)
    }

    fn clear_hint(&self) -> String {
        "clear the change description with `jj describe -m \"\"`, or start a new change with `jj new`".to_owned()
    }

    fn start_new(&self) -> Result<bool, StoreError> {
        self.jj(&["new"], None)?;
        Ok(true)
    }
}
