//! The MCP adapter layer: one rmcp tool router per toolset, the server that
//! combines them, and the transports (stdio, Streamable HTTP, in-process).
//! The stdio transport checks every incoming message itself
//! (`jsonrpc.rs`) before rmcp sees it.
//!
//! Nothing here decides anything: a tool method converts the call's
//! arguments, runs the domain operation off the async runtime, and converts
//! the result ([`result`]).

mod jsonrpc;
mod planner;
mod result;
mod server;
mod stdio;
mod tracker;
mod transport;

pub use server::{QuireServer, Toolset, UnknownToolset};
pub use stdio::{EXIT_GRACE, MAX_LINE_BYTES, StdioEnd, serve_stdio};
pub use transport::{CallOutcome, call_in_process, serve_http};
