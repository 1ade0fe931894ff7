//! The semantic evaluation set and its metrics, for any ranker.
//!
//! `tests/fixtures/semantic_eval/` holds a vault of a few hundred notes on
//! distinct everyday subjects (`vault/`) and natural-language queries with
//! the notes a person would expect for each (`queries.json`). Most queries
//! paraphrase their notes (`semantic`): keyword matching alone should do
//! poorly on them, which is what an embedder is measured against. About a
//! third name a rare exact term (`lexical`): an error code, a part or
//! ticket number, a version, a made-up product or person name, most of them
//! planted in one note with a near-miss decoy in another (`QX-2291`,
//! `QX-2219`), which an embedder blurs; that is why `hybrid` exists.
//!
//! A ranker is any `Fn(&str) -> Vec<String>` returning note paths relative
//! to the vault root (`"Cooking/Bread troubleshooting.md"`), best first:
//! the BM25 baseline here ([`bm25_ranker`]), or `semantic_search` over a
//! [`temporary_vault`] copy for an embedder (ask for 10 results and keep the
//! paths; a note returned twice counts once). [`evaluate`] scores it with recall@5 and MRR@10,
//! overall and per kind of query.
//!
//! Every query belongs to a split ([`Split`]): parameters are chosen on
//! `dev` ([`queries_of`]), and `test` is what they are judged by.
//!
//! Word overlap ([`word_overlap`]) and BM25 both see text through the `bm25`
//! crate's English tokenizer (Unicode words, lowercased, stop words removed,
//! Snowball-stemmed), so "low overlap" means low for the baseline too.

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};

use bm25::{DefaultTokenizer, Language, SearchEngineBuilder, Tokenizer};

/// How many results of a ranking count for the reciprocal rank: MRR@10,
/// the first page a person would look at.
pub(crate) const RANK_DEPTH: usize = 10;

/// The cut-off of the recall the issue reports (recall@5).
pub(crate) const RECALL_K: usize = 5;

/// What a query tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum QueryKind {
    /// A paraphrase sharing few words with its notes.
    Semantic,
    /// A rare exact term (a product name, an error code).
    Lexical,
}

/// One query of `queries.json`.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct EvalQuery {
    /// A short stable name (`q01`), for reports.
    pub(crate) id: String,
    /// What a person would type.
    pub(crate) query: String,
    /// The notes they would expect, vault-relative paths, best first.
    pub(crate) expected: Vec<String>,
    /// What the query tests.
    pub(crate) kind: QueryKind,
    /// Which half of the set it belongs to ([`Split`]).
    pub(crate) split: Split,
}

/// The half of the set a query belongs to. Anything tuned (the fusion's
/// parameters) is chosen on `dev` alone; the figures that count are those
/// of `test`, which the tuning never saw. Assigned by [`split_of`]: within
/// each kind, in file order, alternately dev and test, so both halves hold
/// the same mix of kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Split {
    /// Where parameters are chosen.
    Dev,
    /// Held out: scored, never tuned on.
    Test,
}

impl fmt::Display for Split {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Split::Dev => "dev",
            Split::Test => "test",
        })
    }
}

/// The split a query must have: the `position`-th query of its kind (from
/// 0, in file order) is `dev` when even, `test` when odd.
pub(crate) fn split_of(position: usize) -> Split {
    if position.is_multiple_of(2) {
        Split::Dev
    } else {
        Split::Test
    }
}

/// The queries of one split, in file order.
pub(crate) fn queries_of(queries: &[EvalQuery], split: Split) -> Vec<EvalQuery> {
    queries
        .iter()
        .filter(|query| query.split == split)
        .cloned()
        .collect()
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct QueriesFile {
    #[allow(dead_code)] // documentation for people reading the JSON
    description: String,
    queries: Vec<EvalQuery>,
}

/// One note of the vault.
#[derive(Debug, Clone)]
pub(crate) struct EvalNote {
    /// Vault-relative path with `/` separators and the `.md` extension.
    pub(crate) path: String,
    /// The whole file, frontmatter included.
    pub(crate) text: String,
}

impl EvalNote {
    /// The note's name as Obsidian shows it: the file name without `.md`.
    pub(crate) fn title(&self) -> &str {
        let name = self.path.rsplit('/').next().unwrap_or(&self.path);
        name.strip_suffix(".md").unwrap_or(name)
    }

    /// What a keyword ranker indexes and the overlap is measured against:
    /// the title (a person sees it in the results) and the whole text.
    pub(crate) fn searchable_text(&self) -> String {
        format!("{}\n{}", self.title(), self.text)
    }
}

/// The evaluation set: the vault's notes and the queries. Open a
/// [`temporary_vault`] copy as a kiln root, not the fixture itself: the kiln
/// writes beneath its root.
#[derive(Debug, Clone)]
pub(crate) struct EvalSet {
    /// Every note, sorted by path.
    pub(crate) notes: Vec<EvalNote>,
    /// Every query, in file order.
    pub(crate) queries: Vec<EvalQuery>,
}

/// The folder of the evaluation set in the repository.
pub(crate) fn eval_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/semantic_eval")
}

