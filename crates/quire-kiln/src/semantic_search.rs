//! `semantic_search`: the notes closest in meaning to a query, by the
//! cosine similarity of their best chunk to the query's vector (or that
//! ranking fused with BM25, `hybrid`), among the notes a folder and a
//! property filter keep.
//!
//! The property filter is `property_search`'s own matcher
//! ([`PropertyQuery`]), applied to the kiln's index before any vector is
//! compared, so a filtered search costs less than an unfiltered one. Each
//! result carries the note's frontmatter from the kiln's index, and says
//! whether the note is still waiting to be embedded as it is now
//! (`indexing`): its vectors are then those of an older text, or it is new
//! and not ranked at all yet (counted in [`SemanticIndexState`]).

use serde_json::{Map, Value};

use super::index::{IndexedNote, KilnIndex};
use super::note_path::FolderPath;
use super::properties::PropertyQuery;
use super::semantic::{Hit, SemanticError, SemanticProgress, SemanticView, hybrid_search};

/// The most results one search returns.
pub const MAX_SEMANTIC_LIMIT: usize = 100;

/// The longest query, in characters (the models read far less: MiniLM
/// stops at 256 tokens).
pub const MAX_SEMANTIC_QUERY_CHARS: usize = 2_000;

/// How results are ranked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SearchMode {
    /// By the cosine similarity of each note's best chunk.
    #[default]
    Semantic,
    /// That ranking fused with a BM25 ranking of the same chunks
    /// (reciprocal rank fusion), so exact names and rare terms count too.
    Hybrid,
}

/// What [`KilnTools::semantic_search`](crate::KilnTools::semantic_search)
/// looks for.
#[derive(Clone, Debug, PartialEq)]
pub struct SemanticSearchRequest {
    /// What to look for, in words: a question or a description of the
    /// notes wanted (1 to [`MAX_SEMANTIC_QUERY_CHARS`] characters). The
    /// notes need not share its words.
    pub query: String,
    /// The most notes to return (1 to [`MAX_SEMANTIC_LIMIT`]).
    pub limit: usize,
    /// Search only the notes whose properties hold these values, matched as
    /// `property_search` matches them (every key must match; a list means
    /// any of its values). Example: {"status": "active"}.
    pub properties: Option<Map<String, Value>>,
    /// Search only this folder and its subfolders, relative to the kiln
    /// root (the whole kiln when `None`).
    pub folder: Option<String>,
    /// Leave out notes whose best chunk is less similar than this (cosine
    /// similarity, -1 to 1; around 0.3 keeps only clearly related notes).
    /// `semantic` mode only.
    pub min_score: Option<f32>,
    /// `semantic` (the default) ranks by meaning alone; `hybrid` also
    /// ranks by the query's exact words (BM25) and fuses the two, for
    /// queries naming identifiers, codes or rare names.
    pub mode: SearchMode,
}

impl SemanticSearchRequest {
    /// The most notes returned when the caller names no limit.
    pub const DEFAULT_LIMIT: usize = 10;

    /// A request for `query` with every other parameter at its default.
    pub fn new(query: &str) -> Self {
        SemanticSearchRequest {
            query: query.to_owned(),
            limit: Self::DEFAULT_LIMIT,
            properties: None,
            folder: None,
            min_score: None,
            mode: SearchMode::default(),
        }
    }

    /// The request's arguments checked, and its property filter made.
    pub(crate) fn check(&self) -> Result<Option<PropertyQuery>, SemanticSearchError> {
        let length = self.query.chars().count();
        if self.query.trim().is_empty() {
            return Err(SemanticSearchError::EmptyQuery);
        }
        if length > MAX_SEMANTIC_QUERY_CHARS {
            return Err(SemanticSearchError::QueryTooLong { length });
        }
        if self.limit == 0 || self.limit > MAX_SEMANTIC_LIMIT {
            return Err(SemanticSearchError::Limit(self.limit));
        }
        if let Some(min_score) = self.min_score {
            if !(-1.0..=1.0).contains(&min_score) {
                return Err(SemanticSearchError::MinScore(min_score.to_string()));
            }
            if self.mode == SearchMode::Hybrid {
                return Err(SemanticSearchError::MinScoreHybrid);
            }
        }
        self.properties
            .as_ref()
            .map(PropertyQuery::new)
            .transpose()
            .map_err(SemanticSearchError::Properties)
    }
}

