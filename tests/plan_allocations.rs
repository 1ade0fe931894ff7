//! Allocations per parse of the bench's typical plan (`benches/plan_parse.rs`),
//! counted by a counting global allocator: the borrowed syntax layer
//! allocates its two vectors (constraints, tasks) and nothing else, and the
//! owned parse adds only what the owned AST itself holds.

#[path = "../benches/support/mod.rs"]
mod support;

use quire_grammar::plan::{ParserConfig, PlanDocument, parse, syntax};
use support::{CountingAllocator, allocations, typical_plan};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// The heap blocks an owned document holds: one per string value, one per
/// non-empty vector.
fn blocks(document: &PlanDocument) -> usize {
    let header = document.header.as_ref().map_or(0, |header| {
        usize::from(header.commit_type.is_some())
            + usize::from(header.scope.is_some())
            + usize::from(header.title.is_some())
    });
    let constraints = document.constraints.as_ref().map_or(0, |constraints| {
        usize::from(!constraints.is_empty()) + 2 * constraints.len()
    });
    let tasks = document.tasks.as_ref().map_or(0, |tasks| {
        usize::from(!tasks.is_empty())
            + document
                .tasks_depth_first()
                .map(|(_, task)| 1 + usize::from(!task.children.is_empty()))
                .sum::<usize>()
    });
    header
        + usize::from(document.description.is_some())
        + constraints
        + tasks
        + usize::from(document.direction.is_some())
}

#[test]
fn the_syntax_layer_allocates_its_two_vectors_only() {
    let text = typical_plan();
    let config = ParserConfig::COMMIT_MESSAGE;
    let count = allocations(|| syntax::parse(&text, &config));
    eprintln!("syntax layer: {count} allocations");
    assert!(count <= 2, "{count} allocations");
}

#[test]
fn the_owned_parse_allocates_what_the_document_holds() {
    let text = typical_plan();
    let config = ParserConfig::COMMIT_MESSAGE;
    let count = allocations(|| parse(&text, &config));
    let held = blocks(&parse(&text, &config).document);
    eprintln!("owned parse: {count} allocations; the document holds {held} blocks");
    // 67 before the syntax layer, for the same 62 blocks.
    assert!(count <= held + 2, "{count} allocations for {held} blocks");
}
