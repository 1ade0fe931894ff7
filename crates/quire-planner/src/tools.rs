//! The six workflow tools over a plan store: load, parse, edit, format,
//! re-parse and validate, and only then store.

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::edit::{self, Goal, Marked, Rewrites};
use super::error::{PlanEditError, PlannerError};
use super::findings::Findings;
use super::stage::{Stage, fresh_start, guidance};
use super::store::{self, PlanStore};
use quire_fs::Workspace;
use quire_grammar::diagnostics::one_line;
use quire_grammar::plan::{
    ParseOutcome, ParserConfig, PlanDiagnostic, PlanDocument, Task, format, parse, validate_with,
};

/// `set_overarching_goal`'s parameters.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SetOverarchingGoalRequest {
    /// The goal to set: the header's type, scope and title.
    pub goal: Goal,
    /// Start the next plan instead of changing this one's goal: Jujutsu
    /// starts a new change (`jj new`) and keeps the old plan on its change;
    /// git and plan-file stores replace the stored plan (its text is
    /// returned as `previous_plan`). Needed once a plan is finished.
    #[serde(default)]
    pub start_new: bool,
}

/// `set_detailed_goal`'s parameters.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SetDetailedGoalRequest {
    /// Why the change is needed, what it changes and how, as one paragraph;
    /// optionally followed by constraint lines such as `- Never: skip the tests`.
    pub description: String,
}

/// `set_plan`'s parameters.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SetPlanRequest {
    /// Tasks as [checked, text, children] tuples, at most 4 levels below the top.
    #[cfg_attr(feature = "schema", schemars(schema_with = "plan_schema"))]
    pub plan: Vec<Task>,
}

/// The schema of `plan`: an array of `Task` tuples. `Task` is recursive, so
/// it is a definition the generator places in the root schema's `$defs`
/// (where `#/$defs/Task` resolves), not one nested under `properties.plan`,
/// where a reference from the root would point to nowhere.
#[cfg(feature = "schema")]
fn plan_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    /// One task: `[checked, text, children]`.
    struct TaskTuple;

    impl schemars::JsonSchema for TaskTuple {
        fn schema_name() -> std::borrow::Cow<'static, str> {
            "Task".into()
        }

        fn schema_id() -> std::borrow::Cow<'static, str> {
            "quire_planner::SetPlanRequest::Task".into()
        }

        fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
            let task = generator.subschema_for::<TaskTuple>();
            schemars::json_schema!({
                "type": "array",
                "prefixItems": [
                    { "type": "boolean", "description": "done" },
                    { "type": "string", "description": "what to do, one line" },
                    { "type": "array", "items": task, "description": "subtasks" }
                ],
                "minItems": 3,
                "maxItems": 3
            })
        }
    }

    let task = generator.subschema_for::<TaskTuple>();
    schemars::json_schema!({
        "type": "array",
        "description": "Tasks as [checked, text, children] tuples, e.g. [[false, \"Parse task lines\", [[false, \"Handle indentation\", []]]]].",
        "items": task
    })
}

/// `mark_task`'s parameters.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct MarkTaskRequest {
    /// The task's path as the tools list it (`2`, `1.1`, `2.3.1`: exactly
    /// that task), or its text (an exact match wins, else a unique part of it).
    pub task_id: String,
    /// `true` (the default) marks it done, `false` reopens it.
    #[serde(default = "done")]
    pub completed: bool,
}

fn done() -> bool {
    true
}

/// Parameters of the tools that take none.
#[derive(Clone, Debug, Default, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct NoParameters {}

/// Every planner tool's result.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PlannerResponse {
    /// The workflow stage: 0, 1, 2 (the spec's 2/3), 4, 5 or 6; null when
    /// the stored text is not a plan (`stage_name` "unreadable").
    pub stage: Option<u8>,
    /// The stage by name (`empty`, `goal`, ..., `complete`), or `unreadable`.
    pub stage_name: Stage,
    /// Where the plan is kept: `jj`, `git` or `file`.
    pub store: String,
    /// The plan in the JSON shape of the plan grammar (absent sections absent).
    // Described to clients as any JSON, as it always was.
    #[cfg_attr(feature = "schema", schemars(with = "serde_json::Value"))]
    pub document: PlanDocument,
    /// The plan as stored.
    pub rendered: String,
    /// What this call did (empty for `gather_requirements`).
    pub summary: String,
    /// What to do next, and with which tool.
    pub guidance: String,
    /// The working copy's changes beneath the root, when there are any
    /// (with --plan-file too, when the root is in a jj or git working copy):
    /// the changed files as `jj diff --summary` / `git status --short` list
    /// them, a blank line, then their diff in git's format (`jj diff --git`;
    /// for git, `git diff` against the last commit plus each untracked file
    /// as a new file, at most 100), cut at 64 KiB at a line end with a last
    /// line `[the diff is cut at …: … not shown]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changes: Option<String>,
    /// What in the stored plan breaks the plan's rules, with its line and
    /// how to fix it: the next edit fails unless it fixes these.
    pub errors: Vec<String>,
    /// Things to look at that do not block (the scope's case, text the
    /// parser ignores), with their lines.
    pub warnings: Vec<String>,
    /// The text `start_new` replaced, when the store could not keep it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_plan: Option<String>,
}

