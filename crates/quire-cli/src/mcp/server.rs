//! The `quire` MCP server: the chosen toolsets' routers behind one handler.

use std::str::FromStr;
use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{
    Implementation, ListResourceTemplatesResult, ListResourcesResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, tool_handler};

use super::approval::{Approvals, WritePolicy};
use super::resources;

use std::path::PathBuf;

use quire_fs::Workspace;
use quire_kiln::{KilnOptions, KilnTools};
use quire_planner::PlannerTools;
use quire_tracker::TrackerTools;

quire_grammar::named_enum! {
    /// A group of tools that can be switched on with `--tools`, by the
    /// name `--tools` takes and tool listings show. Non-exhaustive, since
    /// which toolsets exist depends on the features built (`nova`); `ALL`
    /// holds those this build has.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    #[non_exhaustive]
    pub enum Toolset {
        /// `update_tracker_status`.
        Tracker => "tracker",
        /// The six planning workflow tools.
        Planner => "planner",
        /// The tools over the kiln, the markdown vault beneath the root.
        Kiln => "kiln",
        /// The four tools that report an agent's progress to the Nova Task
        /// Manager (feature `nova`).
        #[cfg(feature = "nova")]
        Nova => "nova",
    }
}

impl Toolset {
    /// The toolsets served when none are named: all but nova, whose tools
    /// work only where a Nova Task Manager runs the agent (it sets
    /// `NOVA_EXECUTION_ID`), and elsewhere would offer four tools that can
    /// only fail.
    pub const DEFAULT: [Toolset; 3] = [Toolset::Tracker, Toolset::Planner, Toolset::Kiln];
}

impl FromStr for Toolset {
    type Err = UnknownToolset;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        let name = name.trim();
        Toolset::from_name(name).ok_or_else(|| UnknownToolset(name.to_owned()))
    }
}

/// A `--toolset` name this build does not have; holds the name as given.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown toolset `{0}`; this build has: {known}{missing}",
    known = Toolset::ALL.map(Toolset::name).join(", "),
    missing = feature_hint(&self.0, cfg!(feature = "nova"))
)]
pub struct UnknownToolset(pub String);

/// What to build for the toolset `name` when this build lacks it (`nova`
/// without the `nova` feature, `nova_built` false); empty otherwise.
fn feature_hint(name: &str, nova_built: bool) -> String {
    if name == "nova" && !nova_built {
        " (`nova` needs quire built with the `nova` feature: `cargo install --path . --features nova`)"
            .to_owned()
    } else {
        String::new()
    }
}

/// The MCP server over one workspace.
#[derive(Clone)]
pub struct QuireServer {
    tool_router: ToolRouter<QuireServer>,
    /// The toolsets served, in the order given.
    toolsets: Vec<Toolset>,
    pub(super) tracker: Arc<TrackerTools>,
    pub(super) planner: Arc<PlannerTools>,
    pub(super) kiln: Arc<KilnTools>,
    /// The Task Manager client of the nova tools, as the environment
    /// chooses it (or why it chooses none).
    #[cfg(feature = "nova")]
    pub(super) nova: Arc<super::nova::NovaTools>,
    /// The write policy and what this session has approved.
    pub(super) approvals: Approvals,
}

impl QuireServer {
    /// A server over `workspace` offering the tools of `toolsets`.
    pub fn new(workspace: Workspace, toolsets: &[Toolset]) -> Self {
        QuireServer::with_kiln_options(workspace, toolsets, KilnOptions::default())
    }

    /// A server over `workspace` offering the tools of `toolsets`, the
    /// kiln's run as `kiln` says.
    pub fn with_kiln_options(
        workspace: Workspace,
        toolsets: &[Toolset],
        kiln: KilnOptions,
    ) -> Self {
        let mut tool_router = ToolRouter::new();
        for toolset in toolsets {
            match toolset {
                Toolset::Tracker => tool_router += Self::tracker_router(),
                Toolset::Planner => tool_router += Self::planner_router(),
                Toolset::Kiln => tool_router += Self::kiln_router(),
                #[cfg(feature = "nova")]
                Toolset::Nova => tool_router += Self::nova_router(),
            }
        }
        let mut served: Vec<Toolset> = Vec::new();
        for toolset in toolsets {
            if !served.contains(toolset) {
                served.push(*toolset);
            }
        }
        let index_at_start = kiln.index_at_start;
        let kiln = KilnTools::with_options(workspace.clone(), kiln);
        if index_at_start && served.contains(&Toolset::Kiln) {
            kiln.start_indexing();
        }
        #[cfg(feature = "nova")]
        let nova = super::nova::NovaTools::from_process_env();
        #[cfg(feature = "nova")]
        if let (true, Some(problem)) = (served.contains(&Toolset::Nova), nova.problem()) {
            tracing::warn!(%problem, "the nova tools will report this until it is fixed");
        }
        QuireServer {
            tool_router,
            toolsets: served,
            planner: Arc::new(PlannerTools::new(workspace.clone(), None)),
            kiln: Arc::new(kiln),
            tracker: Arc::new(TrackerTools::new(workspace)),
            #[cfg(feature = "nova")]
            nova: Arc::new(nova),
            approvals: Approvals::new(WritePolicy::Deny),
        }
    }

