//! The links of a note kept leading where they led when a note moves:
//! `move_note`'s rewriting (issue 28). Written by hand: which form of a
//! link Obsidian writes ("shortest path when possible") follows its own
//! resolution rules ([`super::resolve`]), which no crate has.
//!
//! Every link the index reads is rewritten where it must be: wikilinks and
//! embeds (by name or path, their `#heading`, `#^block` and `|alias` kept),
//! Markdown links (inline or by reference definition, percent-escaped as
//! written, their `#fragment` kept) and wikilinks in frontmatter values
//! (quoted as written). Only the bytes of the link's target change.
//!
//! A link must change when it led to the moved note, or when the move
//! would make it lead elsewhere: a relative link in the moved note, or a
//! name the moved note's new name would take over. A link keeps its form:
//! a name stays a name while the name is one note's alone, else it becomes
//! the shortest path that is (as Obsidian writes it); a path stays a path
//! of at least as many folders, a relative path relative, a `.md` ending
//! or a leading `/` kept. Each rewritten note is read again and every one
//! of its links checked to lead where it led, or the move is refused.

use std::ops::Range;

use quire_grammar::markdown::{NoteFacts, parse_note, percent_decode, wikilink_target_span};
use quire_grammar::span::Span;

use super::note_path::NotePath;
use super::note_set::NoteSet;
use super::resolve::{Resolution, resolve};

/// A note moving from `from` to `to`, with the kiln's notes before the
/// move and after it.
pub(crate) struct Move<'a> {
    /// The note's path now.
    pub(crate) from: &'a NotePath,
    /// Its path once moved.
    pub(crate) to: &'a NotePath,
    /// The kiln's notes and attachments now.
    pub(crate) before: &'a NoteSet,
    /// The same once the note moved.
    pub(crate) after: &'a NoteSet,
}

/// A note's text with its links leading where they led.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Relinked {
    /// The note's new text.
    pub(crate) text: String,
    /// The lines of the links rewritten (1-based, each once).
    pub(crate) lines: Vec<usize>,
    /// How many links were rewritten.
    pub(crate) links: usize,
}

/// A link no text can keep leading where it led.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "the link on line {line} of `{note}` cannot be written to lead to `{leads_to}` once the note moves \
     ({why}); nothing was moved. Choose another name, or change that link first"
)]
pub struct RelinkError {
    /// The note holding the link.
    pub note: String,
    /// Its line (1-based).
    pub line: usize,
    /// Where it led.
    pub leads_to: String,
    /// Why it cannot.
    pub why: &'static str,
}

/// The text of the note `source` once the note `from` moves to `to`, in
/// a kiln holding the notes `notes` (`from` among them), with every link
/// that must change rewritten as `move_note` rewrites it; `None` when none
/// must. Only the bytes of the links' targets change.
///
/// ```
/// use quire_kiln::{NotePath, relinked_note};
///
/// let note = |path: &str| NotePath::parse_relative(path).unwrap();
/// let notes = [note("a/Old.md"), note("b/Other.md"), note("c/Index.md")];
/// let text = "See [[Old#Goals|the goals]] and [o](../a/Old.md).\n";
/// let moved = relinked_note(text, &note("c/Index.md"), &note("a/Old.md"), &note("d/New plan.md"), &notes);
/// assert_eq!(
///     moved.unwrap().as_deref(),
///     Some("See [[New plan#Goals|the goals]] and [o](../d/New%20plan.md).\n")
/// );
/// ```
pub fn relinked_note(
    text: &str,
    source: &NotePath,
    from: &NotePath,
    to: &NotePath,
    notes: &[NotePath],
) -> Result<Option<String>, RelinkError> {
    let before: NoteSet = notes.iter().cloned().collect();
    let mut after = before.clone();
    after.remove(from);
    after.insert(to.clone());
    let relinked = Move {
        from,
        to,
        before: &before,
        after: &after,
    }
    .relink(source, text)?;
    Ok(relinked.map(|relinked| relinked.text))
}

/// Where a link leads.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Destination {
    Note(NotePath),
    Attachment(String),
    Nowhere,
}

impl Destination {
    fn of(resolution: Resolution) -> Destination {
        match resolution {
            Resolution::Resolved(path) | Resolution::Ambiguous { chosen: path, .. } => {
                Destination::Note(path)
            }
            Resolution::Attachment(path) => Destination::Attachment(path),
            Resolution::Unresolved => Destination::Nowhere,
        }
    }

    fn path(&self) -> &str {
        match self {
            Destination::Note(path) => path.as_str(),
            Destination::Attachment(path) => path,
            Destination::Nowhere => "",
        }
    }
}

/// How a link's target is written, which decides how a new one is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    /// In a wikilink or embed in the body: as is.
    Wikilink,
    /// In a Markdown destination: percent-escaped, or as is inside `<>`.
    Markdown { angle: bool },
    /// In a wikilink in a frontmatter value: as the YAML quote needs.
    Property { quote: Option<char> },
}

