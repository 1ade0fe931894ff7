//! The `minilm` embedder: sentence-transformers all-MiniLM-L6-v2 run on the
//! CPU in pure Rust (candle's BERT, the `tokenizers` WordPiece tokenizer),
//! computing what `SentenceTransformer("all-MiniLM-L6-v2").encode(texts,
//! normalize_embeddings=True)` computes: BERT over at most 256 tokens, mean
//! pooling over the real (unpadded) tokens, L2 normalization, 384 floats.
//!
//! The model's `tokenizer.json` pads and truncates every text to 128 tokens
//! (it was saved from the Hugging Face tokenizer), but sentence-transformers
//! truncates at its own `max_seq_length` (256, in
//! `sentence_bert_config.json`) and pads per batch; this module does the
//! same: it reads `max_seq_length`, turns the file's padding off, and pads
//! each batch to its longest text. Texts are batched by length, so short
//! texts are not padded to a long one's length.

use std::fmt;
use std::path::Path;

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use tokenizers::{Tokenizer, TruncationParams};

use super::models::{INSTALL_COMMAND, MINILM_REQUIRED_FILES as REQUIRED_FILES};
use super::{EmbedError, Embedder};

/// The embedder's name, in messages and in its id.
const NAME: &str = "minilm";

/// How many texts go through the model at once: large enough to keep the
/// matrix products efficient, small enough that a batch of 256-token texts
/// stays in a few hundred MB.
pub const BATCH_SIZE: usize = 32;

/// sentence-transformers all-MiniLM-L6-v2 on the CPU.
pub struct MiniLm {
    model: BertModel,
    tokenizer: Tokenizer,
    dimension: usize,
    id: String,
    device: Device,
}

impl fmt::Debug for MiniLm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MiniLm")
            .field("id", &self.id)
            .field("dimension", &self.dimension)
            .finish_non_exhaustive()
    }
}

/// The part of `sentence_bert_config.json` used.
#[derive(serde::Deserialize)]
struct SentenceBertConfig {
    max_seq_length: usize,
}

