//! Bringing a semantic index up to date with the notes on disk, embedding
//! only the notes whose text changed.

use super::chunk::{Chunk, ChunkOptions, chunk_note};
use super::error::SemanticError;
use super::store::{ContentSha, SemanticIndex, content_sha};
use crate::MAX_NOTE_BYTES;
use quire_embed::Embedder;
use quire_fs::{WalkEntry, WalkOptions, Workspace};

/// How many chunk texts are given to the embedder at once.
pub(super) const EMBED_BATCH: usize = 64;

/// What [`refresh`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RefreshReport {
    /// The notes found.
    pub notes_seen: usize,
    /// The notes embedded (new or changed).
    pub notes_embedded: usize,
    /// The chunks embedded.
    pub chunks_embedded: usize,
    /// The notes forgotten because they are gone.
    pub notes_removed: usize,
    /// The notes or folders that could not be read, and why.
    pub skipped: Vec<String>,
}

/// The vectors of `chunks`, in order, given to the embedder
/// [`EMBED_BATCH`] at a time.
pub(super) fn embed_chunks(
    embedder: &dyn Embedder,
    chunks: &[Chunk],
) -> Result<Vec<Vec<f32>>, SemanticError> {
    let mut vectors = Vec::with_capacity(chunks.len());
    for batch in chunks.chunks(EMBED_BATCH) {
        let texts: Vec<&str> = batch.iter().map(|chunk| chunk.text.as_str()).collect();
        vectors.extend(embedder.embed(&texts)?);
    }
    Ok(vectors)
}

/// A note to embed: new, or its text changed.
#[derive(Clone, Debug)]
pub struct PlannedNote {
    /// Its path relative to the root, as on disk.
    pub path: String,
    /// Its text's digest.
    pub sha: ContentSha,
    /// Its chunks.
    pub chunks: Vec<Chunk>,
}

/// What a refresh has to do: found by [`plan_refresh`], done by
/// [`apply_plan`].
#[derive(Clone, Debug, Default)]
pub struct RefreshPlan {
    /// The notes to embed, in the walk's order.
    pub changed: Vec<PlannedNote>,
    /// The notes the index holds that are gone.
    pub gone: Vec<String>,
    /// The notes found.
    pub notes_seen: usize,
    /// The notes or folders that could not be read, and why.
    pub skipped: Vec<String>,
}

impl RefreshPlan {
    /// How many chunks the plan embeds.
    pub fn chunk_count(&self) -> usize {
        self.changed.iter().map(|note| note.chunks.len()).sum()
    }
}

/// Walks the workspace's notes (`.md` files, hidden folders such as
/// `.quire` and `.trash` never entered) and finds those that are new or
/// changed since `index` last saw them, and those that are gone. A note
/// that cannot be read is reported in [`RefreshPlan::skipped`] and keeps
/// whatever the index had for it.
pub fn plan_refresh(
    workspace: &Workspace,
    index: &SemanticIndex,
    options: &ChunkOptions,
) -> Result<RefreshPlan, SemanticError> {
    let mut plan = RefreshPlan::default();
    let mut seen = std::collections::HashSet::new();
    for entry in workspace.walk("", WalkOptions::new().extension("md"))? {
        match entry {
            WalkEntry::File(file) => {
                plan.notes_seen += 1;
                seen.insert(file.path.clone());
                let text = match workspace.read_to_string(&file.path, MAX_NOTE_BYTES) {
                    Ok(text) => text,
                    Err(error) => {
                        plan.skipped.push(error.to_string());
                        continue;
                    }
                };
                let sha = content_sha(&text);
                if index.note_sha(&file.path) != Some(sha) {
                    let chunks = chunk_note(&file.path, &text, options);
                    plan.changed.push(PlannedNote {
                        path: file.path,
                        sha,
                        chunks,
                    });
                }
            }
            WalkEntry::Skipped { path, reason } => {
                plan.skipped.push(format!("{path}: {}", reason.described()));
            }
            WalkEntry::Error(error) => plan.skipped.push(error.to_string()),
            WalkEntry::LimitReached { limit } => {
                plan.skipped.push(format!("stopped at {limit} entries"));
            }
        }
    }
    plan.gone = index
        .paths()
        .filter(|path| !seen.contains(*path))
        .map(str::to_owned)
        .collect();
    plan.gone.sort();
    Ok(plan)
}

/// Does what `plan` says to `index`: forgets the notes gone, then embeds
/// the changed ones one at a time, calling `embedded` after each with the
/// note (so a caller can show progress, or save now and then).
pub fn apply_plan(
    index: &mut SemanticIndex,
    embedder: &dyn Embedder,
    plan: RefreshPlan,
    mut embedded: impl FnMut(&SemanticIndex, &str, usize),
) -> Result<RefreshReport, SemanticError> {
    check_embedder(index, embedder)?;
    let mut report = RefreshReport {
        notes_seen: plan.notes_seen,
        skipped: plan.skipped,
        ..RefreshReport::default()
    };
    for path in &plan.gone {
        index.remove_note(path);
        report.notes_removed += 1;
    }
    for note in plan.changed {
        let vectors = embed_chunks(embedder, &note.chunks)?;
        let chunks = note.chunks.len();
        index.upsert_note(&note.path, note.sha, note.chunks, vectors)?;
        report.notes_embedded += 1;
        report.chunks_embedded += chunks;
        embedded(index, &note.path, chunks);
    }
    Ok(report)
}

/// Brings `index` up to date with the notes on disk: [`plan_refresh`] then
/// [`apply_plan`], embedding only what changed.
pub fn refresh(
    workspace: &Workspace,
    embedder: &dyn Embedder,
    index: &mut SemanticIndex,
    options: &ChunkOptions,
) -> Result<RefreshReport, SemanticError> {
    check_embedder(index, embedder)?;
    let plan = plan_refresh(workspace, index, options)?;
    apply_plan(index, embedder, plan, |_, _, _| {})
}

fn check_embedder(index: &SemanticIndex, embedder: &dyn Embedder) -> Result<(), SemanticError> {
    if index.embedder_id() == embedder.id() && index.dimension() == embedder.dimension() {
        return Ok(());
    }
    Err(SemanticError::OtherEmbedder {
        file: "the semantic index".to_owned(),
        found_id: index.embedder_id().to_owned(),
        found_dimension: index.dimension(),
        wanted_id: embedder.id().to_owned(),
        wanted_dimension: embedder.dimension(),
    })
}
