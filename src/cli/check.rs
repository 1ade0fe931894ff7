//! `quire check`: parse, validate, report.

use std::sync::Arc;

use quire::plan::parse;

use super::{Outcome, SourceArgs, git_message, input, render};

pub fn run(args: &SourceArgs, git_message: bool) -> anyhow::Result<Outcome> {
    let mut source = input::read(args.file.as_deref())?;
    if git_message {
        let message = git_message::cleanup(&source.text);
        if git_message::is_generated_by_git(&message) {
            return Ok(Outcome::Success);
        }
        source.text = Arc::from(message);
    }
    let findings = parse(&source.text, &args.config()?).check();
    render::report(&source.name, &source.text, &findings);
    let valid = !findings.iter().any(|finding| finding.is_error());
    Ok(if valid {
        Outcome::Success
    } else {
        Outcome::Findings
    })
}
