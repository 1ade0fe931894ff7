//! Semantic search in tiers: several embedders over the same notes, each
//! with its own index kept on its own thread ([`LiveSemantic`]), best
//! first (MiniLM, then the static table distilled from it). A search is
//! answered by the best tier whose index is complete; while none is, it
//! waits (within the call's budget) for one to complete, then answers from
//! the most complete tier. So a vault is searchable in seconds by the fast
//! tier while the better one embeds for hours, and each query moves to the
//! better tier the moment it is complete.
//!
//! Every answer says which tier answered and how far each is; a note the
//! answering tier has not embedded yet is not ranked (never as if it
//! were), and its count is in the answer.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::chunk::ChunkOptions;
use super::live::{EmbedderSource, LiveSemantic, SemanticProgress, SemanticUnavailable};
use crate::live::LiveIndex;
use crate::read::KilnError;
use quire_embed::Embedder;
use quire_fs::Workspace;

/// How often a search waiting for a tier to complete looks again.
const POLL: Duration = Duration::from_millis(20);

/// The tiers of a kiln's semantic search, best first.
#[derive(Clone, Debug)]
pub(crate) struct SemanticTiers {
    tiers: Vec<LiveSemantic>,
}

/// The tier that answers a search.
pub(crate) struct Answering<'a> {
    /// The tier.
    pub tier: &'a LiveSemantic,
    /// Its embedder.
    pub embedder: Arc<dyn Embedder>,
}

impl SemanticTiers {
    /// The tiers of `sources` (best first; at least the first, which may be
    /// [`EmbedderSource::Unavailable`]), none started.
    pub(crate) fn new(sources: Vec<EmbedderSource>, options: &ChunkOptions) -> Self {
        let mut sources = sources;
        if sources.is_empty() {
            sources.push(EmbedderSource::default());
        }
        SemanticTiers {
            tiers: sources
                .into_iter()
                .map(|source| LiveSemantic::new(source, *options))
                .collect(),
        }
    }

    /// Starts every tier's thread (see [`LiveSemantic::start`]).
    pub(crate) fn start(&self, workspace: &Workspace, kiln: &LiveIndex) {
        for tier in &self.tiers {
            tier.start(workspace, kiln);
        }
    }

    /// How each tier stands, best first.
    pub(crate) fn progress(&self) -> Vec<SemanticProgress> {
        self.tiers.iter().map(LiveSemantic::progress).collect()
    }

    /// How the best tier stands.
    pub(crate) fn best_progress(&self) -> SemanticProgress {
        self.tiers[0].progress()
    }

    /// The tier that answers a search now: the best complete one, waiting
    /// at most `budget` for one to complete; after that, the tier whose
    /// index holds the largest share of its notes (the better one on a
    /// tie). `None` when every tier that can answer is still loading; an
    /// error when no tier has an embedder (what to do, from the best one).
    pub(crate) fn answering(&self, budget: Duration) -> Result<Option<Answering<'_>>, KilnError> {
        let deadline = Instant::now().checked_add(budget);
        loop {
            let progress = self.progress();
            if progress.iter().all(|tier| !can_answer(tier)) {
                // No tier will ever answer: the best one says why.
                return Err(self.tiers[0].wait(Duration::ZERO).err().unwrap_or_else(|| {
                    KilnError::Semantic(SemanticUnavailable::NoEmbedder(
                        "no embedder could be loaded".to_owned(),
                    ))
                }));
            }
            if let Some(best) = progress.iter().position(|tier| tier.ready) {
                return Ok(self.embedder_of(best));
            }
            let now = Instant::now();
            let left = deadline.map_or(POLL, |deadline| deadline.saturating_duration_since(now));
            if left.is_zero() {
                let most = progress
                    .iter()
                    .enumerate()
                    .filter(|(at, _)| self.tiers[*at].wait(Duration::ZERO).is_ok())
                    .max_by(|(a_at, a), (b_at, b)| {
                        share(a).total_cmp(&share(b)).then(b_at.cmp(a_at))
                    })
                    .map(|(at, _)| at);
                return Ok(most.and_then(|at| self.embedder_of(at)));
            }
            // A single tier waits on its own signal; several look in turn.
            if self.tiers.len() == 1 {
                return match self.tiers[0].wait(left) {
                    Ok(embedder) => Ok(Some(Answering {
                        tier: &self.tiers[0],
                        embedder,
                    })),
                    Err(KilnError::Semantic(SemanticUnavailable::Loading { .. })) => Ok(None),
                    Err(error) => Err(error),
                };
            }
            std::thread::sleep(left.min(POLL));
        }
    }

    fn embedder_of(&self, at: usize) -> Option<Answering<'_>> {
        let tier = &self.tiers[at];
        tier.wait(Duration::ZERO)
            .ok()
            .map(|embedder| Answering { tier, embedder })
    }
}

/// Whether a tier is or may become able to answer (it has an embedder, or
/// is still loading one).
fn can_answer(progress: &SemanticProgress) -> bool {
    !matches!(progress.state, "unavailable" | "failed")
}

/// The share of a tier's chunks embedded (1 when there are none).
fn share(progress: &SemanticProgress) -> f64 {
    if progress.chunks_total == 0 {
        return if progress.ready { 1.0 } else { 0.0 };
    }
    progress.chunks_embedded as f64 / progress.chunks_total as f64
}
