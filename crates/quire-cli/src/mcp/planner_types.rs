//! The planner tools' arguments and result as clients see them: the JSON
//! they decode from and encode to, and the JSON Schemas `tools/list`
//! publishes (the doc comments here are the schemas' descriptions). Each
//! converts to or from the planner's typed API.

use quire_grammar::plan::{MAX_TASK_DEPTH, MAX_TITLE_LENGTH, PlanDocument, Task};
use quire_planner::PlanReport;
use quire_planner::store::{self, ChangesDetail, LineCounts, MAX_DIFF_BYTES, WorkingCopyChanges};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::planner_text;

/// `set_overarching_goal`'s parameters.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct SetOverarchingGoalRequest {
    /// The goal to set: the header's type, scope and title.
    pub goal: Goal,
    /// Start the next plan instead of changing this one's goal: Jujutsu
    /// starts a new change (`jj new`) and keeps the old plan on its change;
    /// git and plan-file stores replace the stored plan (its text is
    /// returned as `previous_plan`). Needed once a plan is finished.
    #[serde(default)]
    pub start_new: bool,
    #[serde(default)]
    #[schemars(schema_with = "include_diff_schema")]
    pub include_diff: bool,
}

/// The overarching goal: the header's parts.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct Goal {
    /// The kind of change.
    #[serde(rename = "type")]
    #[schemars(schema_with = "type_schema")]
    pub commit_type: String,
    /// What the change is about: lowercase letters, digits and hyphens, starting with a letter.
    pub scope: String,
    /// Whether the change breaks existing users (`!` in the header).
    #[serde(default)]
    pub breaking: bool,
    /// One line, at most 120 characters, no surrounding whitespace.
    #[schemars(length(min = 1, max = MAX_TITLE_LENGTH))]
    pub title: String,
}

/// `goal.type`: one of the plan grammar's types.
fn type_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "type": "string", "enum": quire_grammar::plan::ALLOWED_TYPES, "description": "The kind of change." })
}

impl From<Goal> for quire_planner::Goal {
    fn from(goal: Goal) -> Self {
        quire_planner::Goal {
            commit_type: goal.commit_type,
            scope: goal.scope,
            breaking: goal.breaking,
            title: goal.title,
        }
    }
}

/// `set_detailed_goal`'s parameters.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct SetDetailedGoalRequest {
    /// Why the change is needed, what it changes and how, as one paragraph;
    /// optionally followed by constraint lines such as `- Never: skip the tests`.
    pub description: String,
    #[serde(default)]
    #[schemars(schema_with = "include_diff_schema")]
    pub include_diff: bool,
}

/// `set_plan`'s parameters.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct SetPlanRequest {
    // Described by `plan_schema`, which quotes the grammar's depth limit.
    #[schemars(schema_with = "plan_schema")]
    pub plan: Vec<Task>,
    #[serde(default)]
    #[schemars(schema_with = "include_diff_schema")]
    pub include_diff: bool,
}

/// The schema of `plan`: an array of `[checked, text, children]` tuples,
/// written out level by level down to the grammar's deepest level
/// ([`MAX_TASK_DEPTH`], where `children` must be empty). A task is
/// recursive, but a recursive schema needs a `$ref`, which several clients
/// cannot read; the depth limit makes it finite.
fn plan_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let mut tasks = serde_json::json!({ "type": "array", "maxItems": 0 });
    for _ in 0..=MAX_TASK_DEPTH {
        tasks = serde_json::json!({
            "type": "array",
            "items": {
                "type": "array",
                "prefixItems": [
                    { "type": "boolean", "description": "done" },
                    { "type": "string", "description": "what to do, one line" },
                    tasks,
                ],
                "minItems": 3,
                "maxItems": 3
            }
        });
    }
    tasks["description"] = serde_json::Value::String(format!(
        "Tasks as [checked, text, children] tuples, e.g. [[false, \"Parse task lines\", \
         [[false, \"Handle indentation\", []]]]], at most {MAX_TASK_DEPTH} levels below the top."
    ));
    schemars::Schema::try_from(tasks).expect("an object is a schema")
}

/// `mark_task`'s parameters.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct MarkTaskRequest {
    /// The task's path as the tools list it (`2`, `1.1`, `2.3.1`: exactly
    /// that task), or its text (an exact match wins, else a unique part of it).
    pub task_id: String,
    /// `true` (the default) marks it done, `false` reopens it.
    #[serde(default = "done")]
    pub completed: bool,
    #[serde(default)]
    #[schemars(schema_with = "include_diff_schema")]
    pub include_diff: bool,
}

