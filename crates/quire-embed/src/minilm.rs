//! The `minilm` embedder: sentence-transformers all-MiniLM-L6-v2 run on the
//! CPU in pure Rust (our BERT forward pass, [`crate::bert`], on the `gemm`
//! crate's matrix products; the `tokenizers` WordPiece tokenizer),
//! computing what `SentenceTransformer("all-MiniLM-L6-v2").encode(texts,
//! normalize_embeddings=True)` computes: BERT over at most 256 tokens, mean
//! pooling over the real (unpadded) tokens, L2 normalization, 384 floats.
//!
//! The model's `tokenizer.json` pads and truncates every text to 128 tokens
//! (it was saved from the Hugging Face tokenizer), but sentence-transformers
//! truncates at its own `max_seq_length` (256, in
//! `sentence_bert_config.json`) and pads per batch; this module does the
//! same: it reads `max_seq_length` and turns the file's padding off; the
//! forward pass packs a batch's texts without padding at all.

use std::fmt;
use std::path::Path;

use candle_core::DType;
use candle_core::safetensors::SliceSafetensors;
use tokenizers::{Tokenizer, TruncationParams};

use super::bert::{Bert, Shape, Tensors};

use super::models::{INSTALL_COMMAND, MINILM_REQUIRED_FILES as REQUIRED_FILES};
use super::{EmbedError, Embedder};

/// The embedder's name, in messages and in its id.
const NAME: &str = "minilm";

/// How many texts go through the model at once, on one core: large enough
/// to keep the matrix products efficient, small enough that a batch of
/// 256-token texts stays in a few tens of MB.
pub const BATCH_SIZE: usize = 32;

/// sentence-transformers all-MiniLM-L6-v2 on the CPU.
pub struct MiniLm {
    model: Bert,
    tokenizer: Tokenizer,
    dimension: usize,
    id: String,
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

/// The part of the model's `config.json` used.
#[derive(serde::Deserialize)]
struct Config {
    hidden_size: usize,
    num_attention_heads: usize,
    intermediate_size: usize,
    num_hidden_layers: usize,
    max_position_embeddings: usize,
    vocab_size: usize,
    layer_norm_eps: f64,
    hidden_act: String,
    #[serde(default = "absolute")]
    position_embedding_type: String,
}

fn absolute() -> String {
    "absolute".to_owned()
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

        if config.hidden_act != "gelu" || config.position_embedding_type != "absolute" {
            return Err(load_error(
                "config.json",
                format!(
                    "this BERT uses {} and {} position embeddings; only gelu and absolute ones are supported",
                    config.hidden_act, config.position_embedding_type
                ),
            ));
        }
        let shape = Shape {
            hidden: config.hidden_size,
            heads: config.num_attention_heads,
            intermediate: config.intermediate_size,
            layers: config.num_hidden_layers,
            max_positions: config.max_position_embeddings,
            vocabulary: config.vocab_size,
        };
        let weights = read("model.safetensors")?;
        let tensors =
            checkpoint_tensors(&weights).map_err(|error| load_error("model.safetensors", error))?;
        let model = Bert::new(shape, config.layer_norm_eps as f32, tensors)
            .map_err(|error| load_error("model.safetensors", error))?;

        Ok(MiniLm {
            model,
            tokenizer,
            dimension: config.hidden_size,
            id: format!("{NAME}:all-MiniLM-L6-v2:mean:{max_length}"),
        })
    }

    /// The WordPiece tokenizer (`quire models distill` runs its whole
    /// vocabulary through the model).
    pub(crate) fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    /// Each text's token ids as the model reads them: WordPiece, `[CLS]`
    /// and `[SEP]` added, truncated at the model's `max_seq_length`.
    ///
    /// ```no_run
    /// use quire_embed::{MiniLm, default_models_dir, minilm_dir};
    ///
    /// let models = default_models_dir().expect("a models folder");
    /// let minilm = MiniLm::load(&minilm_dir(&models))?;
    /// let ids = minilm.tokenize(&["Hello, world"])?;
    /// assert_eq!(ids[0].len(), 5); // [CLS] hello , world [SEP]
    /// # Ok::<(), quire_embed::EmbedError>(())
    /// ```
    pub fn tokenize(&self, texts: &[&str]) -> Result<Vec<Vec<u32>>, EmbedError> {
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|error| EmbedError::Embed(format!("tokenization failed: {error}")))?;
        Ok(encodings
            .into_iter()
            .map(|encoding| encoding.get_ids().to_vec())
            .collect())
    }

    /// Token id sequences (special tokens included, as given) through
    /// BERT, mean-pooled over each sequence's tokens, not normalized: the
    /// distillation (`super::distill`) keeps the norms, which weigh tokens
    /// when the static table is mean-pooled. Batches of [`BATCH_SIZE`]
    /// run on every core at once.
    pub(crate) fn mean_pooled(&self, sequences: &[&[u32]]) -> Result<Vec<Vec<f32>>, String> {
        let mut batches: Vec<(usize, &[&[u32]])> =
            sequences.chunks(BATCH_SIZE).enumerate().collect();
        // The costliest batches first, so that the cores end together: the
        // last batch taken is the cheapest, and the other cores wait on it
        // the least.
        batches.sort_by_key(|(_, batch)| std::cmp::Reverse(batch_cost(batch)));
        let pooled = on_every_core(&batches, |(_, batch)| self.model.mean_pooled(batch))?;
        let mut in_order: Vec<(usize, Vec<Vec<f32>>)> = batches
            .iter()
            .map(|(place, _)| *place)
            .zip(pooled)
            .collect();
        in_order.sort_by_key(|(place, _)| *place);
        Ok(in_order.into_iter().flat_map(|(_, rows)| rows).collect())
    }
}

