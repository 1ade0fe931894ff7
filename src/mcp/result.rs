//! Turning a domain outcome into an MCP tool result.
//!
//! A normal outcome (including a business "blocked") becomes
//! `structuredContent` plus the same JSON as text, with `isError: false`. A
//! [`ToolError`] becomes `isError: true` with `structuredContent`
//! `{"error": {"code", "message", "retryable"}}`.

use rmcp::model::CallToolResult;
use serde::Serialize;

use crate::tool_error::ToolError;

/// Runs a blocking domain operation on tokio's blocking pool and converts its
/// outcome into a tool result. A panic in the operation becomes an
/// `INTERNAL_ERROR`, never a dropped connection.
pub(super) async fn run_blocking<T, F>(operation: F) -> CallToolResult
where
    T: Serialize,
    F: FnOnce() -> Result<T, ToolError> + Send + 'static,
    T: Send + 'static,
{
    let outcome = match tokio::task::spawn_blocking(operation).await {
        Ok(outcome) => outcome,
        Err(join_error) => {
            tracing::error!(%join_error, "tool operation failed unexpectedly");
            Err(ToolError::internal(
                "the tool failed unexpectedly; the workspace was not changed by this call",
            ))
        }
    };
    to_call_result(outcome)
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
