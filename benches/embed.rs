//! Embedding throughput of the `minilm` embedder: chunks per second for
//! batches of 32 short paragraphs (the size of a note section), on the CPU.
//!
//! Needs the installed model (`quire models install`); without it the bench
//! says so and measures nothing.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use quire::embed::{Embedder, MINILM_BATCH_SIZE, MiniLm, default_models_dir, minilm_dir};

/// Short paragraphs of 40 to 60 words, all different.
fn paragraphs(count: usize) -> Vec<String> {
    let words = [
        "garden",
        "river",
        "compiler",
        "meeting",
        "budget",
        "recipe",
        "planet",
        "novel",
        "invoice",
        "migration",
        "harvest",
        "protocol",
        "museum",
        "sprint",
        "glacier",
        "lecture",
    ];
    (0..count)
        .map(|index| {
            let length = 40 + index % 21;
            (0..length)
                .map(|word| words[(index * 7 + word * 3 + word / 5) % words.len()])
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

fn embed(c: &mut Criterion) {
    let Some(model) =
        default_models_dir().and_then(|models| MiniLm::load(&minilm_dir(&models)).ok())
    else {
        eprintln!(
            "embed bench skipped: the minilm model is not installed (run `quire models install`)"
        );
        return;
    };
    let texts = paragraphs(MINILM_BATCH_SIZE);
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let mut group = c.benchmark_group("embed");
    group.throughput(Throughput::Elements(texts.len() as u64));
    group.sample_size(10);
    group.bench_function("minilm_batch_32_paragraphs", |b| {
        b.iter(|| model.embed(&texts).expect("embedding works"))
    });
    group.finish();
}

criterion_group!(benches, embed);
criterion_main!(benches);
