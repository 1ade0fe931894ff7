//! Planner calls written as the JSON a client of the planner's tools sends,
//! run through the typed API: test fixtures read best in the tools' own
//! request shape. Decoding itself (and what malformed arguments are told)
//! is the MCP layer's job and is tested there (quire-cli).

use quire_grammar::plan::Task;
use quire_planner::{Goal, PlanReport, PlannerError, PlannerTools};
use serde_json::Value;

/// Runs the workflow step that the tool `tool` takes with `arguments`,
/// which must be a well-formed request of that tool.
pub(crate) fn call(
    tools: &PlannerTools,
    tool: &str,
    arguments: Value,
) -> Result<PlanReport, PlannerError> {
    let malformed = |what: &str| -> ! {
        panic!("a malformed {tool} request in the test ({what}): {arguments}")
    };
    let text = |value: &Value, what: &str| -> String {
        value.as_str().unwrap_or_else(|| malformed(what)).to_owned()
    };
    let flag = |object: &Value, name: &str, default: bool| -> bool {
        match object.get(name) {
            None => default,
            Some(value) => value.as_bool().unwrap_or_else(|| malformed(name)),
        }
    };
    match tool {
        "gather_requirements" => tools.gather_requirements(),
        "set_overarching_goal" => {
            let goal = &arguments["goal"];
            let goal = Goal {
                commit_type: text(&goal["type"], "goal.type"),
                scope: text(&goal["scope"], "goal.scope"),
                breaking: flag(goal, "breaking", false),
                title: text(&goal["title"], "goal.title"),
            };
            if flag(&arguments, "start_new", false) {
                tools.start_new_plan(&goal)
            } else {
                tools.set_overarching_goal(&goal)
            }
        }
        "set_detailed_goal" => {
            tools.set_detailed_goal(&text(&arguments["description"], "description"))
        }
        "set_plan" => {
            let plan: Vec<Task> = serde_json::from_value(arguments["plan"].clone())
                .unwrap_or_else(|error| malformed(&error.to_string()));
            tools.set_plan(plan)
        }
        "mark_task" => tools.mark_task(
            &text(&arguments["task_id"], "task_id"),
            flag(&arguments, "completed", true),
        ),
        "finish_job" => tools.finish_job(),
        other => panic!("there is no planner tool `{other}`"),
    }
}