fn done() -> bool {
    true
}

/// Parameters of the tools that take nothing else: `gather_requirements`
/// and `finish_job`.
#[derive(Clone, Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct IncludeDiffRequest {
    #[serde(default)]
    #[schemars(schema_with = "include_diff_schema")]
    pub include_diff: bool,
}

/// What every planner tool's arguments say of the result's `changes`.
pub(super) trait ChangesArgument {
    /// Whether the result's `changes` carries the diff.
    fn include_diff(&self) -> bool;

    /// How much of the working copy's changes the planner reports.
    fn changes_detail(&self) -> ChangesDetail {
        if self.include_diff() {
            ChangesDetail::FilesAndDiff
        } else {
            ChangesDetail::Files
        }
    }
}

macro_rules! changes_argument {
    ($($request:ty),*) => {$(
        impl ChangesArgument for $request {
            fn include_diff(&self) -> bool {
                self.include_diff
            }
        }
    )*};
}

changes_argument!(
    SetOverarchingGoalRequest,
    SetDetailedGoalRequest,
    SetPlanRequest,
    MarkTaskRequest,
    IncludeDiffRequest
);

/// The schema of `include_diff`, with the diff's cap from the store's own
/// constant.
fn include_diff_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "boolean",
        "default": false,
        "description": format!(
            "Also return the diff of the working copy's changes as `changes.diff` (git's format), cut at {} KiB \
             (MAX_DIFF_BYTES) with a last line saying what was left out. Off by default: `changes.files` already names \
             each changed file with its status and the lines added and removed; ask for the diff when you need the \
             changed lines themselves.",
            MAX_DIFF_BYTES / 1024
        )
    })
}

/// Every planner tool's result.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub(super) struct PlannerResponse {
    /// The workflow stage: 0, 1, 2 (the spec's 2/3), 4, 5 or 6; null when
    /// the stored text is not a plan (`stage_name` "unreadable").
    pub stage: Option<u8>,
    /// The stage by name (`empty`, `goal`, ..., `complete`), or `unreadable`.
    pub stage_name: Stage,
    /// Where the plan is kept: `jj`, `git` or `file`.
    pub store: String,
    /// The plan in the JSON shape of the plan grammar (absent sections absent).
    // Described to clients as any JSON, as it always was.
    #[schemars(with = "serde_json::Value")]
    pub document: PlanDocument,
    /// The plan as stored.
    pub rendered: String,
    /// What this call did (empty for `gather_requirements`).
    pub summary: String,
    /// What to do next, and with which tool.
    pub guidance: String,
    /// The working copy's changes beneath the root, when there are any
    /// (with --plan-file too, when the root is in a jj or git working copy):
    /// the changed files with their line counts, and their diff only with
    /// `include_diff`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changes: Option<Changes>,
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

/// The report as the tools return it: the stage by number and by name, and
/// what the call did and what to do next in words.
impl From<PlanReport> for PlannerResponse {
    fn from(report: PlanReport) -> Self {
        PlannerResponse {
            stage: report.stage.number(),
            stage_name: report.stage.into(),
            store: report.store.name().to_owned(),
            summary: planner_text::summary(report.edit.as_ref()),
            guidance: planner_text::report_guidance(&report),
            document: report.document,
            rendered: report.rendered,
            changes: report.changes.map(Changes::from),
            errors: report.errors,
            warnings: report.warnings,
            previous_plan: report.previous_plan,
        }
    }
}

/// The most of `changes.files` a result lists, in bytes of JSON: with the
/// plan and the guidance, a result stays within about 16 KB unless the diff
/// is asked for.
pub(super) const MAX_LISTED_FILES_BYTES: usize = 8 * 1024;

