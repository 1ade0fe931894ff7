//! One guarded, atomic, byte-preserving change of a tracker note's
//! `status`.

use std::io;
use std::time::Duration;

use super::error::TrackerError;
use super::guardrails::check_resume_written;
use super::status::{TrackerStatus, transition_allowed};
use quire_fs::{Deadline, FsError, Located, OpenFile, Workspace};
use quire_grammar::diagnostics::one_line;
use quire_grammar::frontmatter::{self, EditError};

/// A status change to make (or, in a dry run, to check).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatusUpdate {
    /// The tracker note's path, relative to the workspace root.
    pub tracker_path: String,
    /// The status to set: exactly one of the canonical statuses
    /// ([`TrackerStatus::as_str`]), case-sensitive.
    pub target_status: String,
    /// Run every check and report the predicted action without writing.
    pub dry_run: bool,
    /// Make a transition the policy does not allow (with a warning); the
    /// resume checks still apply.
    pub force: bool,
}

/// What happened (or, in a dry run, would happen).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// The status was changed.
    Updated,
    /// The tracker already had the target status; nothing was written.
    Noop,
    /// The policy or a guardrail refused the change; the report's `error`
    /// says why.
    Blocked,
    /// A dry run found the change allowed; nothing was written.
    WouldUpdate,
}

/// What a status change did. A blocked change is a normal outcome with
/// `success: false`, not an error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StatusUpdateReport {
    /// The tracker path exactly as the request gave it.
    pub tracker_path: String,
    /// The status the tracker had, as written (possibly not a canonical status).
    pub previous_status: String,
    /// The status asked for, in its canonical spelling.
    pub target_status: String,
    /// What happened.
    pub action: Action,
    /// `false` only when the change was blocked.
    pub success: bool,
    /// Whether this was a dry run, which writes nothing.
    pub dry_run: bool,
    /// Present when the `Resume Written` guardrails were evaluated.
    pub guardrail_check_passed: Option<bool>,
    /// What the caller should know that did not stop the change: a forced
    /// transition, a status that was not canonical, a value rewritten onto one line.
    pub warnings: Vec<String>,
    /// Why the change was blocked.
    pub error: Option<String>,
}

/// Called with the tracker's path (as messages show it) and its new bytes
/// right before they replace the old ones; an error abandons the write. A
/// test seam for failures at the last moment.
pub type WriteHook = fn(&str, &[u8]) -> io::Result<()>;

/// The largest tracker note read, in bytes (larger ones are refused).
pub(crate) const MAX_NOTE_BYTES: u64 = 4 * 1024 * 1024;

/// How long a call waits for another writer of the same tracker.
pub(crate) const LOCK_TIMEOUT: Duration = Duration::from_secs(10);

/// How many times a change is recomputed when the file changes under it.
pub(super) const ATTEMPTS: usize = 5;

/// Status changes of the trackers beneath one workspace. Changes of one
/// tracker are serialized across threads and processes by a lock on the file
/// itself; changes of different trackers run in parallel.
pub struct TrackerTools {
    workspace: Workspace,
    write_hook: Option<WriteHook>,
    lock_timeout: Duration,
}

/// Why one attempt at a change did not finish.
enum Interrupted {
    /// Another writer replaced the file while this call waited for its lock.
    Replaced,
    /// The file changed between reading and writing it.
    Retry,
    Failed(TrackerError),
}

impl From<TrackerError> for Interrupted {
    fn from(error: TrackerError) -> Self {
        Interrupted::Failed(error)
    }
}

impl From<FsError> for Interrupted {
    fn from(error: FsError) -> Self {
        match error {
            FsError::Changed { .. } => Interrupted::Retry,
            error => Interrupted::Failed(error.into()),
        }
    }
}

impl TrackerTools {
    /// Tools over the trackers beneath `workspace`, with the default lock
    /// timeout and no write hook.
    pub fn new(workspace: Workspace) -> Self {
        TrackerTools {
            workspace,
            write_hook: None,
            lock_timeout: LOCK_TIMEOUT,
        }
    }