    /// Offers the kiln's write tools (`create_note`, `update_note`,
    /// `edit_note`, `move_note`, `delete_note`) as `policy` says, when the kiln toolset is served:
    /// with [`WritePolicy::Ask`] each write asks the user first, with
    /// [`WritePolicy::Allow`] none does, and with [`WritePolicy::Deny`]
    /// (what [`QuireServer::new`] starts with) they are not listed and a
    /// call to one is refused.
    pub fn with_writes(mut self, policy: WritePolicy) -> Self {
        if self.approvals.policy() == WritePolicy::Deny
            && policy != WritePolicy::Deny
            && self.toolsets.contains(&Toolset::Kiln)
        {
            self.tool_router += Self::kiln_write_router();
        }
        if policy == WritePolicy::Deny {
            for tool in Self::kiln_write_router().list_all() {
                self.tool_router.remove_route(&tool.name);
            }
        }
        self.approvals = Approvals::new(policy);
        self
    }

    /// [`QuireServer::with_writes`] with [`WritePolicy::Allow`].
    pub fn allowing_writes(self) -> Self {
        self.with_writes(WritePolicy::Allow)
    }

    /// The server for a new MCP session: the same tools over the same
    /// workspace, with no write approved yet (the HTTP transport makes one
    /// per session).
    pub fn for_new_session(&self) -> Self {
        QuireServer {
            approvals: self.approvals.for_new_session(),
            ..self.clone()
        }
    }

    /// How the kiln's writes are treated.
    pub fn write_policy(&self) -> WritePolicy {
        self.approvals.policy()
    }

