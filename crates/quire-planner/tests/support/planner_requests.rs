//! Planner calls written as the JSON a client sends, run through the typed
//! API: test fixtures read best in the tools' own request shape. Decoding
//! itself (and what malformed arguments are told) is the MCP layer's job
//! and is tested there (`src/mcp/result.rs`, `tests/planner.rs`).

use quire_planner::{PlannerError, PlannerResponse, PlannerTools};
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Runs the planner tool `tool` with `arguments`, which must be a
/// well-formed request of that tool.
pub(crate) fn call(
    tools: &PlannerTools,
    tool: &str,
    arguments: Value,
) -> Result<PlannerResponse, PlannerError> {
    fn request<T: DeserializeOwned>(tool: &str, arguments: Value) -> T {
        serde_json::from_value(arguments)
            .unwrap_or_else(|error| panic!("a malformed {tool} request in the test: {error}"))
    }
    match tool {
        "gather_requirements" => tools.gather_requirements(),
        "set_overarching_goal" => tools.set_overarching_goal(&request(tool, arguments)),
        "set_detailed_goal" => tools.set_detailed_goal(&request(tool, arguments)),
        "set_plan" => tools.set_plan(&request(tool, arguments)),
        "mark_task" => tools.mark_task(&request(tool, arguments)),
        "finish_job" => tools.finish_job(),
        other => panic!("there is no planner tool `{other}`"),
    }
}
