//! The `static` embedder: a text's vector is the mean of its WordPiece
//! tokens' rows in a table distilled once from the `minilm` model
//! (`super::distill`, `quire models distill`), L2-normalized. No neural
//! network runs: tens of thousands of texts a second on one core, the fast
//! tier for the first indexing of a big vault, at some cost in quality
//! (tests/semantic_eval_static.rs measures how much).
//!
//! The table is a Model2Vec model, run by Model2Vec's own Rust crate
//! `model2vec-rs` (an IDs-only WordPiece tokenizer equal to the `tokenizers`
//! crate's, and a blocked row sum); this module checks the folder against
//! its manifest, names the embedder precisely, and gives a text with no
//! known token (an empty one) the table's `empty` vector (BERT over
//! `[CLS] [SEP]`, post-processed like the rows), where `model2vec-rs`
//! returns zeros.

use std::fmt;
use std::fs;
use std::path::Path;

use candle_core::Device;
use candle_core::safetensors::SliceSafetensors;
use model2vec_rs::model::StaticModel;
use sha2::{Digest, Sha256};

use super::distill::Manifest;
use super::models::{
    DISTILL_COMMAND, INSTALL_COMMAND, MANIFEST_FILE, STATIC_REQUIRED_FILES as REQUIRED_FILES,
};
use super::{EmbedError, Embedder};

/// The embedder's name, in messages and in its id.
const NAME: &str = "static";

/// Tokens of a text that count (Model2Vec's default): the rest of a long
/// text is cut, as `minilm` cuts at 256.
pub(crate) const MAX_TOKENS: usize = 512;

/// A Model2Vec static table distilled from all-MiniLM-L6-v2.
pub struct StaticEmbedder {
    model: StaticModel,
    /// The unit vector of a text without a known token.
    empty: Vec<f32>,
    dimension: usize,
    id: String,
}

impl fmt::Debug for StaticEmbedder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StaticEmbedder")
            .field("id", &self.id)
            .field("dimension", &self.dimension)
            .finish_non_exhaustive()
    }
}

impl StaticEmbedder {
    /// Loads the table from `dir` (the folder `quire models distill` fills:
    /// [`super::models::static_dir`] of the models folder), checking it
    /// against its manifest.
    ///
    /// ```no_run
    /// use quire_embed::{Embedder, StaticEmbedder, cosine, default_models_dir, static_dir};
    ///
    /// let models = default_models_dir().expect("a models folder");
    /// let table = StaticEmbedder::load(&static_dir(&models))?;
    /// let vectors = table.embed(&["a happy person", "a very happy person"])?;
    /// assert!(cosine(&vectors[0], &vectors[1]) > 0.8);
    /// # Ok::<(), quire_embed::EmbedError>(())
    /// ```
    pub fn load(dir: &Path) -> Result<StaticEmbedder, EmbedError> {
        if let Some(missing) = REQUIRED_FILES.iter().find(|name| !dir.join(name).is_file()) {
            return Err(EmbedError::NotInstalled {
                embedder: NAME.to_owned(),
                help: format!(
                    "{} has no {missing}; run `{DISTILL_COMMAND}` (it needs the minilm model: `{INSTALL_COMMAND}` first), or both with `--models-dir DIR` and set QUIRE_MODELS_DIR=DIR",
                    dir.display()
                ),
            });
        }
        let load_error = |what: &str, reason: String| EmbedError::Load {
            embedder: NAME.to_owned(),
            reason: format!(
                "{what} in {}: {reason}; distill it again with `{DISTILL_COMMAND}`",
                dir.display()
            ),
        };
        let read = |name: &str| {
            fs::read(dir.join(name)).map_err(|error| load_error(name, error.to_string()))
        };

        let manifest: Manifest = serde_json::from_slice(&read(MANIFEST_FILE)?)
            .map_err(|error| load_error(MANIFEST_FILE, error.to_string()))?;
        let table = read("model.safetensors")?;
        let table_sha256: String = Sha256::digest(&table)
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect();
        if table_sha256 != manifest.table_sha256 {
            return Err(load_error(
                "model.safetensors",
                format!(
                    "its SHA-256 is {table_sha256}, not the {} its manifest names (damaged or replaced)",
                    manifest.table_sha256
                ),
            ));
        }
        let model = StaticModel::from_bytes(
            read("tokenizer.json")?,
            &table,
            read("config.json")?,
            Some(true),
        )
        .map_err(|error| load_error("the Model2Vec model", format!("{error:#}")))?;
        let mut empty = SliceSafetensors::new(&table)
            .and_then(|tensors| tensors.load("empty", &Device::Cpu))
            .and_then(|tensor| tensor.to_vec1::<f32>())
            .map_err(|error| load_error("model.safetensors (tensor `empty`)", error.to_string()))?;
        super::normalize(&mut empty);
        let dimension = model.dim();
        if dimension != manifest.dimension || empty.len() != dimension {
            return Err(load_error(
                "model.safetensors",
                format!(
                    "rows of {dimension} and an empty vector of {}, where the manifest says {}",
                    empty.len(),
                    manifest.dimension
                ),
            ));
        }
        let short_sha = &manifest.table_sha256[..manifest.table_sha256.len().min(12)];
        Ok(StaticEmbedder {
            model,
            empty,
            dimension,
            id: format!(
                "{NAME}:{}:{}:{MAX_TOKENS}:{short_sha}",
                manifest.source, manifest.recipe
            ),
        })
    }
}

