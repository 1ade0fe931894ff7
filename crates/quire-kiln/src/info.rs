//! What `get_kiln_info` returns: the kiln's root URI and totals, and on
//! request how its index stands. It never waits for the index: while the
//! index is being built it says so (with how far it got), so a client can
//! poll it.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::index::KilnIndex;
use super::live::{Freshness, IndexView, WatcherStatus};
use super::metadata::rfc3339;
use super::semantic::SemanticProgress;
use super::semantic_search::SemanticTierState;

/// The URI of the kiln's root: every note is the resource
/// `kiln:///<path>` (see `resources/list`).
pub const ROOT_URI: &str = "kiln:///";

/// What [`KilnTools::get_kiln_info`](crate::KilnTools::get_kiln_info) tells.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KilnInfoRequest {
    /// Whether to add how the index stands (state, freshness, watcher,
    /// notes with problems, broken and ambiguous links).
    pub detailed: bool,
}

/// The kiln's root and totals.
#[derive(Clone, Debug, PartialEq)]
pub struct KilnInfo {
    /// The URI of the root; each note is the MCP resource `kiln:///<path>`.
    pub root_uri: String,
    /// `ready`; `building` while the index is first built (the totals are
    /// then 0; call again shortly); `failed` when the root could not be
    /// read.
    pub state: &'static str,
    /// How many notes the kiln holds.
    pub note_count: usize,
    /// Their total size in bytes.
    pub total_size: u64,
    /// Their total word count, as Obsidian counts words.
    pub total_words: u64,
    /// How the index stands (with `detailed`).
    pub index: Option<IndexDetails>,
    /// How the semantic index of `semantic_search` stands (with
    /// `detailed`).
    pub semantic: Option<SemanticDetails>,
}

/// How the semantic index stands: embedded in the background when the
/// server starts and whenever notes change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SemanticDetails {
    /// `unavailable` (no embedder: `problem` says how to install one),
    /// `loading`, `indexing`, `ready` or `failed`.
    pub state: &'static str,
    /// The embedder's id (its name while it loads); `None` without one.
    pub embedder: Option<String>,
    /// Chunks (note sections) embedded.
    pub chunks_embedded: usize,
    /// Chunks there are: embedded and waiting.
    pub chunks_total: usize,
    /// Notes waiting to be embedded.
    pub notes_pending: usize,
    /// Whether every note is embedded as it is now.
    pub ready: bool,
    /// Why there is no semantic index, or the last problem met.
    pub problem: Option<String>,
    /// With several tiers (embedders, best first, the fields above being
    /// the best one's), how each stands; empty with one.
    pub tiers: Vec<SemanticTierState>,
}

impl From<SemanticProgress> for SemanticDetails {
    fn from(progress: SemanticProgress) -> Self {
        SemanticDetails {
            state: progress.state,
            embedder: progress.embedder,
            chunks_embedded: progress.chunks_embedded,
            chunks_total: progress.chunks_total,
            notes_pending: progress.notes_pending,
            ready: progress.ready,
            problem: progress.problem,
            tiers: Vec::new(),
        }
    }
}

impl SemanticDetails {
    /// The details of tiers, best first (at least one).
    pub(crate) fn of_tiers(tiers: Vec<SemanticProgress>) -> Option<SemanticDetails> {
        let states: Vec<SemanticTierState> = if tiers.len() > 1 {
            tiers.iter().map(SemanticTierState::from).collect()
        } else {
            Vec::new()
        };
        let best = tiers.into_iter().next()?;
        Some(SemanticDetails {
            tiers: states,
            ..SemanticDetails::from(best)
        })
    }
}

