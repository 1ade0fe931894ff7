//! `quire hook install HOOK...`: writes the git hooks that run quire, as
//! `cog install-hook` does for cocogitto: `commit-msg` checks every commit
//! message with `quire check --git-message`; `prepare-commit-msg` and
//! `post-commit` carry the planner's plan into the commit and clear it
//! after (`quire hook prepare-commit-msg`, `quire hook post-commit`);
//! `planner` names all three.
//!
//! - Where: the folder git runs hooks from, as git itself says
//!   (`git rev-parse --git-path hooks`), so `core.hooksPath` and worktrees
//!   (whose hooks are the main repository's) are honoured. The folder is
//!   made when missing.
//! - What: a `/bin/sh` script with a marker line (`# quire-hook: NAME`) by
//!   which quire knows the hook as its own. It runs the `quire` that installed it, by
//!   absolute path: git GUIs and editors often run hooks with a `PATH`
//!   that lacks `~/.cargo/bin`, and a hook that cannot find its program
//!   blocks every commit. If that binary has gone (moved, or a package
//!   manager's versioned folder replaced by an upgrade), the hook falls back
//!   to `quire` on `PATH`.
//! - Replacing: a hook quire wrote is rewritten (nothing happens when it is
//!   already the same, so running the command again is harmless). Any other
//!   hook, a symbolic link included, is left alone unless `--force`; then it
//!   is moved, never deleted, into the `quire-backup/` folder beside it
//!   (git runs nothing from there), under a numbered name if one is taken.
//!
//! Every file operation goes through the confined file layer
//! ([`quire_fs`]): atomic writes, links not followed, nothing overwritten
//! by a move.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use quire_fs::{FileKind, FsError, IoKind, Located, Workspace};
use quire_planner::store::{StoreError, hooks_folder};

use super::{Outcome, output};

/// What starts the line by which quire knows a hook as one it wrote; the
/// hook's name follows.
const MARKER_PREFIX: &str = "# quire-hook: ";

/// The folder, inside the hooks folder, that replaced hooks are moved to.
pub(super) const BACKUP_FOLDER: &str = "quire-backup";

/// The largest hook file read to look for the marker.
const MAX_HOOK_BYTES: u64 = 1024 * 1024;

/// The hooks `quire hook install` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, clap::ValueEnum)]
pub(super) enum HookName {
    /// Fills a fresh commit message with the planner's plan (`quire hook
    /// prepare-commit-msg`).
    PrepareCommitMsg,
    /// Checks each commit message (`quire check --git-message`).
    CommitMsg,
    /// Clears a finished plan once a commit carries it (`quire hook
    /// post-commit`).
    PostCommit,
    /// The planner's workflow: all three.
    Planner,
}

impl HookName {
    /// The hooks a name stands for, in the order git runs them.
    fn hooks(self) -> &'static [HookName] {
        match self {
            HookName::PrepareCommitMsg => &[HookName::PrepareCommitMsg],
            HookName::CommitMsg => &[HookName::CommitMsg],
            HookName::PostCommit => &[HookName::PostCommit],
            HookName::Planner => &[
                HookName::PrepareCommitMsg,
                HookName::CommitMsg,
                HookName::PostCommit,
            ],
        }
    }

    fn file_name(self) -> &'static str {
        match self {
            HookName::PrepareCommitMsg => "prepare-commit-msg",
            HookName::CommitMsg => "commit-msg",
            HookName::PostCommit => "post-commit",
            HookName::Planner => "planner",
        }
    }

    /// What the hook runs after `"$quire" `, and what it does, for its
    /// comment.
    fn command(self) -> (&'static str, &'static str) {
        match self {
            HookName::PrepareCommitMsg => (
                "hook prepare-commit-msg \"$@\"",
                "It fills a fresh commit message with the planner's plan.",
            ),
            HookName::CommitMsg => (
                "check --git-message \"$1\"",
                "It checks each commit message; `git commit --no-verify` skips it.",
            ),
            HookName::PostCommit => (
                "hook post-commit",
                "It clears the plan once a commit carries it finished.",
            ),
            HookName::Planner => ("", ""),
        }
    }

    /// The marker line of this hook.
    fn marker(self) -> String {
        format!("{MARKER_PREFIX}{}", self.file_name())
    }
}

