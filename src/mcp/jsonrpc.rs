//! Checking one incoming JSON-RPC message before rmcp sees it, and the
//! JSON-RPC error that answers it when it is not a message rmcp can take.
//!
//! Why this is hand-written: rmcp's transports ignore a line that is not
//! JSON (no reply at all), answer a message of the wrong shape with
//! `-32600` and no `id`, and take a request whose `params` do not fit a
//! known method as a *custom* request, which then fails as "method not
//! found". JSON-RPC 2.0 asks for `-32700` with `id: null` for a parse
//! error, and for the request's own `id` whenever it can be read. So every
//! message is parsed here first, with serde_json (whose recursion limit of
//! 128 bounds the nesting), checked against rmcp's own message types, and
//! only a message that parses as what it claims to be is passed on. The
//! stdio and HTTP transports share this check.

use rmcp::model::{
    CallToolRequest, CallToolRequestMethod, ClientJsonRpcMessage, ClientRequest, CompleteRequest,
    CompleteRequestMethod, ConstString, DiscoverRequest, DiscoverRequestMethod, ErrorCode,
    GetPromptRequest, GetPromptRequestMethod, InitializeRequest, InitializeResultMethod,
    JsonRpcMessage, ListPromptsRequest, ListPromptsRequestMethod, ListResourceTemplatesRequest,
    ListResourceTemplatesRequestMethod, ListResourcesRequest, ListResourcesRequestMethod,
    ListToolsRequest, ListToolsRequestMethod, PingRequest, PingRequestMethod, ReadResourceRequest,
    ReadResourceRequestMethod, RequestId,
};
use serde_json::{Map, Value};

/// The deepest nesting of arrays and objects a message may have: the
/// recursion limit of serde_json's parser, which rejects deeper input
/// before it can exhaust the stack.
pub const MAX_NESTING: usize = 128;

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// Why a message was not passed on, and how to answer it.
#[derive(Clone, Debug, PartialEq)]
pub struct Rejection {
    /// The JSON-RPC error code: `-32700`, `-32600`, `-32601` or `-32602`.
    pub code: ErrorCode,
    /// The request's `id`, exactly as sent, when it could be read.
    pub id: Option<Value>,
    /// What was wrong and what to send instead.
    pub message: String,
    /// The message was a notification: JSON-RPC never answers one, so over
    /// stdio it is only logged.
    pub notification: bool,
}

impl Rejection {
    fn new(code: ErrorCode, id: Option<Value>, message: impl Into<String>) -> Self {
        Rejection {
            code,
            id,
            message: message.into(),
            notification: false,
        }
    }

    /// A parse error (`-32700`, `id: null`).
    pub fn parse(message: impl Into<String>) -> Self {
        Rejection::new(ErrorCode::PARSE_ERROR, None, message)
    }

    /// An invalid request (`-32600`).
    pub fn invalid_request(id: Option<Value>, message: impl Into<String>) -> Self {
        Rejection::new(ErrorCode::INVALID_REQUEST, id, message)
    }

    /// A line or body over `limit` bytes, discarded unread: a parse error,
    /// since the server would not parse it.
    pub fn too_long(limit: usize) -> Self {
        Rejection::parse(format!(
            "Parse error: the message is longer than {limit} bytes ({}), the most this server reads; \
             it was discarded unread. Send smaller messages.",
            human_size(limit)
        ))
    }

    /// The JSON-RPC error response, as JSON text (members in the usual
    /// order: `jsonrpc`, `id`, `error`).
    pub fn to_json_text(&self) -> String {
        #[derive(serde::Serialize)]
        struct Response<'a> {
            jsonrpc: &'static str,
            id: &'a Value,
            error: Error<'a>,
        }
        #[derive(serde::Serialize)]
        struct Error<'a> {
            code: i32,
            message: &'a str,
        }
        let response = Response {
            jsonrpc: "2.0",
            id: self.id.as_ref().unwrap_or(&Value::Null),
            error: Error {
                code: self.code.0,
                message: &self.message,
            },
        };
        serde_json::to_string(&response).unwrap_or_else(|_| {
            format!(
                r#"{{"jsonrpc":"2.0","id":null,"error":{{"code":{},"message":"invalid message"}}}}"#,
                self.code.0
            )
        })
    }

    /// The JSON-RPC error response as one line, newline included.
    pub fn to_line(&self) -> Vec<u8> {
        let mut line = self.to_json_text().into_bytes();
        line.push(b'\n');
        line
    }
}

