//! The `tracker` toolset's router.

use super::schema;
use rmcp::handler::server::tool::ToolName;
use rmcp::model::JsonObject;
use rmcp::{tool, tool_router};

use super::result::{ToolFuture, run_tool};
use super::server::QuireServer;
use super::tracker_types::{UpdateTrackerStatusRequest, UpdateTrackerStatusResponse};
use quire_tracker::TrackerTools;

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
        input_schema = schema::input::<UpdateTrackerStatusRequest>(),
        output_schema = schema::output::<UpdateTrackerStatusResponse>(),
        annotations(
            title = "Update tracker status",
            read_only_hint = false,
            destructive_hint = false,
            idempotent_hint = true,
            open_world_hint = false
        )
    )]
    fn update_tracker_status(&self, tool: ToolName, args: JsonObject) -> ToolFuture<'_> {
        run_tool(
            &self.tracker,
            tool,
            args,
            |tracker: &TrackerTools, request: &UpdateTrackerStatusRequest| {
                tracker
                    .update_status(&request.into())
                    .map(UpdateTrackerStatusResponse::from)
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use quire_tracker::{PLACEHOLDER_TOKENS, TrackerStatus, transition_allowed};

    fn description() -> String {
        super::super::server::QuireServer::tracker_router()
            .list_all()
            .into_iter()
            .find(|tool| tool.name == "update_tracker_status")
            .and_then(|tool| tool.description)
            .expect("update_tracker_status has a description")
            .into_owned()
    }

    /// The text of `description` between `start` and `end`.
    fn between<'t>(description: &'t str, start: &str, end: &str) -> &'t str {
        let from = description.find(start).expect(start) + start.len();
        let length = description[from..].find(end).expect(end);
        &description[from..from + length]
    }

    /// The description states the transition policy in words, in the order
    /// clients have read since the first release; this holds it to the
    /// tracker's policy: each step it names is allowed, every step between
    /// two statuses that are not outcomes is one it names, and the
    /// statuses it allows from anywhere are the tracker's outcomes.
    #[test]
    fn the_description_states_the_trackers_transition_policy() {
        let description = description();
        let policy = between(&description, "transition policy: ", ";");
        let (chain, anywhere) = policy
            .split_once(", and ")
            .expect("the forward steps, and the outcomes");
        let chain: Vec<TrackerStatus> = chain
            .split(" -> ")
            .map(|name| TrackerStatus::from_exact(name).expect(name))
            .collect();
        for from in TrackerStatus::ALL {
            for to in TrackerStatus::ALL
                .into_iter()
                .filter(|to| !to.is_terminal())
            {
                let stated = chain.windows(2).any(|step| step == [from, to]);
                assert_eq!(
                    transition_allowed(from.as_str(), to),
                    stated,
                    "{from} -> {to}: {policy}"
                );
            }
        }
        let outcomes: Vec<TrackerStatus> = anywhere
            .strip_suffix(" from any status")
            .expect(anywhere)
            .split(" or ")
            .map(|name| TrackerStatus::from_exact(name).expect(name))
            .collect();
        let terminal: Vec<TrackerStatus> = TrackerStatus::ALL
            .into_iter()
            .filter(|status| status.is_terminal())
            .collect();
        assert_eq!(outcomes, terminal, "{policy}");
    }

    /// The placeholders the description names are the guardrails' tokens.
    #[test]
    fn the_description_names_exactly_the_placeholder_tokens() {
        let description = description();
        let named = between(&description, "and no ", " placeholders");
        let (listed, general) = named
            .split_once(" or other ")
            .expect("the tokens, then the general one");
        let mut named: Vec<&str> = listed.split('/').chain([general]).collect();
        let mut tokens = PLACEHOLDER_TOKENS.to_vec();
        named.sort_unstable();
        tokens.sort_unstable();
        assert_eq!(named, tokens, "{description}");
    }
}
