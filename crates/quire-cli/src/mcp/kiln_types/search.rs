//! What the kiln's search tools return, as a client receives it:
//! `text_search`, `property_search` and `semantic_search`.

use quire_kiln as kiln;
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};

use super::args::SearchMode;

/// What `text_search` returns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub(in crate::mcp) struct TextSearch {
    /// The notes with matching lines on this page, by path, each with its
    /// matches by line number.
    notes: Vec<NoteMatches>,
    /// How many lines matched in all the notes searched, on every page (a
    /// line matching twice counts once). When the time ran out, only the
    /// notes searched by then are counted.
    total_matches: usize,
    /// How many notes have a matching line, on every page.
    notes_matched: usize,
    /// How many notes were searched to the end.
    files_searched: usize,
    /// How many notes were not searched (too large, unreadable, a FIFO
    /// named `.md`, a name that is not a note path).
    files_skipped: usize,
    /// The first skipped notes, and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    skipped: Vec<SkippedNote>,
    /// Whether more matches than this page shows were found.
    truncated: bool,
    /// Why, when `truncated`: `size` (the page is full at about 16 KB),
    /// `limit` (more lines matched than `limit`) or `time` (the time budget
    /// ran out; the answer holds what was found by then).
    #[serde(skip_serializing_if = "Option::is_none")]
    truncated_reason: Option<TruncatedReason>,
    /// Pass it back as `cursor` (with the same query) for the matches after
    /// this page; absent when there are none.
    #[serde(skip_serializing_if = "Option::is_none")]
    next_cursor: Option<String>,
}

impl From<kiln::TextSearch> for TextSearch {
    fn from(search: kiln::TextSearch) -> Self {
        let kiln::TextSearch {
            matches,
            total_matches,
            notes_matched,
            files_searched,
            files_skipped,
            skipped,
            truncated,
            truncated_reason,
            next_cursor,
        } = search;
        let mut notes: Vec<NoteMatches> = Vec::new();
        for found in matches {
            let line = LineMatch {
                line_number: found.line_number,
                line: found.line,
                before: found.before,
                after: found.after,
            };
            match notes.last_mut() {
                Some(note) if note.path == found.path => note.matches.push(line),
                _ => notes.push(NoteMatches {
                    path: found.path,
                    matches: vec![line],
                }),
            }
        }
        TextSearch {
            notes,
            total_matches,
            notes_matched,
            files_searched,
            files_skipped,
            skipped: skipped.into_iter().map(Into::into).collect(),
            truncated,
            truncated_reason: truncated_reason.map(Into::into),
            next_cursor,
        }
    }
}

/// One note's matching lines.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub(in crate::mcp) struct NoteMatches {
    /// The note's path (NFC, with `.md`).
    path: String,
    /// Its matching lines on this page, by line number.
    matches: Vec<LineMatch>,
}

/// One matching line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub(in crate::mcp) struct LineMatch {
    /// The line's number, from 1.
    line_number: u64,
    /// The line, without its line ending; cut around the match, with `…`,
    /// past 500 characters.
    line: String,
    /// Up to `context_lines` lines right before it (never a matching line);
    /// absent when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    before: Vec<String>,
    /// Up to `context_lines` lines right after it (never a matching line);
    /// absent when there are none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    after: Vec<String>,
}

/// A note that was not searched.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub(in crate::mcp) struct SkippedNote {
    /// The note's path as found.
    path: String,
    /// Why it was not searched.
    reason: String,
}

impl From<kiln::SkippedNote> for SkippedNote {
    fn from(skipped: kiln::SkippedNote) -> Self {
        let kiln::SkippedNote { path, reason } = skipped;
        SkippedNote { path, reason }
    }
}

/// Why a search's answer is not the whole of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(in crate::mcp) enum TruncatedReason {
    /// More lines matched than `limit`.
    Limit,
    /// The page is full (about 16 KB).
    Size,
    /// The time budget ran out.
    Time,
}

impl From<kiln::TruncatedReason> for TruncatedReason {
    fn from(reason: kiln::TruncatedReason) -> Self {
        match reason {
            kiln::TruncatedReason::Limit => TruncatedReason::Limit,
            kiln::TruncatedReason::Size => TruncatedReason::Size,
            kiln::TruncatedReason::Time => TruncatedReason::Time,
        }
    }
}

