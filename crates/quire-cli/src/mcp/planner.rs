//! The `planner` toolset's router: the six workflow tools.

use super::schema;
use rmcp::handler::server::tool::ToolName;
use rmcp::model::JsonObject;
use rmcp::{tool, tool_router};
use serde::de::DeserializeOwned;

use super::planner_types::{
    ChangesArgument, IncludeDiffRequest, MAX_LISTED_FILES_BYTES, MarkTaskRequest, PlannerResponse,
    SetDetailedGoalRequest, SetOverarchingGoalRequest, SetPlanRequest,
};
use super::result::{ToolFuture, run_tool};
use super::server::QuireServer;
use quire_grammar::plan::{ALLOWED_TYPES, MAX_TASK_DEPTH, ParserConfig};
use quire_planner::store::MAX_DIFF_BYTES;
use quire_planner::{PlanReport, PlannerError, PlannerTools};

/// `gather_requirements`' description, with the most of the file list and
/// of the diff `changes` carries.
fn gather_requirements_description() -> String {
    format!(
        "Read the plan and its workflow stage, and learn what to do next: call this first. The plan is kept in the \
         Jujutsu change description, the git directory, or --plan-file; the stage is 0 empty, 1 goal, 2 described, \
         4 constraints, 5 planned or 6 complete, and the guidance names the next tool and its parameters. When the \
         working copy beneath the root has changes, every planner tool's `changes` lists the changed files with \
         their status and the lines added and removed (as many as fit {} KiB, with `files_total`); with \
         `include_diff: true` it also carries their diff in git's format (cut at {} KiB, saying how much was left out).",
        MAX_LISTED_FILES_BYTES / 1024,
        MAX_DIFF_BYTES / 1024
    )
}

/// `set_overarching_goal`'s description: the types and the title's limit
/// come from the plan grammar's own constants.
fn set_overarching_goal_description() -> String {
    format!(
        "Set (or replace) the plan's goal: the header `type(scope)!: title`. goal.type is one of {}; goal.scope is \
         lowercase letters, digits and hyphens; goal.title is one line of at most {} characters. Keeps the rest of the plan.",
        ALLOWED_TYPES.join(", "),
        ParserConfig::COMMIT_MESSAGE.max_title_length
    )
}

/// `set_plan`'s description, with the nesting limit the validator applies.
fn set_plan_description() -> String {
    format!(
        "Set (or replace) the plan's tasks: a list of [checked, text, children] tuples, at most {MAX_TASK_DEPTH} levels \
         below the top, each a concrete one-line step."
    )
}

/// The result of every planner operation.
type Outcome = Result<PlanReport, PlannerError>;

impl QuireServer {
    /// Runs one call of a planner tool: `operation` with the decoded
    /// request, reporting as much of the working copy's changes as the
    /// request asks, its report put into the tools' words.
    fn planner_tool<Request: DeserializeOwned + ChangesArgument>(
        &self,
        tool: ToolName,
        args: JsonObject,
        operation: impl FnOnce(&PlannerTools, &Request) -> Outcome + Send + 'static,
    ) -> ToolFuture<'static> {
        run_tool(
            &self.planner,
            tool,
            args,
            move |planner, request: &Request| {
                let planner = planner.clone().with_changes(request.changes_detail());
                operation(&planner, request).map(PlannerResponse::from)
            },
        )
    }
}

/// An operation that takes no request as one that takes only
/// [`IncludeDiffRequest`], which is decoded all the same (so unknown
/// arguments are refused).
fn changes_only(
    operation: fn(&PlannerTools) -> Outcome,
) -> impl FnOnce(&PlannerTools, &IncludeDiffRequest) -> Outcome + Send + 'static {
    move |planner, _| operation(planner)
}

/// `set_overarching_goal`: the goal of this plan, or with `start_new` the
/// goal of the next.
fn set_overarching_goal(planner: &PlannerTools, request: &SetOverarchingGoalRequest) -> Outcome {
    let goal = request.goal.clone().into();
    if request.start_new {
        planner.start_new_plan(&goal)
    } else {
        planner.set_overarching_goal(&goal)
    }
}

