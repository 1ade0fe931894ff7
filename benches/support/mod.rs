//! The plan inputs of `benches/plan_parse.rs`, and the counting allocator
//! that both the bench and `tests/plan_allocations.rs` install: one source,
//! so the test bounds the allocations of exactly the document the bench
//! times.

#![allow(dead_code, unreachable_pub)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::fmt::Write as _;

use quire_grammar::plan::ParserConfig;

pub const HEADER: &str = "feat(parser)!: Add hierarchical task support";

/// Indentation depth of the `index`th task: a walk through depths 0..=3 that
/// only ever goes one level deeper than its predecessor, as real plans do.
fn task_depth(index: usize) -> usize {
    [0, 1, 2, 3, 2, 1, 2, 0, 1, 1][index % 10]
}

/// A ~2 KB plan: header, a four-line description, five constraints, thirty
/// nested tasks and a direction.
pub fn typical_plan() -> String {
    const VERBS: [&str; 6] = ["Parse", "Validate", "Format", "Test", "Document", "Profile"];
    const NOUNS: [&str; 5] = [
        "task lines",
        "the header",
        "constraint keys",
        "the direction",
        "nested indentation",
    ];
    let mut plan = format!("{HEADER}\n\n");
    plan.push_str(
        "Nested tasks let a plan say what belongs to what, so that a reviewer\n\
         can see which steps are done and which are still open. The parser\n\
         keeps every span, so diagnostics point at the exact characters, and\n\
         it never gives up silently: every skipped line gets a warning.\n",
    );
    for constraint in [
        "- Never: break existing parsing of flat task lists",
        "- Never: allocate per character in the line rules",
        "- Never: panic on any input, however malformed",
        "- Do not: change the JSON shape of the conformance cases",
        "- Always: keep spans pointing into the original bytes",
    ] {
        plan.push_str(constraint);
        plan.push('\n');
    }
    plan.push('\n');
    for index in 0..30 {
        let indent = "  ".repeat(task_depth(index));
        let mark = if index % 3 == 0 { 'x' } else { ' ' };
        let verb = VERBS[index % VERBS.len()];
        let noun = NOUNS[index % NOUNS.len()];
        writeln!(plan, "{indent}- [{mark}]: {verb} {noun} (step {index})").unwrap();
    }
    plan.push_str("\nContinue with the formatter, then wire the CLI to the new parser.\n");
    plan
}

/// A document of exactly `max_input_length` characters with `max_task_count`
/// tasks: the most the default configuration accepts.
pub fn worst_case_plan(config: &ParserConfig) -> String {
    let (length, count) = (config.max_input_length, config.max_task_count);
    let mut plan = format!("{HEADER}\n\n");
    let filler = "Handle one more edge case of the grammar without slowing the common path ";
    let lines: Vec<String> = (0..count)
        .map(|index| {
            let indent = "  ".repeat(task_depth(index));
            format!("{indent}- [ ]: Task {index}: ")
        })
        .collect();
    // Share the remaining characters evenly among the task texts.
    let fixed = plan.len() + lines.iter().map(|line| line.len() + 1).sum::<usize>();
    let spare = length.checked_sub(fixed).expect("room for the tasks");
    for (index, mut line) in lines.into_iter().enumerate() {
        let share = spare / count + usize::from(index < spare % count);
        line.extend(filler.chars().cycle().take(share));
        // A trailing space would be kept, but it reads like a mistake.
        if line.ends_with(' ') {
            line.pop();
            line.push('.');
        }
        plan.push_str(&line);
        plan.push('\n');
    }
    plan
}

/// The system allocator, counting the allocations (and reallocations) made
/// on the current thread, so tests running beside each other do not count
/// each other's.
pub struct CountingAllocator;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

fn count_one() {
    // `try_with`: the thread-local may be gone while a thread shuts down.
    let _ = ALLOCATIONS.try_with(|count| count.set(count.get() + 1));
}

// SAFETY: every call is passed to `System` unchanged; counting touches only
// a const-initialized thread-local, which never allocates.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_one();
        // SAFETY: the caller's contract is `System`'s.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count_one();
        // SAFETY: as above.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_one();
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// How many allocations `run` makes on this thread (its result is dropped
/// after counting).
pub fn allocations<T>(run: impl FnOnce() -> T) -> usize {
    let before = ALLOCATIONS.with(Cell::get);
    let result = run();
    let after = ALLOCATIONS.with(Cell::get);
    drop(result);
    after - before
}