/// How long a call waits for another writer of the plan.
pub const LOCK_TIMEOUT: Duration = Duration::from_secs(10);

/// The planner toolset over one workspace. Read-modify-write of the plan is
/// serialized across threads and processes, so concurrent calls never lose
/// an update.
pub struct PlannerTools {
    workspace: Workspace,
    plan_file: Option<PathBuf>,
    config: ParserConfig,
    lock_timeout: Duration,
}

impl PlannerTools {
    /// Tools for the repository the workspace is in, or for the plan file
    /// `plan_file` (relative to the workspace root) when one is given.
    pub fn new(workspace: Workspace, plan_file: Option<PathBuf>) -> Self {
        PlannerTools {
            workspace,
            plan_file,
            config: ParserConfig::COMMIT_MESSAGE,
            lock_timeout: LOCK_TIMEOUT,
        }
    }

    /// Waits at most `timeout` for another writer of the plan (default
    /// [`LOCK_TIMEOUT`]).
    pub fn with_lock_timeout(mut self, timeout: Duration) -> Self {
        self.lock_timeout = timeout;
        self
    }

    fn store(&self) -> Result<Box<dyn PlanStore>, PlannerError> {
        Ok(store::detect(&self.workspace, self.plan_file.as_deref())?)
    }

    /// `set_overarching_goal`: sets (or replaces) the header, keeping the
    /// rest of the plan; with `start_new`, starts the next plan instead.
    /// A finished plan's goal changes only with `start_new`.
    pub fn set_overarching_goal(
        &self,
        request: &SetOverarchingGoalRequest,
    ) -> Result<PlannerResponse, PlannerError> {
        if request.start_new {
            return self.start_new(&request.goal);
        }
        let rewrites = Rewrites {
            header: true,
            ..Rewrites::default()
        };
        self.edit(rewrites, |document, context| {
            if Stage::of(document) == Stage::Complete {
                return Err(PlanEditError::new(format!(
                    "the plan is finished (stage 6), so its goal is not changed; nothing was stored. \
                     To start the next plan, {}",
                    fresh_start(context.store)
                )));
            }
            edit::set_goal(document, &request.goal)?;
            Ok("The overarching goal is set.".to_owned())
        })
    }

    /// `set_detailed_goal`: sets the description and, when the text ends in
    /// constraint lines, the constraints (replacing the old ones).
    pub fn set_detailed_goal(
        &self,
        request: &SetDetailedGoalRequest,
    ) -> Result<PlannerResponse, PlannerError> {
        let rewrites = Rewrites {
            detailed_goal: true,
            ..Rewrites::default()
        };
        self.edit(rewrites, |document, context| {
            edit::set_detailed_goal(document, &request.description, context.config)?;
            Ok("The detailed goal is set.".to_owned())
        })
    }

    /// `set_plan`: sets (or replaces) the tasks; a finished plan is open again.
    pub fn set_plan(&self, request: &SetPlanRequest) -> Result<PlannerResponse, PlannerError> {
        self.edit(Rewrites::default(), |document, context| {
            edit::set_plan(document, request.plan.clone(), context.config)?;
            Ok("The plan is set.".to_owned())
        })
    }

    /// `mark_task`: marks the task `task_id` names done, or open again
    /// (with every task above it).
    pub fn mark_task(&self, request: &MarkTaskRequest) -> Result<PlannerResponse, PlannerError> {
        self.edit(Rewrites::default(), |document, _| {
            let marked = edit::mark_task(document, &request.task_id, request.completed)?;
            Ok(marked_summary(&marked, request.completed))
        })
    }

    /// `finish_job`: records the job as complete (`~~~ COMPLETE ~~~` under
    /// the direction the user wrote, if any); refuses while a task is open.
    pub fn finish_job(&self) -> Result<PlannerResponse, PlannerError> {
        self.edit(Rewrites::default(), |document, _| {
            let kept = document
                .direction_before_directive()
                .map(|direction| one_line(direction).into_owned());
            edit::finish_job(document)?;
            Ok(match kept {
                Some(direction) => format!(
                    "The job is complete. The direction \"{direction}\" is kept, with `~~~ COMPLETE ~~~` under it."
                ),
                None => "The job is complete.".to_owned(),
            })
        })
    }

