//! The vectors of every chunk of every note, in memory, and the exact
//! search over them.
//!
//! All vectors sit in one contiguous buffer, so a query is one linear pass
//! the compiler vectorizes ([`dot_codes`]). A vector is kept as it is
//! saved (`persist.rs`): one signed byte per component and one `f32` scale
//! per vector (the component is `code * scale`, the scale being the
//! largest magnitude over 127), a quarter of the floats' memory and file
//! size; on the evaluation set it moves recall@5 and MRR by less than the
//! noise (the figures are in `persist.rs`). Each
//! chunk knows its note's slot, and each note keeps the digest of the text
//! it was embedded from ([`SemanticIndex::note_sha`]), so a caller embeds a
//! note again only when its text changed. A removed or replaced note's
//! chunks are left in place, marked dead, and squeezed out once they are
//! half of the index: removing one note never moves every vector.

use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, HashMap};

use sha2::{Digest, Sha256};

use super::chunk::Chunk;
use super::error::SemanticError;
use quire_grammar::span::Span;

/// The SHA-256 of a note's text: when it matches the one stored, the note's
/// vectors are current.
pub type ContentSha = [u8; 32];

/// The [`ContentSha`] of `text`.
pub fn content_sha(text: &str) -> ContentSha {
    Sha256::digest(text.as_bytes()).into()
}

/// The longest [`Hit::snippet`], in characters.
pub(super) const SNIPPET_CHARS: usize = 240;

/// Dead chunks are squeezed out only past this many, so that small
/// indexes never bother.
const COMPACT_AT_LEAST: usize = 1_024;

/// One note found: the best of its chunks.
#[derive(Clone, Debug, PartialEq)]
pub struct Hit {
    /// The note.
    pub path: String,
    /// The cosine similarity of its best chunk to the query (for
    /// [`hybrid_search`](super::hybrid_search), the fused score).
    pub score: f32,
    /// The innermost heading of that chunk, when it is under one.
    pub heading: Option<String>,
    /// Its heading path (`# A > ## B`).
    pub heading_path: String,
    /// The start of its text, white space collapsed, cut to a snippet's
    /// length.
    pub snippet: String,
    /// Where the chunk is in the note.
    pub span: Span,
}

/// A note in the index.
#[derive(Clone, Debug)]
pub(super) struct NoteSlot {
    pub(super) path: String,
    pub(super) sha: ContentSha,
    /// Its chunks: `first..first + count` of the index's chunks.
    pub(super) first: usize,
    pub(super) count: usize,
}

/// The semantic index of a kiln: chunks, their vectors, and the digest of
/// each note they came from, for one embedder.
///
/// ```
/// use quire_kiln::{ChunkOptions, SemanticIndex, chunk_note, content_sha};
///
/// let mut index = SemanticIndex::new("toy", 2);
/// let note = "# Boats\nSailing.\n";
/// let chunks = chunk_note("boats.md", note, &ChunkOptions::default());
/// index.upsert_note("boats.md", content_sha(note), chunks, vec![vec![1.0, 0.0]]).unwrap();
/// let hits = index.search(&[0.8, 0.6], 5, |_| true).unwrap();
/// assert_eq!(hits[0].path, "boats.md");
/// assert_eq!(hits[0].heading.as_deref(), Some("Boats"));
/// assert!((hits[0].score - 0.8).abs() < 1e-6);
/// ```
#[derive(Clone, Debug)]
pub struct SemanticIndex {
    pub(super) embedder_id: String,
    pub(super) dimension: usize,
    /// Every chunk's vector quantized, one after another (`dimension`
    /// codes each).
    pub(super) codes: Vec<i8>,
    /// Every chunk's scale: its vector is its codes times its scale.
    pub(super) scales: Vec<f32>,
    pub(super) chunks: Vec<Chunk>,
    /// The slot of each chunk's note in `notes`, `None` once dead.
    pub(super) chunk_note: Vec<Option<u32>>,
    pub(super) notes: Vec<Option<NoteSlot>>,
    pub(super) by_path: HashMap<String, usize>,
    pub(super) dead_chunks: usize,
}

