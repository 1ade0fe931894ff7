//! Bringing a semantic index up to date with the notes on disk, embedding
//! only the notes whose text changed.

use super::chunk::{Chunk, ChunkOptions, chunk_note};
use super::error::SemanticError;
use super::store::{ContentSha, SemanticIndex, content_sha};
use crate::MAX_NOTE_BYTES;
use quire_embed::Embedder;
use quire_fs::{WalkEntry, WalkOptions, Workspace};

/// How many chunks of several notes are embedded together: an embedder
/// that batches by length (MiniLM) pads each batch only to its longest
/// text, so the more texts it can sort, the less padding it computes.
/// Note by note, a note of one long and three short sections pads the
/// short ones to the long one.
pub(super) const EMBED_ACROSS_NOTES: usize = 256;

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

/// The vectors of several notes' chunks, embedded together
/// ([`EMBED_ACROSS_NOTES`] texts to a call, so the embedder sorts them by
/// length across notes), split back per note in order.
pub(super) fn embed_notes(
    embedder: &dyn Embedder,
    notes: &[&[Chunk]],
) -> Result<Vec<Vec<Vec<f32>>>, SemanticError> {
    let texts: Vec<&str> = notes
        .iter()
        .flat_map(|chunks| chunks.iter().map(|chunk| chunk.text.as_str()))
        .collect();
    let mut vectors = Vec::with_capacity(texts.len());
    for call in texts.chunks(EMBED_ACROSS_NOTES) {
        let embedded = embedder.embed(call)?;
        if embedded.len() != call.len() {
            // Split back per note, a missing vector would shift every
            // later note's: refused whole.
            return Err(SemanticError::Embed(quire_embed::EmbedError::Embed(
                format!(
                    "the `{}` embedder returned {} vectors for {} texts",
                    embedder.id(),
                    embedded.len(),
                    call.len()
                ),
            )));
        }
        vectors.extend(embedded);
    }
    let mut vectors = vectors.into_iter();
    Ok(notes
        .iter()
        .map(|chunks| vectors.by_ref().take(chunks.len()).collect())
        .collect())
}

/// The notes of `notes` cut into groups of about [`EMBED_ACROSS_NOTES`]
/// chunks (a note is never split), in order.
pub(super) fn note_groups<T>(notes: Vec<T>, chunks: impl Fn(&T) -> usize) -> Vec<Vec<T>> {
    let mut groups = Vec::new();
    let mut group = Vec::new();
    let mut in_group = 0;
    for note in notes {
        in_group += chunks(&note);
        group.push(note);
        if in_group >= EMBED_ACROSS_NOTES {
            groups.push(std::mem::take(&mut group));
            in_group = 0;
        }
    }
    if !group.is_empty() {
        groups.push(group);
    }
    groups
}

/// Does what `plan` says to `index`: forgets the notes gone, then embeds
/// the changed ones, several notes' chunks together (see
/// `EMBED_ACROSS_NOTES`), calling `embedded` after each note is in the
/// index (so a caller can show progress, or save now and then).
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
    for group in note_groups(plan.changed, |note| note.chunks.len()) {
        let chunk_lists: Vec<&[Chunk]> = group.iter().map(|note| note.chunks.as_slice()).collect();
        let vectors = embed_notes(embedder, &chunk_lists)?;
        for (note, vectors) in group.into_iter().zip(vectors) {
            let chunks = note.chunks.len();
            index.upsert_note(&note.path, note.sha, note.chunks, vectors)?;
            report.notes_embedded += 1;
            report.chunks_embedded += chunks;
            embedded(index, &note.path, chunks);
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semantic::hashing_embedder::HashingEmbedder;

    fn chunks(texts: &[&str]) -> Vec<Chunk> {
        let text: String = texts.iter().map(|t| format!("# {t}\n{t}\n\n")).collect();
        chunk_note("n.md", &text, &ChunkOptions::default())
    }

    #[test]
    fn notes_embedded_together_get_the_vectors_they_get_alone() {
        let embedder = HashingEmbedder::new();
        let a = chunks(&[
            "apples and pears",
            "a much longer section about orchards in spring",
        ]);
        let b = chunks(&["bread"]);
        let many: Vec<Chunk> = (0..300)
            .flat_map(|n| chunks(&[&format!("section {n} of a long note")]))
            .collect();
        let together = embed_notes(&embedder, &[&a, &b, &many]).unwrap();
        assert_eq!(together.len(), 3);
        for (note, vectors) in [&a, &b, &many].iter().zip(&together) {
            let alone = embed_notes(&embedder, &[note]).unwrap().remove(0);
            assert_eq!(&alone, vectors);
            assert_eq!(vectors.len(), note.len());
        }
    }

    #[test]
    fn groups_hold_whole_notes_of_about_the_batch_size() {
        let sizes = [100, 100, 100, 10, 300, 1, 1];
        let groups = note_groups(sizes.to_vec(), |size| *size);
        assert_eq!(groups, [vec![100, 100, 100], vec![10, 300], vec![1, 1]]);
        assert!(note_groups(Vec::<usize>::new(), |size| *size).is_empty());
    }

    /// An embedder that drops a vector: refused, never shifted onto
    /// another note's chunks.
    #[test]
    fn an_embedder_that_returns_too_few_vectors_is_refused() {
        #[derive(Debug)]
        struct Short;
        impl Embedder for Short {
            fn id(&self) -> &str {
                "short"
            }
            fn dimension(&self) -> usize {
                2
            }
            fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, quire_embed::EmbedError> {
                Ok(texts.iter().skip(1).map(|_| vec![1.0, 0.0]).collect())
            }
        }
        let error = embed_notes(&Short, &[&chunks(&["a", "b"])]).unwrap_err();
        assert!(
            error.to_string().contains("returned 1 vectors for 2 texts"),
            "{error}"
        );
    }
}
