//! Hybrid search: the semantic ranking fused with a BM25 ranking of the
//! same chunks, so that exact names and rare terms an embedder blurs are
//! not lost.
//!
//! BM25 is scored over each chunk's embedded text (title, heading path and
//! section) with the `bm25` crate's tokenizer (ASCII transliteration, lower
//! case, Unicode words, English stop words, Snowball stemming) and its
//! scoring (`k1` 1.2, `b` 0.75, its IDF), but by an inverted index of our
//! own ([`Bm25Index`]) rather than the crate's `SearchEngine`: that engine
//! tokenizes every text twice (once to fit the average length, once to
//! index), keys each chunk by a cloned `(path, ordinal)` in hash maps and
//! sets, and exposes no per-note terms, so building it over a loaded index
//! took 16 to 17 s per 100,000 chunks (issue 26). Here each chunk is
//! tokenized once, each distinct word is stemmed once (a vault repeats its
//! words), terms are numbers, and postings are vectors of chunk numbers
//! (`benches/semantic_store.rs` measures both in one run; a test checks
//! that every score equals the crate engine's). tantivy was not taken: a
//! large dependency with its own tokenizers (other stems would move the
//! evaluation's figures), for a job this small index does within the
//! target. Each ranking is of notes, a note
//! taking its best chunk's place, and the two are fused by weighted
//! reciprocal rank fusion (Cormack, Clarke and Büttcher, 2009): a note's
//! fused score is `Σ weight / (k + rank)` over the rankings it is in (ranks
//! from 1). RRF needs no calibration between cosine similarities and BM25
//! scores, which live on unrelated scales: only the orders count.
//!
//! Plain RRF (both weights 1, `k` 60) does worse than the embedder alone:
//! BM25 ranks every note sharing one word with the query, and on a
//! paraphrase those notes are noise that pushes the right ones down
//! (recall@5 0.566 against MiniLM's 0.951 on the evaluation set before it
//! had exact-code queries). So BM25 is asked only what it is good at, by
//! evidence available at query time: a BM25 hit counts only when its note
//! holds most of the query, each query term weighed by its inverse document
//! frequency ([`Bm25Index::query_coverage`] at least
//! [`MIN_QUERY_COVERAGE`]). A query naming a code, a part number or a name
//! (`QX-2291`, `Ilse Vanderveer`, `when did the miller Ilse Vanderveer
//! retire`) has a note holding its rare terms, and BM25 ranks that note;
//! a paraphrase shares a word or two with many notes and none holds most of
//! it, so the semantic ranking stands alone; a near miss holding only the
//! common part of a code (`QX-2219`) is left out. What passes the gate is
//! strong evidence, so it weighs more than the semantic ranking
//! ([`BM25_WEIGHT`]): a note holding the code comes first.
//!
//! The constants were chosen on the dev half of the evaluation set
//! (`tests/semantic_eval_minilm.rs`, `fusion_sweep_on_dev`: 396
//! combinations of `k` 1–60, weight 0.5–3, coverage 0–1). The best dev
//! score (recall@5 0.935, MRR 0.916) is a plateau: every `k`, weights 1.25
//! to 3, coverage 0.55 to 0.65; the constants are its middle, with the
//! paper's `k`. On the test half, which the choice never saw (60 queries,
//! 19 of them exact strings), against MiniLM alone and BM25 over whole
//! notes:
//!
//! | test split | recall@5 | MRR@10 |
//! |------------|----------|--------|
//! | BM25       | 0.492    | 0.441  |
//! | MiniLM     | 0.875    | 0.794  |
//! | hybrid     | 0.975    | 0.931  |
//!
//! The paraphrases keep MiniLM's figures exactly (0.963 / 0.911); the exact
//! strings go from 0.684 / 0.542 to 1.000 / 0.974. The one exact string
//! hybrid does not rank first is a three-part code whose decoy holds two
//! parts of three (`TL-550-8821` and `TL-550-8812`): both pass the gate,
//! and with `k` 60 BM25's first and second places weigh almost the same.

use std::collections::{HashMap, HashSet};

use bm25::{DefaultTokenizer, Language, Tokenizer};
use fxhash::FxHashMap;
use unicode_segmentation::UnicodeSegmentation;

use super::chunk::Chunk;
use super::error::SemanticError;
use super::store::{Hit, SemanticIndex};

/// The `k` of reciprocal rank fusion: how much the first ranks outweigh the
/// next ones (60, the value of the paper, used by most engines since).
/// [`hybrid_search`] uses it too: once BM25 is gated, every `k` from 1 to
/// 60 reached the best score on the dev split, so the paper's stands.
pub(super) const RRF_K: f32 = 60.0;

/// The weight of the BM25 ranking in [`hybrid_search`] (the semantic
/// ranking weighs 1): above 1, so a note that passes the gate outranks the
/// semantic first place. Chosen on the dev split.
pub(super) const BM25_WEIGHT: f32 = 2.0;

/// A BM25 hit takes part in the fusion only when its note holds at least
/// this share of the query, each query term weighed by its inverse
/// document frequency ([`Bm25Index::query_coverage`]): a note holding the
/// query's rare words themselves, not one sharing a common word or a part
/// of a code (`QX-2219` for `QX-2291`). Chosen on the dev split.
pub(super) const MIN_QUERY_COVERAGE: f32 = 0.6;

/// How [`hybrid_search_with`] fuses the rankings ([`HybridParams::default`]
/// holds the values chosen on the evaluation's dev split, which
/// [`hybrid_search`] uses).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HybridParams {
    /// The `k` of reciprocal rank fusion: how much the first ranks outweigh
    /// the next ones.
    pub rrf_k: f32,
    /// The weight of the BM25 ranking; the semantic one weighs 1.
    pub bm25_weight: f32,
    /// The least share of the query a note must hold for its BM25 hit to
    /// count ([`Bm25Index::query_coverage`]); 0 lets every BM25 hit in.
    pub min_query_coverage: f32,
}

impl Default for HybridParams {
    fn default() -> Self {
        HybridParams {
            rrf_k: RRF_K,
            bm25_weight: BM25_WEIGHT,
            min_query_coverage: MIN_QUERY_COVERAGE,
        }
    }
}

