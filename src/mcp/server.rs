//! The `quire` MCP server: the chosen toolsets' routers behind one handler.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ServerHandler, tool_handler};

use std::path::PathBuf;

use crate::fs::Workspace;
use crate::planner::PlannerTools;
use crate::tracker::TrackerTools;

/// A group of tools that can be switched on with `--tools`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Toolset {
    /// `update_tracker_status`.
    Tracker,
    /// The six planning workflow tools.
    Planner,
}

impl Toolset {
    /// Every toolset this build has.
    pub const ALL: [Toolset; 2] = [Toolset::Tracker, Toolset::Planner];

    pub fn name(self) -> &'static str {
        match self {
            Toolset::Tracker => "tracker",
            Toolset::Planner => "planner",
        }
    }
}

impl fmt::Display for Toolset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Toolset {
    type Err = UnknownToolset;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        let name = name.trim();
        Toolset::ALL
            .into_iter()
            .find(|toolset| toolset.name() == name)
            .ok_or_else(|| UnknownToolset(name.to_owned()))
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown toolset `{0}`; this build has: {known}", known = Toolset::ALL.map(Toolset::name).join(", "))]
pub struct UnknownToolset(pub String);

/// The MCP server over one workspace.
#[derive(Clone)]
pub struct QuireServer {
    tool_router: ToolRouter<QuireServer>,
    pub(super) tracker: Arc<TrackerTools>,
    pub(super) planner: Arc<PlannerTools>,
}

impl QuireServer {
    /// A server over `workspace` offering the tools of `toolsets`.
    pub fn new(workspace: Workspace, toolsets: &[Toolset]) -> Self {
        let mut tool_router = ToolRouter::new();
        for toolset in toolsets {
            match toolset {
                Toolset::Tracker => tool_router += Self::tracker_router(),
                Toolset::Planner => tool_router += Self::planner_router(),
            }
        }
        QuireServer {
            tool_router,
            planner: Arc::new(PlannerTools::new(workspace.clone(), None)),
            tracker: Arc::new(TrackerTools::new(workspace)),
        }
    }

    /// Keeps the plan in `plan_file` (relative to the workspace root unless
    /// absolute) instead of the repository.
    pub fn with_plan_file(mut self, plan_file: Option<PathBuf>) -> Self {
        self.planner = Arc::new(PlannerTools::new(
            self.tracker.workspace().clone(),
            plan_file,
        ));
        self
    }

    /// The tools this server offers, as `tools/list` reports them.
    pub fn tools(&self) -> Vec<rmcp::model::Tool> {
        self.tool_router.list_all()
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for QuireServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("quire", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Tools over a workspace of markdown notes. Every path is relative to the workspace root. \
                 update_tracker_status changes a job-application tracker's status under a transition policy \
                 and resume guardrails; use dry_run to preview. The planner tools keep a plan (goal, description, \
                 constraints, tasks) in the repository: call gather_requirements first.",
            )
    }
}
