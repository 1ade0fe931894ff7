//! The `quire` binary end to end: exit codes, output shapes, and the
//! commit-msg hook inside a real git repository.

use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn quire(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_quire"))
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("quire runs");
    // A command that fails before reading stdin closes it: that is fine.
    let written = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    if let Err(error) = written {
        assert_eq!(error.kind(), std::io::ErrorKind::BrokenPipe, "{error}");
    }
    child.wait_with_output().unwrap()
}

fn code(output: &Output) -> i32 {
    output.status.code().expect("exited normally")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

const PLAN: &str = "feat(parser): Add nesting\n\nNested tasks.\n\n- Never: break parsing\n\n- [x]: Parse\n  - [ ]: Nest\n\nContinue with tests\n";

#[test]
fn parse_exit_codes_are_0_parsed_1_halted_2_usage() {
    assert_eq!(code(&quire(&["parse"], PLAN)), 0);
    assert_eq!(code(&quire(&["parse", "-"], "feat: x\nno blank line")), 1);
    assert_eq!(code(&quire(&["parse", "/nonexistent/plan.txt"], "")), 2);
    assert_eq!(code(&quire(&["parse", "--preset", "nope"], PLAN)), 2);
    let not_utf8 = quire(&["parse"], "");
    assert_eq!(code(&not_utf8), 0, "empty input parses");
}

#[test]
fn parse_json_is_the_conformance_shape_plus_located_diagnostics() {
    let output = quire(
        &["parse", "--json"],
        "fix(io): Retry\n\nFlaky.\n- Never: Retry forever\n- [ ]: Add retry\n",
    );
    assert_eq!(code(&output), 0);
    let value: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(value["state"], "parsed");
    assert_eq!(
        value["header"],
        serde_json::json!({"type": "fix", "scope": "io", "title": "Retry", "breaking": false})
    );
    assert_eq!(value["constraints"], serde_json::json!([]));
    assert_eq!(
        value["tasks"],
        serde_json::json!([[false, "Add retry", []]])
    );
    let diagnostic = &value["diagnostics"][0];
    assert_eq!(diagnostic["code"], "plan::constraint_ignored");
    assert_eq!(diagnostic["severity"], "warning");
    assert_eq!(
        (diagnostic["offset"].as_u64(), diagnostic["length"].as_u64()),
        (Some(23), Some(22))
    );
    assert_eq!(
        (diagnostic["line"].as_u64(), diagnostic["column"].as_u64()),
        (Some(4), Some(1))
    );
    assert!(diagnostic["help"].as_str().unwrap().contains("lowercase"));
}

#[test]
fn parse_reads_files_and_reports_non_utf8_input() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("plan.txt");
    fs::write(&path, PLAN).unwrap();
    let output = quire(&["parse", path.to_str().unwrap()], "");
    assert_eq!(code(&output), 0);
    assert!(
        stdout(&output).contains("tasks        2 (1 done)"),
        "{}",
        stdout(&output)
    );
    fs::write(&path, b"feat: \xff").unwrap();
    let output = quire(&["parse", path.to_str().unwrap()], "");
    assert_eq!(code(&output), 2);
    assert!(stderr(&output).contains("not UTF-8"), "{}", stderr(&output));
}

#[test]
fn check_reports_with_codes_and_help() {
    assert_eq!(code(&quire(&["check"], PLAN)), 0);
    let output = quire(&["check"], "feature(Core): Add it\n");
    assert_eq!(code(&output), 1);
    let report = stderr(&output);
    for expected in [
        "plan::unknown_type",
        "plan::invalid_scope",
        "plan::scope_case",
        "use one of: feat, fix",
    ] {
        assert!(
            report.contains(expected),
            "{expected:?} missing from:\n{report}"
        );
    }
    // Warnings alone do not fail the check.
    let output = quire(&["check"], "fix: Title without scope\n");
    assert_eq!(code(&output), 0);
    assert!(stderr(&output).contains("plan::title_ignored"));
}

#[test]
fn fmt_prints_checks_and_writes() {
    let messy = "feat(parser): Add nesting\n\nNested tasks.\n- Never: break parsing\n- [x]: Parse\n    - [ ]: Nest\nContinue with tests";
    let output = quire(&["fmt"], messy);
    assert_eq!((code(&output), stdout(&output)), (0, PLAN.to_owned()));
    assert_eq!(code(&quire(&["fmt", "--check"], PLAN)), 0);
    let output = quire(&["fmt", "--check"], messy);
    assert_eq!(code(&output), 1);
    assert!(stderr(&output).contains("not formatted"));

    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("plan.txt");
    fs::write(&path, messy).unwrap();
    assert_eq!(
        code(&quire(&["fmt", "--write", path.to_str().unwrap()], "")),
        0
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), PLAN);
    assert_eq!(
        code(&quire(&["fmt", "--write"], messy)),
        2,
        "--write needs a file"
    );
}

