//! The semantic index as the server keeps it: loaded and brought up to
//! date on a thread of its own once the server starts, so that loading a
//! model and embedding a large vault never delay the MCP handshake or any
//! other tool, then kept in step with the notes.
//!
//! The thread loads the embedder (a model takes a second or two), then the
//! index saved in `.quire/` by an earlier run (or by `quire index`), and
//! then, every [`TICK`], asks the kiln's own index (kept fresh by its file
//! watcher, see [`LiveIndex`]) which notes changed since it
//! last looked: their `stat`s are compared with the ones it saw, so an
//! unchanged vault costs one pass over the kiln's index in memory. A
//! changed note is read again and embedded only if its text changed (the
//! index keeps each note's SHA-256). Notes waiting to be embedded are
//! counted by chunks, which is what `get_kiln_info` reports as progress,
//! and a search marks results from notes still waiting (`indexing`).
//!
//! The index is saved when it is complete and at most every [`SAVE_EVERY`]
//! while a long first embedding runs, so a stopped server resumes where
//! it was. A folder where it cannot be saved (a read-only vault) leaves it
//! in memory, with the reason reported.
//!
//! Locks: the kiln's index is always taken before the semantic state,
//! never the other way round; embedding runs with neither held.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError, Weak};
use std::time::{Duration, Instant};

use super::build::{embed_notes, note_groups};
use super::chunk::{Chunk, ChunkOptions, chunk_note};
use super::error::SemanticError;
use super::hybrid::Bm25Index;
use super::persist::save_index_bytes;
use super::store::{ContentSha, SemanticIndex, content_sha};
use crate::live::LiveIndex;
use crate::read::{KilnError, MAX_NOTE_BYTES};
use crate::{IndexedNote, KilnIndex};
use quire_embed::{EmbedError, Embedder};
use quire_fs::{FileStat, Workspace};

/// How often the thread looks for changed notes once the index is
/// complete.
pub(super) const TICK: Duration = Duration::from_secs(2);

/// How often, at most, the index is saved while a long embedding runs.
pub const SAVE_EVERY: Duration = Duration::from_secs(30);

/// After an embedder failure, the longest wait before trying again.
const MAX_BACKOFF: Duration = Duration::from_secs(60);

/// Makes the embedder; run on the indexing thread.
pub type LoadEmbedder = dyn Fn() -> Result<Arc<dyn Embedder>, EmbedError> + Send + Sync;

/// Where the semantic index's embedder comes from.
#[derive(Clone)]
pub enum EmbedderSource {
    /// None: why, and how to get one. `semantic_search` says exactly this.
    Unavailable(String),
    /// Made on the indexing thread by `load`, since loading a model takes a
    /// while; `name` says which (`minilm`, `static`, `http`).
    Load {
        /// The embedder's name, for status reports before it is loaded.
        name: String,
        /// Makes it.
        load: Arc<LoadEmbedder>,
    },
}

impl EmbedderSource {
    /// An embedder that is already made (a library user's own, or a test's).
    pub fn ready(embedder: Arc<dyn Embedder>) -> Self {
        let name = embedder.id().to_owned();
        EmbedderSource::Load {
            name,
            load: Arc::new(move || Ok(Arc::clone(&embedder))),
        }
    }
}

impl Default for EmbedderSource {
    /// No embedder, with a generic reason.
    fn default() -> Self {
        EmbedderSource::Unavailable(
            "no embedder was configured for this server; start it with `--embedder minilm` after \
             `quire models install`"
                .to_owned(),
        )
    }
}

impl std::fmt::Debug for EmbedderSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EmbedderSource::Unavailable(why) => f.debug_tuple("Unavailable").field(why).finish(),
            EmbedderSource::Load { name, .. } => f
                .debug_struct("Load")
                .field("name", name)
                .finish_non_exhaustive(),
        }
    }
}

