//! Why a call to the Task Manager failed, in words an agent can act on.

use std::time::Duration;

/// Why a Task Manager call, or setting up its client, failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NovaError {
    /// The Task Manager did not answer within the timeout. Not retried: a
    /// caller waits at most the timeout.
    #[error(
        "Request timeout: the Task Manager at {base_url} did not answer within {} s (TASK_MANAGER_TIMEOUT)",
        timeout.as_secs_f64()
    )]
    Timeout {
        /// Where the Task Manager was asked.
        base_url: String,
        /// How long the call waited.
        timeout: Duration,
    },
    /// No connection could be made (refused, reset, no such host).
    #[error(
        "the Task Manager could not be reached at {base_url}: {reason}. Check that it is running there, or set TASK_MANAGER_HOST and TASK_MANAGER_PORT to where it runs"
    )]
    Unreachable {
        /// Where the Task Manager was looked for.
        base_url: String,
        /// The connection's failure in words.
        reason: String,
    },
    /// The Task Manager answered with an error status and its JSON error
    /// body.
    #[error("the Task Manager answered {status}: {error}{}", code_suffix(error_code.as_deref()))]
    Server {
        /// The HTTP status (400 or more).
        status: u16,
        /// The Task Manager's `error`.
        error: String,
        /// The Task Manager's `error_code`, when it gave one.
        error_code: Option<String>,
    },
    /// The Task Manager (or a proxy before it) answered with an error
    /// status and a body that is not its JSON error.
    #[error("the Task Manager answered {status} without its JSON error body; it said: {body}")]
    NotJsonError {
        /// The HTTP status (400 or more).
        status: u16,
        /// The start of the body as text (`(no body)` when empty).
        body: String,
    },
    /// An answer that is neither a success, a redirect nor an error (a
    /// 1xx status after the request), or that is not HTTP/1.1 as the
    /// client reads it: malformed, or a head or a chunked body's line
    /// longer than the client reads of one. Not retried.
    #[error("the Task Manager's answer could not be read: {0}")]
    InvalidResponse(String),
    /// The Task Manager (or something in its place) answered with a
    /// redirect, which is not followed: it would send the request, body
    /// and all, where `TASK_MANAGER_HOST` and `TASK_MANAGER_PORT` do not
    /// point, and turn a POST or PATCH into a GET on 301, 302 and 303.
    #[error(
        "the Task Manager answered {status}, a redirect to {location}; redirects are not followed (one would send this request, session id, step name and message included, somewhere TASK_MANAGER_HOST and TASK_MANAGER_PORT do not name), so nothing was sent there. Set TASK_MANAGER_HOST and TASK_MANAGER_PORT to where the Task Manager itself answers"
    )]
    Redirected {
        /// The HTTP status (3xx).
        status: u16,
        /// The `Location` it named, as text (`(no Location header)`).
        location: String,
    },
    /// A successful answer with a body longer than
    /// [`SUCCESS_BODY_LIMIT`](super::SUCCESS_BODY_LIMIT): not read
    /// further, so that one answer cannot fill the memory.
    #[error(
        "the Task Manager answered {status} (success) with a body longer than the {limit} bytes ({} MiB, SUCCESS_BODY_LIMIT) quire reads of an answer{}; it was not read further, so that an oversized answer cannot fill the memory. The call itself was accepted: do not repeat it (creating a step again would make a second one)",
        limit / (1024 * 1024),
        declared_suffix(*declared)
    )]
    AnswerTooLarge {
        /// The HTTP status (2xx).
        status: u16,
        /// The length the answer declared (`Content-Length`), if it did.
        declared: Option<u64>,
        /// The most of a successful answer read, in bytes.
        limit: usize,
    },
    /// `create_step` succeeded, but its answer gives the new step's id in
    /// none of the places looked at.
    #[error(
        "the Task Manager answered {status} (success) to the step's creation, so the step was most likely created, but its answer gives no step id (neither `step_id` nor `id`, at its top or in its `data`); it said: {answer}. Do not create the step again (that would make a second one); find its id in the Task Manager to update it"
    )]
    NoStepId {
        /// The HTTP status (2xx).
        status: u16,
        /// The start of the answer as text (`(no body)` when empty).
        answer: String,
    },
    /// `create_step` succeeded (its answer's status said so), but the
    /// answer broke off before it ended: the connection dropped, or the
    /// rest did not come within the timeout. The step most likely exists,
    /// so this is not retryable: a second `create_step` would make a
    /// second step.
    #[error(
        "the Task Manager answered {status} (success) to the step's creation, so the step was most likely created, but its answer broke off before it ended ({reason}), so the new step's id is unknown. Do not create the step again (that would make a second one); find its id in the Task Manager to update it"
    )]
    StepAnswerLost {
        /// The HTTP status (2xx).
        status: u16,
        /// Why the answer broke off, in words.
        reason: String,
    },
    /// A step status outside the API's vocabulary.
    #[error("invalid status `{given}`: use one of {}", valid.join(", "))]
    InvalidStatus {
        /// The status as given.
        given: String,
        /// The valid statuses.
        valid: Vec<&'static str>,
    },
    /// An execution or step id that is empty (or only blanks), which would
    /// name another path of the API.
    #[error("{field} is empty: {hint}")]
    MissingId {
        /// `execution_id` or `step_id`.
        field: &'static str,
        /// Where the id comes from.
        hint: &'static str,
    },
    /// An execution or step id of `.` or `..`: sent as a path segment, it
    /// would be resolved away and the request would reach another endpoint
    /// (`/api/executions/../steps` is `/api/steps`).
    #[error(
        "{field} `{id}` cannot be used: as a path segment it would send the request to another endpoint of the API; {hint}"
    )]
    DotId {
        /// `execution_id` or `step_id`.
        field: &'static str,
        /// The id as given.
        id: String,
        /// Where the right id comes from.
        hint: &'static str,
    },
    /// An execution or step id longer than
    /// [`MAX_ID_BYTES`](super::MAX_ID_BYTES): percent-encoded into the
    /// request's path it would make a request line that servers refuse.
    #[error(
        "{field} is {length} bytes long, more than the {limit} an id may have (it goes into the request's path, which servers limit); {hint}"
    )]
    LongId {
        /// `execution_id` or `step_id`.
        field: &'static str,
        /// The id's length in bytes (UTF-8).
        length: usize,
        /// The most an id may have.
        limit: usize,
        /// Where the right id comes from.
        hint: &'static str,
    },
    /// A step update that gives neither a status nor a message.
    #[error("a step update needs at least one of status and message; neither was given")]
    NothingToUpdate,
    /// An environment variable that configures the client holds a value it
    /// cannot use.
    #[error("{variable} is `{value}`: {expected}")]
    Config {
        /// The variable's name.
        variable: &'static str,
        /// Its value.
        value: String,
        /// What it should hold instead.
        expected: &'static str,
    },
    /// The HTTP client could not be built or could not form the request.
    #[error("the Task Manager client could not be set up: {0}")]
    Setup(String),
}

