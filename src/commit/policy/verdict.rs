//! The rules a commit message is checked against and the verdict on one
//! message: [`CommitRules::check_message`] is the one place that decides
//! which messages pass, for a hook's file, a document and git's history
//! alike.
//!
//! Under the `conventional` rules a message that is a plan document (plan
//! sections, constraints or tasks, below its header: what the planner
//! writes into a commit) is judged by the plan grammar's rules, as a whole;
//! any other message by commitlint's. The verdict says which judged it
//! ([`Verdict::judged_by`]).

use serde_json::{Value, json};

use crate::commit::lint::{IgnoredKind, LintFinding, LintRules};
use crate::commit::{CommitMessage, check_commit, message_kind};
use crate::diagnostics::{Diagnostic, DiagnosticCode, LineIndex};
use crate::plan::{ParserConfig, PlanDiagnostic, PlanDocument, may_hold_sections, parse};

/// The rules a commit message is checked against, made once (see
/// [`CommitCheck::new`](super::CommitCheck::new)) and shared by every
/// message checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CommitRules {
    /// Conventional Commits: commitlint's rules of a preset, as `quire.toml`
    /// adjusts them. A message whose body holds plan sections (constraints,
    /// tasks) is a plan document, judged by the plan grammar with `plan`.
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

impl CommitRules {
    /// Judges one commit message, given as git keeps it (after git's
    /// cleanup: what `git log --format=%B` prints). Messages git or a
    /// release tool writes (merges, reverts, `fixup!`, releases) are
    /// accepted without a look: as commitlint names them for the
    /// `conventional` rules, by the grammar's [`message_kind`] for the plan
    /// rules.
    pub fn check_message(&self, message: &str) -> Verdict {
        match self {
            CommitRules::Conventional { lint, plan } => Verdict::conventional(message, lint, plan),
            CommitRules::Plan(config) => {
                let kind = message_kind(message);
                match IgnoredKind::of_kind(&kind) {
                    Some(ignored) => Verdict::skipped(message, ignored),
                    None => Verdict::plan(message, config),
                }
            }
        }
    }

    /// Judges a document as written (`quire check FILE`): with the plan
    /// rules, a plan document, in which a `Merge ...` line is a header like
    /// any other; with the `conventional` rules, a commit message.
    pub fn check_document(&self, text: &str) -> Verdict {
        match self {
            CommitRules::Conventional { .. } => self.check_message(text),
            CommitRules::Plan(config) => Verdict::plan(text, config),
        }
    }
}

/// Which rules judged a text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JudgedBy {
    /// commitlint's rules (the `conventional` preset, as `quire.toml`
    /// adjusts them).
    Conventional,
    /// The plan grammar's rules: the text is a plan document (or the plan
    /// check was named).
    Plan,
}

impl JudgedBy {
    /// `conventional` or `plan`, as `--json`'s `rules` says it.
    pub fn name(self) -> &'static str {
        match self {
            JudgedBy::Conventional => "conventional",
            JudgedBy::Plan => "plan",
        }
    }
}

/// The judgement on one text: valid or not, or not checked at all because
/// git (or a release tool) wrote it; and the findings, with the text they
/// point into.
#[derive(Clone, Debug)]
pub struct Verdict {
    /// The text judged (for a hook's file, after git's cleanup).
    message: String,
    /// The kind of message the rules skip: written by git or a release
    /// tool, accepted without a look.
    ignored: Option<IgnoredKind>,
    /// What commitlint's rules found.
    lint: Vec<LintFinding>,
    /// What the plan grammar found.
    plan: Vec<PlanDiagnostic>,
    /// The message's parts for `--json`, or `null`.
    commit: Value,
    /// Which rules judged it; `None` when it was skipped.
    judged_by: Option<JudgedBy>,
}

impl Verdict {
    /// `message` checked with commitlint's rules; or, when its body holds
    /// plan sections, as a plan document by the plan grammar's rules.
    fn conventional(message: &str, rules: &LintRules, config: &ParserConfig) -> Verdict {
        let checked = check_commit(message, rules);
        if checked.ignored.is_none() && is_plan_document(message, &checked.message, config) {
            return Verdict::plan(message, config);
        }
        let commit = serde_json::to_value(checked.summary()).unwrap_or(Value::Null);
        Verdict {
            message: message.to_owned(),
            ignored: checked.ignored,
            lint: checked.findings,
            plan: Vec::new(),
            commit,
            judged_by: checked.ignored.is_none().then_some(JudgedBy::Conventional),
        }
    }

