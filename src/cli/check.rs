//! `quire check`: parse, validate, report.
//!
//! Every commit message quire judges, whether from the commit-msg hook's
//! file (`--git-message`) or from git's history (`--range`, `--from`), goes
//! through one function, [`check_commit_message`]: which rules a message
//! must follow is decided there and nowhere else, so changing the rules
//! changes the hook and the history check together.

use std::sync::Arc;

use quire::diagnostics::{LineFeeds, escape_unprintable, one_line};
use quire::plan::{ParserConfig, PlanDiagnostic, PlanDocument, parse};
use serde_json::{Value, json};

use super::{Outcome, SourceArgs, git_message, history, input, output, render};

pub(super) fn run(args: &SourceArgs, git_message: bool, json: bool) -> anyhow::Result<Outcome> {
    let limit = args.limit()?;
    let mut source = if git_message {
        // The editor's file may hold a diff below the scissors line: the
        // preset's limit applies to the message git keeps.
        let limit = args.limit()?.for_git_message();
        input::read_bytes_limited(args.file.as_deref(), &limit)?
    } else {
        input::read(args.file.as_deref(), &limit)?
    };
    let rules = args.commit_rules()?;
    if git_message {
        let message = git_message::cleanup(&source.text);
        if !git_message::is_generated_by_git(&message) {
            limit.check_length(&source.name, &message)?;
        }
        source.text = Arc::from(message);
    }
    let verdict = if git_message {
        check_commit_message(&source.text, &rules)
    } else {
        // A plain document is checked as written: no git cleanup, and a
        // `Merge ...` line is a header like any other.
        Verdict::checked(&source.text, &rules)
    };
    if json {
        output::stdout_json(&verdict.json()?)?;
    } else {
        verdict.report(&source.name);
    }
    Ok(if verdict.is_valid() {
        Outcome::Success
    } else {
        Outcome::Findings
    })
}

/// The rules a commit message is checked against, made once from the
/// command's options and shared by every message checked.
#[derive(Clone, Debug)]
pub(super) struct CommitRules {
    /// The plan grammar's configuration (preset).
    config: ParserConfig,
}

impl CommitRules {
    pub(super) fn new(config: ParserConfig) -> CommitRules {
        CommitRules { config }
    }
}

/// The judgement on one commit message: valid or not, or not checked at
/// all because git (or a release tool) wrote it; and the findings, to be
/// rendered for people ([`Verdict::report`]) or programs
/// ([`Verdict::json`]).
#[derive(Debug)]
pub(super) struct Verdict<'a> {
    /// The message judged (git's cleanup already applied).
    message: &'a str,
    /// Written by git itself (a merge, a revert, an autosquash marker):
    /// accepted without a look.
    ignored: bool,
    findings: Vec<PlanDiagnostic>,
    /// The parsed message, when it has a header.
    document: Option<PlanDocument>,
}

/// Judges one commit message, given as git keeps it (after git's cleanup:
/// what `git log --format=%B` prints, or [`git_message::cleanup`] of the
/// commit-msg hook's file). This is the one place that decides which
/// messages pass; everything that checks a commit message calls it.
pub(super) fn check_commit_message<'a>(message: &'a str, rules: &CommitRules) -> Verdict<'a> {
    if git_message::is_generated_by_git(message) {
        return Verdict {
            message,
            ignored: true,
            findings: Vec::new(),
            document: None,
        };
    }
    Verdict::checked(message, rules)
}