impl Embedder for StaticEmbedder {
    /// `static:all-MiniLM-L6-v2:<recipe>:512:<first 12 hex digits of the
    /// table's SHA-256>`: two distillations that differ in one bit have
    /// different ids.
    fn id(&self) -> &str {
        &self.id
    }

    fn dimension(&self) -> usize {
        self.dimension
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let texts: Vec<String> = texts.iter().map(|&text| text.to_owned()).collect();
        let mut vectors = self
            .model
            .encode_with_args(&texts, Some(MAX_TOKENS), texts.len().max(1));
        for vector in &mut vectors {
            // model2vec-rs gives zeros to a text without a known token.
            if vector.iter().all(|&x| x == 0.0) {
                vector.clone_from(&self.empty);
            } else {
                super::normalize(vector);
            }
        }
        Ok(vectors)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use candle_core::Tensor;

    use super::*;

    const VOCABULARY: [&str; 7] = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "garden", "river", "##s"];

    /// A BERT-style tokenizer over [`VOCABULARY`].
    fn tokenizer_json() -> String {
        let vocab: serde_json::Map<String, serde_json::Value> = VOCABULARY
            .iter()
            .enumerate()
            .map(|(id, token)| ((*token).to_owned(), id.into()))
            .collect();
        let added: Vec<_> = VOCABULARY[..4]
            .iter()
            .enumerate()
            .map(|(id, token)| {
                serde_json::json!({"id": id, "content": token, "single_word": false, "lstrip": false,
                    "rstrip": false, "normalized": false, "special": true})
            })
            .collect();
        serde_json::json!({
            "version": "1.0", "truncation": null, "padding": null, "added_tokens": added,
            "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
                "strip_accents": null, "lowercase": true},
            "pre_tokenizer": {"type": "BertPreTokenizer"}, "post_processor": null, "decoder": null,
            "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                "max_input_chars_per_word": 100, "vocab": vocab}
        })
        .to_string()
    }

    /// Row `id` is 1 at column `id % 3`, times `id`: three directions.
    fn table() -> Vec<f32> {
        (0..VOCABULARY.len())
            .flat_map(|id| (0..3).map(move |column| if column == id % 3 { id as f32 } else { 0.0 }))
            .collect()
    }

    /// A static folder over the made-up vocabulary, as `distill` lays it out.
    fn folder() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path();
        let embeddings = Tensor::from_vec(table(), (VOCABULARY.len(), 3), &Device::Cpu).unwrap();
        let empty = Tensor::from_vec(vec![0.0f32, 0.0, 2.0], 3, &Device::Cpu).unwrap();
        let table_path = path.join("model.safetensors");
        candle_core::safetensors::save(
            &HashMap::from([("embeddings", embeddings), ("empty", empty)]),
            &table_path,
        )
        .unwrap();
        fs::write(path.join("tokenizer.json"), tokenizer_json()).unwrap();
        fs::write(path.join("config.json"), r#"{"normalize": true}"#).unwrap();
        let manifest = Manifest {
            format: 1,
            source: "all-MiniLM-L6-v2".to_owned(),
            source_sha256: "00".to_owned(),
            recipe: "test".to_owned(),
            table_sha256: super::super::distill::file_sha256(&table_path).unwrap(),
            vocabulary: VOCABULARY.len(),
            dimension: 3,
        };
        fs::write(
            path.join(MANIFEST_FILE),
            serde_json::to_vec(&manifest).unwrap(),
        )
        .unwrap();
        dir
    }

    #[test]
    fn a_text_is_the_normalized_mean_of_its_tokens_rows() {
        let dir = folder();
        let model = StaticEmbedder::load(dir.path()).unwrap();
        assert_eq!(model.dimension(), 3);
        assert!(
            model.id().starts_with("static:all-MiniLM-L6-v2:test:512:"),
            "{}",
            model.id()
        );
        assert_eq!(
            model.id().len(),
            "static:all-MiniLM-L6-v2:test:512:".len() + 12
        );
        // garden = 4 → [0, 4, 0]; river = 5 → [0, 0, 5]; "rivers" = river ##s
        // (6 → [6, 0, 0]); unknown words are left out of the mean.
        let vectors = model
            .embed(&["Garden", "garden river", "rivers", "garden zebra"])
            .unwrap();
        assert_eq!(vectors[0], [0.0, 1.0, 0.0]);
        let third = |x: f32, y: f32, z: f32| {
            let mut v = vec![x, y, z];
            crate::normalize(&mut v);
            v
        };
        assert_eq!(vectors[1], third(0.0, 4.0, 5.0));
        assert_eq!(vectors[2], third(6.0, 0.0, 5.0));
        assert_eq!(vectors[3], [0.0, 1.0, 0.0]);
    }

    #[test]
    fn a_text_without_a_known_token_gets_the_empty_vector() {
        let dir = folder();
        let model = StaticEmbedder::load(dir.path()).unwrap();
        let vectors = model.embed(&["", "zebra", "   "]).unwrap();
        for vector in vectors {
            assert_eq!(vector, [0.0, 0.0, 1.0]);
        }
        assert!(model.embed(&[]).unwrap().is_empty());
    }

    #[test]
    fn a_missing_folder_says_to_distill() {
        let dir = tempfile::tempdir().unwrap();
        let error = StaticEmbedder::load(&dir.path().join("nothing")).unwrap_err();
        let message = error.to_string();
        assert!(
            matches!(error, EmbedError::NotInstalled { .. }),
            "{message}"
        );
        assert!(
            message.contains("has no model.safetensors; run `quire models distill`"),
            "{message}"
        );
    }

    #[test]
    fn a_damaged_table_is_a_load_error_naming_the_fix() {
        let dir = folder();
        let table = dir.path().join("model.safetensors");
        let mut bytes = fs::read(&table).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        fs::write(&table, &bytes).unwrap();
        let error = StaticEmbedder::load(dir.path()).unwrap_err();
        let message = error.to_string();
        assert!(matches!(error, EmbedError::Load { .. }), "{message}");
        assert!(message.contains("not the"), "{message}");
        assert!(
            message.contains("distill it again with `quire models distill`"),
            "{message}"
        );
    }

    #[test]
    fn broken_files_are_load_errors_not_panics() {
        for (name, contents) in [
            (MANIFEST_FILE, "{"),
            ("tokenizer.json", "{}"),
            ("config.json", "["),
        ] {
            let dir = folder();
            fs::write(dir.path().join(name), contents).unwrap();
            let error = StaticEmbedder::load(dir.path()).unwrap_err();
            assert!(matches!(error, EmbedError::Load { .. }), "{name}: {error}");
        }
    }
}
