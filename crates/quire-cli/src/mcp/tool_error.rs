//! The top-level error of a tool call, shared by every toolset: a code from a
//! small fixed set, a message a model can act on, and whether retrying the
//! same call may succeed. Each domain's error converts into it here; the
//! domains know nothing of it.
//!
//! A tool's business outcome (a blocked status change, say) is not an error:
//! it is a normal result. `ToolError` is for calls that could not be carried
//! out at all.

use serde::Serialize;

use quire_kiln::KilnError;
use quire_planner::PlannerError;
use quire_tracker::{TrackerError, TrackerErrorKind};

/// The codes a caller can branch on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    /// The request was wrong: a bad parameter, a path outside the workspace,
    /// a file whose content the tool cannot work with.
    ValidationError,
    /// A file the request names does not exist.
    FileNotFound,
    /// Something failed that the caller could not have prevented.
    InternalError,
    /// The place a toolset keeps its state could not be used (a missing
    /// program, a folder that is not a repository, a failed command).
    StoreError,
}

impl ErrorCode {
    /// The code's wire spelling, `SCREAMING_SNAKE_CASE` (`VALIDATION_ERROR`).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::ValidationError => "VALIDATION_ERROR",
            ErrorCode::FileNotFound => "FILE_NOT_FOUND",
            ErrorCode::InternalError => "INTERNAL_ERROR",
            ErrorCode::StoreError => "STORE_ERROR",
        }
    }
}

/// A tool call that could not be carried out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{}: {message}", code.as_str())]
pub struct ToolError {
    /// The class of failure, which a client can act on without reading the message.
    pub code: ErrorCode,
    /// What was wrong and what to do instead. Never a stack trace, never an
    /// absolute path of the machine.
    pub message: String,
    /// Whether the same call may succeed if made again unchanged.
    pub retryable: bool,
}

impl ToolError {
    /// A [`ErrorCode::ValidationError`] that no retry can fix: the arguments must change.
    pub fn validation(message: impl Into<String>) -> Self {
        ToolError {
            code: ErrorCode::ValidationError,
            message: message.into(),
            retryable: false,
        }
    }

    /// An unexpected failure; retrying may help (a busy disk, a race).
    pub fn internal(message: impl Into<String>) -> Self {
        ToolError {
            code: ErrorCode::InternalError,
            message: message.into(),
            retryable: true,
        }
    }

    /// The error as tools return it: `{"error": {"code", "message", "retryable"}}`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({ "error": self })
    }
}

/// A refused edit is the request's fault (`VALIDATION_ERROR`); a store that
/// cannot be used is a `STORE_ERROR`, retryable when another writer held it.
/// A refusal whose remedy is another tool names it.
impl From<PlannerError> for ToolError {
    fn from(error: PlannerError) -> Self {
        let code = match error {
            PlannerError::Edit(_) => ErrorCode::ValidationError,
            PlannerError::Store(_) => ErrorCode::StoreError,
            _ => ErrorCode::InternalError,
        };
        ToolError {
            code,
            retryable: error.retryable(),
            message: super::planner_text::error_message(&error),
        }
    }
}

/// The design's "tracker path unreadable" is `FILE_NOT_FOUND`; what the
/// request or the note's content got wrong is `VALIDATION_ERROR`; a failing
/// disk or a file that kept changing is `INTERNAL_ERROR`.
impl From<TrackerError> for ToolError {
    fn from(error: TrackerError) -> Self {
        let code = match error.kind() {
            TrackerErrorKind::Invalid => ErrorCode::ValidationError,
            TrackerErrorKind::NotFound => ErrorCode::FileNotFound,
            TrackerErrorKind::Failed => ErrorCode::InternalError,
        };
        ToolError {
            code,
            retryable: error.retryable(),
            message: error.to_string(),
        }
    }
}

/// A path or line arguments the kiln refuses, and a file it cannot read as
/// a note (outside, not a file, too large, not UTF-8), are the request's
/// fault; a missing note is `FILE_NOT_FOUND` (its message lists the closest
/// notes); semantic search without an embedder is `STORE_ERROR` (what
/// keeps its state is missing; the message says how to install it); a
/// failing disk is `INTERNAL_ERROR`. The message names the tool that does
/// what the kiln's asks for (see `kiln_error.rs`).
impl From<KilnError> for ToolError {
    fn from(error: KilnError) -> Self {
        let code = if error.is_not_found() {
            ErrorCode::FileNotFound
        } else if error.is_unavailable() {
            ErrorCode::StoreError
        } else if error.is_invalid() {
            ErrorCode::ValidationError
        } else {
            ErrorCode::InternalError
        };
        ToolError {
            code,
            retryable: error.retryable(),
            message: super::kiln_error::agent_message(&error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serializes_to_the_spec_error_shape() {
        let error = ToolError::validation("target_status must be one of: Reviewed");
        assert_eq!(
            error.to_json(),
            serde_json::json!({"error": {"code": "VALIDATION_ERROR", "message": "target_status must be one of: Reviewed", "retryable": false}})
        );
        assert!(ToolError::internal("x").retryable);
    }

    #[test]
    fn domain_errors_keep_their_message_and_retryable_flag() {
        use quire_fs::FsError;
        use quire_planner::store::StoreError;

        let busy = FsError::Busy {
            path: "PLAN.md".into(),
            holder: "another quire call".into(),
            waited: std::time::Duration::from_secs(10),
        };
        let error = ToolError::from(PlannerError::Store(StoreError::File(busy.clone())));
        assert_eq!((error.code, error.retryable), (ErrorCode::StoreError, true));
        assert_eq!(error.message, StoreError::File(busy.clone()).to_string());
        let error = ToolError::from(TrackerError::from(busy.clone()));
        assert_eq!(
            (error.code, error.retryable),
            (ErrorCode::InternalError, true)
        );
        assert_eq!(error.message, busy.to_string());
        let error = ToolError::from(TrackerError::from(FsError::NotFound {
            path: "t/a.md".into(),
        }));
        assert_eq!(
            (error.code, error.retryable),
            (ErrorCode::FileNotFound, false)
        );
        let error = ToolError::from(TrackerError::Invalid("no".into()));
        assert_eq!(
            error.to_json(),
            serde_json::json!({"error": {"code": "VALIDATION_ERROR", "message": "no", "retryable": false}})
        );
    }
}
