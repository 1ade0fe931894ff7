//! Checking one incoming JSON-RPC message before rmcp sees it, and the
//! JSON-RPC error that answers it when it is not a message rmcp can take.
//!
//! Why this is hand-written: rmcp's transports ignore a line that is not
//! JSON (no reply at all), answer a message of the wrong shape with
//! `-32600` and no `id`, and take a request whose `params` do not fit a
//! known method as a *custom* request, which then fails as "method not
//! found". JSON-RPC 2.0 asks for `-32700` with `id: null` for a parse
//! error, and for the request's own `id` whenever it can be read. So every
//! message is parsed here, with serde_json (whose recursion limit of 128
//! bounds the nesting), into rmcp's own message type, and only a message
//! that parses as what it claims to be is passed on. The stdio and HTTP
//! transports share this check.

use rmcp::model::{
    CallToolRequest, CancelTaskRequest, ClientJsonRpcMessage, ClientRequest, CompleteRequest,
    ConstString, DiscoverRequest, ErrorCode, GetPromptRequest, GetSkillRequest, GetTaskRequest,
    InitializeRequest, JsonRpcMessage, ListPromptsRequest, ListResourceTemplatesRequest,
    ListResourcesRequest, ListSkillsRequest, ListToolsRequest, PingRequest,
    ReadResourceDirectoryRequest, ReadResourceRequest, Request, RequestId, RequestNoParam,
    RequestOptionalParam, SubscriptionsListenRequest, UpdateTaskRequest,
};
// Deprecated in rmcp, which still reads them (clients of older protocol
// versions send them), so their params are still checked.
#[allow(deprecated)]
use rmcp::model::{SetLevelRequest, SubscribeRequest, UnsubscribeRequest};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// The deepest nesting of arrays and objects a message may have: the
/// recursion limit of serde_json's parser, which rejects deeper input
/// before it can exhaust the stack.
pub(super) const MAX_NESTING: usize = 128;

const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// Why a message was not passed on, and how to answer it.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Rejection {
    /// The JSON-RPC error code: `-32700`, `-32600`, `-32602`, or a
    /// transport's own `-32000`.
    pub code: ErrorCode,
    /// The request's `id`, when it could be read.
    pub id: Option<RequestId>,
    /// What was wrong and what to send instead.
    pub message: String,
    /// The message was a notification: JSON-RPC never answers one, so over
    /// stdio it is only logged.
    pub notification: bool,
}

impl Rejection {
    pub(super) fn new(code: ErrorCode, id: Option<RequestId>, message: impl Into<String>) -> Self {
        Rejection {
            code,
            id,
            message: message.into(),
            notification: false,
        }
    }

    /// A parse error (`-32700`, `id: null`).
    pub(super) fn parse(message: impl Into<String>) -> Self {
        Rejection::new(ErrorCode::PARSE_ERROR, None, message)
    }

    /// An invalid request (`-32600`).
    pub(super) fn invalid_request(id: Option<RequestId>, message: impl Into<String>) -> Self {
        Rejection::new(ErrorCode::INVALID_REQUEST, id, message)
    }

    /// A line or body over `limit` bytes, discarded unread: a parse error,
    /// since the server would not parse it.
    pub(super) fn too_long(limit: usize) -> Self {
        Rejection::parse(format!(
            "Parse error: the message is longer than {limit} bytes ({}), the most this server reads; \
             it was discarded unread. Send smaller messages.",
            human_size(limit)
        ))
    }

    /// The JSON-RPC error response, as JSON text (members in the usual
    /// order: `jsonrpc`, `id`, `error`). Not rmcp's `JsonRpcError`: that
    /// leaves out an `id` it could not read, where JSON-RPC 2.0 asks for
    /// `"id": null`.
    pub(super) fn to_json_text(&self) -> String {
        #[derive(serde::Serialize)]
        struct Response<'a> {
            jsonrpc: &'static str,
            id: Option<&'a RequestId>,
            error: Error<'a>,
        }
        #[derive(serde::Serialize)]
        struct Error<'a> {
            code: i32,
            message: &'a str,
        }
        let response = Response {
            jsonrpc: "2.0",
            id: self.id.as_ref(),
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
    pub(super) fn to_line(&self) -> Vec<u8> {
        let mut line = self.to_json_text().into_bytes();
        line.push(b'\n');
        line
    }
}

