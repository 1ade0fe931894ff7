//! Throughput of the commit parser against git-conventional (the model
//! crate) on the same real messages: the cocogitto corpus
//! (`tests/data/commit-messages.cocogitto.jsonl`), split in two sets.
//!
//! - `header_only`: the messages of one line (a trailing line ending
//!   allowed) that both parsers accept.
//! - `full`: the messages with a body and footers (git trailers) that both
//!   accept.
//!
//! Each benchmark parses the whole set once per iteration: `quire` with
//! [`quire_grammar::commit::parse_commit`] (which builds the owned, lossless AST),
//! `git_conventional` with `git_conventional::Commit::parse` (which borrows
//! the text and keeps no spans). The sets are checked at setup so a grammar
//! change cannot silently empty one.
//!
//! ```text
//! cargo bench --no-default-features --features cli --bench commit_parse -- --warm-up-time 1 --measurement-time 5
//! ```

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use quire_grammar::commit::parse_commit;
use serde::Deserialize;

const CORPUS: &str = include_str!("../tests/data/commit-messages.cocogitto.jsonl");

#[derive(Deserialize)]
struct Row {
    message: String,
}

/// The header-only and the full messages both parsers accept.
fn message_sets() -> (Vec<String>, Vec<String>) {
    let both_accept = |text: &str| {
        parse_commit(text).conventional().is_some() && git_conventional::Commit::parse(text).is_ok()
    };
    let (mut header_only, mut full) = (Vec::new(), Vec::new());
    for line in CORPUS.lines() {
        let Ok(row) = serde_json::from_str::<Row>(line) else {
            continue;
        };
        let text = row.message;
        if !both_accept(&text) {
            continue;
        }
        let message = parse_commit(&text);
        if !text.trim_end().contains('\n') {
            header_only.push(text);
        } else if message.body.is_some() && !message.footers.is_empty() {
            full.push(text);
        }
    }
    (header_only, full)
}

fn commit_parse(c: &mut Criterion) {
    let (header_only, full) = message_sets();
    assert!(
        header_only.len() > 400,
        "{} header-only messages",
        header_only.len()
    );
    assert!(full.len() >= 20, "{} full messages", full.len());
    println!(
        "header_only: {} messages, {} bytes; full: {} messages, {} bytes",
        header_only.len(),
        header_only.iter().map(String::len).sum::<usize>(),
        full.len(),
        full.iter().map(String::len).sum::<usize>(),
    );
    let mut group = c.benchmark_group("commit_parse");
    for (set, messages) in [("header_only", &header_only), ("full", &full)] {
        group.throughput(Throughput::Elements(messages.len() as u64));
        group.bench_function(format!("quire/{set}"), |b| {
            b.iter(|| {
                for text in messages {
                    black_box(parse_commit(black_box(text)));
                }
            })
        });
        group.bench_function(format!("git_conventional/{set}"), |b| {
            b.iter(|| {
                for text in messages {
                    let _ = black_box(git_conventional::Commit::parse(black_box(text)));
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, commit_parse);
criterion_main!(benches);