/// `16 MiB` for 16777216: sizes in error messages, as people write them.
pub fn human_size(bytes: usize) -> String {
    const MIB: usize = 1024 * 1024;
    const KIB: usize = 1024;
    if bytes >= MIB && bytes.is_multiple_of(MIB) {
        format!("{} MiB", bytes / MIB)
    } else if bytes >= KIB && bytes.is_multiple_of(KIB) {
        format!("{} KiB", bytes / KIB)
    } else {
        format!("{bytes} bytes")
    }
}

/// Parses `bytes` as one JSON-RPC message from a client and checks that it
/// is what it claims to be; a leading UTF-8 byte order mark is skipped.
pub fn check(bytes: &[u8]) -> Result<ClientJsonRpcMessage, Rejection> {
    let bytes = bytes.strip_prefix(UTF8_BOM).unwrap_or(bytes);
    let value: Value = serde_json::from_slice(bytes).map_err(|error| {
        Rejection::parse(format!(
            "Parse error: {error}. A message must be one complete UTF-8 JSON object, \
             nested at most {MAX_NESTING} levels deep."
        ))
    })?;
    let object = match &value {
        Value::Object(object) => object,
        Value::Array(items) if items.is_empty() => {
            return Err(Rejection::invalid_request(
                None,
                "Invalid Request: an empty array is not a JSON-RPC message; send one JSON object",
            ));
        }
        Value::Array(_) => {
            return Err(Rejection::invalid_request(
                None,
                "Invalid Request: JSON-RPC batches (arrays) are not supported (MCP dropped them in \
                 2025-06-18); send each message on its own",
            ));
        }
        other => {
            return Err(Rejection::invalid_request(
                None,
                format!(
                    "Invalid Request: a JSON-RPC message is a JSON object, not {}",
                    kind(other)
                ),
            ));
        }
    };
    let id = match object.get("id") {
        None => None,
        Some(id) if serde_json::from_value::<RequestId>(id.clone()).is_ok() => Some(id.clone()),
        Some(id) => {
            return Err(Rejection::invalid_request(
                None,
                format!(
                    "Invalid Request: `id` must be a string or an integer, not {}",
                    kind(id)
                ),
            ));
        }
    };
    match serde_json::from_value::<ClientJsonRpcMessage>(value.clone()) {
        Ok(JsonRpcMessage::Request(request)) => {
            // rmcp reads a known method whose params do not fit as a custom
            // request, which would be answered "method not found".
            if let ClientRequest::CustomRequest(custom) = &request.request
                && let Some(problem) = params_problem(&custom.method, object)
            {
                return Err(Rejection::new(
                    ErrorCode::INVALID_PARAMS,
                    id,
                    format!("Invalid params for `{}`: {problem}", custom.method),
                ));
            }
            Ok(JsonRpcMessage::Request(request))
        }
        Ok(message) => Ok(message),
        Err(error) => Err(diagnose(object, id, &error)),
    }
}

/// Why `object`, well-formed JSON that rmcp could not read as a client
/// message, is not one; the most specific reason wins.
fn diagnose(
    object: &Map<String, Value>,
    id: Option<Value>,
    error: &serde_json::Error,
) -> Rejection {
    let notification = id.is_none() && object.contains_key("method");
    let mut rejection = diagnose_fields(object, id, error);
    rejection.notification = notification;
    rejection
}