    /// Runs `hook` right before every write (to test what a failed write
    /// leaves behind).
    pub fn with_write_hook(mut self, hook: WriteHook) -> Self {
        self.write_hook = Some(hook);
        self
    }

    /// Waits at most `timeout` for another writer of the same tracker
    /// (by default ten seconds).
    pub fn with_lock_timeout(mut self, timeout: Duration) -> Self {
        self.lock_timeout = timeout;
        self
    }

    /// The workspace the tools read and write beneath.
    pub fn workspace(&self) -> &Workspace {
        &self.workspace
    }

    /// Changes the tracker's `status` if the transition policy and the
    /// guardrails allow it. Only the status value's bytes change.
    pub fn update_status(
        &self,
        request: &StatusUpdate,
    ) -> Result<StatusUpdateReport, TrackerError> {
        let target = parse_target_status(&request.target_status)?;
        // One deadline for the whole call, however often it starts again.
        let deadline = Deadline::after(self.lock_timeout);
        let mut foreign_changes = 0;
        loop {
            match self.attempt(request, target, deadline) {
                Ok(response) => return Ok(response),
                Err(Interrupted::Failed(error)) => return Err(error),
                // Another quire call replaced the tracker while this one
                // waited for it: read the new version (bounded by the
                // deadline, which the lock wait enforces).
                Err(Interrupted::Replaced) => {}
                // Something that does not take the lock changed the file
                // between reading and writing it.
                Err(Interrupted::Retry) => {
                    foreign_changes += 1;
                    if foreign_changes == ATTEMPTS {
                        return Err(TrackerError::KeptChanging {
                            path: self.shown(&request.tracker_path),
                        });
                    }
                }
            }
        }
    }

    /// The tracker path as messages name it: as given (an absolute one
    /// relative to the root, or by its file name when outside), with control
    /// characters escaped.
    fn shown(&self, tracker_path: &str) -> String {
        one_line(&self.workspace.shown(tracker_path)).into_owned()
    }

    /// One read-check-write of the tracker, holding its lock throughout.
    fn attempt(
        &self,
        request: &StatusUpdate,
        target: TrackerStatus,
        deadline: Deadline,
    ) -> Result<StatusUpdateReport, Interrupted> {
        let shown = self.shown(&request.tracker_path);
        let tracker = self.read_locked(&request.tracker_path, &shown, deadline)?;
        let document = frontmatter::parse(&tracker.text).map_err(|error| {
            TrackerError::Invalid(format!("`{shown}` has malformed frontmatter: {error}"))
        })?;
        let fields = document.frontmatter.as_ref().ok_or_else(|| {
            TrackerError::Invalid(format!(
                "`{shown}` has no YAML frontmatter; a tracker starts with a `---` block holding `status: ...`"
            ))
        })?;
        let previous = string_field(fields, "status", &shown)?;
        let mut response = StatusUpdateReport {
            // The design echoes the path as given (JSON escapes what needs it).
            tracker_path: request.tracker_path.clone(),
            previous_status: previous.clone(),
            target_status: target.as_str().to_owned(),
            action: Action::Noop,
            success: true,
            dry_run: request.dry_run,
            guardrail_check_passed: None,
            warnings: Vec::new(),
            error: None,
        };
        if previous == target.as_str() {
            return Ok(response);
        }
        if let Some(reason) = self.refusal(request, target, fields, &shown, &mut response)? {
            return Ok(blocked(response, reason));
        }
        self.write(request, target, &tracker, fields, &shown, response)
    }

    /// The tracker at `tracker_path`, locked and read. One replaced while
    /// this call waited for the lock is read again.
    fn read_locked(
        &self,
        tracker_path: &str,
        shown: &str,
        deadline: Deadline,
    ) -> Result<LockedTracker, Interrupted> {
        let located = self.workspace.locate_shown(tracker_path, shown)?;
        let file = located.open()?;
        file.lock(deadline)?;
        if !located.is_current(&file)? {
            return Err(Interrupted::Replaced);
        }
        let text = file.read_to_string(MAX_NOTE_BYTES)?;
        Ok(LockedTracker {
            located,
            file,
            text,
        })
    }

