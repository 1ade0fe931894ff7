//! The one interface both Task Manager clients offer.

use std::fmt;

use super::error::NovaError;
use super::model::{Answer, CreatedStep, ExecutionPatch, Health, StepCreate, StepPatch};

/// Which implementation a client is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClientKind {
    /// [`HttpClient`](super::HttpClient): the real Task Manager.
    Http,
    /// The in-memory Task Manager (`USE_MOCK_CLIENT=true`).
    Mock,
}

impl fmt::Display for ClientKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ClientKind::Http => "http",
            ClientKind::Mock => "mock",
        })
    }
}

/// What the nova tools ask of the Task Manager. Held as
/// `Arc<dyn TaskManagerClient>`, so that a client can be chosen at run
/// time ([`ClientConfig::client`](super::ClientConfig::client)).
///
/// Every call blocks the calling thread until the Task Manager has
/// answered, or the client's timeout has passed (the HTTP client's
/// retries included): an async caller runs it on a thread meant for
/// blocking work (tokio's `spawn_blocking`).
pub trait TaskManagerClient: Send + Sync + fmt::Debug {
    /// Which implementation this is.
    fn kind(&self) -> ClientKind;

    /// Changes the fields `patch` gives of execution `execution_id`
    /// (`PATCH /api/executions/{execution-id}`); gives the Task Manager's
    /// answer as it sent it.
    fn update_execution(
        &self,
        execution_id: &str,
        patch: &ExecutionPatch,
    ) -> Result<Answer, NovaError>;

    /// Creates a step of execution `execution_id`
    /// (`POST /api/executions/{execution-id}/steps`); gives the new step's
    /// id and the answer, or [`NovaError::NoStepId`] when the answer names
    /// no id. Never sent twice: a retry after a lost answer would create
    /// the step twice.
    fn create_step(&self, execution_id: &str, step: &StepCreate) -> Result<CreatedStep, NovaError>;

    /// Changes the fields `patch` gives of a step
    /// (`PATCH /api/executions/{execution-id}/steps/{step-id}`); gives the
    /// Task Manager's answer as it sent it. A patch that gives nothing is
    /// [`NovaError::NothingToUpdate`].
    fn update_step(
        &self,
        execution_id: &str,
        step_id: &str,
        patch: &StepPatch,
    ) -> Result<Answer, NovaError>;

    /// The Task Manager's health (`GET /api/health`): up when it answers
    /// with a success status, whatever the body.
    fn health(&self) -> Result<Health, NovaError>;
}
