//! What `read_metadata` returns for a note: its properties, counts,
//! headings, tags, links and backlinks, from the index, never its text.

use super::index::{IndexedNote, KilnIndex};
use quire_grammar::markdown::WikilinkKind;

/// The note whose metadata
/// [`KilnTools::read_metadata`](crate::KilnTools::read_metadata) returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReadMetadataRequest {
    /// The note's path relative to the kiln root, `/`-separated, `.md` optional.
    pub path: String,
}

/// A note's metadata.
#[derive(Clone, Debug, PartialEq)]
pub struct NoteMetadata {
    /// The note's path, normalized (NFC, with `.md`).
    pub path: String,
    /// The frontmatter's properties (empty without frontmatter, or when it
    /// is broken: see `problems`).
    pub frontmatter: serde_json::Map<String, serde_json::Value>,
    /// Counts of what the note holds.
    pub stats: NoteStats,
    /// The headings in order.
    pub headings: Vec<HeadingSummary>,
    /// The frontmatter's and the inline tags, without `#`, deduplicated.
    pub tags: Vec<String>,
    /// The frontmatter's aliases.
    pub aliases: Vec<String>,
    /// Where each wikilink, embed and Markdown link leads.
    pub links: Vec<LinkSummary>,
    /// The notes that link to this one, sorted.
    pub backlinks: Vec<String>,
    /// The file's size in bytes.
    pub size: u64,
    /// The file's last modification, RFC 3339 in UTC.
    pub modified: String,
    /// What is wrong with the note (broken frontmatter, not UTF-8); empty
    /// when nothing is.
    pub problems: Vec<String>,
}

/// Counts of what a note holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NoteStats {
    /// Words, as Obsidian counts them (frontmatter excluded).
    pub word_count: usize,
    /// Lines.
    pub line_count: usize,
    /// Headings.
    pub heading_count: usize,
    /// Wikilinks (embeds not counted).
    pub wikilink_count: usize,
    /// Embeds (`![[...]]`).
    pub embed_count: usize,
    /// Distinct tags.
    pub tag_count: usize,
    /// Tasks (`- [ ]`, `- [x]`).
    pub task_count: usize,
    /// Notes that link here.
    pub backlink_count: usize,
}

/// One heading.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeadingSummary {
    /// 1 to 6.
    pub level: u8,
    /// The heading's text.
    pub text: String,
    /// Its line, from 1.
    pub line: usize,
}

/// One link and where it leads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkSummary {
    /// The target as written (without heading, block or alias).
    pub target: String,
    /// The note it leads to, or the attachment (an image, a PDF, ...: a
    /// path without `.md`) when it names one that exists; `None` when
    /// nothing matches.
    pub path: Option<String>,
    /// Whether several notes match (`path` is the one Obsidian picks).
    pub ambiguous: bool,
}

/// The metadata of `note`, with its backlinks from `index`.
pub(crate) fn metadata(index: &KilnIndex, note: &IndexedNote) -> NoteMetadata {
    let facts = &note.facts;
    let backlinks: Vec<String> = index
        .backlinks(&note.path)
        .map(ToString::to_string)
        .collect();
    let embeds = facts
        .wikilinks
        .iter()
        .filter(|link| link.kind == WikilinkKind::Embed)
        .count();
    NoteMetadata {
        path: note.path.to_string(),
        frontmatter: note.properties(),
        stats: NoteStats {
            word_count: facts.word_count,
            line_count: facts.line_count,
            heading_count: facts.headings.len(),
            wikilink_count: facts.wikilinks.len() - embeds,
            embed_count: embeds,
            tag_count: facts.tags.len(),
            task_count: facts.tasks.len(),
            backlink_count: backlinks.len(),
        },
        headings: facts
            .headings
            .iter()
            .map(|heading| HeadingSummary {
                level: heading.level,
                text: heading.text.clone(),
                line: heading.line,
            })
            .collect(),
        tags: facts.tags.clone(),
        aliases: facts.aliases.clone(),
        links: note
            .links
            .iter()
            .map(|link| LinkSummary {
                target: link.target.clone(),
                path: link
                    .path
                    .as_ref()
                    .map(ToString::to_string)
                    .or_else(|| link.attachment.clone()),
                ambiguous: link.ambiguous,
            })
            .collect(),
        backlinks,
        size: note.stat.size,
        modified: rfc3339(note.stat.mtime_seconds()),
        problems: note.problems.clone(),
    }
}

/// `seconds` since the epoch as RFC 3339 in UTC (`2026-11-23T21:40:28Z`).
pub(crate) fn rfc3339(seconds: i64) -> String {
    chrono::DateTime::from_timestamp(seconds, 0)
        .map(|time| time.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
        .unwrap_or_else(|| "1970-01-01T00:00:00Z".to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_rfc3339_in_utc() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(1_795_469_428), "2026-11-23T21:30:28Z");
        // Out of chrono's range: the epoch rather than a panic.
        assert_eq!(rfc3339(i64::MAX), "1970-01-01T00:00:00Z");
    }
}