impl MiniLm {
    /// Loads the model from `dir` (the `all-MiniLM-L6-v2` folder that
    /// `quire models install` fills: `model.safetensors`, `tokenizer.json`,
    /// `config.json`, `sentence_bert_config.json`).
    ///
    /// ```no_run
    /// use quire_embed::{Embedder, MiniLm, cosine, default_models_dir, minilm_dir};
    ///
    /// let models = default_models_dir().expect("a models folder");
    /// let minilm = MiniLm::load(&minilm_dir(&models))?;
    /// let vectors = minilm.embed(&["That is a happy person", "That is a very happy person"])?;
    /// assert!(cosine(&vectors[0], &vectors[1]) > 0.9);
    /// # Ok::<(), quire_embed::EmbedError>(())
    /// ```
    pub fn load(dir: &Path) -> Result<MiniLm, EmbedError> {
        if let Some(missing) = REQUIRED_FILES.iter().find(|name| !dir.join(name).is_file()) {
            return Err(EmbedError::NotInstalled {
                embedder: NAME.to_owned(),
                help: format!(
                    "{} has no {missing}; run `{INSTALL_COMMAND}` (or `{INSTALL_COMMAND} --models-dir DIR` and set QUIRE_MODELS_DIR=DIR)",
                    dir.display()
                ),
            });
        }
        let load_error = |what: &str, reason: String| EmbedError::Load {
            embedder: NAME.to_owned(),
            reason: format!(
                "{what} in {}: {reason}; reinstall it with `{INSTALL_COMMAND}`",
                dir.display()
            ),
        };
        let read = |name: &str| {
            std::fs::read(dir.join(name)).map_err(|error| load_error(name, error.to_string()))
        };

        let config: Config = serde_json::from_slice(&read("config.json")?)
            .map_err(|error| load_error("config.json", error.to_string()))?;
        let sentence: SentenceBertConfig =
            serde_json::from_slice(&read("sentence_bert_config.json")?)
                .map_err(|error| load_error("sentence_bert_config.json", error.to_string()))?;
        let max_length = sentence.max_seq_length.min(config.max_position_embeddings);

        let mut tokenizer = Tokenizer::from_bytes(read("tokenizer.json")?)
            .map_err(|error| load_error("tokenizer.json", error.to_string()))?;
        // Padding is done per batch below; truncation at sentence-transformers'
        // length, not the 128 saved in the file.
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length,
                ..TruncationParams::default()
            }))
            .map_err(|error| load_error("tokenizer.json", error.to_string()))?;

        let device = Device::Cpu;
        let weights =
            VarBuilder::from_buffered_safetensors(read("model.safetensors")?, DType::F32, &device)
                .map_err(|error| load_error("model.safetensors", error.to_string()))?;
        let model = BertModel::load(weights, &config)
            .map_err(|error| load_error("model.safetensors", error.to_string()))?;

        Ok(MiniLm {
            model,
            tokenizer,
            dimension: config.hidden_size,
            id: format!("{NAME}:all-MiniLM-L6-v2:mean:{max_length}"),
            device,
        })
    }

    /// The WordPiece tokenizer (`quire models distill` runs its whole
    /// vocabulary through the model).
    pub(crate) fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    /// One batch of token id sequences through BERT, mean-pooled and
    /// normalized.
    fn embed_batch(&self, batch: &[&[u32]]) -> candle_core::Result<Vec<Vec<f32>>> {
        let mut vectors = self.mean_pooled(batch)?;
        vectors
            .iter_mut()
            .for_each(|vector| super::normalize(vector));
        Ok(vectors)
    }

    /// One batch of token id sequences (special tokens included, as given)
    /// through BERT, mean-pooled over each sequence's tokens, not
    /// normalized: the distillation (`super::distill`) keeps the norms,
    /// which weigh tokens when the static table is mean-pooled.
    pub(crate) fn mean_pooled(&self, batch: &[&[u32]]) -> candle_core::Result<Vec<Vec<f32>>> {
        let longest = batch.iter().map(|ids| ids.len()).max().unwrap_or(0);
        let mut ids = Vec::with_capacity(batch.len() * longest);
        let mut mask = Vec::with_capacity(batch.len() * longest);
        for tokens in batch {
            ids.extend_from_slice(tokens);
            ids.extend(std::iter::repeat_n(0, longest - tokens.len()));
            mask.extend(std::iter::repeat_n(1u32, tokens.len()));
            mask.extend(std::iter::repeat_n(0u32, longest - tokens.len()));
        }
        let shape = (batch.len(), longest);
        let ids = Tensor::from_vec(ids, shape, &self.device)?;
        let mask = Tensor::from_vec(mask, shape, &self.device)?;
        let token_types = ids.zeros_like()?;
        let hidden = self.model.forward(&ids, &token_types, Some(&mask))?;

        // Mean over the real tokens: padded positions weigh zero.
        let weights = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
        let summed = hidden.broadcast_mul(&weights)?.sum(1)?;
        let counts = weights.sum(1)?.clamp(1e-9, f32::MAX)?;
        summed.broadcast_div(&counts)?.to_vec2::<f32>()
    }
}

impl Embedder for MiniLm {
    fn id(&self) -> &str {
        &self.id
    }

    fn dimension(&self) -> usize {
        self.dimension
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|error| EmbedError::Embed(format!("tokenization failed: {error}")))?;
        // Batches of similar lengths: sorting by length keeps padding (wasted
        // work) small; the vectors go back in the texts' order.
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&index| encodings[index].get_ids().len());
        let mut vectors = vec![Vec::new(); texts.len()];
        for indices in order.chunks(BATCH_SIZE) {
            let batch: Vec<&[u32]> = indices
                .iter()
                .map(|&index| encodings[index].get_ids())
                .collect();
            let embedded = self
                .embed_batch(&batch)
                .map_err(|error| EmbedError::Embed(error.to_string()))?;
            for (&index, vector) in indices.iter().zip(embedded) {
                vectors[index] = vector;
            }
        }
        Ok(vectors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_without_the_model_says_how_to_install_it() {
        let dir = tempfile::tempdir().unwrap();
        let error = MiniLm::load(dir.path()).unwrap_err();
        let message = error.to_string();
        assert!(
            matches!(error, EmbedError::NotInstalled { .. }),
            "{message}"
        );
        assert!(message.contains("has no model.safetensors"), "{message}");
        assert!(message.contains("run `quire models install`"), "{message}");
    }

    #[test]
    fn broken_files_are_a_load_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        for name in REQUIRED_FILES {
            std::fs::write(dir.path().join(name), b"{}").unwrap();
        }
        let error = MiniLm::load(dir.path()).unwrap_err();
        let message = error.to_string();
        assert!(matches!(error, EmbedError::Load { .. }), "{message}");
        assert!(message.contains("config.json in "), "{message}");
        assert!(
            message.contains("reinstall it with `quire models install`"),
            "{message}"
        );
    }
}
