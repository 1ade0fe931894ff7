//! What [`parse_note`](super::parse_note) finds in a note.

use crate::frontmatter::{Frontmatter, ParseError};
use crate::span::Span;

/// Everything the kiln reads from one note.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct NoteFacts {
    /// The frontmatter block, when the note starts with one that parses.
    pub frontmatter: Option<Frontmatter>,
    /// What is wrong with the note (a broken frontmatter); every other fact
    /// is still read.
    pub issues: Vec<NoteIssue>,
    /// The headings, ATX and setext, in order.
    pub headings: Vec<Heading>,
    /// The `[[wikilinks]]` and `![[embeds]]`, in order.
    pub wikilinks: Vec<Wikilink>,
    /// The Markdown links to local notes (`.md` files, or names without an
    /// extension) and attachments ([`is_attachment_name`]), in order.
    pub markdown_links: Vec<MarkdownLink>,
    /// Wikilinks written as frontmatter property values (`related:
    /// "[[Plan]]"`, or a list of them), as Obsidian links them.
    pub property_links: Vec<PropertyLink>,
    /// The inline `#tags` as written, in order, duplicates kept.
    pub inline_tags: Vec<Tag>,
    /// The frontmatter's `tags`/`tag` then the inline tags, without `#`,
    /// deduplicated case-insensitively keeping the first spelling.
    pub tags: Vec<String>,
    /// The frontmatter's `aliases`/`alias`, deduplicated like `tags`.
    pub aliases: Vec<String>,
    /// The `- [ ]` / `- [x]` tasks, in order, nested ones included.
    pub tasks: Vec<Task>,
    /// The `^block-id`s that end a line, in order.
    pub block_ids: Vec<BlockId>,
    /// The words of the note, as the module documentation counts them.
    pub word_count: usize,
    /// The lines of the note: 0 when empty, a last line without a line
    /// ending counts.
    pub line_count: usize,
}

/// Something wrong with a note that did not stop it being read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NoteIssue {
    /// The frontmatter block could not be read; its properties, tags and
    /// aliases are missing from the facts.
    #[error("{0}")]
    Frontmatter(ParseError),
    /// A property Obsidian no longer reads (since 1.9), `tag` or `alias`.
    #[error("the property `{key}` is not read (Obsidian 1.9 dropped it); rename it `{read}`")]
    UnreadKey {
        /// The key written.
        key: &'static str,
        /// The key that is read instead.
        read: &'static str,
    },
}

/// A heading.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Heading {
    /// 1 to 6.
    pub level: u8,
    /// The heading's text, without markers and markup.
    pub text: String,
    /// The whole heading, markers (and a setext underline) included.
    pub span: Span,
    /// The 1-based line it starts on.
    pub line: usize,
}

/// Whether a wikilink links or embeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WikilinkKind {
    /// `[[Note]]`.
    Link,
    /// `![[Note]]`.
    Embed,
}

/// A `[[wikilink]]` or `![[embed]]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wikilink {
    /// Link or embed.
    pub kind: WikilinkKind,
    /// The note (or file) linked, as written; empty for `[[#Heading]]`.
    pub target: String,
    /// The heading after `#`, when the link points at one.
    pub heading: Option<String>,
    /// The block id after `#^`, when the link points at a block.
    pub block: Option<String>,
    /// The text after `|`, when the link has one.
    pub alias: Option<String>,
    /// The whole link, `!` and brackets included.
    pub span: Span,
    /// The 1-based line it starts on.
    pub line: usize,
}

/// A Markdown link to a local note: `[text](other.md#part)`, or
/// `[text](other#part)` without the extension, as Obsidian reads it; or to
/// an attachment (`[chart](img/chart.png)`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MarkdownLink {
    /// The file linked, percent-escapes decoded, without the `#fragment`.
    pub target: String,
    /// The `#fragment`, without `#`, when there is one.
    pub heading: Option<String>,
    /// The whole link as written.
    pub span: Span,
    /// The destination's file part as written (percent-escapes kept; no
    /// `<` `>`, no `#fragment`), in the link or, for a reference link
    /// (`[text][label]`), in its definition: the bytes to change so the
    /// link leads elsewhere. `None` when it cannot be found in the source.
    pub destination: Option<Span>,
    /// The 1-based line it starts on.
    pub line: usize,
}

/// A wikilink that is a whole frontmatter property value, or a whole item
/// of a list value: `up: "[[Plan#Goals]]"`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PropertyLink {
    /// The top-level property it is the value of.
    pub key: String,
    /// The note linked, as written (without heading, block or alias).
    pub target: String,
    /// The property's value in the note (the whole list, for an item).
    pub span: Span,
    /// The 1-based line of the property's key.
    pub line: usize,
}

/// An inline `#tag`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tag {
    /// The tag without `#`, as written.
    pub name: String,
    /// The tag with its `#`.
    pub span: Span,
    /// The 1-based line.
    pub line: usize,
}

/// A task list item.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Task {
    /// Whether the box is ticked (`[x]` or `[X]`).
    pub checked: bool,
    /// The rest of the item's first line, trimmed.
    pub text: String,
    /// The text's span (empty, at the line end, when there is none).
    pub span: Span,
    /// The 1-based line.
    pub line: usize,
}

/// A `^block-id` at the end of a line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockId {
    /// The id without `^`.
    pub id: String,
    /// The id with its `^`.
    pub span: Span,
    /// The 1-based line.
    pub line: usize,
}

/// The extensions of the files besides notes that Obsidian accepts, from
/// its help's "Accepted file formats": bases, canvases, images, audio,
/// video and PDF (grammar/markdown.ebnf, `attachment-extension`).
// markdown.ebnf: attachment-extension
pub const ATTACHMENT_EXTENSIONS: [&str; 22] = [
    "base", "canvas", "avif", "bmp", "gif", "jpeg", "jpg", "png", "svg", "webp", "flac", "m4a",
    "mp3", "ogg", "wav", "webm", "3gp", "mkv", "mov", "mp4", "ogv", "pdf",
];

/// Whether a file name (or a path) ends with one of
/// [`ATTACHMENT_EXTENSIONS`], in any case, after a non-empty name: a file
/// a link can lead to besides a note.
///
/// ```
/// use quire_grammar::markdown::is_attachment_name;
///
/// assert!(is_attachment_name("img/Chart.PNG"));
/// assert!(!is_attachment_name("script.js"));
/// assert!(!is_attachment_name(".png"));
/// ```
pub fn is_attachment_name(name: &str) -> bool {
    let name = name.rsplit('/').next().unwrap_or(name);
    name.rsplit_once('.').is_some_and(|(stem, extension)| {
        !stem.is_empty()
            && ATTACHMENT_EXTENSIONS
                .iter()
                .any(|accepted| extension.eq_ignore_ascii_case(accepted))
    })
}
