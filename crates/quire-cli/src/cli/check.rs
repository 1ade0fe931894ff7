//! `quire check`: read, judge, report.
//!
//! Which rules a commit message gets and the verdict on it are the
//! library's (`quire_grammar::commit::policy`): a [`CommitCheck`] made once
//! from `--preset` and `quire.toml` judges every text, whether the commit-msg
//! hook's file (`--git-message`), a document, or a message of git's history
//! (`--range`, `--from`). This module reads the texts and prints verdicts.

use quire_grammar::commit::looks_like_squash_title;
use quire_grammar::commit::policy::{
    CommitCheck, CommitRules, JudgedBy, MessageSource, TooLong, Verdict,
};
use serde_json::{Value, json};

use quire_grammar::diagnostics::{LineFeeds, escape_unprintable, one_line};

use super::{Outcome, SourceArgs, history, input, output, render};

pub(super) fn run(args: &SourceArgs, check: &CommitCheck, json: bool) -> anyhow::Result<Outcome> {
    let limit = args.limit()?;
    // The editor's file may hold a diff below the scissors line: the
    // preset's limit applies to the message git keeps, which the check
    // counts.
    let limit = match check.source() {
        MessageSource::GitMessage => limit.for_git_message(),
        MessageSource::Document | MessageSource::History => limit,
    };
    let source = input::read_bytes_limited(args.file.as_deref(), &limit)?;
    let verdict = check
        .check(&source.text)
        .map_err(|too_long| too_many_characters(&source.name, &too_long))?;
    if json {
        output::stdout_json(&verdict.to_json()?)?;
    } else {
        report(&verdict, &source.name);
        let afterword = afterword(check, &verdict, &source.name);
        if !verdict.is_valid() && !afterword.is_empty() {
            output::message(&afterword);
        }
    }
    Ok(if verdict.is_valid() {
        Outcome::Success
    } else {
        Outcome::Findings
    })
}

/// What follows the reports of a message that fails: which rules judged it
/// and how to have the other judge it; a hint for an untyped squash-merge
/// title; and, in the commit-msg hook, that the commit was aborted, where
/// git keeps the message and how to commit once without the check.
fn afterword(check: &CommitCheck, verdict: &Verdict, name: &str) -> String {
    let named_plan = matches!(check.rules(), CommitRules::Plan(_));
    let mut lines = Vec::new();
    match verdict.judged_by() {
        Some(JudgedBy::Conventional) => {
            lines.push(
                "judged by the Conventional Commits rules (preset `conventional`); a plan document \
                 (tasks or constraints below the header) is judged by the plan grammar, and \
                 `--preset plan` judges any text as one"
                    .to_owned(),
            );
            if looks_like_squash_title(verdict.message()) {
                lines.push(
                    "this header looks like a squash-merge title without a type; to let such \
                     titles through, add `ignores = [\"* (#*)\"]` under [commit] in quire.toml"
                        .to_owned(),
                );
            }
        }
        Some(JudgedBy::Plan) if !named_plan => lines.push(
            "judged as a plan document (its body has tasks or constraints) by the plan grammar's \
             rules"
                .to_owned(),
        ),
        _ => {}
    }
    if check.source() == MessageSource::GitMessage {
        lines.push(format!(
            "the commit was aborted; git keeps your message in {name}: `git commit -e -F {name}` \
             opens it again, and `git commit --no-verify` commits once without this check"
        ));
    }
    lines
        .iter()
        .map(|line| format!("quire: {line}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The refusal of a text with more characters than the preset allows,
/// naming the file as `input` names it for every command.
fn too_many_characters(name: &str, too_long: &TooLong) -> input::TooLong {
    input::TooLong::characters(
        name,
        too_long.preset().name(),
        too_long.characters(),
        too_long.limit(),
    )
}

/// Writes the verdict's findings to stderr as reports naming `name` (a
/// file, or a commit's short id) as their source.
fn report(verdict: &Verdict, name: &str) {
    let text = report_text(verdict, name);
    if let Some(text) = text.strip_suffix('\n') {
        output::stderr(text);
    }
}

/// The reports [`report`] writes, as one text: the rules' findings, then
/// the plan grammar's.
fn report_text(verdict: &Verdict, name: &str) -> String {
    let mut text = render::report_text(name, verdict.message(), verdict.lint_findings());
    text.push_str(&render::report_text(
        name,
        verdict.message(),
        verdict.plan_findings(),
    ));
    text
}

/// `quire check --range RANGE` (`--from REV` is `REV..HEAD`): every commit
/// of the range through `check` (made for [`MessageSource::History`]),
/// newest first. Each
/// invalid commit gets a report on stderr headed by its short id and
/// header; a summary line ends it. With `json`, standard output gets one
/// JSON object, streamed a commit a line: `{"commits":[{"id", "short_id",
/// "valid", "ignored", "diagnostics", "commit"}, ...], "summary":
/// {"checked", "invalid", "ignored"}}`.
pub(super) fn run_range(range: &str, check: &CommitCheck, json: bool) -> anyhow::Result<Outcome> {
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
        let verdict = check
            .check(&commit.message)
            .map_err(|too_long| too_many_characters(&commit.short_id, &too_long))?;
        summary.count(&verdict);
        if json {
            let mut value = verdict.to_json()?;
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
            let reports = report_text(&verdict, &commit.short_id);
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
    fn count(&mut self, verdict: &Verdict) {
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
}
