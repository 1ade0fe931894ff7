//! The facts of one Markdown note, as the kiln needs them: frontmatter,
//! headings, wikilinks and embeds, links to local `.md` files, tags, tasks,
//! block ids, word and line counts.
//!
//! [`parse_note`](crate::markdown::parse_note) reads a note's text (no file
//! access) into [`NoteFacts`](crate::markdown::NoteFacts); every fact
//! carries its byte [`Span`](crate::span::Span) in the original text and its
//! 1-based line.
//!
//! The CommonMark structure (blocks, code, HTML, headings, tasks, links and
//! the `[[...]]` wikilinks) comes from pulldown-cmark; this module writes by
//! hand only what CommonMark does not cover, over pulldown's text events so
//! that code, HTML and `<!-- -->` comments are never mined: the inside of a
//! wikilink (target, `#heading`, `#^block`, `|alias`, `\|` in tables), inline
//! `#tags`, `^block-ids` and Obsidian `%% comments %%`. Their grammar is
//! `grammar/markdown.ebnf`. Text inside links and inline HTML elements holds
//! no tags. Those scanners are small byte loops rather than
//! winnow parsers because each looks at one run of text at a time and needs
//! the byte before it, which a combinator over the run would not see.
//!
//! Word count, as Obsidian counts it: over the note's text outside the
//! frontmatter, `%% comments %%`, code fences, markup and HTML, each CJK
//! character is one word; a run of digits joined by single `,` or `.` is one word
//! (`1,000.5`); any other run of letters, digits, marks, `-` and `'` is one
//! word (`well-known`, `don't`). Everything else (punctuation, emoji,
//! spaces) separates words.
//!
//! ```
//! use quire_grammar::markdown::{parse_note, WikilinkKind};
//!
//! let note = "---\ntags: [draft]\n---\n# Plan\nSee [[Other#Goals|goals]] #todo\n- [ ] write ^b1\n";
//! let facts = parse_note(note);
//! assert_eq!(facts.headings[0].text, "Plan");
//! let link = &facts.wikilinks[0];
//! assert_eq!((link.target.as_str(), link.kind), ("Other", WikilinkKind::Link));
//! assert_eq!(link.heading.as_deref(), Some("Goals"));
//! assert_eq!(link.alias.as_deref(), Some("goals"));
//! assert_eq!(&note[link.span.range()], "[[Other#Goals|goals]]");
//! assert_eq!(facts.tags, ["draft", "todo"]);
//! assert_eq!(facts.tasks[0].text, "write ^b1");
//! assert_eq!(facts.block_ids[0].id, "b1");
//! assert_eq!(facts.line_count, 6);
//! ```

mod comments;
mod counts;
mod facts;
mod inline;
mod properties;
mod scan;
mod wikilink;

pub use facts::{
    ATTACHMENT_EXTENSIONS, BlockId, Heading, MarkdownLink, NoteFacts, NoteIssue, PropertyLink, Tag,
    Task, Wikilink, WikilinkKind, is_attachment_name,
};
pub use scan::{parse_note, percent_decode};
pub use wikilink::wikilink_target_span;

#[cfg(test)]
mod tests;
