//! `quire check --range` and `--from` over the history of real, temporary
//! git repositories: good, bad, merge, empty and non-UTF-8 messages; empty
//! and bad ranges; outside a repository; `--json`.
//!
//! The messages are bad (or good) under both the plan grammar and
//! Conventional Commits, so the tests hold whichever rules the verdict
//! function applies.

use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

#[path = "support/git_cli.rs"]
mod git_cli;

use git_cli::{code, empty_repository, git, git_command, git_output, quire, stderr};

/// A message invalid under every rule set quire has.
const BAD: &str = "bad message without type";
/// A message valid under every rule set quire has.
const GOOD: &str = "feat: add x";

/// Commits `message` on top of HEAD with `git commit-tree`; `encoding`
/// is the commit's `encoding` header (`i18n.commitEncoding`). commit-tree
/// reads bytes that are not UTF-8 in a UTF-8 commit as Latin-1.
fn commit_tree(repo: &Path, message: &[u8], encoding: &str) -> String {
    let mut command = git_command(repo);
    command.args(["-c", &format!("i18n.commitEncoding={encoding}")]);
    command.args(["commit-tree", "HEAD^{tree}", "-p", "HEAD"]);
    let id = with_input(command, message);
    git(repo, &["update-ref", "HEAD", &id]);
    id
}

/// Writes a commit object whose message is `message` byte for byte (git
/// stores anything `hash-object` is given), on top of HEAD.
fn commit_raw(repo: &Path, message: &[u8]) -> String {
    let tree = git(repo, &["rev-parse", "HEAD^{tree}"]);
    let parent = git(repo, &["rev-parse", "HEAD"]);
    let mut object = format!(
        "tree {tree}\nparent {parent}\nauthor Test <test@example.com> 0 +0000\ncommitter Test <test@example.com> 0 +0000\n\n"
    )
    .into_bytes();
    object.extend_from_slice(message);
    let mut command = git_command(repo);
    command.args(["hash-object", "-t", "commit", "-w", "--stdin"]);
    let id = with_input(command, &object);
    git(repo, &["update-ref", "HEAD", &id]);
    id
}

/// Runs `command` with `input` on its stdin; its stdout, trimmed.
fn with_input(mut command: Command, input: &[u8]) -> String {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap().trim().to_owned()
}

fn commit(repo: &Path, message: &str) {
    git(repo, &["commit", "-q", "--allow-empty", "-m", message]);
}

/// A repository with a good root commit.
fn repository() -> tempfile::TempDir {
    let folder = empty_repository();
    commit(folder.path(), GOOD);
    folder
}

fn json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "{error}: {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            stderr(output)
        )
    })
}

/// A history of main: good root, a topic branch merged with a merge
/// commit, a bad commit, a fixup, and a good commit on top.
fn mixed_history(repo: &Path) -> String {
    git(repo, &["checkout", "-q", "-b", "topic"]);
    commit(repo, "fix: topic work");
    git(repo, &["checkout", "-q", "main"]);
    commit(repo, "docs: explain");
    git(
        repo,
        &[
            "merge",
            "-q",
            "--no-ff",
            "-m",
            "Merge branch 'topic'",
            "topic",
        ],
    );
    commit(repo, BAD);
    let bad = git(repo, &["rev-parse", "--short", "HEAD"]);
    commit(repo, "fixup! docs: explain");
    commit(repo, GOOD);
    bad
}

#[test]
fn every_commit_of_the_range_is_checked_and_failures_reported() {
    let repo = repository();
    let bad = mixed_history(repo.path());
    let output = quire(repo.path(), &["check", "--range", "HEAD"]);
    let err = stderr(&output);
    assert_eq!(code(&output), 1, "{err}");
    assert!(output.stdout.is_empty());
    // One report, headed by the bad commit's short id and header.
    assert!(err.contains(&format!("✗ {bad} {BAD}\n")), "{err}");
    assert_eq!(err.matches("✗ ").count(), 1, "{err}");
    assert!(
        err.contains(&format!("[{bad}:1:")),
        "the report names the commit: {err}"
    );
    // root, topic work, docs, merge, bad, fixup, good: the merge and the
    // fixup are ignored.
    assert!(
        err.ends_with("checked 7 commits: 1 invalid, 2 ignored\n"),
        "{err}"
    );
}

