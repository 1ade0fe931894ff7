//! Hybrid search: the semantic ranking fused with a BM25 ranking of the
//! same chunks, so that exact names and rare terms an embedder blurs are
//! not lost.
//!
//! BM25 comes from the `bm25` crate (its default tokenizer: Unicode words,
//! lower case, English stop words and stemming), over each chunk's embedded
//! text (title, heading path and section). Each ranking is of notes, a note
//! taking its best chunk's place, and the two are fused by reciprocal rank
//! fusion (Cormack, Clarke and Büttcher, 2009): a note's fused score is
//! `Σ 1 / (RRF_K + rank)` over the rankings it appears in (ranks from 1),
//! with `RRF_K = 60` as in the paper. RRF needs no calibration between
//! cosine similarities and BM25 scores, which live on unrelated scales: only
//! the orders count, and a note high in either ranking comes out high.

use std::collections::HashMap;

use bm25::{Language, SearchEngine, SearchEngineBuilder};

use super::chunk::Chunk;
use super::error::SemanticError;
use super::store::{Hit, SemanticIndex};

/// The `k` of reciprocal rank fusion: how much the first ranks outweigh the
/// next ones (60, the value of the paper, used by most engines since).
pub const RRF_K: f32 = 60.0;

/// How deep each ranking is read before fusing, at the least.
const MIN_DEPTH: usize = 50;

/// A chunk's key in the BM25 engine: its note and its number in the note.
type ChunkKey = (String, u32);

/// BM25 over the chunks of a [`SemanticIndex`], kept in step with it.
pub struct Bm25Index {
    engine: SearchEngine<ChunkKey>,
    /// How many chunks each note has in the engine.
    chunk_counts: HashMap<String, u32>,
}

impl std::fmt::Debug for Bm25Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bm25Index")
            .field("notes", &self.chunk_counts.len())
            .finish_non_exhaustive()
    }
}

impl Bm25Index {
    /// BM25 over every chunk of `index`, its average chunk length fitted to
    /// them.
    pub fn build(index: &SemanticIndex) -> Bm25Index {
        let mut documents = Vec::with_capacity(index.chunk_count());
        let mut chunk_counts = HashMap::new();
        for path in index.paths() {
            let chunks = index.note_chunks(path);
            chunk_counts.insert(path.to_owned(), chunks.len() as u32);
            for (ordinal, chunk) in chunks.iter().enumerate() {
                documents.push(bm25::Document::new(
                    (path.to_owned(), ordinal as u32),
                    chunk.text.clone(),
                ));
            }
        }
        let engine =
            SearchEngineBuilder::<ChunkKey>::with_documents(Language::English, documents).build();
        Bm25Index {
            engine,
            chunk_counts,
        }
    }

    /// Replaces `path`'s chunks by `chunks` (the average chunk length stays
    /// as fitted; [`Bm25Index::build`] again after large changes).
    pub fn upsert_note(&mut self, path: &str, chunks: &[Chunk]) {
        self.remove_note(path);
        for (ordinal, chunk) in chunks.iter().enumerate() {
            self.engine.upsert(bm25::Document::new(
                (path.to_owned(), ordinal as u32),
                chunk.text.clone(),
            ));
        }
        self.chunk_counts
            .insert(path.to_owned(), chunks.len() as u32);
    }

    /// Forgets `path`'s chunks.
    pub fn remove_note(&mut self, path: &str) {
        let Some(count) = self.chunk_counts.remove(path) else {
            return;
        };
        for ordinal in 0..count {
            self.engine.remove(&(path.to_owned(), ordinal));
        }
    }

    /// The notes whose chunks share terms with `query`, best first, each
    /// once with its best chunk's number and score, at most `limit`, among
    /// those `filter` keeps. Equal scores are ordered by path.
    pub fn rank(
        &self,
        query: &str,
        limit: usize,
        filter: impl Fn(&str) -> bool,
    ) -> Vec<(String, u32, f32)> {
        let mut best: HashMap<String, (u32, f32)> = HashMap::new();
        for result in self.engine.search(query, None) {
            let (path, ordinal) = result.document.id;
            let entry = best.entry(path).or_insert((ordinal, f32::NEG_INFINITY));
            if result.score > entry.1 {
                *entry = (ordinal, result.score);
            }
        }
        let mut ranked: Vec<(String, u32, f32)> = best
            .into_iter()
            .filter(|(path, _)| filter(path))
            .map(|(path, (ordinal, score))| (path, ordinal, score))
            .collect();
        ranked.sort_by(|a, b| b.2.total_cmp(&a.2).then_with(|| a.0.cmp(&b.0)));
        ranked.truncate(limit);
        ranked
    }
}