impl SemanticIndex {
    /// An empty index for vectors of `dimension` floats made by the embedder
    /// `embedder_id`.
    pub fn new(embedder_id: &str, dimension: usize) -> Self {
        SemanticIndex {
            embedder_id: embedder_id.to_owned(),
            dimension,
            codes: Vec::new(),
            scales: Vec::new(),
            chunks: Vec::new(),
            chunk_note: Vec::new(),
            notes: Vec::new(),
            by_path: HashMap::new(),
            dead_chunks: 0,
        }
    }

    /// The embedder that made the vectors.
    pub fn embedder_id(&self) -> &str {
        &self.embedder_id
    }

    /// The length of every vector.
    pub fn dimension(&self) -> usize {
        self.dimension
    }

    /// How many notes are indexed.
    pub fn note_count(&self) -> usize {
        self.by_path.len()
    }

    /// How many chunks (of indexed notes) are embedded.
    pub fn chunk_count(&self) -> usize {
        self.chunks.len() - self.dead_chunks
    }

    /// The indexed notes' paths, in no particular order.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.by_path.keys().map(String::as_str)
    }

    /// The digest of the text `path` was embedded from, if it is indexed.
    pub fn note_sha(&self, path: &str) -> Option<ContentSha> {
        let slot = self.slot(path)?;
        Some(slot.sha)
    }

    /// The chunks of `path`, in order (empty when it is not indexed).
    pub fn note_chunks(&self, path: &str) -> &[Chunk] {
        self.slot(path).map_or(&[], |slot| {
            &self.chunks[slot.first..slot.first + slot.count]
        })
    }

    fn slot(&self, path: &str) -> Option<&NoteSlot> {
        self.notes[*self.by_path.get(path)?].as_ref()
    }

    /// Stores `path`'s chunks and their vectors (one per chunk, in order),
    /// replacing what it had; `sha` is the digest of the text they came from.
    /// A note with no chunks is still recorded, with its digest, so that it
    /// is not read again while unchanged.
    pub fn upsert_note(
        &mut self,
        path: &str,
        sha: ContentSha,
        chunks: Vec<Chunk>,
        vectors: Vec<Vec<f32>>,
    ) -> Result<(), SemanticError> {
        if chunks.len() != vectors.len() {
            return Err(SemanticError::VectorCount {
                path: path.to_owned(),
                chunks: chunks.len(),
                vectors: vectors.len(),
            });
        }
        for vector in &vectors {
            self.check_dimension(vector.len())?;
            if !vector.iter().all(|x| x.is_finite()) {
                return Err(SemanticError::NotFinite {
                    path: path.to_owned(),
                });
            }
        }
        self.remove_note(path);
        let slot = self.notes.len();
        let first = self.chunks.len();
        self.notes.push(Some(NoteSlot {
            path: path.to_owned(),
            sha,
            first,
            count: chunks.len(),
        }));
        self.by_path.insert(path.to_owned(), slot);
        self.chunk_note
            .extend(std::iter::repeat_n(Some(slot as u32), chunks.len()));
        self.chunks.extend(chunks);
        for vector in &vectors {
            let scale = quantize(vector, &mut self.codes);
            self.scales.push(scale);
        }
        Ok(())
    }

    /// Forgets `path`; whether it was indexed.
    pub fn remove_note(&mut self, path: &str) -> bool {
        let Some(slot_index) = self.by_path.remove(path) else {
            return false;
        };
        if let Some(slot) = self.notes[slot_index].take() {
            for owner in &mut self.chunk_note[slot.first..slot.first + slot.count] {
                *owner = None;
            }
            self.dead_chunks += slot.count;
        }
        if self.dead_chunks >= COMPACT_AT_LEAST && self.dead_chunks * 2 >= self.chunks.len() {
            self.compact();
        }
        true
    }

    /// Drops dead chunks and note slots, keeping the order of the rest.
    pub(super) fn compact(&mut self) {
        let dimension = self.dimension;
        let old_codes = std::mem::take(&mut self.codes);
        let old_scales = std::mem::take(&mut self.scales);
        let old_chunks = std::mem::take(&mut self.chunks);
        let old_notes = std::mem::take(&mut self.notes);
        self.chunk_note.clear();
        self.by_path.clear();
        self.dead_chunks = 0;
        let mut old_chunks: Vec<Option<Chunk>> = old_chunks.into_iter().map(Some).collect();
        for slot in old_notes.into_iter().flatten() {
            let range = slot.first..slot.first + slot.count;
            let new_slot = self.notes.len();
            let first = self.chunks.len();
            for index in range {
                self.chunks.extend(old_chunks[index].take());
                self.codes
                    .extend_from_slice(&old_codes[index * dimension..(index + 1) * dimension]);
                self.scales.push(old_scales[index]);
                self.chunk_note.push(Some(new_slot as u32));
            }
            self.by_path.insert(slot.path.clone(), new_slot);
            self.notes.push(Some(NoteSlot { first, ..slot }));
        }
    }

    fn check_dimension(&self, found: usize) -> Result<(), SemanticError> {
        if found == self.dimension {
            Ok(())
        } else {
            Err(SemanticError::Dimension {
                embedder: self.embedder_id.clone(),
                expected: self.dimension,
                found,
            })
        }
    }

    /// The `k` notes most similar to `query` (a unit vector from the same
    /// embedder) among those whose path `filter` keeps, best first: each
    /// note scored by its best chunk, by exact cosine similarity. Equal
    /// scores are ordered by path, so results are stable.
    pub fn search(
        &self,
        query: &[f32],
        k: usize,
        filter: impl Fn(&str) -> bool,
    ) -> Result<Vec<Hit>, SemanticError> {
        self.check_dimension(query.len())?;
        if k == 0 || self.dimension == 0 {
            return Ok(Vec::new());
        }
        // The filter runs once per note, not once per chunk.
        let allowed: Vec<bool> = self
            .notes
            .iter()
            .map(|slot| slot.as_ref().is_some_and(|slot| filter(&slot.path)))
            .collect();
        // Each note's best chunk: (score, chunk index).
        let mut best: Vec<(f32, usize)> = vec![(f32::NEG_INFINITY, usize::MAX); self.notes.len()];
        for (index, codes) in self.codes.chunks_exact(self.dimension).enumerate() {
            let Some(slot) = self.chunk_note[index] else {
                continue;
            };
            let slot = slot as usize;
            if !allowed[slot] {
                continue;
            }
            let score = dot_codes(query, codes) * self.scales[index];
            if score > best[slot].0 {
                best[slot] = (score, index);
            }
        }
        // A min-heap of the k best notes so far: the root is the one to beat.
        let mut heap: BinaryHeap<Reverse<Ranked<'_>>> =
            BinaryHeap::with_capacity(k.min(self.notes.len()) + 1);
        for (slot, &(score, chunk)) in best.iter().enumerate() {
            if chunk == usize::MAX {
                continue;
            }
            let Some(note) = &self.notes[slot] else {
                continue;
            };
            let ranked = Ranked {
                score,
                path: &note.path,
                chunk,
            };
            if heap.len() < k {
                heap.push(Reverse(ranked));
            } else if heap.peek().is_some_and(|Reverse(worst)| ranked > *worst) {
                heap.pop();
                heap.push(Reverse(ranked));
            }
        }
        let mut ranked: Vec<Ranked<'_>> = heap.into_iter().map(|Reverse(r)| r).collect();
        ranked.sort_by(|a, b| b.cmp(a));
        Ok(ranked
            .into_iter()
            .map(|r| self.hit(r.path, r.score, r.chunk))
            .collect())
    }

    /// The hit for chunk `chunk` of `path` with `score`.
    pub(super) fn hit(&self, path: &str, score: f32, chunk: usize) -> Hit {
        let chunk = &self.chunks[chunk];
        Hit {
            path: path.to_owned(),
            score,
            heading: chunk.heading.clone(),
            heading_path: chunk.heading_path.clone(),
            snippet: snippet(chunk.section()),
            span: chunk.span,
        }
    }

    /// The index (into the chunks) of `path`'s chunk number `ordinal`.
    pub(super) fn chunk_index(&self, path: &str, ordinal: usize) -> Option<usize> {
        let slot = self.slot(path)?;
        (ordinal < slot.count).then_some(slot.first + ordinal)
    }
}