/// One link of a note: its target as read, where it is written and how.
struct Site {
    target: String,
    written: Option<Span>,
    form: Form,
    line: usize,
}

impl Move<'_> {
    /// The text of the note `source` (named as before the move), whose
    /// `text` is read now, with every link that must change rewritten;
    /// `None` when none must.
    pub(crate) fn relink(
        &self,
        source: &NotePath,
        text: &str,
    ) -> Result<Option<Relinked>, RelinkError> {
        let source_after = if source == self.from { self.to } else { source };
        let sites = sites(text, &parse_note(text));
        let mut edits: Vec<(Range<usize>, String)> = Vec::new();
        let mut lines = Vec::new();
        let mut wanted = Vec::with_capacity(sites.len());
        for site in &sites {
            let before = self.led_to(&site.target, source);
            let after = Destination::of(resolve(&site.target, source_after, self.after));
            if before == Destination::Nowhere || before == after {
                wanted.push(after);
                continue;
            }
            let refused = |why| RelinkError {
                note: source.to_string(),
                line: site.line,
                leads_to: before.path().to_owned(),
                why,
            };
            let written = site
                .written
                .ok_or_else(|| refused("its destination was not found in the text"))?;
            let replacement = self
                .written_for(&before, &text[written.range()], site.form, source_after)
                .ok_or_else(|| refused("no form of the link leads there alone"))?;
            if !edits.iter().any(|(range, _)| *range == written.range()) {
                edits.push((written.range(), replacement));
            }
            lines.push(site.line);
            wanted.push(before);
        }
        if edits.is_empty() {
            return Ok(None);
        }
        edits.sort_by_key(|(range, _)| range.start);
        let mut relinked = String::with_capacity(text.len() + 64 * edits.len());
        let mut at = 0;
        for (range, replacement) in &edits {
            relinked.push_str(&text[at..range.start]);
            relinked.push_str(replacement);
            at = range.end;
        }
        relinked.push_str(&text[at..]);
        self.check(source, source_after, &relinked, &wanted)?;
        let links = lines.len();
        lines.sort_unstable();
        lines.dedup();
        Ok(Some(Relinked {
            text: relinked,
            lines,
            links,
        }))
    }

    /// Where a link to `target` in `source` led before the move, named as
    /// after it (the moved note by its new path).
    fn led_to(&self, target: &str, source: &NotePath) -> Destination {
        match Destination::of(resolve(target, source, self.before)) {
            Destination::Note(path) if path == *self.from => Destination::Note(self.to.clone()),
            other => other,
        }
    }

    /// Reads the rewritten `text` again: the same links, each leading to
    /// what `wanted` says, or the move is refused.
    fn check(
        &self,
        source: &NotePath,
        source_after: &NotePath,
        text: &str,
        wanted: &[Destination],
    ) -> Result<(), RelinkError> {
        let sites = sites(text, &parse_note(text));
        let mismatch = sites.iter().zip(wanted).find(|(site, wanted)| {
            Destination::of(resolve(&site.target, source_after, self.after)) != **wanted
        });
        let problem = match mismatch {
            Some((site, wanted)) => Some((site.line, wanted.path(), "it would lead elsewhere")),
            None if sites.len() != wanted.len() => Some((
                sites.first().map_or(1, |site| site.line),
                self.to.as_str(),
                "the note would no longer read as the same links",
            )),
            None => None,
        };
        match problem {
            Some((line, leads_to, why)) => Err(RelinkError {
                note: source.to_string(),
                line,
                leads_to: leads_to.to_owned(),
                why,
            }),
            None => Ok(()),
        }
    }

    /// The text to write in place of `old` (a link's target as written in
    /// `form`) so that, from the note `source`, it leads to `destination`
    /// alone, in `old`'s form; `None` when no such text exists.
    fn written_for(
        &self,
        destination: &Destination,
        old: &str,
        form: Form,
        source: &NotePath,
    ) -> Option<String> {
        let read = match form {
            Form::Markdown { angle: false } => percent_decode(old),
            _ => old.to_owned(),
        };
        let keep_md = destination_is_note(destination) && read.to_lowercase().ends_with(".md");
        let full = match destination {
            Destination::Note(path) if !keep_md => {
                path.as_str().strip_suffix(".md").unwrap_or(path.as_str())
            }
            other => other.path(),
        };
        let candidates = candidates(&read, full, source);
        candidates
            .into_iter()
            .filter(|candidate| {
                let resolution = resolve(candidate, source, self.after);
                !resolution.is_ambiguous() && Destination::of(resolution) == *destination
            })
            .find_map(|candidate| written_as(&candidate, form))
    }
}

fn destination_is_note(destination: &Destination) -> bool {
    matches!(destination, Destination::Note(_))
}

