//! The `quire` binary end to end: exit codes, output shapes, and the
//! commit-msg hook inside a real git repository.

use std::fs;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn quire(args: &[&str], stdin: &str) -> Output {
    quire_bytes(args, stdin.as_bytes())
}

fn quire_bytes(args: &[&str], stdin: &[u8]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_quire"));
    command
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // A session of its own, without the controlling terminal of whoever
    // runs the tests: `quire call --writes ask` would ask on it.
    // SAFETY: setsid is async-signal-safe; nothing else runs in the child.
    unsafe {
        command.pre_exec(|| {
            let _ = rustix::process::setsid();
            Ok(())
        });
    }
    let mut child = command.spawn().expect("quire runs");
    // A command that fails before reading stdin closes it: that is fine.
    let written = child.stdin.take().unwrap().write_all(stdin);
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

/// Fails naming the first of `expected` that `text` does not contain.
fn assert_contains_all(text: &str, expected: &[&str]) {
    for part in expected {
        assert!(text.contains(part), "{part:?} missing from:\n{text}");
    }
}

const PLAN: &str = "feat(parser): Add nesting\n\nNested tasks.\n\n- Never: break parsing\n\n- [x]: Parse\n  - [ ]: Nest\n\nContinue with tests\n";

#[test]
fn parse_exit_codes_are_0_parsed_1_halted_2_usage() {
    assert_eq!(code(&quire(&["parse"], PLAN)), 0);
    assert_eq!(code(&quire(&["parse", "-"], "feat: x\nno blank line")), 1);
    assert_eq!(code(&quire(&["parse", "/nonexistent/plan.txt"], "")), 2);
    assert_eq!(code(&quire(&["parse", "--preset", "nope"], PLAN)), 2);
    assert_eq!(code(&quire(&["parse"], "")), 0, "empty input parses");
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
    assert!(!diagnostic["label"].as_str().unwrap().is_empty());
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
    let output = quire(&["check", "--preset", "plan"], "feature(Core): Add it\n");
    assert_eq!(code(&output), 1);
    // One mistake, one finding: the uppercase scope is not also a warning.
    assert!(
        !stderr(&output).contains("scope_case"),
        "{}",
        stderr(&output)
    );
    assert_contains_all(
        &stderr(&output),
        &[
            "plan::unknown_type",
            "plan::invalid_scope",
            "write `core`",
            "use one of: feat, fix",
        ],
    );
    // Warnings alone do not fail the check.
    let output = quire(&["check", "--preset", "plan"], "fix: Title without scope\n");
    assert_eq!(code(&output), 0);
    assert!(stderr(&output).contains("plan::title_ignored"));
}

/// Issue 27: `quire check` on standard input judges as the hook does (one
/// command, one verdict) and says which rules judged a failing text; the
/// hook's failure says the commit was aborted, where the message is kept
/// and how to bypass once; an untyped squash title is told about `ignores`.
#[test]
fn check_gives_the_hooks_verdict_and_says_which_rules_judged() {
    let folder = tempfile::tempdir().unwrap();
    let message_file = folder.path().join("COMMIT_EDITMSG");
    for text in ["ci: add a runner\n", "feat(greet): Add a farewell\n", PLAN] {
        let piped = code(&quire(&["check"], text));
        fs::write(&message_file, text).unwrap();
        let hooked = code(&quire(
            &["check", "--git-message", message_file.to_str().unwrap()],
            "",
        ));
        assert_eq!(piped, hooked, "{text}");
    }
    assert_eq!(code(&quire(&["check"], "ci: add a runner\n")), 0);
    let output = quire(&["check"], "feat(greet): Add a farewell\n");
    assert_eq!(code(&output), 1);
    assert_contains_all(
        &stderr(&output),
        &[
            "commit::subject-case",
            "judged by the Conventional Commits rules",
            "`--preset plan`",
        ],
    );
    assert!(!stderr(&output).contains("aborted"));
    fs::write(&message_file, "Add the parser (#12)\n").unwrap();
    let output = quire(
        &["check", "--git-message", message_file.to_str().unwrap()],
        "",
    );
    assert_eq!(code(&output), 1);
    assert_contains_all(
        &stderr(&output),
        &[
            "squash-merge title",
            "ignores = [\"* (#*)\"]",
            "the commit was aborted",
            "COMMIT_EDITMSG",
            "--no-verify",
        ],
    );
    let json = quire(&["check", "--json"], PLAN);
    assert_eq!(code(&json), 0);
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(value["rules"], "plan");
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
    assert!(String::from_utf8_lossy(&rejected.stderr).contains("commit::type-empty"));

    let message = "feat(repo): add a file\n\nThe first file.\n# a comment git strips\n";
    let accepted = git(root, &["commit", "-q", "--cleanup=strip", "-m", message]);
    assert!(
        accepted.status.success(),
        "{}",
        String::from_utf8_lossy(&accepted.stderr)
    );
    let log = git(root, &["log", "-1", "--format=%B"]);
    assert_eq!(
        String::from_utf8_lossy(&log.stdout).trim_end(),
        "feat(repo): add a file\n\nThe first file."
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
            "vault",
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

/// `quire args` with `stdin`, stopped (and the test failed) if it has not
/// ended within `deadline`: a call must never wait for ever.
fn quire_within(args: &[&str], stdin: Vec<u8>, deadline: std::time::Duration) -> Output {
    use std::io::Read;
    let mut child = Command::new(env!("CARGO_BIN_EXE_quire"))
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("quire runs");
    let mut input = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        if let Err(error) = input.write_all(&stdin) {
            assert_eq!(error.kind(), std::io::ErrorKind::BrokenPipe, "{error}");
        }
    });
    let reader = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = pipe.read_to_end(&mut bytes);
            bytes
        })
    };
    let out = reader(Box::new(child.stdout.take().unwrap()));
    let err = reader(Box::new(child.stderr.take().unwrap()));
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`quire {}` still ran after {deadline:?}", args.join(" "));
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    writer.join().unwrap();
    Output {
        status,
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    }
}

