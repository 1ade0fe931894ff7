//! The evaluation set (tests/fixtures/semantic_eval) ranked by the real
//! `minilm` embedder, alone and fused with BM25 (`hybrid`), against the
//! BM25 baseline over the same vault, on each split: the fusion's
//! parameters were chosen on `dev` (`fusion_sweep_on_dev` shows how), and
//! issue 12's bar is checked on `test`, which the choice never saw: MiniLM
//! beats BM25 by a clear margin, and hybrid is at least as good as the
//! better of the two. Skipped, loudly, when the model is not installed (the
//! test command installs it).
//!
//! ```text
//! QUIRE_MODELS_DIR=target/models cargo test --all-features --test semantic_eval_minilm -- --nocapture
//! QUIRE_MODELS_DIR=target/models cargo test --all-features --test semantic_eval_minilm -- --ignored --nocapture
//! ```

#[allow(dead_code)]
#[path = "support/semantic_eval.rs"]
mod semantic_eval;

use std::collections::HashMap;

use quire_embed::{EmbedError, Embedder, MiniLm, default_models_dir, minilm_dir};
use quire_fs::Workspace;
use quire_kiln::{
    Bm25Index, ChunkOptions, HybridParams, SemanticIndex, hybrid_search, hybrid_search_with,
    refresh,
};
use semantic_eval::{
    EvalQuery, EvalSet, Report, Split, bm25_ranker, evaluate, load_eval, queries_of,
    temporary_vault,
};

/// How many notes a ranking holds (MRR reads the first 10).
const DEPTH: usize = 10;

fn minilm() -> Option<MiniLm> {
    let models_dir = default_models_dir()?;
    match MiniLm::load(&minilm_dir(&models_dir)) {
        Ok(model) => Some(model),
        Err(EmbedError::NotInstalled { help, .. }) => {
            eprintln!("\n*** SKIPPED: the minilm model is not installed: {help} ***\n");
            None
        }
        Err(error) => panic!("the installed minilm model does not load: {error}"),
    }
}

/// The set, its notes indexed by MiniLM, BM25 over the same chunks, and
/// every query embedded once.
struct Indexed {
    set: EvalSet,
    index: SemanticIndex,
    bm25: Bm25Index,
    vectors: HashMap<String, Vec<f32>>,
}

fn indexed(model: &MiniLm) -> Indexed {
    let set = load_eval();
    let vault = temporary_vault(&set);
    let workspace = Workspace::new(vault.path()).unwrap();
    let mut index = SemanticIndex::new(model.id(), model.dimension());
    let report = refresh(&workspace, model, &mut index, &ChunkOptions::default()).unwrap();
    assert_eq!(report.notes_seen, set.notes.len());
    assert!(report.skipped.is_empty(), "{:?}", report.skipped);
    let bm25 = Bm25Index::build(&index);
    let texts: Vec<&str> = set.queries.iter().map(|q| q.query.as_str()).collect();
    let vectors = model
        .embed(&texts)
        .unwrap()
        .into_iter()
        .zip(&texts)
        .map(|(vector, text)| ((*text).to_owned(), vector))
        .collect();
    Indexed {
        set,
        index,
        bm25,
        vectors,
    }
}

impl Indexed {
    fn minilm(&self, queries: &[EvalQuery]) -> Report {
        evaluate(queries, |query| {
            let hits = self
                .index
                .search(&self.vectors[query], DEPTH, |_| true)
                .unwrap();
            hits.into_iter().map(|hit| hit.path).collect()
        })
    }

    fn hybrid(&self, queries: &[EvalQuery], params: &HybridParams) -> Report {
        evaluate(queries, |query| {
            let hits = hybrid_search_with(
                &self.index,
                &self.bm25,
                &self.vectors[query],
                query,
                DEPTH,
                |_| true,
                params,
            )
            .unwrap();
            hits.into_iter().map(|hit| hit.path).collect()
        })
    }
}

/// The three rankers on one group of queries.
struct Row {
    bm25: Report,
    minilm: Report,
    hybrid: Report,
}

fn table(name: &str, row: &Row) {
    eprintln!(
        "== {name}\nBM25 (whole notes)\n{}\nminilm\n{}\nhybrid (minilm + gated BM25 over chunks, weighted RRF)\n{}",
        row.bm25, row.minilm, row.hybrid
    );
}