/// Where the semantic index stands, for `get_kiln_info` and the results of
/// `semantic_search`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SemanticProgress {
    /// `unavailable` (no embedder), `loading` (the embedder or the saved
    /// index), `indexing`, `ready`, or `failed`.
    pub state: &'static str,
    /// The embedder's id once loaded, else its name.
    pub embedder: Option<String>,
    /// Chunks whose vectors the index holds.
    pub chunks_embedded: usize,
    /// Those plus the chunks of the notes waiting to be embedded.
    pub chunks_total: usize,
    /// Notes waiting to be embedded.
    pub notes_pending: usize,
    /// Whether every note known is embedded as it is now.
    pub ready: bool,
    /// Why there is no index (`unavailable`, `failed`), or the last problem
    /// met (an embedder error, an index that could not be saved).
    pub problem: Option<String>,
}

/// What the indexing thread is doing.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Phase {
    NotStarted,
    Loading,
    Indexing,
    Ready,
    Unavailable(String),
    Failed(String),
}

/// The index and what the thread knows of the notes.
struct State {
    phase: Phase,
    embedder: Option<Arc<dyn Embedder>>,
    index: Option<SemanticIndex>,
    bm25: Option<Bm25Index>,
    /// The `stat` of each note (by its path on disk) when its text was last
    /// read: embedded, or found unchanged.
    checked: HashMap<String, FileStat>,
    /// Notes waiting to be embedded, with how many chunks each has.
    pending: BTreeMap<String, usize>,
    problem: Option<String>,
    /// Whether the index was complete once: from then on a search answers
    /// at once, marking notes still waiting, rather than wait for them.
    was_ready: bool,
}

struct Shared {
    source: EmbedderSource,
    options: ChunkOptions,
    state: Mutex<State>,
    /// Signalled when the phase or the progress changes.
    progressed: Condvar,
}

/// The semantic index of a workspace, loaded and updated in the
/// background.
#[derive(Clone)]
pub(crate) struct LiveSemantic {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for LiveSemantic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveSemantic")
            .field("source", &self.shared.source)
            .finish_non_exhaustive()
    }
}

fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What a search sees of the semantic index, under its lock.
pub(crate) struct SemanticView<'a> {
    /// The vectors.
    pub index: &'a SemanticIndex,
    /// BM25 over the same chunks.
    pub bm25: &'a Bm25Index,
    pending: &'a BTreeMap<String, usize>,
    checked: &'a HashMap<String, FileStat>,
}

impl SemanticView<'_> {
    /// Whether the note at `on_disk`, whose file is now `stat`, is still
    /// waiting to be embedded as it is now (its vectors, if any, are of
    /// an older text).
    pub(crate) fn is_stale(&self, on_disk: &str, stat: &FileStat) -> bool {
        self.pending.contains_key(on_disk)
            || !self
                .checked
                .get(on_disk)
                .is_some_and(|seen| stat.unchanged_since(seen))
    }
}

impl LiveSemantic {
    /// The semantic index of a workspace with the embedder `source` gives,
    /// not loaded until [`Self::start`].
    pub(crate) fn new(source: EmbedderSource, options: ChunkOptions) -> Self {
        let phase = match &source {
            EmbedderSource::Unavailable(why) => Phase::Unavailable(why.clone()),
            EmbedderSource::Load { .. } => Phase::NotStarted,
        };
        LiveSemantic {
            shared: Arc::new(Shared {
                source,
                options,
                state: Mutex::new(State {
                    phase,
                    embedder: None,
                    index: None,
                    bm25: None,
                    checked: HashMap::new(),
                    pending: BTreeMap::new(),
                    problem: None,
                    was_ready: false,
                }),
                progressed: Condvar::new(),
            }),
        }
    }