#[tool_router(router = planner_router, vis = "pub(super)")]
impl QuireServer {
    #[tool(
        name = "gather_requirements",
        description = gather_requirements_description(),
        input_schema = schema::input::<IncludeDiffRequest>(),
        output_schema = schema::output::<PlannerResponse>(),
        annotations(title = "Gather requirements", read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    fn gather_requirements(&self, tool: ToolName, args: JsonObject) -> ToolFuture<'_> {
        self.planner_tool(tool, args, changes_only(PlannerTools::gather_requirements))
    }

    #[tool(
        name = "set_overarching_goal",
        description = set_overarching_goal_description(),
        input_schema = schema::input::<SetOverarchingGoalRequest>(),
        output_schema = schema::output::<PlannerResponse>(),
        annotations(title = "Set overarching goal", read_only_hint = false, destructive_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    fn set_overarching_goal(&self, tool: ToolName, args: JsonObject) -> ToolFuture<'_> {
        self.planner_tool(tool, args, set_overarching_goal)
    }

    #[tool(
        name = "set_detailed_goal",
        description = "Set the plan's description: why the change is needed, what it changes and how, as one paragraph. End it with \
                       constraint lines (`- Never: ...`, `- Do not: ...`, `- Avoid: ...`, `- Must not: ...`, `- Cannot: ...`, \
                       `- Forbidden: ...`, `- Decide against: ...`, value starting lowercase) to record what must not be done.",
        input_schema = schema::input::<SetDetailedGoalRequest>(),
        output_schema = schema::output::<PlannerResponse>(),
        annotations(title = "Set detailed goal", read_only_hint = false, destructive_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    fn set_detailed_goal(&self, tool: ToolName, args: JsonObject) -> ToolFuture<'_> {
        self.planner_tool(tool, args, |planner, request: &SetDetailedGoalRequest| {
            planner.set_detailed_goal(&request.description)
        })
    }

    #[tool(
        name = "set_plan",
        description = set_plan_description(),
        input_schema = schema::input::<SetPlanRequest>(),
        output_schema = schema::output::<PlannerResponse>(),
        annotations(title = "Set plan", read_only_hint = false, destructive_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    fn set_plan(&self, tool: ToolName, args: JsonObject) -> ToolFuture<'_> {
        self.planner_tool(tool, args, |planner, request: &SetPlanRequest| {
            planner.set_plan(request.plan.clone())
        })
    }

    #[tool(
        name = "mark_task",
        description = "Mark a task done (completed defaults to true) or reopen it (completed=false). task_id is the task's path as the \
                       tools list it (`2`, `1.1`: exactly that task), or its text (an exact match wins, else a unique case-insensitive \
                       part of it); an ambiguous or unknown id changes nothing and lists the candidates. A parent is done only when all its subtasks are; reopening a task reopens its parents.",
        input_schema = schema::input::<MarkTaskRequest>(),
        output_schema = schema::output::<PlannerResponse>(),
        annotations(title = "Mark task", read_only_hint = false, destructive_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    fn mark_task(&self, tool: ToolName, args: JsonObject) -> ToolFuture<'_> {
        self.planner_tool(tool, args, |planner, request: &MarkTaskRequest| {
            planner.mark_task(&request.task_id, request.completed)
        })
    }

    #[tool(
        name = "finish_job",
        description = "Record the job as complete (`~~~ COMPLETE ~~~`). Refuses while any task is open, listing them.",
        input_schema = schema::input::<IncludeDiffRequest>(),
        output_schema = schema::output::<PlannerResponse>(),
        annotations(title = "Finish job", read_only_hint = false, destructive_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    fn finish_job(&self, tool: ToolName, args: JsonObject) -> ToolFuture<'_> {
        self.planner_tool(tool, args, changes_only(PlannerTools::finish_job))
    }
}

#[cfg(test)]
mod tests {
    use quire_grammar::plan::{ALLOWED_CONSTRAINT_PREFIXES, MAX_TASK_DEPTH, ParserConfig};

