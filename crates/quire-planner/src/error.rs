//! Why a planner call could not be carried out: the plan's rules refused
//! the edit, or the store could not be used.

use super::store::StoreError;

/// An edit the plan's rules refuse (a request that breaks them, or stored
/// text the edit cannot keep); nothing was stored. The message says what is
/// wrong and what to do instead.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct PlanEditError {
    message: String,
}

impl PlanEditError {
    pub(super) fn new(message: impl Into<String>) -> Self {
        PlanEditError {
            message: message.into(),
        }
    }

    /// What is wrong and what to do instead.
    pub fn message(&self) -> &str {
        &self.message
    }
}

/// Why a planner call failed. A refused edit changes nothing; the same
/// call fails the same way until its request (or the stored plan) changes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlannerError {
    /// The plan's rules refuse the edit.
    #[error(transparent)]
    Edit(#[from] PlanEditError),
    /// The place the plan is kept could not be used.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl PlannerError {
    /// Whether the same call may succeed if made again unchanged (a lock
    /// held by another writer, say).
    pub fn retryable(&self) -> bool {
        match self {
            PlannerError::Edit(_) => false,
            PlannerError::Store(error) => error.retryable(),
        }
    }
}
