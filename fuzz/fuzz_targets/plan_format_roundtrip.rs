//! An arbitrary document, formatted and parsed back with every preset.
//!
//! As it is, the document may hold anything (line endings in a title, a title
//! without a scope, blank tasks...): formatting and parsing it must not panic
//! and must give valid spans. Made expressible by `plan_model::sanitize`, it
//! must come back unchanged: `parse(format(doc)) == doc`.

#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use quire_grammar::plan::{Constraint, Header, PlanDocument, Task, format, parse};
use quire_grammar::span::{Span, Spanned};

#[path = "../../tests/support/plan_model.rs"]
mod plan_model;

use plan_model::{
    check_idempotent, check_roundtrip, check_spans, keeps_all_text, presets, sanitize,
};

#[derive(Arbitrary, Debug)]
struct ArbitraryHeader {
    commit_type: Option<String>,
    scope: Option<String>,
    breaking: bool,
    title: Option<String>,
}

#[derive(Arbitrary, Debug)]
struct ArbitraryTask {
    checked: bool,
    text: String,
    children: Vec<ArbitraryTask>,
}

#[derive(Arbitrary, Debug)]
struct ArbitraryDocument {
    header: Option<ArbitraryHeader>,
    description: Option<String>,
    constraints: Option<Vec<(String, String)>>,
    tasks: Option<Vec<ArbitraryTask>>,
    direction: Option<String>,
}

/// Deeper trees only cost time: the formatter writes them recursively.
const MAX_DEPTH: usize = 32;

fn task(task: ArbitraryTask, depth: usize) -> Task {
    let children = if depth < MAX_DEPTH {
        task.children
            .into_iter()
            .map(|child| self::task(child, depth + 1))
            .collect()
    } else {
        Vec::new()
    };
    Task::new(task.checked, task.text, children)
}

impl From<ArbitraryDocument> for PlanDocument {
    fn from(doc: ArbitraryDocument) -> Self {
        PlanDocument {
            header: doc.header.map(|header| Header {
                commit_type: header.commit_type.map(Spanned::detached),
                scope: header.scope.map(Spanned::detached),
                breaking: header.breaking,
                title: header.title.map(Spanned::detached),
                span: Span::DETACHED,
            }),
            description: doc.description.map(Spanned::detached),
            constraints: doc.constraints.map(|constraints| {
                constraints
                    .into_iter()
                    .map(|(key, value)| Constraint::new(key, value))
                    .collect()
            }),
            tasks: doc
                .tasks
                .map(|tasks| tasks.into_iter().map(|t| task(t, 0)).collect()),
            direction: doc.direction.map(Spanned::detached),
        }
    }
}

fuzz_target!(|input: ArbitraryDocument| {
    let document = PlanDocument::from(input);
    for (preset, config) in presets() {
        // As it is: no panic, valid spans, idempotent when nothing is lost.
        let text = format(&document, &config);
        let outcome = parse(&text, &config);
        if let Err(failure) = check_spans(&text, &outcome) {
            panic!("{preset}: {failure}\ndocument: {document:?}");
        }
        if keeps_all_text(&outcome)
            && let Err(failure) = check_idempotent(&outcome, &config)
        {
            panic!("{preset}: {failure}\ndocument: {document:?}");
        }
        // Made expressible: it comes back unchanged.
        let expressible = sanitize(document.clone(), &config);
        if let Err(failure) = check_roundtrip(&expressible, &config) {
            panic!("{preset}: {failure}\ndocument: {expressible:?}");
        }
    }
});