/// How deep each ranking is read before fusing, at the least.
const MIN_DEPTH: usize = 50;

/// BM25's `k1` and `b`, the `bm25` crate's defaults (and the textbook's).
const K1: f32 = 1.2;
const B: f32 = 0.75;

/// The average chunk length assumed when there is none to fit (the `bm25`
/// crate's fallback, kept so that scores do not change).
const FALLBACK_AVERAGE_LENGTH: f32 = 256.0;

/// Dead chunks are dropped from the postings once they outnumber the live
/// ones, past this many, so that small indexes never bother.
const COMPACT_AT_LEAST: usize = 1_024;

/// A chunk in [`Bm25Index`]: its note (`None` once removed), its number in
/// the note, its length in tokens, and its terms with their counts
/// (`terms..terms + term_count` of [`Bm25Index::chunk_terms`], sorted by
/// term).
#[derive(Clone, Debug)]
struct ChunkEntry {
    note: Option<u32>,
    ordinal: u32,
    length: u32,
    terms: usize,
    term_count: u32,
}

/// A note in [`Bm25Index`]: its chunks' entries and its distinct terms
/// (sorted).
#[derive(Clone, Debug, Default)]
struct NoteEntry {
    path: String,
    chunks: Vec<u32>,
    terms: Vec<u32>,
}

/// The `bm25` crate's English tokenizer (Unicode words, lower case,
/// English stop words, Snowball stemming), run on each distinct word once:
/// stemming is most of its cost, and a vault repeats its words.
struct Words {
    tokenizer: DefaultTokenizer,
    /// The terms each word seen becomes (none for a stop word).
    memo: FxHashMap<Box<str>, Box<[u32]>>,
}

impl Words {
    fn new() -> Words {
        Words {
            tokenizer: DefaultTokenizer::new(Language::English),
            memo: FxHashMap::default(),
        }
    }

    /// The words of `text` as the `bm25` tokenizer splits them: its
    /// transliteration to ASCII, lower case, then Unicode word boundaries
    /// (the same steps, in the same order, as `DefaultTokenizer`).
    fn split(text: &str, each: impl FnMut(&str)) {
        let ascii = deunicode::deunicode_with_tofu_cow(text, "[?]");
        let lower = ascii.to_lowercase();
        lower
            .unicode_words()
            .filter(|w| !w.is_empty())
            .for_each(each);
    }
}

/// The most threads [`Bm25Index::build`] tokenizes on.
const MAX_BUILD_THREADS: usize = 8;

/// The fewest chunks worth a thread of their own in [`Bm25Index::build`].
const MIN_CHUNKS_PER_THREAD: usize = 2_000;

/// The notes in `threads` runs of about equal chunk counts, in order.
fn shares_of<'n, 'a>(
    notes: &'n [(&'a str, &'a [Chunk])],
    threads: usize,
) -> Vec<&'n [(&'a str, &'a [Chunk])]> {
    let total: usize = notes.iter().map(|(_, chunks)| chunks.len()).sum();
    let per_share = total.div_ceil(threads.max(1)).max(1);
    let mut shares = Vec::with_capacity(threads);
    let (mut start, mut counted) = (0, 0);
    for (at, (_, chunks)) in notes.iter().enumerate() {
        counted += chunks.len();
        if counted >= per_share && shares.len() + 1 < threads {
            shares.push(&notes[start..=at]);
            start = at + 1;
            counted = 0;
        }
    }
    shares.push(&notes[start..]);
    shares
}

/// A share of the notes tokenized on a thread of its own: each chunk's
/// terms, numbered in this share's own vocabulary, and the words stemmed.
struct TokenizedShare {
    /// The share's terms, by number.
    vocabulary: Vec<Box<str>>,
    /// Every chunk's terms in text order, one chunk after another (one
    /// buffer: a vector per chunk made allocation a large part of the cost).
    terms: Vec<u32>,
    /// Where each chunk's terms end in `terms`.
    ends: Vec<usize>,
    /// The terms each word seen became.
    memo: FxHashMap<Box<str>, Box<[u32]>>,
}

impl TokenizedShare {
    fn of(notes: &[(&str, &[Chunk])]) -> TokenizedShare {
        let mut words = Words::new();
        let mut numbers: FxHashMap<Box<str>, u32> = FxHashMap::default();
        let mut vocabulary: Vec<Box<str>> = Vec::new();
        let mut terms = Vec::new();
        let mut ends = Vec::new();
        for (_, chunks) in notes {
            for chunk in *chunks {
                Words::split(&chunk.text, |word| {
                    if let Some(known) = words.memo.get(word) {
                        terms.extend_from_slice(known);
                        return;
                    }
                    let ids: Box<[u32]> = words
                        .tokenizer
                        .tokenize(word)
                        .iter()
                        .map(|token| {
                            *numbers.entry(token.as_str().into()).or_insert_with(|| {
                                vocabulary.push(token.as_str().into());
                                (vocabulary.len() - 1) as u32
                            })
                        })
                        .collect();
                    terms.extend_from_slice(&ids);
                    words.memo.insert(word.into(), ids);
                });
                ends.push(terms.len());
            }
        }
        TokenizedShare {
            vocabulary,
            terms,
            ends,
            memo: words.memo,
        }
    }
}

/// BM25 over the chunks of a [`SemanticIndex`], kept in step with it, with
/// the terms of each note and the number of notes each term occurs in, to
/// measure how much of a query a note holds.
pub struct Bm25Index {
    words: Words,
    /// Every term seen, and its number.
    term_ids: FxHashMap<Box<str>, u32>,
    /// How many live chunks hold each term.
    chunk_frequency: Vec<u32>,
    /// How many notes hold each term.
    note_frequency: Vec<u32>,
    /// The chunks holding each term (dead ones included until compaction),
    /// in the order they were added.
    postings: Vec<Vec<u32>>,
    chunks: Vec<ChunkEntry>,
    /// Every chunk's (term, count) pairs, one chunk after another.
    chunk_terms: Vec<(u32, u32)>,
    notes: Vec<Option<NoteEntry>>,
    by_path: HashMap<String, u32>,
    live_chunks: usize,
    /// The average chunk length in tokens, fitted by [`Bm25Index::build`].
    average_length: f32,
}

