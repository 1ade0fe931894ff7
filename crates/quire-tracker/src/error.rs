//! Why a status change could not be carried out at all. A change the policy
//! or a guardrail blocks is not an error: it is a normal response.

use quire_fs::{FsError, IoKind};

use super::update::ATTEMPTS;

/// Why [`TrackerTools::update_status`](crate::TrackerTools::update_status) failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TrackerError {
    /// The request or the tracker's content cannot be worked with: a status
    /// outside the vocabulary, frontmatter that is missing or malformed, a
    /// `status` or `resume_path` that is not text, a `resume_path` outside
    /// the workspace. The message says which and how to fix it.
    #[error("{0}")]
    Invalid(String),
    /// This process may not read the tracker (or a folder above it).
    #[error(
        "cannot {action} `{path}`: permission denied, so the tracker cannot be read. Give the user this server runs as read permission on the file and search (x) permission on every folder above it"
    )]
    PermissionDenied {
        /// The tracker path as messages show it.
        path: String,
        /// What was being done, as a verb ("open").
        action: &'static str,
    },
    /// The file layer refused the path or failed to use it (nothing there,
    /// not a regular file, outside the workspace, locked by another
    /// writer, ...).
    #[error(transparent)]
    File(FsError),
    /// Something that does not take the tracker's lock kept changing it.
    #[error(
        "`{path}` kept changing while it was being updated ({ATTEMPTS} attempts); nothing was changed. Try again once nothing else writes it"
    )]
    KeptChanging {
        /// The tracker path as messages show it.
        path: String,
    },
    /// Writing the new text failed; the file is unchanged.
    #[error("could not write `{path}` ({reason}); the file is unchanged")]
    WriteFailed {
        /// The tracker path as messages show it.
        path: String,
        /// The failure in words.
        reason: String,
        /// Whether a retry may help (a full disk or a refused permission
        /// will not).
        retryable: bool,
    },
}

/// The class of a [`TrackerError`], which a caller can act on without
/// reading the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TrackerErrorKind {
    /// The request must change (or the tracker's content must be fixed).
    Invalid,
    /// The tracker cannot be found, is not a regular file, or cannot be
    /// read by this process (the design's "tracker path unreadable").
    NotFound,
    /// Something failed that the caller could not have prevented.
    Failed,
}

impl TrackerError {
    /// The class of failure.
    pub fn kind(&self) -> TrackerErrorKind {
        match self {
            TrackerError::Invalid(_) => TrackerErrorKind::Invalid,
            TrackerError::PermissionDenied { .. } => TrackerErrorKind::NotFound,
            TrackerError::File(FsError::NotFound { .. } | FsError::NotAFile { .. }) => {
                TrackerErrorKind::NotFound
            }
            TrackerError::File(
                FsError::Busy { .. } | FsError::Changed { .. } | FsError::Io { .. },
            )
            | TrackerError::KeptChanging { .. }
            | TrackerError::WriteFailed { .. } => TrackerErrorKind::Failed,
            TrackerError::File(_) => TrackerErrorKind::Invalid,
        }
    }

    /// Whether the same call may succeed if made again unchanged.
    pub fn retryable(&self) -> bool {
        match self {
            TrackerError::KeptChanging { .. } => true,
            TrackerError::WriteFailed { retryable, .. } => *retryable,
            TrackerError::File(error) => error.retryable(),
            TrackerError::Invalid(_) | TrackerError::PermissionDenied { .. } => false,
        }
    }
}

/// A failure to find, open or read the tracker: one this process may not
/// read is named as such, with the fix.
impl From<FsError> for TrackerError {
    fn from(error: FsError) -> Self {
        match error {
            FsError::Io {
                path,
                action,
                kind: IoKind::PermissionDenied,
                ..
            } => TrackerError::PermissionDenied { path, action },
            error => TrackerError::File(error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quire_fs::FileKind;
    use std::io;

    #[test]
    fn an_unreadable_tracker_is_not_found_and_says_what_to_do() {
        let denied = FsError::io(
            "t/a.md",
            "open",
            &io::Error::from(io::ErrorKind::PermissionDenied),
        );
        let error = TrackerError::from(denied);
        assert_eq!(
            (error.kind(), error.retryable()),
            (TrackerErrorKind::NotFound, false)
        );
        assert_eq!(
            error.to_string(),
            "cannot open `t/a.md`: permission denied, so the tracker cannot be read. Give the user this server runs as read permission on the file and search (x) permission on every folder above it"
        );
        for kind in [FileKind::Folder, FileKind::Fifo, FileKind::Socket] {
            let error = TrackerError::from(FsError::NotAFile {
                path: "t".into(),
                kind,
            });
            assert_eq!(error.kind(), TrackerErrorKind::NotFound, "{kind:?}");
            assert!(error.to_string().contains("not a regular file"), "{error}");
        }
        // What the request got wrong, or the content, stays invalid; a
        // failing disk is a failure (and retryable).
        for (error, kind, retryable) in [
            (
                FsError::Outside {
                    path: "../x".into(),
                    how: "",
                },
                TrackerErrorKind::Invalid,
                false,
            ),
            (
                FsError::NotUtf8 {
                    path: "t".into(),
                    offset: 3,
                },
                TrackerErrorKind::Invalid,
                false,
            ),
            (
                FsError::io("t", "read", &io::Error::from_raw_os_error(5)),
                TrackerErrorKind::Failed,
                true,
            ),
        ] {
            let error = TrackerError::from(error);
            assert_eq!(
                (error.kind(), error.retryable()),
                (kind, retryable),
                "{error}"
            );
        }
    }
}
