//! The nova tools' argument and result types: what an agent sends (decoded
//! from the call's JSON, with the JSON Schemas `tools/list` shows, their
//! descriptions the doc comments here) and what it gets back, and how a
//! [`NovaError`] becomes the result's `error`, `error_code`,
//! `valid_statuses` and `retryable`. A step's status is a string here, not
//! an enum: a wrong one is a normal result listing the valid ones
//! (`valid_statuses`), not a tool error, so the domain parses it
//! ([`StepStatus::parse`](quire_nova::StepStatus::parse)).

use serde::{Deserialize, Serialize};

use quire_nova::{Answer, NovaError};

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
    pub(super) fn done(data: Answer) -> Self {
        NovaOutcome {
            success: true,
            data: Some(data),
            step_id: None,
            failure: None,
        }
    }

    pub(super) fn failed(error: NovaError) -> Self {
        NovaOutcome {
            success: false,
            data: None,
            step_id: None,
            failure: Some(error.into()),
        }
    }

    pub(super) fn from_result(result: Result<Answer, NovaError>) -> Self {
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