    /// Why the transition policy or the resume guardrails block the change
    /// from `response.previous_status` to `target`, if they do; what the
    /// caller should know besides goes into `response`'s warnings.
    fn refusal(
        &self,
        request: &StatusUpdate,
        target: TrackerStatus,
        fields: &frontmatter::Frontmatter,
        shown: &str,
        response: &mut StatusUpdateReport,
    ) -> Result<Option<String>, TrackerError> {
        let previous = &response.previous_status;
        // The status as messages show it (a status read from a block scalar
        // may end in a line break).
        let current = one_line(previous).into_owned();
        if TrackerStatus::from_exact(previous).is_none() {
            response.warnings.push(format!(
                "the current status `{current}` is not a canonical status ({})",
                TrackerStatus::vocabulary()
            ));
        }
        if !transition_allowed(previous, target) {
            if !request.force {
                return Ok(Some(format!(
                    "transition `{current}` -> `{target}` is not allowed: the policy {POLICY}; pass force=true to override"
                )));
            }
            response.warnings.push(format!(
                "The transition `{current}` -> `{target}` was made with force=true although the policy does not allow it (the policy {POLICY})."
            ));
        }
        if target == TrackerStatus::ResumeWritten {
            let resume_path = resume_path_field(fields, shown)?;
            let report = check_resume_written(&self.workspace, &resume_path)?;
            response.guardrail_check_passed = Some(report.passed());
            if !report.passed() {
                let mut reason = report.failures.join("; ");
                if request.force {
                    reason.push_str(
                        "; force=true overrides only the transition policy, never these resume checks",
                    );
                }
                return Ok(Some(reason));
            }
        }
        Ok(None)
    }

    /// Rewrites the status value in place and replaces the file (in a dry
    /// run, checks that it could be).
    fn write(
        &self,
        request: &StatusUpdate,
        target: TrackerStatus,
        tracker: &LockedTracker,
        fields: &frontmatter::Frontmatter,
        shown: &str,
        mut response: StatusUpdateReport,
    ) -> Result<StatusUpdateReport, Interrupted> {
        // A status written as a block scalar, with a tag, or over several
        // lines is readable, so it is rewritten in place as a one-line
        // scalar, as the original tool did; one that cannot be (an anchor
        // other values may use) is a write precondition: blocked.
        let updated = match frontmatter::replace_scalar(&tracker.text, "status", target.as_str()) {
            Ok(updated) => updated,
            Err(EditError::NotReplaceable { reason, .. }) => {
                let current = one_line(&response.previous_status).into_owned();
                return Ok(blocked(
                    response,
                    format!(
                        "the status of `{shown}` cannot be rewritten in place: {reason}; write it on one line as `status: {current}` and try again"
                    ),
                ));
            }
            Err(error) => {
                return Err(TrackerError::Invalid(format!(
                    "the status of `{shown}` cannot be rewritten in place: {error}"
                ))
                .into());
            }
        };
        if let Some(entry) = fields.entry("status")
            && !entry.layout.is_single_line_scalar()
        {
            response.warnings.push(format!(
                "`status` was written as {}; it {} `status: {}` on one line, with its comments kept",
                entry.layout,
                if request.dry_run { "would be written" } else { "is now written" },
                target.as_str()
            ));
        }
        let LockedTracker { located, file, .. } = tracker;
        if request.dry_run {
            // The write checks these first (below); a dry run predicts it.
            if let Err(error) = located.check_replaceable(file) {
                return refused_write(response, error);
            }
            response.action = Action::WouldUpdate;
            return Ok(response);
        }
        let hook = self.write_hook;
        let written = located.replace_checked(file, updated.as_bytes(), || match hook {
            Some(hook) => hook(shown, updated.as_bytes()),
            None => Ok(()),
        });
        match written {
            Ok(()) => {
                response.action = Action::Updated;
                Ok(response)
            }
            Err(error) if error.is_write_precondition() => refused_write(response, error),
            Err(FsError::Changed { .. }) => Err(Interrupted::Retry),
            Err(error) => Err(TrackerError::WriteFailed {
                path: shown.to_owned(),
                retryable: error.retryable(),
                reason: match error {
                    FsError::Io { reason, .. } => reason,
                    other => other.to_string(),
                },
            }
            .into()),
        }
    }
}