/// A note's best chunk, ordered by score then (reversed) by path, so that
/// of equal scores the path first in order ranks higher.
#[derive(Clone, Copy, Debug)]
struct Ranked<'a> {
    score: f32,
    path: &'a str,
    chunk: usize,
}

impl Ord for Ranked<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.score
            .total_cmp(&other.score)
            .then_with(|| other.path.cmp(self.path))
    }
}

impl PartialOrd for Ranked<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Ranked<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Ranked<'_> {}

/// The codes of `vector` appended to `codes`, and its scale: each
/// component divided by the largest magnitude over 127, rounded (an all-zero
/// vector has scale 0). Finite components only (the caller checks).
pub(super) fn quantize(vector: &[f32], codes: &mut Vec<i8>) -> f32 {
    let largest = vector.iter().fold(0f32, |largest, x| largest.max(x.abs()));
    let scale = largest / 127.0;
    if scale == 0.0 {
        codes.extend(std::iter::repeat_n(0, vector.len()));
        return 0.0;
    }
    // `as` saturates, so a rounding past 127 stays in range.
    codes.extend(vector.iter().map(|x| (x / scale).round() as i8));
    scale
}

/// The vector `codes` times `scale` stand for.
#[cfg(test)]
pub(super) fn dequantize(codes: &[i8], scale: f32) -> Vec<f32> {
    codes.iter().map(|&code| f32::from(code) * scale).collect()
}