/// Loads the vault and the queries. Panics (it is test data) when a file is
/// missing or malformed, saying which.
pub(crate) fn load_eval() -> EvalSet {
    let dir = eval_dir();
    let vault = dir.join("vault");
    let mut notes = Vec::new();
    collect_notes(&vault, &vault, &mut notes);
    notes.sort_by(|a, b| a.path.cmp(&b.path));
    let json_path = dir.join("queries.json");
    let json = std::fs::read_to_string(&json_path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", json_path.display()));
    let file: QueriesFile = serde_json::from_str(&json)
        .unwrap_or_else(|e| panic!("{} is malformed: {e}", json_path.display()));
    EvalSet {
        notes,
        queries: file.queries,
    }
}

fn collect_notes(root: &Path, dir: &Path, notes: &mut Vec<EvalNote>) {
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect_notes(root, &path, notes);
        } else if path.extension().is_some_and(|ext| ext == "md") {
            let relative = path.strip_prefix(root).unwrap();
            let relative: Vec<_> = relative
                .components()
                .map(|c| c.as_os_str().to_str().expect("UTF-8 note path"))
                .collect();
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
            notes.push(EvalNote {
                path: relative.join("/"),
                text,
            });
        }
    }
}

/// A copy of the vault in a temporary folder, to open as a kiln root: an
/// index persisted under `<root>/.quire/` must not land in the repository.
pub(crate) fn temporary_vault(set: &EvalSet) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    for note in &set.notes {
        let to = dir.path().join(&note.path);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::write(&to, &note.text).unwrap();
    }
    dir
}

/// The tokenizer both the overlap and the BM25 baseline use.
pub(crate) fn english_tokenizer() -> DefaultTokenizer {
    DefaultTokenizer::new(Language::English)
}

/// The share of the query's distinct content-word stems that occur in
/// `text` (0 when the query has none): 0.0 = no word in common, 1.0 =
/// every query word is in the note.
pub(crate) fn word_overlap(tokenizer: &DefaultTokenizer, query: &str, text: &str) -> f64 {
    let query_stems: HashSet<String> = tokenizer.tokenize(query).into_iter().collect();
    if query_stems.is_empty() {
        return 0.0;
    }
    let text_stems: HashSet<String> = tokenizer.tokenize(text).into_iter().collect();
    let shared = query_stems.intersection(&text_stems).count();
    shared as f64 / query_stems.len() as f64
}

/// The first occurrence of each path, in order: a ranker over chunks may
/// return a note twice, and a note counts once.
fn distinct(ranking: &[String]) -> Vec<&str> {
    let mut seen = HashSet::new();
    ranking
        .iter()
        .map(String::as_str)
        .filter(|path| seen.insert(*path))
        .collect()
}

/// The share of `expected` found among the first `k` distinct paths of
/// `ranking` (0 when nothing is expected).
pub(crate) fn recall_at(k: usize, ranking: &[String], expected: &[String]) -> f64 {
    if expected.is_empty() {
        return 0.0;
    }
    let top: HashSet<&str> = distinct(ranking).into_iter().take(k).collect();
    let found = expected
        .iter()
        .filter(|path| top.contains(path.as_str()))
        .count();
    found as f64 / expected.len() as f64
}

