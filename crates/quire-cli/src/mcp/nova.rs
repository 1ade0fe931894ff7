//! The `nova` toolset's router: an agent reports its progress to the Nova
//! Task Manager (its session, the steps it works through, their status)
//! through the client `src/nova/` offers.
//!
//! The requirements (specs/nova-task-manager.requirements.md) make every
//! outcome of a call a normal result, `{"success": true, ...}` or
//! `{"success": false, "error", ...}`: a Task Manager that refuses or cannot
//! be reached, an invalid status (the valid ones listed), a blank id, a
//! step update that changes nothing, and a client the environment
//! misconfigures. Only arguments that do not fit the tool's schema (a
//! missing or unknown field, a value of the wrong type) are tool errors
//! (`VALIDATION_ERROR`), as for every other toolset. A success is whatever
//! the Task Manager answered with a success status: its answer is passed on
//! as `data` as it came (the requirements define the requests, not the
//! answers). The tools' request and result shapes live here, not in
//! `src/nova/`.

use std::sync::Arc;

use rmcp::handler::server::common::{schema_for_output, schema_for_type};
use rmcp::handler::server::tool::ToolName;
use rmcp::model::JsonObject;
use rmcp::{tool, tool_router};
use serde::{Deserialize, Serialize};

use super::result::{ToolFuture, decode, to_call_result};
use super::server::QuireServer;
use quire_nova::{
    Answer, ClientConfig, ClientKind, ExecutionPatch, HttpConfig, NovaError, StepCreate, StepPatch,
    StepStatus, TaskManagerClient,
};

/// `update_execution_session`'s arguments.
#[derive(Clone, Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct UpdateExecutionSessionRequest {
    /// The execution's id: the value of the `NOVA_EXECUTION_ID` environment
    /// variable.
    pub(super) execution_id: String,
    /// This agent's session id, as the skill tool gives it.
    pub(super) session_id: String,
}

/// `create_step`'s arguments.
#[derive(Clone, Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct CreateStepRequest {
    /// The execution's id: the value of the `NOVA_EXECUTION_ID` environment
    /// variable.
    pub(super) execution_id: String,
    /// What the step does, in a few words.
    pub(super) step_name: String,
    /// A first progress message.
    #[serde(default)]
    pub(super) message: Option<String>,
    /// The step's first status: `running` (the default), `completed`,
    /// `failed` or `skipped`.
    #[serde(default)]
    pub(super) status: Option<String>,
}

/// `update_step`'s arguments: a status, a message, or both.
#[derive(Clone, Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct UpdateStepRequest {
    /// The execution's id: the value of the `NOVA_EXECUTION_ID` environment
    /// variable.
    pub(super) execution_id: String,
    /// The step's id, as `create_step` returned it.
    pub(super) step_id: String,
    /// The step's new status: `running`, `completed`, `failed` or `skipped`.
    #[serde(default)]
    pub(super) status: Option<String>,
    /// The step's new progress message.
    #[serde(default)]
    pub(super) message: Option<String>,
}

/// `health_check` takes no arguments.
#[derive(Clone, Debug, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct HealthCheckRequest {}

/// What a call of `update_execution_session`, `create_step` or
/// `update_step` came to.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub(super) struct NovaOutcome {
    /// Whether the Task Manager made the change (answered with a success
    /// status).
    pub(super) success: bool,
    /// The Task Manager's answer as it sent it, on success: its JSON,
    /// whatever its shape (usually the execution or step as it now is),
    /// its text when it is not JSON, or null when it sent no body.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) data: Option<Answer>,
    /// The new step's id, for `update_step` (`create_step`, on success).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) step_id: Option<String>,
    #[serde(flatten)]
    pub(super) failure: Option<Failure>,
}

/// Why a call did not succeed.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub(super) struct Failure {
    /// What went wrong and what to do instead.
    pub(super) error: String,
    /// The Task Manager's own error code, when it gave one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) error_code: Option<String>,
    /// The statuses a step may have, when the one given is not among them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) valid_statuses: Option<Vec<String>>,
    /// Whether the same call may succeed if made again unchanged (the Task
    /// Manager down, busy or slow).
    pub(super) retryable: bool,
}