impl std::fmt::Debug for Bm25Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bm25Index")
            .field("notes", &self.by_path.len())
            .field("chunks", &self.live_chunks)
            .field("terms", &self.term_ids.len())
            .finish_non_exhaustive()
    }
}

/// A query's token: a term some chunk once held, or one none ever did.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum QueryTerm {
    Known(u32),
    Unknown(String),
}

impl Bm25Index {
    /// BM25 over every chunk of `index`, its average chunk length fitted to
    /// them. Each chunk's text is tokenized once, the notes shared out
    /// between threads (one per core, at most 8; one for an index under
    /// 4,000 chunks): tokenizing is most of the cost, and the terms are
    /// then numbered and indexed in note order, so the index scores the
    /// same whatever the number of threads.
    pub fn build(index: &SemanticIndex) -> Bm25Index {
        let threads = if index.chunk_count() < MIN_CHUNKS_PER_THREAD * 2 {
            1
        } else {
            std::thread::available_parallelism()
                .map_or(1, usize::from)
                .clamp(1, MAX_BUILD_THREADS)
        };
        Bm25Index::build_on(index, threads)
    }

    /// [`Bm25Index::build`] on `threads` threads.
    fn build_on(index: &SemanticIndex, threads: usize) -> Bm25Index {
        let notes: Vec<(&str, &[Chunk])> = index
            .paths()
            .map(|path| (path, index.note_chunks(path)))
            .collect();
        let shares = shares_of(&notes, threads);
        let tokenized: Vec<TokenizedShare> = if shares.len() == 1 {
            vec![TokenizedShare::of(shares[0])]
        } else {
            std::thread::scope(|scope| {
                let running: Vec<_> = shares
                    .iter()
                    .map(|share| scope.spawn(|| TokenizedShare::of(share)))
                    .collect();
                running
                    .into_iter()
                    .map(|thread| {
                        thread
                            .join()
                            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
                    })
                    .collect()
            })
        };
        let mut bm25 = Bm25Index {
            words: Words::new(),
            term_ids: FxHashMap::default(),
            chunk_frequency: Vec::new(),
            note_frequency: Vec::new(),
            postings: Vec::new(),
            chunks: Vec::with_capacity(index.chunk_count()),
            chunk_terms: Vec::new(),
            notes: Vec::with_capacity(index.note_count()),
            by_path: HashMap::with_capacity(index.note_count()),
            live_chunks: 0,
            average_length: 0.0,
        };
        for (share, tokenized) in shares.iter().zip(tokenized) {
            let TokenizedShare {
                vocabulary,
                mut terms,
                ends,
                memo,
            } = tokenized;
            let global: Vec<u32> = vocabulary.iter().map(|term| bm25.intern(term)).collect();
            for term in &mut terms {
                *term = global[*term as usize];
            }
            let mut rest = terms.as_mut_slice();
            let mut chunk_ends = ends.iter();
            let mut start = 0;
            for (path, chunks) in share.iter() {
                let mut note_chunks = Vec::with_capacity(chunks.len());
                for &end in chunk_ends.by_ref().take(chunks.len()) {
                    let (chunk, after) = std::mem::take(&mut rest).split_at_mut(end - start);
                    note_chunks.push(chunk);
                    rest = after;
                    start = end;
                }
                bm25.add_terms(path, note_chunks);
            }
            for (word, local) in memo {
                bm25.words
                    .memo
                    .entry(word)
                    .or_insert_with(|| local.iter().map(|&term| global[term as usize]).collect());
            }
        }
        let total_length: u64 = bm25
            .chunks
            .iter()
            .map(|chunk| u64::from(chunk.length))
            .sum();
        bm25.average_length = if bm25.chunks.is_empty() {
            FALLBACK_AVERAGE_LENGTH
        } else {
            (total_length as f64 / bm25.chunks.len() as f64) as f32
        };
        bm25
    }

    /// The number of `term`, made if new.
    fn intern(&mut self, term: &str) -> u32 {
        if let Some(&id) = self.term_ids.get(term) {
            return id;
        }
        let id = self.term_ids.len() as u32;
        self.term_ids.insert(term.into(), id);
        self.chunk_frequency.push(0);
        self.note_frequency.push(0);
        self.postings.push(Vec::new());
        id
    }

    /// The terms of `text`, in order, made if new: each distinct word is
    /// run through the tokenizer once, ever.
    fn tokenize_into(&mut self, text: &str, terms: &mut Vec<u32>) {
        Words::split(text, |word| {
            if let Some(known) = self.words.memo.get(word) {
                terms.extend_from_slice(known);
                return;
            }
            let tokens = self.words.tokenizer.tokenize(word);
            let ids: Box<[u32]> = tokens.iter().map(|token| self.intern(token)).collect();
            terms.extend_from_slice(&ids);
            self.words.memo.insert(word.into(), ids);
        });
    }

    /// The terms of a query, in order, without learning new ones.
    fn query_terms(&self, query: &str) -> Vec<QueryTerm> {
        let mut terms = Vec::new();
        Words::split(query, |word| match self.words.memo.get(word) {
            Some(known) => terms.extend(known.iter().map(|&id| QueryTerm::Known(id))),
            None => {
                for token in self.words.tokenizer.tokenize(word) {
                    terms.push(match self.term_ids.get(token.as_str()) {
                        Some(&id) => QueryTerm::Known(id),
                        None => QueryTerm::Unknown(token),
                    });
                }
            }
        });
        terms
    }

    /// Adds `path` (not in the index) with `chunks`.
    fn add_note(&mut self, path: &str, chunks: &[Chunk]) {
        let mut tokenized: Vec<Vec<u32>> = Vec::with_capacity(chunks.len());
        for chunk in chunks {
            let mut terms = Vec::new();
            self.tokenize_into(&chunk.text, &mut terms);
            tokenized.push(terms);
        }
        self.add_terms(path, tokenized.iter_mut().map(Vec::as_mut_slice).collect());
    }