/// What installing did, said in one line.
#[derive(Debug, PartialEq, Eq)]
enum Done {
    Installed,
    AlreadyInstalled,
    Updated,
    /// Replaced another hook, moved to this path.
    Replaced(String),
}

/// Installs `names` (each, once, in the order git runs them) in the hooks
/// folder of the repository the current folder is in; `force` replaces a
/// hook quire did not write (keeping it). Stops at the first hook it cannot
/// install, having said what it did before.
pub(super) fn install(names: &[HookName], force: bool) -> anyhow::Result<Outcome> {
    let mut hooks: Vec<HookName> = names
        .iter()
        .flat_map(|name| name.hooks())
        .copied()
        .collect();
    hooks.sort();
    hooks.dedup();
    for hook in hooks {
        install_one(hook, force)?;
    }
    Ok(Outcome::Success)
}

/// Installs one hook and says in a line what it did.
fn install_one(hook: HookName, force: bool) -> anyhow::Result<()> {
    let here = std::env::current_dir().context("cannot read the current folder")?;
    let folder = hooks_folder(&here).map_err(|error| match error {
        StoreError::CommandFailed { detail, .. } => anyhow::anyhow!(
            "cannot find the repository's hooks folder: git says: {}; run `quire hook install` inside the git repository whose commits it should check",
            first_line(&detail)
        ),
        error => error.into(),
    })?;
    let binary =
        std::env::current_exe().context("cannot find the path of the running quire binary")?;
    let script = script(hook, &binary);
    let path = folder.join(hook.file_name());
    let shown = shown_path(&path, &here);
    let done = write_hook(&folder, hook, &script, force, &shown)?;
    let backup_shown = |moved: &str| shown_path(&folder.join(moved), &here);
    let line = match done {
        Done::Installed => format!("installed the {} hook: {shown}", hook.file_name()),
        Done::AlreadyInstalled => format!(
            "the {} hook is already installed, unchanged: {shown}",
            hook.file_name()
        ),
        Done::Updated => format!("updated the {} hook quire wrote: {shown}", hook.file_name()),
        Done::Replaced(moved) => format!(
            "installed the {} hook: {shown}; the hook that was there is now {}",
            hook.file_name(),
            backup_shown(&moved)
        ),
    };
    output::stdout(&format!("{line}\n"))?;
    Ok(())
}

/// The hook's text: run the binary at `binary` (or `quire` on `PATH` when
/// it is gone) on the file git passes.
fn script(hook: HookName, binary: &Path) -> Vec<u8> {
    let (command, purpose) = hook.command();
    let mut text = Vec::new();
    text.extend_from_slice(b"#!/bin/sh\n");
    text.extend_from_slice(hook.marker().as_bytes());
    text.extend_from_slice(
        format!(
            "\n# Written by `quire hook install {name}`, which rewrites it when run\n\
             # again. {purpose}\n\
             # The quire that installed it, or else the one on PATH:\n\
             quire=",
            name = hook.file_name()
        )
        .as_bytes(),
    );
    text.extend_from_slice(&shell_quoted(binary.as_os_str()));
    text.extend_from_slice(
        format!("\n[ -x \"$quire\" ] || quire=quire\nexec \"$quire\" {command}\n").as_bytes(),
    );
    text
}

/// `text` in single quotes for `sh`, each `'` in it as `'\''`.
fn shell_quoted(text: &OsStr) -> Vec<u8> {
    let mut quoted = vec![b'\''];
    for &byte in text.as_bytes() {
        if byte == b'\'' {
            quoted.extend_from_slice(b"'\\''");
        } else {
            quoted.push(byte);
        }
    }
    quoted.push(b'\'');
    quoted
}

/// Whether `text` holds `hook`'s marker line.
fn written_by_quire(hook: HookName, text: &[u8]) -> bool {
    let marker = hook.marker();
    text.split(|&byte| byte == b'\n')
        .any(|line| line == marker.as_bytes())
}