/// Reciprocal rank fusion of rankings (each best first, without repeats):
/// every item once with `Σ 1 / (RRF_K + rank)` over the rankings it is in,
/// best first, equal scores in the order of the items.
///
/// ```
/// use quire::kiln::fuse_rrf;
///
/// let semantic = ["a", "b", "c"];
/// let bm25 = ["c", "d"];
/// let fused = fuse_rrf(&[&semantic[..], &bm25[..]]);
/// assert_eq!(fused[0].0, "c"); // third and first beats first alone
/// assert_eq!(fused[1].0, "a");
/// assert_eq!(fused.len(), 4);
/// ```
pub fn fuse_rrf<'a>(rankings: &[&[&'a str]]) -> Vec<(&'a str, f32)> {
    let mut scores: HashMap<&'a str, f32> = HashMap::new();
    for ranking in rankings {
        for (rank, item) in ranking.iter().enumerate() {
            *scores.entry(item).or_default() += 1.0 / (RRF_K + rank as f32 + 1.0);
        }
    }
    let mut fused: Vec<(&'a str, f32)> = scores.into_iter().collect();
    fused.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    fused
}

/// The `k` best notes for a query by both rankings fused ([`fuse_rrf`]):
/// the semantic one of `query_vector` (the query embedded by the index's
/// embedder) and the BM25 one of `query_text`, each read at least 50 deep,
/// among the notes `filter` keeps. A hit's [`Hit::score`] is its fused
/// score; its heading and snippet are those of its best semantic chunk, or
/// of its best BM25 chunk when only BM25 found it.
pub fn hybrid_search(
    semantic: &SemanticIndex,
    bm25: &Bm25Index,
    query_vector: &[f32],
    query_text: &str,
    k: usize,
    filter: impl Fn(&str) -> bool,
) -> Result<Vec<Hit>, SemanticError> {
    let depth = k.saturating_mul(4).max(MIN_DEPTH);
    let semantic_hits = semantic.search(query_vector, depth, &filter)?;
    let lexical = bm25.rank(query_text, depth, &filter);
    let semantic_order: Vec<&str> = semantic_hits.iter().map(|hit| hit.path.as_str()).collect();
    let lexical_order: Vec<&str> = lexical.iter().map(|(path, _, _)| path.as_str()).collect();
    let fused = fuse_rrf(&[&semantic_order, &lexical_order]);
    let semantic_by_path: HashMap<&str, &Hit> = semantic_hits
        .iter()
        .map(|hit| (hit.path.as_str(), hit))
        .collect();
    let lexical_by_path: HashMap<&str, u32> = lexical
        .iter()
        .map(|(path, ordinal, _)| (path.as_str(), *ordinal))
        .collect();
    let mut hits = Vec::with_capacity(fused.len().min(k));
    for (path, score) in fused {
        if hits.len() == k {
            break;
        }
        let hit = if let Some(hit) = semantic_by_path.get(path) {
            Hit {
                score,
                ..(*hit).clone()
            }
        } else {
            let ordinal = lexical_by_path.get(path).copied().unwrap_or_default() as usize;
            // BM25 and the index are kept in step; a note BM25 knows and
            // the index does not is stale and left out.
            let Some(chunk) = semantic.chunk_index(path, ordinal) else {
                continue;
            };
            semantic.hit(path, score, chunk)
        };
        hits.push(hit);
    }
    Ok(hits)
}

#[cfg(test)]
mod tests {
    use super::super::chunk::{ChunkOptions, chunk_note};
    use super::super::hashing_embedder::HashingEmbedder;
    use super::super::store::content_sha;
    use super::*;
    use crate::embed::Embedder;

    fn vault() -> (SemanticIndex, HashingEmbedder) {
        let embedder = HashingEmbedder::new();
        let mut index = SemanticIndex::new(embedder.id(), embedder.dimension());
        for (path, text) in [
            (
                "garden.md",
                "# Garden\nTomatoes need sun and water every morning.\n",
            ),
            (
                "kubernetes.md",
                "# Cluster\nThe Zorblax operator restarts failed pods.\n",
            ),
            (
                "cooking.md",
                "# Soup\nTomatoes simmered with garlic and basil.\n## Bread\nFlour water salt.\n",
            ),
            (
                "travel.md",
                "# Lisbon\nTrams, hills and pastries by the river.\n",
            ),
        ] {
            let chunks = chunk_note(path, text, &ChunkOptions::default());
            let texts: Vec<&str> = chunks.iter().map(|c| c.text.as_str()).collect();
            let vectors = embedder.embed(&texts).unwrap();
            index
                .upsert_note(path, content_sha(text), chunks, vectors)
                .unwrap();
        }
        (index, embedder)
    }

    #[test]
    fn rrf_sums_reciprocal_ranks() {
        let fused = fuse_rrf(&[&["a", "b"], &["b", "a"], &["b"]]);
        assert_eq!(fused[0].0, "b");
        let b = 2.0 / 61.0 + 1.0 / 62.0;
        assert!((fused[0].1 - b).abs() < 1e-7);
        assert!((fused[1].1 - (1.0 / 61.0 + 1.0 / 62.0)).abs() < 1e-7);
        assert!(fuse_rrf(&[]).is_empty());
        // Ties in the order of the items.
        let tied = fuse_rrf(&[&["y"], &["x"]]);
        assert_eq!(tied.iter().map(|t| t.0).collect::<Vec<_>>(), ["x", "y"]);
    }

    #[test]
    fn bm25_ranks_notes_by_their_best_chunk_and_stems() {
        let (index, _) = vault();
        let bm25 = Bm25Index::build(&index);
        let ranked = bm25.rank("tomato", 10, |_| true);
        let paths: Vec<_> = ranked.iter().map(|r| r.0.as_str()).collect();
        assert_eq!(paths.len(), 2, "{ranked:?}");
        assert!(paths.contains(&"garden.md") && paths.contains(&"cooking.md"));
        let only = bm25.rank("tomato", 10, |path| path != "garden.md");
        assert_eq!(only.len(), 1);
        assert!(bm25.rank("nothingmatches", 10, |_| true).is_empty());
        assert_eq!(bm25.rank("flour", 10, |_| true)[0].1, 1, "the Bread chunk");
    }

    #[test]
    fn bm25_follows_upserts_and_removals() {
        let (index, _) = vault();
        let mut bm25 = Bm25Index::build(&index);
        bm25.remove_note("kubernetes.md");
        assert!(bm25.rank("zorblax", 10, |_| true).is_empty());
        let chunks = chunk_note("new.md", "# New\nzorblax again\n", &ChunkOptions::default());
        bm25.upsert_note("new.md", &chunks);
        assert_eq!(bm25.rank("zorblax", 10, |_| true)[0].0, "new.md");
        let fewer = chunk_note("cooking.md", "# Soup only\n", &ChunkOptions::default());
        bm25.upsert_note("cooking.md", &fewer);
        assert!(
            bm25.rank("flour", 10, |_| true).is_empty(),
            "old chunks gone"
        );
    }

    #[test]
    fn hybrid_finds_a_rare_name_and_keeps_semantic_hits() {
        let (index, embedder) = vault();
        let bm25 = Bm25Index::build(&index);
        let text = "what does zorblax do";
        let vector = embedder.embed(&[text]).unwrap().remove(0);
        let hits = hybrid_search(&index, &bm25, &vector, text, 3, |_| true).unwrap();
        assert_eq!(hits[0].path, "kubernetes.md");
        assert_eq!(hits[0].heading.as_deref(), Some("Cluster"));
        assert!(hits.len() <= 3);
        let all = hybrid_search(&index, &bm25, &vector, text, usize::MAX, |_| true).unwrap();
        assert_eq!(all.len(), 4);
        assert!(hits.windows(2).all(|w| w[0].score >= w[1].score));
        let filtered =
            hybrid_search(&index, &bm25, &vector, text, 3, |p| p != "kubernetes.md").unwrap();
        assert!(filtered.iter().all(|h| h.path != "kubernetes.md"));
        assert!(hybrid_search(&index, &bm25, &[0.0; 3], text, 3, |_| true).is_err());
    }

    #[test]
    fn a_note_only_bm25_finds_gets_its_chunk() {
        let (index, _) = vault();
        let bm25 = Bm25Index::build(&index);
        // A query vector orthogonal to everything: the semantic ranking
        // still lists notes (score 0), so ask for more than it ranks first.
        let zero = vec![0.0; HashingEmbedder::DIMENSION];
        let hits = hybrid_search(&index, &bm25, &zero, "flour", 4, |_| true).unwrap();
        let cooking = hits.iter().find(|h| h.path == "cooking.md").unwrap();
        assert_eq!(cooking.path, hits[0].path, "{hits:?}");
    }
}