    /// Starts the indexing thread over `workspace`, following the notes of
    /// `kiln`, unless it was started or there is no embedder. The thread
    /// ends once every [`LiveSemantic`] is dropped.
    pub(crate) fn start(&self, workspace: &Workspace, kiln: &LiveIndex) {
        let mut state = locked(&self.shared.state);
        if state.phase != Phase::NotStarted {
            return;
        }
        state.phase = Phase::Loading;
        let worker = Worker {
            shared: Arc::downgrade(&self.shared),
            workspace: workspace.clone(),
            kiln: kiln.clone(),
            last_save: Instant::now(),
            dirty: false,
        };
        let spawned = std::thread::Builder::new()
            .name("kiln-semantic".to_owned())
            .spawn(move || worker.run());
        if let Err(error) = spawned {
            state.phase = Phase::Failed(format!("the indexing thread could not start: {error}"));
        }
    }

    /// Where the index stands.
    pub(crate) fn progress(&self) -> SemanticProgress {
        let state = locked(&self.shared.state);
        progress_of(&self.shared.source, &state)
    }

    /// Waits at most `budget` for the index to be complete, and returns the
    /// embedder. An index still being filled after `budget` is used as it
    /// is (its progress says how far it got); no embedder, or one that
    /// failed to load, is an error that says what to do.
    pub(crate) fn wait(&self, budget: Duration) -> Result<Arc<dyn Embedder>, KilnError> {
        let deadline = Instant::now().checked_add(budget);
        let mut state = locked(&self.shared.state);
        loop {
            match &state.phase {
                Phase::Ready => break,
                Phase::Unavailable(why) | Phase::Failed(why) => {
                    return Err(KilnError::Semantic(SemanticUnavailable::NoEmbedder(
                        why.clone(),
                    )));
                }
                // An embedder failing while it indexes: answer from what
                // is there rather than wait for it to come back.
                Phase::Indexing if state.problem.is_some() || state.was_ready => break,
                Phase::NotStarted | Phase::Loading | Phase::Indexing => {}
            }
            let now = Instant::now();
            let left = match deadline {
                Some(deadline) if deadline > now => deadline - now,
                Some(_) => break,
                None => Duration::from_secs(3600),
            };
            state = self
                .shared
                .progressed
                .wait_timeout(state, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        match &state.embedder {
            Some(embedder) if state.index.is_some() => Ok(Arc::clone(embedder)),
            _ => Err(KilnError::Semantic(SemanticUnavailable::Loading {
                embedder: embedder_name(&self.shared.source),
                waited: budget,
            })),
        }
    }

    /// Runs `look` on the index as it is now.
    pub(crate) fn view<R>(&self, look: impl FnOnce(SemanticView<'_>) -> R) -> Result<R, KilnError> {
        let state = locked(&self.shared.state);
        let (Some(index), Some(bm25)) = (&state.index, &state.bm25) else {
            return Err(KilnError::Semantic(SemanticUnavailable::Loading {
                embedder: embedder_name(&self.shared.source),
                waited: Duration::ZERO,
            }));
        };
        Ok(look(SemanticView {
            index,
            bm25,
            pending: &state.pending,
            checked: &state.checked,
        }))
    }
}

fn embedder_name(source: &EmbedderSource) -> String {
    match source {
        EmbedderSource::Unavailable(_) => "none".to_owned(),
        EmbedderSource::Load { name, .. } => name.clone(),
    }
}

fn progress_of(source: &EmbedderSource, state: &State) -> SemanticProgress {
    let (name, problem) = match &state.phase {
        Phase::NotStarted | Phase::Loading => ("loading", state.problem.clone()),
        Phase::Indexing => ("indexing", state.problem.clone()),
        Phase::Ready => ("ready", state.problem.clone()),
        Phase::Unavailable(why) => ("unavailable", Some(why.clone())),
        Phase::Failed(why) => ("failed", Some(why.clone())),
    };
    let chunks_embedded = state.index.as_ref().map_or(0, SemanticIndex::chunk_count);
    let waiting: usize = state.pending.values().sum();
    // A pending note's old chunks are still in the index: counted once.
    let replaced: usize = state.index.as_ref().map_or(0, |index| {
        state
            .pending
            .keys()
            .map(|path| index.note_chunks(path).len())
            .sum()
    });
    let embedder = match (&state.embedder, source) {
        (Some(embedder), _) => Some(embedder.id().to_owned()),
        (None, EmbedderSource::Load { name, .. }) => Some(name.clone()),
        (None, EmbedderSource::Unavailable(_)) => None,
    };
    SemanticProgress {
        state: name,
        embedder,
        chunks_embedded: chunks_embedded - replaced.min(chunks_embedded),
        chunks_total: chunks_embedded - replaced.min(chunks_embedded) + waiting,
        notes_pending: state.pending.len(),
        ready: state.phase == Phase::Ready,
        problem,
    }
}

/// Why `semantic_search` cannot answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SemanticUnavailable {
    /// No embedder is configured or installed, or it failed to load: the
    /// message says how to get one.
    #[error("semantic search is not available: {0}")]
    NoEmbedder(String),
    /// The embedder or the saved index is still loading.
    #[error(
        "the `{embedder}` embedder is still loading ({:.1} s waited); retry in a moment",
        .waited.as_secs_f64()
    )]
    Loading {
        /// Its name.
        embedder: String,
        /// How long the call waited.
        waited: Duration,
    },
    /// Embedding the query failed.
    #[error("the query could not be embedded: {0}")]
    Query(String),
}

