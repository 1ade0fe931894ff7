//! The six workflow tools over a plan store: load, parse, edit, format,
//! re-parse and validate, and only then store.

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::edit::{self, Goal};
use super::stage::{Stage, guidance};
use super::store::{self, PlanStore, StoreError};
use crate::diagnostics::one_line;
use crate::fs::Workspace;
use crate::plan::{ParserConfig, PlanDocument, Task, format, parse, validate};
use crate::tool_error::ToolError;

/// `set_overarching_goal`'s parameters.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SetOverarchingGoalRequest {
    pub goal: Goal,
}

/// `set_detailed_goal`'s parameters.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SetDetailedGoalRequest {
    /// Why the change is needed, what it changes and how, as one paragraph;
    /// optionally followed by constraint lines such as `- Never: skip the tests`.
    pub description: String,
}

/// `set_plan`'s parameters.
#[derive(Clone, Debug, Deserialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SetPlanRequest {
    /// Tasks as [checked, text, children] tuples, at most 4 levels below the top.
    #[cfg_attr(feature = "mcp", schemars(schema_with = "plan_schema"))]
    pub plan: Vec<Task>,
}

/// The schema of `plan`: an array of `Task` tuples. `Task` is recursive, so
/// it is a definition the generator places in the root schema's `$defs`
/// (where `#/$defs/Task` resolves), not one nested under `properties.plan`,
/// where a reference from the root would point to nowhere.
#[cfg(feature = "mcp")]
fn plan_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    /// One task: `[checked, text, children]`.
    struct TaskTuple;

    impl schemars::JsonSchema for TaskTuple {
        fn schema_name() -> std::borrow::Cow<'static, str> {
            "Task".into()
        }

        fn schema_id() -> std::borrow::Cow<'static, str> {
            "quire::planner::SetPlanRequest::Task".into()
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
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct MarkTaskRequest {
    /// The task's text (an exact match wins), or a unique part of it.
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
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct NoParameters {}

/// Every planner tool's result.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct PlannerResponse {
    /// The workflow stage: 0, 1, 2 (the spec's 2/3), 4, 5 or 6.
    pub stage: u8,
    pub stage_name: Stage,
    /// Where the plan is kept: `jj`, `git` or `file`.
    pub store: String,
    /// The plan in the JSON shape of the plan grammar (absent sections absent).
    pub document: serde_json::Value,
    /// The plan as stored.
    pub rendered: String,
    /// What this call did (empty for `gather_requirements`).
    pub summary: String,
    /// What to do next, and with which tool.
    pub guidance: String,
    /// The working copy's changed files, when there are any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changes: Option<String>,
    /// Things to look at that do not block (e.g. the scope's case).
    pub warnings: Vec<String>,
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

impl From<StoreError> for ToolError {
    fn from(error: StoreError) -> Self {
        let mut tool_error = ToolError::store(error.to_string());
        tool_error.retryable = error.retryable();
        tool_error
    }
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

    fn store(&self) -> Result<Box<dyn PlanStore>, ToolError> {
        Ok(store::detect(&self.workspace, self.plan_file.as_deref())?)
    }

    /// Runs one tool by name with JSON arguments.
    pub fn call(
        &self,
        tool: &str,
        arguments: serde_json::Value,
    ) -> Result<PlannerResponse, ToolError> {
        if !arguments.is_object() {
            return Err(ToolError::validation(format!(
                "the arguments of {tool} must be a JSON object"
            )));
        }
        fn args<T: for<'de> Deserialize<'de>>(
            tool: &str,
            arguments: serde_json::Value,
        ) -> Result<T, ToolError> {
            serde_json::from_value(arguments).map_err(|error| {
                ToolError::validation(format!("invalid arguments for {tool}: {error}"))
            })
        }
        match tool {
            "gather_requirements" => {
                args::<NoParameters>(tool, arguments)?;
                self.gather_requirements()
            }
            "set_overarching_goal" => {
                let request: SetOverarchingGoalRequest = args(tool, arguments)?;
                self.edit(|document, _| {
                    edit::set_goal(document, &request.goal)?;
                    Ok("The overarching goal is set.".to_owned())
                })
            }
            "set_detailed_goal" => {
                let request: SetDetailedGoalRequest = args(tool, arguments)?;
                self.edit(|document, config| {
                    edit::set_detailed_goal(document, &request.description, config)?;
                    Ok("The detailed goal is set.".to_owned())
                })
            }
            "set_plan" => {
                let request: SetPlanRequest = args(tool, arguments)?;
                self.edit(move |document, config| {
                    edit::set_plan(document, request.plan, config)?;
                    Ok("The plan is set.".to_owned())
                })
            }
            "mark_task" => {
                let request: MarkTaskRequest = args(tool, arguments)?;
                self.edit(|document, _| {
                    let marked = edit::mark_task(document, &request.task_id, request.completed)?;
                    let state = if request.completed { "done" } else { "open" };
                    let mut summary = format!(
                        "Task {} \"{}\" is {state}.",
                        marked.path,
                        one_line(&marked.text)
                    );
                    if let Some(parent) = marked.parent_ready {
                        summary.push_str(&format!(
                            " All subtasks of \"{}\" are done: mark it with mark_task too.",
                            one_line(&parent)
                        ));
                    }
                    Ok(summary)
                })
            }
            "finish_job" => {
                args::<NoParameters>(tool, arguments)?;
                self.edit(|document, _| {
                    edit::finish_job(document)?;
                    Ok("The job is complete.".to_owned())
                })
            }
            other => Err(ToolError::validation(format!(
                "there is no planner tool `{other}`"
            ))),
        }
    }

    /// The current stage and what to do next.
    pub fn gather_requirements(&self) -> Result<PlannerResponse, ToolError> {
        let store = self.store()?;
        self.locked(store.as_ref(), || {
            let text = store.load()?;
            let document = edit::read_document(&text, &self.config, &store.clear_hint())?;
            let changes = store.changes()?;
            Ok(self.response(store.as_ref(), &document, String::new(), changes))
        })
    }

    /// Runs `work` holding the store's lock, so that neither threads nor
    /// other processes interleave a read-modify-write.
    fn locked<T>(
        &self,
        store: &dyn PlanStore,
        work: impl FnOnce() -> Result<T, ToolError>,
    ) -> Result<T, ToolError> {
        let _lock = store.lock(self.lock_timeout)?;
        work()
    }

    /// Load, edit, verify, store. Nothing is stored unless the formatted text
    /// parses back to exactly the edited document and passes the validator.
    fn edit(
        &self,
        apply: impl FnOnce(&mut PlanDocument, &ParserConfig) -> Result<String, ToolError>,
    ) -> Result<PlannerResponse, ToolError> {
        let store = self.store()?;
        self.locked(store.as_ref(), || self.edit_locked(store.as_ref(), apply))
    }

    fn edit_locked(
        &self,
        store: &dyn PlanStore,
        apply: impl FnOnce(&mut PlanDocument, &ParserConfig) -> Result<String, ToolError>,
    ) -> Result<PlannerResponse, ToolError> {
        let text = store.load()?;
        let mut document = edit::read_document(&text, &self.config, &store.clear_hint())?;
        let summary = apply(&mut document, &self.config)?;
        edit::normalize(&mut document);

        let findings: Vec<String> = validate(&document)
            .into_iter()
            .filter(|finding| finding.is_error())
            .map(|finding| {
                format!(
                    "{}: {} ({})",
                    finding.field.unwrap_or_default(),
                    finding.message,
                    finding.help
                )
            })
            .collect();
        if !findings.is_empty() {
            return Err(ToolError::validation(format!(
                "the plan would break its rules, so nothing was stored: {}",
                findings.join("; ")
            )));
        }
        let formatted = format(&document, &self.config);
        let length = formatted.chars().count();
        if length > self.config.max_input_length {
            return Err(ToolError::validation(format!(
                "the plan would be {length} characters long, over the limit of {} characters; nothing was stored. \
                 Shorten the description or the task texts, or split the work into several plans",
                self.config.max_input_length
            )));
        }
        let reread = parse(&formatted, &self.config);
        let intended = serde_json::to_value(&document).unwrap_or_default();
        if !reread.is_parsed()
            || serde_json::to_value(&reread.document).unwrap_or_default() != intended
        {
            return Err(ToolError::validation(
                "the plan cannot be written so that it reads back as given (a description line that looks like a task or constraint, \
                 or a direction without tasks?); nothing was stored. Rephrase the text and try again",
            ));
        }
        // Everything that can fail happens before the plan is stored: a
        // failed call changes nothing.
        let changes = store.changes()?;
        store.save(&formatted)?;
        Ok(self.response(store, &reread.document, summary, changes))
    }

    fn response(
        &self,
        store: &dyn PlanStore,
        document: &PlanDocument,
        summary: String,
        changes: Option<String>,
    ) -> PlannerResponse {
        let stage = Stage::of(document);
        let warnings = validate(document)
            .into_iter()
            .filter(|f| !f.is_error())
            .map(|f| f.message)
            .collect();
        PlannerResponse {
            stage: stage.number(),
            stage_name: stage,
            store: store.kind().to_owned(),
            document: serde_json::to_value(document).unwrap_or_default(),
            rendered: format(document, &self.config),
            summary,
            guidance: guidance(stage, document, store.kind()),
            changes,
            warnings,
        }
    }
}