/// One page of the notes found.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub(in crate::mcp) struct PropertySearch {
    /// The notes of this page, sorted by path.
    notes: Vec<MatchedNote>,
    /// Pass it as `cursor` for the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    next_cursor: Option<String>,
    /// How many notes match in all (every page).
    total: usize,
}

impl PropertySearch {
    /// The kiln's answer, each note's frontmatter kept when asked for.
    pub(in crate::mcp) fn of(search: kiln::PropertySearch, include_frontmatter: bool) -> Self {
        let kiln::PropertySearch {
            notes,
            next_cursor,
            total,
        } = search;
        PropertySearch {
            notes: notes
                .into_iter()
                .map(|note| MatchedNote {
                    path: note.path,
                    frontmatter: include_frontmatter.then_some(note.frontmatter),
                })
                .collect(),
            next_cursor,
            total,
        }
    }
}

/// One note found.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub(in crate::mcp) struct MatchedNote {
    /// The note's path (NFC, with `.md`).
    path: String,
    /// The frontmatter's properties (empty when it is broken), with
    /// `include_frontmatter`.
    #[serde(skip_serializing_if = "Option::is_none")]
    frontmatter: Option<Map<String, Value>>,
}

/// What `semantic_search` returns.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub(in crate::mcp) struct SemanticSearch {
    /// The notes found, best first.
    results: Vec<SemanticMatch>,
    /// The embedder that made the vectors (its id).
    embedder: String,
    /// How the results were ranked.
    mode: SearchMode,
    /// How complete the answering index was for this search.
    index: SemanticIndexState,
    /// With several tiers (embedders, best first; the best complete one
    /// answers), how each stands; absent with one.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tiers: Vec<SemanticTierState>,
    /// What the results lack, when they are not the whole answer: the index
    /// is still loading (no results yet: ask again in a few seconds), or the
    /// answering index is not complete (notes not embedded yet are not
    /// ranked).
    #[serde(skip_serializing_if = "Option::is_none")]
    notice: Option<String>,
}

impl From<kiln::SemanticSearch> for SemanticSearch {
    fn from(search: kiln::SemanticSearch) -> Self {
        let kiln::SemanticSearch {
            results,
            embedder,
            mode,
            index,
            tiers,
            notice,
        } = search;
        SemanticSearch {
            results: results.into_iter().map(Into::into).collect(),
            embedder,
            mode: mode.into(),
            index: index.into(),
            tiers: tiers.into_iter().map(Into::into).collect(),
            notice,
        }
    }
}

/// How one tier's semantic index stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub(in crate::mcp) struct SemanticTierState {
    /// Its embedder's id (its name until it is loaded).
    embedder: String,
    /// `loading`, `indexing`, `ready`, `unavailable` or `failed`.
    state: String,
    /// Whether every note is embedded as it is now.
    ready: bool,
    /// Chunks embedded.
    chunks_embedded: usize,
    /// Chunks there are (embedded and waiting).
    chunks_total: usize,
}

impl From<kiln::SemanticTierState> for SemanticTierState {
    fn from(tier: kiln::SemanticTierState) -> Self {
        let kiln::SemanticTierState {
            embedder,
            state,
            ready,
            chunks_embedded,
            chunks_total,
        } = tier;
        SemanticTierState {
            embedder,
            state,
            ready,
            chunks_embedded,
            chunks_total,
        }
    }
}

/// One note found.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub(in crate::mcp) struct SemanticMatch {
    /// The note's path (NFC, with `.md`).
    path: String,
    /// In `semantic` mode the cosine similarity of its best chunk to the
    /// query (-1 to 1, higher is closer); in `hybrid` mode the fused rank
    /// score (only the order means something).
    score: f32,
    /// The innermost heading of that chunk (absent above the first one).
    #[serde(skip_serializing_if = "Option::is_none")]
    heading: Option<String>,
    /// The start of that chunk's text, white space collapsed.
    snippet: String,
    /// The note's frontmatter properties (empty when it has none or it is
    /// broken).
    frontmatter: Map<String, Value>,
    /// Whether the note changed since it was embedded and is waiting to be
    /// embedded again: its score is that of its older text.
    indexing: bool,
}

