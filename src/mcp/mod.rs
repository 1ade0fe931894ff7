//! The MCP adapter layer: one rmcp tool router per toolset, the server that
//! combines them, and the transports (stdio, Streamable HTTP, in-process).
//!
//! Nothing here decides anything: a tool method converts the call's
//! arguments, runs the domain operation off the async runtime, and converts
//! the result ([`result`]).

mod planner;
mod result;
mod server;
mod tracker;
mod transport;

pub use server::{QuireServer, Toolset, UnknownToolset};
pub use transport::{CallOutcome, call_in_process, serve_http, serve_stdio};