    /// Whether `tool` is one of the kiln's write tools.
    pub fn is_write_tool(tool: &str) -> bool {
        Self::kiln_write_router().has_route(tool)
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

    /// The nova tools' Task Manager client as `config` chooses it, instead
    /// of the one the process environment chooses (`USE_MOCK_CLIENT`,
    /// `TASK_MANAGER_HOST`, `TASK_MANAGER_PORT`, `TASK_MANAGER_TIMEOUT`).
    /// A configuration error is answered by each nova tool.
    #[cfg(feature = "nova")]
    pub fn with_nova_config(
        mut self,
        config: Result<quire_nova::ClientConfig, quire_nova::NovaError>,
    ) -> Self {
        self.nova = Arc::new(super::nova::NovaTools::new(config));
        self
    }

    /// The tools this server offers, as `tools/list` reports them.
    pub fn tools(&self) -> Vec<rmcp::model::Tool> {
        self.tool_router.list_all()
    }

    /// Whether the kiln's notes are offered as resources (the kiln toolset
    /// is served).
    fn serves_resources(&self) -> bool {
        self.toolsets.contains(&Toolset::Kiln)
    }

    /// The toolsets this server offers.
    pub fn toolsets(&self) -> &[Toolset] {
        &self.toolsets
    }

    /// The server's instructions to a client: what the served toolsets do
    /// and where to start, about those toolsets only (a client told to call
    /// a tool the server does not offer would fail on its first step).
    pub fn instructions(&self) -> String {
        let mut text = String::from("Every path is relative to the workspace root.");
        for toolset in &self.toolsets {
            text.push(' ');
            text.push_str(match toolset {
                Toolset::Tracker => {
                    "update_tracker_status changes the status of a job-application tracker note (markdown with YAML \
                     frontmatter) under a transition policy and resume guardrails; use dry_run to preview."
                }
                Toolset::Planner => {
                    "The planner tools keep a plan (goal, description, constraints, tasks) in the repository or the \
                     plan file: call gather_requirements first, then follow its guidance through \
                     set_overarching_goal, set_detailed_goal, set_plan, mark_task and finish_job."
                }
                Toolset::Kiln => {
                    "The kiln tools read the markdown notes beneath the root: read_note returns a note's lines \
                     (whole, head, tail or a range) with its sha256; read_metadata its properties, counts, \
                     headings, tags, links and backlinks without its text; list_notes pages through a folder; \
                     text_search finds lines by literal text or a regular expression; property_search finds \
                     notes by their frontmatter values (equal, not, exists, before, after); find_links lists \
                     broken and ambiguous links, orphans and a note's neighbours; semantic_search finds notes by meaning; get_kiln_info \
                     gives totals and the index's state. Each note is also the resource kiln:///<path>."
                }
                #[cfg(feature = "nova")]
                Toolset::Nova => {
                    "The nova tools report progress to the Nova Task Manager: update_execution_session registers this \
                     session at the start, create_step records each piece of work (keep its step_id), update_step \
                     marks it completed, failed or skipped; health_check says whether the Task Manager answers. \
                     execution_id is in the NOVA_EXECUTION_ID environment variable."
                }
            });
        }
        if self.toolsets.contains(&Toolset::Kiln) {
            text.push_str(match self.approvals.policy() {
                WritePolicy::Deny => "",
                WritePolicy::Allow => {
                    " create_note, update_note, edit_note, move_note and delete_note change notes (pass read_note's sha256 as \
                     expected_sha256 so a note changed meanwhile is not overwritten)."
                }
                WritePolicy::Ask => {
                    " create_note, update_note, edit_note, move_note and delete_note change notes, each only once the user approves it. \
                     A result with `pending: true` wrote nothing: show its `change` to the user and, only if they \
                     agree, make the same call again with its `confirmation` token. `declined: true` means the \
                     user said no; nothing was written."
                }
            });
        }
        text
    }
}

impl Toolset {
    /// The toolset a tool of this build belongs to, whether or not it is
    /// served.
    pub fn of_tool(tool: &str) -> Option<Toolset> {
        let router = |toolset| match toolset {
            Toolset::Tracker => QuireServer::tracker_router(),
            Toolset::Planner => QuireServer::planner_router(),
            Toolset::Kiln => QuireServer::kiln_router(),
            #[cfg(feature = "nova")]
            Toolset::Nova => QuireServer::nova_router(),
        };
        Toolset::ALL
            .into_iter()
            .find(|&toolset| router(toolset).has_route(tool))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for QuireServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = if self.serves_resources() {
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build()
        } else {
            ServerCapabilities::builder().enable_tools().build()
        };
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("quire", env!("CARGO_PKG_VERSION")))
            .with_instructions(self.instructions())
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        if !self.serves_resources() {
            return Ok(ListResourcesResult::default());
        }
        resources::list(&self.kiln, request.and_then(|request| request.cursor)).await
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        if !self.serves_resources() {
            return Ok(ListResourceTemplatesResult::default());
        }
        Ok(resources::templates())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if !self.serves_resources() {
            return Err(ErrorData::resource_not_found(
                "this server offers no resources; serve the kiln toolset (--tools kiln) to read notes as resources",
                None,
            ));
        }
        resources::read(&self.kiln, request.uri)
            .await
            .map(Into::into)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tool_belongs_to_one_toolset() {
        assert_eq!(
            Toolset::of_tool("update_tracker_status"),
            Some(Toolset::Tracker)
        );
        assert_eq!(Toolset::of_tool("mark_task"), Some(Toolset::Planner));
        assert_eq!(Toolset::of_tool("read_note"), Some(Toolset::Kiln));
        assert_eq!(Toolset::of_tool("mark"), None);
        #[cfg(feature = "nova")]
        assert_eq!(Toolset::of_tool("create_step"), Some(Toolset::Nova));
    }

    /// The toolset a feature adds is named with the feature, in every
    /// build (the real message is checked in `cli::serve`'s tests).
    #[test]
    fn a_toolset_left_out_of_the_build_names_its_feature() {
        assert!(feature_hint("nova", false).contains("`cargo install --path . --features nova`"));
        assert_eq!(feature_hint("nova", true), "");
        assert_eq!(feature_hint("nope", false), "");
    }

    /// A server serving the kiln starts its index at once, unless told to
    /// wait for a call that needs it (`quire call`); one without the kiln
    /// never starts it.
    #[test]
    fn the_index_starts_with_the_server_only_when_asked_and_served() {
        let folder = tempfile::tempdir().unwrap();
        let started = |toolsets: &[Toolset], index_at_start: bool| {
            let options = KilnOptions {
                watch: false,
                index_at_start,
                ..KilnOptions::default()
            };
            let workspace = Workspace::new(folder.path()).unwrap();
            let server = QuireServer::with_kiln_options(workspace, toolsets, options);
            server.kiln.indexing_started()
        };
        assert!(started(&[Toolset::Kiln], true));
        assert!(!started(&[Toolset::Kiln], false));
        assert!(!started(&[Toolset::Tracker, Toolset::Planner], true));
    }
}