/// `create_note` arguments of exactly `size` bytes: a note of `a`s.
fn note_arguments(size: usize) -> Vec<u8> {
    let (head, tail) = (br#"{"path": "big", "content": ""#, br#""}"#);
    let mut arguments = head.to_vec();
    arguments.resize(size - tail.len(), b'a');
    arguments.extend_from_slice(tail);
    arguments
}

#[test]
fn call_refuses_a_request_over_one_message_at_once() {
    const MIB16: usize = 16 * 1024 * 1024;
    let folder = tempfile::tempdir().unwrap();
    let root = folder.path().to_str().unwrap();
    let args = [
        "call",
        "create_note",
        "-",
        "--root",
        root,
        "--writes",
        "allow",
    ];
    let deadline = std::time::Duration::from_secs(60);
    // Arguments that fit standard input's 16 MiB, in a request that does
    // not fit one message (it used to wait for ever for an answer).
    let under_stdin_limit = MIB16 - 71;
    let output = quire_within(&args, note_arguments(under_stdin_limit), deadline);
    assert_refused(
        &output,
        2,
        "over 16 MiB (16777216 bytes), the most one MCP message may hold; nothing was sent or run",
        "a request over the limit",
    );
    assert!(!folder.path().join("big.md").exists());
    // The request's size, as said: the arguments and what wraps them.
    let said = stderr(&output);
    let request: usize = said
        .split("request would be ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|bytes| bytes.parse().ok())
        .unwrap_or_else(|| panic!("no size in: {said}"));
    let wrapping = request - under_stdin_limit;
    assert!((32..1024).contains(&wrapping), "{said}");

    // One byte over the limit as sent: refused; exactly at it: written.
    let output = quire_within(&args, note_arguments(MIB16 - wrapping + 1), deadline);
    assert_refused(
        &output,
        2,
        "would be 16777217 bytes, over 16 MiB",
        "one byte over",
    );
    let output = quire_within(&args, note_arguments(MIB16 - wrapping), deadline);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(
        stdout(&output).contains(r#""path": "big.md""#),
        "{}",
        stdout(&output)
    );
    // The whole content (the note may end with a line feed added).
    let content = MIB16 - wrapping - br#"{"path": "big", "content": ""}"#.len();
    let written = fs::metadata(folder.path().join("big.md")).unwrap().len() as usize;
    assert!((content..=content + 1).contains(&written), "{written}");

    // Over standard input's limit: refused before any parsing.
    let output = quire_within(&args, note_arguments(MIB16 + 1), deadline);
    assert_refused(
        &output,
        2,
        "the arguments on standard input are longer than 16 MiB",
        "stdin over its limit",
    );
}

#[test]
fn call_honours_the_embedder_where_it_matters_and_says_where_it_does_not() {
    let vault = vault_copy();
    let root = vault.path().to_str().unwrap();
    let semantic = |embedder: &[&str]| {
        let mut args = vec![
            "call",
            "get_kiln_info",
            r#"{"detailed": true}"#,
            "--root",
            root,
        ];
        args.extend(embedder);
        let output = quire(&args, "");
        assert_eq!(code(&output), 0, "{}", stderr(&output));
        assert_eq!(stderr(&output), "", "the flags matter here: no note");
        let value: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
        value["semantic"].clone()
    };
    // get_kiln_info reports on the embedder asked for (it used to say that
    // none was configured); nothing is loaded, so nothing need listen.
    let http = semantic(&[
        "--embedder",
        "http",
        "--embedder-url",
        "http://127.0.0.1:9",
        "--embedder-model",
        "nomic-embed-text",
    ]);
    assert_eq!(http["embedder"], "http", "{http}");
    assert_ne!(http["state"], "unavailable", "{http}");
    assert_eq!(http.get("problem"), None, "{http}");
    let none = semantic(&["--embedder", "none"]);
    assert_eq!(none["state"], "unavailable", "{none}");
    assert!(
        none["problem"]
            .as_str()
            .unwrap()
            .contains("--embedder none"),
        "{none}"
    );

    // A tool that does not use them runs as asked, and says so.
    let args =
        r#"{"tracker_path": "trackers/acme.md", "target_status": "Applied", "dry_run": true}"#;
    let output = quire(
        &[
            "call",
            "update_tracker_status",
            args,
            "--root",
            root,
            "--embedder",
            "none",
        ],
        "",
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(stdout(&output).contains("would_update"));
    assert_eq!(
        stderr(&output),
        "note: --embedder, --embedder-url, --embedder-model and --models-dir are for semantic_search (and \
         get_kiln_info's `semantic` block); `update_tracker_status` does not use them\n"
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

#[test]
fn call_writes_notes_only_when_writes_are_allowed() {
    let folder = tempfile::tempdir().unwrap();
    let root = folder.path().to_str().unwrap();
    let arguments =
        r##"{"path": "ideas/New", "content": "# New\n", "frontmatter": {"status": "draft"}}"##;
    // With --writes ask (the default) and no terminal to ask on, the call
    // is refused before anything runs.
    let output = quire(&["call", "create_note", arguments, "--root", root], "");
    assert_eq!(code(&output), 2);
    assert_eq!(
        stderr(&output),
        "error: `create_note` changes notes, and with --writes ask (the default) every change is put to you \
         first, but there is no terminal to ask on; nothing was written. Pass --writes allow to write without \
         asking\n"
    );
    assert!(!folder.path().join("ideas").exists());
    // With --writes deny the tool is not there.
    let denied = [
        "call",
        "create_note",
        arguments,
        "--root",
        root,
        "--writes",
        "deny",
    ];
    let output = quire(&denied, "");
    assert_eq!(code(&output), 2);
    assert!(
        stderr(&output).contains("--writes deny leaves the write tools out; use --writes ask"),
        "{}",
        stderr(&output)
    );
    assert!(!folder.path().join("ideas").exists());

    let create_allowed = || {
        let args = [
            "call",
            "create_note",
            arguments,
            "--root",
            root,
            "--writes",
            "allow",
        ];
        quire(&args, "")
    };
    let output = create_allowed();
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert!(
        stdout(&output).contains("\"path\": \"ideas/New.md\""),
        "{}",
        stdout(&output)
    );
    assert_eq!(
        std::fs::read_to_string(folder.path().join("ideas/New.md")).unwrap(),
        "---\nstatus: draft\n---\n# New\n"
    );
    let output = create_allowed();
    assert_eq!(code(&output), 1);
    assert!(
        stdout(&output).contains("use update_note") || stdout(&output).contains("Use update_note")
    );
}

#[test]
fn serve_refuses_a_tool_timeout_that_is_not_a_duration() {
    let vault = vault_copy();
    let root = vault.path().to_str().unwrap();
    for (value, expected) in [
        ("0s", "is zero"),
        ("soon", "is not a duration; write e.g. 500ms"),
        ("1 fortnight", "is not a duration"),
    ] {
        let output = quire(&["serve", "--root", root, "--tool-timeout", value], "");
        assert_eq!(code(&output), 2, "{value}");
        assert!(
            stderr(&output).contains(expected),
            "{value}: {}",
            stderr(&output)
        );
        assert_eq!(stdout(&output), "");
    }
}

// ------------------------------------------------- limits, pipes, panics

/// Runs quire with `total` bytes of `chunk` repeated on stdin, written from
/// another thread as quire reads them (never held in memory at once).
/// Returns the output and how many bytes quire took before it closed stdin.
fn quire_streaming(args: &[&str], chunk: &[u8], total: usize) -> (Output, usize) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_quire"))
        .args(args)
        .env("NO_COLOR", "1")
        .env_remove("RUST_BACKTRACE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("quire runs");
    let mut stdin = child.stdin.take().unwrap();
    let block = chunk.repeat((64 * 1024 / chunk.len()).max(1));
    let writer = std::thread::spawn(move || {
        let mut written = 0;
        while written < total {
            let part = &block[..block.len().min(total - written)];
            match stdin.write_all(part) {
                Ok(()) => written += part.len(),
                Err(error) => {
                    assert_eq!(error.kind(), std::io::ErrorKind::BrokenPipe, "{error}");
                    break;
                }
            }
        }
        written
    });
    let output = child.wait_with_output().unwrap();
    (output, writer.join().unwrap())
}

/// Stderr is one clean line: no panic, no path of the build machine.
fn assert_one_clean_line(output: &Output) {
    let text = stderr(output);
    assert_eq!(text.lines().count(), 1, "{text}");
    for bad in [
        "panicked",
        ".cargo",
        "registry",
        "RUST_BACKTRACE",
        "os error",
    ] {
        assert!(!text.contains(bad), "{bad:?} in: {text}");
    }
}

/// A refusal: exit status `status`, nothing on stdout, and one clean line on
/// stderr that says `says`. `context` names the case in failure messages.
#[track_caller]
fn assert_refused(output: &Output, status: i32, says: &str, context: &str) {
    assert_eq!(code(output), status, "{context}: {}", stderr(output));
    assert_one_clean_line(output);
    assert!(stdout(output).is_empty(), "{context}: {}", stdout(output));
    assert!(
        stderr(output).contains(says),
        "{context}: {says:?} missing from {}",
        stderr(output)
    );
}

#[test]
fn input_one_character_over_the_limit_is_refused_in_one_line() {
    // This used to panic inside miette (exit 101): the input_too_long label
    // sat at column 100001, beyond what its formatting can indent.
    let long = "a".repeat(100_001);
    for command in ["check", "parse", "fmt"] {
        let output = quire(&[command, "-"], &long);
        assert_refused(
            &output,
            1,
            "<stdin> has 100001 characters; the commit-message preset allows 100000",
            command,
        );
    }
    // The strict preset's own limit.
    let output = quire(&["check", "--preset", "strict"], &"a".repeat(10_001));
    assert_eq!(code(&output), 1);
    assert!(stderr(&output).contains("the strict preset allows 10000"));
}

#[test]
fn a_long_line_within_the_limit_renders_a_clipped_snippet() {
    let output = quire(&["check", "--preset", "plan"], &"a".repeat(100_000));
    assert_eq!(code(&output), 1);
    let report = stderr(&output);
    assert!(report.len() < 3_000, "{} bytes of report", report.len());
    // The error is at the end of the line: the excerpt shows the line's end,
    // marked as clipped, with the source's own column.
    assert_contains_all(
        &report,
        &["plan::invalid_header", "[<stdin>:1:100001]", " 1 │ …aaa"],
    );
}

#[test]
fn a_50_mb_line_is_refused_after_a_bounded_read() {
    for command in ["check", "parse", "fmt"] {
        let (output, taken) = quire_streaming(&[command, "-"], b"a", 50_000_000);
        assert_refused(&output, 1, "<stdin> is longer than 400003 bytes", command);
        assert!(taken < 8_000_000, "{command}: quire took {taken} bytes");
    }
}

#[test]
fn a_huge_file_is_refused_without_being_read() {
    // A sparse file: 1 GiB long, nothing stored; reading it would take
    // seconds and a gigabyte of memory.
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("huge.txt");
    fs::File::create(&path).unwrap().set_len(1 << 30).unwrap();
    let name = path.to_str().unwrap();
    for args in [
        &["check", name][..],
        &["check", "--git-message", name],
        &["parse", name],
        &["fmt", "--write", name],
    ] {
        let output = quire(args, "");
        assert_refused(&output, 1, "huge.txt is longer than", &format!("{args:?}"));
    }
    // With --json, the refusal is the grammar's halting diagnostic.
    let output = quire(&["parse", "--json", name], "");
    assert_eq!(code(&output), 1);
    assert_one_clean_line(&output);
    assert!(stdout(&output).contains("plan::input_too_long"));
    assert_eq!(
        fs::metadata(&path).unwrap().len(),
        1 << 30,
        "left as it was"
    );
}

#[test]
fn input_that_is_not_utf8_is_refused_by_every_command() {
    let bytes = b"feat(cli): Caf\xe9\n\n- [ ]: Read \xff bytes\n";
    for command in ["check", "parse", "fmt"] {
        let output = quire_bytes(&[command, "-"], bytes);
        assert_refused(
            &output,
            2,
            "<stdin> is not UTF-8 text (invalid byte at offset 14); plan documents must be UTF-8",
            command,
        );
    }
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("latin1.txt");
    fs::write(&path, bytes).unwrap();
    let name = path.to_str().unwrap();
    for args in [
        &["check", "--git-message", name][..],
        &["fmt", "--write", name],
    ] {
        let output = quire(args, "");
        assert_refused(
            &output,
            2,
            "latin1.txt is not UTF-8 text",
            &format!("{args:?}"),
        );
    }
    assert_eq!(fs::read(&path).unwrap(), bytes, "fmt --write left it alone");
    // A tool's arguments too.
    let output = quire_bytes(&["call", "gather_requirements", "-"], b"{\"a\": \"\xff\"}");
    assert_refused(
        &output,
        2,
        "the arguments on standard input are not UTF-8 text",
        "",
    );
}

#[test]
fn parse_json_on_200_mb_of_newlines_reads_only_up_to_the_limit() {
    let (output, taken) = quire_streaming(&["parse", "--json", "-"], b"\n", 200_000_000);
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    assert_one_clean_line(&output);
    assert!(stdout(&output).contains("\"plan::input_too_long\""));
    assert!(taken < 8_000_000, "quire took {taken} bytes of its input");
    // A device named as a file is not read at all: only regular files are.
    let output = quire(&["parse", "--json", "/dev/zero"], "");
    assert_eq!(code(&output), 2, "{}", stderr(&output));
    assert!(
        stdout(&output).contains("/dev/zero: it is a character device, not a regular file"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn git_message_files_may_carry_a_long_diff_below_the_scissors() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("COMMIT_EDITMSG");
    let diff = "+ a line of the verbose diff\n".repeat(40_000); // 1.1 MB
    fs::write(
        &path,
        format!(
            "feat(cli): bound the input\n\nRead no more than needed.\n# ------------------------ >8 ------------------------\n{diff}"
        ),
    )
    .unwrap();
    let output = quire(&["check", "--git-message", path.to_str().unwrap()], "");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    // The message itself is still held to the preset's limit.
    fs::write(
        &path,
        format!("feat(cli): Long\n\n{}\n", "a".repeat(10_001)),
    )
    .unwrap();
    let output = quire(
        &[
            "check",
            "--git-message",
            "--preset",
            "strict",
            path.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(code(&output), 1);
    assert!(stderr(&output).contains("the strict preset allows 10000"));
}

/// Runs quire with its stdout closed before it writes: `input` goes to
/// stdin only after the read end of stdout is gone.
fn quire_into_closed_pipe(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_quire"))
        .args(args)
        .env("NO_COLOR", "1")
        .env_remove("RUST_BACKTRACE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("quire runs");
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(input.as_bytes()).unwrap();
    drop(stdin);
    child.wait_with_output().unwrap()
}

#[test]
fn a_closed_stdout_ends_every_command_quietly() {
    let vault = vault_copy();
    let root = vault.path().to_str().unwrap();
    let cases: [(&[&str], &str); 4] = [
        (&["parse", "-"], PLAN),
        (&["parse", "--json", "-"], PLAN),
        (&["fmt", "-"], PLAN),
        (
            &[
                "call",
                "gather_requirements",
                "-",
                "--plan-file",
                "PLAN.md",
                "--root",
                root,
            ],
            "{}",
        ),
    ];
    for (args, input) in cases {
        let output = quire_into_closed_pipe(args, input);
        assert_eq!(
            (code(&output), stderr(&output)),
            (0, String::new()),
            "{args:?}"
        );
    }
}

/// Characters that would steer a terminal, as `quire_grammar::diagnostics` counts
/// them; none may reach the terminal raw.
fn unprintable(text: &str) -> Vec<char> {
    text.chars()
        .filter(|&c| quire_grammar::diagnostics::is_unprintable(c))
        .collect()
}

const HOSTILE: &str = "feat(cli): Title \u{1b}[31mred\u{1b}[0m\n\nA description \u{1b}]0;pwned\u{7} with OSC.\rHidden\n- Never: print \u{9b}2J raw\u{2028}\n\n- [ ]: Ring \u{7} the bell\n  - [x]: Back\u{8}space \u{202e}txet\n\nGo on\u{85}now\n";

#[test]
fn parse_escapes_control_characters_in_the_outline_and_json() {
    let output = quire(&["parse"], HOSTILE);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let outline = stdout(&output);
    assert_eq!(unprintable(&outline), Vec::<char>::new(), "{outline}");
    assert_contains_all(
        &outline,
        &[
            r#"title "Title \u{1b}[31mred\u{1b}[0m""#,
            r"print \u{9b}2J raw\u{2028}",
            r"[ ] Ring \u{7} the bell",
            r"[x] Back\u{8}space \u{202e}txet",
            r#"direction    "Go on\u{85}now""#,
        ],
    );
    let output = quire(&["parse", "--json"], HOSTILE);
    let json = stdout(&output);
    assert_eq!(unprintable(&json), Vec::<char>::new(), "{json}");
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value["header"]["title"], "Title \u{1b}[31mred\u{1b}[0m");
    assert_eq!(value["constraints"][0][1], "print \u{9b}2J raw\u{2028}");
}

#[test]
fn check_refuses_control_characters_and_reports_them_escaped() {
    let output = quire(&["check", "--preset", "plan"], HOSTILE);
    assert_eq!(code(&output), 1);
    let report = stderr(&output);
    assert_eq!(unprintable(&report), Vec::<char>::new(), "{report}");
    assert_contains_all(
        &report,
        &[
            "plan::control_character",
            "line 1 contains the control character U+001B ESCAPE",
            r"feat(cli): Title \u{1b}[31mred\u{1b}[0m",
            "line 3 contains the control character U+001B ESCAPE",
            "U+009B CONTROL SEQUENCE INTRODUCER",
            "U+0007 BELL",
            "U+0008 BACKSPACE",
            "U+0085 NEXT LINE",
        ],
    );
    // A tab is fine.
    let output = quire(&["check", "--preset", "plan"], "fix(cli): Align\tcolumns\n");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
}

#[test]
fn file_names_are_escaped_in_messages() {
    let folder = tempfile::tempdir().unwrap();
    let path = folder.path().join("plan\u{1b}[2J.txt");
    fs::write(&path, "Not a header\n").unwrap();
    let output = quire(&["check", path.to_str().unwrap()], "");
    assert_eq!(code(&output), 1);
    let report = stderr(&output);
    assert_eq!(unprintable(&report), Vec::<char>::new(), "{report}");
    assert!(report.contains(r"plan\u{1b}[2J.txt:1:1"), "{report}");
    let output = quire(&["fmt", "--check", path.to_str().unwrap()], "");
    assert_eq!(code(&output), 1);
    assert_eq!(
        unprintable(&stderr(&output)),
        Vec::<char>::new(),
        "{}",
        stderr(&output)
    );
    assert!(
        stderr(&output).contains(r"plan\u{1b}[2J.txt:1:1"),
        "{}",
        stderr(&output)
    );
    let missing = folder.path().join("gone\u{7}.txt");
    let output = quire(&["parse", missing.to_str().unwrap()], "");
    assert_eq!(code(&output), 2);
    assert_eq!(
        unprintable(&stderr(&output)),
        Vec::<char>::new(),
        "{}",
        stderr(&output)
    );
    assert!(stderr(&output).contains(r"gone\u{7}.txt: not found"));
}

#[test]
fn io_errors_are_described_in_words() {
    let folder = tempfile::tempdir().unwrap();
    let output = quire(&["parse", folder.path().to_str().unwrap()], "");
    assert_eq!(code(&output), 2);
    assert_one_clean_line(&output);
    assert!(
        stderr(&output).ends_with(": it is a folder, not a file\n"),
        "{}",
        stderr(&output)
    );
    let output = quire(
        &[
            "call",
            "gather_requirements",
            "{}",
            "--root",
            "/nonexistent/vault",
        ],
        "",
    );
    assert_refused(&output, 2, "/nonexistent/vault: not found", "");
}

#[test]
fn help_documents_the_exit_statuses() {
    let output = quire(&["--help"], "");
    assert_eq!(code(&output), 0);
    let help = stdout(&output);
    assert!(help.contains("70 an internal error"), "{help}");
    assert!(help.contains("closed standard\noutput"), "{help}");
}

#[test]
fn fmt_writes_the_document_byte_for_byte_into_a_pipe() {
    // Escaping is for terminals: into a pipe or a file, fmt keeps every
    // character (the document's words are the user's; `check` is what
    // refuses control characters).
    let document = "feat(cli): Keep \u{1b}[1mbytes\u{1b}[0m\n\nEvery \u{85} byte.\n";
    let output = quire(&["fmt"], document);
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(stdout(&output), document);
}

#[test]
fn check_shows_at_most_100_reports_and_counts_the_rest() {
    // One finding for each line of the description that rings the bell.
    for (lines, rest) in [
        (
            150,
            "<stdin>: 50 more problems not shown (50 errors, 0 warnings)",
        ),
        (
            101,
            "<stdin>: 1 more problem not shown (1 error, 0 warnings)",
        ),
    ] {
        let text = format!("fix(cli): Ring\n\n{}", "Line \u{7}\n".repeat(lines));
        let output = quire(&["check", "--preset", "plan"], &text);
        assert_eq!(code(&output), 1);
        let report = stderr(&output);
        assert_eq!(report.matches("plan::control_character").count(), 100);
        assert!(
            report.contains(&format!("line {} contains", 102)),
            "{report}"
        );
        assert!(
            !report.contains(&format!("line {} contains", 103)),
            "{report}"
        );
        assert!(
            report.ends_with(&format!("{rest}; fix the ones above first\n")),
            "{report}"
        );
    }
}

#[test]
fn call_output_escapes_control_characters_in_the_plan() {
    let folder = tempfile::tempdir().unwrap();
    fs::write(
        folder.path().join("PLAN.md"),
        "fix(cli): Print \u{1b}[2J safely\n\nWhy\u{85}now.\n\n- [ ]: Ring \u{7}\n",
    )
    .unwrap();
    let root = folder.path().to_str().unwrap();
    let output = quire(
        &[
            "call",
            "gather_requirements",
            "{}",
            "--plan-file",
            "PLAN.md",
            "--root",
            root,
        ],
        "",
    );
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    let json = stdout(&output);
    assert_eq!(unprintable(&json), Vec::<char>::new(), "{json}");
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        value["document"]["header"]["title"],
        "Print \u{1b}[2J safely"
    );
    assert_eq!(value["document"]["tasks"][0][1], "Ring \u{7}");
    // A tool that would store it refuses, in words that are safe to show.
    let output = quire(
        &[
            "call",
            "mark_task",
            r#"{"task_id": "Ring"}"#,
            "--plan-file",
            "PLAN.md",
            "--root",
            root,
        ],
        "",
    );
    assert_eq!(code(&output), 1, "{}", stderr(&output));
    let json = stdout(&output);
    assert_eq!(unprintable(&json), Vec::<char>::new(), "{json}");
    assert_contains_all(
        &json,
        &[
            "VALIDATION_ERROR",
            "header.title: the title contains the control character U+001B ESCAPE",
            "description: the description contains the control character U+0085 NEXT LINE",
            "tasks.0.1: the text of task 1 contains the control character U+0007 BELL",
        ],
    );
}

// ---------------------------------------------------------- presets

/// Each preset with a document that parses under it, and the spellings of
/// its name that `--preset` takes: kebab-case, the spec's constant name
/// (`STRICT`), and either in another case.
fn preset_spellings() -> [(&'static str, String, [&'static str; 5]); 4] {
    let long_title = format!("feat(a): {}\n\nWhy.\n\n- [x]: Do\n", "t".repeat(51));
    [
        (
            "commit-message",
            long_title.clone(),
            [
                "commit-message",
                "COMMIT_MESSAGE",
                "commit_message",
                "Commit-Message",
                "COMMIT-MESSAGE",
            ],
        ),
        (
            "markdown-tasks",
            "# Ship it\n\nWhy.\n\n- [x] Build\n".to_owned(),
            [
                "markdown-tasks",
                "MARKDOWN_TASKS",
                "markdown_tasks",
                "Markdown-Tasks",
                "MARKDOWN-TASKS",
            ],
        ),
        (
            "yaml-like",
            "title: Ship it\n\nWhy.\n\n- task: Build (x)\n".to_owned(),
            [
                "yaml-like",
                "YAML_LIKE",
                "yaml_like",
                "Yaml-Like",
                "YAML-LIKE",
            ],
        ),
        // The title is over strict's 50 characters: a strict parse fails
        // where commit-message's passes, so the preset really changed.
        (
            "strict",
            long_title,
            ["strict", "STRICT", "Strict", "sTrIcT", "STRICT"],
        ),
    ]
}

#[test]
fn every_command_takes_every_spelling_of_every_preset() {
    for command in [
        &["parse", "--json"][..],
        &["check"],
        &["fmt"],
        &["fmt", "--check"],
    ] {
        for (name, document, spellings) in preset_spellings() {
            let run = |preset: &str| {
                let mut args = command.to_vec();
                args.extend(["--preset", preset]);
                quire(&args, &document)
            };
            let reference = run(name);
            // Only strict refuses the long title, whatever the command.
            let expected = if name == "strict" { 1 } else { 0 };
            assert_eq!(
                code(&reference),
                expected,
                "{command:?} --preset {name}: {}",
                stderr(&reference)
            );
            for spelling in spellings {
                let output = run(spelling);
                assert_eq!(
                    (code(&output), stdout(&output), stderr(&output)),
                    (code(&reference), stdout(&reference), stderr(&reference)),
                    "{command:?} --preset {spelling} differs from --preset {name}"
                );
            }
        }
    }
}

#[test]
fn an_unknown_preset_lists_the_presets() {
    let output = quire(&["check", "--preset", "COMMIT"], PLAN);
    assert_eq!(code(&output), 2);
    assert_contains_all(
        &stderr(&output),
        &[
            "'COMMIT'",
            "conventional, plan, commit-message, markdown-tasks, yaml-like, strict",
        ],
    );
    let help = quire(&["parse", "--help"], "");
    assert_contains_all(
        &stdout(&help),
        &[
            "COMMIT_MESSAGE",
            "[possible values: conventional, plan, commit-message, markdown-tasks, yaml-like, strict]",
        ],
    );
}

// ------------------------------------------------------------- call

#[test]
fn call_without_a_tool_lists_the_tools_with_one_line_each() {
    let folder = tempfile::tempdir().unwrap();
    let root = folder.path().to_str().unwrap();
    let output = quire(&["call", "--root", root], "");
    assert_eq!(code(&output), 0, "{}", stderr(&output));
    assert_eq!(stderr(&output), "");
    let listed = stdout(&output);
    let names: Vec<&str> = listed
        .lines()
        .map(|line| line.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "create_note",
            "delete_note",
            "edit_note",
            "find_links",
            "finish_job",
            "gather_requirements",
            "get_kiln_info",
            "list_notes",
            "mark_task",
            "move_note",
            "property_search",
            "read_metadata",
            "read_note",
            "semantic_search",
            "set_detailed_goal",
            "set_overarching_goal",
            "set_plan",
            "text_search",
            "update_note",
            "update_tracker_status"
        ]
    );
    for line in listed.lines() {
        let (name, description) = line.split_once("  ").unwrap();
        let description = description.trim_start();
        assert!(description.len() > 20, "{name} has no description: {line}");
        assert!(line.chars().count() <= 140, "not one short line: {line}");
    }
    assert_contains_all(
        &listed,
        &[
            "gather_requirements    Read the plan and its workflow stage, and learn what to do next: call this first.\n",
            "finish_job             Record the job as complete (`~~~ COMPLETE ~~~`).\n",
        ],
    );

    // Only the toolsets served.
    let output = quire(&["call", "--root", root, "--tools", "tracker"], "");
    assert_eq!(code(&output), 0);
    assert!(stdout(&output).starts_with("update_tracker_status  Update the `status` field"));
    assert_eq!(stdout(&output).lines().count(), 1);
}

#[test]
fn call_with_an_unknown_tool_lists_the_tools() {
    let folder = tempfile::tempdir().unwrap();
    let root = folder.path().to_str().unwrap();
    let output = quire(&["call", "gather_requirement", "--root", root], "");
    assert_eq!(code(&output), 2);
    assert_eq!(stdout(&output), "");
    assert_eq!(
        stderr(&output),
        "error: there is no tool `gather_requirement`. The tools served (tracker, planner, kiln) are: create_note, \
         delete_note, edit_note, find_links, finish_job, gather_requirements, get_kiln_info, list_notes, mark_task, move_note, property_search, read_metadata, \
         read_note, semantic_search, set_detailed_goal, set_overarching_goal, set_plan, text_search, update_note, update_tracker_status. \
         Run `quire call` without a tool to see what each does\n"
    );

    // A tool of a toolset left out says which toolset to add.
    let output = quire(
        &[
            "call",
            "gather_requirements",
            "{}",
            "--root",
            root,
            "--tools",
            "tracker",
        ],
        "",
    );
    assert_eq!(code(&output), 2);
    assert_eq!(
        stderr(&output),
        "error: `gather_requirements` belongs to the planner toolset, which `--tools tracker` leaves out; add it \
         (`--tools tracker,planner`) or leave --tools out. The tools served (tracker) are: update_tracker_status. \
         Run `quire call` without a tool to see what each does\n"
    );
    // A name with control characters is shown escaped.
    let output = quire(&["call", "x\u{1b}[2J", "--root", root], "");
    assert_eq!(code(&output), 2);
    assert!(!stderr(&output).contains('\u{1b}'), "{:?}", stderr(&output));
}

/// `quire call` on a terminal (a pseudo-terminal made by `script`), with
/// `answer` typed at its prompt.
fn call_on_terminal(root: &str, arguments: &str, answer: &str) -> Output {
    let command = format!(
        "{} call create_note '{arguments}' --root {root}",
        env!("CARGO_BIN_EXE_quire")
    );
    let mut child = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("script (util-linux) runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(answer.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn call_asks_on_the_terminal_before_a_write() {
    let folder = tempfile::tempdir().unwrap();
    let root = folder.path().to_str().unwrap();
    let arguments = r##"{"path": "ideas/New", "content": "# New\n"}"##;

    let output = call_on_terminal(root, arguments, "n\n");
    let shown = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        shown.contains(
            "Create the note `ideas/New.md` (1 word, 6 bytes).\r\nApply this change? [y/N]"
        ),
        "{shown}"
    );
    assert!(shown.contains("\"declined\": true"), "{shown}");
    assert!(
        shown.contains("\"reason\": \"the user denied the change\""),
        "{shown}"
    );
    assert!(!folder.path().join("ideas").exists());

    let output = call_on_terminal(root, arguments, "y\n");
    let shown = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(shown.contains("\"path\": \"ideas/New.md\""), "{shown}");
    assert!(!shown.contains("declined"), "{shown}");
    assert_eq!(
        fs::read_to_string(folder.path().join("ideas/New.md")).unwrap(),
        "# New\n"
    );
}

#[test]
fn call_asks_on_the_terminal_before_reading_a_folder_outside_the_root() {
    let folder = tempfile::tempdir().unwrap();
    let root = folder.path().join("root");
    let outside = folder.path().join("outside");
    fs::create_dir_all(&root).unwrap();
    fs::create_dir_all(&outside).unwrap();
    fs::write(outside.join("Far.md"), "far away\n").unwrap();
    let arguments = format!(r#"{{"path": "{}"}}"#, outside.join("Far.md").display());
    let command = |answer: &str| {
        let command = format!(
            "{} call read_note '{arguments}' --root {}",
            env!("CARGO_BIN_EXE_quire"),
            root.display()
        );
        let mut child = Command::new("script")
            .args(["-qec", &command, "/dev/null"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("script (util-linux) runs");
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(answer.as_bytes()).unwrap();
        drop(stdin);
        String::from_utf8_lossy(&child.wait_with_output().unwrap().stdout).into_owned()
    };
    let shown = command("y\n");
    assert!(shown.contains("outside the kiln root"), "{shown}");
    assert!(shown.contains("\"content\": \"far away\\n\""), "{shown}");
    let shown = command("n\n");
    assert!(shown.contains("did not let this session use"), "{shown}");
    assert!(!shown.contains("\"content\""), "{shown}");
}

/// Issue 27: with `--json`, every outcome is JSON on standard output: a
/// text over the preset's limit is the grammar's halting diagnostic
/// `plan::input_too_long` (the bounded read stays: `/dev/zero`-sized input
/// stops at the byte limit), and a file that cannot be read is an error
/// object; the one line on stderr stays for the terminal.
#[test]
fn json_commands_answer_every_outcome_in_json() {
    for (args, input) in [
        (vec!["parse", "--json"], "a".repeat(100_001)),
        (vec!["parse", "--json", "-"], "é".repeat(100_001)),
        (vec!["check", "--json"], "a".repeat(500_000)),
    ] {
        let output = quire(&args, &input);
        assert_eq!(code(&output), 1, "{args:?}");
        assert_eq!(stderr(&output).lines().count(), 1, "{args:?}");
        let value: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(
            value["diagnostics"][0]["code"], "plan::input_too_long",
            "{value}"
        );
        assert_eq!(value["diagnostics"][0]["severity"], "error");
        let halted = if args[0] == "parse" {
            value["state"] == "halted"
        } else {
            value["valid"] == false
        };
        assert!(halted, "{value}");
    }
    let missing = quire(&["parse", "--json", "/no/such/plan.txt"], "");
    assert_eq!(code(&missing), 2);
    let value: serde_json::Value = serde_json::from_slice(&missing.stdout).unwrap();
    assert!(
        value["error"]["message"]
            .as_str()
            .unwrap()
            .contains("/no/such/plan.txt")
    );
    let plain = quire(&["parse"], &"a".repeat(100_001));
    assert_eq!((code(&plain), stdout(&plain).as_str()), (1, ""));
    assert!(stderr(&plain).starts_with("error: <stdin> has 100001 characters"));
}