/// A tracker as one attempt holds it: located, open and locked, and read.
struct LockedTracker {
    located: Located,
    file: OpenFile,
    text: String,
}

/// The transition policy, as messages state it.
const POLICY: &str =
    "allows Reviewed -> Resume Written -> Applied, and Rejected or Ghosted from any status";

/// A write precondition that failed (read-only, hard links, ...) is a
/// refused change, reported like a blocked transition.
fn refused_write(
    response: StatusUpdateReport,
    error: FsError,
) -> Result<StatusUpdateReport, Interrupted> {
    Ok(blocked(response, error.to_string()))
}

fn blocked(mut response: StatusUpdateReport, reason: String) -> StatusUpdateReport {
    response.action = Action::Blocked;
    response.success = false;
    response.error = Some(reason);
    response
}

fn parse_target_status(target: &str) -> Result<TrackerStatus, TrackerError> {
    if target.trim() != target {
        return Err(TrackerError::Invalid(format!(
            "target_status {target:?} has leading or trailing whitespace; use exactly one of {}",
            TrackerStatus::vocabulary()
        )));
    }
    TrackerStatus::from_exact(target).ok_or_else(|| {
        TrackerError::Invalid(format!(
            "target_status {target:?} is not a tracker status; use exactly one of {} (case-sensitive)",
            TrackerStatus::vocabulary()
        ))
    })
}

fn string_field(
    fields: &frontmatter::Frontmatter,
    key: &str,
    shown: &str,
) -> Result<String, TrackerError> {
    match fields.get(key) {
        Some(serde_json::Value::String(value)) => Ok(value.clone()),
        Some(other) => Err(TrackerError::Invalid(format!(
            "`{key}` in `{shown}` must be a text value, found {}",
            yaml_kind(other)
        ))),
        None => Err(TrackerError::Invalid(format!(
            "`{shown}` has no `{key}` in its frontmatter"
        ))),
    }
}

/// `resume_path` as text. An unquoted wiki-link (`resume_path: [[a/b.pdf]]`)
/// is YAML for a list in a list; it is read as the link it was meant to be.
fn resume_path_field(
    fields: &frontmatter::Frontmatter,
    shown: &str,
) -> Result<String, TrackerError> {
    use serde_json::Value;
    match fields.get("resume_path") {
        Some(Value::String(path)) => Ok(path.clone()),
        Some(Value::Array(outer)) => match outer.as_slice() {
            [Value::Array(inner)] => match inner.as_slice() {
                [Value::String(path)] => Ok(format!("[[{path}]]")),
                _ => Err(not_a_link(shown)),
            },
            _ => Err(not_a_link(shown)),
        },
        Some(_) => Err(not_a_link(shown)),
        None => Err(TrackerError::Invalid(format!(
            "`{shown}` needs a `resume_path` (a path or `[[wiki-link]]` to the resume PDF) before it can be marked `Resume Written`"
        ))),
    }
}

fn not_a_link(shown: &str) -> TrackerError {
    TrackerError::Invalid(format!(
        "`resume_path` in `{shown}` is not a path or a wiki-link; write it as `resume_path: \"[[folder/resume/resume.pdf]]\"`"
    ))
}

/// The YAML kind of a frontmatter value, in words. (The frontmatter model
/// holds YAML values as `serde_json::Value`; nothing here reads JSON.)
fn yaml_kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "an empty value",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "text",
        serde_json::Value::Array(_) => "a list",
        serde_json::Value::Object(_) => "a mapping",
    }
}
