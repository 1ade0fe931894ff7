//! Text embedders for the kiln's semantic search (issue 12): each turns
//! texts into unit-length vectors whose dot product says how close their
//! meanings are.
//!
//! One trait, [`Embedder`], with an implementation per tier: `minilm`
//! (sentence-transformers all-MiniLM-L6-v2 run in Rust), `static` (a
//! Model2Vec-style table distilled from it) and `http` (any
//! OpenAI-compatible `/v1/embeddings`). An index records the
//! [`Embedder::id`] and [`Embedder::dimension`] it was built with and is
//! never queried with another.
//!
//! The feature `semantic` (on by default) is the one switch for the
//! models run in process: `minilm` and `static` (the `gemm` crate, candle
//! for reading safetensors, the `tokenizers` crate, `model2vec-rs`) and the static table's distillation
//! ([`distill`]). The `http` embedder, [`EmbedderChoice`] and the models
//! folder's layout ([`models`]) are in every build. Installing the model
//! (downloads, progress bars) is the `quire` binary's work, not this
//! crate's.

use std::fmt;

#[cfg(feature = "semantic")]
mod bert;
mod choice;
#[cfg(feature = "semantic")]
pub mod distill;
mod http;
#[cfg(feature = "semantic")]
mod minilm;
pub mod models;
#[cfg(feature = "semantic")]
mod static_table;

pub use choice::EmbedderChoice;
pub use http::{HttpEmbedder, HttpEmbedderConfig};
#[cfg(feature = "semantic")]
pub use minilm::{BATCH_SIZE as MINILM_BATCH_SIZE, MiniLm};
pub use models::{default_models_dir, minilm_dir, static_dir};
#[cfg(feature = "semantic")]
pub use static_table::StaticEmbedder;

/// An embedder's failure: what went wrong and what to do.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EmbedError {
    /// The embedder's files are not installed.
    #[error("the `{embedder}` embedder is not installed: {help}")]
    NotInstalled {
        /// The embedder's name.
        embedder: String,
        /// How to install it (a command to run).
        help: String,
    },
    /// Its files are there but cannot be used.
    #[error("the `{embedder}` embedder cannot be loaded: {reason}")]
    Load {
        /// The embedder's name.
        embedder: String,
        /// Why.
        reason: String,
    },
    /// Embedding failed.
    #[error("embedding failed: {0}")]
    Embed(String),
    /// An in-process embedder (`minilm`, `static`) in a build without the
    /// `semantic` feature.
    #[error(
        "the `{embedder}` embedder is not in this build: it runs in process, which needs the `semantic` feature; rebuild with `--features semantic`, or use the `http` embedder"
    )]
    NotBuilt {
        /// The embedder's name.
        embedder: String,
    },
}

/// Turns texts into vectors.
pub trait Embedder: Send + Sync + fmt::Debug {
    /// What made the vectors, precisely enough that vectors made by another
    /// model or configuration never share an index: e.g.
    /// `minilm:all-MiniLM-L6-v2:mean:256`.
    fn id(&self) -> &str;

    /// The length of every vector.
    fn dimension(&self) -> usize;

    /// One L2-normalized vector of [`Embedder::dimension`] floats per text,
    /// in order. An empty text gets a vector too.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError>;
}

/// The cosine similarity of two unit vectors (their dot product).
///
/// ```
/// assert_eq!(quire_embed::cosine(&[0.6, 0.8], &[0.6, 0.8]), 1.0);
/// assert_eq!(quire_embed::cosine(&[1.0, 0.0], &[0.0, 1.0]), 0.0);
/// ```
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// `vector` scaled to unit length (left as it is when all zeros).
pub fn normalize(vector: &mut [f32]) {
    let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        vector.iter_mut().for_each(|x| *x /= norm);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalized_vectors_have_unit_length() {
        let mut vector = vec![3.0, 4.0];
        normalize(&mut vector);
        assert_eq!(vector, [0.6, 0.8]);
        let mut zeros = vec![0.0; 3];
        normalize(&mut zeros);
        assert_eq!(zeros, [0.0; 3]);
    }
}
