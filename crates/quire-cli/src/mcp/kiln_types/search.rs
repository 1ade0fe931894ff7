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
    /// The matching lines, ordered by path then line number; at most `limit`.
    matches: Vec<SearchMatch>,
    /// How many lines matched in the notes searched, including those past
    /// `limit` (a line matching twice counts once). When the time ran out,
    /// only the notes searched by then are counted.
    total_matches: usize,
    /// How many notes were searched to the end.
    files_searched: usize,
    /// How many notes were not searched (too large, unreadable, a FIFO
    /// named `.md`, a name that is not a note path).
    files_skipped: usize,
    /// The first skipped notes, and why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    skipped: Vec<SkippedNote>,
    /// Whether there is more than `matches` shows.
    truncated: bool,
    /// Why, when `truncated`: `limit` (more lines matched than `limit`;
    /// narrow the query or the folder) or `time` (the time budget ran out;
    /// the answer holds what was found by then).
    #[serde(skip_serializing_if = "Option::is_none")]
    truncated_reason: Option<TruncatedReason>,
}

impl From<kiln::TextSearch> for TextSearch {
    fn from(search: kiln::TextSearch) -> Self {
        let kiln::TextSearch {
            matches,
            total_matches,
            files_searched,
            files_skipped,
            skipped,
            truncated,
            truncated_reason,
        } = search;
        TextSearch {
            matches: matches.into_iter().map(Into::into).collect(),
            total_matches,
            files_searched,
            files_skipped,
            skipped: skipped.into_iter().map(Into::into).collect(),
            truncated,
            truncated_reason: truncated_reason.map(Into::into),
        }
    }
}

/// One matching line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub(in crate::mcp) struct SearchMatch {
    /// The note's path (NFC, with `.md`).
    path: String,
    /// The line's number, from 1.
    line_number: u64,
    /// The line, without its line ending; cut around the match, with `…`,
    /// past 500 characters.
    line: String,
    /// Up to `context_lines` lines right before it (never a matching line).
    before: Vec<String>,
    /// Up to `context_lines` lines right after it (never a matching line).
    after: Vec<String>,
}

impl From<kiln::SearchMatch> for SearchMatch {
    fn from(found: kiln::SearchMatch) -> Self {
        let kiln::SearchMatch {
            path,
            line_number,
            line,
            before,
            after,
        } = found;
        SearchMatch {
            path,
            line_number,
            line,
            before,
            after,
        }
    }
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
    /// The time budget ran out.
    Time,
}

impl From<kiln::TruncatedReason> for TruncatedReason {
    fn from(reason: kiln::TruncatedReason) -> Self {
        match reason {
            kiln::TruncatedReason::Limit => TruncatedReason::Limit,
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
    /// How complete the index was for this search.
    index: SemanticIndexState,
}

impl From<kiln::SemanticSearch> for SemanticSearch {
    fn from(search: kiln::SemanticSearch) -> Self {
        let kiln::SemanticSearch {
            results,
            embedder,
            mode,
            index,
        } = search;
        SemanticSearch {
            results: results.into_iter().map(Into::into).collect(),
            embedder,
            mode: mode.into(),
            index: index.into(),
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
                "matches": [{"path": "a.md", "line_number": 2, "line": "needle", "before": ["before"], "after": []}],
                "total_matches": 1, "files_searched": 1, "files_skipped": 0, "truncated": false
            })
        );
    }
}
