//! `update_tracker_status`: one guarded, atomic, byte-preserving change of a
//! tracker note's `status`.

use std::fs;
use std::io;
use std::path::Path;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::guardrails::check_resume_written;
use super::status::{TrackerStatus, transition_allowed};
use crate::frontmatter;
use crate::tool_error::ToolError;
use crate::workspace::{Workspace, describe};

/// The tool's parameters (unknown properties are rejected).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct UpdateTrackerStatusRequest {
    /// Path to tracker markdown file, relative to the workspace root.
    pub tracker_path: String,
    /// The status to set: exactly one of the canonical statuses.
    #[cfg_attr(feature = "mcp", schemars(schema_with = "status_schema"))]
    pub target_status: String,
    /// Run every check and report the predicted action without writing.
    #[serde(default)]
    pub dry_run: bool,
    /// Allow transition-policy bypass with warning.
    #[serde(default)]
    pub force: bool,
}

#[cfg(feature = "mcp")]
fn status_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names: Vec<&str> = TrackerStatus::ALL
        .iter()
        .map(|status| status.as_str())
        .collect();
    schemars::json_schema!({
        "type": "string",
        "enum": names,
        "description": "The status to set: exactly one of the canonical statuses (case-sensitive)."
    })
}

/// What happened (or, in a dry run, would happen).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Updated,
    Noop,
    Blocked,
    WouldUpdate,
}

/// The tool's result. A blocked change is a normal result with
/// `success: false`, not an error.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
pub struct UpdateTrackerStatusResponse {
    /// The tracker, relative to the workspace root.
    pub tracker_path: String,
    pub previous_status: String,
    pub target_status: String,
    pub action: Action,
    pub success: bool,
    pub dry_run: bool,
    /// Present when the `Resume Written` guardrails were evaluated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guardrail_check_passed: Option<bool>,
    pub warnings: Vec<String>,
    /// Why the change was blocked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Replaces a file's contents; [`crate::atomic_file::replace`] unless a test
/// injects a failure.
pub type FileWriter = fn(&Path, &[u8]) -> io::Result<()>;

/// The tracker toolset over one workspace. Status changes of the same
/// workspace are serialized so that concurrent calls never lose an update.
pub struct TrackerTools {
    workspace: Workspace,
    writes: Mutex<()>,
    write_file: FileWriter,
}

impl TrackerTools {
    pub fn new(workspace: Workspace) -> Self {
        TrackerTools::with_writer(workspace, crate::atomic_file::replace)
    }

    /// Writes through `write_file` instead of the atomic writer (to test
    /// what a failed write leaves behind).
    pub fn with_writer(workspace: Workspace, write_file: FileWriter) -> Self {
        TrackerTools {
            workspace,
            writes: Mutex::new(()),
            write_file,
        }
    }

    pub fn workspace(&self) -> &Workspace {
        &self.workspace
    }

    /// Parses tool arguments (a JSON object) and runs the update.
    pub fn update_tracker_status_json(
        &self,
        arguments: serde_json::Value,
    ) -> Result<UpdateTrackerStatusResponse, ToolError> {
        if !arguments.is_object() {
            return Err(ToolError::validation(
                "the arguments of update_tracker_status must be a JSON object with tracker_path and target_status",
            ));
        }
        let request: UpdateTrackerStatusRequest =
            serde_json::from_value(arguments).map_err(|error| {
                ToolError::validation(format!(
                    "invalid arguments for update_tracker_status: {error}"
                ))
            })?;
        self.update_tracker_status(&request)
    }

