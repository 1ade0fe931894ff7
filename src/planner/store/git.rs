//! The plan in the git directory (`.git/QUIRE_PLAN`), outside the work tree,
//! offered as the next commit message by `quire hook prepare-commit-msg`.
//!
//! git runs programs a repository's configuration names (`core.fsmonitor`,
//! filter drivers, hooks, signature checks). Every git command here switches
//! them off, so calling a tool never executes code from the repository.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::command::{CommandStream, Invocation};
use super::plan_file::PlanFile;
use super::{Diff, MAX_NEW_FILE_DIFFS, PlanStore, StoreError, changes_text};
use crate::fs::{FolderLock, Workspace};

const INSTALL: &str = "install git, or start the server with `--plan-file PATH`";

/// The plan's file name inside the git directory.
pub const PLAN_FILE_NAME: &str = "QUIRE_PLAN";

/// A plan kept in git's own directory ([`PLAN_FILE_NAME`]), out of the working
/// tree, so it is never committed by accident.
pub struct GitStore {
    root: PathBuf,
    file: PlanFile,
    git_dir: Workspace,
}

/// A git command that runs no program named by the repository's
/// configuration: no fsmonitor, no hooks, no signature checks, no pager, no
/// optional index writes, and the named filter drivers switched off (passed
/// through `GIT_CONFIG_*`, which takes any driver name verbatim).
pub(crate) fn safe_git<'a>(filter_drivers: &[String]) -> Invocation<'a> {
    safe_git_with(filter_drivers, Hooks::Off)
}

/// Whether a [`safe_git`] command sees the repository's `core.hooksPath`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Hooks {
    /// `core.hooksPath` is `/dev/null`: no hook can run.
    Off,
    /// `core.hooksPath` as configured, for a command that runs none but
    /// must say where they are (`git rev-parse --git-path hooks`).
    Configured,
}

fn safe_git_with<'a>(filter_drivers: &[String], hooks: Hooks) -> Invocation<'a> {
    let mut overrides: Vec<(String, String)> = vec![
        ("core.fsmonitor".into(), "false".into()),
        ("log.showSignature".into(), "false".into()),
        ("core.pager".into(), "cat".into()),
    ];
    if hooks == Hooks::Off {
        overrides.push(("core.hooksPath".into(), "/dev/null".into()));
    }
    for driver in filter_drivers {
        for key in ["clean", "smudge", "process"] {
            overrides.push((format!("filter.{driver}.{key}"), String::new()));
        }
        overrides.push((format!("filter.{driver}.required"), "false".into()));
    }
    let mut invocation = Invocation::new("git", INSTALL)
        .quiet_args(["--no-pager", "--no-optional-locks"])
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_CONFIG_COUNT", overrides.len().to_string());
    for (index, (key, value)) in overrides.into_iter().enumerate() {
        invocation = invocation
            .env(format!("GIT_CONFIG_KEY_{index}"), key)
            .env(format!("GIT_CONFIG_VALUE_{index}"), value);
    }
    invocation
}

/// Runs `git ARGS` in `folder` as the store's own git commands run (no program the
/// repository's configuration names can run) and streams its stdout: for
/// output too large to hold at once, such as `git log` over a long history.
/// Read the stream to its end, then [`CommandStream::finish`] says whether
/// git succeeded (with git's own message when not).
///
/// ```
/// # let folder = tempfile::tempdir()?;
/// # let git = |args: &[&str]| std::process::Command::new("git").args(args)
/// #     .current_dir(folder.path()).env("GIT_CONFIG_GLOBAL", "/dev/null")
/// #     .env("GIT_AUTHOR_NAME", "A").env("GIT_AUTHOR_EMAIL", "a@example.com")
/// #     .env("GIT_COMMITTER_NAME", "A").env("GIT_COMMITTER_EMAIL", "a@example.com")
/// #     .status().map(|status| assert!(status.success()));
/// # git(&["init", "-q"])?;
/// # git(&["commit", "-q", "--allow-empty", "-m", "feat: add x"])?;
/// use std::io::Read;
/// use quire::planner::store::stream_git;
///
/// let mut log = stream_git(folder.path(), &["log", "--format=%s"]).unwrap();
/// let mut subjects = String::new();
/// log.read_to_string(&mut subjects)?;
/// log.finish().unwrap();
/// assert_eq!(subjects, "feat: add x\n");
///
/// let mut bad = stream_git(folder.path(), &["log", "--end-of-options", "nosuch", "--"]).unwrap();
/// bad.read_to_string(&mut String::new())?;
/// assert!(bad.finish().unwrap_err().to_string().contains("bad revision 'nosuch'"));
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn stream_git(folder: &Path, args: &[&str]) -> Result<CommandStream, StoreError> {
    safe_git(&[]).args(args.iter().copied()).stream(folder)
}