/// The working copy's changes as a result carries them.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub(super) struct Changes {
    /// The changed files by path (untracked ones too), as many as fit 8 KiB
    /// of JSON: `files_shown` of `files_total`.
    pub files: Vec<ChangedFile>,
    /// How many files changed.
    pub files_total: usize,
    /// How many of them `files` lists: all, unless they do not fit 8 KiB
    /// (then the first ones by path).
    pub files_shown: usize,
    /// With `include_diff`: the diff in git's format (`jj diff --git`; for
    /// git, `git diff` against the last commit plus each untracked file as
    /// a new file, at most 100), cut at 64 KiB at a line end with a last
    /// line `[the diff is cut at …: … not shown]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// Why the changes could not be read (with --plan-file, when the
    /// working copy's program fails); `files` is then empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl From<WorkingCopyChanges> for Changes {
    fn from(changes: WorkingCopyChanges) -> Self {
        let files_total = changes.files.len();
        // The array's brackets, less the comma the last entry does not have.
        let mut listed_bytes = 1;
        let files: Vec<ChangedFile> = changes
            .files
            .into_iter()
            .map(ChangedFile::from)
            .take_while(|file| {
                // The entry as JSON, and the comma after it.
                let size = serde_json::to_string(file).map_or(usize::MAX, |json| json.len());
                listed_bytes = size.saturating_add(1).saturating_add(listed_bytes);
                listed_bytes <= MAX_LISTED_FILES_BYTES
            })
            .collect();
        Changes {
            files_total,
            files_shown: files.len(),
            files,
            diff: changes.diff,
            error: changes
                .unreadable
                .map(|error| format!("the working copy's changes cannot be read: {error}")),
        }
    }
}

/// One changed file.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub(super) struct ChangedFile {
    /// Its path relative to the root (the new one, when renamed or copied).
    pub path: String,
    /// How it changed (an untracked file is `added`).
    pub status: FileStatus,
    /// The path it was renamed or copied from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_path: Option<String>,
    /// Lines added; absent for a binary file, and for a file whose lines
    /// were not counted (with git, the untracked files past the first 100,
    /// one command each).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines_added: Option<u64>,
    /// Lines removed; absent when `lines_added` is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines_removed: Option<u64>,
    /// `true` for a binary file, which has no lines.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub binary: bool,
}

impl From<store::ChangedFile> for ChangedFile {
    fn from(file: store::ChangedFile) -> Self {
        let (lines_added, lines_removed) = match file.lines {
            LineCounts::Counted { added, removed } => (Some(added), Some(removed)),
            LineCounts::Binary | LineCounts::NotCounted => (None, None),
        };
        ChangedFile {
            path: file.path,
            status: file.status.into(),
            previous_path: file.previous_path,
            lines_added,
            lines_removed,
            binary: file.lines == LineCounts::Binary,
        }
    }
}

/// How a file changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(super) enum FileStatus {
    /// A new file, or an untracked one.
    Added,
    /// Its content or mode changed.
    Modified,
    /// It is gone.
    Deleted,
    /// Moved from `previous_path`.
    Renamed,
    /// A copy of `previous_path` (Jujutsu).
    Copied,
}

impl From<store::FileStatus> for FileStatus {
    fn from(status: store::FileStatus) -> Self {
        match status {
            store::FileStatus::Added => FileStatus::Added,
            store::FileStatus::Modified => FileStatus::Modified,
            store::FileStatus::Deleted => FileStatus::Deleted,
            store::FileStatus::Renamed => FileStatus::Renamed,
            store::FileStatus::Copied => FileStatus::Copied,
        }
    }
}

/// The spec's stages. Stage 3 is reported as 2 (the spec's "2/3": a
/// description without constraints).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(super) enum Stage {
    /// 0: no header.
    Empty,
    /// 1: the overarching goal (header) only.
    Goal,
    /// 2/3: goal and detailed description.
    DetailedGoal,
    /// 4: goal, description and constraints.
    Constraints,
    /// 5: a plan of tasks, not finished.
    Plan,
    /// 6: finished (`~~~ COMPLETE ~~~`).
    Complete,
    /// The stored text is not a plan document: it has no stage until it
    /// is fixed or cleared.
    Unreadable,
}

impl From<quire_planner::Stage> for Stage {
    fn from(stage: quire_planner::Stage) -> Self {
        use quire_planner::Stage as Domain;
        match stage {
            Domain::Empty => Stage::Empty,
            Domain::Goal => Stage::Goal,
            Domain::DetailedGoal => Stage::DetailedGoal,
            Domain::Constraints => Stage::Constraints,
            Domain::Plan => Stage::Plan,
            Domain::Complete => Stage::Complete,
            Domain::Unreadable => Stage::Unreadable,
        }
    }
}
