//! The in-process client behind `quire call`: a real MCP client and server
//! connected in memory. (The stdio and HTTP transports are in [`super::stdio`]
//! and [`super::http`].)

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, JsonObject};

use super::BoxError;
use super::server::QuireServer;

/// The result of one in-process tool call.
#[derive(Debug)]
pub struct CallOutcome {
    /// The result's `structuredContent` (or its text, as a JSON string, when
    /// a tool returned no structured content).
    pub value: serde_json::Value,
    /// The result's `isError`.
    pub is_error: bool,
}

/// Calls one tool through a real MCP client and server connected in memory:
/// the same path a remote client's call takes, without a process or socket.
pub async fn call_in_process(
    server: QuireServer,
    tool: &str,
    arguments: JsonObject,
) -> Result<CallOutcome, BoxError> {
    let (server_end, client_end) = tokio::io::duplex(64 * 1024);
    let server_task = tokio::spawn(async move {
        match server.serve(server_end).await {
            Ok(running) => {
                let _ = running.waiting().await;
            }
            Err(error) => tracing::error!(%error, "in-process server failed to start"),
        }
    });
    let client = ().serve(client_end).await?;
    let result = client
        .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments))
        .await;
    let _ = client.cancel().await;
    let _ = server_task.await;
    let result = result?;
    let is_error = result.is_error.unwrap_or(false);
    let value = match result.structured_content {
        Some(value) => value,
        None => serde_json::Value::String(
            result
                .content
                .iter()
                .filter_map(|block| block.as_text().map(|text| text.text.clone()))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
    };
    Ok(CallOutcome { value, is_error })
}
