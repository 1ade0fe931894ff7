//! `update_tracker_status`'s arguments and result as clients see them: the
//! JSON they decode from and encode to, and the JSON Schemas `tools/list`
//! publishes (the doc comments here are the schemas' descriptions). Each
//! converts to or from the tracker's typed API.

use quire_tracker::{StatusUpdate, StatusUpdateReport, TrackerStatus};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The tool's parameters (unknown properties are rejected).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct UpdateTrackerStatusRequest {
    /// Path to tracker markdown file, relative to the workspace root.
    pub tracker_path: String,
    /// The status to set: exactly one of the canonical statuses.
    #[schemars(schema_with = "status_schema")]
    pub target_status: String,
    /// Run every check and report the predicted action without writing.
    #[serde(default)]
    pub dry_run: bool,
    /// Allow transition-policy bypass with warning.
    #[serde(default)]
    pub force: bool,
}

/// `target_status`: one of the tracker's canonical statuses.
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

impl From<&UpdateTrackerStatusRequest> for StatusUpdate {
    fn from(request: &UpdateTrackerStatusRequest) -> Self {
        StatusUpdate {
            tracker_path: request.tracker_path.clone(),
            target_status: request.target_status.clone(),
            dry_run: request.dry_run,
            force: request.force,
        }
    }
}

/// Documented variants make schemars describe an enum as a `oneOf` of
/// constants; the tool's output schema keeps its plain `enum` of names, which
/// every MCP client reads.
fn plain_string_enum(schema: &mut schemars::Schema) {
    let Some(variants) = schema.remove("oneOf") else {
        return;
    };
    let names: Vec<serde_json::Value> = variants
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|variant| variant.get("const").cloned())
        .collect();
    schema.insert("type".into(), "string".into());
    schema.insert("enum".into(), names.into());
}

/// What happened (or, in a dry run, would happen).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[schemars(transform = plain_string_enum)]
#[serde(rename_all = "snake_case")]
pub(super) enum Action {
    /// The status was changed.
    Updated,
    /// The tracker already had the target status; nothing was written.
    Noop,
    /// The policy or a guardrail refused the change; `error` says why.
    Blocked,
    /// A dry run found the change allowed; nothing was written.
    WouldUpdate,
}

impl From<quire_tracker::Action> for Action {
    fn from(action: quire_tracker::Action) -> Self {
        use quire_tracker::Action as Domain;
        match action {
            Domain::Updated => Action::Updated,
            Domain::Noop => Action::Noop,
            Domain::Blocked => Action::Blocked,
            Domain::WouldUpdate => Action::WouldUpdate,
        }
    }
}

/// The tool's result. A blocked change is a normal result with
/// `success: false`, not an error.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub(super) struct UpdateTrackerStatusResponse {
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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub guardrail_check_passed: Option<bool>,
    /// What the caller should know that did not stop the change: a forced
    /// transition, a status that was not canonical, a value rewritten onto one line.
    pub warnings: Vec<String>,
    /// Why the change was blocked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl From<StatusUpdateReport> for UpdateTrackerStatusResponse {
    fn from(report: StatusUpdateReport) -> Self {
        UpdateTrackerStatusResponse {
            tracker_path: report.tracker_path,
            previous_status: report.previous_status,
            target_status: report.target_status,
            action: report.action.into(),
            success: report.success,
            dry_run: report.dry_run,
            guardrail_check_passed: report.guardrail_check_passed,
            warnings: report.warnings,
            error: report.error,
        }
    }
}