impl<'a> Verdict<'a> {
    /// `message` checked against `rules`, with no message ignored.
    fn checked(message: &'a str, rules: &CommitRules) -> Verdict<'a> {
        let outcome = parse(message, &rules.config);
        let findings = outcome.check_with(message, &rules.config);
        let document = outcome
            .document
            .header
            .is_some()
            .then_some(outcome.document);
        Verdict {
            message,
            ignored: false,
            findings,
            document,
        }
    }

    /// Whether the message passes: ignored, or without errors (warnings
    /// allowed).
    pub(super) fn is_valid(&self) -> bool {
        self.ignored || !self.findings.iter().any(PlanDiagnostic::is_error)
    }

    /// Whether git wrote the message itself, so it was not checked.
    pub(super) fn is_ignored(&self) -> bool {
        self.ignored
    }

    /// Writes the findings to stderr as reports naming `name` (a file, or a
    /// commit's short id) as their source.
    pub(super) fn report(&self, name: &str) {
        render::report(name, self.message, &self.findings);
    }

    /// The reports [`Verdict::report`] writes, as text.
    pub(super) fn report_text(&self, name: &str) -> String {
        render::report_text(name, self.message, &self.findings)
    }

    /// The verdict as one JSON object: `valid`, `ignored`, `diagnostics`
    /// (each with its line and column) and `commit` (what the header says,
    /// the body and the footers; `null` without a header).
    pub(super) fn json(&self) -> serde_json::Result<Value> {
        let commit = match &self.document {
            Some(document) => {
                let header = document.header();
                json!({
                    "type": header.and_then(|header| header.commit_type()),
                    "scope": header.and_then(|header| header.scope()),
                    "breaking": header.is_some_and(|header| header.is_breaking()),
                    "description": header.and_then(|header| header.title()),
                    "body": document.description(),
                    "footers": [],
                })
            }
            None => Value::Null,
        };
        Ok(json!({
            "valid": self.is_valid(),
            "ignored": self.ignored,
            "diagnostics": render::json(self.message, &self.findings)?,
            "commit": commit,
        }))
    }
}

/// `quire check --range RANGE` (`--from REV` is `REV..HEAD`): every commit
/// of the range through [`check_commit_message`], newest first. Each
/// invalid commit gets a report on stderr headed by its short id and
/// header; a summary line ends it. With `json`, standard output gets one
/// JSON object, streamed a commit a line: `{"commits":[{"id", "short_id",
/// "valid", "ignored", "diagnostics", "commit"}, ...], "summary":
/// {"checked", "invalid", "ignored"}}`.
pub(super) fn run_range(range: &str, rules: &CommitRules, json: bool) -> anyhow::Result<Outcome> {
    let here = std::env::current_dir().map_err(|error| {
        anyhow::anyhow!(
            "cannot read the current folder: {}",
            output::io_words(&error)
        )
    })?;
    let mut history = history::History::open(&here, range)?;
    let mut summary = Summary::default();
    // JSON written in chunks, not a write per commit.
    let mut pending = String::new();
    while let Some(commit) = history.next_commit()? {
        let verdict = check_commit_message(&commit.message, rules);
        summary.count(&verdict);
        if json {
            let mut value = verdict.json()?;
            if let Value::Object(fields) = &mut value {
                let mut object = serde_json::Map::with_capacity(fields.len() + 3);
                object.insert("id".into(), commit.id.clone().into());
                object.insert("short_id".into(), commit.short_id.clone().into());
                if commit.had_invalid_utf8 {
                    object.insert("invalid_utf8".into(), true.into());
                }
                if commit.cut {
                    object.insert("cut".into(), true.into());
                }
                object.append(fields);
                value = Value::Object(object);
            }
            // The opening waits for the first commit: git's failure to
            // start (a bad range) leaves standard output empty.
            let separator = if summary.checked == 1 {
                "{\"commits\":[\n"
            } else {
                ",\n"
            };
            pending.push_str(separator);
            pending.push_str(&output::json_line(&value));
            if pending.len() >= JSON_CHUNK_BYTES {
                output::stdout(&pending)?;
                pending.clear();
            }
        } else if !verdict.is_valid() {
            let header = match commit.header() {
                "" => "(empty message)".into(),
                header => one_line(header),
            };
            let note = match (commit.had_invalid_utf8, commit.cut) {
                (_, true) => " (its message is longer than 4 MiB: only its start was checked)",
                (true, false) => {
                    " (its message is not UTF-8: shown with U+FFFD for the bytes that are not)"
                }
                (false, false) => "",
            };
            // The heading and the reports in one write.
            let heading = format!("✗ {} {header}{note}", commit.short_id);
            let heading = escape_unprintable(&heading, LineFeeds::Keep);
            let reports = verdict.report_text(&commit.short_id);
            let reports = reports.strip_suffix('\n').unwrap_or(&reports);
            output::stderr(&format!("{heading}\n{reports}"));
        }
    }
    history.finish()?;
    if json {
        let opening = if summary.checked == 0 {
            "{\"commits\":["
        } else {
            ""
        };
        output::stdout(&format!(
            "{pending}{opening}\n],\"summary\":{}}}\n",
            json!({
                "checked": summary.checked,
                "invalid": summary.invalid,
                "ignored": summary.ignored,
            })
        ))?;
    } else {
        output::message(&summary.line());
    }
    Ok(if summary.invalid == 0 {
        Outcome::Success
    } else {
        Outcome::Findings
    })
}

/// How much `--range --json` output is gathered before it is written.
const JSON_CHUNK_BYTES: usize = 64 * 1024;

/// How many commits were checked, found invalid, and ignored.
#[derive(Debug, Default)]
struct Summary {
    checked: usize,
    invalid: usize,
    ignored: usize,
}

impl Summary {
    fn count(&mut self, verdict: &Verdict<'_>) {
        self.checked += 1;
        self.invalid += usize::from(!verdict.is_valid());
        self.ignored += usize::from(verdict.is_ignored());
    }

