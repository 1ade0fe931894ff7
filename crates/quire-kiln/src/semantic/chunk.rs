//! A note cut into the pieces that are embedded: the rule "chunks" of
//! `grammar/markdown.ebnf`.
//!
//! A chunk is a heading section (from a heading to the next heading of any
//! level; the text before the first heading is a section too), and a
//! section longer than [`ChunkOptions::max_chars`] is split at paragraph
//! boundaries (blank lines outside fenced code). Each chunk keeps its byte
//! span in the note and its heading path (`# A > ## B`), and the text
//! embedded is the note's title, the heading path and the section's text,
//! so that a section read alone still says what it is about. The
//! frontmatter is never part of a chunk. Headings come from
//! [`parse_note`](quire_grammar::markdown::parse_note), so a `#` line in code or a
//! `%% comment %%` is not a heading here either.

use quire_grammar::frontmatter;
use quire_grammar::markdown::{Heading, parse_note};
use quire_grammar::span::Span;

/// The default longest section kept whole, in characters: about 250
/// tokens, what small sentence embedders read before truncating.
pub(super) const DEFAULT_MAX_CHUNK_CHARS: usize = 1_000;

/// How notes are chunked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkOptions {
    /// A section longer than this many characters is split at paragraph
    /// boundaries; a single paragraph longer than it stays whole.
    pub max_chars: usize,
}

impl Default for ChunkOptions {
    fn default() -> Self {
        ChunkOptions {
            max_chars: DEFAULT_MAX_CHUNK_CHARS,
        }
    }
}

/// One piece of a note, as embedded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// Where the piece is in the note (bytes): its heading line included.
    pub span: Span,
    /// The headings it is under, outermost first, with their markers:
    /// `# Plan > ## Goals`; empty before the first heading.
    pub heading_path: String,
    /// The innermost heading's text (`Goals`), when it is under one.
    pub heading: Option<String>,
    /// What is embedded: the note's title, the heading path, then the
    /// piece's text (see [`Chunk::section`]).
    pub text: String,
    /// Where the piece's own text starts in [`Chunk::text`].
    pub section_start: usize,
}

impl Chunk {
    /// The piece's own text, as in the note (`&note[chunk.span.range()]`).
    pub fn section(&self) -> &str {
        self.text.get(self.section_start..).unwrap_or_default()
    }
}

/// The title a note's chunks carry: its frontmatter `title` when that is a
/// non-empty string, else its file name without `.md`.
pub fn note_title(path: &str, text: &str) -> String {
    let from_frontmatter = frontmatter::parse(text).ok().and_then(|document| {
        let value = document
            .frontmatter?
            .values
            .get("title")?
            .as_str()?
            .trim()
            .to_owned();
        (!value.is_empty()).then_some(value)
    });
    from_frontmatter.unwrap_or_else(|| {
        let name = path.rsplit('/').next().unwrap_or(path);
        name.strip_suffix(".md").unwrap_or(name).to_owned()
    })
}

// markdown.ebnf: chunks
/// The chunks of the note at `path` (for its title) with text `text`, in
/// order. Their spans never overlap, lie after the frontmatter, and cover
/// the rest of the note but for sections that are only white space.
///
/// ```
/// use quire_kiln::{ChunkOptions, chunk_note};
///
/// let note = "---\ntags: [x]\n---\nIntro.\n# Plan\nGoals here.\n## Risks\nFire.\n";
/// let chunks = chunk_note("work/plan.md", note, &ChunkOptions::default());
/// assert_eq!(chunks.len(), 3);
/// assert_eq!(&note[chunks[0].span.range()], "Intro.\n");
/// assert_eq!(chunks[2].heading_path, "# Plan > ## Risks");
/// assert_eq!(chunks[2].heading.as_deref(), Some("Risks"));
/// assert_eq!(chunks[2].text, "plan\n# Plan > ## Risks\n\n## Risks\nFire.\n");
/// assert_eq!(chunks[2].section(), &note[chunks[2].span.range()]);
/// ```
pub fn chunk_note(path: &str, text: &str, options: &ChunkOptions) -> Vec<Chunk> {
    let title = note_title(path, text);
    let body_start = body_start(text);
    let headings: Vec<Heading> = parse_note(text)
        .headings
        .into_iter()
        .filter(|heading| heading.span.start >= body_start)
        .collect();
    let mut chunks = Vec::new();
    let mut path_stack: Vec<&Heading> = Vec::new();
    let first = headings.first().map_or(text.len(), |h| h.span.start);
    push_section(
        &mut chunks,
        text,
        body_start..first,
        &title,
        "",
        None,
        options,
    );
    for (index, heading) in headings.iter().enumerate() {
        while path_stack
            .last()
            .is_some_and(|top| top.level >= heading.level)
        {
            path_stack.pop();
        }
        path_stack.push(heading);
        let end = headings.get(index + 1).map_or(text.len(), |h| h.span.start);
        // markdown.ebnf: heading-path
        let heading_path = path_stack
            .iter()
            .map(|h| format!("{} {}", "#".repeat(usize::from(h.level)), h.text))
            .collect::<Vec<_>>()
            .join(" > ");
        let range = heading.span.start..end;
        push_section(
            &mut chunks,
            text,
            range,
            &title,
            &heading_path,
            Some(&heading.text),
            options,
        );
    }
    chunks
}

