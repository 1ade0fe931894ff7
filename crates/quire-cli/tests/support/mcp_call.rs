//! One tool call through the MCP layer, in process (`quire_cli::mcp::call_in_process`):
//! the JSON arguments a client sends, decoded and answered where the server
//! does it.

use quire_cli::mcp::{QuireServer, call_in_process};
use serde_json::Value;

/// Calls `tool` on `server` with `arguments` (a JSON object). `Ok` holds the
/// result's structured content, `Err` the `error` object of a tool error
/// (`code`, `message`, `retryable`).
pub(crate) fn call(server: QuireServer, tool: &str, arguments: Value) -> Result<Value, Value> {
    let Value::Object(arguments) = arguments else {
        panic!("MCP tool arguments are a JSON object, not {arguments}");
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let outcome = runtime
        .block_on(call_in_process(server, tool, arguments))
        .unwrap_or_else(|error| panic!("the call of {tool} failed at the protocol level: {error}"));
    if outcome.is_error {
        Err(outcome.value["error"].clone())
    } else {
        Ok(outcome.value)
    }
}