    /// The current stage and what to do next, with every parser warning and
    /// validator finding of the stored plan. Text that is not a plan is
    /// reported as unreadable (with its diagnostics and the fix), not
    /// refused: only writes refuse it.
    pub fn gather_requirements(&self) -> Result<PlannerResponse, PlannerError> {
        let store = self.store()?;
        self.locked(store.as_ref(), || {
            let text = store.load()?;
            let changes = store.changes()?;
            let outcome = parse(&text, &self.config);
            if !outcome.is_parsed() {
                return Ok(self.unreadable(store.as_ref(), text, outcome, changes));
            }
            let findings = self.findings(&outcome.document);
            Ok(self.response(
                store.as_ref(),
                &text,
                &outcome,
                &findings,
                String::new(),
                changes,
            ))
        })
    }

    /// Starts the next plan with `goal`: Jujutsu in a new change, the other
    /// stores by replacing the stored text (returned as `previous_plan`).
    fn start_new(&self, goal: &Goal) -> Result<PlannerResponse, PlannerError> {
        let store = self.store()?;
        self.locked(store.as_ref(), || {
            let mut document = PlanDocument::default();
            edit::set_goal(&mut document, goal)?;
            let checked = self.checked_text(&document)?;
            let previous = store.load()?;
            // Nothing stored: nothing to keep, and no empty jj change to leave behind.
            let kept = !previous.trim().is_empty() && store.start_new()?;
            let changes = store.changes()?;
            store.save(&checked.text)?;
            let previous_stage = Stage::of(&parse(&previous, &self.config).document);
            let summary = if previous.trim().is_empty() {
                "A new plan is started with this goal.".to_owned()
            } else if kept {
                "A new plan is started with this goal in a new change (`jj new`); the previous plan stays the description of the change before it.".to_owned()
            } else {
                format!(
                    "A new plan is started with this goal. It replaced the previous plan ({}), whose text is in `previous_plan`.",
                    match previous_stage.number() {
                        Some(6) => "finished".to_owned(),
                        Some(stage) => format!("at stage {stage}, unfinished"),
                        None => "not a plan document".to_owned(),
                    }
                )
            };
            let mut response = checked.response(self, store.as_ref(), summary, changes);
            if !kept && !previous.trim().is_empty() {
                response.previous_plan = Some(previous);
            }
            Ok(response)
        })
    }

    /// Runs `work` holding the store's lock, so that neither threads nor
    /// other processes interleave a read-modify-write.
    fn locked<T>(
        &self,
        store: &dyn PlanStore,
        work: impl FnOnce() -> Result<T, PlannerError>,
    ) -> Result<T, PlannerError> {
        let _lock = store.lock(self.lock_timeout)?;
        work()
    }

