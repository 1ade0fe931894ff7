//! The quire server's library: the MCP adapter layer ([`mcp`]) that turns
//! the domains of quire-kiln, quire-planner, quire-tracker and quire-nova
//! into MCP tools, and its transports (stdio, Streamable HTTP,
//! in-process). The `quire` binary (src/main.rs) is its command line.
//! Without the `mcp` feature (the commit checker's build) it is empty.

#[cfg(feature = "mcp")]
pub mod mcp;