/// The absolute path of the folder git runs the hooks of the repository
/// `folder` is in from (`git rev-parse --git-path hooks`): `core.hooksPath`
/// when it is set, else the `hooks` folder of the repository's common git
/// directory (shared by its worktrees). The folder need not exist.
pub fn hooks_folder(folder: &Path) -> Result<PathBuf, StoreError> {
    let output = safe_git_with(&[], Hooks::Configured)
        .args(["rev-parse", "--path-format=absolute", "--git-path", "hooks"])
        .run(folder)?;
    Ok(PathBuf::from(output.trim_end_matches('\n')))
}

/// The filter drivers the repository's configuration defines (reading the
/// configuration runs nothing).
fn filter_drivers(root: &Path) -> Result<Vec<String>, StoreError> {
    let listed = safe_git(&[])
        .args([
            "config",
            "-z",
            "--name-only",
            "--get-regexp",
            r"^filter\..*\.(clean|smudge|process)$",
        ])
        .run(root);
    let names = match listed {
        Ok(names) => names,
        // `git config --get-regexp` exits 1 when nothing matches.
        Err(StoreError::CommandFailed { .. }) => return Ok(Vec::new()),
        Err(error) => return Err(error),
    };
    let mut drivers: Vec<String> = names
        .split('\0')
        .filter_map(|key| {
            let key = key.strip_prefix("filter.")?;
            let (driver, _) = key.rsplit_once('.')?;
            Some(driver.to_owned())
        })
        .collect();
    drivers.sort();
    drivers.dedup();
    Ok(drivers)
}

impl GitStore {
    /// The store of the git repository `root` is in; `None` when it is in none.
    pub fn discover(root: &Path) -> Result<Option<GitStore>, StoreError> {
        let output = match safe_git(&[])
            .args(["rev-parse", "--absolute-git-dir", "--is-bare-repository"])
            .run(root)
        {
            Ok(output) => output,
            Err(StoreError::CommandFailed { .. }) => return Ok(None),
            Err(error) => return Err(error),
        };
        let mut lines = output.lines();
        let (Some(git_dir), Some(bare)) = (lines.next(), lines.next()) else {
            return Ok(None);
        };
        if bare.trim() == "true" {
            return Err(StoreError::BareRepository);
        }
        let git_dir =
            Workspace::new(Path::new(git_dir)).map_err(|error| StoreError::CommandFailed {
                command: "git rev-parse --absolute-git-dir".into(),
                detail: format!(
                    "the git directory it names cannot be opened ({})",
                    crate::fs::describe(&error)
                ),
            })?;
        Ok(Some(GitStore {
            root: root.to_owned(),
            file: PlanFile::new(git_dir.clone(), PLAN_FILE_NAME.to_owned()),
            git_dir,
        }))
    }

    /// Where the plan is kept (for information; every access goes through
    /// the confined git directory).
    pub fn plan_path(&self) -> PathBuf {
        self.git_dir.root().join(PLAN_FILE_NAME)
    }

