//! `quire index`: builds or refreshes a kiln's semantic indexes from the
//! shell, with a progress bar (notes, chunks, chunks/s, time left), so that
//! a large vault is embedded once before the first `semantic_search`
//! rather than while an agent waits. The server then loads the saved
//! indexes and embeds only what changed since.
//!
//! Without `--embedder` it indexes every installed tier, the fastest first
//! (the `static` table, then `minilm`), so a complete index a server can
//! answer from exists as early as possible; it says what it will do first,
//! and once the rate is measured, how long the rest will take.

use std::path::Path;

use super::Outcome;
use super::embedder::EmbedderArgs;

/// Runs `quire index`: exit 2 for bad usage or a root that cannot be
/// opened, 1 when the notes cannot be embedded or saved (what was embedded
/// and saved is kept).
pub(super) fn run(root: &Path, embedder: &EmbedderArgs) -> anyhow::Result<Outcome> {
    embedder.check()?;
    let workspace = quire_fs::Workspace::new(root).map_err(|error| {
        anyhow::anyhow!("cannot open the kiln root {}: {error}", root.display())
    })?;
    let mut tiers = vec![embedder.source()?];
    tiers.extend(embedder.fallbacks());
    // The fastest first: a complete index to answer from, soonest.
    tiers.reverse();
    let names: Vec<String> = tiers.iter().map(source_name).collect();
    if names.len() > 1 {
        eprintln!(
            "indexing {} tiers, the fastest first: {} (a server answers from the best complete one)",
            names.len(),
            names.join(", then ")
        );
    }
    for tier in tiers {
        if let Err(error) = index(&workspace, tier) {
            super::output::message(&format!("error: {error}"));
            return Ok(Outcome::Findings);
        }
    }
    Ok(Outcome::Success)
}

/// The name of the embedder a source loads (`static`, `minilm`, ...).
fn source_name(source: &quire_kiln::EmbedderSource) -> String {
    match source {
        quire_kiln::EmbedderSource::Load { name, .. } => name.clone(),
        quire_kiln::EmbedderSource::Unavailable(_) => "none".to_owned(),
    }
}

/// How long the embedding runs before its rate is measured and the time
/// left said.
const RATE_SAMPLE: std::time::Duration = std::time::Duration::from_secs(10);

fn index(
    workspace: &quire_fs::Workspace,
    source: quire_kiln::EmbedderSource,
) -> anyhow::Result<()> {
    use std::time::Instant;

    use quire_kiln::{
        ChunkOptions, EmbedderSource, INDEX_FOLDER, SAVE_EVERY, SemanticIndex, apply_plan,
        index_file_name, plan_refresh,
    };

    let (name, load) = match source {
        EmbedderSource::Load { name, load } => (name, load),
        EmbedderSource::Unavailable(why) => anyhow::bail!("{why}"),
    };
    eprintln!("loading the `{name}` embedder");
    let embedder = load().map_err(|error| anyhow::anyhow!("{error}"))?;
    let loading = Instant::now();
    let (index, problem) =
        SemanticIndex::load_or_new(workspace, embedder.id(), embedder.dimension());
    match problem {
        Some(problem) => eprintln!("{problem}"),
        // How long a server waits for the saved index (issue 26).
        None if index.chunk_count() > 0 => eprintln!(
            "loaded the saved index ({}) in {:.2} s",
            counted(index.chunk_count(), "chunk"),
            loading.elapsed().as_secs_f64()
        ),
        None => {}
    }
    let mut index = index;
    let started = Instant::now();
    let plan = plan_refresh(workspace, &index, &ChunkOptions::default())
        .map_err(|error| anyhow::anyhow!("{error}"))?;
    let chunks = plan.chunk_count();
    eprintln!(
        "{}: {} to embed ({}), {} gone, {} unchanged",
        counted(plan.notes_seen, "note"),
        plan.changed.len(),
        counted(chunks, "chunk"),
        plan.gone.len(),
        plan.notes_seen - plan.changed.len() - plan.skipped.len(),
    );
    let notes = plan.changed.len() as u64;
    let bar = super::progress::bar(
        Some(chunks as u64),
        "",
        "{bar:30} {pos}/{len} chunks, {msg}, {per_sec}, {eta} left",
    );
    let mut notes_done = 0u64;
    let mut chunks_done = 0usize;
    let mut told_rate = false;
    // When the last note was reported, and how many chunks were done then.
    let mut last_report = (std::time::Duration::ZERO, 0usize);
    let embedding = Instant::now();
    let mut last_save = Instant::now();
    let mut save_error = None;
    let save = |index: &SemanticIndex| index.save(workspace);
    let report = apply_plan(&mut index, embedder.as_ref(), plan, |index, _, embedded| {
        // Said once, in words, from the rate measured so far (the bar's
        // own estimate moves with every note). Notes are embedded in groups
        // and reported together right after their group: a report that
        // comes well after the previous one opens a new group, so every
        // chunk reported before it was done by the previous report's time.
        let now = embedding.elapsed();
        let (then, done_then) = last_report;
        if !told_rate
            && then >= RATE_SAMPLE
            && now.saturating_sub(then) >= std::time::Duration::from_millis(10)
            && done_then < chunks
        {
            told_rate = true;
            let rate = done_then as f64 / then.as_secs_f64();
            bar.suspend(|| {
                eprintln!(
                    "`{name}` embeds {rate:.1} chunks/s here: the {} left take about {}",
                    counted(chunks - done_then, "chunk"),
                    duration_words((chunks - done_then) as f64 / rate.max(1e-9))
                );
            });
        }
        notes_done += 1;
        chunks_done += embedded;
        last_report = (embedding.elapsed(), chunks_done);
        bar.set_message(format!("{notes_done}/{notes} notes"));
        bar.inc(embedded as u64);
        // A long first run saves as it goes, so an interrupted one resumes.
        if last_save.elapsed() >= SAVE_EVERY {
            if let Err(error) = save(index) {
                save_error.get_or_insert(error.to_string());
            }
            last_save = Instant::now();
        }
    })
    .map_err(|error| anyhow::anyhow!("{error}; the notes embedded so far are kept"));
    bar.finish_and_clear();
    // What was embedded is saved even when the embedder failed midway.
    let saved = save(&index);
    let report = report?;
    let file = format!("{INDEX_FOLDER}/{}", index_file_name(embedder.id()));
    saved.map_err(|error| {
        anyhow::anyhow!("the index could not be saved as {file} beneath the root: {error}")
    })?;
    let seconds = started.elapsed().as_secs_f64();
    eprintln!(
        "embedded {} ({}) in {seconds:.1} s ({:.0} chunks/s), forgot {} gone; {} and {} in {file}",
        counted(report.notes_embedded, "note"),
        counted(report.chunks_embedded, "chunk"),
        report.chunks_embedded as f64 / seconds.max(1e-9),
        report.notes_removed,
        counted(index.note_count(), "note"),
        counted(index.chunk_count(), "chunk"),
    );
    for skipped in &report.skipped {
        eprintln!("skipped: {skipped}");
    }
    Ok(())
}

/// `45 s`, `12 min`, `3.4 h`.
fn duration_words(seconds: f64) -> String {
    if seconds < 90.0 {
        format!("{seconds:.0} s")
    } else if seconds < 90.0 * 60.0 {
        format!("{:.0} min", seconds / 60.0)
    } else {
        format!("{:.1} h", seconds / 3600.0)
    }
}

/// `1 note`, `2 notes`.
fn counted(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}