fn diagnose_fields(
    object: &Map<String, Value>,
    id: Option<Value>,
    error: &serde_json::Error,
) -> Rejection {
    match object.get("jsonrpc") {
        Some(Value::String(version)) if version == "2.0" => {}
        Some(other) => {
            return Rejection::invalid_request(
                id,
                format!("Invalid Request: `jsonrpc` must be \"2.0\", not {other}"),
            );
        }
        None => {
            return Rejection::invalid_request(
                id,
                "Invalid Request: the message has no `\"jsonrpc\": \"2.0\"`",
            );
        }
    }
    let method = match object.get("method") {
        None => None,
        Some(Value::String(method)) => Some(method.as_str()),
        Some(other) => {
            return Rejection::invalid_request(
                id,
                format!(
                    "Invalid Request: `method` must be a string, not {}",
                    kind(other)
                ),
            );
        }
    };
    let has_outcome = object.contains_key("result") || object.contains_key("error");
    match method {
        Some(_) if has_outcome => Rejection::invalid_request(
            id,
            "Invalid Request: a message has either `method` (a request or notification) or \
             `result`/`error` (a response), not both",
        ),
        Some(method) => {
            if let Some(params) = object.get("params")
                && !params.is_object()
            {
                return Rejection::invalid_request(
                    id,
                    format!(
                        "Invalid Request: `params` must be a JSON object, not {}",
                        kind(params)
                    ),
                );
            }
            if let Some(problem) = params_problem(method, object) {
                return Rejection::new(
                    ErrorCode::INVALID_PARAMS,
                    id,
                    format!("Invalid params for `{method}`: {problem}"),
                );
            }
            Rejection::invalid_request(
                id,
                format!("Invalid Request: the `{method}` message cannot be read: {error}"),
            )
        }
        None if has_outcome => Rejection::invalid_request(
            None,
            format!(
                "Invalid Request: a response needs an `id` and exactly one of `result` or `error`: {error}"
            ),
        ),
        None => Rejection::invalid_request(
            id,
            "Invalid Request: the message has no `method`; a request needs `method` and `id`, \
             a notification `method`, a response `id` and `result` or `error`",
        ),
    }
}

/// What is wrong with the params of `object` for `method`, read as the
/// request type rmcp has for it; `None` when rmcp has no such method or
/// the params fit.
fn params_problem(method: &str, object: &Map<String, Value>) -> Option<String> {
    let mut request = Map::new();
    request.insert("method".to_owned(), Value::String(method.to_owned()));
    if let Some(params) = object.get("params") {
        request.insert("params".to_owned(), params.clone());
    }
    let request = Value::Object(request);
    macro_rules! known_methods {
        ($($method:ty => $request:ty),* $(,)?) => {
            $(
                if method == <$method as ConstString>::VALUE {
                    return serde_json::from_value::<$request>(request)
                        .err()
                        .map(|error| error.to_string());
                }
            )*
        };
    }
    known_methods!(
        PingRequestMethod => PingRequest,
        InitializeResultMethod => InitializeRequest,
        DiscoverRequestMethod => DiscoverRequest,
        CompleteRequestMethod => CompleteRequest,
        GetPromptRequestMethod => GetPromptRequest,
        ListPromptsRequestMethod => ListPromptsRequest,
        ListResourcesRequestMethod => ListResourcesRequest,
        ListResourceTemplatesRequestMethod => ListResourceTemplatesRequest,
        ReadResourceRequestMethod => ReadResourceRequest,
        CallToolRequestMethod => CallToolRequest,
        ListToolsRequestMethod => ListToolsRequest,
    );
    None
}