    /// The numbers that follow `marker` in `text` (`at most 120 characters`
    /// with the marker `at most `), each with the word after it.
    fn numbers_after<'t>(text: &'t str, marker: &str) -> Vec<(usize, &'t str)> {
        text.split(marker)
            .skip(1)
            .filter_map(|rest| {
                let digits = rest.find(|c: char| !c.is_ascii_digit())?;
                let number = rest[..digits].parse().ok()?;
                let word = rest[digits..].split_whitespace().next()?;
                Some((number, word))
            })
            .collect()
    }

    /// Doc comments become the schemas' descriptions and cannot be
    /// computed; every title length, nesting depth and diff limit the
    /// planner's tools state (descriptions, input and output schemas alike)
    /// is held to the grammar's and the planner's constants here.
    #[test]
    fn every_limit_the_tools_state_is_the_grammars() {
        use super::MAX_LISTED_FILES_BYTES;
        use quire_planner::store::{MAX_DIFF_BYTES, MAX_NEW_FILE_DIFFS};

        let (mut lengths, mut depths, mut new_files, mut diff_sizes) = (0, 0, 0, 0);
        let (mut list_sizes, mut counted_files) = (0, 0);
        for tool in super::super::server::QuireServer::planner_router().list_all() {
            let stated = format!(
                "{} {} {}",
                tool.description.as_deref().unwrap_or_default(),
                serde_json::Value::Object((*tool.input_schema).clone()),
                serde_json::Value::Object(
                    tool.output_schema.as_deref().cloned().unwrap_or_default()
                )
            );
            for (number, word) in numbers_after(&stated, "at most ") {
                if word.starts_with("characters") {
                    lengths += 1;
                    let limit = ParserConfig::COMMIT_MESSAGE.max_title_length;
                    assert_eq!(number, limit, "{}: {stated}", tool.name);
                } else if word.starts_with("levels") {
                    depths += 1;
                    assert_eq!(number, MAX_TASK_DEPTH, "{}: {stated}", tool.name);
                } else if word.starts_with(')') {
                    // `each untracked file as a new file, at most 100)`.
                    new_files += 1;
                    assert_eq!(number, MAX_NEW_FILE_DIFFS, "{}: {stated}", tool.name);
                } else {
                    panic!(
                        "{}: a limit this test does not know: at most {number} {word}",
                        tool.name
                    );
                }
            }
            for (number, word) in numbers_after(&stated, "cut at ") {
                assert!(word.starts_with("KiB"), "{}: {stated}", tool.name);
                diff_sizes += 1;
                assert_eq!(number * 1024, MAX_DIFF_BYTES, "{}: {stated}", tool.name);
            }
            for (number, word) in numbers_after(&stated, "fit ") {
                assert!(word.starts_with("KiB"), "{}: {stated}", tool.name);
                list_sizes += 1;
                assert_eq!(
                    number * 1024,
                    MAX_LISTED_FILES_BYTES,
                    "{}: {stated}",
                    tool.name
                );
            }
            // `the untracked files past the first 100, one command each`.
            for (number, _) in numbers_after(&stated, "past the first ") {
                counted_files += 1;
                assert_eq!(number, MAX_NEW_FILE_DIFFS, "{}: {stated}", tool.name);
            }
        }
        // The title in set_overarching_goal's description and goal.title;
        // the depth in set_plan's description and `plan`; the diff in
        // gather_requirements' description, every tool's `include_diff` and
        // every result's `changes.diff`; the file list in
        // gather_requirements' description and every result's
        // `changes.files` and `changes.files_shown`; the new files counted
        // in every result's `lines_added` and `changes.diff`.
        assert_eq!(
            (
                lengths,
                depths,
                new_files,
                diff_sizes,
                list_sizes,
                counted_files
            ),
            (2, 2, 6, 13, 13, 6),
            "every limit stated is checked"
        );
    }

    /// `set_detailed_goal`'s description lists the constraint prefixes in
    /// its own order (the one clients have seen since the first release),
    /// so it is a literal; this keeps it to exactly the grammar's prefixes.
    #[test]
    fn set_detailed_goal_names_exactly_the_constraint_prefixes() {
        let tool = super::super::server::QuireServer::planner_router()
            .list_all()
            .into_iter()
            .find(|tool| tool.name == "set_detailed_goal")
            .expect("set_detailed_goal is a planner tool");
        let description = tool.description.unwrap_or_default();
        let mut named: Vec<&str> = description
            .split("`- ")
            .skip(1)
            .map(|rest| rest.split(": ...`").next().unwrap_or_default())
            .collect();
        let mut allowed = ALLOWED_CONSTRAINT_PREFIXES.to_vec();
        named.sort_unstable();
        allowed.sort_unstable();
        assert_eq!(named, allowed, "{description}");
    }
}