    /// `checked 1,234 commits: 3 invalid, 12 ignored`.
    fn line(&self) -> String {
        let commits = if self.checked == 1 {
            "commit"
        } else {
            "commits"
        };
        format!(
            "checked {} {commits}: {} invalid, {} ignored",
            grouped(self.checked),
            grouped(self.invalid),
            grouped(self.ignored)
        )
    }
}

/// `1234567` -> `1,234,567`.
fn grouped(number: usize) -> String {
    let digits = number.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> CommitRules {
        CommitRules::new(ParserConfig::COMMIT_MESSAGE)
    }

    #[test]
    fn messages_git_writes_are_ignored_and_valid() {
        let verdict = check_commit_message("Merge branch 'topic'\n", &rules());
        assert!(verdict.is_ignored() && verdict.is_valid());
        assert_eq!(verdict.json().unwrap()["commit"], Value::Null);
    }

    #[test]
    fn a_message_without_a_type_is_invalid() {
        let verdict = check_commit_message("bad message without type\n", &rules());
        assert!(!verdict.is_ignored());
        assert!(!verdict.is_valid());
        let json = verdict.json().unwrap();
        assert_eq!(json["valid"], false);
        assert_eq!(json["diagnostics"][0]["line"], 1);
    }

    #[test]
    fn a_conventional_header_is_valid_and_described() {
        let verdict = check_commit_message("feat(cli)!: Add x\n\nWhy.\n", &rules());
        assert!(verdict.is_valid());
        let json = verdict.json().unwrap();
        assert_eq!(json["commit"]["type"], "feat");
        assert_eq!(json["commit"]["scope"], "cli");
        assert_eq!(json["commit"]["breaking"], true);
        assert_eq!(json["commit"]["description"], "Add x");
    }

    #[test]
    fn summaries_group_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1234), "1,234");
        assert_eq!(grouped(1_234_567), "1,234,567");
        let summary = Summary {
            checked: 1234,
            invalid: 3,
            ignored: 12,
        };
        assert_eq!(
            summary.line(),
            "checked 1,234 commits: 3 invalid, 12 ignored"
        );
    }

    #[test]
    fn an_empty_message_is_invalid() {
        assert!(!check_commit_message("", &rules()).is_valid());
    }
}
