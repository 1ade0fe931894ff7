//! `quire check` of commit messages as a commit-msg hook runs it: the
//! ordinary commits the issue names pass with the default `conventional`
//! rules, `quire.toml` adjusts them, `--preset plan` keeps the plan rules.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

fn quire_in(folder: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_quire"))
        .args(args)
        .current_dir(folder)
        .output()
        .expect("quire runs")
}

fn check(folder: &Path, message: &str, extra: &[&str]) -> (i32, Value, String) {
    let file = folder.join("COMMIT_EDITMSG");
    fs::write(&file, message).unwrap();
    let mut args = vec!["check", "--git-message", "--json"];
    args.extend_from_slice(extra);
    args.push(file.to_str().unwrap());
    let output = quire_in(folder, &args);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let json = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
    (output.status.code().unwrap(), json, stderr)
}

/// The rules that failed, sorted.
fn rules_failed(json: &Value) -> Vec<String> {
    let mut codes: Vec<String> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_owned())
        .collect();
    codes.sort();
    codes
}

/// The messages the issue found refused by the plan rules.
#[test]
fn ordinary_commits_pass_with_the_default_rules() {
    let folder = tempfile::tempdir().unwrap();
    let ordinary = [
        "fix: typo\n",
        "test: cover the parser\n",
        "perf: skip a copy\n",
        "ci: cache cargo\n",
        "feat(cli): add check\n\nA first paragraph.\n\nA second paragraph.\n",
        "fix: handle empty input\n\nSigned-off-by: A <a@example.com>\nCo-authored-by: B <b@example.com>\nFixes #12\n",
        "Add a parser (#42)\n\n* feat: one\n\n* fix: two\n",
        "chore(deps): bump serde from 1.0.1 to 1.0.2\n\nBumps [serde](https://github.com/serde-rs/serde) from 1.0.1 to 1.0.2.\n- [Release notes](https://github.com/serde-rs/serde/releases)\n- [Commits](https://github.com/serde-rs/serde/compare/v1.0.1...v1.0.2)\n\n---\nupdated-dependencies:\n- dependency-name: serde\n  dependency-type: direct:production\n  update-type: version-update:semver-patch\n...\n\nSigned-off-by: dependabot[bot] <support@github.com>\n",
        "Merge branch 'main' into topic\n",
        "Revert \"feat: add x\"\n\nThis reverts commit 0123456789abcdef0123456789abcdef01234567.\n",
        "fixup! feat: add x\n",
        "v1.2.3\n",
    ];
    for message in ordinary {
        let (code, json, stderr) = check(folder.path(), message, &[]);
        // A GitHub squash title has no type: refused, as commitlint does.
        if message.starts_with("Add a parser") {
            assert_eq!(code, 1, "{message:?}");
            assert_eq!(
                rules_failed(&json),
                ["commit::subject-empty", "commit::type-empty"]
            );
            continue;
        }
        assert_eq!(code, 0, "{message:?}: {json} {stderr}");
        assert_eq!(json["valid"], true);
        assert!(rules_failed(&json).is_empty(), "{message:?}: {json}");
    }
    let (_, json, _) = check(folder.path(), "Merge branch 'main' into topic\n", &[]);
    assert_eq!(
        (&json["ignored"], &json["ignored_as"]),
        (&Value::from(true), &Value::from("merge"))
    );
    let (_, json, _) = check(folder.path(), ordinary[5], &[]);
    assert_eq!(
        json["commit"]["footers"].as_array().unwrap().len(),
        3,
        "{json}"
    );
}