/// The targets to try for a link written `old` to the file `full` (its
/// path, `.md` dropped unless `old` has it), in `old`'s form, shortest
/// first.
fn candidates(old: &str, full: &str, source: &NotePath) -> Vec<String> {
    if old.starts_with("./") || old.starts_with("../") {
        let relative = relative_path(source.folder_str(), full);
        let relative = match relative.starts_with("../") {
            true => relative,
            false => format!("./{relative}"),
        };
        return vec![relative];
    }
    if old.starts_with('/') {
        return vec![format!("/{full}")];
    }
    let segments: Vec<&str> = full.split('/').collect();
    let written_segments = old
        .split('/')
        .filter(|part| !part.is_empty())
        .count()
        .max(1);
    let shortest = written_segments.min(segments.len());
    (shortest..=segments.len())
        .map(|count| segments[segments.len() - count..].join("/"))
        .collect()
}

/// `to` (a path from the root) relative to the folder `from` (`""` for the
/// root).
fn relative_path(from: &str, to: &str) -> String {
    let from: Vec<&str> = from.split('/').filter(|part| !part.is_empty()).collect();
    let to: Vec<&str> = to.split('/').collect();
    let shared = from
        .iter()
        .zip(&to)
        .take_while(|(a, b)| a == b)
        .count()
        .min(to.len() - 1);
    let mut parts = vec![".."; from.len() - shared];
    parts.extend(&to[shared..]);
    parts.join("/")
}

/// `target` as written in `form`, or `None` when it cannot be written
/// there (a wikilink cannot hold `|`, `#`, `[[` or `]]`).
fn written_as(target: &str, form: Form) -> Option<String> {
    let in_wikilink = || {
        !target.contains(['|', '#', '\n', '\r']) && !target.contains("[[") && !target.contains("]]")
    };
    match form {
        Form::Wikilink => in_wikilink().then(|| target.to_owned()),
        Form::Property { quote } => {
            if !in_wikilink() {
                return None;
            }
            Some(match quote {
                Some('"') => target.replace('\\', "\\\\").replace('"', "\\\""),
                Some('\'') => target.replace('\'', "''"),
                _ => target.to_owned(),
            })
        }
        Form::Markdown { angle: true } => {
            (!target.contains(['<', '>', '\n', '\r'])).then(|| target.to_owned())
        }
        Form::Markdown { angle: false } => Some(percent_escaped(target)),
    }
}

/// `text` with what a Markdown destination cannot hold as is escaped:
/// spaces, `%`, `#`, `?`, parentheses, angle brackets, backslashes and
/// control characters.
fn percent_escaped(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() || " %#?()<>\\".contains(c) {
            let mut bytes = [0; 4];
            for byte in c.encode_utf8(&mut bytes).bytes() {
                escaped.push_str(&format!("%{byte:02X}"));
            }
        } else {
            escaped.push(c);
        }
    }
    escaped
}

/// Every link of a note whose `facts` were read from `text`, in the order
/// the index keeps them: wikilinks, Markdown links, property links.
fn sites(text: &str, facts: &NoteFacts) -> Vec<Site> {
    let mut sites = Vec::new();
    for link in &facts.wikilinks {
        sites.push(Site {
            target: link.target.clone(),
            written: wikilink_target_span(text, link.span),
            form: Form::Wikilink,
            line: link.line,
        });
    }
    for link in &facts.markdown_links {
        let angle = link
            .destination
            .is_some_and(|span| text[..span.start].ends_with('<'));
        sites.push(Site {
            target: link.target.clone(),
            written: link.destination,
            form: Form::Markdown { angle },
            line: link.line,
        });
    }
    // A list's items share its span: each takes the first wikilink there
    // naming its target that an earlier one did not take.
    let mut taken: Vec<Span> = Vec::new();
    for link in &facts.property_links {
        let written = wikilinks_in(text, link.span)
            .into_iter()
            .find(|span| !taken.contains(span) && text[span.range()] == *link.target);
        let quote = written.and_then(|span| {
            text[..span.start]
                .trim_end_matches(['[', ' '])
                .chars()
                .next_back()
                .filter(|c| *c == '"' || *c == '\'')
        });
        taken.extend(written);
        sites.push(Site {
            target: link.target.clone(),
            written,
            form: Form::Property { quote },
            line: link.line,
        });
    }
    sites
}

/// The targets of the `[[...]]` written within `span` of `text`.
fn wikilinks_in(text: &str, span: Span) -> Vec<Span> {
    let Some(value) = text.get(span.range()) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(open) = value[from..].find("[[").map(|at| from + at) {
        let Some(close) = value[open..].find("]]").map(|at| open + at + 2) else {
            break;
        };
        let link = Span::new(span.start + open, span.start + close);
        found.extend(wikilink_target_span(text, link));
        from = close;
    }
    found
}

#[cfg(test)]
#[path = "relink_tests.rs"]
mod tests;
