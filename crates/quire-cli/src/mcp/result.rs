//! Turning a tool call into a domain call and its outcome into an MCP tool
//! result.
//!
//! The call's arguments (a JSON object) are decoded into the tool's typed
//! request; one that does not fit is a `VALIDATION_ERROR` saying which
//! field is wrong. A normal outcome (including a business "blocked")
//! becomes `structuredContent` plus the same JSON as text, with
//! `isError: false`. A domain error becomes a [`ToolError`]: `isError: true`
//! with `structuredContent` `{"error": {"code", "message", "retryable"}}`.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::handler::server::tool::ToolName;
use rmcp::model::{CallToolResult, JsonObject};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::tool_error::ToolError;

/// A tool call under way, in the form rmcp's router runs (what it makes of
/// an `async fn` tool), so that a tool method can hand one on in one line.
pub(super) type ToolFuture<'a> = Pin<Box<dyn Future<Output = CallToolResult> + Send + 'a>>;

/// Runs one call of `tool`: decodes `arguments` into `Request`, runs
/// `operation` on `domain` on tokio's blocking pool (the domains do blocking
/// file and process work), and converts its outcome into a tool result.
pub(super) fn run_tool<Domain, Request, Response, Error>(
    domain: &Arc<Domain>,
    ToolName(tool): ToolName,
    arguments: JsonObject,
    operation: impl FnOnce(&Domain, &Request) -> Result<Response, Error> + Send + 'static,
) -> ToolFuture<'static>
where
    Domain: Send + Sync + 'static,
    Request: DeserializeOwned,
    Response: Serialize + Send + 'static,
    Error: Into<ToolError>,
{
    let domain = Arc::clone(domain);
    Box::pin(run_blocking(move || {
        let request = decode(&tool, arguments)?;
        operation(&domain, &request).map_err(Into::into)
    }))
}

/// The tool's typed request from its arguments. serde names a missing or
/// unknown field itself; for a value of the wrong type, the field's path
/// (`goal.type`, `plan[0][1]`) goes before serde's message.
pub(super) fn decode<Request: DeserializeOwned>(
    tool: &str,
    arguments: JsonObject,
) -> Result<Request, ToolError> {
    serde_path_to_error::deserialize(serde_json::Value::Object(arguments)).map_err(|error| {
        let problem = error.inner().to_string();
        let mut field = error.path().to_string();
        // An unknown field's path ends with the name serde's message gives.
        if problem.starts_with("unknown field") {
            let parent = field.rfind(['.', '[']).unwrap_or(0);
            field.truncate(parent);
        }
        ToolError::validation(if field.is_empty() || field == "." {
            format!("invalid arguments for {tool}: {problem}")
        } else {
            format!("invalid arguments for {tool}: {field}: {problem}")
        })
    })
}

/// Runs a blocking operation on tokio's blocking pool and converts its
/// outcome into a tool result. A panic in the operation becomes an
/// `INTERNAL_ERROR`, never a dropped connection.
async fn run_blocking<T, F>(operation: F) -> CallToolResult
where
    T: Serialize + Send + 'static,
    F: FnOnce() -> Result<T, ToolError> + Send + 'static,
{
    to_call_result(blocking(operation).await)
}

/// Runs a blocking operation on tokio's blocking pool; a panic in it
/// becomes an `INTERNAL_ERROR`.
pub(super) async fn blocking<T, F>(operation: F) -> Result<T, ToolError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, ToolError> + Send + 'static,
{
    match tokio::task::spawn_blocking(operation).await {
        Ok(outcome) => outcome,
        Err(join_error) => {
            tracing::error!(%join_error, "tool operation failed unexpectedly");
            Err(ToolError::internal(
                "the tool failed unexpectedly; the workspace was not changed by this call",
            ))
        }
    }
}

pub(super) fn to_call_result<T: Serialize>(outcome: Result<T, ToolError>) -> CallToolResult {
    match outcome.and_then(|value| {
        serde_json::to_value(value).map_err(|error| {
            ToolError::internal(format!("the result could not be encoded: {error}"))
        })
    }) {
        Ok(value) => CallToolResult::structured(value),
        Err(error) => {
            tracing::debug!(code = error.code.as_str(), message = %error.message, "tool error");
            CallToolResult::structured_error(error.to_json())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::ErrorCode;
    use crate::mcp::planner_types::{
        IncludeDiffRequest, MarkTaskRequest, SetOverarchingGoalRequest, SetPlanRequest,
    };
    use crate::mcp::tracker_types::UpdateTrackerStatusRequest;

    fn object(value: serde_json::Value) -> JsonObject {
        match value {
            serde_json::Value::Object(object) => object,
            other => panic!("not an object: {other}"),
        }
    }

    #[test]
    fn arguments_that_do_not_fit_name_the_tool_and_the_field() {
        let error = decode::<UpdateTrackerStatusRequest>(
            "update_tracker_status",
            object(serde_json::json!({"tracker_path": "t.md", "target_status": "Applied", "x": 1})),
        )
        .unwrap_err();
        assert_eq!(error.code, ErrorCode::ValidationError);
        assert!(!error.retryable);
        assert!(
            error
                .message
                .starts_with("invalid arguments for update_tracker_status: unknown field `x`"),
            "{}",
            error.message
        );
        let error = decode::<MarkTaskRequest>("mark_task", JsonObject::new()).unwrap_err();
        assert_eq!(
            error.message,
            "invalid arguments for mark_task: missing field `task_id`"
        );
        let error =
            decode::<IncludeDiffRequest>("finish_job", object(serde_json::json!({"now": true})))
                .unwrap_err();
        assert!(
            error.message.contains("unknown field `now`"),
            "{}",
            error.message
        );
        let error = decode::<SetOverarchingGoalRequest>(
            "set_overarching_goal",
            object(serde_json::json!({"goal": {"type": "feat", "title": "t", "colour": 1}})),
        )
        .unwrap_err();
        assert!(
            error.message.starts_with(
                "invalid arguments for set_overarching_goal: goal: unknown field `colour`"
            ),
            "{}",
            error.message
        );
        // A value of the wrong type is named by its path.
        let error = decode::<MarkTaskRequest>(
            "mark_task",
            object(serde_json::json!({"task_id": "2", "completed": "yes"})),
        )
        .unwrap_err();
        assert_eq!(
            error.message,
            "invalid arguments for mark_task: completed: invalid type: string \"yes\", expected a boolean"
        );
        let error = decode::<SetPlanRequest>(
            "set_plan",
            object(serde_json::json!({"plan": [[false, "a", []], [false, 5, []]]})),
        )
        .unwrap_err();
        assert!(
            error
                .message
                .starts_with("invalid arguments for set_plan: plan[1]"),
            "{}",
            error.message
        );
        // Defaults fill what is left out.
        let request: MarkTaskRequest =
            decode("mark_task", object(serde_json::json!({"task_id": "2"}))).unwrap();
        assert!(request.completed);
    }
}