#[test]
fn quire_toml_adjusts_the_rules_from_the_folder_upward_or_as_named() {
    let folder = tempfile::tempdir().unwrap();
    let nested = folder.path().join("src/cli");
    fs::create_dir_all(&nested).unwrap();
    fs::write(
        folder.path().join("quire.toml"),
        "[commit]\ntypes = [\"feat\", \"fix\"]\nscopes = [\"cli\"]\n\n[commit.rules]\nheader-max-length = [\"error\", 20]\n",
    )
    .unwrap();
    let (code, json, _) = check(&nested, "docs: explain\n", &[]);
    assert_eq!(
        (code, rules_failed(&json)),
        (1, vec!["commit::type-enum".to_owned()])
    );
    let (code, json, _) = check(&nested, "feat(mcp): a header longer than twenty\n", &[]);
    assert_eq!(code, 1);
    assert_eq!(
        rules_failed(&json),
        ["commit::header-max-length", "commit::scope-enum"]
    );
    // `--config` names another file; `--preset plan` leaves the rules.
    let other = folder.path().join("other.toml");
    fs::write(&other, "[commit]\npreset = \"conventional\"\n").unwrap();
    let (code, _, _) = check(
        &nested,
        "docs: explain\n",
        &["--config", other.to_str().unwrap()],
    );
    assert_eq!(code, 0);
    let (code, json, _) = check(&nested, "docs(readme): Explain\n", &["--preset", "plan"]);
    assert_eq!(
        (code, json["valid"].clone()),
        (0, Value::from(true)),
        "{json}"
    );
}

#[test]
fn a_quire_toml_that_cannot_be_used_is_a_usage_error_naming_the_line() {
    let folder = tempfile::tempdir().unwrap();
    fs::write(
        folder.path().join("quire.toml"),
        "[commit]\n\n[commit.rules]\nheader-max-lenght = 72\n",
    )
    .unwrap();
    let (code, json, stderr) = check(folder.path(), "fix: typo\n", &[]);
    assert_eq!(code, 2, "{stderr}");
    // Issue 27: with --json, the failure is JSON on stdout too.
    assert!(
        json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("line 4"),
        "{json}"
    );
    assert!(
        stderr.contains("quire.toml") && stderr.contains("line 4"),
        "{stderr}"
    );
    assert!(
        stderr.contains("header-max-length"),
        "a near name is suggested: {stderr}"
    );
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    // A FIFO named as the configuration is refused, not waited on.
    let fifo = folder.path().join("fifo.toml");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let (code, _, stderr) = check(
        folder.path(),
        "fix: typo\n",
        &["--config", fifo.to_str().unwrap()],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("not a regular file"), "{stderr}");
}

/// `preset = "plan"` in a `quire.toml` is the plan grammar's check, which
/// `--preset conventional` overrides; conventional settings beside it are
/// refused, not silently dropped.
#[test]
fn a_quire_toml_naming_the_plan_check_uses_it_and_takes_no_rules() {
    let folder = tempfile::tempdir().unwrap();
    let config = folder.path().join("quire.toml");
    fs::write(&config, "[commit]\npreset = \"plan\"\n").unwrap();
    // A breaking `!` without a scope: a conventional header, not a plan one.
    let (code, json, _) = check(folder.path(), "feat!: drop the old flag\n", &[]);
    assert_eq!(code, 1, "{json}");
    assert_eq!(rules_failed(&json), ["plan::invalid_header"]);
    let (code, json, _) = check(
        folder.path(),
        "feat!: drop the old flag\n",
        &["--preset", "conventional"],
    );
    assert_eq!((code, rules_failed(&json)), (0, Vec::<String>::new()));

    fs::write(&config, "[commit]\npreset = \"plan\"\ntypes = [\"feat\"]\n").unwrap();
    let (code, json, stderr) = check(folder.path(), "feat(x): Add\n", &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        json["error"]["message"]
            .as_str()
            .unwrap()
            .contains("line 2"),
        "{json}"
    );
    assert!(
        stderr.contains("line 2")
            && stderr.contains("preset `plan` is the plan grammar's own check"),
        "{stderr}"
    );
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
}

