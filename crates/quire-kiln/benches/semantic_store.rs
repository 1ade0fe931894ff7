//! The semantic index on disk and BM25 at start (issue 26): what a server
//! pays before its first hybrid search, on a generated index of 60,000
//! chunks (6,000 notes of 10) of 384-dimension unit vectors and
//! paragraph-length texts (about 90 words, 550 characters, from a
//! 30,000-word vocabulary drawn log-uniformly, so that a few words are
//! common and most are rare, as in a vault), each against a same-run
//! baseline:
//!
//! - `save`: [`SemanticIndex::to_bytes`] against copying as many bytes;
//! - `load`: [`SemanticIndex::load`] of the saved file through the
//!   confined layer against `std::fs::read` of the same file (the floor of
//!   any decoder);
//! - `bm25_build`: [`Bm25Index::build`] over the 60,000 chunks, against
//!   splitting the same texts into words and nothing else (the floor of
//!   any tokenizer); and, on the first 6,000 chunks (the old way takes
//!   seconds per 10,000), against the `bm25` crate's own engine built
//!   from the same texts, which is what `Bm25Index` was before.
//!
//! ```text
//! cargo bench -p quire-kiln --bench semantic_store -- --quick
//! ```
//!
//! Issue 26's targets: at most 1,000 bytes per chunk on disk, a 60,000-chunk
//! index loaded in 2 s, BM25 built in 1 s per 100,000 chunks.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use quire_embed::normalize;
use quire_fs::Workspace;
use quire_grammar::span::Span;
use quire_kiln::{Bm25Index, Chunk, SemanticIndex};
use unicode_segmentation::UnicodeSegmentation;

const NOTES: usize = 6_000;
const PER_NOTE: usize = 10;
const DIMENSION: usize = 384;
const VOCABULARY: usize = 30_000;
const WORDS_PER_CHUNK: usize = 90;
/// The chunks the `bm25` crate's engine is built from (it is slow).
const CRATE_CHUNKS: usize = 6_000;

const SYLLABLES: [&str; 24] = [
    "ka", "lo", "min", "tor", "sel", "van", "dri", "pe", "ning", "ous", "ta", "ver", "mo", "li",
    "ster", "gan", "ed", "ing", "al", "ri", "con", "ment", "tion", "er",
];

/// Word `number` of the vocabulary: syllables, so the stemmer has
/// suffixes to work on; the first few are English stop words.
fn vocabulary_word(number: usize) -> String {
    const COMMON: [&str; 8] = ["the", "and", "of", "note", "a", "link", "to", "page"];
    if number < COMMON.len() {
        return COMMON[number].to_owned();
    }
    let mut word = String::new();
    let mut rest = number;
    loop {
        word.push_str(SYLLABLES[rest % SYLLABLES.len()]);
        rest /= SYLLABLES.len();
        if rest == 0 {
            return word;
        }
    }
}

fn unit_vector(rng: &mut fastrand::Rng) -> Vec<f32> {
    let mut vector: Vec<f32> = (0..DIMENSION).map(|_| rng.f32() * 2.0 - 1.0).collect();
    normalize(&mut vector);
    vector
}