impl From<NovaError> for Failure {
    fn from(error: NovaError) -> Self {
        let error_code = match &error {
            NovaError::Server { error_code, .. } => error_code.clone(),
            _ => None,
        };
        let valid_statuses = match &error {
            NovaError::InvalidStatus { valid, .. } => {
                Some(valid.iter().map(|status| (*status).to_owned()).collect())
            }
            _ => None,
        };
        Failure {
            retryable: error.retryable(),
            error: error.to_string(),
            error_code,
            valid_statuses,
        }
    }
}

impl NovaOutcome {
    fn done(data: Answer) -> Self {
        NovaOutcome {
            success: true,
            data: Some(data),
            step_id: None,
            failure: None,
        }
    }

    fn failed(error: NovaError) -> Self {
        NovaOutcome {
            success: false,
            data: None,
            step_id: None,
            failure: Some(error.into()),
        }
    }

    fn from_result(result: Result<Answer, NovaError>) -> Self {
        result.map_or_else(NovaOutcome::failed, NovaOutcome::done)
    }
}

/// What `health_check` found.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub(super) struct HealthOutcome {
    /// Whether the Task Manager answered `GET /api/health` with a success
    /// status (what its body says is passed on, not judged).
    pub(super) success: bool,
    /// The Task Manager's word for its state (`healthy`): its answer's
    /// `status`, when that is a string.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) status: Option<String>,
    /// The Task Manager's answer as it sent it (JSON, text, or null), on
    /// success.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) data: Option<Answer>,
    /// Which client answered: `http` (the Task Manager) or `mock` (in
    /// memory, `USE_MOCK_CLIENT=true`); absent when the environment
    /// configures none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) client: Option<String>,
    /// The Task Manager's host (`TASK_MANAGER_HOST`), with the HTTP client.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) host: Option<String>,
    /// Its port (`TASK_MANAGER_PORT`), with the HTTP client.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) port: Option<u16>,
    /// `http://host:port`, with the HTTP client.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) base_url: Option<String>,
    #[serde(flatten)]
    pub(super) failure: Option<Failure>,
}

/// The Task Manager client the nova tools use, or why the environment
/// gives none: a bad `TASK_MANAGER_PORT` must not stop the server (the
/// other toolsets work), so each nova tool answers with that error instead.
#[derive(Clone, Debug)]
pub(crate) struct NovaTools {
    client: Result<Arc<dyn TaskManagerClient>, NovaError>,
    /// Where the HTTP client asks (reported by `health_check`).
    http: Option<HttpConfig>,
}

impl NovaTools {
    /// The client `config` chooses (an error, when it cannot be built, is
    /// kept for the tools to report).
    pub(crate) fn new(config: Result<ClientConfig, NovaError>) -> NovaTools {
        match config {
            Ok(config) => NovaTools {
                client: config.client(),
                http: (!config.use_mock).then_some(config.http),
            },
            Err(error) => NovaTools {
                client: Err(error),
                http: None,
            },
        }
    }

    /// The client `USE_MOCK_CLIENT`, `TASK_MANAGER_HOST`,
    /// `TASK_MANAGER_PORT` and `TASK_MANAGER_TIMEOUT` choose.
    pub(crate) fn from_process_env() -> NovaTools {
        NovaTools::new(ClientConfig::from_process_env())
    }

    /// The configuration error, if any, to log when the toolset is served.
    pub(crate) fn problem(&self) -> Option<&NovaError> {
        self.client.as_ref().err()
    }

    fn client(&self) -> Result<&Arc<dyn TaskManagerClient>, NovaError> {
        self.client.as_ref().map_err(Clone::clone)
    }

    async fn update_execution_session(
        &self,
        request: UpdateExecutionSessionRequest,
    ) -> NovaOutcome {
        let patch = ExecutionPatch {
            session_id: Some(request.session_id),
            worktree_path: None,
        };
        let result = match self.client() {
            Ok(client) => client.update_execution(&request.execution_id, &patch).await,
            Err(error) => Err(error),
        };
        NovaOutcome::from_result(result)
    }

