//! The arguments of the commands that run the MCP server's tools (`serve`,
//! `call`, `index`; feature `mcp`): how the kiln's tools run, whether its
//! writes are offered, the HTTP transport's limits.

use clap::Args;

use super::embedder::EmbedderArgs;

/// How `serve` runs the kiln's tools.
#[derive(Debug, Args)]
pub(super) struct KilnArgs {
    /// How long a kiln tool call may take (e.g. 10s, 500ms; default 10s): a
    /// call waiting for the index is told to retry, a search returns what it
    /// found so far with `truncated`.
    #[arg(long, value_name = "DURATION", value_parser = super::serve::parse_duration)]
    pub(super) tool_timeout: Option<std::time::Duration>,
    /// Do not watch the kiln for changes; rescan it before a call instead
    /// (at most every 2 s), for file systems where watching does not work.
    #[arg(long)]
    pub(super) no_watch: bool,
    #[command(flatten)]
    pub(super) writes: WritesArg,
    #[command(flatten)]
    pub(super) embedder: EmbedderArgs,
}

/// Whether the kiln's write tools are offered, and how.
#[derive(Debug, Args)]
pub(super) struct WritesArg {
    /// How the kiln's write tools (create_note, update_note, edit_note,
    /// move_note, delete_note) are offered: `ask` (default) asks the user
    /// before every change (through the MCP client, or on this terminal
    /// for `quire call`), `allow` writes without asking (update, edit and
    /// delete are still annotated destructive, so a host can ask), `deny`
    /// leaves them out.
    #[arg(long, value_enum, value_name = "POLICY", default_value = "ask")]
    pub(super) writes: Writes,
}

/// `--writes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum Writes {
    /// Every write asks the user first.
    Ask,
    /// The write tools are offered, with no prompt.
    Allow,
    /// The write tools are not offered.
    Deny,
}

impl WritesArg {
    pub(super) fn policy(&self) -> quire_cli::mcp::WritePolicy {
        match self.writes {
            Writes::Ask => quire_cli::mcp::WritePolicy::Ask,
            Writes::Allow => quire_cli::mcp::WritePolicy::Allow,
            Writes::Deny => quire_cli::mcp::WritePolicy::Deny,
        }
    }
}

impl KilnArgs {
    pub(super) fn options(&self) -> anyhow::Result<quire_kiln::KilnOptions> {
        let defaults = quire_kiln::KilnOptions::default();
        Ok(quire_kiln::KilnOptions {
            budget: self.tool_timeout.unwrap_or(defaults.budget),
            watch: !self.no_watch,
            embedder: self.embedder.source()?,
            fallback_embedders: self.embedder.fallbacks(),
            ..defaults
        })
    }
}

/// Limits of `serve --http` (see the README's server section).
#[derive(clap::Args, Debug)]
pub(super) struct HttpLimitArgs {
    /// With --http: close a connection whose request headers take longer
    /// than this (e.g. 10s, 500ms; default 10s).
    #[arg(long, value_name = "DURATION", requires = "http", value_parser = super::serve::parse_duration)]
    pub(super) http_header_timeout: Option<std::time::Duration>,
    /// With --http: answer 408 to a request body that takes longer than
    /// this to arrive (default 30s).
    #[arg(long, value_name = "DURATION", requires = "http", value_parser = super::serve::parse_duration)]
    pub(super) http_body_timeout: Option<std::time::Duration>,
    /// With --http: close an MCP session after this long without requests
    /// (default 10m).
    #[arg(long, value_name = "DURATION", requires = "http", value_parser = super::serve::parse_duration)]
    pub(super) http_session_idle_timeout: Option<std::time::Duration>,
    /// With --http: open MCP sessions at most; a new one beyond gets 503
    /// (default 64).
    #[arg(long, value_name = "N", requires = "http", value_parser = clap::value_parser!(u32).range(1..))]
    pub(super) http_max_sessions: Option<u32>,
}
