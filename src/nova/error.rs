//! Why a call to the Task Manager failed, in words an agent can act on.

use std::time::Duration;

/// Why a Task Manager call, or setting up its client, failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
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
    /// A successful answer that is not what the API describes.
    #[error("the Task Manager's answer could not be read: {0}")]
    InvalidResponse(String),
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
            | NovaError::InvalidStatus { .. }
            | NovaError::MissingId { .. }
            | NovaError::DotId { .. }
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
