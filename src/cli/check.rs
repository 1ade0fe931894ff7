//! `quire check`: parse, validate, report.

use std::sync::Arc;

use quire::plan::parse;

use super::{Outcome, SourceArgs, git_message, input, render};

pub(super) fn run(args: &SourceArgs, git_message: bool) -> anyhow::Result<Outcome> {
    let limit = args.limit()?;
    let mut source = if git_message {
        // The editor's file may hold a diff below the scissors line: the
        // preset's limit applies to the message git keeps.
        let limit = args.limit()?.for_git_message();
        input::read_bytes_limited(args.file.as_deref(), &limit)?
    } else {
        input::read(args.file.as_deref(), &limit)?
    };
    if git_message {
        let message = git_message::cleanup(&source.text);
        if git_message::is_generated_by_git(&message) {
            return Ok(Outcome::Success);
        }
        limit.check_length(&source.name, &message)?;
        source.text = Arc::from(message);
    }
    let config = args.config()?;
    let findings = parse(&source.text, &config).check_with(&source.text, &config);
    render::report(&source.name, &source.text, &findings);
    let valid = !findings.iter().any(|finding| finding.is_error());
    Ok(if valid {
        Outcome::Success
    } else {
        Outcome::Findings
    })
}