/// 1 / the rank of the first expected path among the first [`RANK_DEPTH`]
/// distinct paths of `ranking`, or 0 when none is there.
pub(crate) fn reciprocal_rank(ranking: &[String], expected: &[String]) -> f64 {
    distinct(ranking)
        .into_iter()
        .take(RANK_DEPTH)
        .position(|path| expected.iter().any(|e| e == path))
        .map_or(0.0, |index| 1.0 / (index + 1) as f64)
}

/// Recall@5 and MRR@10 over a group of queries.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Metrics {
    /// How many queries the means are over.
    pub(crate) queries: usize,
    /// Mean share of the expected notes in the top 5.
    pub(crate) recall_at_5: f64,
    /// Mean reciprocal rank of the first expected note (top 10).
    pub(crate) mrr: f64,
}

impl Metrics {
    fn over(scores: &[(f64, f64)]) -> Metrics {
        let n = scores.len();
        let mean = |pick: fn(&(f64, f64)) -> f64| {
            if n == 0 {
                0.0
            } else {
                scores.iter().map(pick).sum::<f64>() / n as f64
            }
        };
        Metrics {
            queries: n,
            recall_at_5: mean(|s| s.0),
            mrr: mean(|s| s.1),
        }
    }
}

impl fmt::Display for Metrics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "recall@5 {:.3}  MRR@10 {:.3}  ({} queries)",
            self.recall_at_5, self.mrr, self.queries
        )
    }
}

/// One query's outcome, to see which queries a ranker misses.
#[derive(Debug, Clone)]
pub(crate) struct QueryOutcome {
    /// The query's id.
    pub(crate) id: String,
    /// Its recall@5.
    pub(crate) recall_at_5: f64,
    /// Its reciprocal rank.
    pub(crate) reciprocal_rank: f64,
}

/// The metrics of one ranker, overall and per kind of query.
#[derive(Debug, Clone)]
pub(crate) struct Report {
    /// Every query.
    pub(crate) overall: Metrics,
    /// The paraphrases.
    pub(crate) semantic: Metrics,
    /// The rare exact terms.
    pub(crate) lexical: Metrics,
    /// Each query's outcome, in query order.
    pub(crate) outcomes: Vec<QueryOutcome>,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "  overall   {}", self.overall)?;
        writeln!(f, "  semantic  {}", self.semantic)?;
        write!(f, "  lexical   {}", self.lexical)
    }
}

/// Runs `rank` once per query and scores its rankings against the
/// expected notes.
pub(crate) fn evaluate(queries: &[EvalQuery], rank: impl Fn(&str) -> Vec<String>) -> Report {
    let mut outcomes = Vec::with_capacity(queries.len());
    let (mut all, mut semantic, mut lexical) = (Vec::new(), Vec::new(), Vec::new());
    for query in queries {
        let ranking = rank(&query.query);
        let score = (
            recall_at(RECALL_K, &ranking, &query.expected),
            reciprocal_rank(&ranking, &query.expected),
        );
        all.push(score);
        match query.kind {
            QueryKind::Semantic => semantic.push(score),
            QueryKind::Lexical => lexical.push(score),
        }
        outcomes.push(QueryOutcome {
            id: query.id.clone(),
            recall_at_5: score.0,
            reciprocal_rank: score.1,
        });
    }
    Report {
        overall: Metrics::over(&all),
        semantic: Metrics::over(&semantic),
        lexical: Metrics::over(&lexical),
        outcomes,
    }
}

/// The BM25 baseline: every note (title and whole text) is one document of
/// an in-memory `bm25` engine with its default parameters (k1 1.2, b 0.75)
/// and English tokenizer; the ranker returns the top [`RANK_DEPTH`] paths
/// (notes sharing no stem with the query are not returned).
pub(crate) fn bm25_ranker(notes: &[EvalNote]) -> impl Fn(&str) -> Vec<String> + use<> {
    let documents: Vec<bm25::Document<String>> = notes
        .iter()
        .map(|note| bm25::Document::new(note.path.clone(), note.searchable_text()))
        .collect();
    let engine =
        SearchEngineBuilder::<String>::with_documents(Language::English, documents).build();
    move |query: &str| {
        // The engine orders equal scores as its hash set iterates; break
        // ties by path so the baseline's figures are the same every run.
        let mut results = engine.search(query, None);
        results.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| a.document.id.cmp(&b.document.id))
        });
        results
            .into_iter()
            .take(RANK_DEPTH)
            .map(|result| result.document.id)
            .collect()
    }
}
