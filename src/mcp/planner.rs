//! The `planner` toolset's router: the six workflow tools.

use rmcp::handler::server::common::{schema_for_output, schema_for_type};
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, JsonObject};
use rmcp::{tool, tool_router};

use super::result::run_blocking;
use super::server::QuireServer;
use crate::planner::{
    MarkTaskRequest, NoParameters, PlannerResponse, SetDetailedGoalRequest,
    SetOverarchingGoalRequest, SetPlanRequest,
};

impl QuireServer {
    async fn planner_call(&self, tool: &'static str, arguments: JsonObject) -> CallToolResult {
        let planner = self.planner.clone();
        run_blocking(move || planner.call(tool, serde_json::Value::Object(arguments))).await
    }
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
    async fn gather_requirements(
        &self,
        Parameters(arguments): Parameters<JsonObject>,
    ) -> CallToolResult {
        self.planner_call("gather_requirements", arguments).await
    }

    #[tool(
        name = "set_overarching_goal",
        description = "Set (or replace) the plan's goal: the header `type(scope)!: title`. goal.type is one of feat, fix, refactor, build, \
                       chore, docs, lint, infra, spec; goal.scope is lowercase letters, digits and hyphens; goal.title is one line of at \
                       most 120 characters. Keeps the rest of the plan.",
        input_schema = schema_for_type::<SetOverarchingGoalRequest>(),
        output_schema = schema_for_output::<PlannerResponse>(),
        annotations(title = "Set overarching goal", read_only_hint = false, destructive_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    async fn set_overarching_goal(
        &self,
        Parameters(arguments): Parameters<JsonObject>,
    ) -> CallToolResult {
        self.planner_call("set_overarching_goal", arguments).await
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
    async fn set_detailed_goal(
        &self,
        Parameters(arguments): Parameters<JsonObject>,
    ) -> CallToolResult {
        self.planner_call("set_detailed_goal", arguments).await
    }

    #[tool(
        name = "set_plan",
        description = "Set (or replace) the plan's tasks: a list of [checked, text, children] tuples, at most 4 levels below the top, \
                       each a concrete one-line step.",
        input_schema = schema_for_type::<SetPlanRequest>(),
        output_schema = schema_for_output::<PlannerResponse>(),
        annotations(title = "Set plan", read_only_hint = false, destructive_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    async fn set_plan(&self, Parameters(arguments): Parameters<JsonObject>) -> CallToolResult {
        self.planner_call("set_plan", arguments).await
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
    async fn mark_task(&self, Parameters(arguments): Parameters<JsonObject>) -> CallToolResult {
        self.planner_call("mark_task", arguments).await
    }

    #[tool(
        name = "finish_job",
        description = "Record the job as complete (`~~~ COMPLETE ~~~`). Refuses while any task is open, listing them.",
        input_schema = schema_for_type::<NoParameters>(),
        output_schema = schema_for_output::<PlannerResponse>(),
        annotations(title = "Finish job", read_only_hint = false, destructive_hint = true, idempotent_hint = true, open_world_hint = false)
    )]
    async fn finish_job(&self, Parameters(arguments): Parameters<JsonObject>) -> CallToolResult {
        self.planner_call("finish_job", arguments).await
    }
}
