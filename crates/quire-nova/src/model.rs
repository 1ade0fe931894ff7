//! The Task Manager's data as the domain sees it: a step's status, what a
//! request changes, and what the Task Manager answers. Both clients speak
//! these types. [`HttpClient`](super::HttpClient) turns the requests into
//! the generated types (the OpenAPI document's bodies), so a change of the
//! document that the domain must follow fails to compile there. The
//! answers are not typed: the requirements define the requests, not the
//! answers, so an answer is kept as the JSON (or text) the Task Manager
//! sent ([`Answer`]), and only the new step's id is looked for in it
//! ([`CreatedStep`]).

use serde_json::Value;

use super::error::NovaError;

quire_grammar::named_enum! {
    /// Where a step stands.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum StepStatus {
        /// The step is under way (a new step's default).
        Running => "running",
        /// The step is done.
        Completed => "completed",
        /// The step failed.
        Failed => "failed",
        /// The step was not needed.
        Skipped => "skipped",
    }
}

impl StepStatus {
    /// The API's spelling (`running`).
    pub fn as_str(self) -> &'static str {
        self.name()
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
    /// use quire_nova::{NovaError, StepStatus};
    ///
    /// assert_eq!(StepStatus::parse("completed")?, StepStatus::Completed);
    /// let error = StepStatus::parse("done").unwrap_err();
    /// assert!(matches!(error, NovaError::InvalidStatus { .. }));
    /// assert!(error.to_string().contains("running, completed, failed, skipped"));
    /// # Ok::<(), NovaError>(())
    /// ```
    pub fn parse(text: &str) -> Result<StepStatus, NovaError> {
        StepStatus::from_name(text).ok_or_else(|| NovaError::InvalidStatus {
            given: text.to_owned(),
            valid: StepStatus::valid(),
        })
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

/// The longest execution or step id, in bytes. Percent-encoded (up to
/// three bytes each), two such ids and the rest of a request line stay
/// within the 8 KiB many servers and proxies allow one (nginx's default);
/// real ids are a few dozen bytes.
pub const MAX_ID_BYTES: usize = 1024;

/// An id goes into the request's path as one segment, every byte outside
/// the unreserved set percent-encoded (`super::path`), so nothing in it can
/// split it; but `.` and `..` stay dot segments, which URL resolution
/// removes, so they are refused here, as are ids too long for a path.
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
    if id.len() > MAX_ID_BYTES {
        return Err(NovaError::LongId {
            field,
            length: id.len(),
            limit: MAX_ID_BYTES,
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

/// What the Task Manager answered a call that succeeded, as it sent it:
/// its JSON (any shape), its text as a JSON string when it is not JSON, or
/// null when it sent no body.
pub type Answer = Value;

/// A step `create_step` made: its id, and the whole answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CreatedStep {
    /// The id later updates name, from the answer's `step_id` or `id`.
    pub step_id: String,
    /// The answer as the Task Manager sent it.
    pub data: Answer,
}

impl CreatedStep {
    /// The step an answer describes: `Ok` with its id when the answer gives
    /// one, `Err(answer)` when it does not. The id is looked for where Task
    /// Managers put it, the specific name first: `step_id`, then `data.step_id`
    /// (an answer wrapped in `data`), then `id`, then `data.id`. A string
    /// that is not blank is an id, and so is an integer (written out, since
    /// it goes into a path).
    pub fn from_answer(data: Answer) -> Result<CreatedStep, Answer> {
        let found = ["step_id", "id"].iter().find_map(|name| {
            id_in(data.get(name))
                .or_else(|| id_in(data.get("data").and_then(|inner| inner.get(name))))
        });
        match found {
            Some(step_id) => Ok(CreatedStep { step_id, data }),
            None => Err(data),
        }
    }
}

fn id_in(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::String(id) if !id.trim().is_empty() => Some(id.clone()),
        Value::Number(number) if number.is_i64() || number.is_u64() => Some(number.to_string()),
        _ => None,
    }
}

/// The Task Manager's health, as `GET /api/health` answered with a
/// success status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Health {
    /// The answer's `status` (`ok`, `healthy`), when it has a string one:
    /// the Task Manager's own word, passed on uninterpreted.
    pub status: Option<String>,
    /// The answer as the Task Manager sent it.
    pub data: Answer,
}

impl Health {
    /// The health an answer of `GET /api/health` with a success status
    /// describes. The status is what says the Task Manager is up (one that
    /// is not answers with an error status, or not at all); the body is
    /// passed on whatever it holds.
    pub fn from_answer(data: Answer) -> Health {
        let status = data
            .get("status")
            .and_then(Value::as_str)
            .map(str::to_owned);
        Health { status, data }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_parse_exactly_and_a_wrong_one_lists_the_valid_ones() {
        for status in StepStatus::ALL {
            assert_eq!(StepStatus::parse(status.as_str()).unwrap(), status);
            assert_eq!(status.to_string(), status.as_str());
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
    fn a_created_steps_id_is_found_where_task_managers_put_it() {
        use serde_json::json;
        let found = |answer: Value| CreatedStep::from_answer(answer).map(|step| step.step_id);
        assert_eq!(
            found(json!({"step_id": "s-1", "ok": true})),
            Ok("s-1".into())
        );
        assert_eq!(found(json!({"id": "s-2"})), Ok("s-2".into()));
        assert_eq!(found(json!({"data": {"id": "s-3"}})), Ok("s-3".into()));
        assert_eq!(found(json!({"data": {"step_id": "s-4"}})), Ok("s-4".into()));
        assert_eq!(found(json!({"id": 7})), Ok("7".into()));
        // The specific name first, wherever it is.
        assert_eq!(
            found(json!({"id": "req-9", "data": {"step_id": "s-5"}})),
            Ok("s-5".into())
        );
        assert_eq!(
            found(json!({"id": "s-6", "data": {"id": "other"}})),
            Ok("s-6".into())
        );
        for none in [
            json!({"ok": true}),
            json!({"id": ""}),
            json!({"id": "  "}),
            json!({"id": 1.5}),
            json!({"id": true}),
            json!({"id": {"value": "s"}}),
            json!({"data": "s-1"}),
            json!([{"id": "s-1"}]),
            json!("s-1"),
            Value::Null,
        ] {
            assert_eq!(found(none.clone()), Err(none));
        }
        let step = CreatedStep::from_answer(json!({"step_id": "s-1", "ok": true})).unwrap();
        assert_eq!(step.data, json!({"step_id": "s-1", "ok": true}));
    }

    #[test]
    fn health_passes_the_answer_on_and_takes_a_string_status() {
        use serde_json::json;
        let health = Health::from_answer(json!({"status": "degraded", "db": "down"}));
        assert_eq!(health.status.as_deref(), Some("degraded"));
        assert_eq!(health.data["db"], "down");
        for other in [
            json!({"healthy": true}),
            json!({"status": 1}),
            json!("OK"),
            Value::Null,
        ] {
            let health = Health::from_answer(other.clone());
            assert_eq!((health.status, health.data), (None, other));
        }
    }

    #[test]
    fn ids_longer_than_the_limit_are_refused() {
        let longest = "x".repeat(MAX_ID_BYTES);
        assert_eq!(check_execution_id(&longest), Ok(()));
        let error = check_step_id(&format!("{longest}y")).unwrap_err();
        assert!(
            matches!(error, NovaError::LongId { field: "step_id", length, limit: MAX_ID_BYTES, .. } if length == MAX_ID_BYTES + 1),
            "{error:?}"
        );
        assert!(
            error
                .to_string()
                .starts_with("step_id is 1025 bytes long, more than the 1024"),
            "{error}"
        );
        // Bytes, not characters: 513 two-byte characters are too many.
        assert!(check_execution_id(&"é".repeat(513)).is_err());
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
