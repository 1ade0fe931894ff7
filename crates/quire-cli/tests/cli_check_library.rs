//! `quire check`'s verdicts are the library's: for every message of a real
//! history (cocogitto's, the corpus of the root crate's tests) and several
//! `quire.toml`s and presets, the binary's `--json` object and exit status
//! equal what `quire_grammar::commit::policy` gives for the same texts,
//! through the commit-msg hook's path (`--git-message`, git's comments
//! around the message) and the history's (`--range`).
//!
//! The binary is reachable only from this package's tests, so the check
//! lives here rather than beside the corpus.

use std::collections::HashMap;
use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::Stdio;

use quire_grammar::commit::Preset;
use quire_grammar::commit::policy::{CheckOptions, CommitCheck, MessageSource, PresetChoice};
use quire_grammar::plan;
use serde_json::Value;

#[path = "support/git_cli.rs"]
mod git_cli;

use git_cli::{code, git_command, git_output, quire, stderr};

/// One way `quire check` can be set up: the `quire.toml` beside the
/// messages (if any) and the `--preset` given (if any).
struct Setup {
    name: &'static str,
    quire_toml: Option<&'static str>,
    preset: Option<(&'static str, PresetChoice)>,
}

const ADJUSTED: &str = r#"[commit]
types = ["feat", "fix", "docs", "chore", "ci", "refactor", "test"]
scopes = ["cli", "changelog", "hook", "version", "deps"]

[commit.rules]
subject-case = "off"
header-max-length = ["error", 72]
body-max-line-length = ["warning", 80]
scope-empty = ["warning", "never"]
subject-full-stop = ["error", "never", "!"]
"#;

const PLAN: &str = "[commit]\npreset = \"plan\"\n";

fn setups() -> [Setup; 5] {
    [
        Setup {
            name: "no quire.toml",
            quire_toml: None,
            preset: None,
        },
        Setup {
            name: "adjusted rules",
            quire_toml: Some(ADJUSTED),
            preset: None,
        },
        Setup {
            name: "the file's plan preset",
            quire_toml: Some(PLAN),
            preset: None,
        },
        Setup {
            name: "--preset strict over adjusted rules",
            quire_toml: Some(ADJUSTED),
            preset: Some(("strict", PresetChoice::Plan(plan::Preset::Strict))),
        },
        Setup {
            name: "--preset conventional over the file's plan preset",
            quire_toml: Some(PLAN),
            preset: Some(("conventional", PresetChoice::Commit(Preset::Conventional))),
        },
    ]
}

impl Setup {
    /// The library's check for texts from `source`, as the binary makes it.
    fn library(&self, source: MessageSource) -> CommitCheck {
        let options = CheckOptions::new(source).preset(self.preset.map(|(_, choice)| choice));
        CommitCheck::new(options, self.quire_toml)
            .unwrap_or_else(|error| panic!("{}: {error}", self.name))
    }

    /// `--preset NAME`, or nothing.
    fn preset_args(&self) -> Vec<&'static str> {
        match self.preset {
            Some((name, _)) => vec!["--preset", name],
            None => Vec::new(),
        }
    }

    /// Writes the `quire.toml` (or removes the last one) in `folder`.
    fn install(&self, folder: &Path) {
        let path = folder.join("quire.toml");
        match self.quire_toml {
            Some(text) => fs::write(path, text).unwrap(),
            None => {
                let _ = fs::remove_file(path);
            }
        }
    }
}

/// The corpus's messages, in its order.
fn corpus() -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/data/commit-messages.cocogitto.jsonl");
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let messages: Vec<String> = text
        .lines()
        .map(|line| {
            let record: Value = serde_json::from_str(line).unwrap();
            record["message"].as_str().unwrap().to_owned()
        })
        .collect();
    assert!(messages.len() > 600, "{} messages", messages.len());
    messages
}

/// The file git's editor leaves for the commit-msg hook: the message, git's
/// instructions, and for some a `git commit -v` diff below the scissors.
fn editor_file(message: &str, index: usize) -> String {
    let mut file = format!(
        "{message}\n\n# Please enter the commit message for your changes. Lines starting\n# with '#' will be ignored.\n#\n"
    );
    if index.is_multiple_of(3) {
        file.push_str("# ------------------------ >8 ------------------------\n# Do not modify or remove the line above.\ndiff --git a/x b/x\n+# not a comment\n");
    }
    file
}