    async fn create_step(&self, request: CreateStepRequest) -> NovaOutcome {
        let result = async {
            let client = self.client()?;
            let status = match request.status.as_deref() {
                None => StepStatus::Running,
                Some(status) => StepStatus::parse(status)?,
            };
            let step = StepCreate {
                step_name: request.step_name,
                message: request.message,
                status,
            };
            client.create_step(&request.execution_id, &step).await
        }
        .await;
        match result {
            Ok(created) => NovaOutcome {
                step_id: Some(created.step_id),
                ..NovaOutcome::done(created.data)
            },
            Err(error) => NovaOutcome::failed(error),
        }
    }

    async fn update_step(&self, request: UpdateStepRequest) -> NovaOutcome {
        let result = async {
            let client = self.client()?;
            let patch = StepPatch {
                status: request
                    .status
                    .as_deref()
                    .map(StepStatus::parse)
                    .transpose()?,
                message: request.message,
            };
            patch.check()?;
            client
                .update_step(&request.execution_id, &request.step_id, &patch)
                .await
        }
        .await;
        NovaOutcome::from_result(result)
    }

    async fn health_check(&self) -> HealthOutcome {
        let (client, result) = match self.client() {
            Ok(client) => (Some(client.kind()), client.health().await),
            Err(error) => (None, Err(error)),
        };
        let http = self
            .http
            .as_ref()
            .filter(|_| client == Some(ClientKind::Http));
        let (status, data, failure) = match result {
            Ok(health) => (health.status, Some(health.data), None),
            Err(error) => (None, None, Some(error.into())),
        };
        HealthOutcome {
            success: failure.is_none(),
            status,
            data,
            client: client.map(|kind| kind.to_string()),
            host: http.map(|http| http.host.clone()),
            port: http.map(|http| http.port),
            base_url: http.map(HttpConfig::base_url),
            failure,
        }
    }
}

/// Runs one nova tool: decodes its arguments (a misfit is a
/// `VALIDATION_ERROR`), then asks the Task Manager; every outcome of that is
/// a normal result.
fn run<Request, Outcome, Call, Fut>(
    server: &QuireServer,
    ToolName(tool): ToolName,
    args: JsonObject,
    call: Call,
) -> ToolFuture<'static>
where
    Request: serde::de::DeserializeOwned + Send + 'static,
    Outcome: Serialize,
    Call: FnOnce(Arc<NovaTools>, Request) -> Fut + Send + 'static,
    Fut: Future<Output = Outcome> + Send + 'static,
{
    let nova = Arc::clone(&server.nova);
    Box::pin(async move {
        let request = match decode::<Request>(&tool, args) {
            Ok(request) => request,
            Err(error) => return to_call_result::<()>(Err(error)),
        };
        to_call_result(Ok(call(nova, request).await))
    })
}

/// The line every tool that takes `execution_id` ends with (requirements
/// 1.5, 1.6, 2.9, 3.7).
macro_rules! execution_id_hint {
    () => {
        " `execution_id` is the value of the NOVA_EXECUTION_ID environment variable (read it from the environment)."
    };
}

#[tool_router(router = nova_router, vis = "pub(super)")]
impl QuireServer {
    /// Register this agent's session on its execution.
    #[tool(
        name = "update_execution_session",
        description = concat!(
            "Register this agent's session with the Nova Task Manager at the start of the work, so it can track the \
             execution. Example: {\"execution_id\": \"exec-42\", \"session_id\": \"sess-7\"}. `session_id` is this \
             session's id, which the skill tool gives.",
            execution_id_hint!(),
            " Returns {success: true, data} (data: the Task Manager's answer as it sent it, usually the execution \
             {id, session_id, worktree_path}), or {success: false, error, error_code (the Task Manager's, when it \
             gave one), retryable}."
        ),
        input_schema = schema_for_type::<UpdateExecutionSessionRequest>(),
        output_schema = schema_for_output::<NovaOutcome>(),
        annotations(
            title = "Register execution session",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    fn update_execution_session(&self, tool: ToolName, args: JsonObject) -> ToolFuture<'_> {
        run(self, tool, args, |nova, request| async move {
            nova.update_execution_session(request).await
        })
    }