/// A note the plan found changed: where, its `stat` when read, its text's
/// digest and chunks.
struct Changed {
    on_disk: String,
    stat: FileStat,
    sha: ContentSha,
    chunks: Vec<Chunk>,
}

/// The indexing thread.
struct Worker {
    shared: Weak<Shared>,
    workspace: Workspace,
    kiln: LiveIndex,
    last_save: Instant,
    dirty: bool,
}

impl Worker {
    fn run(mut self) {
        if !self.load() {
            return;
        }
        let mut backoff = TICK;
        loop {
            let Some(shared) = self.shared.upgrade() else {
                return;
            };
            let wait = match self.catch_up(&shared) {
                Ok(()) => {
                    backoff = TICK;
                    let mut state = locked(&shared.state);
                    // The embedder works again: its failure is over.
                    if state
                        .problem
                        .as_deref()
                        .is_some_and(|problem| !problem.starts_with(NOT_SAVED))
                    {
                        state.problem = None;
                    }
                    TICK
                }
                Err(problem) => {
                    tracing::warn!(%problem, "semantic indexing stopped; retrying in {backoff:?}");
                    locked(&shared.state).problem = Some(problem);
                    let wait = backoff;
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                    wait
                }
            };
            // Holding `shared` while waiting keeps it alive at most one tick
            // past the server's end.
            let state = locked(&shared.state);
            drop(
                shared
                    .progressed
                    .wait_timeout(state, wait)
                    .unwrap_or_else(PoisonError::into_inner),
            );
        }
    }

    /// Loads the embedder and the saved index; whether it could.
    fn load(&self) -> bool {
        let Some(shared) = self.shared.upgrade() else {
            return false;
        };
        let EmbedderSource::Load { name, load } = &shared.source else {
            return false;
        };
        let started = Instant::now();
        let embedder = match load() {
            Ok(embedder) => embedder,
            Err(error) => {
                tracing::warn!(%error, embedder = %name, "no semantic search");
                set_phase(&shared, Phase::Failed(error.to_string()));
                return false;
            }
        };
        let (index, problem) =
            SemanticIndex::load_or_new(&self.workspace, embedder.id(), embedder.dimension());
        if let Some(problem) = &problem {
            tracing::warn!(%problem, "the saved semantic index is not used");
        }
        let bm25 = Bm25Index::build(&index);
        tracing::info!(
            embedder = embedder.id(),
            notes = index.note_count(),
            chunks = index.chunk_count(),
            elapsed = ?started.elapsed(),
            "semantic index loaded"
        );
        let mut state = locked(&shared.state);
        state.embedder = Some(embedder);
        state.index = Some(index);
        state.bm25 = Some(bm25);
        state.phase = Phase::Indexing;
        shared.progressed.notify_all();
        true
    }