#[test]
fn minilm_beats_bm25_by_a_clear_margin_and_hybrid_matches_the_better_on_test() {
    let Some(model) = minilm() else { return };
    let data = indexed(&model);
    let set = &data.set;
    let baseline = bm25_ranker(&set.notes);
    let row = |queries: &[EvalQuery]| Row {
        bm25: evaluate(queries, &baseline),
        minilm: data.minilm(queries),
        hybrid: evaluate(queries, |query| {
            let hits = hybrid_search(
                &data.index,
                &data.bm25,
                &data.vectors[query],
                query,
                DEPTH,
                |_| true,
            )
            .unwrap();
            hits.into_iter().map(|hit| hit.path).collect()
        }),
    };
    let dev = row(&queries_of(&set.queries, Split::Dev));
    let test = row(&queries_of(&set.queries, Split::Test));
    let all = row(&set.queries);
    eprintln!(
        "{} notes, {} chunks, {} queries",
        set.notes.len(),
        data.index.chunk_count(),
        set.queries.len()
    );
    table("dev (the fusion's parameters were chosen here)", &dev);
    table("test (held out: the figures that count)", &test);
    table("all", &all);
    let missed: Vec<&str> = all
        .minilm
        .outcomes
        .iter()
        .zip(&set.queries)
        .filter(|(outcome, _)| outcome.recall_at_5 < 1.0)
        .map(|(_, query)| query.query.as_str())
        .collect();
    eprintln!("minilm alone misses (recall@5 < 1): {missed:?}");
    // Where fusion changed a query's reciprocal rank, and the rare words
    // BM25 was asked about.
    for ((alone, fused), query) in all
        .minilm
        .outcomes
        .iter()
        .zip(&all.hybrid.outcomes)
        .zip(&set.queries)
    {
        if alone.reciprocal_rank != fused.reciprocal_rank {
            let gated = data
                .bm25
                .gated_rank(&query.query, 3, &HybridParams::default(), |_| true);
            eprintln!(
                "  {} {:?} ({:?}, {}): RR {:.2} -> {:.2}, BM25 counted {:?}",
                query.id,
                query.query,
                query.kind,
                query.split,
                alone.reciprocal_rank,
                fused.reciprocal_rank,
                gated.iter().map(|hit| hit.0.as_str()).collect::<Vec<_>>()
            );
        }
    }

    // Measured on test: BM25 0.492 / 0.441, minilm 0.875 / 0.794, hybrid
    // 0.975 / 0.931 (recall@5 / MRR@10).
    //
    // A clear margin on the held-out split: at least 0.25 more recall@5
    // and MRR than BM25 (measured 0.38 and 0.35).
    let (bm25, minilm) = (test.bm25.overall, test.minilm.overall);
    assert!(
        minilm.recall_at_5 >= bm25.recall_at_5 + 0.25,
        "minilm {minilm} vs BM25 {bm25}"
    );
    assert!(
        minilm.mrr >= bm25.mrr + 0.25,
        "minilm {minilm} vs BM25 {bm25}"
    );
    // Hybrid at least as good as the better of the two, on both measures,
    // on test (measured 0.10 and 0.14 over minilm) and on the whole set.
    for (name, row) in [("test", &test), ("all", &all)] {
        let best_recall = row
            .minilm
            .overall
            .recall_at_5
            .max(row.bm25.overall.recall_at_5);
        let best_mrr = row.minilm.overall.mrr.max(row.bm25.overall.mrr);
        assert!(
            row.hybrid.overall.recall_at_5 >= best_recall && row.hybrid.overall.mrr >= best_mrr,
            "{name}: hybrid {}, minilm {}, BM25 {}",
            row.hybrid.overall,
            row.minilm.overall,
            row.bm25.overall
        );
    }
    // It is BM25 that lifts hybrid over minilm, where exact strings count:
    // on the lexical queries of test, every expected note is in the top 5
    // (minilm alone: 0.684).
    assert_eq!(
        test.hybrid.lexical.recall_at_5, 1.0,
        "lexical: hybrid {}, minilm {}",
        test.hybrid.lexical, test.minilm.lexical
    );
    // And the gate keeps BM25 out of the paraphrases: hybrid ranks them
    // exactly as minilm does.
    assert_eq!(
        test.hybrid.semantic, test.minilm.semantic,
        "semantic: hybrid {}, minilm {}",
        test.hybrid.semantic, test.minilm.semantic
    );
}

/// How the fusion's constants were chosen: every combination of a small
/// grid, scored on `dev` only, by recall@5 + MRR. Prints the tied best
/// and the next few, and checks the module's constants are among the tied
/// best (the middle of that plateau was taken; see `hybrid.rs`). Ignored
/// by default: it runs the dev split a few hundred times.
#[test]
#[ignore = "a parameter sweep, run by hand: --ignored --nocapture"]
fn fusion_sweep_on_dev() {
    let Some(model) = minilm() else { return };
    let data = indexed(&model);
    let dev = queries_of(&data.set.queries, Split::Dev);
    let minilm = data.minilm(&dev).overall;
    eprintln!("dev: minilm alone {minilm}");
    let mut results = Vec::new();
    for rrf_k in [1.0, 2.0, 5.0, 10.0, 20.0, 60.0] {
        for bm25_weight in [0.5, 1.0, 1.25, 1.5, 2.0, 3.0] {
            for min_query_coverage in [0.0, 0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.8, 1.0] {
                let params = HybridParams {
                    rrf_k,
                    bm25_weight,
                    min_query_coverage,
                };
                let report = data.hybrid(&dev, &params).overall;
                results.push((report.recall_at_5 + report.mrr, params, report));
            }
        }
    }
    // A stable sort: on a tie the first in grid order stays first.
    results.sort_by(|a, b| b.0.total_cmp(&a.0));
    let best = results[0].0;
    let tied = results.iter().filter(|r| r.0 == best).count();
    eprintln!("{} combinations, {tied} tied best:", results.len());
    for (_, params, report) in results.iter().take(tied + 5) {
        eprintln!("{params:?}\n    {report}");
    }
    let default = data.hybrid(&dev, &HybridParams::default()).overall;
    eprintln!("the module's constants: {default}");
    assert_eq!(
        default.recall_at_5 + default.mrr,
        results[0].0,
        "the module's constants are not the best on dev"
    );
}