/// Writes `script` as `name` in `folder` (made when missing).
fn write_hook(
    folder: &Path,
    hook: HookName,
    script: &[u8],
    force: bool,
    shown: &str,
) -> anyhow::Result<Done> {
    let name = hook.file_name();
    let Some(folder_text) = folder.to_str() else {
        bail!(
            "the hooks folder's path is not valid UTF-8 ({}); quire cannot write there",
            folder.display()
        );
    };
    let workspace = Workspace::filesystem().context("cannot open the file system root")?;
    let hooks = workspace
        .make_folders(folder_text)
        .map_err(|error| in_words(error, "make the hooks folder for", shown))?;
    let entry = hooks
        .open_child(name)
        .map_err(|error| in_words(error, "write", shown))?;
    let refuse = |what: &str| -> anyhow::Error {
        anyhow::anyhow!(
            "{shown} is {what} quire did not write; it was left as it is. \
             Run `quire hook install {name} --force` to replace it (it is then kept in {BACKUP_FOLDER}/ beside it), \
             or run `quire {}` from it yourself",
            hook.command().0
        )
    };
    match entry.kind() {
        None => {
            create(&entry, script, shown)?;
            Ok(Done::Installed)
        }
        Some(FileKind::Regular) => {
            let file = entry
                .open()
                .map_err(|error| in_words(error, "read", shown))?;
            let existing = file
                .read(MAX_HOOK_BYTES)
                .map_err(|error| in_words(error, "read", shown))?;
            if written_by_quire(hook, &existing) {
                let executable = file.stat().mode & 0o100 != 0;
                if existing == script && executable {
                    return Ok(Done::AlreadyInstalled);
                }
                if existing != script {
                    entry
                        .replace(&file, script)
                        .map_err(|error| in_words(error, "rewrite", shown))?;
                }
                if !executable {
                    make_executable(&folder.join(name), file.stat().mode, shown)?;
                }
                return Ok(Done::Updated);
            }
            if !force {
                return Err(refuse("a hook"));
            }
            let moved = back_up(&workspace, &entry, *file.stat(), folder_text, shown)?;
            let fresh = hooks
                .open_child(name)
                .map_err(|error| in_words(error, "write", shown))?;
            create(&fresh, script, shown)?;
            Ok(Done::Replaced(moved))
        }
        Some(FileKind::Symlink) => {
            if !force {
                return Err(refuse("a symbolic link"));
            }
            let link = entry
                .stat()
                .map_err(|error| in_words(error, "read", shown))?;
            let moved = back_up(&workspace, &entry, link, folder_text, shown)?;
            let fresh = hooks
                .open_child(name)
                .map_err(|error| in_words(error, "write", shown))?;
            create(&fresh, script, shown)?;
            Ok(Done::Replaced(moved))
        }
        Some(kind) => bail!(
            "{shown} is {}, not a hook file; quire leaves it alone even with --force. Remove it and run the command again",
            kind.described()
        ),
    }
}

/// Creates the hook, executable.
fn create(entry: &Located, script: &[u8], shown: &str) -> anyhow::Result<()> {
    entry
        .create(script, 0o755)
        .map_err(|error| in_words(error, "write", shown))
}

/// Moves the hook (a file, or a link itself) into [`BACKUP_FOLDER`] beside
/// it and returns its new path relative to the hooks folder.
fn back_up(
    workspace: &Workspace,
    entry: &Located,
    expected: quire_fs::FileStat,
    folder: &str,
    shown: &str,
) -> anyhow::Result<String> {
    let backups = workspace
        .make_folders(&format!("{}/{BACKUP_FOLDER}", folder.trim_end_matches('/')))
        .map_err(|error| in_words(error, "make the backup folder for", shown))?;
    let moved = entry
        .move_into(&expected, &backups)
        .map_err(|error| in_words(error, "move aside", shown))?;
    let name = Path::new(&moved)
        .file_name()
        .map_or_else(|| moved.clone(), |name| name.to_string_lossy().into_owned());
    Ok(format!("{BACKUP_FOLDER}/{name}"))
}

/// Gives the hook execute permission wherever it has read permission (a
/// hook quire wrote that lost it; git skips a hook it cannot execute).
fn make_executable(path: &Path, mode: u32, shown: &str) -> anyhow::Result<()> {
    let mode = mode & 0o7777;
    let executable = mode | ((mode & 0o444) >> 2);
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(executable)).map_err(|error| {
        anyhow::anyhow!(
            "cannot make {shown} executable: {}",
            output::io_words(&error)
        )
    })
}