    /// Removes the stored plan if `is_done` says its text is finished with
    /// (holding the store's lock); says whether it did.
    pub fn remove_plan_if(
        &self,
        timeout: Duration,
        is_done: impl Fn(&str) -> bool,
    ) -> Result<bool, StoreError> {
        let _lock = self.lock(timeout)?;
        self.file.remove_if(is_done)
    }

    /// The diff of the work tree beneath the root against the last commit
    /// (the empty tree before the first), tracked files first, then every
    /// untracked file as a new one, as `git status --untracked-files=all`
    /// lists them. No external diff program or text conversion runs.
    fn diff(&self, drivers: &[String]) -> Result<Diff, StoreError> {
        const SHOWN: [&str; 5] = [
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            "--src-prefix=a/",
            "--dst-prefix=b/",
        ];
        let mut diff = Diff::new();
        let base = match safe_git(&[])
            .args(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"])
            .run(&self.root)
        {
            Ok(_) => "HEAD".to_owned(),
            // No commit yet: everything tracked is new.
            Err(StoreError::CommandFailed { .. }) => safe_git(&[])
                .args(["hash-object", "-t", "tree", "--stdin"])
                .stdin("")
                .run(&self.root)?
                .trim()
                .to_owned(),
            Err(error) => return Err(error),
        };
        // `--relative`: only what lies beneath the root, named relative to it.
        diff.push(
            safe_git(drivers)
                .args(["diff", "--relative", "--ignore-submodules=all"])
                .args(SHOWN)
                .args([base.as_str(), "--"])
                .run_capped(&self.root, diff.room())?,
        );
        let untracked = safe_git(&[])
            .args([
                "ls-files",
                "-z",
                "--others",
                "--exclude-standard",
                "--",
                ".",
            ])
            .run(&self.root)?;
        // One `git diff --no-index` per new file, for at most
        // MAX_NEW_FILE_DIFFS of them.
        let paths = untracked.split('\0').filter(|path| !path.is_empty());
        for (index, path) in paths.enumerate() {
            if diff.room() == 0 || index >= MAX_NEW_FILE_DIFFS {
                diff.skip_file();
                continue;
            }
            // `--no-index` exits 1 when the files differ, as they do here.
            diff.push(
                safe_git(drivers)
                    .args(["diff", "--no-index"])
                    .args(SHOWN)
                    .args(["--", "/dev/null", path])
                    .success_code(1)
                    .run_capped(&self.root, diff.room())?,
            );
        }
        Ok(diff)
    }

    /// The message of the last commit (`git log -1 --format=%B`).
    pub fn last_commit_message(&self) -> Result<String, StoreError> {
        safe_git(&[])
            .args(["log", "-1", "--format=%B"])
            .run(&self.root)
    }
}

impl PlanStore for GitStore {
    fn kind(&self) -> &'static str {
        "git"
    }

    fn load(&self) -> Result<String, StoreError> {
        self.file.load()
    }

    fn save(&self, text: &str) -> Result<(), StoreError> {
        self.file.save(text)
    }

    fn changes(&self) -> Result<Option<String>, StoreError> {
        let drivers = filter_drivers(&self.root)?;
        // `-- .`: only what lies beneath the workspace root, shown relative to it.
        let status = safe_git(&drivers)
            .args([
                "status",
                "--short",
                "--untracked-files=all",
                "--ignore-submodules=all",
                "--",
                ".",
            ])
            .run(&self.root)?;
        if status.trim().is_empty() {
            return Ok(None);
        }
        Ok(changes_text(&status, self.diff(&drivers)?))
    }

    fn lock(&self, timeout: Duration) -> Result<FolderLock, StoreError> {
        self.git_dir
            .locate(".")
            .and_then(|folder| folder.lock_folder(timeout))
            .map_err(StoreError::File)
    }

    fn clear_hint(&self) -> String {
        format!(
            "delete `.git/{PLAN_FILE_NAME}` (or the file of that name in the git directory) to start a new plan"
        )
    }
}
