//! The kiln's semantic index (issue 12), independent of which embedder
//! made its vectors:
//!
//! - [`chunk_note`]: a note cut into heading sections (long ones split at
//!   paragraphs), each with its byte span, heading path and the text to
//!   embed (`grammar/markdown.ebnf`, "chunks");
//! - [`SemanticIndex`]: the vectors of every chunk of every note, flat and
//!   contiguous, with each note's content digest so an unchanged note is
//!   never embedded again; an exact cosine scan with a top-k heap returns
//!   the best notes ([`Hit`]); persisted as one flat file in `.quire/`
//!   through the confined file layer ([`SemanticIndex::save`],
//!   [`SemanticIndex::load`]);
//! - [`refresh`] (or [`plan_refresh`] then [`apply_plan`]): bring an index
//!   up to date with the notes on disk, embedding only what changed;
//! - `LiveSemantic`: the index as the server keeps it, loaded and kept
//!   in step with the notes on a thread of its own; `SemanticTiers`:
//!   several of them, best first, the best complete one answering;
//! - [`Bm25Index`] and [`hybrid_search`]: BM25 over the same chunks, fused
//!   with the semantic ranking by weighted reciprocal rank fusion.
//!
//! Why exact search: at the sizes a vault reaches (100k chunks of 384
//! floats is 150 MiB), one pass over contiguous vectors takes milliseconds
//! (`benches/semantic_query.rs`), and an approximate index would trade
//! recall for speed nobody needs yet.

mod build;
mod chunk;
mod error;
mod hybrid;
mod live;
mod persist;
mod store;
mod tiers;

pub use build::{PlannedNote, RefreshPlan, RefreshReport, apply_plan, plan_refresh, refresh};
pub use chunk::{Chunk, ChunkOptions, chunk_note, note_title};
pub use error::SemanticError;
pub use hybrid::{Bm25Index, HybridParams, hybrid_search, hybrid_search_with};
pub(crate) use live::SemanticView;
pub use live::{EmbedderSource, LoadEmbedder, SAVE_EVERY, SemanticProgress, SemanticUnavailable};
pub use persist::{INDEX_FOLDER, index_file_name};
pub use store::{ContentSha, Hit, SemanticIndex, content_sha};
pub(crate) use tiers::SemanticTiers;

#[cfg(test)]
#[allow(dead_code)]
#[path = "../../tests/support/hashing_embedder.rs"]
pub(crate) mod hashing_embedder;
