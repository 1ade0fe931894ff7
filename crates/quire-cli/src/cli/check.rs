//! `quire check`: parse, validate, report.
//!
//! Every commit message quire judges, whether from the commit-msg hook's
//! file (`--git-message`) or from git's history (`--range`, `--from`), goes
//! through one function, [`check_commit_message`]: which rules a message
//! must follow is decided there and nowhere else, so changing the rules
//! changes the hook and the history check together.

use std::sync::Arc;

use quire_grammar::commit::lint::{IgnoredKind, LintFinding, LintRules};
use quire_grammar::commit::{CommitMessage, check_commit, message_kind};
use quire_grammar::plan::{ParserConfig, PlanDiagnostic, PlanDocument, may_hold_sections, parse};
use serde_json::{Value, json};

use quire_grammar::diagnostics::{LineFeeds, escape_unprintable, one_line};

use super::{Outcome, SourceArgs, git_message, history, input, output, render};

pub(super) fn run(
    args: &SourceArgs,
    rules: &CommitRules,
    git_message: bool,
    json: bool,
) -> anyhow::Result<Outcome> {
    let limit = args.limit()?;
    let mut source = if git_message {
        // The editor's file may hold a diff below the scissors line: the
        // preset's limit applies to the message git keeps.
        let limit = args.limit()?.for_git_message();
        input::read_bytes_limited(args.file.as_deref(), &limit)?
    } else {
        input::read(args.file.as_deref(), &limit)?
    };
    if git_message {
        let message = git_message::cleanup(&source.text);
        if !message_kind(&message).is_generated() {
            limit.check_length(&source.name, &message)?;
        }
        source.text = Arc::from(message);
    }
    let verdict = match rules {
        CommitRules::Conventional { .. } => check_commit_message(&source.text, rules),
        // A plain document is checked as written: a `Merge ...` line is a
        // header like any other.
        CommitRules::Plan(config) if !git_message => Verdict::plan(&source.text, config),
        CommitRules::Plan(_) => check_commit_message(&source.text, rules),
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
/// command's options and `quire.toml`, and shared by every message checked.
#[derive(Clone, Debug)]
pub(super) enum CommitRules {
    /// Conventional Commits: commitlint's rules of a preset, as `quire.toml`
    /// adjusts them. A body that holds plan sections (constraints, tasks)
    /// is checked as a plan too, with `plan`.
    Conventional {
        /// The rules.
        lint: Box<LintRules>,
        /// The plan grammar's configuration for a body that is a plan.
        plan: ParserConfig,
    },
    /// The plan grammar's own rules (`--preset plan`, or a plan preset),
    /// the whole message read as a plan document.
    Plan(ParserConfig),
}

/// The judgement on one commit message: valid or not, or not checked at
/// all because git (or a release tool) wrote it; and the findings, to be
/// rendered for people ([`Verdict::report`]) or programs
/// ([`Verdict::json`]).
#[derive(Debug)]
pub(super) struct Verdict<'a> {
    /// The message judged (git's cleanup already applied).
    message: &'a str,
    /// The kind of message the rules skip (`merge`, `revert`, ...): written
    /// by git or a release tool, accepted without a look.
    ignored: Option<&'static str>,
    /// What commitlint's rules found.
    lint: Vec<LintFinding>,
    /// What the plan grammar found.
    plan: Vec<PlanDiagnostic>,
    /// The message's parts for `--json`.
    commit: Value,
}

/// Judges one commit message, given as git keeps it (after git's cleanup:
/// what `git log --format=%B` prints, or [`git_message::cleanup`] of the
/// commit-msg hook's file). This is the one place that decides which
/// messages pass; everything that checks a commit message calls it.
pub(super) fn check_commit_message<'a>(message: &'a str, rules: &CommitRules) -> Verdict<'a> {
    match rules {
        CommitRules::Conventional { lint, plan } => Verdict::conventional(message, lint, plan),
        CommitRules::Plan(config) => {
            // The grammar's kinds, named as the conventional rules name what
            // they ignore.
            let kind = message_kind(message);
            if let Some(ignored) = IgnoredKind::of_kind(&kind) {
                return Verdict {
                    message,
                    ignored: Some(ignored.name()),
                    lint: Vec::new(),
                    plan: Vec::new(),
                    commit: Value::Null,
                };
            }
            Verdict::plan(message, config)
        }
    }
}