/// Why a semantic search's arguments do not make one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SemanticSearchError {
    /// The query is empty or white space.
    #[error(
        "`query` is empty; describe what you are looking for in words, such as {{\"query\": \"notes about planning a garden\"}}"
    )]
    EmptyQuery,
    /// The query is over [`MAX_SEMANTIC_QUERY_CHARS`].
    #[error(
        "`query` is {length} characters long, over the limit of {MAX_SEMANTIC_QUERY_CHARS}; describe what you look for in a sentence or two"
    )]
    QueryTooLong {
        /// Its length in characters.
        length: usize,
    },
    /// `limit` is 0 or over [`MAX_SEMANTIC_LIMIT`].
    #[error("`limit` is {0}; give 1 to {MAX_SEMANTIC_LIMIT}")]
    Limit(usize),
    /// `min_score` outside -1..1.
    #[error(
        "`min_score` is {0}; give a cosine similarity from -1 to 1 (such as 0.3), or leave it out"
    )]
    MinScore(String),
    /// `min_score` with `hybrid`, whose scores are rank fusions.
    #[error(
        "`min_score` applies to `semantic` mode only: `hybrid` scores fuse two rankings and are not similarities; leave out `min_score` or use \"mode\": \"semantic\""
    )]
    MinScoreHybrid,
    /// The property filter is not one.
    #[error(transparent)]
    Properties(super::properties::PropertySearchError),
}

/// What `semantic_search` returns.
#[derive(Clone, Debug, PartialEq)]
pub struct SemanticSearch {
    /// The notes found, best first.
    pub results: Vec<SemanticMatch>,
    /// The embedder that made the vectors (its id).
    pub embedder: String,
    /// How the results were ranked.
    pub mode: SearchMode,
    /// How complete the answering tier's index was for this search.
    pub index: SemanticIndexState,
    /// With several tiers (embedders, best first), how each stands; empty
    /// with one.
    pub tiers: Vec<SemanticTierState>,
    /// What the results lack, when they are not the whole answer: the
    /// index is still loading (no results), or the answering index is not
    /// complete.
    pub notice: Option<String>,
}

/// How one tier's index stood when a search ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SemanticTierState {
    /// Its embedder's id (its name until it is loaded).
    pub embedder: String,
    /// `loading`, `indexing`, `ready`, `unavailable` or `failed`.
    pub state: String,
    /// Whether every note is embedded as it is now.
    pub ready: bool,
    /// Chunks embedded.
    pub chunks_embedded: usize,
    /// Chunks there are (embedded and waiting).
    pub chunks_total: usize,
}

impl From<&SemanticProgress> for SemanticTierState {
    fn from(progress: &SemanticProgress) -> Self {
        SemanticTierState {
            embedder: progress.embedder.clone().unwrap_or_default(),
            state: progress.state.to_owned(),
            ready: progress.ready,
            chunks_embedded: progress.chunks_embedded,
            chunks_total: progress.chunks_total,
        }
    }
}

/// One note found.
#[derive(Clone, Debug, PartialEq)]
pub struct SemanticMatch {
    /// The note's path (NFC, with `.md`).
    pub path: String,
    /// In `semantic` mode the cosine similarity of its best chunk to the
    /// query (-1 to 1, higher is closer); in `hybrid` mode the fused rank
    /// score (only the order means something).
    pub score: f32,
    /// The innermost heading of that chunk (`None` above the first one).
    pub heading: Option<String>,
    /// The start of that chunk's text, white space collapsed.
    pub snippet: String,
    /// The note's frontmatter properties (empty when it has none or it is
    /// broken).
    pub frontmatter: Map<String, Value>,
    /// Whether the note changed since it was embedded and is waiting to be
    /// embedded again: its score is that of its older text.
    pub indexing: bool,
}

/// How complete the semantic index was when a search ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SemanticIndexState {
    /// Whether every note was embedded as it is now.
    pub ready: bool,
    /// Chunks embedded.
    pub chunks_embedded: usize,
    /// Chunks there are (embedded and waiting).
    pub chunks_total: usize,
    /// Notes waiting to be embedded; new ones among them are not in the
    /// results yet.
    pub notes_pending: usize,
    /// What keeps the index from being complete or saved (the embedder
    /// failing, a vault where `.quire/` cannot be written).
    pub problem: Option<String>,
}

impl From<&SemanticProgress> for SemanticIndexState {
    fn from(progress: &SemanticProgress) -> Self {
        SemanticIndexState {
            ready: progress.ready,
            chunks_embedded: progress.chunks_embedded,
            chunks_total: progress.chunks_total,
            notes_pending: progress.notes_pending,
            problem: progress.problem.clone(),
        }
    }
}

