//! A TEST-ONLY embedder: feature hashing of lowercase words into 64
//! dimensions, normalized. It knows no meaning (two synonyms share nothing),
//! only shared words; it exists so that the semantic index's tests run
//! deterministically without a model. Never a product embedder: it is
//! compiled only into tests.

use quire_embed::{EmbedError, Embedder, normalize};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Words hashed into 64 buckets; counts the texts it embedded.
#[derive(Debug, Default)]
pub(crate) struct HashingEmbedder {
    /// How many texts [`Embedder::embed`] was given, over all calls.
    pub(crate) texts_embedded: AtomicUsize,
}

impl HashingEmbedder {
    /// Its vectors' length.
    pub(crate) const DIMENSION: usize = 64;

    /// A new embedder that has embedded nothing yet.
    pub(crate) fn new() -> Self {
        HashingEmbedder::default()
    }

    /// How many texts it embedded so far.
    pub(crate) fn count(&self) -> usize {
        self.texts_embedded.load(Ordering::Relaxed)
    }
}

impl Embedder for HashingEmbedder {
    fn id(&self) -> &str {
        "test-hashing-64"
    }

    fn dimension(&self) -> usize {
        Self::DIMENSION
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.texts_embedded
            .fetch_add(texts.len(), Ordering::Relaxed);
        Ok(texts
            .iter()
            .map(|text| {
                let mut vector = vec![0.0; Self::DIMENSION];
                for word in text
                    .split(|c: char| !c.is_alphanumeric())
                    .filter(|w| !w.is_empty())
                {
                    // FNV-1a (stable across runs and platforms), then a
                    // murmur3 finish: FNV's low bits alone spread similar
                    // words (`n403`, `n450`) poorly over 64 buckets.
                    let mut hash = word
                        .to_lowercase()
                        .bytes()
                        .fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
                        });
                    hash ^= hash >> 33;
                    hash = hash.wrapping_mul(0xff51_afd7_ed55_8ccd);
                    hash ^= hash >> 33;
                    vector[(hash % Self::DIMENSION as u64) as usize] += 1.0;
                }
                normalize(&mut vector);
                vector
            })
            .collect())
    }
}