#[test]
fn from_checks_the_commits_after_a_revision() {
    let repo = repository();
    let bad = mixed_history(repo.path());
    // After the bad commit: the fixup and the good one.
    let output = quire(repo.path(), &["check", "--from", &bad]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(stderr(&output), "checked 2 commits: 0 invalid, 1 ignored\n");
    // `--from REV` is `--range REV..HEAD`.
    let before = format!("{bad}~1");
    let from = quire(repo.path(), &["check", "--from", &before]);
    let range = quire(
        repo.path(),
        &["check", "--range", &format!("{before}..HEAD")],
    );
    assert_eq!(code(&from), 1);
    assert_eq!(stderr(&from), stderr(&range));
}

#[test]
fn an_empty_range_passes() {
    let repo = repository();
    let output = quire(repo.path(), &["check", "--range", "HEAD..HEAD"]);
    assert_eq!(code(&output), 0);
    assert_eq!(stderr(&output), "checked 0 commits: 0 invalid, 0 ignored\n");
    let json = json(&quire(
        repo.path(),
        &["check", "--range", "HEAD..HEAD", "--json"],
    ));
    assert_eq!(json["commits"], serde_json::json!([]));
    assert_eq!(json["summary"]["checked"], 0);
}

#[test]
fn a_bad_range_is_a_usage_error_in_one_line() {
    let repo = repository();
    for range in ["nosuch..HEAD", "--output=pwned"] {
        let output = quire(repo.path(), &["check", &format!("--range={range}")]);
        let err = stderr(&output);
        assert_eq!(code(&output), 2, "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with(&format!(
                "error: cannot read the commits of `{range}`: git says: "
            )),
            "{err}"
        );
        assert!(err.contains("bad revision"), "{err}");
        let json = quire(
            repo.path(),
            &["check", &format!("--range={range}"), "--json"],
        );
        assert_eq!(code(&json), 2);
        assert!(json.stdout.is_empty(), "no half-written JSON");
    }
    // A range that starts with `-` is a revision, never an option of git's.
    assert!(!repo.path().join("pwned").exists());
}

