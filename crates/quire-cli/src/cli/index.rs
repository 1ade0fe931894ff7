//! `quire index`: builds or refreshes a kiln's semantic index from the
//! shell, with a progress bar (notes, chunks, chunks/s, time left), so that
//! a large vault is embedded once before the first `semantic_search`
//! rather than while an agent waits. The server then loads the saved index
//! and embeds only what changed since.

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
    match index(&workspace, embedder) {
        Ok(()) => Ok(Outcome::Success),
        Err(error) => {
            super::output::message(&format!("error: {error}"));
            Ok(Outcome::Findings)
        }
    }
}

fn index(workspace: &quire_fs::Workspace, embedder: &EmbedderArgs) -> anyhow::Result<()> {
    use std::time::Instant;

    use quire_kiln::{
        ChunkOptions, EmbedderSource, INDEX_FOLDER, SAVE_EVERY, SemanticIndex, apply_plan,
        index_file_name, plan_refresh,
    };

    let (name, load) = match embedder.source()? {
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
    let mut last_save = Instant::now();
    let mut save_error = None;
    let save = |index: &SemanticIndex| index.save(workspace);
    let report = apply_plan(&mut index, embedder.as_ref(), plan, |index, _, embedded| {
        notes_done += 1;
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

/// `1 note`, `2 notes`.
fn counted(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}