impl<'a> Verdict<'a> {
    /// `message` checked with commitlint's rules; its body, when it holds
    /// plan sections, also with the plan grammar (what it says of the body:
    /// the header is the rules' to judge).
    fn conventional(message: &'a str, rules: &LintRules, config: &ParserConfig) -> Verdict<'a> {
        let checked = check_commit(message, rules);
        let plan = if checked.ignored.is_none() {
            body_plan_findings(message, &checked.message, config)
        } else {
            Vec::new()
        };
        let commit = serde_json::to_value(checked.summary()).unwrap_or(Value::Null);
        Verdict {
            message,
            ignored: checked.ignored.map(|kind| kind.name()),
            lint: checked.findings,
            plan,
            commit,
        }
    }

    /// `message` checked as a plan document, none ignored.
    fn plan(message: &'a str, config: &ParserConfig) -> Verdict<'a> {
        let outcome = parse(message, config);
        let findings = outcome.check_with(message, config);
        let commit = if outcome.document.header.is_some() {
            plan_commit_json(&outcome.document)
        } else {
            Value::Null
        };
        Verdict {
            message,
            ignored: None,
            lint: Vec::new(),
            plan: findings,
            commit,
        }
    }

    /// Whether the message passes: ignored, or without errors (warnings
    /// allowed).
    pub(super) fn is_valid(&self) -> bool {
        self.ignored.is_some()
            || !(self.lint.iter().any(LintFinding::is_error)
                || self.plan.iter().any(PlanDiagnostic::is_error))
    }

    /// Whether git wrote the message itself, so it was not checked.
    pub(super) fn is_ignored(&self) -> bool {
        self.ignored.is_some()
    }

    /// Writes the findings to stderr as reports naming `name` (a file, or a
    /// commit's short id) as their source.
    pub(super) fn report(&self, name: &str) {
        let text = self.report_text(name);
        if let Some(text) = text.strip_suffix('\n') {
            output::stderr(text);
        }
    }

    /// The reports [`Verdict::report`] writes, as one text.
    pub(super) fn report_text(&self, name: &str) -> String {
        let mut text = render::report_text(name, self.message, &self.lint);
        text.push_str(&render::report_text(name, self.message, &self.plan));
        text
    }

    /// The verdict as one JSON object: `valid`, `ignored` (and `ignored_as`,
    /// the kind of message skipped), `diagnostics` (each with its line and
    /// column) and `commit` (type, scope, breaking, description, body,
    /// footers).
    pub(super) fn json(&self) -> serde_json::Result<Value> {
        let mut diagnostics = render::json(self.message, &self.lint)?;
        if let (Value::Array(all), Value::Array(plan)) =
            (&mut diagnostics, render::json(self.message, &self.plan)?)
        {
            all.extend(plan);
        }
        Ok(json!({
            "valid": self.is_valid(),
            "ignored": self.ignored.is_some(),
            "ignored_as": self.ignored,
            "diagnostics": diagnostics,
            "commit": self.commit,
        }))
    }
}

/// The plan grammar's findings about a body that holds plan sections
/// (constraints or tasks), below the header; none for a body that is not a
/// plan, which is no fault in a commit message.
fn body_plan_findings(
    text: &str,
    message: &CommitMessage,
    config: &ParserConfig,
) -> Vec<PlanDiagnostic> {
    // Most bodies have no line a constraint or task could be: no parse.
    if message.body.is_none() || !may_hold_sections(text, config) {
        return Vec::new();
    }
    let outcome = parse(text, config);
    let document = &outcome.document;
    let holds_plan = document.constraints.as_ref().is_some_and(|c| !c.is_empty())
        || document.tasks.as_ref().is_some_and(|t| !t.is_empty());
    if !holds_plan {
        return Vec::new();
    }
    let header_end = message.header.span.end;
    outcome
        .check_with(text, config)
        .into_iter()
        .filter(|finding| finding.span.start > header_end)
        .collect()
}

/// The plan grammar's reading of a commit message for `--json`.
fn plan_commit_json(document: &PlanDocument) -> Value {
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
        CommitRules::Conventional {
            lint: Box::new(LintRules::conventional()),
            plan: ParserConfig::COMMIT_MESSAGE,
        }
    }

    fn plan_rules() -> CommitRules {
        CommitRules::Plan(ParserConfig::COMMIT_MESSAGE)
    }

    #[test]
    fn messages_git_writes_are_ignored_and_valid() {
        let verdict = check_commit_message("Merge branch 'topic'\n", &rules());
        assert!(verdict.is_ignored() && verdict.is_valid());
        let json = verdict.json().unwrap();
        assert_eq!(
            (&json["ignored"], &json["ignored_as"]),
            (&json!(true), &json!("merge"))
        );
        let verdict = check_commit_message("Merge branch 'topic'\n", &plan_rules());
        assert!(verdict.is_ignored() && verdict.is_valid());
        let json = verdict.json().unwrap();
        assert_eq!(json["commit"], Value::Null);
        // Named as the conventional rules name it, not just "generated".
        assert_eq!(json["ignored_as"], json!("merge"));
        let verdict = check_commit_message("Merge two lists\n", &plan_rules());
        assert!(!verdict.is_ignored() && !verdict.is_valid());
    }

    #[test]
    fn a_body_that_is_a_plan_is_checked_as_one_and_another_body_is_not() {
        let plan = "feat(parser): add tasks\n\nWhy.\n\n- [ ]: First\n- [ ]:\n";
        let verdict = check_commit_message(plan, &rules());
        assert!(
            !verdict.plan.is_empty() && !verdict.is_valid(),
            "{verdict:?}"
        );
        assert!(verdict.plan.iter().all(|finding| finding.span.start > 23));
        let prose = "feat: add tasks\n\n- a list\n- of things\n";
        let verdict = check_commit_message(prose, &rules());
        assert!(verdict.plan.is_empty() && verdict.is_valid(), "{verdict:?}");
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
        let verdict = check_commit_message("feat(cli)!: Add x\n\nWhy.\n", &plan_rules());
        assert!(verdict.is_valid());
        let verdict = check_commit_message("feat(cli)!: add x\n\nWhy.\n", &rules());
        assert!(verdict.is_valid());
        let json = verdict.json().unwrap();
        assert_eq!(json["commit"]["type"], "feat");
        assert_eq!(json["commit"]["scope"], "cli");
        assert_eq!(json["commit"]["breaking"], true);
        assert_eq!(json["commit"]["description"], "add x");
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