    /// Create a step of the execution.
    #[tool(
        name = "create_step",
        description = concat!(
            "Create a step of the execution in the Nova Task Manager, to record a piece of work as it starts. Example: \
             {\"execution_id\": \"exec-42\", \"step_name\": \"Run the tests\", \"message\": \"cargo test\"}. `status` \
             is the step's first status: running (the default), completed, failed or skipped; another value is \
             refused with `valid_statuses`.",
            execution_id_hint!(),
            " Returns {success: true, step_id, data} (data: the Task Manager's answer as it sent it, usually the step \
             {id, execution_id, step_name, status, message}): pass `step_id` to update_step. A failure is {success: \
             false, error, error_code (the Task Manager's, when it gave one), retryable}; a failed create_step is never \
             retried by the server (a second try could create the step twice), and when the error says the step may \
             have been created, do not create it again."
        ),
        input_schema = schema_for_type::<CreateStepRequest>(),
        output_schema = schema_for_output::<NovaOutcome>(),
        annotations(
            title = "Create execution step",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    fn create_step(&self, tool: ToolName, args: JsonObject) -> ToolFuture<'_> {
        run(self, tool, args, |nova, request| async move {
            nova.create_step(request).await
        })
    }

    /// Update a step's status or message.
    #[tool(
        name = "update_step",
        description = concat!(
            "Update a step of the execution in the Nova Task Manager: its `status` (running, completed, failed or \
             skipped), its progress `message`, or both; at least one is required. Example: {\"execution_id\": \
             \"exec-42\", \"step_id\": \"step-1\", \"status\": \"completed\", \"message\": \"all tests pass\"}. \
             `step_id` is what create_step returned.",
            execution_id_hint!(),
            " Returns {success: true, data} (data: the Task Manager's answer as it sent it, usually the step {id, \
             execution_id, step_name, status, message}), or {success: false, error, error_code (the Task Manager's, \
             when it gave one; STEP_NOT_FOUND for an unknown step), valid_statuses (for an invalid status), \
             retryable}."
        ),
        input_schema = schema_for_type::<UpdateStepRequest>(),
        output_schema = schema_for_output::<NovaOutcome>(),
        annotations(
            title = "Update execution step",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    fn update_step(&self, tool: ToolName, args: JsonObject) -> ToolFuture<'_> {
        run(self, tool, args, |nova, request| async move {
            nova.update_step(request).await
        })
    }

