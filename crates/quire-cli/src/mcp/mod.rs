//! The MCP adapter layer: one rmcp tool router per toolset, the server that
//! combines them, and the transports (stdio, Streamable HTTP, in-process).
//! The stdio and HTTP transports check every incoming message themselves
//! (`jsonrpc.rs`) before rmcp sees it, and carry the server's limits.
//!
//! Nothing here decides anything: a tool method decodes the call's
//! arguments into the domain's typed request, runs the domain operation off
//! the async runtime, and converts its response or error (`result.rs`,
//! `tool_error.rs`). Only this module knows JSON arguments and the MCP error
//! shape; the domains are plain typed Rust.

mod approval;
mod elicit;
mod http;
mod jsonrpc;
mod kiln;
mod kiln_error;
mod kiln_types;
mod kiln_write;
#[cfg(feature = "nova")]
mod nova;
#[cfg(feature = "nova")]
mod nova_types;
mod planner;
mod planner_text;
mod planner_types;
mod resources;
mod result;
mod schema;
mod scope;
mod server;
mod stdio;
mod tool_error;
mod tracker;
mod tracker_types;
mod transport;

pub use approval::{TOKEN_LIFETIME, WritePolicy};
pub use http::{HttpLimits, MCP_PATH, serve_http, serve_http_on};
pub use kiln_write::ELICITATION_WAIT;
pub use planner_text::guidance as planner_guidance;
pub use server::{QuireServer, Toolset, UnknownToolset};
pub use stdio::{EXIT_GRACE, MAX_LINE_BYTES, StdioEnd, serve_stdio};
pub use tool_error::{ErrorCode, ToolError};
pub use transport::{
    ApprovalChoice, AskUser, CallOutcome, call_in_process, call_in_process_asking,
};

/// What the transports fail with: rmcp's, hyper's and I/O errors alike.
type BoxError = Box<dyn std::error::Error + Send + Sync>;
