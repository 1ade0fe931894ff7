//! MiniLM over a vault's chunks against its two same-run floors (issue 26):
//!
//! - `quire_minilm`: [`MiniLm::embed`] over every chunk of the vault, in
//!   groups of [`GROUP`] chunks as [`quire_kiln::apply_plan`] hands them
//!   over (each group sorted by length, batches on every core);
//! - `onnxruntime`: the same texts through onnxruntime's fp32 BERT, sorted
//!   by length, batches of 32, every core (`onnxruntime_reference.py`,
//!   timed by itself, model load excluded), when `QUIRE_ORT_PYTHON` names a
//!   Python with onnxruntime, onnx, numpy, safetensors and tokenizers;
//! - `flop_floor`: the time this machine's best matrix product (gemm's
//!   kernels on every core, 1024×1024×1024 products: the shape they are
//!   fastest on) takes for the model's floating-point operations on these
//!   chunks' real tokens (padding excluded): [`flops`] counts them.
//!
//! It prints, for each, CPU-seconds per chunk (the process's user+system
//! time) and, for the reference, the least cosine between its vectors and
//! quire's (both must be the same model).
//!
//! ```text
//! QUIRE_MODELS_DIR=target/models QUIRE_ORT_PYTHON=.venv-ort/bin/python \
//!   QUIRE_BENCH_VAULT=path/to/vault cargo bench -p quire-kiln --bench minilm_reference
//! ```
//!
//! Without `QUIRE_BENCH_VAULT` it uses the evaluation vault in
//! `tests/fixtures/semantic_eval` (209 notes); without the model it says so
//! and measures nothing.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use quire_embed::{Embedder, MiniLm, default_models_dir, minilm_dir};
use quire_kiln::{ChunkOptions, chunk_note};

/// Chunks per `embed` call, as `apply_plan` groups them.
const GROUP: usize = 256;

/// all-MiniLM-L6-v2's shape.
const LAYERS: u64 = 6;
const HIDDEN: u64 = 384;
const INTERMEDIATE: u64 = 1536;

/// The model's floating-point operations (a multiply-add is two) for one
/// text of `tokens` tokens: per layer, the query, key, value and output
/// projections (4 · 2·n·H²), the feed-forward pair (2 · 2·n·H·I) and the
/// attention scores and weighted sum (2 · 2·n²·H). Embeddings, layer
/// norms, softmax and GELU are a few operations per value and are left out,
/// so the floor is lower than any real run's.
fn flops(tokens: u64) -> u64 {
    LAYERS
        * (8 * tokens * HIDDEN * HIDDEN
            + 4 * tokens * HIDDEN * INTERMEDIATE
            + 4 * tokens * tokens * HIDDEN)
}

/// The process's user + system CPU time so far, from `/proc/self/stat`.
fn cpu_time() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command (which is in parentheses).
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    let ticks = |index: usize| {
        fields
            .get(index)
            .and_then(|field| field.parse::<u64>().ok())
    };
    // utime and stime are the 14th and 15th fields: 12th and 13th here.
    let total = ticks(11).unwrap_or(0) + ticks(12).unwrap_or(0);
    Duration::from_millis(total * 10)
}

fn markdown_files(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|entry| entry.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            markdown_files(&path, files);
        } else if path.extension().is_some_and(|ext| ext == "md") {
            files.push(path);
        }
    }
}

/// Every chunk's text, note by note, as the index embeds them.
fn chunk_texts(vault: &Path) -> Vec<String> {
    let mut files = Vec::new();
    markdown_files(vault, &mut files);
    let options = ChunkOptions::default();
    files
        .iter()
        .filter_map(|file| {
            let text = std::fs::read_to_string(file).ok()?;
            let relative = file
                .strip_prefix(vault)
                .ok()?
                .to_string_lossy()
                .into_owned();
            Some(chunk_note(&relative, &text, &options))
        })
        .flatten()
        .map(|chunk| chunk.text)
        .collect()
}

fn embed_all(model: &MiniLm, texts: &[&str]) -> Vec<Vec<f32>> {
    texts
        .chunks(GROUP)
        .flat_map(|group| model.embed(group).expect("embedding works"))
        .collect()
}

/// What the reference script prints.
#[derive(serde::Deserialize)]
struct Reference {
    seconds: f64,
    cpu_seconds: f64,
    tokens: u64,
    padded_tokens: u64,
}

