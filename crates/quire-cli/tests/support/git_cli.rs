//! Running git and the `quire` binary from a test, for the tests of the
//! commands that work on a git repository (`check --range`, `hook
//! install`): git isolated from the machine's configuration, quire run
//! the same way, and the parts of their output the tests read.
#![allow(dead_code)] // each test file uses its own share

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// git in `repo`, isolated from the machine's configuration (no global or
/// system config, a fixed identity, `HOME` in the repository).
pub(crate) fn git_command(repo: &Path) -> Command {
    let mut command = Command::new("git");
    command
        .current_dir(repo)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .env("HOME", repo)
        .env("NO_COLOR", "1");
    command
}

/// Runs git, whatever its exit status.
pub(crate) fn git_output(repo: &Path, args: &[&str]) -> Output {
    git_command(repo).args(args).output().expect("git runs")
}

/// Runs git and returns its stdout (trimmed), failing the test when git
/// fails.
pub(crate) fn git(repo: &Path, args: &[&str]) -> String {
    let output = git_output(repo, args);
    assert!(
        output.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap().trim().to_owned()
}

/// An empty repository whose branch is `main`.
pub(crate) fn empty_repository() -> tempfile::TempDir {
    let folder = tempfile::tempdir().unwrap();
    git(folder.path(), &["init", "-q", "-b", "main"]);
    folder
}

/// The binary under test: Cargo's build of this package, or `QUIRE_BIN`
/// (a build of its own when several checkouts share one target folder).
pub(crate) fn quire_bin() -> PathBuf {
    std::env::var_os("QUIRE_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_quire")))
}

/// quire in `folder` with `args`, without colour, the machine's git
/// configuration or a standard input.
pub(crate) fn quire_command(folder: &Path, args: &[&str]) -> Command {
    command_of(&quire_bin(), folder, args)
}

/// [`quire_command`] for another user: it runs a hard link (or, across file
/// systems, a copy) of the binary placed in `folder`, because the build's
/// own folder may be private to this user (a checkout in `mktemp -d`).
/// `folder` must be reachable by that user.
#[allow(
    dead_code,
    reason = "not every test that includes this runs as another user"
)]
pub(crate) fn quire_command_for_another_user(folder: &Path, args: &[&str]) -> Command {
    use std::os::unix::fs::PermissionsExt;
    let binary = folder.join("quire");
    if std::fs::hard_link(quire_bin(), &binary).is_err() {
        std::fs::copy(quire_bin(), &binary).unwrap();
    }
    std::fs::set_permissions(&binary, std::fs::Permissions::from_mode(0o755)).unwrap();
    command_of(&binary, folder, args)
}

fn command_of(binary: &Path, folder: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(binary);
    command
        .args(args)
        .current_dir(folder)
        .env("NO_COLOR", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdin(Stdio::null());
    command
}

/// Runs quire as [`quire_command`] sets it up.
pub(crate) fn quire(folder: &Path, args: &[&str]) -> Output {
    quire_command(folder, args).output().expect("quire runs")
}

/// The exit code of a process that exited.
pub(crate) fn code(output: &Output) -> i32 {
    output.status.code().expect("exited normally")
}

/// Standard output, as UTF-8.
pub(crate) fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

/// Standard error, as UTF-8.
pub(crate) fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}
