//! One walk over pulldown-cmark's events, gathering the facts.

use std::ops::Range;

use pulldown_cmark::utils::TextMergeWithOffset;
use pulldown_cmark::{Event, LinkType, Options, Parser, Tag as CmarkTag, TagEnd};

use super::comments::{comment_ranges, is_commented, uncommented};
use super::counts::{LineIndex, line_count, word_count};
use super::facts::{
    Heading, MarkdownLink, NoteFacts, NoteIssue, PropertyLink, Task, WikilinkKind,
    is_attachment_name,
};
use super::inline::{block_id_at_end, tags_in};
use super::properties::{dedup_caseless, list_property};
use super::wikilink::read_wikilink;
use crate::frontmatter::{self, Frontmatter};
use crate::span::Span;

/// Reads the facts of a note from its text. Never fails: a broken
/// frontmatter becomes an entry in [`NoteFacts::issues`] and everything else
/// is still read.
///
/// ```
/// use quire_grammar::markdown::{parse_note, NoteIssue};
///
/// let facts = parse_note("---\ntitle: [oops\n---\n## Setup\nDone? #later\n");
/// assert!(matches!(facts.issues[..], [NoteIssue::Frontmatter(_)]));
/// assert_eq!((facts.headings[0].level, facts.headings[0].line), (2, 4));
/// assert_eq!(facts.tags, ["later"]);
/// ```
pub fn parse_note(text: &str) -> NoteFacts {
    let mut facts = NoteFacts {
        line_count: line_count(text),
        ..NoteFacts::default()
    };
    let body_start = match frontmatter::parse(text) {
        Ok(document) => {
            facts.frontmatter = document.frontmatter;
            document.body.start
        }
        Err(error) => {
            facts.issues.push(NoteIssue::Frontmatter(error));
            if text.starts_with('\u{feff}') { 3 } else { 0 }
        }
    };
    let events = body_events(text, body_start);
    let runs: Vec<Range<usize>> = events
        .iter()
        .filter(|(event, _)| matches!(event, Walked::Text))
        .map(|(_, range)| range.clone())
        .collect();
    let comments = comment_ranges(text, &runs, text.len());
    Walk {
        text,
        lines: LineIndex::new(text),
        comments,
        facts: &mut facts,
        heading: None,
        link_depth: 0,
        html_depth: 0,
        words: String::new(),
    }
    .run(&events);
    let fm = facts.frontmatter.as_ref();
    let property_tags = list_property(fm, "tags", true);
    let inline = facts.inline_tags.iter().map(|tag| tag.name.clone());
    facts.tags = dedup_caseless(property_tags.into_iter().chain(inline));
    facts.aliases = dedup_caseless(list_property(fm, "aliases", false));
    // Obsidian 1.9 reads neither `tag` nor `alias`: say so, or a note's
    // tags would vanish without a word.
    for (key, read) in [("tag", "tags"), ("alias", "aliases")] {
        if fm.is_some_and(|fm| fm.get(key).is_some()) {
            facts.issues.push(NoteIssue::UnreadKey { key, read });
        }
    }
    facts.property_links = property_links(text, fm);
    facts
}

// markdown.ebnf: property-link
/// The wikilinks that are whole property values, or whole items of a list
/// value, in the order written.
fn property_links(text: &str, frontmatter: Option<&Frontmatter>) -> Vec<PropertyLink> {
    let Some(frontmatter) = frontmatter else {
        return Vec::new();
    };
    let lines = LineIndex::new(text);
    let mut links = Vec::new();
    for entry in &frontmatter.entries {
        let key = entry.key.as_str();
        let values: Vec<&str> = match frontmatter.values.get(key) {
            Some(serde_json::Value::String(value)) => vec![value.as_str()],
            Some(serde_json::Value::Array(items)) => {
                items.iter().filter_map(serde_json::Value::as_str).collect()
            }
            _ => continue,
        };
        for value in values {
            let value = value.trim();
            let whole = Span::new(0, value.len());
            // Not an embed: `![[x]]` as a property is text to Obsidian.
            let Some(link) = read_wikilink(value, whole, 0)
                .filter(|link| link.kind == WikilinkKind::Link && !link.target.is_empty())
            else {
                continue;
            };
            links.push(PropertyLink {
                key: key.to_owned(),
                target: link.target,
                span: entry.value,
                line: lines.line(entry.key.span.start),
            });
        }
    }
    links
}

