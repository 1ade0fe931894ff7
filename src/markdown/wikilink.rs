//! The inside of a wikilink, read from its source text (pulldown-cmark
//! finds the link; it does not split target, heading, block and alias, and
//! in a table it leaves the `\|` escape to us).

use super::facts::{Wikilink, WikilinkKind};
use crate::span::Span;

/// Reads the wikilink or embed written at `span` of `text`, or `None` when
/// the source there is not `[[...]]` (pulldown-cmark's span is then not the
/// link itself) or names nothing to link to.
// markdown.ebnf: wikilink, embed
pub(super) fn read_wikilink(text: &str, span: Span, line: usize) -> Option<Wikilink> {
    let source = &text[span.range()];
    let (kind, rest) = match source.strip_prefix('!') {
        Some(rest) => (WikilinkKind::Embed, rest),
        None => (WikilinkKind::Link, source),
    };
    let body = rest.strip_prefix("[[")?.strip_suffix("]]")?;
    // markdown.ebnf: alias (a table cell escapes the bar as `\|`)
    let (destination, alias) = match body.find('|') {
        Some(bar) => {
            let destination = &body[..bar];
            let destination = destination.strip_suffix('\\').unwrap_or(destination);
            (destination, Some(body[bar + 1..].trim().to_owned()))
        }
        None => (body, None),
    };
    // markdown.ebnf: link-target
    let (target, anchor) = match destination.split_once('#') {
        Some((target, anchor)) => (target, Some(anchor)),
        None => (destination, None),
    };
    // markdown.ebnf: link-block, link-heading
    let (heading, block) = match anchor {
        Some(anchor) => match anchor.strip_prefix('^') {
            Some(block) => (None, Some(block.trim().to_owned())),
            None => (Some(anchor.trim().to_owned()), None),
        },
        None => (None, None),
    };
    let target = target.trim();
    // markdown.ebnf: wikilink (a link with no target, heading or block, as
    // `[[ ]]`, `[[#]]` or `[[ |x]]`, leads nowhere, not to its own note)
    let anchored = heading.as_deref().or(block.as_deref());
    if target.is_empty() && anchored.is_none_or(str::is_empty) {
        return None;
    }
    Some(Wikilink {
        kind,
        target: target.to_owned(),
        heading,
        block,
        alias,
        span,
        line,
    })
}

/// Where the target of the wikilink or embed written at `link` of `text`
/// lies (the note's name or path, without `#heading`, `#^block` or
/// `|alias`, trimmed): the bytes to change so the link leads elsewhere and
/// keeps every other part. `None` when the source there is not `[[...]]`
/// or has no target (`[[#Heading]]`).
///
/// ```
/// use quire_grammar::markdown::{parse_note, wikilink_target_span};
///
/// let text = "See ![[ Plans/Q3 #Goals|the goals]].";
/// let link = &parse_note(text).wikilinks[0];
/// let target = wikilink_target_span(text, link.span).unwrap();
/// assert_eq!(&text[target.range()], "Plans/Q3");
/// ```
// markdown.ebnf: link-target
pub fn wikilink_target_span(text: &str, link: Span) -> Option<Span> {
    let source = text.get(link.range())?;
    let open = source.find("[[")?;
    let body_start = open + 2;
    let body = source[body_start..].strip_suffix("]]")?;
    // The same cuts as `read_wikilink`: the alias at the first bar (a
    // table's `\|` included), then the anchor at the first `#`.
    let destination = match body.find('|') {
        Some(bar) => {
            let destination = &body[..bar];
            destination.strip_suffix('\\').unwrap_or(destination)
        }
        None => body,
    };
    let target = destination
        .split_once('#')
        .map_or(destination, |(target, _)| target);
    let leading = target.len() - target.trim_start().len();
    let trimmed = target.trim();
    if trimmed.is_empty() {
        return None;
    }
    let start = link.start + body_start + leading;
    Some(Span::new(start, start + trimmed.len()))
}
