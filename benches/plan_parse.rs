//! Throughput of the plan parser, against a floor and a peer.
//!
//! - `quire/header`, `quire/typical`, `quire/worst_case`: [`quire_grammar::plan::parse`]
//!   on a header-only message, a ~2 KB plan, and a document at the input and
//!   task limits.
//! - `quire_syntax/typical`: [`quire_grammar::plan::syntax::parse`], the borrowed
//!   layer `parse` builds first, on the same plan.
//! - `memchr_lines/typical`: counting the typical plan's lines with `memchr`
//!   (the floor the issue's targets are stated against: one vectorized pass
//!   that never stops at a line).
//! - `memchr_each_line/typical`: walking the same lines one at a time, a
//!   `memchr` call per line, and adding up their lengths: the least a parser
//!   that looks at each line has to do.
//! - `git_conventional/header`: `git_conventional::Commit::parse` on the same
//!   header (the peer).
//!
//! The inputs are generated deterministically (`support/mod.rs`, shared with
//! `tests/plan_allocations.rs`), and checked at setup so that a grammar change
//! cannot silently turn a benchmark into one of an early halt. The bench runs
//! under a counting allocator and prints the allocations of one typical
//! parse of each layer.
//!
//! ```text
//! cargo bench --bench plan_parse -- --warm-up-time 1 --measurement-time 3
//! ```

mod support;

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use quire_grammar::plan::{ParseState, ParserConfig, parse, syntax};
use support::{CountingAllocator, HEADER, allocations, typical_plan, worst_case_plan};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

fn assert_parses(name: &str, text: &str, config: &ParserConfig) {
    let outcome = parse(text, config);
    assert_eq!(
        outcome.state,
        ParseState::Parsed,
        "{name}: {:?}",
        outcome.diagnostics
    );
}

/// The sum of the lengths of `text`'s lines, found one at a time.
fn line_lengths(text: &str) -> usize {
    let bytes = text.as_bytes();
    let (mut start, mut total) = (0, 0);
    while let Some(at) = memchr::memchr(b'\n', &bytes[start..]) {
        total += at;
        start += at + 1;
    }
    total + bytes.len() - start
}

fn plan_parse(c: &mut Criterion) {
    let config = ParserConfig::COMMIT_MESSAGE;

    let typical = typical_plan();
    assert_parses("typical", &typical, &config);
    assert!(
        (1800..=2300).contains(&typical.len()),
        "typical plan is {} bytes",
        typical.len()
    );
    let typical_tasks = parse(&typical, &config)
        .document
        .tasks_depth_first()
        .count();
    assert_eq!(typical_tasks, 30);
    assert_eq!(syntax::parse(&typical, &config).state, ParseState::Parsed);
    println!(
        "allocations per typical parse: quire {}, quire_syntax {}",
        allocations(|| parse(&typical, &config)),
        allocations(|| syntax::parse(&typical, &config)),
    );

    let worst = worst_case_plan(&config);
    assert_parses("worst_case", &worst, &config);
    assert_eq!(worst.chars().count(), config.max_input_length);
    let worst_tasks = parse(&worst, &config).document.tasks_depth_first().count();
    assert_eq!(worst_tasks, config.max_task_count);

    assert_parses("header", HEADER, &config);
    git_conventional::Commit::parse(HEADER).expect("a conventional header");

    let mut group = c.benchmark_group("plan_parse");

    group.throughput(Throughput::Bytes(HEADER.len() as u64));
    group.bench_function("quire/header", |b| {
        b.iter(|| parse(black_box(HEADER), black_box(&config)))
    });
    group.bench_function("git_conventional/header", |b| {
        b.iter(|| git_conventional::Commit::parse(black_box(HEADER)))
    });

    group.throughput(Throughput::Bytes(typical.len() as u64));
    group.bench_function("quire/typical", |b| {
        b.iter(|| parse(black_box(&typical), black_box(&config)))
    });
    group.bench_function("quire_syntax/typical", |b| {
        b.iter(|| syntax::parse(black_box(&typical), black_box(&config)))
    });
    group.bench_function("memchr_lines/typical", |b| {
        b.iter(|| memchr::memchr_iter(b'\n', black_box(typical.as_bytes())).count())
    });

    group.bench_function("memchr_each_line/typical", |b| {
        b.iter(|| line_lengths(black_box(&typical)))
    });

    group.throughput(Throughput::Bytes(worst.len() as u64));
    group.bench_function("quire/worst_case", |b| {
        b.iter(|| parse(black_box(&worst), black_box(&config)))
    });

    group.finish();
}

criterion_group!(benches, plan_parse);
criterion_main!(benches);