    /// `text` checked as a plan document, none ignored.
    fn plan(text: &str, config: &ParserConfig) -> Verdict {
        let outcome = parse(text, config);
        let findings = outcome.check_with(text, config);
        let commit = if outcome.document.header.is_some() {
            plan_commit_json(&outcome.document)
        } else {
            Value::Null
        };
        Verdict {
            message: text.to_owned(),
            ignored: None,
            lint: Vec::new(),
            plan: findings,
            commit,
            judged_by: Some(JudgedBy::Plan),
        }
    }

    /// `message` accepted without a look, as `ignored`.
    pub(super) fn skipped(message: &str, ignored: IgnoredKind) -> Verdict {
        Verdict {
            message: message.to_owned(),
            ignored: Some(ignored),
            lint: Vec::new(),
            plan: Vec::new(),
            commit: Value::Null,
            judged_by: None,
        }
    }

    /// Which rules judged the text; `None` when it was skipped
    /// ([`Verdict::ignored`]).
    pub fn judged_by(&self) -> Option<JudgedBy> {
        self.judged_by
    }

    /// The text judged, which every finding's span indexes: for a hook's
    /// file, the message after git's cleanup.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The kind of message skipped, when git or a release tool wrote it.
    pub fn ignored(&self) -> Option<IgnoredKind> {
        self.ignored
    }

    /// Whether the message was skipped ([`Verdict::ignored`]).
    pub fn is_ignored(&self) -> bool {
        self.ignored.is_some()
    }

    /// What commitlint's rules found.
    pub fn lint_findings(&self) -> &[LintFinding] {
        &self.lint
    }

    /// What the plan grammar found (for a text it judged).
    pub fn plan_findings(&self) -> &[PlanDiagnostic] {
        &self.plan
    }

    /// Whether the message passes: skipped, or without errors (warnings
    /// allowed). `quire check` exits with 0 when it does, 1 when not.
    pub fn is_valid(&self) -> bool {
        self.ignored.is_some()
            || !(self.lint.iter().any(LintFinding::is_error)
                || self.plan.iter().any(PlanDiagnostic::is_error))
    }

    /// The verdict as `quire check --json` prints it: `valid`, `ignored`
    /// (and `ignored_as`, the kind of message skipped), `rules` (which
    /// judged it: `conventional` or `plan`; `null` when skipped), `diagnostics` (the findings,
    /// each with its line and column) and `commit` (type, scope, breaking,
    /// description, body, footers; `null` for a skipped message or a text
    /// without a header).
    pub fn to_json(&self) -> serde_json::Result<Value> {
        let index = LineIndex::new(&self.message);
        let mut diagnostics = located(&index, &self.lint)?;
        diagnostics.extend(located(&index, &self.plan)?);
        Ok(json!({
            "valid": self.is_valid(),
            "ignored": self.ignored.is_some(),
            "ignored_as": self.ignored.map(IgnoredKind::name),
            "rules": self.judged_by.map(JudgedBy::name),
            "diagnostics": diagnostics,
            "commit": self.commit,
        }))
    }
}

/// Each diagnostic in the crate's JSON shape, with its line and column.
fn located<C: DiagnosticCode>(
    index: &LineIndex<'_>,
    diagnostics: &[Diagnostic<C>],
) -> serde_json::Result<Vec<Value>> {
    diagnostics
        .iter()
        .map(|diagnostic| serde_json::to_value(diagnostic.located(index)))
        .collect()
}

/// Whether a commit message is a plan document: its body holds plan
/// sections (constraints or tasks) below the header. A body that merely
/// mentions a list is no plan: it must parse as the plan grammar's
/// constraints or tasks.
fn is_plan_document(text: &str, message: &CommitMessage, config: &ParserConfig) -> bool {
    // Most bodies have no line a constraint or task could be: no parse.
    if message.body.is_none() || !may_hold_sections(text, config) {
        return false;
    }
    let outcome = parse(text, config);
    let document = &outcome.document;
    document.constraints.as_ref().is_some_and(|c| !c.is_empty())
        || document.tasks.as_ref().is_some_and(|t| !t.is_empty())
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