    /// Adds `path` (not in the index) with its chunks' terms, each chunk's
    /// in the order its text holds them (sorted here, in place).
    fn add_terms(&mut self, path: &str, chunks: Vec<&mut [u32]>) {
        let slot = self.notes.len() as u32;
        let mut entry = NoteEntry {
            path: path.to_owned(),
            chunks: Vec::new(),
            terms: Vec::new(),
        };
        for (ordinal, terms) in chunks.into_iter().enumerate() {
            let length = terms.len() as u32;
            terms.sort_unstable();
            let chunk_slot = self.chunks.len() as u32;
            let first = self.chunk_terms.len();
            for run in terms.chunk_by(|a, b| a == b) {
                let term = run[0];
                self.chunk_terms.push((term, run.len() as u32));
                self.chunk_frequency[term as usize] += 1;
                self.postings[term as usize].push(chunk_slot);
                entry.terms.push(term);
            }
            self.chunks.push(ChunkEntry {
                note: Some(slot),
                ordinal: ordinal as u32,
                length,
                terms: first,
                term_count: (self.chunk_terms.len() - first) as u32,
            });
            entry.chunks.push(chunk_slot);
        }
        entry.terms.sort_unstable();
        entry.terms.dedup();
        for &term in &entry.terms {
            self.note_frequency[term as usize] += 1;
        }
        self.live_chunks += entry.chunks.len();
        self.notes.push(Some(entry));
        self.by_path.insert(path.to_owned(), slot);
    }

    /// The (term, count) pairs of a chunk, sorted by term.
    fn terms_of(&self, chunk: &ChunkEntry) -> &[(u32, u32)] {
        &self.chunk_terms[chunk.terms..chunk.terms + chunk.term_count as usize]
    }

    /// Replaces `path`'s chunks by `chunks` (the average chunk length stays
    /// as fitted; [`Bm25Index::build`] again after large changes).
    pub fn upsert_note(&mut self, path: &str, chunks: &[Chunk]) {
        self.remove_note(path);
        self.add_note(path, chunks);
    }

    /// Forgets `path`'s chunks.
    pub fn remove_note(&mut self, path: &str) {
        let Some(slot) = self.by_path.remove(path) else {
            return;
        };
        let Some(entry) = self.notes[slot as usize].take() else {
            return;
        };
        for &chunk_slot in &entry.chunks {
            let chunk = &mut self.chunks[chunk_slot as usize];
            chunk.note = None;
            let terms = chunk.terms..chunk.terms + chunk.term_count as usize;
            for &(term, _) in &self.chunk_terms[terms] {
                self.chunk_frequency[term as usize] -= 1;
            }
        }
        for &term in &entry.terms {
            self.note_frequency[term as usize] -= 1;
        }
        self.live_chunks -= entry.chunks.len();
        let dead = self.chunks.len() - self.live_chunks;
        if dead >= COMPACT_AT_LEAST && dead > self.live_chunks {
            self.compact();
        }
    }

    /// Drops dead chunks, from the chunks and the postings; the terms stay
    /// (a term no chunk holds any more scores nothing).
    fn compact(&mut self) {
        let old_chunks = std::mem::take(&mut self.chunks);
        let old_terms = std::mem::take(&mut self.chunk_terms);
        let mut renumbered = vec![u32::MAX; old_chunks.len()];
        for entry in self.notes.iter_mut().flatten() {
            entry.chunks.clear();
        }
        for (old, chunk) in old_chunks.iter().enumerate() {
            let Some(note) = chunk.note else { continue };
            let new = self.chunks.len() as u32;
            renumbered[old] = new;
            let first = self.chunk_terms.len();
            self.chunk_terms.extend_from_slice(
                &old_terms[chunk.terms..chunk.terms + chunk.term_count as usize],
            );
            self.chunks.push(ChunkEntry {
                terms: first,
                ..chunk.clone()
            });
            if let Some(entry) = &mut self.notes[note as usize] {
                entry.chunks.push(new);
            }
        }
        for posting in &mut self.postings {
            posting.retain_mut(|chunk| {
                *chunk = renumbered[*chunk as usize];
                *chunk != u32::MAX
            });
        }
    }

    /// How many notes hold `term` (a term as the tokenizer makes it:
    /// lower case, stemmed).
    pub fn note_frequency(&self, term: &str) -> u32 {
        self.term_ids
            .get(term)
            .map_or(0, |&id| self.note_frequency[id as usize])
    }

    /// The share of `query` that `path` holds, each distinct query term
    /// weighed by its inverse document frequency over the notes (BM25's
    /// own, `ln(1 + (N - n + 0.5) / (n + 0.5))`): 1 when the note holds
    /// every term, near 1 when it holds the rare ones and misses a common
    /// one, low when it shares only common words or a part of a code. A
    /// query term no note holds counts against every note. 0 for a query
    /// of stop words only, or a note BM25 does not know.
    pub fn query_coverage(&self, query: &str, path: &str) -> f32 {
        self.coverage(&self.query_terms(query), path)
    }

    /// [`Bm25Index::query_coverage`] of a tokenized query.
    fn coverage(&self, query: &[QueryTerm], path: &str) -> f32 {
        let Some(note) = self
            .by_path
            .get(path)
            .and_then(|&slot| self.notes[slot as usize].as_ref())
        else {
            return 0.0;
        };
        let terms: HashSet<&QueryTerm> = query.iter().collect();
        let notes = self.by_path.len() as f32;
        let (mut held, mut total) = (0.0, 0.0);
        for term in terms {
            let (frequency, holds) = match term {
                QueryTerm::Known(id) => (
                    self.note_frequency[*id as usize] as f32,
                    note.terms.binary_search(id).is_ok(),
                ),
                QueryTerm::Unknown(_) => (0.0, false),
            };
            let idf = (1.0 + (notes - frequency + 0.5) / (frequency + 0.5)).ln();
            total += idf;
            if holds {
                held += idf;
            }
        }
        if total > 0.0 { held / total } else { 0.0 }
    }

