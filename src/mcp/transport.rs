//! The in-process client behind `quire call`: a real MCP client and server
//! connected in memory. (The stdio and HTTP transports are in [`super::stdio`]
//! and [`super::http`].)

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult,
    ElicitationAction, ElicitationCapability, FormElicitationCapability, JsonObject,
};
use rmcp::service::{RequestContext, RoleClient};
use rmcp::{ClientHandler, ErrorData, ServiceExt};

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
/// The client cannot ask anyone anything (a write under
/// [`super::WritePolicy::Ask`] returns a pending confirmation).
pub async fn call_in_process(
    server: QuireServer,
    tool: &str,
    arguments: JsonObject,
) -> Result<CallOutcome, BoxError> {
    call_with_client(server, tool, arguments, ()).await
}

/// What a person decided when asked to approve a write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApprovalChoice {
    /// Approve this change.
    Once,
    /// Approve every change for the rest of the session.
    Session,
    /// Write nothing.
    Deny,
}

/// Asks a person the question given (what a write will change); `None`
/// when nobody answered. Runs on a blocking thread.
pub type AskUser = Arc<dyn Fn(&str) -> Option<ApprovalChoice> + Send + Sync>;

/// [`call_in_process`] with a client that puts a write's approval question
/// to `ask` (the way `quire call` asks on its terminal).
pub async fn call_in_process_asking(
    server: QuireServer,
    tool: &str,
    arguments: JsonObject,
    ask: AskUser,
) -> Result<CallOutcome, BoxError> {
    call_with_client(server, tool, arguments, AskingClient { ask }).await
}

/// An in-process client that can elicit, through a function.
#[derive(Clone)]
struct AskingClient {
    ask: AskUser,
}

impl ClientHandler for AskingClient {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        let mut elicitation = ElicitationCapability::new();
        elicitation.form = Some(FormElicitationCapability::default());
        capabilities.elicitation = Some(elicitation);
        ClientConfig::new(
            capabilities,
            rmcp::model::Implementation::new("quire-call", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } = request
        else {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        // The options offered: a write's (once, session, deny) or a
        // folder's (allow, deny).
        let offered = serde_json::to_value(&requested_schema)
            .ok()
            .and_then(|schema| schema.pointer("/properties/decision/oneOf").cloned())
            .and_then(|options| options.as_array().cloned())
            .unwrap_or_default();
        let offers = |choice: &str| offered.iter().any(|option| option["const"] == choice);
        let ask = Arc::clone(&self.ask);
        let choice = tokio::task::spawn_blocking(move || ask(&message))
            .await
            .ok()
            .flatten();
        let decision = match choice {
            None => return Ok(ElicitResult::new(ElicitationAction::Cancel)),
            Some(ApprovalChoice::Deny) => "deny",
            Some(_) if offers("allow") => "allow",
            Some(ApprovalChoice::Once) => "once",
            Some(ApprovalChoice::Session) => "session",
        };
        Ok(ElicitResult::new(ElicitationAction::Accept)
            .with_content(serde_json::json!({ "decision": decision })))
    }
}

async fn call_with_client<C: ClientHandler>(
    server: QuireServer,
    tool: &str,
    arguments: JsonObject,
    client: C,
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
    let client = client.serve(client_end).await?;
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
