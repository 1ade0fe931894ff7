//! The one interface both Task Manager clients offer.

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use super::error::NovaError;
use super::model::{Answer, CreatedStep, ExecutionPatch, Health, StepCreate, StepPatch};

/// A Task Manager call under way. Boxed, so that a client can be chosen at
/// run time and held as `Arc<dyn TaskManagerClient>`.
pub type NovaFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, NovaError>> + Send + 'a>>;

/// Which implementation a client is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClientKind {
    /// [`HttpClient`](super::HttpClient): the real Task Manager.
    Http,
    /// [`MockClient`](super::MockClient): in memory.
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

/// What the nova tools ask of the Task Manager.
pub trait TaskManagerClient: Send + Sync + fmt::Debug {
    /// Which implementation this is.
    fn kind(&self) -> ClientKind;

    /// Changes the fields `patch` gives of execution `execution_id`
    /// (`PATCH /api/executions/{execution-id}`); gives the Task Manager's
    /// answer as it sent it.
    fn update_execution<'a>(
        &'a self,
        execution_id: &'a str,
        patch: &'a ExecutionPatch,
    ) -> NovaFuture<'a, Answer>;

    /// Creates a step of execution `execution_id`
    /// (`POST /api/executions/{execution-id}/steps`); gives the new step's
    /// id and the answer, or [`NovaError::NoStepId`] when the answer names
    /// no id.
    fn create_step<'a>(
        &'a self,
        execution_id: &'a str,
        step: &'a StepCreate,
    ) -> NovaFuture<'a, CreatedStep>;

    /// Changes the fields `patch` gives of a step
    /// (`PATCH /api/executions/{execution-id}/steps/{step-id}`); gives the
    /// Task Manager's answer as it sent it. A patch that gives nothing is
    /// [`NovaError::NothingToUpdate`].
    fn update_step<'a>(
        &'a self,
        execution_id: &'a str,
        step_id: &'a str,
        patch: &'a StepPatch,
    ) -> NovaFuture<'a, Answer>;

    /// The Task Manager's health (`GET /api/health`): up when it answers
    /// with a success status, whatever the body.
    fn health(&self) -> NovaFuture<'_, Health>;
}