/// The generated index: chunks as `chunk_note` makes them (title, heading
/// path, blank line, section; spans the section's bytes).
fn corpus() -> SemanticIndex {
    let mut rng = fastrand::Rng::with_seed(26);
    let words: Vec<String> = (0..VOCABULARY).map(vocabulary_word).collect();
    let mut index = SemanticIndex::new("bench-random", DIMENSION);
    for note in 0..NOTES {
        let title = format!("Note {note}");
        let mut at = 0;
        let mut chunks = Vec::with_capacity(PER_NOTE);
        for part in 0..PER_NOTE {
            let heading_path = format!("# Part {}", part / 3);
            let mut section = format!("{heading_path}\n");
            for count in 0..WORDS_PER_CHUNK {
                // Log-uniform: word n is drawn about as often as 1/n.
                let number = (VOCABULARY as f64).powf(rng.f64()) as usize - 1;
                section.push_str(&words[number.min(VOCABULARY - 1)]);
                section.push(if count % 15 == 14 { '.' } else { ' ' });
            }
            section.push('\n');
            let prefix = format!("{title}\n{heading_path}\n\n");
            chunks.push(Chunk {
                span: Span::new(at, at + section.len()),
                heading_path,
                heading: Some(format!("Part {}", part / 3)),
                section_start: prefix.len(),
                text: prefix + &section,
            });
            at += section.len();
        }
        let vectors = (0..PER_NOTE).map(|_| unit_vector(&mut rng)).collect();
        index
            .upsert_note(
                &format!("notes/{note}.md"),
                [note as u8; 32],
                chunks,
                vectors,
            )
            .unwrap();
    }
    index
}

fn bench(c: &mut Criterion) {
    let index = corpus();
    let folder = tempfile::tempdir().unwrap();
    let workspace = Workspace::new(folder.path()).unwrap();
    index.save(&workspace).unwrap();
    let file = folder
        .path()
        .join(quire_kiln::INDEX_FOLDER)
        .join(quire_kiln::index_file_name(index.embedder_id()));
    let bytes = std::fs::read(&file).unwrap();
    eprintln!(
        "{} chunks, {} bytes on disk: {:.0} bytes per chunk",
        index.chunk_count(),
        bytes.len(),
        bytes.len() as f64 / index.chunk_count() as f64
    );

    let mut group = c.benchmark_group("semantic_store_60k_x_384");
    group.sample_size(10);
    group.bench_function("save_to_bytes", |b| b.iter(|| index.to_bytes()));
    group.bench_function("baseline_copy_same_bytes", |b| {
        b.iter(|| black_box(&bytes).to_vec())
    });
    group.bench_function("load", |b| {
        b.iter(|| SemanticIndex::load(&workspace, index.embedder_id(), DIMENSION).unwrap())
    });
    group.bench_function("baseline_std_fs_read", |b| {
        b.iter(|| std::fs::read(black_box(&file)).unwrap())
    });
    group.finish();

    let texts: Vec<&str> = index
        .paths()
        .flat_map(|path| {
            index
                .note_chunks(path)
                .iter()
                .map(|chunk| chunk.text.as_str())
        })
        .collect();
    let mut group = c.benchmark_group("semantic_bm25_60k");
    group.sample_size(10);
    group.bench_function("bm25_build", |b| b.iter(|| Bm25Index::build(&index)));
    group.bench_function("baseline_split_words", |b| {
        b.iter(|| {
            texts
                .iter()
                .map(|text| text.to_lowercase().unicode_words().count())
                .sum::<usize>()
        })
    });
    group.finish();

    let mut small = SemanticIndex::new("bench-random", DIMENSION);
    for path in index.paths().take(CRATE_CHUNKS / PER_NOTE) {
        let chunks = index.note_chunks(path).to_vec();
        let vectors = vec![vec![0.05; DIMENSION]; chunks.len()];
        small.upsert_note(path, [0; 32], chunks, vectors).unwrap();
    }
    let documents: Vec<bm25::Document<(String, u32)>> = small
        .paths()
        .flat_map(|path| {
            small
                .note_chunks(path)
                .iter()
                .enumerate()
                .map(move |(ordinal, chunk)| {
                    bm25::Document::new((path.to_owned(), ordinal as u32), chunk.text.clone())
                })
        })
        .collect();
    let mut group = c.benchmark_group("semantic_bm25_6k");
    group.sample_size(10);
    group.bench_function("bm25_build", |b| b.iter(|| Bm25Index::build(&small)));
    group.bench_function("baseline_bm25_crate_engine", |b| {
        b.iter(|| {
            bm25::SearchEngineBuilder::<(String, u32)>::with_documents(
                bm25::Language::English,
                documents.clone(),
            )
            .build()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