#[test]
fn fmt_refuses_to_lose_text() {
    let halted = quire(&["fmt"], "feat: x\nno blank line");
    assert_eq!(code(&halted), 1);
    assert!(stdout(&halted).is_empty());
    let dropping = quire(&["fmt"], "feat(a): b\n\nd\n- Never: Loud value\n- [ ]: t\n");
    assert_eq!(code(&dropping), 1);
    assert!(
        stderr(&dropping).contains("would drop"),
        "{}",
        stderr(&dropping)
    );
}

#[test]
fn presets_select_the_syntax() {
    let output = quire(
        &["parse", "--json", "--preset", "markdown-tasks"],
        "# Ship it\n\nWhy.\n- [x] Build\n",
    );
    assert_eq!(code(&output), 0);
    let value: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(value["tasks"], serde_json::json!([[true, "Build", []]]));
    let strict = quire(
        &["parse", "--preset", "strict"],
        &format!("feat(a): {}\n", "t".repeat(51)),
    );
    assert_eq!(code(&strict), 1);
}

fn git(repo: &Path, args: &[&str]) -> Output {
    Command::new("git")
        .args(args)
        .current_dir(repo)
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", repo)
        .output()
        .expect("git runs")
}

#[test]
fn commit_msg_hook_rejects_bad_messages_in_a_real_repository() {
    let repo = tempfile::tempdir().unwrap();
    let root = repo.path();
    assert!(git(root, &["init", "-q"]).status.success());
    let hook = root.join(".git/hooks/commit-msg");
    fs::write(
        &hook,
        format!(
            "#!/bin/sh\nexec '{}' check --git-message \"$1\"\n",
            env!("CARGO_BIN_EXE_quire")
        ),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&hook, fs::Permissions::from_mode(0o755)).unwrap();
    }
    fs::write(root.join("a.txt"), "a").unwrap();
    git(root, &["add", "a.txt"]);

    let rejected = git(root, &["commit", "-q", "-m", "Added a file"]);
    assert!(!rejected.status.success());
    assert!(String::from_utf8_lossy(&rejected.stderr).contains("plan::invalid_header"));

    let message = "feat(repo): Add a file\n\nThe first file.\n# a comment git strips\n";
    let accepted = git(root, &["commit", "-q", "--cleanup=strip", "-m", message]);
    assert!(
        accepted.status.success(),
        "{}",
        String::from_utf8_lossy(&accepted.stderr)
    );
    let log = git(root, &["log", "-1", "--format=%B"]);
    assert_eq!(
        String::from_utf8_lossy(&log.stdout).trim_end(),
        "feat(repo): Add a file\n\nThe first file."
    );
}

fn vault_copy() -> tempfile::TempDir {
    let folder = tempfile::tempdir().unwrap();
    let trackers = folder.path().join("trackers");
    fs::create_dir(&trackers).unwrap();
    fs::write(
        trackers.join("acme.md"),
        "---\ncompany: Acme\nstatus: Resume Written\n---\n# Acme\n",
    )
    .unwrap();
    folder
}

#[test]
fn call_runs_one_tool_and_exits_by_outcome() {
    let vault = vault_copy();
    let root = vault.path().to_str().unwrap();
    let args =
        r#"{"tracker_path": "trackers/acme.md", "target_status": "Applied", "dry_run": true}"#;
    let output = quire(&["call", "update_tracker_status", args, "--root", root], "");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let value: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(value["action"], "would_update");

    // Arguments from stdin; a tool error exits 1 with the error object.
    let output = quire(
        &["call", "update_tracker_status", "-", "--root", root],
        r#"{"tracker_path": "trackers/missing.md", "target_status": "Applied"}"#,
    );
    assert_eq!(code(&output), 1);
    let value: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(value["error"]["code"], "FILE_NOT_FOUND");
    assert!(
        !stdout(&output).contains(root),
        "no absolute path in errors"
    );

    // Unknown tool, bad JSON, unknown toolset, bad root: usage errors.
    assert_eq!(
        code(&quire(&["call", "no_such_tool", "{}", "--root", root], "")),
        2
    );
    assert_eq!(
        code(&quire(
            &["call", "update_tracker_status", "[1]", "--root", root],
            ""
        )),
        2
    );
    assert_eq!(
        code(&quire(
            &["call", "update_tracker_status", "{", "--root", root],
            ""
        )),
        2
    );
    let output = quire(
        &[
            "call",
            "update_tracker_status",
            "{}",
            "--tools",
            "kiln",
            "--root",
            root,
        ],
        "",
    );
    assert_eq!(code(&output), 2);
    assert!(stderr(&output).contains("unknown toolset"));
    assert_eq!(
        code(&quire(
            &[
                "call",
                "update_tracker_status",
                "{}",
                "--root",
                "/nonexistent/vault"
            ],
            ""
        )),
        2
    );
}

#[test]
fn serve_refuses_non_loopback_http_addresses() {
    let vault = vault_copy();
    let output = quire(
        &[
            "serve",
            "--root",
            vault.path().to_str().unwrap(),
            "--http",
            "0.0.0.0:9",
        ],
        "",
    );
    assert_eq!(code(&output), 2);
    assert!(stderr(&output).contains("loopback"));
}
