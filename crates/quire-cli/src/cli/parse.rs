//! `quire parse`: the parse result, as an outline or as JSON.

use std::fmt::Write;

use quire_grammar::diagnostics::one_line;
use quire_grammar::plan::{ParseOutcome, ParseState, PlanDocument, Task, parse};

use super::{Outcome, SourceArgs, input, output, render};

pub(super) fn run(args: &SourceArgs, json: bool) -> anyhow::Result<Outcome> {
    let source = input::read(args.file.as_deref(), &args.limit()?)?;
    let outcome = parse(&source.text, &args.config()?);
    if json {
        let mut value = serde_json::to_value(&outcome)?;
        if let Some(object) = value.as_object_mut() {
            object.insert(
                "diagnostics".into(),
                render::json(&source.text, &outcome.diagnostics)?,
            );
        }
        output::stdout_json(&value)?;
    } else {
        output::stdout(&outline(&outcome))?;
        render::report(&source.name, &source.text, &outcome.diagnostics);
    }
    Ok(match outcome.state {
        ParseState::Parsed => Outcome::Success,
        ParseState::Halted => Outcome::Findings,
    })
}

/// A short human-readable view of what was parsed. Every value is shown
/// with [`one_line`]: the outline goes to a terminal more often than not.
fn outline(outcome: &ParseOutcome) -> String {
    let mut out = String::new();
    let state = match outcome.state {
        ParseState::Parsed => "parsed",
        ParseState::Halted => "halted",
    };
    let _ = writeln!(out, "state        {state}");
    let document: &PlanDocument = &outcome.document;
    if let Some(header) = document.header() {
        let mut parts = Vec::new();
        if let Some(commit_type) = header.commit_type() {
            parts.push(format!("type {}", one_line(commit_type)));
        }
        if let Some(scope) = header.scope() {
            parts.push(format!("scope {}", one_line(scope)));
        }
        if header.is_breaking() {
            parts.push("breaking".into());
        }
        if let Some(title) = header.title() {
            parts.push(format!("title \"{}\"", one_line(title)));
        }
        let _ = writeln!(out, "header       {}", parts.join(", "));
    }
    if let Some(description) = document.description() {
        let lines = description.lines().count();
        let _ = writeln!(
            out,
            "description  {lines} line{}",
            if lines == 1 { "" } else { "s" }
        );
    }
    if let Some(constraints) = &document.constraints {
        let _ = writeln!(out, "constraints  {}", constraints.len());
        for constraint in document.constraints() {
            let _ = writeln!(
                out,
                "  {}: {}",
                one_line(constraint.key()),
                one_line(constraint.value())
            );
        }
    }
    if document.tasks.is_some() {
        let (total, done) = document
            .tasks_depth_first()
            .fold((0, 0), |(total, done), (_, task)| {
                (total + 1, done + usize::from(task.checked))
            });
        let _ = writeln!(out, "tasks        {total} ({done} done)");
        for (depth, task) in document.tasks_depth_first() {
            let _ = writeln!(
                out,
                "  {:indent$}{} {}",
                "",
                mark(task),
                one_line(task.text()),
                indent = depth * 2
            );
        }
    }
    if let Some(direction) = document.direction() {
        let _ = writeln!(out, "direction    \"{}\"", one_line(direction));
    }
    out
}

fn mark(task: &Task) -> &'static str {
    if task.is_checked() { "[x]" } else { "[ ]" }
}
