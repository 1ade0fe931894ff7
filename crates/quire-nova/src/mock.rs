//! The in-memory Task Manager (`USE_MOCK_CLIENT=true`): executions and
//! steps kept in a map, step ids assigned in order, so that tools and
//! tests run without a server.

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};

use serde_json::json;

use super::client::{ClientKind, TaskManagerClient};
use super::error::NovaError;
use super::model::{
    Answer, CreatedStep, ExecutionPatch, Health, StepCreate, StepPatch, StepStatus,
    check_execution_id, check_step_id,
};

/// A Task Manager in memory. An execution comes into being the first time
/// it is named (the real Task Manager creates them before an agent runs);
/// a step must have been created before it is updated, as on the server.
#[derive(Debug, Default)]
pub(crate) struct MockClient {
    state: Mutex<MockState>,
}

#[derive(Debug, Default)]
struct MockState {
    executions: BTreeMap<String, Execution>,
    /// Steps in creation order.
    steps: Vec<Step>,
    created: u64,
}

impl MockClient {
    /// An empty Task Manager.
    pub(crate) fn new() -> MockClient {
        MockClient::default()
    }

    /// Execution `execution_id` as it stands, if it was named.
    #[cfg(test)]
    fn execution(&self, execution_id: &str) -> Option<Execution> {
        self.state().executions.get(execution_id).cloned()
    }

    /// The steps of execution `execution_id`, in creation order.
    #[cfg(test)]
    fn steps(&self, execution_id: &str) -> Vec<Step> {
        self.state()
            .steps
            .iter()
            .filter(|step| step.execution_id.as_deref() == Some(execution_id))
            .cloned()
            .collect()
    }

    /// Step `step_id` of execution `execution_id`, if created.
    #[cfg(test)]
    fn step(&self, execution_id: &str, step_id: &str) -> Option<Step> {
        self.state()
            .steps
            .iter()
            .find(|step| step.id == step_id && step.execution_id.as_deref() == Some(execution_id))
            .cloned()
    }

    /// The state; a panic elsewhere while it was held leaves it usable,
    /// since every change is made whole under the lock.
    fn state(&self) -> MutexGuard<'_, MockState> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn update_execution_now(&self, execution_id: &str, patch: &ExecutionPatch) -> Execution {
        let mut state = self.state();
        let execution = state.execution(execution_id);
        if let Some(session_id) = &patch.session_id {
            execution.session_id = Some(session_id.clone());
        }
        if let Some(worktree_path) = &patch.worktree_path {
            execution.worktree_path = Some(worktree_path.clone());
        }
        execution.clone()
    }

    fn create_step_now(&self, execution_id: &str, step: &StepCreate) -> Step {
        let mut state = self.state();
        state.execution(execution_id);
        state.created += 1;
        let step = Step {
            id: format!("step-{}", state.created),
            execution_id: Some(execution_id.to_owned()),
            step_name: Some(step.step_name.clone()),
            status: Some(step.status),
            message: step.message.clone(),
        };
        state.steps.push(step.clone());
        step
    }

    fn update_step_now(
        &self,
        execution_id: &str,
        step_id: &str,
        patch: &StepPatch,
    ) -> Result<Step, NovaError> {
        check_execution_id(execution_id)?;
        check_step_id(step_id)?;
        patch.check()?;
        let mut state = self.state();
        let step = state
            .steps
            .iter_mut()
            .find(|step| step.id == step_id && step.execution_id.as_deref() == Some(execution_id))
            // As the real Task Manager would answer.
            .ok_or_else(|| NovaError::Server {
                status: 404,
                error: format!("step {step_id} of execution {execution_id} not found"),
                error_code: Some("STEP_NOT_FOUND".to_owned()),
            })?;
        if let Some(status) = patch.status {
            step.status = Some(status);
        }
        if let Some(message) = &patch.message {
            step.message = Some(message.clone());
        }
        Ok(step.clone())
    }
}

impl MockState {
    fn execution(&mut self, execution_id: &str) -> &mut Execution {
        self.executions
            .entry(execution_id.to_owned())
            .or_insert_with(|| Execution {
                id: execution_id.to_owned(),
                session_id: None,
                worktree_path: None,
            })
    }
}

impl TaskManagerClient for MockClient {
    fn kind(&self) -> ClientKind {
        ClientKind::Mock
    }

    fn update_execution(
        &self,
        execution_id: &str,
        patch: &ExecutionPatch,
    ) -> Result<Answer, NovaError> {
        check_execution_id(execution_id)?;
        Ok(self.update_execution_now(execution_id, patch).to_answer())
    }

    fn create_step(&self, execution_id: &str, step: &StepCreate) -> Result<CreatedStep, NovaError> {
        check_execution_id(execution_id)?;
        let step = self.create_step_now(execution_id, step);
        Ok(CreatedStep {
            step_id: step.id.clone(),
            data: step.to_answer(),
        })
    }