/// The dot product of `query` and a vector's codes (multiply by its scale
/// to get the vector's), summed in eight lanes so that the compiler turns
/// the loop into SIMD multiply-adds (a single running sum would be a
/// dependency chain it may not reorder).
pub(super) fn dot_codes(query: &[f32], codes: &[i8]) -> f32 {
    let (q_lanes, q_tail) = query.as_chunks::<8>();
    let (c_lanes, c_tail) = codes.as_chunks::<8>();
    let mut lanes = [0.0f32; 8];
    for (x, y) in q_lanes.iter().zip(c_lanes) {
        for ((lane, x), y) in lanes.iter_mut().zip(x).zip(y) {
            *lane += x * f32::from(*y);
        }
    }
    let tail: f32 = q_tail
        .iter()
        .zip(c_tail)
        .map(|(x, y)| x * f32::from(*y))
        .sum();
    lanes.iter().sum::<f32>() + tail
}

/// The dot product of two vectors of one length (the reference
/// [`dot_codes`] is checked against), summed in eight lanes so
/// that the compiler turns the loop into SIMD multiply-adds (a single
/// running sum would be a dependency chain it may not reorder).
#[cfg(test)]
pub(super) fn dot(a: &[f32], b: &[f32]) -> f32 {
    let (a_lanes, a_tail) = a.as_chunks::<8>();
    let (b_lanes, b_tail) = b.as_chunks::<8>();
    let mut lanes = [0.0f32; 8];
    for (x, y) in a_lanes.iter().zip(b_lanes) {
        for ((lane, x), y) in lanes.iter_mut().zip(x).zip(y) {
            *lane += x * y;
        }
    }
    let tail: f32 = a_tail.iter().zip(b_tail).map(|(x, y)| x * y).sum();
    lanes.iter().sum::<f32>() + tail
}

/// The start of `text`, white space collapsed, at most [`SNIPPET_CHARS`]
/// characters (`…` marking a cut).
pub(super) fn snippet(text: &str) -> String {
    let mut snippet = String::new();
    let mut chars = 0;
    for word in text.split_whitespace() {
        if !snippet.is_empty() {
            if chars + 1 > SNIPPET_CHARS {
                snippet.push('…');
                return snippet;
            }
            snippet.push(' ');
            chars += 1;
        }
        for c in word.chars() {
            if chars == SNIPPET_CHARS {
                snippet.push('…');
                return snippet;
            }
            snippet.push(c);
            chars += 1;
        }
    }
    snippet
}

#[cfg(test)]
mod tests {
    use super::super::chunk::{ChunkOptions, chunk_note};
    use super::super::hashing_embedder::HashingEmbedder;
    use super::*;
    use quire_embed::Embedder;

    fn add(index: &mut SemanticIndex, embedder: &HashingEmbedder, path: &str, text: &str) {
        let chunks = chunk_note(path, text, &ChunkOptions::default());
        let texts: Vec<&str> = chunks.iter().map(|c| c.text.as_str()).collect();
        let vectors = embedder.embed(&texts).unwrap();
        index
            .upsert_note(path, content_sha(text), chunks, vectors)
            .unwrap();
    }

