//! Embedding throughput of the `minilm` and `static` embedders: chunks per
//! second for short paragraphs (the size of a note section), on the CPU:
//! four batches of 32 for `minilm` (its batches run on every core), one for
//! `static`. MiniLM's same-run baselines (onnxruntime, the FLOP floor) are
//! in `quire-kiln`'s `minilm_reference` bench. The `static` group has a baseline measured in the same run:
//! WordPiece tokenization alone (the `tokenizers` crate, MiniLM's
//! tokenizer) over the same texts, the floor of any tokenizing embedder.
//!
//! Needs the installed model (`quire models install`) and, for `static`,
//! its distilled table (`quire models distill`); without them the bench
//! says so and measures nothing.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use quire_embed::{
    Embedder, MINILM_BATCH_SIZE, MiniLm, StaticEmbedder, default_models_dir, minilm_dir, static_dir,
};

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
    // Four batches: the embedder runs batches on every core at once.
    let texts = paragraphs(4 * MINILM_BATCH_SIZE);
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let mut group = c.benchmark_group("embed");
    group.throughput(Throughput::Elements(texts.len() as u64));
    group.sample_size(10);
    group.bench_function("minilm_4_batches_of_32_paragraphs", |b| {
        b.iter(|| model.embed(&texts).expect("embedding works"))
    });
    group.finish();
}

fn embed_static(c: &mut Criterion) {
    let Some(models) = default_models_dir() else {
        eprintln!("static bench skipped: no models folder");
        return;
    };
    let Ok(table) = StaticEmbedder::load(&static_dir(&models)) else {
        eprintln!(
            "static bench skipped: the static table is not distilled (run `quire models install` then `quire models distill`)"
        );
        return;
    };
    let Ok(mut tokenizer) =
        tokenizers::Tokenizer::from_file(minilm_dir(&models).join("tokenizer.json"))
    else {
        eprintln!("static bench skipped: the minilm tokenizer does not load");
        return;
    };
    tokenizer.with_padding(None);
    let texts = paragraphs(MINILM_BATCH_SIZE);
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let mut group = c.benchmark_group("static");
    group.throughput(Throughput::Elements(texts.len() as u64));
    group.bench_function("static_batch_32_paragraphs", |b| {
        b.iter(|| table.embed(&texts).expect("embedding works"))
    });
    group.bench_function("baseline_tokenize_only_batch_32_paragraphs", |b| {
        b.iter(|| {
            tokenizer
                .encode_batch_fast(texts.clone(), false)
                .expect("tokenizing works")
        })
    });
    group.finish();
}

criterion_group!(benches, embed, embed_static);
criterion_main!(benches);