impl From<kiln::SemanticMatch> for SemanticMatch {
    fn from(found: kiln::SemanticMatch) -> Self {
        let kiln::SemanticMatch {
            path,
            score,
            heading,
            snippet,
            frontmatter,
            indexing,
        } = found;
        SemanticMatch {
            path,
            score,
            heading,
            snippet,
            frontmatter,
            indexing,
        }
    }
}

/// How complete the semantic index was when a search ran.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub(in crate::mcp) struct SemanticIndexState {
    /// Whether every note was embedded as it is now.
    ready: bool,
    /// Chunks embedded.
    chunks_embedded: usize,
    /// Chunks there are (embedded and waiting).
    chunks_total: usize,
    /// Notes waiting to be embedded; new ones among them are not in the
    /// results yet.
    notes_pending: usize,
    /// What keeps the index from being complete or saved (the embedder
    /// failing, a vault where `.quire/` cannot be written).
    #[serde(skip_serializing_if = "Option::is_none")]
    problem: Option<String>,
}

impl From<kiln::SemanticIndexState> for SemanticIndexState {
    fn from(state: kiln::SemanticIndexState) -> Self {
        let kiln::SemanticIndexState {
            ready,
            chunks_embedded,
            chunks_total,
            notes_pending,
            problem,
        } = state;
        SemanticIndexState {
            ready,
            chunks_embedded,
            chunks_total,
            notes_pending,
            problem,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quire_fs::Workspace;
    use quire_kiln::KilnTools;

    #[test]
    fn a_minified_one_line_note_cannot_blow_up_the_answer() {
        let line = format!(
            "{}needle{}",
            "{\"k\":1},".repeat(600_000),
            "x".repeat(4_000_000)
        );
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("min.md"), &line).unwrap();
        std::fs::write(dir.path().join("small.md"), "needle\n").unwrap();
        let tools = KilnTools::new(Workspace::new(dir.path()).unwrap());
        let answer = tools
            .text_search(&kiln::TextSearchRequest::new("needle"))
            .unwrap();
        assert_eq!(answer.total_matches, 2);
        let json = serde_json::to_string(&TextSearch::from(answer.clone())).unwrap();
        assert!(json.len() < 4_000, "{} bytes", json.len());
        assert!(answer.matches[0].line.contains("needle"));
    }

    #[test]
    fn a_default_page_fits_16_kb_however_the_lines_are_spelled() {
        let dir = tempfile::tempdir().unwrap();
        let quotes = "\"\\".repeat(300);
        let control = "\u{1}".repeat(500);
        for n in 0..60 {
            let text = format!("{quotes}\nneedle {quotes}\n{control}\nneedle é\n");
            let name = format!("{}{n:02}.md", "deep/".repeat(10));
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let tools = KilnTools::new(Workspace::new(dir.path()).unwrap());
        let mut cursor = None;
        let mut shown = 0;
        loop {
            let answer = tools
                .text_search(&kiln::TextSearchRequest {
                    cursor: cursor.clone(),
                    ..kiln::TextSearchRequest::new("needle")
                })
                .unwrap();
            shown += answer.matches.len();
            cursor = answer.next_cursor.clone();
            let json = serde_json::to_string(&TextSearch::from(answer)).unwrap();
            assert!(json.len() <= 16 * 1024, "{} bytes", json.len());
            if cursor.is_none() {
                break;
            }
        }
        assert_eq!(shown, 120);
    }

    #[test]
    fn the_answer_serializes_with_the_spec_field_names() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "before\nneedle\n").unwrap();
        let tools = KilnTools::new(Workspace::new(dir.path()).unwrap());
        let result = tools
            .text_search(&kiln::TextSearchRequest {
                limit: 1,
                ..kiln::TextSearchRequest::new("needle")
            })
            .unwrap();
        assert_eq!(
            serde_json::to_value(TextSearch::from(result)).unwrap(),
            serde_json::json!({
                "notes": [{"path": "a.md", "matches": [{"line_number": 2, "line": "needle", "before": ["before"]}]}],
                "total_matches": 1, "notes_matched": 1, "files_searched": 1, "files_skipped": 0, "truncated": false
            })
        );
    }
}
