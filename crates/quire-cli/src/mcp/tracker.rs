//! The `tracker` toolset's router.

use rmcp::handler::server::common::{schema_for_output, schema_for_type};
use rmcp::handler::server::tool::ToolName;
use rmcp::model::JsonObject;
use rmcp::{tool, tool_router};

use super::result::{ToolFuture, run_tool};
use super::server::QuireServer;
use quire_tracker::{TrackerTools, UpdateTrackerStatusRequest, UpdateTrackerStatusResponse};

#[tool_router(router = tracker_router, vis = "pub(super)")]
impl QuireServer {
    /// Set the `status` in a job-application tracker note's frontmatter.
    #[tool(
        name = "update_tracker_status",
        description = "Update the `status` field of a tracker note (markdown with YAML frontmatter) under the transition policy: \
                       Reviewed -> Resume Written -> Applied, and Rejected or Ghosted from any status; other moves are blocked \
                       unless force=true. `Resume Written` also requires the resume linked by `resume_path` (resume.pdf, non-empty, \
                       with resume.tex beside it and no PROJECT-AI-/PROJECT-BE-/WORK-BULLET-POINT- or other BULLET-POINT placeholders). \
                       Only the status value's bytes change (one written as a block scalar, with a tag or over several lines becomes \
                       `status: <new>` on its key's line, comments kept); the write is atomic. dry_run=true reports the predicted action \
                       (would_update) without writing. A blocked change is a normal result with success=false and an `error` reason; \
                       tracker_path is echoed as given.",
        input_schema = schema_for_type::<UpdateTrackerStatusRequest>(),
        output_schema = schema_for_output::<UpdateTrackerStatusResponse>(),
        annotations(
            title = "Update tracker status",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn update_tracker_status(&self, tool: ToolName, args: JsonObject) -> ToolFuture<'_> {
        run_tool(&self.tracker, tool, args, TrackerTools::update_status)
    }
}