#[test]
fn the_hooks_verdicts_are_the_librarys() {
    let folder = tempfile::tempdir().unwrap();
    let messages = corpus();
    let file = folder.path().join("COMMIT_EDITMSG");
    let mut compared = 0;
    for (number, setup) in setups().iter().enumerate() {
        setup.install(folder.path());
        let check = setup.library(MessageSource::GitMessage);
        // Every message under the first setup, samples under the others:
        // a process each.
        let step = [1, 3, 7, 7, 7][number];
        for (index, message) in messages.iter().enumerate().step_by(step) {
            let text = editor_file(message, index);
            fs::write(&file, &text).unwrap();
            let mut args = vec!["check", "--git-message", "--json"];
            args.extend(setup.preset_args());
            args.push("COMMIT_EDITMSG");
            let output = quire(folder.path(), &args);
            let verdict = check
                .check(&text)
                .unwrap_or_else(|error| panic!("{}: {message:?}: {error}", setup.name));
            let printed: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
                panic!(
                    "{}: {message:?}: not JSON ({e}): {}",
                    setup.name,
                    stderr(&output)
                )
            });
            assert_eq!(
                printed,
                verdict.to_json().unwrap(),
                "{}: {message:?}",
                setup.name
            );
            assert_eq!(
                code(&output),
                if verdict.is_valid() { 0 } else { 1 },
                "{}: {message:?}",
                setup.name
            );
            compared += 1;
        }
    }
    assert!(compared > 1000, "{compared}");
}

/// A repository whose history is `messages`, oldest first, each stored
/// byte for byte (`git fast-import`: one process for them all).
fn history(messages: &[String]) -> tempfile::TempDir {
    let folder = tempfile::tempdir().unwrap();
    let init = git_output(folder.path(), &["init", "-q", "-b", "main"]);
    assert!(init.status.success(), "{}", stderr(&init));
    let mut stream = Vec::new();
    for message in messages {
        stream.extend_from_slice(
            b"commit refs/heads/main\ncommitter Test <test@example.com> 0 +0000\n",
        );
        stream.extend_from_slice(format!("data {}\n", message.len()).as_bytes());
        stream.extend_from_slice(message.as_bytes());
        stream.push(b'\n');
    }
    let mut import = git_command(folder.path())
        .args(["fast-import", "--quiet"])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    import.stdin.take().unwrap().write_all(&stream).unwrap();
    let output = import.wait_with_output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    folder
}

/// Every commit's message as git prints it (`%B`), by full id.
fn stored_messages(repo: &Path) -> HashMap<String, String> {
    let output = git_output(repo, &["log", "-z", "--encoding=UTF-8", "--format=%H%n%B"]);
    assert!(output.status.success(), "{}", stderr(&output));
    String::from_utf8(output.stdout)
        .unwrap()
        .split('\0')
        .filter(|record| !record.is_empty())
        .map(|record| {
            let (id, message) = record.split_once('\n').unwrap();
            (id.to_owned(), message.to_owned())
        })
        .collect()
}

#[test]
fn the_history_checks_verdicts_are_the_librarys() {
    let messages = corpus();
    let repo = history(&messages);
    let stored = stored_messages(repo.path());
    assert_eq!(stored.len(), messages.len());
    for setup in setups() {
        setup.install(repo.path());
        let check = setup.library(MessageSource::History);
        let mut args = vec!["check", "--range", "HEAD", "--json"];
        args.extend(setup.preset_args());
        let output = quire(repo.path(), &args);
        let printed: Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("{}: not JSON ({e}): {}", setup.name, stderr(&output)));
        let commits = printed["commits"].as_array().unwrap();
        assert_eq!(commits.len(), messages.len(), "{}", setup.name);
        let mut invalid = 0;
        let mut ignored = 0;
        for commit in commits {
            let mut commit = commit.as_object().unwrap().clone();
            let id = commit["id"].as_str().unwrap().to_owned();
            commit.remove("id");
            commit.remove("short_id");
            let message = &stored[&id];
            let verdict = check.check(message).unwrap();
            assert_eq!(
                Value::Object(commit),
                verdict.to_json().unwrap(),
                "{}: {message:?}",
                setup.name
            );
            invalid += usize::from(!verdict.is_valid());
            ignored += usize::from(verdict.is_ignored());
        }
        assert_eq!(
            printed["summary"],
            serde_json::json!({"checked": messages.len(), "invalid": invalid, "ignored": ignored}),
            "{}",
            setup.name
        );
        assert_eq!(code(&output), if invalid == 0 { 0 } else { 1 });
    }
}