    /// The BM25 score of every live chunk holding a term of `query`, as
    /// (chunk slot, score), in the order of the slots. A term repeated in
    /// the query counts each time, as in the `bm25` crate.
    fn score_chunks(&self, query: &[QueryTerm]) -> Vec<(u32, f32)> {
        let known: Vec<u32> = query
            .iter()
            .filter_map(|term| match term {
                QueryTerm::Known(id) => Some(*id),
                QueryTerm::Unknown(_) => None,
            })
            .collect();
        let mut candidates: Vec<u32> = Vec::new();
        let mut distinct = known.clone();
        distinct.sort_unstable();
        distinct.dedup();
        for &term in &distinct {
            candidates.extend_from_slice(&self.postings[term as usize]);
        }
        candidates.sort_unstable();
        candidates.dedup();
        let documents = self.live_chunks as f32;
        let idf: HashMap<u32, f32> = distinct
            .iter()
            .map(|&term| {
                let frequency = self.chunk_frequency[term as usize] as f32;
                let idf = (1.0 + (documents - frequency + 0.5) / (frequency + 0.5)).ln();
                (term, idf)
            })
            .collect();
        let average = if self.average_length <= 0.0 {
            FALLBACK_AVERAGE_LENGTH
        } else {
            self.average_length
        };
        let mut scored = Vec::with_capacity(candidates.len());
        for slot in candidates {
            let chunk = &self.chunks[slot as usize];
            if chunk.note.is_none() {
                continue;
            }
            let terms = self.terms_of(chunk);
            let norm = K1 * (1.0 - B + B * (chunk.length as f32 / average));
            let mut score = 0f32;
            for term in &known {
                let count = match terms.binary_search_by_key(term, |&(t, _)| t) {
                    Ok(at) => terms[at].1 as f32,
                    Err(_) => continue,
                };
                score += idf[term] * (count * (K1 + 1.0) / (count + norm));
            }
            scored.push((slot, score));
        }
        scored
    }

    /// The notes whose chunks share terms with `query`, best first, each
    /// once with its best chunk's number and score, at most `limit`, among
    /// those `filter` keeps. Equal scores are ordered by path; of a note's
    /// chunks with equal scores, the first counts.
    pub fn rank(
        &self,
        query: &str,
        limit: usize,
        filter: impl Fn(&str) -> bool,
    ) -> Vec<(String, u32, f32)> {
        self.rank_terms(&self.query_terms(query), limit, filter)
    }

    fn rank_terms(
        &self,
        query: &[QueryTerm],
        limit: usize,
        filter: impl Fn(&str) -> bool,
    ) -> Vec<(String, u32, f32)> {
        let mut best: HashMap<u32, (u32, f32)> = HashMap::new();
        for (slot, score) in self.score_chunks(query) {
            let chunk = &self.chunks[slot as usize];
            let Some(note) = chunk.note else { continue };
            let entry = best
                .entry(note)
                .or_insert((chunk.ordinal, f32::NEG_INFINITY));
            if score > entry.1 || (score == entry.1 && chunk.ordinal < entry.0) {
                *entry = (chunk.ordinal, score);
            }
        }
        let mut ranked: Vec<(String, u32, f32)> = best
            .into_iter()
            .filter_map(|(note, (ordinal, score))| {
                let path = &self.notes[note as usize].as_ref()?.path;
                filter(path).then(|| (path.clone(), ordinal, score))
            })
            .collect();
        ranked.sort_by(|a, b| b.2.total_cmp(&a.2).then_with(|| a.0.cmp(&b.0)));
        ranked.truncate(limit);
        ranked
    }

    /// The BM25 ranking [`hybrid_search_with`] fuses: [`Bm25Index::rank`]
    /// keeping only the notes that hold at least
    /// `params.min_query_coverage` of the query
    /// ([`Bm25Index::query_coverage`]), at most `limit`.
    pub fn gated_rank(
        &self,
        query: &str,
        limit: usize,
        params: &HybridParams,
        filter: impl Fn(&str) -> bool,
    ) -> Vec<(String, u32, f32)> {
        let terms = self.query_terms(query);
        let mut ranked = self.rank_terms(&terms, usize::MAX, filter);
        ranked.retain(|(path, _, _)| self.coverage(&terms, path) >= params.min_query_coverage);
        ranked.truncate(limit);
        ranked
    }
}