fn run_reference(
    python: &str,
    model_dir: &Path,
    texts: &Path,
    iterations: u64,
    vectors: Option<&Path>,
) -> Reference {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/onnxruntime_reference.py");
    let mut command = Command::new(python);
    command
        .arg(script)
        .arg(model_dir)
        .arg(texts)
        .arg(iterations.to_string());
    if let Some(vectors) = vectors {
        command.arg(vectors);
    }
    let output = command.output().expect("the reference Python runs");
    assert!(
        output.status.success(),
        "the onnxruntime reference failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("the reference prints its JSON line")
}

fn minilm_reference(c: &mut Criterion) {
    let Some(model_dir) = default_models_dir().map(|models| minilm_dir(&models)) else {
        eprintln!("minilm_reference skipped: no models folder (set QUIRE_MODELS_DIR)");
        return;
    };
    let Ok(model) = MiniLm::load(&model_dir) else {
        eprintln!(
            "minilm_reference skipped: the minilm model is not installed (run `quire models install`)"
        );
        return;
    };
    let vault = std::env::var_os("QUIRE_BENCH_VAULT").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/semantic_eval/vault"),
        PathBuf::from,
    );
    let texts = chunk_texts(&vault);
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let chunks = texts.len() as f64;

    // The first run: quire's vectors, for the agreement check.
    let cpu = cpu_time();
    let wall = Instant::now();
    let ours = embed_all(&model, &texts);
    let (wall, cpu) = (wall.elapsed(), cpu_time() - cpu);
    eprintln!(
        "quire minilm: {} chunks of {} in {:.2} s, {:.2} CPU-s ({:.2} ms CPU a chunk)",
        texts.len(),
        vault.display(),
        wall.as_secs_f64(),
        cpu.as_secs_f64(),
        1000.0 * cpu.as_secs_f64() / chunks
    );

    let mut group = c.benchmark_group("minilm_reference");
    group.throughput(Throughput::Elements(texts.len() as u64));
    group.sample_size(10);
    group.bench_function("quire_minilm", |b| b.iter(|| embed_all(&model, &texts)));

    let scratch = tempfile::tempdir().expect("a temporary folder");
    let texts_file = scratch.path().join("texts.json");
    std::fs::write(
        &texts_file,
        serde_json::to_vec(&texts).expect("texts serialize"),
    )
    .expect("texts written");
    match std::env::var("QUIRE_ORT_PYTHON") {
        Ok(python) => {
            let vectors_file = scratch.path().join("vectors.f32");
            let first = run_reference(&python, &model_dir, &texts_file, 1, Some(&vectors_file));
            let theirs = std::fs::read(&vectors_file).expect("the reference wrote its vectors");
            let least_cosine = ours
                .iter()
                .zip(theirs.chunks_exact(4 * HIDDEN as usize))
                .map(|(ours, theirs)| {
                    let theirs = theirs
                        .chunks_exact(4)
                        .map(|bytes| f32::from_le_bytes(bytes.try_into().expect("4 bytes")));
                    ours.iter().zip(theirs).map(|(a, b)| a * b).sum::<f32>()
                })
                .fold(f32::INFINITY, f32::min);
            eprintln!(
                "onnxruntime: {:.2} s, {:.2} CPU-s ({:.2} ms CPU a chunk); {} tokens, {} with padding; least cosine to quire's vectors {least_cosine:.5}",
                first.seconds,
                first.cpu_seconds,
                1000.0 * first.cpu_seconds / chunks,
                first.tokens,
                first.padded_tokens,
            );
            group.bench_function("onnxruntime", |b| {
                b.iter_custom(|iterations| {
                    Duration::from_secs_f64(
                        run_reference(&python, &model_dir, &texts_file, iterations, None).seconds,
                    )
                })
            });
        }
        Err(_) => eprintln!(
            "onnxruntime reference skipped: set QUIRE_ORT_PYTHON to a Python with `pip install onnxruntime onnx numpy safetensors tokenizers`"
        ),
    }

    let encodings = model.tokenize(&texts).expect("tokenization works");
    let total_flops: u64 = encodings.iter().map(|ids| flops(ids.len() as u64)).sum();
    let tokens: usize = encodings.iter().map(Vec::len).sum();
    eprintln!(
        "flop floor: {tokens} tokens, {:.1} GFLOP",
        total_flops as f64 / 1e9
    );
    group.bench_function("flop_floor", |b| {
        b.iter_custom(|iterations| {
            let (seconds, product_flops) = best_matrix_products(iterations);
            Duration::from_secs_f64(
                seconds * total_flops as f64 / product_flops * iterations as f64,
            )
        })
    });
    group.finish();
}

/// Seconds `iterations` square products of 1024 take on every core, and
/// their floating-point operations: the machine's matrix-product rate.
fn best_matrix_products(iterations: u64) -> (f64, f64) {
    const N: usize = 1024;
    let lhs = vec![1.0f32; N * N];
    let rhs = vec![0.5f32; N * N];
    let mut dst = vec![0.0f32; N * N];
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let start = Instant::now();
    for _ in 0..iterations {
        // SAFETY: the three buffers are N×N, row-major (row stride N,
        // column stride 1), and `dst` aliases neither input.
        unsafe {
            gemm::gemm(
                N,
                N,
                N,
                dst.as_mut_ptr(),
                1,
                N as isize,
                false,
                lhs.as_ptr(),
                1,
                N as isize,
                rhs.as_ptr(),
                1,
                N as isize,
                0.0,
                1.0,
                false,
                false,
                false,
                gemm::Parallelism::Rayon(threads),
            );
        }
        std::hint::black_box(&mut dst);
    }
    (
        start.elapsed().as_secs_f64(),
        iterations as f64 * 2.0 * (N * N * N) as f64,
    )
}

criterion_group!(benches, minilm_reference);
criterion_main!(benches);