/// A file-layer error about the hook, in the CLI's words.
fn in_words(error: FsError, doing: &str, shown: &str) -> anyhow::Error {
    match error {
        FsError::FolderNotWritable { .. } | FsError::NotWritable { .. } => anyhow::anyhow!(
            "cannot {doing} {shown}: its folder is not writable for this user; make it writable (chmod u+w) or run as its owner"
        ),
        FsError::Io {
            kind: IoKind::PermissionDenied,
            reason,
            ..
        } => anyhow::anyhow!(
            "cannot {doing} {shown}: {reason}; the hooks folder (or the folder it is to be made in) is not writable for this user: make it writable, or run as its owner"
        ),
        FsError::Io { reason, .. } => anyhow::anyhow!("cannot {doing} {shown}: {reason}"),
        error => anyhow::Error::from(error).context(format!("cannot {doing} {shown}")),
    }
}

/// `path` as the user would type it from `here`: relative when inside it.
fn shown_path(path: &Path, here: &Path) -> String {
    let here = here.canonicalize().unwrap_or_else(|_| here.to_path_buf());
    let relative: Option<PathBuf> = path
        .strip_prefix(&here)
        .ok()
        .map(Path::to_path_buf)
        .or_else(|| {
            let real = path.parent()?.canonicalize().ok()?;
            Some(
                real.join(path.file_name()?)
                    .strip_prefix(&here)
                    .ok()?
                    .to_path_buf(),
            )
        });
    let shown = relative.unwrap_or_else(|| path.to_path_buf());
    quire_grammar::diagnostics::one_line(&shown.to_string_lossy()).into_owned()
}

/// The first line of git's message, without `fatal: `.
fn first_line(detail: &str) -> &str {
    let line = detail
        .lines()
        .map(str::trim)
        .find(|line| !line.is_empty())
        .unwrap_or("it failed");
    line.strip_prefix("fatal: ").unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_script_runs_the_installing_binary_or_the_one_on_path() {
        let text = script(HookName::CommitMsg, Path::new("/opt/it's here/quire"));
        let text = String::from_utf8(text).unwrap();
        assert!(
            text.starts_with("#!/bin/sh\n# quire-hook: commit-msg\n"),
            "{text}"
        );
        assert!(
            text.contains("\nquire='/opt/it'\\''s here/quire'\n"),
            "{text}"
        );
        assert!(
            text.ends_with("exec \"$quire\" check --git-message \"$1\"\n"),
            "{text}"
        );
        assert!(written_by_quire(HookName::CommitMsg, text.as_bytes()));
        assert!(!written_by_quire(HookName::PostCommit, text.as_bytes()));
        let planner = script(HookName::PrepareCommitMsg, Path::new("/usr/bin/quire"));
        let planner = String::from_utf8(planner).unwrap();
        assert!(planner.starts_with("#!/bin/sh\n# quire-hook: prepare-commit-msg\n"));
        assert!(planner.ends_with("exec \"$quire\" hook prepare-commit-msg \"$@\"\n"));
        let post = String::from_utf8(script(HookName::PostCommit, Path::new("/q"))).unwrap();
        assert!(
            post.ends_with("exec \"$quire\" hook post-commit\n"),
            "{post}"
        );
    }

    #[test]
    fn planner_names_the_three_hooks_in_the_order_git_runs_them() {
        assert_eq!(
            HookName::Planner.hooks(),
            [
                HookName::PrepareCommitMsg,
                HookName::CommitMsg,
                HookName::PostCommit
            ]
        );
    }

    #[test]
    fn only_the_exact_marker_line_marks_a_hook_as_quires() {
        let ours = |text: &[u8]| written_by_quire(HookName::CommitMsg, text);
        assert!(!ours(b"#!/bin/sh\nexec quire check --git-message \"$1\"\n"));
        assert!(!ours(b"#!/bin/sh\n# quire-hook: commit-msg and more\n"));
        assert!(ours(b"#!/bin/sh\n# quire-hook: commit-msg\n"));
    }

    #[test]
    fn git_messages_lose_their_prefix() {
        assert_eq!(
            first_line("fatal: not a git repository (or any of the parent directories): .git\n"),
            "not a git repository (or any of the parent directories): .git"
        );
    }
}
