//! The `quire` command line: parse, check and format plan documents, and
//! serve or call the MCP tools.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    cli::panic_hook::install();
    cli::panic_hook::guard(cli::main)
}