    /// The Task Manager's health.
    #[tool(
        name = "health_check",
        description = "Check that the Nova Task Manager answers. Example: {}. Returns {success: true, status, data, \
                       client (`http` or `mock`), host, port, base_url} when it answers with a success status (status: \
                       its answer's `status`, when it gives one; data: its answer as it sent it; host, port and \
                       base_url with the HTTP client, from TASK_MANAGER_HOST and TASK_MANAGER_PORT), or {success: \
                       false, error, retryable} saying why it cannot be used (not reachable, a timeout, an error \
                       status, or an environment variable with a value that cannot be used).",
        input_schema = schema_for_type::<HealthCheckRequest>(),
        output_schema = schema_for_output::<HealthOutcome>(),
        annotations(
            title = "Task Manager health",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    fn health_check(&self, tool: ToolName, args: JsonObject) -> ToolFuture<'_> {
        run(self, tool, args, |nova, _: HealthCheckRequest| async move {
            nova.health_check().await
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mock() -> NovaTools {
        NovaTools::new(ClientConfig::from_env(|name| {
            (name == "USE_MOCK_CLIENT").then(|| "true".to_owned())
        }))
    }

    fn json<T: Serialize>(value: &T) -> serde_json::Value {
        serde_json::to_value(value).unwrap()
    }

    #[tokio::test]
    async fn a_step_is_created_running_and_updated() {
        let nova = mock();
        let created = nova
            .create_step(CreateStepRequest {
                execution_id: "e1".into(),
                step_name: "build".into(),
                message: None,
                status: None,
            })
            .await;
        assert_eq!(
            json(&created),
            serde_json::json!({"success": true, "step_id": "step-1", "data": {
                "id": "step-1", "execution_id": "e1", "step_name": "build", "status": "running", "message": null}})
        );
        let updated = nova
            .update_step(UpdateStepRequest {
                execution_id: "e1".into(),
                step_id: "step-1".into(),
                status: Some("completed".into()),
                message: Some("done".into()),
            })
            .await;
        assert_eq!(
            json(&updated),
            serde_json::json!({"success": true, "data": {
                "id": "step-1", "execution_id": "e1", "step_name": "build", "status": "completed", "message": "done"}})
        );
    }

    #[tokio::test]
    async fn spec_level_refusals_are_unsuccessful_results() {
        let nova = mock();
        let wrong = nova
            .create_step(CreateStepRequest {
                execution_id: "e1".into(),
                step_name: "build".into(),
                message: None,
                status: Some("done".into()),
            })
            .await;
        assert_eq!(
            json(&wrong),
            serde_json::json!({"success": false,
                "error": "invalid status `done`: use one of running, completed, failed, skipped",
                "valid_statuses": ["running", "completed", "failed", "skipped"], "retryable": false})
        );
        let nothing = nova
            .update_step(UpdateStepRequest {
                execution_id: "e1".into(),
                step_id: "step-1".into(),
                status: None,
                message: None,
            })
            .await;
        assert!(!nothing.success);
        assert!(
            nothing
                .failure
                .unwrap()
                .error
                .contains("at least one of status and message")
        );
        let blank = nova
            .update_execution_session(UpdateExecutionSessionRequest {
                execution_id: " ".into(),
                session_id: "s".into(),
            })
            .await;
        assert!(
            blank
                .failure
                .unwrap()
                .error
                .starts_with("execution_id is empty")
        );
        let unknown = nova
            .update_step(UpdateStepRequest {
                execution_id: "e1".into(),
                step_id: "step-9".into(),
                status: Some("failed".into()),
                message: None,
            })
            .await;
        let failure = unknown.failure.unwrap();
        assert_eq!(failure.error_code.as_deref(), Some("STEP_NOT_FOUND"));
    }

    #[tokio::test]
    async fn a_misconfigured_environment_is_reported_by_every_tool() {
        let nova = NovaTools::new(ClientConfig::from_env(|name| {
            (name == "TASK_MANAGER_PORT").then(|| "http".to_owned())
        }));
        assert!(nova.problem().is_some());
        let health = json(&nova.health_check().await);
        assert_eq!(health["success"], false);
        assert!(
            health["error"]
                .as_str()
                .unwrap()
                .starts_with("TASK_MANAGER_PORT is `http`"),
            "{health}"
        );
        assert!(health.get("client").is_none(), "{health}");
        let created = nova
            .create_step(CreateStepRequest {
                execution_id: "e1".into(),
                step_name: "build".into(),
                message: None,
                status: None,
            })
            .await;
        assert!(!created.success);
        assert!(created.step_id.is_none());
    }

    #[tokio::test]
    async fn health_reports_where_the_http_client_asks() {
        let mock = json(&mock().health_check().await);
        assert_eq!(
            mock,
            serde_json::json!({"success": true, "status": "healthy", "data": {"status": "healthy"}, "client": "mock"})
        );
        // Port 9 on loopback: nothing listens (discard is not run here), so
        // the connection is refused at once.
        let nova = NovaTools::new(ClientConfig::from_env(|name| match name {
            "TASK_MANAGER_HOST" => Some("127.0.0.1".to_owned()),
            "TASK_MANAGER_PORT" => Some("9".to_owned()),
            "TASK_MANAGER_TIMEOUT" => Some("2".to_owned()),
            _ => None,
        }));
        let health = json(&nova.health_check().await);
        assert_eq!(health["success"], false, "{health}");
        assert_eq!(health["client"], "http");
        assert_eq!(health["host"], "127.0.0.1");
        assert_eq!(health["port"], 9);
        assert_eq!(health["base_url"], "http://127.0.0.1:9");
        assert_eq!(health["retryable"], true);
        assert!(
            health["error"]
                .as_str()
                .unwrap()
                .contains("could not be reached at http://127.0.0.1:9"),
            "{health}"
        );
    }
}