/// The events the walk needs, with their ranges in the whole text.
enum Walked<'a> {
    /// Text outside code blocks, metadata and HTML, adjacent runs merged.
    Text,
    /// Text that is only counted: code blocks and inline code.
    Code,
    HeadingStart(u8),
    HeadingEnd,
    Wikilink,
    /// A Markdown link's destination, and the span of its reference
    /// definition when it is a reference link.
    MarkdownLink(pulldown_cmark::CowStr<'a>, Option<Range<usize>>),
    LinkEnd,
    Task(bool),
    /// An inline HTML element opens: text up to its close holds no tags.
    HtmlOpen,
    HtmlClose,
    /// A paragraph, heading or table cell ends, closing any HTML left open.
    InlineEnd,
    /// A line ends inside a paragraph or a setext heading.
    LineBreak,
}

fn body_events(text: &str, body_start: usize) -> Vec<(Walked<'_>, Range<usize>)> {
    let options = Options::ENABLE_WIKILINKS
        | Options::ENABLE_TABLES
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_YAML_STYLE_METADATA_BLOCKS;
    let parser = Parser::new_ext(&text[body_start..], options);
    // Reference definitions by label (case-folded as CommonMark matches
    // them, near enough): where a reference link's destination is written.
    let definitions: std::collections::HashMap<String, Range<usize>> = parser
        .reference_definitions()
        .iter()
        .map(|(label, definition)| (label.to_lowercase(), definition.span.clone()))
        .collect();
    let parser = parser.into_offset_iter();
    let mut in_code_block = false;
    let mut in_metadata = false;
    let mut walked = Vec::new();
    for (event, range) in TextMergeWithOffset::new(parser) {
        let range = range.start + body_start..range.end + body_start;
        let kept = match event {
            Event::Start(CmarkTag::MetadataBlock(_)) => {
                in_metadata = true;
                None
            }
            Event::End(TagEnd::MetadataBlock(_)) => {
                in_metadata = false;
                None
            }
            _ if in_metadata => None,
            Event::Start(CmarkTag::CodeBlock(_)) => {
                in_code_block = true;
                None
            }
            Event::End(TagEnd::CodeBlock) => {
                in_code_block = false;
                None
            }
            Event::Text(_) if in_code_block => Some(Walked::Code),
            Event::Text(_) => Some(Walked::Text),
            Event::Code(_) => Some(Walked::Code),
            Event::Start(CmarkTag::Heading { level, .. }) => {
                Some(Walked::HeadingStart(level as u8))
            }
            Event::End(TagEnd::Heading(_)) => Some(Walked::HeadingEnd),
            Event::Start(CmarkTag::Link {
                link_type,
                dest_url,
                id,
                ..
            })
            | Event::Start(CmarkTag::Image {
                link_type,
                dest_url,
                id,
                ..
            }) => Some(match link_type {
                LinkType::WikiLink { .. } => Walked::Wikilink,
                LinkType::Reference | LinkType::Collapsed | LinkType::Shortcut => {
                    let definition = definitions
                        .get(&id.to_lowercase())
                        .map(|span| span.start + body_start..span.end + body_start);
                    Walked::MarkdownLink(dest_url, definition)
                }
                _ => Walked::MarkdownLink(dest_url, None),
            }),
            Event::End(TagEnd::Link | TagEnd::Image) => Some(Walked::LinkEnd),
            Event::TaskListMarker(checked) => Some(Walked::Task(checked)),
            Event::SoftBreak | Event::HardBreak => Some(Walked::LineBreak),
            Event::InlineHtml(html) => html_element(&html),
            Event::End(TagEnd::Paragraph | TagEnd::TableCell) => Some(Walked::InlineEnd),
            _ => None,
        };
        walked.extend(kept.map(|kept| (kept, range)));
    }
    walked
}

/// Whether inline HTML opens or closes an element; comments, void and
/// self-closing elements do neither.
fn html_element(html: &str) -> Option<Walked<'static>> {
    const VOID: [&str; 8] = ["br", "hr", "img", "input", "wbr", "meta", "link", "source"];
    if html.starts_with("</") {
        return Some(Walked::HtmlClose);
    }
    let name: String = html
        .get(1..)
        .unwrap_or_default()
        .chars()
        .take_while(char::is_ascii_alphanumeric)
        .collect::<String>()
        .to_ascii_lowercase();
    let opens = !name.is_empty() && !html.ends_with("/>") && !VOID.contains(&name.as_str());
    opens.then_some(Walked::HtmlOpen)
}

struct Walk<'t, 'f> {
    text: &'t str,
    lines: LineIndex,
    comments: Vec<Range<usize>>,
    facts: &'f mut NoteFacts,
    /// The heading being read: its level, start and text so far.
    heading: Option<(u8, usize, String)>,
    /// How many links the walk is inside: their text holds no tags.
    link_depth: usize,
    /// How many inline HTML elements the walk is inside: no tags either.
    html_depth: usize,
    /// The text the word count reads, runs separated by spaces.
    words: String,
}