    /// Load, edit, verify, store. Nothing is stored unless the formatted text
    /// parses back to exactly the edited document and passes the validator,
    /// and nothing the stored plan holds outside the sections `rewrites`
    /// names is lost.
    fn edit(
        &self,
        rewrites: Rewrites,
        apply: impl FnOnce(&mut PlanDocument, &EditContext<'_>) -> Result<String, PlanEditError>,
    ) -> Result<PlannerResponse, PlannerError> {
        let store = self.store()?;
        self.locked(store.as_ref(), || {
            let text = store.load()?;
            let mut document =
                edit::read_for_edit(&text, &self.config, &store.clear_hint(), rewrites)?;
            let context = EditContext {
                config: &self.config,
                store: store.kind(),
            };
            let summary = apply(&mut document, &context)?;
            let checked = self.checked_text(&document)?;
            // Everything that can fail happens before the plan is stored: a
            // failed call changes nothing.
            let changes = store.changes()?;
            store.save(&checked.text)?;
            Ok(checked.response(self, store.as_ref(), summary, changes))
        })
    }

    /// The text that stores `document`, after checking that it follows the
    /// rules, fits the length limit and reads back as exactly `document`
    /// (the same content; spans aside). The plan is validated once: the
    /// findings of the text as it will be stored are also the response's.
    fn checked_text(&self, document: &PlanDocument) -> Result<CheckedText, PlanEditError> {
        let mut document = document.clone();
        edit::normalize(&mut document);
        let text = format(&document, &self.config);
        let outcome = parse(&text, &self.config);
        let reads_back = outcome.is_parsed() && outcome.document.same_content(&document);
        // Their spans point into `text`, unless it does not read back.
        let findings = self.findings(if reads_back {
            &outcome.document
        } else {
            &document
        });
        let broken: Vec<String> = findings
            .iter()
            .filter(|finding| finding.is_error())
            .map(|finding| {
                format!(
                    "{}: {} ({})",
                    finding.field.as_deref().unwrap_or_default(),
                    finding.message,
                    finding.help
                )
            })
            .collect();
        if !broken.is_empty() {
            return Err(PlanEditError::new(format!(
                "the plan would break its rules, so nothing was stored: {}",
                broken.join("; ")
            )));
        }
        let length = text.chars().count();
        if length > self.config.max_input_length {
            return Err(PlanEditError::new(format!(
                "the plan would be {length} characters long, over the limit of {} characters; nothing was stored. \
                 Shorten the description or the task texts, or split the work into several plans",
                self.config.max_input_length
            )));
        }
        if !reads_back {
            return Err(PlanEditError::new(
                "the plan cannot be written so that it reads back as given (a description line that looks like a task or constraint, \
                 or a direction without tasks?); nothing was stored. Rephrase the text and try again",
            ));
        }
        Ok(CheckedText {
            text,
            outcome,
            findings,
        })
    }

    /// The validator's findings on `document`, with this toolset's limits.
    /// An empty plan breaks no rule yet: it is stage 0.
    fn findings(&self, document: &PlanDocument) -> Vec<PlanDiagnostic> {
        if document.is_empty() {
            Vec::new()
        } else {
            validate_with(document, &self.config)
        }
    }

    /// The response for `text`, as parsed into `outcome`.
    fn response(
        &self,
        store: &dyn PlanStore,
        text: &str,
        outcome: &ParseOutcome,
        validated: &[PlanDiagnostic],
        summary: String,
        changes: Option<String>,
    ) -> PlannerResponse {
        let document = &outcome.document;
        let stage = Stage::of(document);
        let findings = Findings::of(text, &outcome.diagnostics, validated);
        let mut guidance = guidance(stage, document, store.kind());
        if !findings.errors.is_empty() {
            guidance = format!(
                "First fix what breaks the plan's rules (see `errors`): the next edit is refused until it does, \
                 so call the tool that sets that part again with a valid value.\n\n{guidance}"
            );
        }
        PlannerResponse {
            stage: stage.number(),
            stage_name: stage,
            store: store.kind().to_owned(),
            document: document.clone(),
            rendered: format(document, &self.config),
            summary,
            guidance,
            changes,
            errors: findings.errors,
            warnings: findings.warnings,
            previous_plan: None,
        }
    }

    /// The response for stored text that is not a plan document.
    fn unreadable(
        &self,
        store: &dyn PlanStore,
        text: String,
        outcome: ParseOutcome,
        changes: Option<String>,
    ) -> PlannerResponse {
        let findings = Findings::of(&text, &outcome.diagnostics, &[]);
        let guidance = format!(
            "{} Fix it by hand, or {}; then call `gather_requirements` again.",
            guidance(Stage::Unreadable, &outcome.document, store.kind()),
            store.clear_hint()
        );
        PlannerResponse {
            stage: None,
            stage_name: Stage::Unreadable,
            store: store.kind().to_owned(),
            document: outcome.document,
            rendered: text,
            summary: String::new(),
            guidance,
            changes,
            errors: findings.errors,
            warnings: findings.warnings,
            previous_plan: None,
        }
    }
}

/// `mark_task`'s summary: which task is now done or open, and the parent
/// whose subtasks are all done, to be marked next.
fn marked_summary(marked: &Marked, completed: bool) -> String {
    let state = if completed { "done" } else { "open" };
    let mut summary = format!(
        "Task {} \"{}\" is {state}.",
        marked.path,
        one_line(&marked.text)
    );
    if let Some(parent) = &marked.parent_ready {
        summary.push_str(&format!(
            " All subtasks of \"{}\" are done: mark it with mark_task too.",
            one_line(parent)
        ));
    }
    summary
}

/// What an edit may need besides the document.
pub(super) struct EditContext<'a> {
    pub config: &'a ParserConfig,
    /// The store's kind, for advice that depends on it.
    pub store: &'static str,
}

/// A plan's text checked for storing, as it parses, and its findings.
struct CheckedText {
    text: String,
    outcome: ParseOutcome,
    findings: Vec<PlanDiagnostic>,
}

impl CheckedText {
    /// The response once the text is stored.
    fn response(
        &self,
        tools: &PlannerTools,
        store: &dyn PlanStore,
        summary: String,
        changes: Option<String>,
    ) -> PlannerResponse {
        tools.response(
            store,
            &self.text,
            &self.outcome,
            &self.findings,
            summary,
            changes,
        )
    }
}