/// "a string", "an array", ...: a JSON value's kind, for messages.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(number) if number.is_f64() => "a fractional number",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rejected(text: &str) -> Rejection {
        check(text.as_bytes()).expect_err(text)
    }

    #[test]
    fn valid_messages_pass_unchanged() {
        for text in [
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":"a","method":"tools/list","params":{}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x","arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":4,"method":"vendor/thing","params":{"a":1}}"#,
            "\u{feff}{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}",
        ] {
            assert!(check(text.as_bytes()).is_ok(), "{text}");
        }
    }

    #[test]
    fn parse_errors_are_32700_with_a_null_id() {
        for text in ["{bad", "", "{\"jsonrpc\":\"2.0\"} x", "\"\\ud800\""] {
            let rejection = rejected(text);
            assert_eq!(
                (rejection.code, rejection.id.clone()),
                (ErrorCode::PARSE_ERROR, None)
            );
            let reply: Value = serde_json::from_str(&rejection.to_json_text()).unwrap();
            assert_eq!(reply["id"], Value::Null);
            assert_eq!(reply["error"]["code"], -32700);
        }
        let deep = format!(
            "{}{}",
            "[".repeat(MAX_NESTING + 1),
            "]".repeat(MAX_NESTING + 1)
        );
        let rejection = rejected(&deep);
        assert_eq!(rejection.code, ErrorCode::PARSE_ERROR);
        assert!(
            rejection.message.contains("recursion limit"),
            "{}",
            rejection.message
        );
        let at_limit = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"vendor/x","params":{{"a":{}1{}}}}}"#,
            "[".repeat(MAX_NESTING - 3),
            "]".repeat(MAX_NESTING - 3)
        );
        assert!(check(at_limit.as_bytes()).is_ok());
    }

    #[test]
    fn invalid_requests_echo_the_id_when_it_can_be_read() {
        let rejection = rejected(r#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":[1]}"#);
        assert_eq!(
            (rejection.code, rejection.id),
            (ErrorCode::INVALID_REQUEST, Some(json!(7)))
        );
        let rejection = rejected(r#"{"jsonrpc":"2.0","id":"x","method":"ping","params":"p"}"#);
        assert_eq!(
            (rejection.code, rejection.id),
            (ErrorCode::INVALID_REQUEST, Some(json!("x")))
        );
        let rejection = rejected(r#"{"jsonrpc":"1.0","id":8,"method":"ping"}"#);
        assert_eq!(
            (rejection.code, rejection.id),
            (ErrorCode::INVALID_REQUEST, Some(json!(8)))
        );
        let rejection = rejected(r#"{"jsonrpc":"2.0","id":9,"method":5}"#);
        assert_eq!(
            (rejection.code, rejection.id),
            (ErrorCode::INVALID_REQUEST, Some(json!(9)))
        );
        let rejection = rejected(r#"{"jsonrpc":"2.0","id":10}"#);
        assert_eq!(
            (rejection.code, rejection.id),
            (ErrorCode::INVALID_REQUEST, Some(json!(10)))
        );
        // An id that is not a string or an integer cannot be echoed.
        for text in [
            r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
        ] {
            let rejection = rejected(text);
            assert_eq!(
                (rejection.code, rejection.id),
                (ErrorCode::INVALID_REQUEST, None),
                "{text}"
            );
        }
        for text in ["[]", "[1]", "3", "null"] {
            assert_eq!(rejected(text).code, ErrorCode::INVALID_REQUEST, "{text}");
        }
    }

    #[test]
    fn known_methods_with_unfitting_params_are_32602() {
        let rejection =
            rejected(r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":5}}"#);
        assert_eq!(
            (rejection.code, rejection.id),
            (ErrorCode::INVALID_PARAMS, Some(json!(8)))
        );
        assert!(
            rejection.message.contains("tools/call"),
            "{}",
            rejection.message
        );
        let rejection = rejected(r#"{"jsonrpc":"2.0","id":9,"method":"initialize","params":{}}"#);
        assert_eq!(
            (rejection.code, rejection.id),
            (ErrorCode::INVALID_PARAMS, Some(json!(9)))
        );
        assert!(
            rejection.message.contains("missing field"),
            "{}",
            rejection.message
        );
    }

    #[test]
    fn bad_notifications_are_marked_as_such() {
        let rejection =
            rejected(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":7}"#);
        assert!(rejection.notification);
        assert!(!rejected(r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":7}"#).notification);
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(human_size(16 * 1024 * 1024), "16 MiB");
        assert_eq!(human_size(2048), "2 KiB");
        assert_eq!(human_size(1000), "1000 bytes");
        assert!(Rejection::too_long(16).message.contains("16 bytes"));
    }
}