fn declared_suffix(declared: Option<u64>) -> String {
    declared
        .map(|length| format!(" (it declared {length} bytes)"))
        .unwrap_or_default()
}

fn code_suffix(code: Option<&str>) -> String {
    code.map(|code| format!(" ({code})")).unwrap_or_default()
}

impl NovaError {
    /// Whether the same call may succeed if made again unchanged (the
    /// Task Manager being down, busy or slow).
    pub fn retryable(&self) -> bool {
        match self {
            NovaError::Timeout { .. } | NovaError::Unreachable { .. } => true,
            NovaError::Server { status, .. } | NovaError::NotJsonError { status, .. } => {
                matches!(status, 502..=504)
            }
            NovaError::InvalidResponse(_)
            | NovaError::Redirected { .. }
            | NovaError::AnswerTooLarge { .. }
            | NovaError::NoStepId { .. }
            | NovaError::StepAnswerLost { .. }
            | NovaError::InvalidStatus { .. }
            | NovaError::MissingId { .. }
            | NovaError::DotId { .. }
            | NovaError::LongId { .. }
            | NovaError::NothingToUpdate
            | NovaError::Config { .. }
            | NovaError::Setup(_) => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_say_what_failed_and_what_to_do() {
        let timeout = NovaError::Timeout {
            base_url: "http://localhost:8080".into(),
            timeout: Duration::from_millis(1500),
        };
        assert_eq!(
            timeout.to_string(),
            "Request timeout: the Task Manager at http://localhost:8080 did not answer within 1.5 s (TASK_MANAGER_TIMEOUT)"
        );
        let server = NovaError::Server {
            status: 404,
            error: "execution e1 not found".into(),
            error_code: Some("EXECUTION_NOT_FOUND".into()),
        };
        assert_eq!(
            server.to_string(),
            "the Task Manager answered 404: execution e1 not found (EXECUTION_NOT_FOUND)"
        );
        let server = NovaError::Server {
            status: 500,
            error: "boom".into(),
            error_code: None,
        };
        assert_eq!(server.to_string(), "the Task Manager answered 500: boom");
        assert!(!server.retryable());
        let busy = NovaError::NotJsonError {
            status: 503,
            body: "busy".into(),
        };
        assert!(busy.retryable());
        assert_eq!(
            NovaError::Config {
                variable: "TASK_MANAGER_PORT",
                value: "http".into(),
                expected: "a port number from 1 to 65535",
            }
            .to_string(),
            "TASK_MANAGER_PORT is `http`: a port number from 1 to 65535"
        );
    }
}