    /// Changes the tracker's `status` if the transition policy and the
    /// guardrails allow it. Only the status value's bytes change.
    pub fn update_tracker_status(
        &self,
        request: &UpdateTrackerStatusRequest,
    ) -> Result<UpdateTrackerStatusResponse, ToolError> {
        let target = parse_target_status(&request.target_status)?;
        let path = self.workspace.resolve(&request.tracker_path)?;
        let shown = self.workspace.display(&path);
        if !path.is_file() {
            return Err(ToolError::validation(format!(
                "`{shown}` is not a file; give the path of a tracker note"
            )));
        }
        // Hold the lock from reading to writing: read-modify-write is one step.
        let _guard = self
            .writes
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let text = read_tracker(&path, &shown)?;
        let document = frontmatter::parse(&text).map_err(|error| {
            ToolError::validation(format!("`{shown}` has malformed frontmatter: {error}"))
        })?;
        let fields = document.frontmatter.as_ref().ok_or_else(|| {
            ToolError::validation(format!(
                "`{shown}` has no YAML frontmatter; a tracker starts with a `---` block holding `status: ...`"
            ))
        })?;
        let previous = string_field(fields, "status", &shown)?;

        let mut response = UpdateTrackerStatusResponse {
            tracker_path: shown.clone(),
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
        if TrackerStatus::from_exact(&previous).is_none() {
            response.warnings.push(format!(
                "the current status `{previous}` is not a canonical status ({})",
                TrackerStatus::vocabulary()
            ));
        }
        if !transition_allowed(&previous, target) {
            let rule = "the policy allows Reviewed -> Resume Written -> Applied, and Rejected or Ghosted from any status";
            if !request.force {
                return Ok(blocked(
                    response,
                    format!(
                        "transition `{previous}` -> `{target}` is not allowed: {rule}; pass force=true to override"
                    ),
                ));
            }
            response.warnings.push(format!(
                "forced transition `{previous}` -> `{target}`, which {rule}"
            ));
        }
        if target == TrackerStatus::ResumeWritten {
            let resume_path = resume_path_field(fields, &shown)?;
            let report = check_resume_written(&self.workspace, &resume_path)?;
            response.guardrail_check_passed = Some(report.passed());
            if !report.passed() {
                return Ok(blocked(response, report.failures.join("; ")));
            }
        }

        let updated =
            frontmatter::set_scalar(&text, "status", target.as_str()).map_err(|error| {
                ToolError::validation(format!(
                    "the status of `{shown}` cannot be rewritten in place: {error}"
                ))
            })?;
        if request.dry_run {
            response.action = Action::WouldUpdate;
            return Ok(response);
        }
        (self.write_file)(&path, updated.as_bytes()).map_err(|error| {
            ToolError::internal(format!(
                "could not write `{shown}` ({}); the file is unchanged",
                describe(&error)
            ))
        })?;
        response.action = Action::Updated;
        Ok(response)
    }
}

fn blocked(
    mut response: UpdateTrackerStatusResponse,
    reason: String,
) -> UpdateTrackerStatusResponse {
    response.action = Action::Blocked;
    response.success = false;
    response.error = Some(reason);
    response
}

fn parse_target_status(target: &str) -> Result<TrackerStatus, ToolError> {
    if target.trim() != target {
        return Err(ToolError::validation(format!(
            "target_status {target:?} has leading or trailing whitespace; use exactly one of {}",
            TrackerStatus::vocabulary()
        )));
    }
    TrackerStatus::from_exact(target).ok_or_else(|| {
        ToolError::validation(format!(
            "target_status {target:?} is not a tracker status; use exactly one of {} (case-sensitive)",
            TrackerStatus::vocabulary()
        ))
    })
}

fn read_tracker(path: &Path, shown: &str) -> Result<String, ToolError> {
    let bytes = fs::read(path).map_err(|error| match error.kind() {
        io::ErrorKind::NotFound => {
            ToolError::not_found(format!("`{shown}` does not exist in the workspace"))
        }
        _ => ToolError::validation(format!("`{shown}` cannot be read: {}", describe(&error))),
    })?;
    String::from_utf8(bytes)
        .map_err(|_| ToolError::validation(format!("`{shown}` is not UTF-8 text")))
}

fn string_field(
    fields: &frontmatter::Frontmatter,
    key: &str,
    shown: &str,
) -> Result<String, ToolError> {
    match fields.get(key) {
        Some(serde_json::Value::String(value)) => Ok(value.clone()),
        Some(other) => Err(ToolError::validation(format!(
            "`{key}` in `{shown}` must be a text value, found {}",
            json_kind(other)
        ))),
        None => Err(ToolError::validation(format!(
            "`{shown}` has no `{key}` in its frontmatter"
        ))),
    }
}

/// `resume_path` as text. An unquoted wiki-link (`resume_path: [[a/b.pdf]]`)
/// is YAML for a list in a list; it is read as the link it was meant to be.
fn resume_path_field(fields: &frontmatter::Frontmatter, shown: &str) -> Result<String, ToolError> {
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
        None => Err(ToolError::validation(format!(
            "`{shown}` needs a `resume_path` (a path or `[[wiki-link]]` to the resume PDF) before it can be marked `Resume Written`"
        ))),
    }
}

fn not_a_link(shown: &str) -> ToolError {
    ToolError::validation(format!(
        "`resume_path` in `{shown}` is not a path or a wiki-link; write it as `resume_path: \"[[folder/resume/resume.pdf]]\"`"
    ))
}

fn json_kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "an empty value",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "text",
        serde_json::Value::Array(_) => "a list",
        serde_json::Value::Object(_) => "a mapping",
    }
}