impl Walk<'_, '_> {
    fn run(mut self, events: &[(Walked<'_>, Range<usize>)]) {
        for (event, range) in events {
            self.step(event, range.clone());
        }
        self.facts.word_count = word_count(&self.words);
    }

    fn step(&mut self, event: &Walked<'_>, range: Range<usize>) {
        let commented = is_commented(&self.comments, range.start);
        match event {
            Walked::Text => self.text_run(range),
            Walked::Code => {
                // Inline code in a heading: the heading keeps the code's
                // text, not its backticks (code blocks are never in one).
                let heading = self.heading.take();
                let parts = self.counted(range);
                self.heading = heading.map(|(level, start, mut text)| {
                    for part in parts {
                        text.push_str(code_span_text(&self.text[part]));
                    }
                    (level, start, text)
                });
            }
            Walked::HeadingStart(level) => {
                self.heading = Some((*level, range.start, String::new()))
            }
            Walked::HeadingEnd => {
                self.html_depth = 0;
                self.heading_end(range, commented);
            }
            Walked::Wikilink => {
                self.link_depth += 1;
                let line = self.lines.line(range.start);
                let span = Span::new(range.start, range.end);
                if let Some(link) = read_wikilink(self.text, span, line).filter(|_| !commented) {
                    self.facts.wikilinks.push(link);
                }
            }
            Walked::MarkdownLink(destination, definition) => {
                self.link_depth += 1;
                if !commented {
                    self.markdown_link(destination, range, definition.clone());
                }
            }
            Walked::LinkEnd => self.link_depth = self.link_depth.saturating_sub(1),
            Walked::Task(checked) if !commented => self.task(*checked, range),
            Walked::Task(_) => {}
            Walked::HtmlOpen => self.html_depth += 1,
            Walked::HtmlClose => self.html_depth = self.html_depth.saturating_sub(1),
            Walked::InlineEnd => self.html_depth = 0,
            // A setext heading's lines are one heading, joined by a space
            // (as Obsidian shows and links it).
            Walked::LineBreak => {
                if let Some((_, _, heading)) = &mut self.heading {
                    heading.push(' ');
                }
            }
        }
    }

    /// Adds the uncommented parts of `range` to the word count and the
    /// heading being read.
    fn counted(&mut self, range: Range<usize>) -> Vec<Range<usize>> {
        let parts = uncommented(&self.comments, range);
        for part in &parts {
            let piece = &self.text[part.clone()];
            self.words.push_str(piece);
            self.words.push(' ');
            if let Some((_, _, heading)) = &mut self.heading {
                heading.push_str(piece);
            }
        }
        parts
    }

    fn text_run(&mut self, range: Range<usize>) {
        for part in self.counted(range) {
            if self.link_depth == 0 && self.html_depth == 0 {
                let tags = tags_in(self.text, part.clone(), &self.lines);
                self.facts.inline_tags.extend(tags);
            }
            if let Some(block_id) = block_id_at_end(self.text, part, &self.lines) {
                self.facts.block_ids.push(block_id);
            }
        }
    }

    fn heading_end(&mut self, range: Range<usize>, commented: bool) {
        let Some((level, start, text)) = self.heading.take() else {
            return;
        };
        if !commented {
            self.facts.headings.push(Heading {
                level,
                text: text.trim().to_owned(),
                span: Span::new(start, range.end),
                line: self.lines.line(start),
            });
        }
    }

    fn markdown_link(
        &mut self,
        destination: &str,
        range: Range<usize>,
        definition: Option<Range<usize>>,
    ) {
        let lowered = destination.to_ascii_lowercase();
        if lowered.contains("://") || lowered.starts_with("mailto:") {
            return;
        }
        let (path, heading) = match destination.split_once('#') {
            Some((path, heading)) => (path, Some(percent_decode(heading))),
            None => (destination, None),
        };
        let target = percent_decode(path);
        if !is_local_destination(&target) {
            return;
        }
        let written = match definition {
            Some(definition) => destination_in_definition(self.text, definition),
            None => destination_in_link(self.text, range.clone(), destination),
        };
        self.facts.markdown_links.push(MarkdownLink {
            target,
            heading,
            destination: written.map(|written| {
                // The file part: up to the `#fragment`.
                let file = self.text[written.clone()]
                    .find('#')
                    .map_or(written.end, |hash| written.start + hash);
                Span::new(written.start, file)
            }),
            span: Span::new(range.start, range.end),
            line: self.lines.line(range.start),
        });
    }

    fn task(&mut self, checked: bool, marker: Range<usize>) {
        let rest = self.text[marker.end..].split('\n').next().unwrap_or("");
        let rest = rest.strip_suffix('\r').unwrap_or(rest);
        let leading = rest.len() - rest.trim_start().len();
        let start = marker.end + leading;
        let task_text = rest.trim();
        self.facts.tasks.push(Task {
            checked,
            text: task_text.to_owned(),
            span: Span::new(start, start + task_text.len()),
            line: self.lines.line(marker.start),
        });
    }
}

/// Where the destination of the inline link written at `link` lies (`<>`
/// excluded): after the last `](` whose destination reads as
/// pulldown-cmark read it (`destination`), else after the last `](`.
// markdown.ebnf: markdown-link
fn destination_in_link(text: &str, link: Range<usize>, destination: &str) -> Option<Range<usize>> {
    let source = text.get(link.clone())?;
    let candidates: Vec<Range<usize>> = source
        .match_indices("](")
        .filter_map(|(at, _)| written_destination(text, link.start + at + 2))
        .collect();
    candidates
        .iter()
        .rev()
        .find(|candidate| &text[(*candidate).clone()] == destination)
        .or(candidates.last())
        .cloned()
}

/// Where the destination of the reference definition written at
/// `definition` (`[label]: destination "title"`) lies (`<>` excluded).
fn destination_in_definition(text: &str, definition: Range<usize>) -> Option<Range<usize>> {
    let source = text.get(definition.clone())?;
    let colon = source.find("]:")?;
    written_destination(text, definition.start + colon + 2)
}

/// The link destination written from `start` of `text` (after spaces and
/// at most one line break): `<...>` (its inside) or a run without spaces
/// or control characters whose parentheses balance.
fn written_destination(text: &str, start: usize) -> Option<Range<usize>> {
    let rest = text.get(start..)?;
    let mut offset = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    let after_break = rest[offset..]
        .strip_prefix("\r\n")
        .or_else(|| rest[offset..].strip_prefix('\n'));
    if let Some(after) = after_break {
        offset = rest.len() - after.trim_start_matches([' ', '\t']).len();
    }
    let from = start + offset;
    let rest = &text[from..];
    if let Some(inside) = rest.strip_prefix('<') {
        let end = inside.find(['>', '\n', '<'])?;
        return inside[end..]
            .starts_with('>')
            .then(|| from + 1..from + 1 + end);
    }
    let mut depth = 0usize;
    let mut escaped = false;
    let mut end = rest.len();
    for (at, c) in rest.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' => escaped = true,
            '(' => depth += 1,
            ')' if depth == 0 => {
                end = at;
                break;
            }
            ')' => depth -= 1,
            c if c.is_ascii_whitespace() || c.is_control() => {
                end = at;
                break;
            }
            _ => {}
        }
    }
    (end > 0).then(|| from..from + end)
}