    fn update_step(
        &self,
        execution_id: &str,
        step_id: &str,
        patch: &StepPatch,
    ) -> Result<Answer, NovaError> {
        self.update_step_now(execution_id, step_id, patch)
            .map(|step| step.to_answer())
    }

    fn health(&self) -> Result<Health, NovaError> {
        Ok(Health::from_answer(json!({"status": "healthy"})))
    }
}

/// An execution as the mock keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Execution {
    /// The execution's id.
    id: String,
    /// The agent session registered for it.
    session_id: Option<String>,
    /// The worktree the agent works in.
    worktree_path: Option<String>,
}

impl Execution {
    /// The execution as the mock answers it.
    fn to_answer(&self) -> Answer {
        json!({"id": self.id, "session_id": self.session_id, "worktree_path": self.worktree_path})
    }
}

/// A step as the mock keeps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Step {
    /// The step's id, which later updates name.
    id: String,
    /// The execution the step belongs to.
    execution_id: Option<String>,
    /// What the step does.
    step_name: Option<String>,
    /// The step's status.
    status: Option<StepStatus>,
    /// The step's latest progress message.
    message: Option<String>,
}

impl Step {
    /// The step as the mock answers it.
    fn to_answer(&self) -> Answer {
        json!({
            "id": self.id,
            "execution_id": self.execution_id,
            "step_name": self.step_name,
            "status": self.status.map(StepStatus::as_str),
            "message": self.message,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mock_keeps_executions_and_steps_and_assigns_step_ids() {
        let mock = MockClient::new();
        assert_eq!(mock.kind(), ClientKind::Mock);
        assert_eq!(mock.execution("e1"), None);

        let patch = ExecutionPatch {
            session_id: Some("s1".into()),
            worktree_path: None,
        };
        let execution = mock.update_execution("e1", &patch).unwrap();
        assert_eq!(
            execution,
            json!({"id": "e1", "session_id": "s1", "worktree_path": null})
        );
        let patch = ExecutionPatch {
            session_id: None,
            worktree_path: Some("/w".into()),
        };
        mock.update_execution("e1", &patch).unwrap();
        let kept = mock.execution("e1").unwrap();
        assert_eq!(
            (kept.session_id.as_deref(), kept.worktree_path.as_deref()),
            (Some("s1"), Some("/w")),
            "a field left out keeps its value"
        );

        let first = mock.create_step("e1", &StepCreate::new("build")).unwrap();
        let second = StepCreate {
            message: Some("testing".into()),
            status: StepStatus::Completed,
            ..StepCreate::new("test")
        };
        let second = mock.create_step("e2", &second).unwrap();
        assert_eq!(
            (first.step_id.as_str(), second.step_id.as_str()),
            ("step-1", "step-2")
        );
        assert_eq!(first.data["status"], "running");
        assert_eq!(second.data["message"], "testing");
        assert!(mock.execution("e2").is_some(), "a step's execution is kept");

        let patch = StepPatch {
            status: Some(StepStatus::Failed),
            message: None,
        };
        let updated = mock.update_step("e1", "step-1", &patch).unwrap();
        assert_eq!(
            updated,
            json!({"id": "step-1", "execution_id": "e1", "step_name": "build", "status": "failed", "message": null})
        );
        let kept = mock.step("e1", "step-1").unwrap();
        assert_eq!(kept.to_answer(), updated);
        assert_eq!(mock.steps("e1"), vec![kept]);
        assert_eq!(mock.step("e1", "step-2"), None, "step-2 is e2's");
    }

    #[test]
    fn the_mock_refuses_unknown_steps_and_empty_updates() {
        let mock = MockClient::new();
        let patch = StepPatch {
            status: Some(StepStatus::Completed),
            message: None,
        };
        let error = mock.update_step("e1", "step-9", &patch).unwrap_err();
        assert!(
            matches!(&error, NovaError::Server { status: 404, error_code: Some(code), .. } if code == "STEP_NOT_FOUND"),
            "{error:?}"
        );
        let step = mock.create_step("e1", &StepCreate::new("build")).unwrap();
        let error = mock
            .update_step("e1", &step.step_id, &StepPatch::default())
            .unwrap_err();
        assert_eq!(error, NovaError::NothingToUpdate);
        assert_eq!(
            mock.step("e1", &step.step_id).unwrap().status,
            Some(StepStatus::Running)
        );
        assert_eq!(mock.health().unwrap().status.as_deref(), Some("healthy"));
        let error = mock.create_step(" ", &StepCreate::new("x")).unwrap_err();
        assert!(matches!(
            error,
            NovaError::MissingId {
                field: "execution_id",
                ..
            }
        ));
        let error = mock.update_step("e1", "", &patch).unwrap_err();
        assert!(matches!(
            error,
            NovaError::MissingId {
                field: "step_id",
                ..
            }
        ));
        assert_eq!(mock.steps("e1").len(), 1);
        assert_eq!(mock.execution(" "), None);
    }
}