/// Where the note's body starts: after the frontmatter block (and a
/// byte-order mark), as [`parse_note`] reads it; a broken frontmatter is
/// body text.
fn body_start(text: &str) -> usize {
    match frontmatter::parse(text) {
        Ok(document) => document.body.start,
        Err(_) if text.starts_with('\u{feff}') => 3,
        Err(_) => 0,
    }
}

// markdown.ebnf: chunk-text
/// The chunks of the piece `range` of the note, `title` and `heading_path`
/// put before each one's text.
fn push_section(
    chunks: &mut Vec<Chunk>,
    text: &str,
    range: std::ops::Range<usize>,
    title: &str,
    heading_path: &str,
    heading: Option<&str>,
    options: &ChunkOptions,
) {
    for piece in split_paragraphs(text, range, options.max_chars) {
        let section = &text[piece.clone()];
        if section.trim().is_empty() {
            continue;
        }
        let mut embedded =
            String::with_capacity(title.len() + heading_path.len() + section.len() + 3);
        embedded.push_str(title);
        embedded.push('\n');
        if !heading_path.is_empty() {
            embedded.push_str(heading_path);
            embedded.push('\n');
        }
        embedded.push('\n');
        let section_start = embedded.len();
        embedded.push_str(section);
        chunks.push(Chunk {
            span: Span::new(piece.start, piece.end),
            heading_path: heading_path.to_owned(),
            heading: heading.map(str::to_owned),
            text: embedded,
            section_start,
        });
    }
}

