//! The questions put to the user through MCP elicitation: whether a
//! client can be asked at all, one choice among titled options, and reading
//! which one the user picked.

use rmcp::RoleServer;
use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema};
use rmcp::service::RequestContext;
use serde_json::{Map, Value, json};

use super::tool_error::ToolError;

/// The field of the form that holds the user's choice.
const CHOICE: &str = "decision";

/// The header that names a Streamable HTTP session.
const SESSION_HEADER: &str = "mcp-session-id";

/// Whether the client of this call takes a form question: it declared
/// elicitation with form support, or elicitation without naming a mode
/// (before modes existed, every elicitation was a form). A client that
/// declared only URL elicitation cannot answer one.
pub(super) fn can_ask_with_a_form(context: &RequestContext<RoleServer>) -> bool {
    context
        .client_capabilities()
        .and_then(|capabilities| capabilities.elicitation)
        .is_some_and(|elicitation| elicitation.form.is_some() || elicitation.url.is_none())
}

/// Whether this call came over HTTP without a session (the 2026-07-28
/// transport's stateless requests): nothing can be remembered for it past
/// the call, and a token it is given may come back on any such request.
pub(super) fn is_sessionless(context: &RequestContext<RoleServer>) -> bool {
    context
        .extensions
        .get::<hyper::http::request::Parts>()
        .is_some_and(|request| !request.headers.contains_key(SESSION_HEADER))
}

/// A form asking `message`, with one required choice among `options`
/// (`(value, title)`, shown in order).
pub(super) fn choice_question(
    message: String,
    title: &str,
    options: &[(&str, &str)],
) -> Result<ElicitRequestParams, ToolError> {
    let one_of: Vec<Value> = options
        .iter()
        .map(|(value, title)| json!({"const": value, "title": title}))
        .collect();
    let mut schema = Map::new();
    schema.insert("type".to_owned(), json!("object"));
    schema.insert(
        "properties".to_owned(),
        json!({ CHOICE: {"type": "string", "title": title, "oneOf": one_of} }),
    );
    schema.insert("required".to_owned(), json!([CHOICE]));
    let requested_schema = ElicitationSchema::from_json_schema(schema).map_err(|error| {
        ToolError::internal(format!(
            "the question to the user could not be made ({error}); nothing was written"
        ))
    })?;
    Ok(ElicitRequestParams::FormElicitationParams {
        meta: None,
        message,
        requested_schema,
    })
}

/// What the user answered to a [`choice_question`] (its result, as JSON).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Answer {
    /// Accepted with this choice (not checked against the options).
    Chose(String),
    /// Accepted without a choice, or one that is not a string.
    NoChoice,
    /// Declined.
    Declined,
    /// Dismissed without deciding.
    Cancelled,
    /// No answer, or one that cannot be read.
    Unreadable,
}

pub(super) fn answer_of(result: Option<Value>) -> Answer {
    let Some(result) =
        result.and_then(|result| serde_json::from_value::<ElicitResult>(result).ok())
    else {
        return Answer::Unreadable;
    };
    match result.action {
        ElicitationAction::Accept => match result
            .content
            .as_ref()
            .and_then(|content| content.get(CHOICE))
            .and_then(Value::as_str)
        {
            Some(choice) => Answer::Chose(choice.to_owned()),
            None => Answer::NoChoice,
        },
        ElicitationAction::Decline => Answer::Declined,
        ElicitationAction::Cancel => Answer::Cancelled,
        _ => Answer::Unreadable,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_offers_its_options_in_order() {
        let question =
            choice_question("Go?".to_owned(), "Choose", &[("a", "A"), ("b", "B")]).unwrap();
        let value = serde_json::to_value(&question).unwrap();
        assert_eq!(value["message"], "Go?");
        let options = &value["requestedSchema"]["properties"]["decision"]["oneOf"];
        assert_eq!(
            options,
            &json!([{"const": "a", "title": "A"}, {"const": "b", "title": "B"}])
        );
        assert_eq!(value["requestedSchema"]["required"], json!(["decision"]));
    }

    #[test]
    fn answers_read_as_given() {
        let accept = |content: Value| Some(json!({"action": "accept", "content": content}));
        assert_eq!(
            answer_of(accept(json!({"decision": "a"}))),
            Answer::Chose("a".into())
        );
        assert_eq!(answer_of(accept(json!({"decision": 1}))), Answer::NoChoice);
        assert_eq!(
            answer_of(Some(json!({"action": "accept"}))),
            Answer::NoChoice
        );
        assert_eq!(
            answer_of(Some(json!({"action": "decline"}))),
            Answer::Declined
        );
        assert_eq!(
            answer_of(Some(json!({"action": "cancel"}))),
            Answer::Cancelled
        );
        assert_eq!(
            answer_of(Some(json!({"action": "shrug"}))),
            Answer::Unreadable
        );
        assert_eq!(answer_of(None), Answer::Unreadable);
    }
}
