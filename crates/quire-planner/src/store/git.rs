//! The plan in the git directory (`.git/QUIRE_PLAN`), outside the work tree,
//! offered as the next commit message by `quire hook prepare-commit-msg`.
//!
//! git runs programs a repository's configuration names (`core.fsmonitor`,
//! filter drivers, hooks, signature checks, and through a fetch
//! `remote.*.uploadpack`, `core.sshCommand`, `ext::` URLs and credential
//! helpers). Every git command here switches them off, so calling a tool
//! never executes code from the repository.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::changes::{git_listing, git_new_file_lines};
use super::command::{CommandStream, Invocation};
use super::plan_file::PlanFile;
use super::{
    ChangedFile, ChangesDetail, Diff, FileStatus, LineCounts, MAX_NEW_FILE_DIFFS, PlanStore,
    StoreError, StoreKind, WorkingCopyChanges,
};
use quire_fs::{FolderLock, Workspace};

const INSTALL: &str = "install git, or start the server with `--plan-file PATH`";

/// How every listing and diff compares files: no external diff program, no
/// text conversion (both run programs the repository names), and renames
/// found whatever `diff.renames` says, so the list and the diff agree.
const COMPARED: [&str; 3] = ["--no-ext-diff", "--no-textconv", "--find-renames"];

/// An untracked file's path, relative to the workspace root.
struct UntrackedPath {
    /// The path as shown (a name that is not UTF-8 with replacement
    /// characters).
    shown: String,
    /// Whether `shown` is the path itself, so that a command can be given
    /// it (a command's arguments here are text).
    exact: bool,
}

/// The plan's file name inside the git directory.
pub(crate) const PLAN_FILE_NAME: &str = "QUIRE_PLAN";

/// A plan kept in git's own directory (`QUIRE_PLAN`), out of the working
/// tree, so it is never committed by accident.
pub struct GitStore {
    root: PathBuf,
    file: PlanFile,
    git_dir: Workspace,
}

/// A git command that runs no program named by the repository's
/// configuration: no fsmonitor, no hooks, no signature checks, no pager, no
/// optional index writes, no fetch of any kind, and the named filter
/// drivers switched off (passed through `GIT_CONFIG_*`, which takes any
/// driver name verbatim).
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

/// The environment that keeps git from fetching anything. In a partial
/// clone (`extensions.partialClone`, `remote.*.promisor`) git fetches a
/// missing object from the promisor remote the moment a command needs it
/// (`git log` over a commit that is not there, `git diff` of a missing
/// blob), and a fetch runs what the repository names: the remote's
/// `uploadpack` program, `core.sshCommand`, an `ext::` URL's command, a
/// remote helper (`remote.*.vcs`), a credential helper. Two locks, each
/// enough on its own:
///
/// - `GIT_NO_LAZY_FETCH=1`: no lazy fetch at all (git 2.44 and later, and
///   the 2024 security releases of older lines such as 2.39.4; an older
///   git ignores it and tries the fetch);
/// - `GIT_ALLOW_PROTOCOL` set to the empty list: git refuses every
///   transport (`file`, `ssh`, `ext`, `http(s)`, remote helpers), whatever
///   `protocol.*.allow` the configuration says, so that fetch fails before
///   it starts any program (the variable is older than partial clones).
///
/// A missing object is then an error (`bad object`), never a fetch.
pub(super) const NO_FETCH: [(&str, &str); 2] =
    [("GIT_NO_LAZY_FETCH", "1"), ("GIT_ALLOW_PROTOCOL", "")];

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
        .env("GIT_TERMINAL_PROMPT", "0");
    for (key, value) in NO_FETCH {
        invocation = invocation.env(key, value);
    }
    invocation = invocation.env("GIT_CONFIG_COUNT", overrides.len().to_string());
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
/// use quire_planner::store::stream_git;
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

