//! The `quire` command line: parse, check and format plan documents.

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match cli::run(args) {
        Ok(outcome) => outcome.into(),
        Err(error) => {
            eprintln!("error: {error:#}");
            cli::Outcome::UsageOrIo.into()
        }
    }
}
