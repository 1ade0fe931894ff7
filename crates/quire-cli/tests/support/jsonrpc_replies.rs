//! What the protocol tests (stdio and HTTP) share: the `initialize` a raw
//! client sends, and how a reply to it or a JSON-RPC error is read.

use serde_json::Value;

/// The `initialize` request, with id 1, that a raw test client sends.
pub(crate) const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw-test","version":"1"}}}"#;

/// Asserts that `reply` is quire's answer to [`INITIALIZE`].
pub(crate) fn assert_initialized(reply: &Value) {
    assert_eq!(reply["id"], 1, "{reply}");
    assert_eq!(reply["result"]["serverInfo"]["name"], "quire", "{reply}");
}

/// The `(code, id)` of a JSON-RPC error reply, once it is known to be one:
/// `"jsonrpc": "2.0"`, no `result`, and a message that says something.
pub(crate) fn error_of(reply: &Value) -> (i64, Value) {
    assert_eq!(reply["jsonrpc"], "2.0", "{reply}");
    assert!(reply.get("result").is_none(), "{reply}");
    let message = reply["error"]["message"].as_str().unwrap_or_default();
    assert!(!message.is_empty(), "an error says what was wrong: {reply}");
    let code = reply["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("no error code: {reply}"));
    (code, reply["id"].clone())
}