    /// Embeds what changed since the last look, and saves.
    fn catch_up(&mut self, shared: &Shared) -> Result<(), String> {
        let (candidates, gone) = self.plan(shared)?;
        let mut state = locked(&shared.state);
        for path in &gone {
            if let Some(index) = &mut state.index {
                self.dirty |= index.remove_note(path);
            }
            if let Some(bm25) = &mut state.bm25 {
                bm25.remove_note(path);
            }
            state.checked.remove(path);
            state.pending.remove(path);
        }
        drop(state);
        let changed = self.read_changed(shared, candidates);
        {
            let mut state = locked(&shared.state);
            for note in &changed {
                state
                    .pending
                    .insert(note.on_disk.clone(), note.chunks.len());
            }
            if state.pending.is_empty() {
                state.phase = Phase::Ready;
                state.was_ready = true;
            } else {
                state.phase = Phase::Indexing;
            }
            shared.progressed.notify_all();
        }
        let embedder = locked(&shared.state).embedder.clone();
        let Some(embedder) = embedder else {
            return Ok(());
        };
        // Several notes' chunks at once: the embedder sorts them by length
        // across notes (less padding), and each note enters the index as
        // soon as its group is done.
        for group in note_groups(changed, |note| note.chunks.len()) {
            self.embed(shared, embedder.as_ref(), group)?;
            if self.dirty && self.last_save.elapsed() >= SAVE_EVERY {
                self.save(shared);
            }
        }
        let mut state = locked(&shared.state);
        if state.pending.is_empty() {
            state.phase = Phase::Ready;
            state.was_ready = true;
            shared.progressed.notify_all();
            drop(state);
            if self.dirty {
                self.save(shared);
            }
        }
        Ok(())
    }

    /// The notes whose file changed since their text was last read (path
    /// on disk and `stat`), and the notes gone from the kiln.
    #[allow(clippy::type_complexity)]
    fn plan(&self, shared: &Shared) -> Result<(Vec<(String, FileStat)>, Vec<String>), String> {
        let planned = self.kiln.with(Duration::from_secs(3600), |_, kiln| {
            let state = locked(&shared.state);
            Ok(changed_notes(kiln, &state))
        });
        match planned {
            Ok(plan) => Ok(plan),
            Err(KilnError::IndexBuilding { .. }) => Ok((Vec::new(), Vec::new())),
            Err(error) => Err(error.to_string()),
        }
    }

    /// Reads each candidate again: an unchanged text only has its `stat`
    /// recorded; a changed one is chunked, to be embedded.
    fn read_changed(
        &mut self,
        shared: &Shared,
        candidates: Vec<(String, FileStat)>,
    ) -> Vec<Changed> {
        let mut changed = Vec::new();
        for (on_disk, planned_stat) in candidates {
            let read = self
                .workspace
                .locate(&on_disk)
                .and_then(|located| located.open())
                .and_then(|file| {
                    let stat = *file.stat();
                    file.read_to_string(MAX_NOTE_BYTES).map(|text| (stat, text))
                });
            let mut state = locked(&shared.state);
            match read {
                Ok((stat, text)) => {
                    let sha = content_sha(&text);
                    let current = state
                        .index
                        .as_ref()
                        .is_some_and(|index| index.note_sha(&on_disk) == Some(sha));
                    if current {
                        state.checked.insert(on_disk, stat);
                        continue;
                    }
                    drop(state);
                    let chunks = chunk_note(&on_disk, &text, &shared.options);
                    changed.push(Changed {
                        on_disk,
                        stat,
                        sha,
                        chunks,
                    });
                }
                Err(error) => {
                    // Not readable as a note now (too large, not UTF-8,
                    // gone): nothing of it is searched; looked at again
                    // when its file changes.
                    tracing::debug!(%error, path = %on_disk, "note not embedded");
                    if let Some(index) = &mut state.index {
                        self.dirty |= index.remove_note(&on_disk);
                    }
                    if let Some(bm25) = &mut state.bm25 {
                        bm25.remove_note(&on_disk);
                    }
                    state.checked.insert(on_disk, planned_stat);
                }
            }
        }
        changed
    }