/// How the index stands.
#[derive(Clone, Debug, PartialEq)]
pub struct IndexDetails {
    /// Notes read so far (while building) or indexed.
    pub notes_indexed: usize,
    /// Notes indexed with problems (broken frontmatter, not UTF-8, too
    /// large, unreadable); `read_metadata` lists each one's.
    pub notes_with_problems: usize,
    /// Entries the walk passed over (links out of the root, special files,
    /// unreadable folders, names that are not note paths).
    pub skipped: usize,
    /// Links that lead to no note and no attachment (a link to an image
    /// or a PDF that exists is not broken).
    pub broken_links: usize,
    /// Links that several notes match.
    pub ambiguous_links: usize,
    /// How long the first build took (so far, while building), in
    /// milliseconds.
    pub build_ms: u64,
    /// When the root was last scanned whole (RFC 3339, UTC).
    pub last_scan: Option<String>,
    /// When changes seen on disk were last applied (RFC 3339, UTC).
    pub last_update: Option<String>,
    /// `watching` (changes on disk are seen at once), `unavailable` (the
    /// root is rescanned every [`POLL_INTERVAL`](crate::POLL_INTERVAL)
    /// instead) or `not started`.
    pub watcher: &'static str,
    /// Why the watcher is unavailable, or the last error it reported.
    pub watcher_detail: Option<String>,
    /// Why the index failed.
    pub error: Option<String>,
}

/// The answer to `request` from what the index shows now.
pub(crate) fn kiln_info(
    request: &KilnInfoRequest,
    view: IndexView<'_>,
    watcher: WatcherStatus,
) -> KilnInfo {
    let mut details = IndexDetails {
        notes_indexed: 0,
        notes_with_problems: 0,
        skipped: 0,
        broken_links: 0,
        ambiguous_links: 0,
        build_ms: 0,
        last_scan: None,
        last_update: None,
        watcher: watcher.state,
        watcher_detail: watcher.detail,
        error: None,
    };
    let mut info = KilnInfo {
        root_uri: ROOT_URI.to_owned(),
        state: "ready",
        note_count: 0,
        total_size: 0,
        total_words: 0,
        index: None,
        semantic: None,
    };
    match view {
        IndexView::Building {
            elapsed,
            notes_read,
        } => {
            info.state = "building";
            details.notes_indexed = notes_read;
            details.build_ms = millis(elapsed);
        }
        IndexView::Failed(reason) => {
            info.state = "failed";
            details.error = Some(reason.to_owned());
        }
        IndexView::Ready { index, freshness } => {
            totals(index, &mut info, &mut details, request.detailed);
            fresh(freshness, &mut details);
        }
    }
    if request.detailed {
        info.index = Some(details);
    }
    info
}

fn totals(index: &KilnIndex, info: &mut KilnInfo, details: &mut IndexDetails, detailed: bool) {
    info.note_count = index.len();
    for note in index.notes() {
        info.total_size += note.stat.size;
        info.total_words += note.facts.word_count as u64;
        if detailed {
            details.notes_with_problems += usize::from(!note.problems.is_empty());
            for link in &note.links {
                details.broken_links +=
                    usize::from(link.path.is_none() && link.attachment.is_none());
                details.ambiguous_links += usize::from(link.ambiguous);
            }
        }
    }
    details.notes_indexed = index.len();
    details.skipped = index.skipped().len();
}

fn fresh(freshness: Freshness, details: &mut IndexDetails) {
    details.build_ms = millis(freshness.build_time);
    details.last_scan = Some(time(freshness.last_scan));
    details.last_update = Some(time(freshness.last_update));
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

fn time(at: SystemTime) -> String {
    let seconds = at.duration_since(UNIX_EPOCH).map_or(0, |since| {
        i64::try_from(since.as_secs()).unwrap_or(i64::MAX)
    });
    rfc3339(seconds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn building_and_failed_states_answer_at_once() {
        let watcher = WatcherStatus {
            state: "watching",
            detail: None,
        };
        let building = kiln_info(
            &KilnInfoRequest { detailed: true },
            IndexView::Building {
                elapsed: Duration::from_millis(1500),
                notes_read: 42,
            },
            watcher.clone(),
        );
        assert_eq!((building.state, building.note_count), ("building", 0));
        let details = building.index.unwrap();
        assert_eq!((details.notes_indexed, details.build_ms), (42, 1500));

        let failed = kiln_info(
            &KilnInfoRequest { detailed: false },
            IndexView::Failed("gone"),
            watcher,
        );
        assert_eq!(failed.state, "failed");
        assert!(failed.index.is_none());
        assert_eq!(failed.root_uri, ROOT_URI);
    }
}