    fn toy() -> (SemanticIndex, HashingEmbedder) {
        let embedder = HashingEmbedder::new();
        let mut index = SemanticIndex::new(embedder.id(), embedder.dimension());
        add(
            &mut index,
            &embedder,
            "sail.md",
            "# Sailing\nboats wind sails harbour\n# Food\nbread cheese\n",
        );
        add(
            &mut index,
            &embedder,
            "bake.md",
            "# Baking\nbread flour oven yeast\n",
        );
        add(
            &mut index,
            &embedder,
            "code.md",
            "# Rust\ncompiler borrow checker\n",
        );
        (index, embedder)
    }

    fn query(embedder: &HashingEmbedder, text: &str) -> Vec<f32> {
        embedder.embed(&[text]).unwrap().remove(0)
    }

    #[test]
    fn dot_matches_the_plain_sum() {
        for length in [0, 1, 7, 8, 9, 384, 385] {
            let a: Vec<f32> = (0..length).map(|i| (i as f32).sin()).collect();
            let b: Vec<f32> = (0..length).map(|i| (i as f32 * 0.7).cos()).collect();
            let plain = quire_embed::cosine(&a, &b);
            assert!((dot(&a, &b) - plain).abs() < 1e-3, "{length}");
        }
    }

    #[test]
    fn results_are_notes_ranked_by_their_best_chunk() {
        let (index, embedder) = toy();
        let hits = index
            .search(&query(&embedder, "bread flour oven"), 10, |_| true)
            .unwrap();
        let paths: Vec<_> = hits.iter().map(|h| h.path.as_str()).collect();
        assert_eq!(paths[0], "bake.md");
        // A note appears once, whatever its number of chunks.
        assert_eq!(paths.iter().filter(|p| **p == "sail.md").count(), 1);
        let sail = hits.iter().find(|h| h.path == "sail.md").unwrap();
        assert_eq!(
            sail.heading.as_deref(),
            Some("Food"),
            "the best chunk is the food one"
        );
        assert!(hits.windows(2).all(|w| w[0].score >= w[1].score));
        assert_eq!(
            index
                .search(&query(&embedder, "x"), 2, |_| true)
                .unwrap()
                .len(),
            2
        );
        assert!(
            index
                .search(&query(&embedder, "x"), 0, |_| true)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn the_filter_is_applied_before_ranking() {
        let (index, embedder) = toy();
        let hits = index
            .search(&query(&embedder, "bread flour oven"), 1, |path| {
                path != "bake.md"
            })
            .unwrap();
        assert_eq!(hits[0].path, "sail.md");
        assert!(
            index
                .search(&query(&embedder, "bread"), 5, |_| false)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn wrong_dimensions_and_counts_are_refused() {
        let (mut index, embedder) = toy();
        assert!(matches!(
            index.search(&[1.0; 3], 5, |_| true),
            Err(SemanticError::Dimension { found: 3, .. })
        ));
        let chunks = chunk_note("n.md", "# A\nx\n", &ChunkOptions::default());
        let error = index
            .upsert_note("n.md", [0; 32], chunks.clone(), vec![])
            .unwrap_err();
        assert!(
            error.to_string().contains("1 chunks but 0 vectors"),
            "{error}"
        );
        let mut nan = query(&embedder, "x");
        nan[0] = f32::NAN;
        assert!(matches!(
            index.upsert_note("n.md", [0; 32], chunks, vec![nan]),
            Err(SemanticError::NotFinite { .. })
        ));
        assert_eq!(index.note_count(), 3, "a refused note changes nothing");
    }

    #[test]
    fn replacing_and_removing_keep_search_right_through_compaction() {
        let embedder = HashingEmbedder::new();
        let mut index = SemanticIndex::new(embedder.id(), embedder.dimension());
        // Enough churn to pass COMPACT_AT_LEAST dead chunks several times.
        for round in 0..3 {
            for note in 0..600 {
                let text = format!("# N{note}\nround{round} topic{note}\n## More\nextra{note}\n");
                add(&mut index, &embedder, &format!("n{note}.md"), &text);
            }
        }
        assert_eq!(index.note_count(), 600);
        assert_eq!(index.chunk_count(), 1200);
        assert!(
            index.chunks.len() < 3 * 1200,
            "dead chunks were squeezed out"
        );
        for note in 0..300 {
            assert!(index.remove_note(&format!("n{note}.md")));
        }
        assert!(!index.remove_note("n0.md"));
        assert_eq!(index.note_count(), 300);
        assert_eq!(index.chunk_count(), 600);
        // A chunk's own vector finds its note first (the test embedder's
        // 64 buckets collide too much for a word query to be that sharp).
        let first = index.chunk_index("n450.md", 1).unwrap();
        let own = dequantize(
            &index.codes[first * 64..(first + 1) * 64],
            index.scales[first],
        );
        let hits = index.search(&own, 1, |_| true).unwrap();
        assert_eq!(hits[0].path, "n450.md");
        assert_eq!(hits[0].heading.as_deref(), Some("More"));
        // Its own quantized vector, no longer of length 1 exactly.
        assert!((hits[0].score - 1.0).abs() < 2e-2, "{}", hits[0].score);
        assert!(
            index
                .search(&query(&embedder, "topic10"), 300, |_| true)
                .unwrap()
                .iter()
                .all(|h| h.path != "n10.md")
        );
        assert_eq!(index.note_chunks("n450.md").len(), 2);
        assert_eq!(
            index.note_sha("n450.md"),
            Some(content_sha("# N450\nround2 topic450\n## More\nextra450\n"))
        );
    }

    #[test]
    fn quantized_vectors_keep_their_scores_within_a_hundredth() {
        let mut rng = fastrand::Rng::with_seed(26);
        for length in [1, 7, 64, 384] {
            for _ in 0..50 {
                let mut vector: Vec<f32> = (0..length).map(|_| rng.f32() * 2.0 - 1.0).collect();
                quire_embed::normalize(&mut vector);
                let mut query: Vec<f32> = (0..length).map(|_| rng.f32() * 2.0 - 1.0).collect();
                quire_embed::normalize(&mut query);
                let mut codes = Vec::new();
                let scale = quantize(&vector, &mut codes);
                assert_eq!(codes.len(), length);
                assert!(codes.iter().any(|&code| code.unsigned_abs() == 127));
                let exact = dot(&query, &vector);
                let quantized = dot_codes(&query, &codes) * scale;
                assert!((exact - quantized).abs() < 1e-2, "{exact} {quantized}");
                assert_eq!(dequantize(&codes, scale).len(), length);
            }
        }
        let mut codes = Vec::new();
        assert_eq!(quantize(&[0.0, -0.0], &mut codes), 0.0);
        assert_eq!(codes, [0, 0]);
        // The smallest floats: no division by a zero scale.
        codes.clear();
        let scale = quantize(&[f32::from_bits(1), 0.0], &mut codes);
        assert!(scale.is_finite());
        codes.clear();
        let scale = quantize(&[f32::MAX, -f32::MAX], &mut codes);
        assert!(scale.is_finite());
        assert_eq!(codes, [127, -127]);
    }

    #[test]
    fn snippets_collapse_space_and_stop_at_the_limit() {
        assert_eq!(snippet("  a\n\n b\tc "), "a b c");
        let long = "word ".repeat(200);
        let cut = snippet(&long);
        assert!(cut.chars().count() <= SNIPPET_CHARS + 1);
        assert!(cut.ends_with('…'));
        assert_eq!(snippet(&"é".repeat(300)).chars().count(), SNIPPET_CHARS + 1);
    }

    #[test]
    fn equal_scores_rank_by_path() {
        let mut index = SemanticIndex::new("t", 2);
        for path in ["c.md", "a.md", "b.md"] {
            let chunks = chunk_note(path, "x", &ChunkOptions::default());
            index
                .upsert_note(path, [0; 32], chunks, vec![vec![1.0, 0.0]])
                .unwrap();
        }
        let hits = index.search(&[1.0, 0.0], 2, |_| true).unwrap();
        let paths: Vec<_> = hits.iter().map(|h| h.path.as_str()).collect();
        assert_eq!(paths, ["a.md", "b.md"]);
    }
}
