//! Query latency of the semantic index over 100k random unit vectors of 384
//! dimensions (MiniLM's size): 25,000 notes of 4 chunks. Issue 12's target
//! is under 20 ms per query.
//!
//! `naive` is the same query done the obvious way, in the same run: every
//! chunk scored with `embed::cosine` over a `Vec<Vec<f32>>` into a vector,
//! fully sorted, then the first chunk of each note taken until there are
//! `k` notes. `SemanticIndex::search` scans one contiguous buffer with an
//! eight-lane dot product, keeps each note's best chunk, and ranks notes
//! with a k-sized heap.
//!
//! `hybrid` is the same query fused with BM25 over the chunks' texts (40
//! words each from a 5,000-word vocabulary, so a query's words match a
//! few thousand chunks), and `bm25_build` what the server pays once at
//! start to build that BM25 index from a loaded semantic index.

use criterion::{Criterion, criterion_group, criterion_main};
use quire_embed::{cosine, normalize};
use quire_grammar::span::Span;
use quire_kiln::{Bm25Index, Chunk, SemanticIndex, hybrid_search};

const CHUNKS: usize = 100_000;
const PER_NOTE: usize = 4;
const DIMENSION: usize = 384;
const K: usize = 10;

fn unit_vector(rng: &mut fastrand::Rng) -> Vec<f32> {
    let mut vector: Vec<f32> = (0..DIMENSION).map(|_| rng.f32() * 2.0 - 1.0).collect();
    normalize(&mut vector);
    vector
}

/// A made-up word: `w` and its number in the vocabulary.
fn word(rng: &mut fastrand::Rng) -> String {
    format!("w{}", rng.usize(..VOCABULARY))
}

const VOCABULARY: usize = 5_000;

fn chunk(ordinal: usize, rng: &mut fastrand::Rng) -> Chunk {
    let words: Vec<String> = (0..40).map(|_| word(rng)).collect();
    Chunk {
        span: Span::new(ordinal * 10, ordinal * 10 + 10),
        heading_path: format!("# Part {ordinal}"),
        heading: Some(format!("Part {ordinal}")),
        text: format!("Note\n# Part {ordinal}\n\n{}", words.join(" ")),
        section_start: 0,
    }
}

/// The index, and the same vectors as a plain list with each one's note.
fn corpus() -> (SemanticIndex, Vec<(usize, Vec<f32>)>) {
    let mut rng = fastrand::Rng::with_seed(384);
    let mut index = SemanticIndex::new("bench-random", DIMENSION);
    let mut plain = Vec::with_capacity(CHUNKS);
    for note in 0..CHUNKS / PER_NOTE {
        let vectors: Vec<Vec<f32>> = (0..PER_NOTE).map(|_| unit_vector(&mut rng)).collect();
        plain.extend(vectors.iter().map(|vector| (note, vector.clone())));
        let chunks = (0..PER_NOTE)
            .map(|ordinal| chunk(ordinal, &mut rng))
            .collect();
        index
            .upsert_note(&format!("notes/{note}.md"), [0; 32], chunks, vectors)
            .unwrap();
    }
    (index, plain)
}

fn naive(plain: &[(usize, Vec<f32>)], query: &[f32], k: usize) -> Vec<(usize, f32)> {
    let mut scores: Vec<(usize, f32)> = plain
        .iter()
        .map(|(note, vector)| (*note, cosine(query, vector)))
        .collect();
    scores.sort_by(|a, b| b.1.total_cmp(&a.1));
    let mut seen = std::collections::HashSet::new();
    scores
        .into_iter()
        .filter(|(note, _)| seen.insert(*note))
        .take(k)
        .collect()
}

fn bench(c: &mut Criterion) {
    let (index, plain) = corpus();
    let query = unit_vector(&mut fastrand::Rng::with_seed(7));
    // Both find the same notes.
    let fast: Vec<String> = index
        .search(&query, K, |_| true)
        .unwrap()
        .into_iter()
        .map(|hit| hit.path)
        .collect();
    let slow: Vec<String> = naive(&plain, &query, K)
        .into_iter()
        .map(|(note, _)| format!("notes/{note}.md"))
        .collect();
    assert_eq!(fast, slow);

    let mut group = c.benchmark_group("semantic_query_100k_x_384");
    group.sample_size(20);
    group.bench_function("index_search_top10", |b| {
        b.iter(|| {
            index
                .search(std::hint::black_box(&query), K, |_| true)
                .unwrap()
        })
    });
    group.bench_function("index_search_top10_filtered", |b| {
        b.iter(|| {
            index
                .search(std::hint::black_box(&query), K, |path| {
                    path.ends_with("7.md")
                })
                .unwrap()
        })
    });
    group.bench_function("naive_score_all_sort", |b| {
        b.iter(|| naive(&plain, std::hint::black_box(&query), K))
    });
    group.finish();

    let bm25 = Bm25Index::build(&index);
    let words = "w17 w4242 w99";
    let mut group = c.benchmark_group("semantic_hybrid_100k_x_384");
    group.sample_size(10);
    group.bench_function("hybrid_search_top10", |b| {
        b.iter(|| {
            hybrid_search(
                &index,
                &bm25,
                std::hint::black_box(&query),
                words,
                K,
                |_| true,
            )
            .unwrap()
        })
    });
    group.bench_function("bm25_build", |b| b.iter(|| Bm25Index::build(&index)));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
