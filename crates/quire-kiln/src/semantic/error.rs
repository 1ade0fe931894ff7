//! What can go wrong with the semantic index, said so that the caller
//! knows what to do.

use quire_embed::EmbedError;
use quire_fs::FsError;

/// A semantic index's failure.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SemanticError {
    /// A vector (stored or a query) of the wrong length.
    #[error(
        "a vector has {found} dimensions where the index (embedder `{embedder}`) holds {expected}: embed with the embedder the index was built with"
    )]
    Dimension {
        /// The index's embedder id.
        embedder: String,
        /// The index's dimension.
        expected: usize,
        /// The vector's length.
        found: usize,
    },
    /// A note given a number of vectors other than its number of chunks.
    #[error(
        "`{path}` has {chunks} chunks but {vectors} vectors were given: embed every chunk once"
    )]
    VectorCount {
        /// The note.
        path: String,
        /// How many chunks.
        chunks: usize,
        /// How many vectors.
        vectors: usize,
    },
    /// A vector holding NaN or an infinity, which would poison every score.
    #[error("a vector of `{path}` holds a value that is not a finite number: the embedder failed")]
    NotFinite {
        /// The note.
        path: String,
    },
    /// The index was built by another embedder, or with another dimension:
    /// its vectors cannot be compared with this one's.
    #[error(
        "`{file}` was built by embedder `{found_id}` ({found_dimension} dimensions), not `{wanted_id}` ({wanted_dimension}): it is rebuilt from the notes"
    )]
    OtherEmbedder {
        /// The index file.
        file: String,
        /// The embedder that built it.
        found_id: String,
        /// Its dimension.
        found_dimension: usize,
        /// The embedder asked for.
        wanted_id: String,
        /// Its dimension.
        wanted_dimension: usize,
    },
    /// The index file is not one this version reads: truncated, damaged,
    /// or not an index at all.
    #[error("`{file}` is not a readable semantic index ({reason}): it is rebuilt from the notes")]
    Corrupt {
        /// The index file.
        file: String,
        /// What was wrong.
        reason: String,
    },
    /// Reading or writing a file failed.
    #[error(transparent)]
    Fs(#[from] FsError),
    /// The embedder failed.
    #[error(transparent)]
    Embed(#[from] EmbedError),
}