    /// Embeds a group of changed notes together (no lock held) and puts
    /// them in the index.
    fn embed(
        &mut self,
        shared: &Shared,
        embedder: &dyn Embedder,
        notes: Vec<Changed>,
    ) -> Result<(), String> {
        let chunk_lists: Vec<&[Chunk]> = notes.iter().map(|note| note.chunks.as_slice()).collect();
        let vectors = embed_notes(embedder, &chunk_lists).map_err(|error| error.to_string())?;
        let mut state = locked(&shared.state);
        let state = &mut *state;
        for (note, vectors) in notes.into_iter().zip(vectors) {
            if let Some(bm25) = &mut state.bm25 {
                bm25.upsert_note(&note.on_disk, &note.chunks);
            }
            if let Some(index) = &mut state.index {
                index
                    .upsert_note(&note.on_disk, note.sha, note.chunks, vectors)
                    .map_err(|error: SemanticError| error.to_string())?;
                self.dirty = true;
            }
            state.checked.insert(note.on_disk.clone(), note.stat);
            state.pending.remove(&note.on_disk);
        }
        shared.progressed.notify_all();
        Ok(())
    }

    fn save(&mut self, shared: &Shared) {
        let started = Instant::now();
        // Serialized under the lock, written without it.
        let (embedder_id, bytes) = {
            let state = locked(&shared.state);
            let Some(index) = &state.index else { return };
            (index.embedder_id().to_owned(), index.to_bytes())
        };
        let saved = save_index_bytes(&self.workspace, &embedder_id, &bytes);
        self.last_save = Instant::now();
        let mut state = locked(&shared.state);
        match saved {
            Ok(()) => {
                self.dirty = false;
                if state
                    .problem
                    .as_deref()
                    .is_some_and(|p| p.starts_with(NOT_SAVED))
                {
                    state.problem = None;
                }
                tracing::debug!(elapsed = ?started.elapsed(), "semantic index saved");
            }
            Err(error) => {
                tracing::warn!(%error, "the semantic index could not be saved");
                // Not tried again until something changes.
                self.dirty = false;
                state.problem = Some(format!(
                    "{NOT_SAVED} ({error}); it is kept in memory and the notes are embedded again at the next start"
                ));
            }
        }
    }
}

/// How a problem saving the index starts.
const NOT_SAVED: &str = "the semantic index could not be saved in .quire/";

fn set_phase(shared: &Shared, phase: Phase) {
    locked(&shared.state).phase = phase;
    shared.progressed.notify_all();
}

/// The kiln's notes whose `stat` differs from the one last seen, and the
/// paths the semantic index knows that the kiln no longer has.
#[allow(clippy::type_complexity)]
fn changed_notes(kiln: &KilnIndex, state: &State) -> (Vec<(String, FileStat)>, Vec<String>) {
    let mut on_disk: HashSet<&str> = HashSet::with_capacity(kiln.len());
    let mut candidates = Vec::new();
    for note in kiln.notes() {
        on_disk.insert(note.on_disk.as_str());
        if !is_current(note, state) {
            candidates.push((note.on_disk.clone(), note.stat));
        }
    }
    let mut gone: Vec<String> = state
        .checked
        .keys()
        .map(String::as_str)
        .chain(state.index.iter().flat_map(SemanticIndex::paths))
        .filter(|path| !on_disk.contains(path))
        .map(str::to_owned)
        .collect();
    gone.sort();
    gone.dedup();
    (candidates, gone)
}

fn is_current(note: &IndexedNote, state: &State) -> bool {
    state
        .checked
        .get(&note.on_disk)
        .is_some_and(|seen| note.stat.unchanged_since(seen))
}