/// Whether a Markdown link's decoded destination (without `#fragment`)
/// names a local file Obsidian links to (grammar/markdown.ebnf,
/// `markdown-link`): a `.md` file, a name without an extension, which
/// Obsidian reads as the note of that name (`[a](Target)` is `Target.md`,
/// `[b](Three%20laws%20of%20motion)` too), or an attachment
/// ([`is_attachment_name`]: `[c](img/chart.png)`). Not a heading of the
/// same note alone (empty), not a scheme (`tel:`, `obsidian:`), not a file
/// of another format.
// markdown.ebnf: markdown-link
fn is_local_destination(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    !name.is_empty()
        && !path.contains(':')
        && (name.to_ascii_lowercase().ends_with(".md")
            || !name.contains('.')
            || is_attachment_name(name))
}

/// The text of an inline code span as written (`` `code` ``), as
/// CommonMark reads it: without its backticks, and without one space at each
/// end when it has one at both and is not only spaces.
fn code_span_text(span: &str) -> &str {
    let inner = span.trim_matches('`');
    match inner
        .strip_prefix(' ')
        .and_then(|rest| rest.strip_suffix(' '))
    {
        Some(stripped) if !inner.trim_matches(' ').is_empty() => stripped,
        _ => inner,
    }
}

/// `%XX` escapes decoded, as a Markdown link's destination is read (see
/// [`MarkdownLink::target`]); a malformed or non-UTF-8 escape is kept as
/// written.
///
/// ```
/// use quire_grammar::markdown::percent_decode;
///
/// assert_eq!(percent_decode("My%20Note.md"), "My Note.md");
/// assert_eq!(percent_decode("100%.md"), "100%.md");
/// ```
// markdown.ebnf: markdown-link
pub fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let escape = bytes
            .get(index + 1..index + 3)
            .and_then(|hex| u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok());
        match (bytes[index], escape) {
            (b'%', Some(byte)) => {
                decoded.push(byte);
                index += 3;
            }
            (byte, _) => {
                decoded.push(byte);
                index += 1;
            }
        }
    }
    String::from_utf8(decoded).unwrap_or_else(|_| text.to_owned())
}