/// A batch's work, roughly: the dense layers grow with its tokens, the
/// attention with each text's tokens squared (about one 2,300th as much
/// per token pair in all-MiniLM-L6-v2).
fn batch_cost(batch: &[&[u32]]) -> usize {
    batch
        .iter()
        .map(|ids| ids.len() * 2_300 + ids.len() * ids.len())
        .sum()
}

/// Every tensor of a safetensors checkpoint, as `f32`.
fn checkpoint_tensors(bytes: &[u8]) -> Result<Tensors, String> {
    let file = SliceSafetensors::new(bytes).map_err(|error| error.to_string())?;
    file.tensors()
        .into_iter()
        .filter(|(name, _)| !name.ends_with("position_ids"))
        .map(|(name, _)| {
            let tensor = file
                .load(&name, &candle_core::Device::Cpu)
                .and_then(|tensor| tensor.to_dtype(DType::F32))
                .and_then(|tensor| Ok((tensor.dims().to_vec(), tensor.flatten_all()?.to_vec1()?)))
                .map_err(|error| format!("tensor {name}: {error}"))?;
            Ok((name, tensor))
        })
        .collect()
}

impl Embedder for MiniLm {
    fn id(&self) -> &str {
        &self.id
    }

    fn dimension(&self) -> usize {
        self.dimension
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let encodings = self.tokenize(texts)?;
        // Texts of similar lengths together: each batch is a core's share
        // of the work, so batches of equal work end together.
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&index| encodings[index].len());
        let sorted: Vec<&[u32]> = order
            .iter()
            .map(|&index| encodings[index].as_slice())
            .collect();
        let pooled = self.mean_pooled(&sorted).map_err(EmbedError::Embed)?;
        let mut vectors = vec![Vec::new(); texts.len()];
        for (&index, mut vector) in order.iter().zip(pooled) {
            super::normalize(&mut vector);
            vectors[index] = vector;
        }
        Ok(vectors)
    }
}

/// `work` applied to each of `items`, on one thread per core (at most one
/// per item), the results in the items' order; the first error stops the
/// others from taking more items.
///
/// A batch runs on one thread, start to end: batches side by side keep
/// every core busy without the cores waiting on each other inside a batch.
fn on_every_core<T: Sync, R: Send, E: Send + From<&'static str>>(
    items: &[T],
    work: impl Fn(&T) -> Result<R, E> + Sync,
) -> Result<Vec<R>, E> {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(items.len());
    if threads <= 1 {
        return items.iter().map(work).collect();
    }
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let results: Mutex<Vec<Option<Result<R, E>>>> =
        Mutex::new(items.iter().map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                while !failed.load(Ordering::Relaxed) {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(index) else { break };
                    let result = work(item);
                    failed.fetch_or(result.is_err(), Ordering::Relaxed);
                    results.lock().unwrap_or_else(|poison| poison.into_inner())[index] =
                        Some(result);
                }
            });
        }
    });
    let results = results
        .into_inner()
        .unwrap_or_else(|poison| poison.into_inner());
    // Items after a failure were never taken: the failure is reported.
    let mut done = Vec::with_capacity(items.len());
    let mut first_error = None;
    for result in results {
        match result {
            Some(Ok(value)) => done.push(value),
            Some(Err(error)) => {
                first_error.get_or_insert(error);
            }
            None => {}
        }
    }
    match first_error {
        Some(error) => Err(error),
        None if done.len() == items.len() => Ok(done),
        None => Err(E::from(
            "an embedding thread stopped before its batch was done",
        )),
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