/// The notes of `kiln` beneath `folder` that `filter` keeps, ranked by
/// `view` for the query (`query_vector` is `request.query` embedded by the
/// index's embedder).
pub(crate) fn rank_notes(
    kiln: &KilnIndex,
    view: &SemanticView<'_>,
    query_vector: &[f32],
    request: &SemanticSearchRequest,
    folder: &FolderPath,
    filter: Option<&PropertyQuery>,
) -> Result<Vec<SemanticMatch>, SemanticError> {
    // The semantic index knows notes by their path on disk.
    let allowed: std::collections::HashMap<&str, &IndexedNote> = kiln
        .notes()
        .filter(|note| {
            folder.contains(&note.path) && filter.is_none_or(|query| query.matches(&note.facts))
        })
        .map(|note| (note.on_disk.as_str(), note))
        .collect();
    let keep = |path: &str| allowed.contains_key(path);
    let hits: Vec<Hit> = match request.mode {
        SearchMode::Semantic => view.index.search(query_vector, request.limit, keep)?,
        SearchMode::Hybrid => hybrid_search(
            view.index,
            view.bm25,
            query_vector,
            &request.query,
            request.limit,
            keep,
        )?,
    };
    Ok(hits
        .into_iter()
        .filter(|hit| request.min_score.is_none_or(|min| hit.score >= min))
        .filter_map(|hit| {
            let note = allowed.get(hit.path.as_str())?;
            Some(SemanticMatch {
                path: note.path.to_string(),
                score: hit.score,
                heading: hit.heading,
                snippet: hit.snippet,
                frontmatter: note.properties(),
                indexing: view.is_stale(&note.on_disk, &note.stat),
            })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The request a call's JSON arguments make (absent is the default).
    fn request(json: serde_json::Value) -> SemanticSearchRequest {
        let field = |name: &str| json.get(name).filter(|value| !value.is_null());
        SemanticSearchRequest {
            limit: field("limit").map_or(SemanticSearchRequest::DEFAULT_LIMIT, |limit| {
                usize::try_from(limit.as_u64().unwrap()).unwrap()
            }),
            properties: field("properties").map(|found| found.as_object().unwrap().clone()),
            min_score: field("min_score").map(|score| score.as_f64().unwrap() as f32),
            mode: match field("mode").map(|mode| mode.as_str().unwrap()) {
                None => SearchMode::Semantic,
                Some("hybrid") => SearchMode::Hybrid,
                Some(other) => panic!("no mode {other}"),
            },
            ..SemanticSearchRequest::new(field("query").unwrap().as_str().unwrap())
        }
    }

    #[test]
    fn defaults() {
        let r = SemanticSearchRequest::new("garden");
        assert_eq!(r.limit, 10);
        assert_eq!(r.mode, SearchMode::Semantic);
    }

    #[test]
    fn arguments_are_checked_with_a_way_out() {
        let check = |json| request(json).check().map(|_| ()).unwrap_err();
        assert_eq!(
            check(serde_json::json!({"query": "  \n"})),
            SemanticSearchError::EmptyQuery
        );
        let long = "x".repeat(MAX_SEMANTIC_QUERY_CHARS + 1);
        assert!(matches!(
            check(serde_json::json!({ "query": long })),
            SemanticSearchError::QueryTooLong { length } if length == MAX_SEMANTIC_QUERY_CHARS + 1
        ));
        assert_eq!(
            check(serde_json::json!({"query": "x", "limit": 0})),
            SemanticSearchError::Limit(0)
        );
        assert_eq!(
            check(serde_json::json!({"query": "x", "limit": 101})),
            SemanticSearchError::Limit(101)
        );
        assert_eq!(
            check(serde_json::json!({"query": "x", "min_score": 1.5})),
            SemanticSearchError::MinScore("1.5".into())
        );
        assert_eq!(
            check(serde_json::json!({"query": "x", "min_score": 0.2, "mode": "hybrid"})),
            SemanticSearchError::MinScoreHybrid
        );
        assert!(matches!(
            check(serde_json::json!({"query": "x", "properties": {}})),
            SemanticSearchError::Properties(_)
        ));
        let ok = request(serde_json::json!({"query": "x", "properties": {"status": "a"}, "limit": 100, "min_score": -1.0}))
            .check()
            .unwrap();
        assert!(ok.is_some());
        let message = SemanticSearchError::MinScoreHybrid.to_string();
        assert!(message.contains("\"mode\": \"semantic\""), "{message}");
    }
}
