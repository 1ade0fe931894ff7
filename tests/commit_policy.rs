//! `quire check`'s policy as the library gives it
//! (`quire_grammar::commit::policy`), over every message of a real history
//! (`tests/data/commit-messages.cocogitto.jsonl`) and several `quire.toml`s
//! and presets: the verdicts are those of the parts the policy is
//! documented to combine (git's cleanup, commitlint's rules as the file
//! adjusts them, the plan grammar), and the precedence between the command
//! line and the file holds on every message.
//!
//! That the `quire` binary prints exactly these verdicts is checked where
//! the binary is built: `crates/quire-cli/tests/cli_check_library.rs`.

use quire_grammar::commit::config::CommitConfig;
use quire_grammar::commit::lint::Rule;
use quire_grammar::commit::policy::{
    CheckOptions, CommitCheck, CommitRules, MessageSource, PresetChoice, Verdict,
};
use quire_grammar::commit::{Preset, check_commit, git_cleanup};
use quire_grammar::plan;
use serde::Deserialize;

const CORPUS: &str = include_str!("data/commit-messages.cocogitto.jsonl");

#[derive(Deserialize)]
struct Record {
    message: String,
}

fn corpus() -> Vec<String> {
    let messages: Vec<String> = CORPUS
        .lines()
        .map(|line| {
            serde_json::from_str::<Record>(line)
                .unwrap_or_else(|e| panic!("{line}: {e}"))
                .message
        })
        .collect();
    assert!(messages.len() > 600);
    messages
}

const TYPES: &str = "[commit]\ntypes = [\"feat\", \"fix\", \"docs\"]\n\n[commit.rules]\nsubject-case = \"off\"\nheader-max-length = [\"error\", 60]\n";
const PLAN: &str = "[commit]\npreset = \"plan\"\n";

fn check(source: MessageSource, preset: Option<PresetChoice>, config: Option<&str>) -> CommitCheck {
    CommitCheck::new(CheckOptions::new(source).preset(preset), config)
        .unwrap_or_else(|error| panic!("{error}"))
}

/// The parts of a verdict `--json` shows.
fn json(verdict: &Verdict) -> serde_json::Value {
    verdict.to_json().unwrap()
}

/// The hook's file for `message`: git's instructions below it.
fn editor_file(message: &str) -> String {
    format!("{message}\n\n# Please enter the commit message for your changes.\n#\n")
}

#[test]
fn a_hooks_file_is_judged_as_the_message_git_keeps() {
    for config in [None, Some(TYPES), Some(PLAN)] {
        let hook = check(MessageSource::GitMessage, None, config);
        let history = check(MessageSource::History, None, config);
        for message in corpus() {
            let file = editor_file(&message);
            let kept = git_cleanup(&file);
            let from_hook = hook.check(&file).unwrap();
            assert_eq!(from_hook.message(), kept);
            assert_eq!(
                json(&from_hook),
                json(&history.check(&kept).unwrap()),
                "{config:?}: {message:?}"
            );
        }
    }
}

#[test]
fn the_conventional_verdict_is_the_rules_verdict_as_the_file_adjusts_them() {
    let lint = CommitConfig::parse(TYPES).unwrap().lint_rules().unwrap();
    let check = check(MessageSource::History, None, Some(TYPES));
    let CommitRules::Conventional { lint: made, .. } = check.rules() else {
        panic!("{:?}", check.rules());
    };
    assert_eq!(**made, lint);
    let mut refused_types = 0;
    for message in corpus() {
        let verdict = check.check(&message).unwrap();
        let checked = check_commit(&message, &lint);
        assert_eq!(verdict.ignored(), checked.ignored, "{message:?}");
        assert_eq!(verdict.lint_findings(), checked.findings, "{message:?}");
        // The corpus's bodies are prose, not plans.
        assert!(verdict.plan_findings().is_empty(), "{message:?}");
        assert_eq!(verdict.is_valid(), checked.is_valid(), "{message:?}");
        let type_refused = checked
            .findings
            .iter()
            .any(|finding| finding.code == Rule::TypeEnum);
        refused_types += usize::from(type_refused);
    }
    // `chore`, `ci`, `refactor` are common in the corpus: the file's list
    // does refuse them.
    assert!(refused_types > 100, "{refused_types}");
}

#[test]
fn the_command_line_wins_over_the_files_preset() {
    let conventional = Some(PresetChoice::Commit(Preset::Conventional));
    let plan = Some(PresetChoice::Commit(Preset::Plan));
    let by_file = check(MessageSource::History, None, Some(PLAN));
    let named_plan = check(MessageSource::History, plan, None);
    let overridden = check(MessageSource::History, conventional, Some(PLAN));
    let default = check(MessageSource::History, None, None);
    assert_eq!(
        by_file.rules(),
        &CommitRules::Plan(plan::ParserConfig::COMMIT_MESSAGE)
    );
    let mut differ = 0;
    for message in corpus() {
        let plan_verdict = json(&by_file.check(&message).unwrap());
        assert_eq!(plan_verdict, json(&named_plan.check(&message).unwrap()));
        let conventional_verdict = json(&overridden.check(&message).unwrap());
        assert_eq!(
            conventional_verdict,
            json(&default.check(&message).unwrap())
        );
        differ += usize::from(plan_verdict != conventional_verdict);
    }
    // The two checks are different checks, not two spellings of one.
    assert!(differ > 100, "{differ}");
}

#[test]
fn a_plan_preset_reads_documents_with_its_own_syntax_and_limits() {
    let strict = Some(PresetChoice::Plan(plan::Preset::Strict));
    let check = check(MessageSource::Document, strict, Some(TYPES));
    for message in corpus() {
        let outcome = plan::parse(&message, &plan::ParserConfig::STRICT);
        let findings = outcome.check_with(&message, &plan::ParserConfig::STRICT);
        let verdict = check.check(&message).unwrap();
        assert!(verdict.ignored().is_none(), "{message:?}");
        assert_eq!(verdict.plan_findings(), findings, "{message:?}");
        assert!(verdict.lint_findings().is_empty(), "{message:?}");
    }
}