/// Weighted reciprocal rank fusion: every item once with
/// `Σ weight / (k + rank)` over the rankings it is in (ranks from 1), best
/// first, equal scores in the order of the items.
pub(super) fn fuse_weighted_rrf<'a>(rankings: &[(&[&'a str], f32)], k: f32) -> Vec<(&'a str, f32)> {
    let mut scores: HashMap<&'a str, f32> = HashMap::new();
    for (ranking, weight) in rankings {
        for (rank, item) in ranking.iter().enumerate() {
            *scores.entry(item).or_default() += weight / (k + rank as f32 + 1.0);
        }
    }
    let mut fused: Vec<(&'a str, f32)> = scores.into_iter().collect();
    fused.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    fused
}

/// The `k` best notes for a query by both rankings fused, with the
/// parameters of the module ([`HybridParams::default`]): see
/// [`hybrid_search_with`].
pub fn hybrid_search(
    semantic: &SemanticIndex,
    bm25: &Bm25Index,
    query_vector: &[f32],
    query_text: &str,
    k: usize,
    filter: impl Fn(&str) -> bool,
) -> Result<Vec<Hit>, SemanticError> {
    hybrid_search_with(
        semantic,
        bm25,
        query_vector,
        query_text,
        k,
        filter,
        &HybridParams::default(),
    )
}

/// The `k` best notes for a query by both rankings fused
/// (weighted reciprocal rank fusion with `params.rrf_k`): the semantic one of
/// `query_vector` (the query embedded by the index's embedder), weight 1,
/// and the gated BM25 one of `query_text` ([`Bm25Index::gated_rank`]),
/// weight `params.bm25_weight`, each read at least 50 deep, among the notes
/// `filter` keeps. A hit's [`Hit::score`] is its fused score; its heading
/// and snippet are those of its best semantic chunk, or of its best BM25
/// chunk when only BM25 found it.
pub fn hybrid_search_with(
    semantic: &SemanticIndex,
    bm25: &Bm25Index,
    query_vector: &[f32],
    query_text: &str,
    k: usize,
    filter: impl Fn(&str) -> bool,
    params: &HybridParams,
) -> Result<Vec<Hit>, SemanticError> {
    let depth = k.saturating_mul(4).max(MIN_DEPTH);
    let semantic_hits = semantic.search(query_vector, depth, &filter)?;
    let lexical = bm25.gated_rank(query_text, depth, params, &filter);
    let semantic_order: Vec<&str> = semantic_hits.iter().map(|hit| hit.path.as_str()).collect();
    let lexical_order: Vec<&str> = lexical.iter().map(|(path, _, _)| path.as_str()).collect();
    let fused = fuse_weighted_rrf(
        &[(&semantic_order, 1.0), (&lexical_order, params.bm25_weight)],
        params.rrf_k,
    );
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
    use quire_embed::Embedder;

    /// Reciprocal rank fusion of rankings (each best first, without
    /// repeats), each weighing 1, with the paper's `k`.
    fn fuse_rrf<'a>(rankings: &[&[&'a str]]) -> Vec<(&'a str, f32)> {
        let weighted: Vec<(&[&'a str], f32)> = rankings.iter().map(|r| (*r, 1.0)).collect();
        fuse_weighted_rrf(&weighted, RRF_K)
    }

    #[test]
    fn an_item_in_both_rankings_beats_the_first_of_one() {
        let semantic = ["a", "b", "c"];
        let bm25 = ["c", "d"];
        let fused = fuse_rrf(&[&semantic[..], &bm25[..]]);
        assert_eq!(fused[0].0, "c"); // third and first beats first alone
        assert_eq!(fused[1].0, "a");
        assert_eq!(fused.len(), 4);
    }

    #[test]
    fn a_ranking_counts_as_much_as_its_weight() {
        let semantic = ["a", "b"];
        let bm25 = ["b"];
        // b: 1/(2+2) + 0.5/(2+1) = 0.417 beats a: 1/(2+1) = 0.333.
        let fused = fuse_weighted_rrf(&[(&semantic[..], 1.0), (&bm25[..], 0.5)], 2.0);
        assert_eq!(fused[0].0, "b");
        // With a weight of 0.1, b (0.283) stays second.
        let fused = fuse_weighted_rrf(&[(&semantic[..], 1.0), (&bm25[..], 0.1)], 2.0);
        assert_eq!(fused[0].0, "a");
    }

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

    /// An index of `notes` (path, text) by the hashing embedder.
    fn index_of(notes: &[(&str, &str)]) -> SemanticIndex {
        let embedder = HashingEmbedder::new();
        let mut index = SemanticIndex::new(embedder.id(), embedder.dimension());
        for (path, text) in notes {
            let chunks = chunk_note(path, text, &ChunkOptions::default());
            let texts: Vec<&str> = chunks.iter().map(|c| c.text.as_str()).collect();
            let vectors = embedder.embed(&texts).unwrap();
            index
                .upsert_note(path, content_sha(text), chunks, vectors)
                .unwrap();
        }
        index
    }

    fn paths(hits: &[Hit]) -> Vec<&str> {
        hits.iter().map(|hit| hit.path.as_str()).collect()
    }

    /// A query vector orthogonal to every chunk: the semantic ranking is
    /// every note with score 0, in path order, so what BM25 adds shows.
    fn orthogonal() -> Vec<f32> {
        vec![0.0; HashingEmbedder::DIMENSION]
    }

    #[test]
    fn weighted_rrf_weighs_each_ranking() {
        let fused = fuse_weighted_rrf(&[(&["a", "b"], 1.0), (&["b"], 0.5)], 2.0);
        assert_eq!(fused[0].0, "b");
        assert!((fused[0].1 - (1.0 / 4.0 + 0.5 / 3.0)).abs() < 1e-7);
        assert!((fused[1].1 - 1.0 / 3.0).abs() < 1e-7);
        // A light second ranking does not overturn the first one's top.
        let fused = fuse_weighted_rrf(&[(&["a", "b"], 1.0), (&["b"], 0.1)], 2.0);
        assert_eq!(fused[0].0, "a");
        // The k: with 60 the same weights put b first again.
        let fused = fuse_weighted_rrf(&[(&["a", "b"], 1.0), (&["b"], 0.1)], 60.0);
        assert_eq!(fused[0].0, "b");
        assert!(fuse_weighted_rrf(&[], 2.0).is_empty());
    }

    #[test]
    fn query_coverage_weighs_terms_by_their_rarity() {
        let (index, _) = vault();
        let bm25 = Bm25Index::build(&index);
        assert_eq!(bm25.note_frequency("tomato"), 2);
        assert_eq!(bm25.note_frequency("zorblax"), 1);
        // A note holding every term of the query holds all of it; stop
        // words do not count.
        assert_eq!(
            bm25.query_coverage("what does Zorblax do", "kubernetes.md"),
            1.0
        );
        assert_eq!(bm25.query_coverage("zorblax", "garden.md"), 0.0);
        // The rare term weighs more than the common one.
        let rare = bm25.query_coverage("tomatoes zorblax", "kubernetes.md");
        let common = bm25.query_coverage("tomatoes zorblax", "garden.md");
        assert!(rare > 0.5 && common < 0.5, "{rare} {common}");
        assert!((rare + common - 1.0).abs() < 1e-6);
        // A term no note holds counts against every note.
        assert!(bm25.query_coverage("zorblax nothingmatches", "kubernetes.md") < 0.5);
        assert_eq!(bm25.query_coverage("the of and", "kubernetes.md"), 0.0);
        assert_eq!(bm25.query_coverage("zorblax", "unknown.md"), 0.0);
        // A code's near miss holds only its common part.
        let index = index_of(&[
            ("a.md", "# A\nPart QX-2291.\n"),
            ("b.md", "# B\nPart QX-2219.\n"),
            ("c.md", "# C\nNothing.\n"),
        ]);
        let bm25 = Bm25Index::build(&index);
        assert_eq!(bm25.query_coverage("QX-2291", "a.md"), 1.0);
        assert!(bm25.query_coverage("QX-2291", "b.md") < 0.5);
    }

    #[test]
    fn note_frequencies_follow_upserts_and_removals() {
        let (index, _) = vault();
        let mut bm25 = Bm25Index::build(&index);
        bm25.remove_note("kubernetes.md");
        assert_eq!(bm25.note_frequency("zorblax"), 0);
        assert_eq!(bm25.query_coverage("zorblax", "kubernetes.md"), 0.0);
        let chunks = chunk_note(
            "new.md",
            "# New\nzorblax, zorblax\n",
            &ChunkOptions::default(),
        );
        bm25.upsert_note("new.md", &chunks);
        bm25.upsert_note("new.md", &chunks);
        assert_eq!(bm25.note_frequency("zorblax"), 1, "a note counts once");
        assert_eq!(bm25.query_coverage("zorblax", "new.md"), 1.0);
        let garden = chunk_note("garden.md", "# Garden\nzorblax\n", &ChunkOptions::default());
        bm25.upsert_note("garden.md", &garden);
        assert_eq!(bm25.note_frequency("zorblax"), 2);
        assert_eq!(
            bm25.note_frequency("tomato"),
            1,
            "garden.md no longer has it"
        );
    }

    #[test]
    fn a_query_no_note_covers_leaves_the_semantic_ranking_alone() {
        let index = index_of(&[
            ("a.md", "# Alpha\nMorning walk.\n"),
            ("b.md", "# Beta\nEvening swim.\n"),
            ("c.md", "# Gamma\nNoon nap.\n"),
            ("d.md", "# Delta\nBy the river.\n"),
            ("e.md", "# Epsilon\nRiver, river, river.\n"),
        ]);
        let bm25 = Bm25Index::build(&index);
        let semantic = index.search(&orthogonal(), 5, |_| true).unwrap();
        // Each note holds one word of four: BM25 ranks them by chance
        // overlaps, and none counts.
        let query = "a swim by the river at noon";
        assert!(bm25.rank(query, 5, |_| true).len() >= 3);
        assert!(
            bm25.gated_rank(query, 5, &HybridParams::default(), |_| true)
                .is_empty()
        );
        let hits = hybrid_search(&index, &bm25, &orthogonal(), query, 5, |_| true).unwrap();
        assert_eq!(paths(&hits), paths(&semantic));
        // With the gate open, BM25's noise reorders it.
        let open = HybridParams {
            min_query_coverage: 0.0,
            ..HybridParams::default()
        };
        let hits =
            hybrid_search_with(&index, &bm25, &orthogonal(), query, 5, |_| true, &open).unwrap();
        assert_ne!(paths(&hits), paths(&semantic));
    }

    #[test]
    fn a_near_miss_holding_part_of_a_code_is_left_out() {
        let index = index_of(&[
            ("a.md", "# Alpha\nMorning walk.\n"),
            ("b.md", "# Beta\nEvening swim.\n"),
            ("c.md", "# Gamma\nNoon nap.\n"),
            ("pump.md", "# Pump\nPart QX-2291 fits the pump.\n"),
            ("z-valve.md", "# Valve\nPart QX-2219 fits the valve.\n"),
        ]);
        let bm25 = Bm25Index::build(&index);
        let ranked = bm25.rank("QX-2291", 5, |_| true);
        assert_eq!(ranked.len(), 2, "both share qx: {ranked:?}");
        let gated = bm25.gated_rank("QX-2291", 5, &HybridParams::default(), |_| true);
        assert_eq!(gated.len(), 1);
        assert_eq!(gated[0].0, "pump.md");
        let hits = hybrid_search(&index, &bm25, &orthogonal(), "QX-2291", 5, |_| true).unwrap();
        assert_eq!(
            paths(&hits),
            ["pump.md", "a.md", "b.md", "c.md", "z-valve.md"]
        );
        // Without the gate, the near miss climbs over the semantic hits.
        let ungated = HybridParams {
            min_query_coverage: 0.0,
            ..HybridParams::default()
        };
        let hits = hybrid_search_with(
            &index,
            &bm25,
            &orthogonal(),
            "QX-2291",
            5,
            |_| true,
            &ungated,
        )
        .unwrap();
        assert_eq!(hits[1].path, "z-valve.md", "{:?}", paths(&hits));
    }

    #[test]
    fn the_bm25_weight_decides_against_the_semantic_first_place() {
        // BM25's only hit is the embedder's second: the weight decides
        // whether it overtakes the embedder's first.
        let index = index_of(&[
            ("a.md", "# Alpha\nMorning walk.\n"),
            ("b.md", "# Beta\nEvening swim with zorblax.\n"),
        ]);
        let bm25 = Bm25Index::build(&index);
        let hits = hybrid_search(&index, &bm25, &orthogonal(), "zorblax", 2, |_| true).unwrap();
        // b: 1/(k+2) + w/(k+1) against a: 1/(k+1).
        assert_eq!(hits[0].path, "b.md");
        let light = HybridParams {
            bm25_weight: 0.01,
            ..HybridParams::default()
        };
        let hits = hybrid_search_with(&index, &bm25, &orthogonal(), "zorblax", 2, |_| true, &light)
            .unwrap();
        assert_eq!(hits[0].path, "a.md", "a light BM25 only breaks near ties");
        let expected = 1.0 / (RRF_K + 2.0) + 0.01 / (RRF_K + 1.0);
        assert!((hits[1].score - expected).abs() < 1e-6, "{hits:?}");
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

    /// Every chunk's score under the `bm25` crate's own engine, the
    /// reference this index reproduces, keyed by (path, ordinal).
    fn reference_scores(
        engine: &bm25::SearchEngine<(String, u32)>,
        query: &str,
    ) -> HashMap<(String, u32), f32> {
        engine
            .search(query, None)
            .into_iter()
            .map(|result| (result.document.id, result.score))
            .collect()
    }

    fn own_scores(bm25: &Bm25Index, query: &str) -> HashMap<(String, u32), f32> {
        bm25.score_chunks(&bm25.query_terms(query))
            .into_iter()
            .map(|(slot, score)| {
                let chunk = &bm25.chunks[slot as usize];
                let note = chunk.note.unwrap() as usize;
                let path = bm25.notes[note].as_ref().unwrap().path.clone();
                ((path, chunk.ordinal), score)
            })
            .collect()
    }

    fn assert_same_scores(bm25: &Bm25Index, engine: &bm25::SearchEngine<(String, u32)>) {
        for query in [
            "tomatoes",
            "Tomatoes simmered with GARLIC",
            "zorblax zorblax operator",
            "the of and",
            "Übung café naïve",
            "w17 w4242 w99 w17",
            "QX-2291 pods",
            "nothingmatches",
        ] {
            let own = own_scores(bm25, query);
            let reference = reference_scores(engine, query);
            assert_eq!(
                own.keys().collect::<HashSet<_>>(),
                reference.keys().collect::<HashSet<_>>(),
                "{query}"
            );
            for (key, score) in &own {
                let expected = reference[key];
                assert!(
                    (score - expected).abs() <= 1e-5 * expected.abs().max(1.0),
                    "{query} {key:?}: {score} against {expected}"
                );
            }
        }
    }

    #[test]
    fn scores_match_the_bm25_crates_engine_through_upserts_and_removals() {
        let mut rng = fastrand::Rng::with_seed(26);
        let mut notes: Vec<(String, String)> = vec![
            (
                "garden.md".into(),
                "# Garden\nTomatoes need sun and water every morning.\n".into(),
            ),
            (
                "cooking.md".into(),
                "# Soup\nTomatoes simmered with garlic.\n## Bread\nFlour, Übung café naïve.\n"
                    .into(),
            ),
            (
                "kubernetes.md".into(),
                "# Cluster\nThe Zorblax operator restarts failed pods; QX-2291.\n".into(),
            ),
        ];
        for note in 0..40 {
            let mut text = String::new();
            for section in 0..rng.usize(1..4) {
                text.push_str(&format!("# Part {section}\n"));
                let words: Vec<String> = (0..rng.usize(1..30))
                    .map(|_| format!("w{}", rng.usize(..60)))
                    .collect();
                text.push_str(&words.join(" "));
                text.push('\n');
            }
            notes.push((format!("n{note}.md"), text));
        }
        let refs: Vec<(&str, &str)> = notes
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        let index = index_of(&refs);
        let documents: Vec<bm25::Document<(String, u32)>> = index
            .paths()
            .flat_map(|path| {
                index
                    .note_chunks(path)
                    .iter()
                    .enumerate()
                    .map(move |(ordinal, chunk)| {
                        bm25::Document::new((path.to_owned(), ordinal as u32), chunk.text.clone())
                    })
            })
            .collect();
        let mut engine = bm25::SearchEngineBuilder::<(String, u32)>::with_documents(
            Language::English,
            documents,
        )
        .build();
        let mut bm25 = Bm25Index::build(&index);
        assert_same_scores(&bm25, &engine);
        // Changes move the chunk and term counts the scores depend on.
        let changed = chunk_note(
            "garden.md",
            "# Garden\nzorblax w3 w3 w3\n## More\ntomatoes\n",
            &ChunkOptions::default(),
        );
        for (ordinal, chunk) in changed.iter().enumerate() {
            engine.upsert(bm25::Document::new(
                ("garden.md".to_owned(), ordinal as u32),
                chunk.text.clone(),
            ));
        }
        bm25.upsert_note("garden.md", &changed);
        for note in 0..20 {
            let path = format!("n{note}.md");
            for ordinal in 0..index.note_chunks(&path).len() {
                engine.remove(&(path.clone(), ordinal as u32));
            }
            bm25.remove_note(&path);
        }
        assert_same_scores(&bm25, &engine);
    }

    #[test]
    fn of_a_notes_equal_chunks_the_first_is_its_best() {
        // Eight identical sections score the same: the note's hit is its
        // first, not whichever a hash order gives.
        let text = "# Same\nzorblax here\n".repeat(8);
        let index = index_of(&[
            ("same.md", text.as_str()),
            ("other.md", "# Other\nnothing\n"),
        ]);
        let bm25 = Bm25Index::build(&index);
        assert_eq!(index.note_chunks("same.md").len(), 8);
        let ranked = bm25.rank("zorblax", 5, |_| true);
        assert_eq!(ranked.len(), 1);
        assert_eq!((ranked[0].0.as_str(), ranked[0].1), ("same.md", 0));
    }

    #[test]
    fn a_build_on_several_threads_scores_as_one_on_one_thread() {
        let (index, _) = vault();
        let one = Bm25Index::build_on(&index, 1);
        for threads in [2, 3, 8] {
            let several = Bm25Index::build_on(&index, threads);
            assert_eq!(several.live_chunks, one.live_chunks, "{threads}");
            assert_eq!(several.term_ids.len(), one.term_ids.len(), "{threads}");
            assert_eq!(several.average_length, one.average_length, "{threads}");
            for term in one.term_ids.keys() {
                assert_eq!(
                    several.note_frequency(term),
                    one.note_frequency(term),
                    "{term}"
                );
            }
            for query in [
                "tomatoes and garlic",
                "Zorblax",
                "water every morning",
                "the",
                "unseen words",
            ] {
                assert_eq!(
                    own_scores(&several, query),
                    own_scores(&one, query),
                    "{query}, {threads}"
                );
                assert_eq!(
                    several.query_terms(query).len(),
                    one.query_terms(query).len()
                );
            }
        }
        // The shares cover every note once, in order, about evenly.
        let notes: Vec<(&str, &[Chunk])> = index
            .paths()
            .map(|path| (path, index.note_chunks(path)))
            .collect();
        for threads in 1..=5 {
            let shares = shares_of(&notes, threads);
            assert!(shares.len() <= threads.max(1));
            let joined: Vec<&str> = shares
                .iter()
                .flat_map(|share| share.iter().map(|(path, _)| *path))
                .collect();
            assert_eq!(
                joined,
                notes.iter().map(|(path, _)| *path).collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn compaction_keeps_ranks_and_frequencies() {
        let mut notes = Vec::new();
        for note in 0..1_500 {
            notes.push((format!("n{note}.md"), format!("# N\nalpha w{note} beta\n")));
        }
        let refs: Vec<(&str, &str)> = notes
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        let index = index_of(&refs);
        let mut bm25 = Bm25Index::build(&index);
        for note in 0..1_200 {
            bm25.remove_note(&format!("n{note}.md"));
        }
        assert!(bm25.chunks.len() < 1_500, "dead chunks were dropped");
        assert_eq!(bm25.note_frequency("alpha"), 300);
        assert!(bm25.rank("w5", 5, |_| true).is_empty());
        assert_eq!(bm25.rank("w1300", 5, |_| true)[0].0, "n1300.md");
        assert_eq!(bm25.rank("alpha", usize::MAX, |_| true).len(), 300);
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