/// Whether the repository `folder` is in is a partial clone: one that may
/// lack objects and would fetch them from a promisor remote
/// (`extensions.partialClone`, or a `remote.<name>.promisor` that is true).
/// quire never fetches (its git commands switch fetching off), so a command that needs a
/// missing object fails; this says why. Reading the configuration runs
/// nothing; a folder in no repository is not a partial clone.
pub fn is_partial_clone(folder: &Path) -> bool {
    let listed = safe_git(&[])
        .args([
            "config",
            "-z",
            "--get-regexp",
            r"^(extensions\.partialclone|remote\..*\.promisor)$",
        ])
        .run(folder);
    // `-z`: `key\nvalue\0` per entry.
    listed.is_ok_and(|entries| {
        entries.split('\0').any(|entry| {
            let (key, value) = entry.split_once('\n').unwrap_or((entry, ""));
            let value = value.trim().to_ascii_lowercase();
            match key {
                "extensions.partialclone" => !value.is_empty(),
                _ => {
                    key.ends_with(".promisor")
                        && matches!(value.as_str(), "true" | "yes" | "on" | "1")
                }
            }
        })
    })
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
                    quire_fs::describe(&error)
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

    /// What the work tree is compared with: the last commit, or before the
    /// first the empty tree (everything tracked is new).
    fn base(&self) -> Result<String, StoreError> {
        match safe_git(&[])
            .args(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"])
            .run(&self.root)
        {
            Ok(_) => Ok("HEAD".to_owned()),
            Err(StoreError::CommandFailed { .. }) => Ok(safe_git(&[])
                .args(["hash-object", "-t", "tree", "--stdin"])
                .stdin("")
                .run(&self.root)?
                .trim()
                .to_owned()),
            Err(error) => Err(error),
        }
    }

    /// The untracked files beneath the root, as `git status
    /// --untracked-files=all` lists them, relative to the root.
    fn untracked(&self) -> Result<Vec<UntrackedPath>, StoreError> {
        let listed = safe_git(&[])
            .args([
                "ls-files",
                "-z",
                "--others",
                "--exclude-standard",
                "--",
                ".",
            ])
            .run_bytes(&self.root)?;
        Ok(listed
            .split(|&byte| byte == 0)
            .filter(|path| !path.is_empty())
            .map(|path| match String::from_utf8(path.to_vec()) {
                Ok(shown) => UntrackedPath { shown, exact: true },
                Err(_) => UntrackedPath {
                    shown: String::from_utf8_lossy(path).into_owned(),
                    exact: false,
                },
            })
            .collect())
    }

    /// Every changed file beneath the root: the tracked ones as `git diff`
    /// against `base` sees them (staged or not), then every untracked file
    /// as a new one, its lines counted for the first
    /// [`MAX_NEW_FILE_DIFFS`] (one command each). No external diff program
    /// or text conversion runs.
    fn files(
        &self,
        drivers: &[String],
        base: &str,
        untracked: &[UntrackedPath],
    ) -> Result<Vec<ChangedFile>, StoreError> {
        // `--relative`: only what lies beneath the root, named relative to it.
        let listing = safe_git(drivers)
            .args(["diff", "--relative", "--ignore-submodules=all"])
            .args(COMPARED)
            .args(["--raw", "--numstat", "-z", base, "--"]);
        let shown = listing.shown();
        let mut files = git_listing(&listing.run_bytes(&self.root)?, &shown)?;
        for (index, path) in untracked.iter().enumerate() {
            let lines = match path {
                UntrackedPath { shown, exact: true } if index < MAX_NEW_FILE_DIFFS => {
                    // `--no-index` exits 1 when the files differ, as they do here.
                    let counted = safe_git(drivers)
                        .args(["diff", "--no-index", "--numstat", "-z"])
                        .args(COMPARED)
                        .args(["--", "/dev/null", shown.as_str()])
                        .success_code(1);
                    let shown = counted.shown();
                    git_new_file_lines(&counted.run_bytes(&self.root)?, &shown)?
                }
                _ => LineCounts::NotCounted,
            };
            files.push(ChangedFile {
                path: path.shown.clone(),
                status: FileStatus::Added,
                previous_path: None,
                lines,
            });
        }
        Ok(files)
    }

    /// The diff of the work tree beneath the root against `base`, tracked
    /// files first, then each untracked file as a new one (at most
    /// [`MAX_NEW_FILE_DIFFS`] of them). No external diff program or text
    /// conversion runs.
    fn diff(
        &self,
        drivers: &[String],
        base: &str,
        untracked: &[UntrackedPath],
    ) -> Result<Diff, StoreError> {
        const SHOWN: [&str; 3] = ["--no-color", "--src-prefix=a/", "--dst-prefix=b/"];
        let mut diff = Diff::new();
        diff.push(
            safe_git(drivers)
                .args(["diff", "--relative", "--ignore-submodules=all"])
                .args(COMPARED)
                .args(SHOWN)
                .args([base, "--"])
                .run_capped(&self.root, diff.room())?,
        );
        for (index, path) in untracked.iter().enumerate() {
            if !path.exact {
                diff.skip_unnamed_file();
                continue;
            }
            if diff.room() == 0 || index >= MAX_NEW_FILE_DIFFS {
                diff.skip_file();
                continue;
            }
            diff.push(
                safe_git(drivers)
                    .args(["diff", "--no-index"])
                    .args(COMPARED)
                    .args(SHOWN)
                    .args(["--", "/dev/null", path.shown.as_str()])
                    .success_code(1)
                    .run_capped(&self.root, diff.room())?,
            );
        }
        Ok(diff)
    }

    /// [`PlanStore::changes`], with git's own errors.
    fn changes_listed(
        &self,
        detail: ChangesDetail,
    ) -> Result<Option<WorkingCopyChanges>, StoreError> {
        let drivers = filter_drivers(&self.root)?;
        let base = self.base()?;
        let untracked = self.untracked()?;
        let files = self.files(&drivers, &base, &untracked)?;
        if files.is_empty() {
            return Ok(None);
        }
        let diff = match detail {
            ChangesDetail::Files => None,
            ChangesDetail::FilesAndDiff => Some(self.diff(&drivers, &base, &untracked)?.finish()),
        };
        Ok(WorkingCopyChanges::of(files, diff))
    }

    /// The message of the last commit (`git log -1 --format=%B`).
    pub fn last_commit_message(&self) -> Result<String, StoreError> {
        safe_git(&[])
            .args(["log", "-1", "--format=%B"])
            .run(&self.root)
    }
}

impl PlanStore for GitStore {
    fn kind(&self) -> StoreKind {
        StoreKind::Git
    }

    fn load(&self) -> Result<String, StoreError> {
        self.file.load()
    }

    fn save(&self, text: &str) -> Result<(), StoreError> {
        self.file.save(text)
    }

    fn changes(&self, detail: ChangesDetail) -> Result<Option<WorkingCopyChanges>, StoreError> {
        self.changes_listed(detail).map_err(|error| match error {
            StoreError::CommandFailed { command, detail } if is_partial_clone(&self.root) => {
                StoreError::CommandFailed {
                    command,
                    detail: format!(
                        "{detail}\n(the repository is a partial clone that lacks objects this needs, and quire \
                         does not fetch them, as a fetch runs programs the repository's configuration names; \
                         fetch them yourself with `git fetch` and call again)"
                    ),
                }
            }
            error => error,
        })
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

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::process::Command;

    /// git in `folder`, without the machine's configuration.
    fn git(folder: &Path, args: &[&str]) -> std::process::Output {
        Command::new("git")
            .args(args)
            .current_dir(folder)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "A")
            .env("GIT_AUTHOR_EMAIL", "a@example.com")
            .env("GIT_COMMITTER_NAME", "A")
            .env("GIT_COMMITTER_EMAIL", "a@example.com")
            .output()
            .unwrap()
    }

    /// A partial clone whose `main` names a commit it does not have, with
    /// its promisor remote at `url`; any program the fetch would start is
    /// `tripwire`, which creates `marker`. Returns the repository.
    struct LazyClone {
        folder: tempfile::TempDir,
    }

    impl LazyClone {
        fn new(url: &str, extra_config: &[(&str, &str)]) -> LazyClone {
            let folder = tempfile::tempdir().unwrap();
            let source = folder.path().join("source");
            let repo = folder.path().join("repo");
            let tripwire = folder.path().join("tripwire.sh");
            std::fs::write(
                &tripwire,
                format!(
                    "#!/bin/sh\ntouch '{}'\nexit 1\n",
                    folder.path().join("ran").display()
                ),
            )
            .unwrap();
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&tripwire, std::fs::Permissions::from_mode(0o755)).unwrap();
            for folder in [&source, &repo] {
                std::fs::create_dir(folder).unwrap();
                assert!(git(folder, &["init", "-q", "-b", "main"]).status.success());
            }
            assert!(
                git(&source, &["commit", "-q", "--allow-empty", "-m", "feat: x"])
                    .status
                    .success()
            );
            let tip = String::from_utf8(git(&source, &["rev-parse", "HEAD"]).stdout).unwrap();
            // The tripwire as a remote helper too, for `remote.*.vcs`.
            let helpers = folder.path().join("bin");
            std::fs::create_dir(&helpers).unwrap();
            std::fs::copy(&tripwire, helpers.join("git-remote-tripwire")).unwrap();
            let tripwire = tripwire.to_str().unwrap();
            let url = url
                .replace("SOURCE", source.to_str().unwrap())
                .replace("TRIPWIRE", tripwire);
            let mut config = vec![
                ("core.repositoryformatversion", "1"),
                ("extensions.partialClone", "origin"),
                ("remote.origin.promisor", "true"),
                ("remote.origin.url", url.as_str()),
                ("remote.origin.uploadpack", tripwire),
            ];
            let extra: Vec<(&str, String)> = extra_config
                .iter()
                .map(|(key, value)| (*key, value.replace("TRIPWIRE", tripwire)))
                .collect();
            config.extend(extra.iter().map(|(key, value)| (*key, value.as_str())));
            for (key, value) in config {
                assert!(git(&repo, &["config", key, value]).status.success());
            }
            // The ref names the commit; the object is not here.
            std::fs::write(repo.join(".git/refs/heads/main"), tip).unwrap();
            LazyClone { folder }
        }

        fn repo(&self) -> PathBuf {
            self.folder.path().join("repo")
        }

        /// PATH with the folder of the `git-remote-tripwire` helper first.
        fn path(&self) -> String {
            format!(
                "{}:{}",
                self.folder.path().join("bin").display(),
                std::env::var("PATH").unwrap_or_default()
            )
        }

        /// Whether the tripwire ran since the last call (and resets it).
        fn tripped(&self) -> bool {
            std::fs::remove_file(self.folder.path().join("ran")).is_ok()
        }
    }

    /// `git log` through the safe runner, with the variables named in
    /// `without` left out of its environment.
    fn safe_log(clone: &LazyClone, without: &[&str]) -> Result<String, StoreError> {
        let mut invocation = safe_git(&[])
            .env("PATH", clone.path())
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .args(["log", "--format=%s", "main", "--"]);
        invocation
            .env
            .retain(|(key, _)| !without.contains(&key.as_str()));
        invocation.run(&clone.repo())
    }

    #[test]
    fn partial_clones_are_told_apart() {
        let clone = LazyClone::new("SOURCE", &[]);
        assert!(is_partial_clone(&clone.repo()));
        assert!(!is_partial_clone(&clone.folder.path().join("source")));
        let promisor_only = LazyClone::new("SOURCE", &[]);
        let repo = promisor_only.repo();
        assert!(
            git(&repo, &["config", "--unset", "extensions.partialClone"])
                .status
                .success()
        );
        assert!(is_partial_clone(&repo), "a promisor remote is enough");
        assert!(
            git(&repo, &["config", "remote.origin.promisor", "false"])
                .status
                .success()
        );
        assert!(!is_partial_clone(&repo));
        assert!(!is_partial_clone(clone.folder.path()), "in no repository");
    }

    #[test]
    fn a_partial_clone_missing_an_object_fetches_nothing() {
        let remotes: [(&str, &[(&str, &str)]); 4] = [
            // The promisor remote's own `uploadpack` program.
            ("SOURCE", &[]),
            // An ssh remote's command.
            (
                "ssh://example.invalid/x",
                &[("core.sshCommand", "TRIPWIRE")],
            ),
            // A command as the URL, allowed by the repository.
            ("ext::TRIPWIRE", &[("protocol.ext.allow", "always")]),
            // A remote helper the repository names (`git-remote-<vcs>`).
            ("SOURCE", &[("remote.origin.vcs", "tripwire")]),
        ];
        for (url, config) in remotes {
            let clone = LazyClone::new(url, config);
            // The tripwire works: plain git runs it.
            let plain = Command::new("git")
                .args(["log", "--format=%s", "main", "--"])
                .current_dir(clone.repo())
                .env("PATH", clone.path())
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .output()
                .unwrap();
            assert!(!plain.status.success());
            assert!(
                clone.tripped(),
                "plain git did not fetch from {url} {config:?}"
            );
            // Each lock alone holds, so a git that ignores one still runs
            // nothing.
            for without in [&[][..], &["GIT_NO_LAZY_FETCH"], &["GIT_ALLOW_PROTOCOL"]] {
                let error = safe_log(&clone, without).unwrap_err();
                assert!(
                    !clone.tripped(),
                    "the safe runner fetched from {url} {config:?} without {without:?}"
                );
                assert!(error.to_string().contains("main"), "{error}");
            }
        }
    }
}