/// `16 MiB` for 16777216: sizes in error messages, as people write them.
pub(super) fn human_size(bytes: usize) -> String {
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
///
/// A message is parsed once, straight into rmcp's types: that parse is the
/// check, and its result is what rmcp serves. Only a message that fails it
/// is parsed again, as a plain JSON value, to say what is wrong.
pub(super) fn check(bytes: &[u8]) -> Result<ClientJsonRpcMessage, Rejection> {
    let bytes = bytes.strip_prefix(UTF8_BOM).unwrap_or(bytes);
    match serde_json::from_slice::<ClientJsonRpcMessage>(bytes) {
        Ok(JsonRpcMessage::Request(request)) => {
            // rmcp reads a known method whose params do not fit as a custom
            // request, which would be answered "method not found".
            if let ClientRequest::CustomRequest(custom) = &request.request
                && let Some(problem) = params_problem(&custom.method, custom.params.as_ref())
            {
                return Err(Rejection::new(
                    ErrorCode::INVALID_PARAMS,
                    Some(request.id.clone()),
                    format!("Invalid params for `{}`: {problem}", custom.method),
                ));
            }
            Ok(JsonRpcMessage::Request(request))
        }
        Ok(message) => Ok(message),
        Err(error) => Err(diagnose(bytes, &error)),
    }
}

/// Why `bytes`, which rmcp could not read as a client message (`error`),
/// is not one; the most specific reason wins.
fn diagnose(bytes: &[u8], error: &serde_json::Error) -> Rejection {
    let value: Value = match serde_json::from_slice(bytes) {
        Ok(value) => value,
        Err(error) => {
            return Rejection::parse(format!(
                "Parse error: {error}. A message must be one complete UTF-8 JSON object, \
                 nested at most {MAX_NESTING} levels deep."
            ));
        }
    };
    let object = match &value {
        Value::Object(object) => object,
        Value::Array(items) if items.is_empty() => {
            return Rejection::invalid_request(
                None,
                "Invalid Request: an empty array is not a JSON-RPC message; send one JSON object",
            );
        }
        Value::Array(_) => {
            return Rejection::invalid_request(
                None,
                "Invalid Request: JSON-RPC batches (arrays) are not supported (MCP dropped them in \
                 2025-06-18); send each message on its own",
            );
        }
        other => {
            return Rejection::invalid_request(
                None,
                format!(
                    "Invalid Request: a JSON-RPC message is a JSON object, not {}",
                    kind(other)
                ),
            );
        }
    };
    let id = match object.get("id") {
        None => None,
        Some(id) => match RequestId::deserialize(id) {
            Ok(id) => Some(id),
            Err(_) => {
                return Rejection::invalid_request(
                    None,
                    format!(
                        "Invalid Request: `id` must be a string or an integer, not {}",
                        kind(id)
                    ),
                );
            }
        },
    };
    let notification = id.is_none() && object.contains_key("method");
    let mut rejection = diagnose_fields(object, id, error);
    rejection.notification = notification;
    rejection
}

fn diagnose_fields(
    object: &Map<String, Value>,
    id: Option<RequestId>,
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
            let params = object.get("params");
            if let Some(params) = params
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
            if let Some(problem) = params_problem(method, params) {
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

/// A request type of rmcp's, with the method it is sent under.
trait TypedRequest: DeserializeOwned {
    const METHOD: &'static str;
}

impl<M: ConstString + DeserializeOwned, P: DeserializeOwned> TypedRequest for Request<M, P> {
    const METHOD: &'static str = M::VALUE;
}

impl<M: ConstString + DeserializeOwned, P: DeserializeOwned> TypedRequest
    for RequestOptionalParam<M, P>
{
    const METHOD: &'static str = M::VALUE;
}

impl<M: ConstString + DeserializeOwned> TypedRequest for RequestNoParam<M> {
    const METHOD: &'static str = M::VALUE;
}

/// Reads `params` as the params of one request type: what does not fit.
type ParamsCheck = fn(Option<&Value>) -> Option<String>;

/// Every typed request of rmcp's `ClientRequest`, by method (a test checks
/// this list against rmcp's own schema of `ClientRequest`).
#[allow(deprecated)]
const TYPED_REQUESTS: &[(&str, ParamsCheck)] = &[
    typed::<PingRequest>(),
    typed::<InitializeRequest>(),
    typed::<DiscoverRequest>(),
    typed::<CompleteRequest>(),
    typed::<SetLevelRequest>(),
    typed::<GetPromptRequest>(),
    typed::<ListPromptsRequest>(),
    typed::<ListResourcesRequest>(),
    typed::<ListResourceTemplatesRequest>(),
    typed::<ReadResourceRequest>(),
    typed::<SubscriptionsListenRequest>(),
    typed::<SubscribeRequest>(),
    typed::<UnsubscribeRequest>(),
    typed::<CallToolRequest>(),
    typed::<ListToolsRequest>(),
    typed::<GetTaskRequest>(),
    typed::<UpdateTaskRequest>(),
    typed::<CancelTaskRequest>(),
    typed::<ListSkillsRequest>(),
    typed::<GetSkillRequest>(),
    typed::<ReadResourceDirectoryRequest>(),
];

const fn typed<R: TypedRequest>() -> (&'static str, ParamsCheck) {
    (R::METHOD, params_problem_of::<R>)
}

fn params_problem_of<R: TypedRequest>(params: Option<&Value>) -> Option<String> {
    let mut request = Map::new();
    request.insert("method".to_owned(), Value::from(R::METHOD));
    if let Some(params) = params {
        request.insert("params".to_owned(), params.clone());
    }
    serde_json::from_value::<R>(Value::Object(request))
        .err()
        .map(|error| error.to_string())
}

/// What is wrong with `params` for `method`, read as the request type rmcp
/// has for it; `None` when rmcp has no such method or the params fit.
fn params_problem(method: &str, params: Option<&Value>) -> Option<String> {
    let (_, check) = TYPED_REQUESTS.iter().find(|(known, _)| *known == method)?;
    check(params)
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
    use rmcp::model::{ClientNotification, ClientResult};
    use serde_json::json;

    fn rejected(text: &str) -> Rejection {
        check(text.as_bytes()).expect_err(text)
    }

    /// The reply a rejected `text` gets: `(code, id)`, from its JSON text.
    fn reply(text: &str) -> (i64, Value) {
        let reply: Value = serde_json::from_str(&rejected(text).to_json_text()).unwrap();
        assert_eq!(reply["jsonrpc"], "2.0", "{reply}");
        assert!(
            reply["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            "{reply}"
        );
        (
            reply["error"]["code"].as_i64().unwrap(),
            reply["id"].clone(),
        )
    }

    #[test]
    fn valid_messages_pass_as_what_they_are() {
        let request = |text: &str| match check(text.as_bytes()) {
            Ok(JsonRpcMessage::Request(request)) => (request.id, request.request),
            other => panic!("{text}: {other:?}"),
        };
        let (id, ping) = request(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#);
        assert_eq!(id, RequestId::Number(1));
        assert!(matches!(ping, ClientRequest::PingRequest(_)), "{ping:?}");
        let (id, list) = request(r#"{"jsonrpc":"2.0","id":"a","method":"tools/list","params":{}}"#);
        assert_eq!(id, RequestId::String("a".into()));
        assert!(
            matches!(list, ClientRequest::ListToolsRequest(_)),
            "{list:?}"
        );
        let (_, call) = request(
            r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x","arguments":{"k":[1]}}}"#,
        );
        let ClientRequest::CallToolRequest(call) = call else {
            panic!("{call:?}")
        };
        assert_eq!(call.params.name, "x");
        assert_eq!(
            call.params.arguments,
            json!({"k": [1]}).as_object().cloned()
        );
        let (_, vendor) =
            request(r#"{"jsonrpc":"2.0","id":4,"method":"vendor/thing","params":{"a":1}}"#);
        let ClientRequest::CustomRequest(vendor) = vendor else {
            panic!("{vendor:?}")
        };
        assert_eq!(
            (vendor.method.as_str(), vendor.params),
            ("vendor/thing", Some(json!({"a": 1})))
        );
        let (id, _) = request("\u{feff}{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}");
        assert_eq!(id, RequestId::Number(5), "after a byte order mark");
        assert!(matches!(
            check(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Ok(JsonRpcMessage::Notification(notification))
                if matches!(notification.notification, ClientNotification::InitializedNotification(_))
        ));
        // An error response with an id it could not read goes to rmcp too.
        assert!(matches!(
            check(br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"?"}}"#),
            Ok(JsonRpcMessage::Error(error)) if error.id.is_none()
        ));
        assert!(matches!(
            check(br#"{"jsonrpc":"2.0","id":6,"result":{}}"#),
            Ok(JsonRpcMessage::Response(response))
                if response.id == RequestId::Number(6)
                    && matches!(response.result, ClientResult::EmptyResult(_))
        ));
    }

    #[test]
    fn parse_errors_are_32700_with_a_null_id() {
        for text in [
            "{bad",
            "",
            "{\"jsonrpc\":\"2.0\"} x",
            "\"\\ud800\"",
            "{\"a\":\"\u{fffd}\\x\"}",
        ] {
            assert_eq!(reply(text), (-32700, Value::Null), "{text:?}");
        }
        let not_utf8 = check(b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"\xff\"}").unwrap_err();
        assert_eq!((not_utf8.code, not_utf8.id), (ErrorCode::PARSE_ERROR, None));
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
        let nested = |levels: usize| {
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"vendor/x","params":{{"a":{}1{}}}}}"#,
                "[".repeat(levels),
                "]".repeat(levels)
            )
        };
        // The message, its params and `a` are three levels of their own.
        assert!(check(nested(MAX_NESTING - 3).as_bytes()).is_ok());
        assert_eq!(
            rejected(&nested(MAX_NESTING - 2)).code,
            ErrorCode::PARSE_ERROR
        );
    }

    #[test]
    fn invalid_requests_echo_the_id_when_it_can_be_read() {
        for (text, expected) in [
            (
                r#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":[1]}"#,
                json!(7),
            ),
            (
                r#"{"jsonrpc":"2.0","id":"x","method":"ping","params":"p"}"#,
                json!("x"),
            ),
            (
                r#"{"jsonrpc":"2.0","id":"n","method":"ping","params":3}"#,
                json!("n"),
            ),
            (r#"{"jsonrpc":"1.0","id":8,"method":"ping"}"#, json!(8)),
            (r#"{"id":8,"method":"ping"}"#, json!(8)),
            (r#"{"jsonrpc":"2.0","id":9,"method":5}"#, json!(9)),
            (r#"{"jsonrpc":"2.0","id":9,"method":null}"#, json!(9)),
            (r#"{"jsonrpc":"2.0","id":10}"#, json!(10)),
            (
                r#"{"jsonrpc":"2.0","id":11,"method":"ping","result":{}}"#,
                json!(11),
            ),
            // An integer written as a float is the integer, as rmcp reads it.
            (
                r#"{"jsonrpc":"2.0","id":12.0,"method":"ping","params":1}"#,
                json!(12),
            ),
        ] {
            assert_eq!(reply(text), (-32600, expected), "{text}");
        }
        // An id that is not a string or an integer cannot be echoed.
        for text in [
            r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":true,"result":{}}"#,
            r#"{"jsonrpc":"2.0","result":{}}"#,
            "[]",
            "[1]",
            "3",
            "null",
            "\"ping\"",
        ] {
            assert_eq!(reply(text), (-32600, Value::Null), "{text}");
        }
    }

    #[test]
    fn known_methods_with_unfitting_params_are_32602() {
        for (text, says) in [
            (
                r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":5}}"#,
                "tools/call",
            ),
            (
                r#"{"jsonrpc":"2.0","id":8,"method":"tools/call"}"#,
                "params",
            ),
            (
                r#"{"jsonrpc":"2.0","id":8,"method":"initialize","params":{}}"#,
                "missing field",
            ),
            (
                r#"{"jsonrpc":"2.0","id":8,"method":"logging/setLevel","params":{"level":5}}"#,
                "logging/setLevel",
            ),
            (
                r#"{"jsonrpc":"2.0","id":8,"method":"tasks/get","params":{}}"#,
                "taskId",
            ),
        ] {
            let rejection = rejected(text);
            assert_eq!(
                (rejection.code, rejection.id),
                (ErrorCode::INVALID_PARAMS, Some(RequestId::Number(8))),
                "{text}"
            );
            assert!(
                rejection.message.contains(says),
                "{text}: {}",
                rejection.message
            );
        }
    }

    /// The methods of rmcp's typed client requests, from its JSON schema of
    /// `ClientRequest`: each variant but `CustomRequest` names its method as
    /// a constant.
    fn rmcp_request_methods() -> Vec<String> {
        let schema = serde_json::to_value(schemars::schema_for!(ClientRequest)).unwrap();
        let definition = |reference: &Value| {
            let name = reference["$ref"]
                .as_str()
                .unwrap()
                .trim_start_matches("#/$defs/");
            schema["$defs"][name].clone()
        };
        schema["anyOf"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|variant| variant["$ref"] != "#/$defs/CustomRequest")
            .map(|variant| {
                let method = definition(&definition(variant)["properties"]["method"]);
                method["const"]
                    .as_str()
                    .expect("a constant method")
                    .to_owned()
            })
            .collect()
    }

    #[test]
    fn every_typed_request_of_rmcp_has_its_params_checked() {
        let methods = rmcp_request_methods();
        assert!(methods.len() >= 20, "{methods:?}");
        let listed: Vec<&str> = TYPED_REQUESTS.iter().map(|(method, _)| *method).collect();
        for method in &methods {
            assert!(
                listed.contains(&method.as_str()),
                "`{method}` is missing from TYPED_REQUESTS"
            );
        }
        assert_eq!(
            listed.len(),
            methods.len(),
            "{listed:?} against rmcp's {methods:?}"
        );
        assert_eq!(params_problem("vendor/thing", Some(&json!([1]))), None);
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
