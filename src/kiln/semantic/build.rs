//! Bringing a semantic index up to date with the notes on disk, embedding
//! only the notes whose text changed.

use super::chunk::{ChunkOptions, chunk_note};
use super::error::SemanticError;
use super::store::{SemanticIndex, content_sha};
use crate::embed::Embedder;
use crate::fs::{WalkEntry, WalkOptions, Workspace};
use crate::kiln::MAX_NOTE_BYTES;

/// How many chunk texts are given to the embedder at once.
const EMBED_BATCH: usize = 64;

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

/// Embeds the note `path` with text `text` into `index` unless the index
/// already holds this very text; whether it embedded it (`Ok(false)`:
/// unchanged). For the file watcher: one note at a time.
pub fn index_note(
    index: &mut SemanticIndex,
    embedder: &dyn Embedder,
    options: &ChunkOptions,
    path: &str,
    text: &str,
) -> Result<bool, SemanticError> {
    check_embedder(index, embedder)?;
    let sha = content_sha(text);
    if index.note_sha(path) == Some(sha) {
        return Ok(false);
    }
    let chunks = chunk_note(path, text, options);
    let mut vectors = Vec::with_capacity(chunks.len());
    for batch in chunks.chunks(EMBED_BATCH) {
        let texts: Vec<&str> = batch.iter().map(|chunk| chunk.text.as_str()).collect();
        vectors.extend(embedder.embed(&texts)?);
    }
    index.upsert_note(path, sha, chunks, vectors)?;
    Ok(true)
}

/// Walks the workspace's notes (`.md` files, hidden folders such as
/// `.quire` and `.trash` never entered), embeds those that are new or
/// changed since the index last saw them, and forgets those that are gone.
/// A note that cannot be read is reported in [`RefreshReport::skipped`]
/// and keeps whatever the index had for it.
pub fn refresh(
    workspace: &Workspace,
    embedder: &dyn Embedder,
    index: &mut SemanticIndex,
    options: &ChunkOptions,
) -> Result<RefreshReport, SemanticError> {
    check_embedder(index, embedder)?;
    let mut report = RefreshReport::default();
    let mut seen = std::collections::HashSet::new();
    for entry in workspace.walk("", WalkOptions::new().extension("md"))? {
        match entry {
            WalkEntry::File(file) => {
                report.notes_seen += 1;
                seen.insert(file.path.clone());
                let text = match workspace.read_to_string(&file.path, MAX_NOTE_BYTES) {
                    Ok(text) => text,
                    Err(error) => {
                        report.skipped.push(error.to_string());
                        continue;
                    }
                };
                if index_note(index, embedder, options, &file.path, &text)? {
                    report.notes_embedded += 1;
                    report.chunks_embedded += index.note_chunks(&file.path).len();
                }
            }
            WalkEntry::Skipped { path, reason } => {
                report
                    .skipped
                    .push(format!("{path}: {}", reason.described()));
            }
            WalkEntry::Error(error) => report.skipped.push(error.to_string()),
            WalkEntry::LimitReached { limit } => {
                report.skipped.push(format!("stopped at {limit} entries"));
            }
        }
    }
    let gone: Vec<String> = index
        .paths()
        .filter(|path| !seen.contains(*path))
        .map(str::to_owned)
        .collect();
    for path in gone {
        index.remove_note(&path);
        report.notes_removed += 1;
    }
    Ok(report)
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