#[test]
fn outside_a_repository_is_a_usage_error() {
    let folder = tempfile::tempdir().unwrap();
    let output = quire(folder.path(), &["check", "--from", "main"]);
    let err = stderr(&output);
    assert_eq!(code(&output), 2, "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("not a git repository"), "{err}");
}

#[test]
fn a_range_and_a_file_or_two_ranges_are_refused() {
    let repo = repository();
    for args in [
        &["check", "--range", "HEAD", "message.txt"][..],
        &["check", "--range", "HEAD", "--from", "main"],
        &["check", "--from", "main", "--git-message", "message.txt"],
    ] {
        let output = quire(repo.path(), args);
        assert_eq!(code(&output), 2, "{args:?}");
        assert!(
            stderr(&output).contains("cannot be used with"),
            "{}",
            stderr(&output)
        );
    }
}

#[test]
fn json_holds_every_commit_and_a_summary() {
    let repo = repository();
    let bad = mixed_history(repo.path());
    let output = quire(repo.path(), &["check", "--range", "HEAD", "--json"]);
    assert_eq!(code(&output), 1);
    assert!(output.stderr.is_empty(), "{}", stderr(&output));
    let text = String::from_utf8(output.stdout.clone()).unwrap();
    // Streamed: one commit a line between the opening and the summary.
    assert_eq!(text.lines().count(), 7 + 2, "{text}");
    let json = json(&output);
    let commits = json["commits"].as_array().unwrap();
    assert_eq!(commits.len(), 7);
    let ids = git(repo.path(), &["log", "--format=%H"]);
    let listed: Vec<&str> = commits.iter().map(|c| c["id"].as_str().unwrap()).collect();
    assert_eq!(
        listed,
        ids.lines().collect::<Vec<_>>(),
        "newest first, as git log"
    );
    let bad_commit = commits
        .iter()
        .find(|c| c["short_id"] == bad.as_str())
        .unwrap();
    assert_eq!(bad_commit["valid"], false);
    assert_eq!(bad_commit["ignored"], false);
    assert!(!bad_commit["diagnostics"].as_array().unwrap().is_empty());
    assert_eq!(bad_commit["diagnostics"][0]["severity"], "error");
    let merge_id = git(repo.path(), &["log", "--merges", "--format=%H"]);
    let merge = commits
        .iter()
        .find(|c| c["id"] == merge_id.as_str())
        .unwrap();
    assert_eq!(
        (&merge["valid"], &merge["ignored"]),
        (&Value::Bool(true), &Value::Bool(true))
    );
    let head = git(repo.path(), &["rev-parse", "HEAD"]);
    let good = commits.iter().find(|c| c["id"] == head.as_str()).unwrap();
    assert_eq!(good["valid"], true);
    assert_eq!(good["commit"]["type"], "feat");
    assert_eq!(
        json["summary"],
        serde_json::json!({"checked": 7, "invalid": 1, "ignored": 2})
    );
}

#[test]
fn an_empty_message_is_invalid() {
    let repo = repository();
    git(
        repo.path(),
        &[
            "commit",
            "-q",
            "--allow-empty",
            "--allow-empty-message",
            "-m",
            "",
        ],
    );
    let short = git(repo.path(), &["rev-parse", "--short", "HEAD"]);
    let output = quire(repo.path(), &["check", "--range", "HEAD~1..HEAD"]);
    let err = stderr(&output);
    assert_eq!(code(&output), 1, "{err}");
    assert!(
        err.contains(&format!("✗ {short} (empty message)\n")),
        "{err}"
    );
    assert!(
        err.ends_with("checked 1 commit: 1 invalid, 0 ignored\n"),
        "{err}"
    );
}

#[test]
fn messages_in_another_encoding_are_read_as_git_re_encodes_them() {
    let repo = repository();
    // Latin-1 bytes with an `encoding ISO-8859-1` header: git log prints
    // them as UTF-8, and the message is good.
    commit_tree(repo.path(), b"feat: caf\xe9 au lait\n", "ISO-8859-1");
    let output = quire(repo.path(), &["check", "--range", "HEAD~1..HEAD", "--json"]);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let json = json(&output);
    let commit = &json["commits"][0];
    assert_eq!(commit["valid"], true, "{commit}");
    assert_eq!(commit.get("invalid_utf8"), None);
    assert_eq!(commit["commit"]["type"], "feat");
}

#[test]
fn bytes_that_are_not_utf8_are_replaced_and_said() {
    let repo = repository();
    // Latin-1 bytes with no encoding header, stored as they are.
    commit_raw(repo.path(), b"bad caf\xe9 message without type\n");
    let short = git(repo.path(), &["rev-parse", "--short", "HEAD"]);
    let output = quire(repo.path(), &["check", "--range", "HEAD~1..HEAD"]);
    let err = stderr(&output);
    assert_eq!(code(&output), 1, "{err}");
    assert!(
        err.contains(&format!(
            "✗ {short} bad caf\u{FFFD} message without type (its message is not UTF-8"
        )),
        "{err}"
    );
    let json = json(&quire(
        repo.path(),
        &["check", "--range", "HEAD~1..HEAD", "--json"],
    ));
    assert_eq!(json["commits"][0]["invalid_utf8"], true);
    assert_eq!(json["commits"][0]["valid"], false);
}

#[test]
fn no_program_the_repository_names_runs() {
    let repo = repository();
    // A signed commit, and a configuration that has `git log` verify
    // signatures with a program of the repository's choosing.
    let tree = git(repo.path(), &["rev-parse", "HEAD^{tree}"]);
    let parent = git(repo.path(), &["rev-parse", "HEAD"]);
    let object = format!(
        "tree {tree}\nparent {parent}\nauthor Test <test@example.com> 0 +0000\ncommitter Test <test@example.com> 0 +0000\n\
         gpgsig -----BEGIN PGP SIGNATURE-----\n \n iQEzBAABCAAdFiEE\n -----END PGP SIGNATURE-----\n\n{BAD}\n"
    );
    let mut command = git_command(repo.path());
    command.args(["hash-object", "-t", "commit", "-w", "--stdin"]);
    let id = with_input(command, object.as_bytes());
    git(repo.path(), &["update-ref", "HEAD", &id]);
    let marker = repo.path().join("ran");
    let script = repo.path().join("run.sh");
    fs::write(
        &script,
        format!("#!/bin/sh\ntouch '{}'\n", marker.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    let script = script.to_str().unwrap();
    for (key, value) in [
        ("log.showSignature", "true"),
        ("gpg.program", script),
        ("core.fsmonitor", script),
        ("core.pager", script),
    ] {
        git(repo.path(), &["config", key, value]);
    }
    let output = quire(repo.path(), &["check", "--range", "HEAD"]);
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    assert!(!marker.exists(), "a program named by the repository ran");
    // The same `git log` without quire's settings runs it.
    git(repo.path(), &["log", "-z", "--format=%B", "HEAD"]);
    assert!(marker.exists(), "the test's configuration runs nothing");
}

/// A script in `folder` that creates `folder/ran` when it runs; its path.
fn tripwire(folder: &Path) -> String {
    let script = folder.join("tripwire.sh");
    fs::write(
        &script,
        format!(
            "#!/bin/sh\ntouch '{}'\nexit 1\n",
            folder.join("ran").display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    script.to_str().unwrap().to_owned()
}

#[test]
fn a_partial_clone_missing_its_commits_fetches_nothing() {
    // A partial clone whose `main` names a commit it does not have: git
    // fetches a missing object from the promisor remote when a command
    // needs it, running the remote's `uploadpack` program to do so.
    let source = repository();
    let tip = git(source.path(), &["rev-parse", "HEAD"]);
    let outside = tempfile::tempdir().unwrap();
    let script = tripwire(outside.path());
    let marker = outside.path().join("ran");
    let clone = empty_repository();
    for (key, value) in [
        ("core.repositoryformatversion", "1"),
        ("extensions.partialClone", "origin"),
        ("remote.origin.promisor", "true"),
        ("remote.origin.url", source.path().to_str().unwrap()),
        ("remote.origin.uploadpack", &script),
    ] {
        git(clone.path(), &["config", key, value]);
    }
    fs::write(clone.path().join(".git/refs/heads/main"), &tip).unwrap();

    for range in ["main", "main~1..main"] {
        let output = quire(clone.path(), &["check", "--range", range]);
        let err = stderr(&output);
        assert!(!marker.exists(), "`check --range {range}` fetched: {err}");
        assert_eq!(code(&output), 2, "{err}");
        assert!(
            err.starts_with(&format!(
                "error: cannot read the commits of `{range}`: git says: "
            )),
            "{err}"
        );
        assert!(
            err.contains("partial clone") && err.contains("`git fetch`"),
            "{err}"
        );
    }
    // The same `git log` without quire's settings runs the program.
    git_output(clone.path(), &["log", "main"]);
    assert!(marker.exists(), "the test's repository fetches nothing");
}

#[test]
fn a_huge_message_is_cut_and_said_to_be() {
    let repo = repository();
    // 5 MiB of message, more than quire keeps of one commit (4 MiB).
    let mut message = b"feat: add x\n\n".to_vec();
    message.extend(std::iter::repeat_n(b"word ".as_slice(), 1024 * 1024).flatten());
    message.push(b'\n');
    commit_raw(repo.path(), &message);
    commit(repo.path(), GOOD);
    let output = quire(repo.path(), &["check", "--range", "HEAD~2..HEAD", "--json"]);
    let json = json(&output);
    let commits = json["commits"].as_array().unwrap();
    assert_eq!(commits.len(), 2, "the commit after it is read as usual");
    assert_eq!(commits[0].get("cut"), None);
    assert_eq!(commits[1]["cut"], true);
    let text = quire(repo.path(), &["check", "--range", "HEAD~2..HEAD"]);
    let err = stderr(&text);
    if code(&text) == 1 {
        assert!(
            err.contains("longer than 4 MiB: only its start was checked"),
            "{err}"
        );
    }
    assert!(err.contains("\nchecked 2 commits: "), "{err}");
}
