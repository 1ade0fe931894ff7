//! The `nova` toolset's router: an agent reports its progress to the Nova
//! Task Manager (its session, the steps it works through, their status)
//! through the client quire-nova offers. Its calls block (they wait for
//! the Task Manager), so each runs on tokio's blocking pool
//! (`result::run_tool`).
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
//! answers). The tools' request and result shapes live in `nova_types.rs`,
//! not in quire-nova.

use std::sync::Arc;

use super::schema;
use rmcp::handler::server::tool::ToolName;
use rmcp::model::JsonObject;
use rmcp::{tool, tool_router};

use super::nova_types::{
    CreateStepRequest, HealthCheckRequest, HealthOutcome, NovaOutcome,
    UpdateExecutionSessionRequest, UpdateStepRequest,
};
use super::result::{ToolFuture, run_tool};
use super::server::QuireServer;
use super::tool_error::ToolError;
use quire_nova::{
    ClientConfig, ClientKind, ExecutionPatch, HttpConfig, NovaError, StepCreate, StepPatch,
    StepStatus, TaskManagerClient,
};

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

    fn update_execution_session(&self, request: &UpdateExecutionSessionRequest) -> NovaOutcome {
        let patch = ExecutionPatch {
            session_id: Some(request.session_id.clone()),
            worktree_path: None,
        };
        let result = self
            .client()
            .and_then(|client| client.update_execution(&request.execution_id, &patch));
        NovaOutcome::from_result(result)
    }

    fn create_step(&self, request: &CreateStepRequest) -> NovaOutcome {
        let result = self.client().and_then(|client| {
            let status = match request.status.as_deref() {
                None => StepStatus::Running,
                Some(status) => StepStatus::parse(status)?,
            };
            let step = StepCreate {
                step_name: request.step_name.clone(),
                message: request.message.clone(),
                status,
            };
            client.create_step(&request.execution_id, &step)
        });
        match result {
            Ok(created) => NovaOutcome {
                step_id: Some(created.step_id),
                ..NovaOutcome::done(created.data)
            },
            Err(error) => NovaOutcome::failed(error),
        }
    }

    fn update_step(&self, request: &UpdateStepRequest) -> NovaOutcome {
        let result = self.client().and_then(|client| {
            let patch = StepPatch {
                status: request
                    .status
                    .as_deref()
                    .map(StepStatus::parse)
                    .transpose()?,
                message: request.message.clone(),
            };
            patch.check()?;
            client.update_step(&request.execution_id, &request.step_id, &patch)
        });
        NovaOutcome::from_result(result)
    }

    fn health_check(&self) -> HealthOutcome {
        let (client, result) = match self.client() {
            Ok(client) => (Some(client.kind()), client.health()),
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
/// `VALIDATION_ERROR`), then asks the Task Manager on the blocking pool;
/// every outcome of that is a normal result.
fn run<Request, Outcome>(
    server: &QuireServer,
    tool: ToolName,
    args: JsonObject,
    call: fn(&NovaTools, &Request) -> Outcome,
) -> ToolFuture<'static>
where
    Request: serde::de::DeserializeOwned + 'static,
    Outcome: serde::Serialize + Send + 'static,
{
    run_tool(&server.nova, tool, args, move |nova, request: &Request| {
        Ok::<_, ToolError>(call(nova, request))
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
        input_schema = schema::input::<UpdateExecutionSessionRequest>(),
        output_schema = schema::output::<NovaOutcome>(),
        annotations(
            title = "Register execution session",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    fn update_execution_session(&self, tool: ToolName, args: JsonObject) -> ToolFuture<'_> {
        run(self, tool, args, NovaTools::update_execution_session)
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
        input_schema = schema::input::<CreateStepRequest>(),
        output_schema = schema::output::<NovaOutcome>(),
        annotations(
            title = "Create execution step",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = false,
            open_world_hint = true
        )
    )]
    fn create_step(&self, tool: ToolName, args: JsonObject) -> ToolFuture<'_> {
        run(self, tool, args, NovaTools::create_step)
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
        input_schema = schema::input::<UpdateStepRequest>(),
        output_schema = schema::output::<NovaOutcome>(),
        annotations(
            title = "Update execution step",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    fn update_step(&self, tool: ToolName, args: JsonObject) -> ToolFuture<'_> {
        run(self, tool, args, NovaTools::update_step)
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
        input_schema = schema::input::<HealthCheckRequest>(),
        output_schema = schema::output::<HealthOutcome>(),
        annotations(
            title = "Task Manager health",
            read_only_hint = true,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = true
        )
    )]
    fn health_check(&self, tool: ToolName, args: JsonObject) -> ToolFuture<'_> {
        run(self, tool, args, |nova, _: &HealthCheckRequest| {
            nova.health_check()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;

    fn mock() -> NovaTools {
        NovaTools::new(ClientConfig::from_env(|name| {
            (name == "USE_MOCK_CLIENT").then(|| "true".to_owned())
        }))
    }

    fn json<T: Serialize>(value: &T) -> serde_json::Value {
        serde_json::to_value(value).unwrap()
    }

    #[test]
    fn a_step_is_created_running_and_updated() {
        let nova = mock();
        let created = nova.create_step(&CreateStepRequest {
            execution_id: "e1".into(),
            step_name: "build".into(),
            message: None,
            status: None,
        });
        assert_eq!(
            json(&created),
            serde_json::json!({"success": true, "step_id": "step-1", "data": {
                "id": "step-1", "execution_id": "e1", "step_name": "build", "status": "running", "message": null}})
        );
        let updated = nova.update_step(&UpdateStepRequest {
            execution_id: "e1".into(),
            step_id: "step-1".into(),
            status: Some("completed".into()),
            message: Some("done".into()),
        });
        assert_eq!(
            json(&updated),
            serde_json::json!({"success": true, "data": {
                "id": "step-1", "execution_id": "e1", "step_name": "build", "status": "completed", "message": "done"}})
        );
    }

    #[test]
    fn spec_level_refusals_are_unsuccessful_results() {
        let nova = mock();
        let wrong = nova.create_step(&CreateStepRequest {
            execution_id: "e1".into(),
            step_name: "build".into(),
            message: None,
            status: Some("done".into()),
        });
        assert_eq!(
            json(&wrong),
            serde_json::json!({"success": false,
                "error": "invalid status `done`: use one of running, completed, failed, skipped",
                "valid_statuses": ["running", "completed", "failed", "skipped"], "retryable": false})
        );
        let nothing = nova.update_step(&UpdateStepRequest {
            execution_id: "e1".into(),
            step_id: "step-1".into(),
            status: None,
            message: None,
        });
        assert!(!nothing.success);
        assert!(
            nothing
                .failure
                .unwrap()
                .error
                .contains("at least one of status and message")
        );
        let blank = nova.update_execution_session(&UpdateExecutionSessionRequest {
            execution_id: " ".into(),
            session_id: "s".into(),
        });
        assert!(
            blank
                .failure
                .unwrap()
                .error
                .starts_with("execution_id is empty")
        );
        let unknown = nova.update_step(&UpdateStepRequest {
            execution_id: "e1".into(),
            step_id: "step-9".into(),
            status: Some("failed".into()),
            message: None,
        });
        let failure = unknown.failure.unwrap();
        assert_eq!(failure.error_code.as_deref(), Some("STEP_NOT_FOUND"));
    }

    #[test]
    fn a_misconfigured_environment_is_reported_by_every_tool() {
        let nova = NovaTools::new(ClientConfig::from_env(|name| {
            (name == "TASK_MANAGER_PORT").then(|| "http".to_owned())
        }));
        assert!(nova.problem().is_some());
        let health = json(&nova.health_check());
        assert_eq!(health["success"], false);
        assert!(
            health["error"]
                .as_str()
                .unwrap()
                .starts_with("TASK_MANAGER_PORT is `http`"),
            "{health}"
        );
        assert!(health.get("client").is_none(), "{health}");
        let created = nova.create_step(&CreateStepRequest {
            execution_id: "e1".into(),
            step_name: "build".into(),
            message: None,
            status: None,
        });
        assert!(!created.success);
        assert!(created.step_id.is_none());
    }

    #[test]
    fn health_reports_where_the_http_client_asks() {
        let mock = json(&mock().health_check());
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
        let health = json(&nova.health_check());
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
