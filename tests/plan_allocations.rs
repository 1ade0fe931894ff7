//! Allocations per parse of the bench's typical plan (`benches/plan_parse.rs`),
//! counted by a counting global allocator.

#[path = "../benches/support/mod.rs"]
mod support;

use quire::plan::{ParserConfig, parse};
use support::{CountingAllocator, allocations, typical_plan};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

#[test]
fn a_typical_owned_parse_allocates_little() {
    let text = typical_plan();
    let config = ParserConfig::COMMIT_MESSAGE;
    let count = allocations(|| parse(&text, &config));
    eprintln!("owned parse: {count} allocations");
    assert!(count <= 64, "{count} allocations");
}
