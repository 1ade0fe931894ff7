//! The Task Manager's data as the domain sees it: a step's status, what a
//! request changes, and what the Task Manager answers. Both clients speak
//! these types; [`HttpClient`](super::HttpClient) converts them to and from
//! the generated ones, so a change of the OpenAPI document that the domain
//! must follow fails to compile there instead of drifting silently.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::error::NovaError;

/// Where a step stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    /// The step is under way (a new step's default).
    Running,
    /// The step is done.
    Completed,
    /// The step failed.
    Failed,
    /// The step was not needed.
    Skipped,
}

impl StepStatus {
    /// Every status, in the order the API lists them.
    pub const ALL: [StepStatus; 4] = [
        StepStatus::Running,
        StepStatus::Completed,
        StepStatus::Failed,
        StepStatus::Skipped,
    ];

    /// The API's spelling (`running`).
    pub fn as_str(self) -> &'static str {
        match self {
            StepStatus::Running => "running",
            StepStatus::Completed => "completed",
            StepStatus::Failed => "failed",
            StepStatus::Skipped => "skipped",
        }
    }

    /// The spellings of every status, for messages and the tools' answers.
    pub fn valid() -> Vec<&'static str> {
        StepStatus::ALL
            .iter()
            .map(|status| status.as_str())
            .collect()
    }

    /// The status spelled exactly `text`; anything else is
    /// [`NovaError::InvalidStatus`], which lists the valid ones.
    ///
    /// ```
    /// use quire::nova::{NovaError, StepStatus};
    ///
    /// assert_eq!(StepStatus::parse("completed")?, StepStatus::Completed);
    /// let error = StepStatus::parse("done").unwrap_err();
    /// assert!(matches!(error, NovaError::InvalidStatus { .. }));
    /// assert!(error.to_string().contains("running, completed, failed, skipped"));
    /// # Ok::<(), NovaError>(())
    /// ```
    pub fn parse(text: &str) -> Result<StepStatus, NovaError> {
        StepStatus::ALL
            .into_iter()
            .find(|status| status.as_str() == text)
            .ok_or_else(|| NovaError::InvalidStatus {
                given: text.to_owned(),
                valid: StepStatus::valid(),
            })
    }
}

impl fmt::Display for StepStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// [`NovaError::MissingId`] when `execution_id` is empty or blank,
/// [`NovaError::DotId`] when it is `.` or `..`.
pub(crate) fn check_execution_id(execution_id: &str) -> Result<(), NovaError> {
    check_id(
        "execution_id",
        execution_id,
        "pass the execution's id (an agent finds it in the NOVA_EXECUTION_ID environment variable)",
    )
}

/// [`NovaError::MissingId`] when `step_id` is empty or blank,
/// [`NovaError::DotId`] when it is `.` or `..`.
pub(crate) fn check_step_id(step_id: &str) -> Result<(), NovaError> {
    check_id(
        "step_id",
        step_id,
        "pass the step's id, as create_step returned it",
    )
}

/// An id goes into the request's path as one segment: percent-encoding
/// keeps a `/` in it from splitting it, but `.` and `..` are dot segments,
/// which URL resolution removes, so they are refused here.
fn check_id(field: &'static str, id: &str, hint: &'static str) -> Result<(), NovaError> {
    if id.trim().is_empty() {
        return Err(NovaError::MissingId { field, hint });
    }
    if id == "." || id == ".." {
        return Err(NovaError::DotId {
            field,
            id: id.to_owned(),
            hint,
        });
    }
    Ok(())
}

/// The fields of an execution to change; `None` keeps a field as it is.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExecutionPatch {
    /// The agent session working on the execution.
    pub session_id: Option<String>,
    /// The worktree the agent works in.
    pub worktree_path: Option<String>,
}

/// A new step of an execution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepCreate {
    /// What the step does, in a few words.
    pub step_name: String,
    /// A first progress message.
    pub message: Option<String>,
    /// The step's first status (`running` unless said otherwise).
    pub status: StepStatus,
}

impl StepCreate {
    /// A running step named `step_name`, without a message.
    pub fn new(step_name: impl Into<String>) -> StepCreate {
        StepCreate {
            step_name: step_name.into(),
            message: None,
            status: StepStatus::Running,
        }
    }
}

/// The fields of a step to change; `None` keeps a field as it is. At least
/// one must be given.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StepPatch {
    /// The step's new status.
    pub status: Option<StepStatus>,
    /// The step's new progress message.
    pub message: Option<String>,
}

impl StepPatch {
    /// [`NovaError::NothingToUpdate`] when neither field is given: such an
    /// update would change nothing, and is a caller's mistake.
    pub fn check(&self) -> Result<(), NovaError> {
        if self.status.is_none() && self.message.is_none() {
            return Err(NovaError::NothingToUpdate);
        }
        Ok(())
    }
}

/// An execution as the Task Manager answers it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct Execution {
    /// The execution's id.
    pub id: String,
    /// The agent session registered for it.
    pub session_id: Option<String>,
    /// The worktree the agent works in.
    pub worktree_path: Option<String>,
}

/// A step as the Task Manager answers it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct Step {
    /// The step's id, which later updates name.
    pub id: String,
    /// The execution the step belongs to, when the Task Manager says.
    pub execution_id: Option<String>,
    /// What the step does, when the Task Manager says.
    pub step_name: Option<String>,
    /// The step's status, when the Task Manager says.
    pub status: Option<StepStatus>,
    /// The step's latest progress message.
    pub message: Option<String>,
}

/// The Task Manager's health.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct Health {
    /// The Task Manager's own word for its state (`ok`, `healthy`).
    pub status: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_parse_exactly_and_a_wrong_one_lists_the_valid_ones() {
        for status in StepStatus::ALL {
            assert_eq!(StepStatus::parse(status.as_str()).unwrap(), status);
            assert_eq!(
                serde_json::to_value(status).unwrap(),
                serde_json::json!(status.as_str())
            );
        }
        for wrong in ["Running", " running", "done", ""] {
            let error = StepStatus::parse(wrong).unwrap_err();
            assert_eq!(
                error,
                NovaError::InvalidStatus {
                    given: wrong.to_owned(),
                    valid: vec!["running", "completed", "failed", "skipped"],
                }
            );
        }
    }

    #[test]
    fn a_step_patch_must_change_something() {
        assert_eq!(
            StepPatch::default().check(),
            Err(NovaError::NothingToUpdate)
        );
        let message = StepPatch {
            message: Some("half way".into()),
            ..StepPatch::default()
        };
        assert_eq!(message.check(), Ok(()));
        let status = StepPatch {
            status: Some(StepStatus::Failed),
            ..StepPatch::default()
        };
        assert_eq!(status.check(), Ok(()));
        assert_eq!(StepCreate::new("build").status, StepStatus::Running);
    }

    #[test]
    fn ids_must_not_be_blank() {
        assert_eq!(check_execution_id("e-1"), Ok(()));
        assert_eq!(check_step_id("step-1"), Ok(()));
        for blank in ["", " ", "\t\n"] {
            let error = check_execution_id(blank).unwrap_err();
            assert!(
                error.to_string().starts_with("execution_id is empty"),
                "{error}"
            );
            assert!(error.to_string().contains("NOVA_EXECUTION_ID"), "{error}");
            let error = check_step_id(blank).unwrap_err();
            assert!(error.to_string().starts_with("step_id is empty"), "{error}");
        }
    }
}