#[test]
fn a_quire_toml_that_is_not_text_or_not_a_file_is_handled() {
    let folder = tempfile::tempdir().unwrap();
    let nested = folder.path().join("repo");
    fs::create_dir(&nested).unwrap();
    // Not UTF-8: refused, saying so.
    let bad = folder.path().join("latin1.toml");
    fs::write(&bad, b"[commit]\ntypes = [\"caf\xe9\"]\n").unwrap();
    let (code, _, stderr) = check(&nested, "fix: typo\n", &["--config", bad.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("is not UTF-8"), "{stderr}");
    // Over a megabyte: refused unread.
    let huge = folder.path().join("huge.toml");
    fs::write(&huge, format!("[commit]\n#{}\n", "x".repeat(2 << 20))).unwrap();
    let (code, _, stderr) = check(
        &nested,
        "fix: typo\n",
        &["--config", huge.to_str().unwrap()],
    );
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    // A folder named quire.toml is no configuration: the search goes on
    // upward and finds the file above it.
    fs::create_dir(nested.join("quire.toml")).unwrap();
    fs::write(
        folder.path().join("quire.toml"),
        "[commit]\ntypes = [\"fix\"]\n",
    )
    .unwrap();
    let (code, json, _) = check(&nested, "feat: add x\n", &[]);
    assert_eq!(
        (code, rules_failed(&json)),
        (1, vec!["commit::type-enum".to_owned()])
    );
    // A link to a configuration elsewhere is read as the file it names.
    fs::remove_dir(nested.join("quire.toml")).unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    fs::write(
        elsewhere.path().join("shared.toml"),
        "[commit]\ntypes = [\"feat\"]\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(
        elsewhere.path().join("shared.toml"),
        nested.join("quire.toml"),
    )
    .unwrap();
    let (code, json, stderr) = check(&nested, "feat: add x\n", &[]);
    assert_eq!(code, 0, "{json} {stderr}");
}

#[test]
fn conventional_is_for_check_only() {
    let folder = tempfile::tempdir().unwrap();
    fs::write(folder.path().join("plan.txt"), "feat(x): Add y\n").unwrap();
    let output = quire_in(
        folder.path(),
        &["parse", "--preset", "conventional", "plan.txt"],
    );
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("parse and fmt read plan documents"),
        "{stderr}"
    );
    // A document without plan sections is a commit message unless told
    // otherwise (issue 27: one verdict whatever the source): the
    // sentence-case subject fails, and the message says how to read it as a
    // plan.
    let output = quire_in(folder.path(), &["check", "plan.txt"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("`--preset plan` judges any text as one")
    );
    let output = quire_in(folder.path(), &["check", "--preset", "plan", "plan.txt"]);
    assert_eq!(output.status.code(), Some(0));
    let output = quire_in(
        folder.path(),
        &["check", "--preset", "conventional", "plan.txt"],
    );
    assert_eq!(output.status.code(), Some(1), "sentence-case subject");
}

/// `--preset plan` skips the messages the commit grammar says git or a
/// release tool wrote (`quire_grammar::commit::message_kind`), named as the
/// conventional rules name them, and judges every other message as a plan.
#[test]
fn the_plan_preset_skips_what_the_grammar_calls_generated_and_judges_the_rest() {
    let folder = tempfile::tempdir().unwrap();
    let generated = [
        ("Merge branch 'main' into topic\n", "merge"),
        (
            "Revert \"feat(x): Add y\"\n\nThis reverts commit 0123456789abcdef0123456789abcdef01234567.\n",
            "revert",
        ),
        ("fixup! x\n", "autosquash"),
        ("v1.2.3\n", "release"),
        // Not in the old prefix list, skipped now:
        ("Merged PR 12: Add x\n", "merge"),
        ("Reapply \"feat(x): Add y\"\n", "reapply"),
        ("Automatic merge from release -> main\n", "automatic-merge"),
    ];
    for (message, kind) in generated {
        let (code, json, stderr) = check(folder.path(), message, &["--preset", "plan"]);
        assert_eq!(code, 0, "{message:?}: {json} {stderr}");
        assert_eq!(
            (&json["valid"], &json["ignored"], &json["ignored_as"]),
            (&Value::from(true), &Value::from(true), &Value::from(kind)),
            "{message:?}"
        );
    }
    // Refused as plans: an ordinary message, and `Merge ...` that no tool
    // writes (the old prefix list let every `Merge ` through).
    for message in [
        "Update the docs\n",
        "Merge two lists\n",
        "feat(x): Add y\n\nWhy.\n- [x] missing colon\n",
    ] {
        let (code, json, stderr) = check(folder.path(), message, &["--preset", "plan"]);
        assert_eq!(code, 1, "{message:?}: {json} {stderr}");
        assert_eq!(
            (&json["valid"], &json["ignored"], &json["ignored_as"]),
            (&Value::from(false), &Value::from(false), &Value::Null),
            "{message:?}"
        );
        assert!(
            rules_failed(&json)
                .iter()
                .all(|code| code.starts_with("plan::")),
            "{message:?}: {json}"
        );
    }
}
