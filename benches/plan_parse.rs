//! Throughput of the plan parser, against a floor and a peer.
//!
//! - `quire/header`, `quire/typical`, `quire/worst_case`: [`quire::plan::parse`]
//!   on a header-only message, a ~2 KB plan, and a document at the input and
//!   task limits.
//! - `memchr_lines/typical`: counting the typical plan's lines with `memchr`,
//!   the least any line-based parser has to do (the floor).
//! - `git_conventional/header`: `git_conventional::Commit::parse` on the same
//!   header (the peer).
//!
//! The inputs are generated deterministically, and checked at setup so that a
//! grammar change cannot silently turn a benchmark into one of an early halt.
//!
//! ```text
//! cargo bench --bench plan_parse -- --warm-up-time 1 --measurement-time 3
//! ```

use std::fmt::Write as _;
use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use quire::plan::{ParseState, ParserConfig, parse};

const HEADER: &str = "feat(parser)!: Add hierarchical task support";

/// Indentation depth of the `index`th task: a walk through depths 0..=3 that
/// only ever goes one level deeper than its predecessor, as real plans do.
fn task_depth(index: usize) -> usize {
    [0, 1, 2, 3, 2, 1, 2, 0, 1, 1][index % 10]
}

/// A ~2 KB plan: header, a four-line description, five constraints, thirty
/// nested tasks and a direction.
fn typical_plan() -> String {
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
fn worst_case_plan(config: &ParserConfig) -> String {
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

fn assert_parses(name: &str, text: &str, config: &ParserConfig) {
    let outcome = parse(text, config);
    assert_eq!(
        outcome.state,
        ParseState::Parsed,
        "{name}: {:?}",
        outcome.diagnostics
    );
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
    group.bench_function("memchr_lines/typical", |b| {
        b.iter(|| memchr::memchr_iter(b'\n', black_box(typical.as_bytes())).count())
    });

    group.throughput(Throughput::Bytes(worst.len() as u64));
    group.bench_function("quire/worst_case", |b| {
        b.iter(|| parse(black_box(&worst), black_box(&config)))
    });

    group.finish();
}

criterion_group!(benches, plan_parse);
criterion_main!(benches);
