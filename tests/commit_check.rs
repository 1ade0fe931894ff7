//! The whole check of a commit message, grammar and rules together, against
//! commitlint itself: for every message of the recorded corpus
//! (`tests/corpus/commitlint/rules.jsonl`: 631 messages of a public
//! project's history and 43 written so that every rule fails somewhere,
//! judged by @commitlint/config-conventional 20.5.3), `quire`'s
//! `conventional` preset fails the same rules, as errors and as warnings,
//! and ignores the same messages. `tests/commit_lint.rs` compares the rules
//! alone over commitlint's own parse; this compares what a user sees.

use std::collections::BTreeMap;

use quire_grammar::commit::check_commit;
use quire_grammar::commit::lint::{Level, LintRules};
use serde::Deserialize;

#[derive(Deserialize)]
struct Verdict {
    id: String,
    message: String,
    ignored: bool,
    errors: Vec<String>,
    warnings: Vec<String>,
}

/// Messages where quire's verdict differs from commitlint's, and why quire
/// is right (or why the difference is harmless).
const DIFFERENCES: &[(&str, &str)] = &[
    (
        "synthetic-21",
        // "fix: add\n\nbody\nRefs: #12": commitlint warns footer-leading-blank.
        "`Refs: #12` right under the body, with no blank line, is body text \
         in Conventional Commits (footers follow a blank line), so there is \
         no footer to lack one; commitlint's parser takes any line holding an \
         issue reference for the start of a footer",
    ),
    (
        "synthetic-23",
        // "...\n\nSigned-off-by: <100+ characters>": both fail the line.
        "the over-long line is a `Signed-off-by` trailer: a footer in \
         Conventional Commits and git, so quire fails footer-max-line-length \
         where commitlint, whose parser knows only `BREAKING CHANGE` and issue \
         references as footers, fails body-max-line-length; the same line is \
         refused with the same limit",
    ),
];

#[test]
fn every_corpus_message_gets_commitlints_verdict() {
    let rules = LintRules::conventional();
    let corpus = include_str!("corpus/commitlint/rules.jsonl");
    let differences: BTreeMap<&str, &str> = DIFFERENCES.iter().copied().collect();
    let mut disagreements = Vec::new();
    let (mut valid, mut invalid, mut ignored) = (0, 0, 0);
    for line in corpus.lines().filter(|line| !line.is_empty()) {
        let expected: Verdict = serde_json::from_str(line).unwrap();
        let checked = check_commit(&expected.message, &rules);
        let names = |level: Level| {
            let mut names: Vec<String> = checked
                .findings
                .iter()
                .filter(|finding| rules.get(finding.code).level == level)
                .map(|finding| finding.code.name().to_owned())
                .collect();
            names.sort();
            names.dedup();
            names
        };
        let mut errors = expected.errors.clone();
        errors.sort();
        errors.dedup();
        let mut warnings = expected.warnings.clone();
        warnings.sort();
        warnings.dedup();
        let got = (
            checked.ignored.is_some(),
            names(Level::Error),
            names(Level::Warning),
        );
        let want = (expected.ignored, errors, warnings);
        match (got == want, differences.contains_key(expected.id.as_str())) {
            (true, true) => disagreements.push(format!(
                "{}: listed as a difference but now agrees; remove it",
                expected.id
            )),
            (false, false) => disagreements.push(format!(
                "{}: {:?}\n  quire      (ignored, errors, warnings) {:?}\n  commitlint (ignored, errors, warnings) {:?}",
                expected.id, expected.message, got, want
            )),
            _ => {}
        }
        match (checked.ignored, checked.is_valid()) {
            (Some(_), _) => ignored += 1,
            (None, true) => valid += 1,
            (None, false) => invalid += 1,
        }
    }
    eprintln!("corpus: {valid} valid, {invalid} invalid, {ignored} ignored");
    assert!(
        disagreements.is_empty(),
        "{} disagreements with commitlint:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
}

/// Issue 27: judging plan documents by the plan grammar under the default
/// rules moves no verdict of the corpus: `quire check` on a document and on
/// the history gives every message commitlint's verdict (the hook's file is
/// cleaned up as git does first, so trailing blanks commitlint sees are
/// gone), and none is read as a plan document.
#[test]
fn the_default_check_gives_commitlints_verdict_on_every_corpus_message() {
    use quire_grammar::commit::policy::{CheckOptions, CommitCheck, JudgedBy, MessageSource};

    let corpus = include_str!("corpus/commitlint/rules.jsonl");
    let mut checked = 0;
    for source in [
        MessageSource::GitMessage,
        MessageSource::Document,
        MessageSource::History,
    ] {
        let check = CommitCheck::new(CheckOptions::new(source), None).unwrap();
        for line in corpus.lines().filter(|line| !line.is_empty()) {
            let expected: Verdict = serde_json::from_str(line).unwrap();
            let verdict = check.check(&expected.message).unwrap();
            assert_ne!(verdict.judged_by(), Some(JudgedBy::Plan), "{}", expected.id);
            let valid = expected.ignored || expected.errors.is_empty();
            if source != MessageSource::GitMessage {
                assert_eq!(verdict.is_valid(), valid, "{} ({source:?})", expected.id);
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 3 * 674);
}