/// `range` of `text` cut into consecutive pieces of at most `max_chars`
/// characters, cutting only where a paragraph starts (after a blank line,
/// not inside a ``` or ~~~ fence); a paragraph longer than `max_chars` is
/// one piece. The pieces cover `range` exactly.
fn split_paragraphs(
    text: &str,
    range: std::ops::Range<usize>,
    max_chars: usize,
) -> Vec<std::ops::Range<usize>> {
    let section = &text[range.clone()];
    if section.chars().count() <= max_chars {
        return vec![range];
    }
    // The offsets (in `text`) where a paragraph starts after a blank line.
    let mut cuts = Vec::new();
    let mut offset = range.start;
    let mut previous_blank = false;
    let mut fence: Option<char> = None;
    for line in section.split_inclusive('\n') {
        let trimmed = line.trim_start();
        // Blank as CommonMark has it: spaces and tabs only. A line of
        // other white space (a no-break space) is text, and may be a
        // heading's: cutting after it would leave the heading's line in a
        // piece of its own that holds nothing to embed (found by fuzzing).
        let blank = line
            .trim_matches(|c| matches!(c, ' ' | '\t' | '\r' | '\n'))
            .is_empty();
        if previous_blank && !blank && fence.is_none() && offset > range.start {
            cuts.push(offset);
        }
        let marker = ['`', '~']
            .into_iter()
            .find(|m| trimmed.starts_with(&m.to_string().repeat(3)));
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(open), Some(m)) if open == m => fence = None,
            _ => {}
        }
        previous_blank = blank;
        offset += line.len();
    }
    let mut pieces = Vec::new();
    let mut start = range.start;
    let mut last_cut = range.start;
    for &cut in cuts.iter().chain(std::iter::once(&range.end)) {
        // Growing the piece to `cut` would pass the limit: end it at the
        // previous cut, unless it holds nothing yet.
        if text[start..cut].chars().count() > max_chars && last_cut > start {
            pieces.push(start..last_cut);
            start = last_cut;
        }
        last_cut = cut;
    }
    pieces.push(start..range.end);
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn options(max_chars: usize) -> ChunkOptions {
        ChunkOptions { max_chars }
    }

    #[test]
    fn a_heading_whose_first_line_is_unicode_white_space_starts_a_chunk() {
        // A setext heading: its text starts with a line of a no-break and
        // an em space, which CommonMark does not count as blank.
        let note = "intro\n\n\u{a0}\u{2003}\nword\n-\nbody text here\n";
        let headings = quire_grammar::markdown::parse_note(note).headings;
        assert_eq!(headings.len(), 1, "{headings:?}");
        let chunks = chunk_note("n.md", note, &options(10));
        assert!(
            chunks
                .iter()
                .any(|chunk| chunk.span.start == headings[0].span.start),
            "{chunks:?}"
        );
    }

    #[test]
    fn title_comes_from_frontmatter_else_the_file_stem() {
        assert_eq!(note_title("a/b/Trip.md", "# x"), "Trip");
        assert_eq!(
            note_title("a/b/Trip.md", "---\ntitle: Lisbon trip\n---\n"),
            "Lisbon trip"
        );
        assert_eq!(note_title("Trip.md", "---\ntitle: \"  \"\n---\n"), "Trip");
        assert_eq!(note_title("Trip.md", "---\ntitle: 3\n---\n"), "Trip");
    }

    #[test]
    fn frontmatter_is_not_embedded() {
        let note = "---\nsecret: swordfish\n---\nBody text.\n";
        let chunks = chunk_note("n.md", note, &ChunkOptions::default());
        assert_eq!(chunks.len(), 1);
        assert!(!chunks[0].text.contains("swordfish"));
        assert_eq!(chunks[0].section(), "Body text.\n");
    }

    #[test]
    fn heading_paths_follow_levels() {
        let note = "# A\n## B\n### C\n## D\n# E\n";
        let paths: Vec<_> = chunk_note("n.md", note, &options(1000))
            .into_iter()
            .map(|chunk| chunk.heading_path)
            .collect();
        assert_eq!(
            paths,
            [
                "# A",
                "# A > ## B",
                "# A > ## B > ### C",
                "# A > ## D",
                "# E"
            ]
        );
    }

    #[test]
    fn code_and_comments_hold_no_headings() {
        let note = "# Real\n```\n# not a heading\n```\n%%\n# hidden\n%%\n";
        let chunks = chunk_note("n.md", note, &options(1000));
        assert_eq!(chunks.len(), 1);
        assert_eq!(chunks[0].span.range(), 0..note.len());
    }

    #[test]
    fn long_sections_split_at_paragraphs_not_inside_fences() {
        let paragraph = "word ".repeat(30); // 150 chars
        let note = format!(
            "# Long\n{paragraph}\n\n{paragraph}\n\n```\n{paragraph}\n\n{paragraph}\n```\n\n{paragraph}\n"
        );
        let chunks = chunk_note("n.md", &note, &options(200));
        assert!(chunks.len() >= 3, "{chunks:#?}");
        for chunk in &chunks {
            assert!(chunk.heading_path == "# Long");
            let fences = chunk.section().matches("```").count();
            assert!(fences % 2 == 0, "a fence was cut: {:?}", chunk.section());
        }
    }

    #[test]
    fn one_huge_paragraph_stays_whole() {
        let note = format!("# H\n{}\n", "x".repeat(5000));
        let chunks = chunk_note("n.md", &note, &options(100));
        assert_eq!(chunks.len(), 1);
    }

    #[test]
    fn empty_and_blank_notes_have_no_chunks() {
        assert!(chunk_note("n.md", "", &options(10)).is_empty());
        assert!(chunk_note("n.md", " \n\n\t\n", &options(10)).is_empty());
        assert!(chunk_note("n.md", "---\na: 1\n---\n", &options(10)).is_empty());
    }

    fn note_strategy() -> impl Strategy<Value = String> {
        let line = prop_oneof![
            Just("# Top\n".to_owned()),
            Just("## Sub é\n".to_owned()),
            Just("### Deep\n".to_owned()),
            Just("\n".to_owned()),
            Just("   \n".to_owned()),
            Just("```\n".to_owned()),
            Just("%%\n".to_owned()),
            Just("Setext\n---\n".to_owned()),
            "[a-zé日 .,#]{0,60}\n",
            "[a-z ]{0,300}",
        ];
        (
            prop::option::of("[a-z: ]{0,20}"),
            prop::collection::vec(line, 0..40),
        )
            .prop_map(|(frontmatter, lines)| {
                let mut note = frontmatter
                    .map(|yaml| format!("---\n{yaml}\n---\n"))
                    .unwrap_or_default();
                note.extend(lines);
                note
            })
    }

    proptest! {
        #[test]
        fn chunks_cover_the_body_in_order_without_overlap(
            note in note_strategy(),
            max_chars in 20usize..400,
        ) {
            let chunks = chunk_note("dir/n.md", &note, &options(max_chars));
            let mut covered = body_start(&note);
            for chunk in &chunks {
                // In order, no overlap, and what lies between is blank.
                prop_assert!(chunk.span.start >= covered);
                prop_assert!(note[covered..chunk.span.start].trim().is_empty());
                prop_assert!(chunk.span.end > chunk.span.start);
                // The span slices the note exactly.
                prop_assert_eq!(chunk.section(), &note[chunk.span.range()]);
                let title = format!("{}\n", note_title("dir/n.md", &note));
                prop_assert!(chunk.text.starts_with(&title));
                prop_assert!(chunk.text.ends_with(chunk.section()));
                covered = chunk.span.end;
            }
            prop_assert!(note[covered..].trim().is_empty());
        }
    }
}
