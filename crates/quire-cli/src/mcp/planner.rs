//! The `planner` toolset's router: the six workflow tools.

use rmcp::handler::server::common::{schema_for_output, schema_for_type};
use rmcp::handler::server::tool::ToolName;
use rmcp::model::JsonObject;
use rmcp::{tool, tool_router};
use serde::de::DeserializeOwned;

use super::result::{ToolFuture, run_tool};
use super::server::QuireServer;
use quire_grammar::plan::{ALLOWED_TYPES, MAX_TASK_DEPTH, ParserConfig};
use quire_planner::{
    MarkTaskRequest, NoParameters, PlannerError, PlannerResponse, PlannerTools,
    SetDetailedGoalRequest, SetOverarchingGoalRequest, SetPlanRequest,
};

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
type Outcome = Result<PlannerResponse, PlannerError>;

impl QuireServer {
    /// Runs one call of a planner tool: `operation` with the decoded request.
    fn planner_tool<Request: DeserializeOwned>(
        &self,
        tool: ToolName,
        args: JsonObject,
        operation: impl FnOnce(&PlannerTools, &Request) -> Outcome + Send + 'static,
    ) -> ToolFuture<'static> {
        run_tool(&self.planner, tool, args, operation)
    }
}

/// An operation that takes no request as one that takes [`NoParameters`],
/// which are decoded all the same (so unknown arguments are refused).
fn no_request(
    operation: fn(&PlannerTools) -> Outcome,
) -> impl FnOnce(&PlannerTools, &NoParameters) -> Outcome + Send + 'static {
    move |planner, _| operation(planner)
}

#[tool_router(router = planner_router, vis = "pub(super)")]
impl QuireServer {
    #[tool(
        name = "gather_requirements",
        description = "Read the plan and its workflow stage, and learn what to do next: call this first. The plan is kept in the \
                       Jujutsu change description, the git directory, or --plan-file; the stage is 0 empty, 1 goal, 2 described, \
                       4 constraints, 5 planned or 6 complete, and the guidance names the next tool and its parameters. When the \
                       working copy beneath the root has changes, `changes` lists the changed files and then their diff in git's \
                       format (cut at 64 KiB, saying how much was left out).",
        input_schema = schema_for_type::<NoParameters>(),
        output_schema = schema_for_output::<PlannerResponse>(),
        annotations(title = "Gather requirements", read_only_hint = true, destructive_hint = false, idempotent_hint = true, open_world_hint = false)
    )]
    fn gather_requirements(&self, tool: ToolName, args: JsonObject) -> ToolFuture<'_> {
        self.planner_tool(tool, args, no_request(PlannerTools::gather_requirements))
    }

    #[tool(
        name = "set_overarching_goal",
        description = set_overarching_goal_description(),
        input_schema = schema_for_type::<SetOverarchingGoalRequest>(),
        output_schema = schema_for_output::<PlannerResponse>(),
        annotations(title = "Set overarching goal", read_only_hint = false, destructive_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    fn set_overarching_goal(&self, tool: ToolName, args: JsonObject) -> ToolFuture<'_> {
        self.planner_tool(tool, args, PlannerTools::set_overarching_goal)
    }

    #[tool(
        name = "set_detailed_goal",
        description = "Set the plan's description: why the change is needed, what it changes and how, as one paragraph. End it with \
                       constraint lines (`- Never: ...`, `- Do not: ...`, `- Avoid: ...`, `- Must not: ...`, `- Cannot: ...`, \
                       `- Forbidden: ...`, `- Decide against: ...`, value starting lowercase) to record what must not be done.",
        input_schema = schema_for_type::<SetDetailedGoalRequest>(),
        output_schema = schema_for_output::<PlannerResponse>(),
        annotations(title = "Set detailed goal", read_only_hint = false, destructive_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    fn set_detailed_goal(&self, tool: ToolName, args: JsonObject) -> ToolFuture<'_> {
        self.planner_tool(tool, args, PlannerTools::set_detailed_goal)
    }

    #[tool(
        name = "set_plan",
        description = set_plan_description(),
        input_schema = schema_for_type::<SetPlanRequest>(),
        output_schema = schema_for_output::<PlannerResponse>(),
        annotations(title = "Set plan", read_only_hint = false, destructive_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    fn set_plan(&self, tool: ToolName, args: JsonObject) -> ToolFuture<'_> {
        self.planner_tool(tool, args, PlannerTools::set_plan)
    }

    #[tool(
        name = "mark_task",
        description = "Mark a task done (completed defaults to true) or reopen it (completed=false). task_id is the task's path as the \
                       tools list it (`2`, `1.1`: exactly that task), or its text (an exact match wins, else a unique case-insensitive \
                       part of it); an ambiguous or unknown id changes nothing and lists the candidates. A parent is done only when all its subtasks are; reopening a task reopens its parents.",
        input_schema = schema_for_type::<MarkTaskRequest>(),
        output_schema = schema_for_output::<PlannerResponse>(),
        annotations(title = "Mark task", read_only_hint = false, destructive_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    fn mark_task(&self, tool: ToolName, args: JsonObject) -> ToolFuture<'_> {
        self.planner_tool(tool, args, PlannerTools::mark_task)
    }

    #[tool(
        name = "finish_job",
        description = "Record the job as complete (`~~~ COMPLETE ~~~`). Refuses while any task is open, listing them.",
        input_schema = schema_for_type::<NoParameters>(),
        output_schema = schema_for_output::<PlannerResponse>(),
        annotations(title = "Finish job", read_only_hint = false, destructive_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    fn finish_job(&self, tool: ToolName, args: JsonObject) -> ToolFuture<'_> {
        self.planner_tool(tool, args, no_request(PlannerTools::finish_job))
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

    /// Doc comments become the request schemas' descriptions and cannot be
    /// computed; every title length and nesting depth the planner's tools
    /// state (descriptions and input schemas alike) is held to the
    /// grammar's constants here.
    #[test]
    fn every_limit_the_tools_state_is_the_grammars() {
        let (mut lengths, mut depths) = (0, 0);
        for tool in super::super::server::QuireServer::planner_router().list_all() {
            let stated = format!(
                "{} {}",
                tool.description.as_deref().unwrap_or_default(),
                serde_json::Value::Object((*tool.input_schema).clone())
            );
            for (number, word) in numbers_after(&stated, "at most ") {
                if word.starts_with("characters") {
                    lengths += 1;
                    let limit = ParserConfig::COMMIT_MESSAGE.max_title_length;
                    assert_eq!(number, limit, "{}: {stated}", tool.name);
                } else if word.starts_with("levels") {
                    depths += 1;
                    assert_eq!(number, MAX_TASK_DEPTH, "{}: {stated}", tool.name);
                }
            }
        }
        assert_eq!((lengths, depths), (2, 2), "every limit stated is checked");
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
