//! Any bytes, read as (lossy) UTF-8, as a note in a small kiln whose note
//! `a/Old.md` moves to `d/New plan.md` (`relinked_note`, what `move_note`
//! does to each note): no panic; a refusal is a `RelinkError` naming a line
//! of the note; a rewrite leaves every byte outside the links' targets as
//! it was (the first and last bytes that differ lie in a link's target);
//! and when a round trip (there and back) is not refused, a second one
//! gives the text the first gave (the forms written are stable).

#![no_main]

use libfuzzer_sys::fuzz_target;
use quire_grammar::markdown::{parse_note, wikilink_target_span};
use quire_kiln::{NotePath, relinked_note};

fn note(path: &str) -> NotePath {
    NotePath::parse_relative(path).unwrap()
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (old, new) = (note("a/Old.md"), note("d/New plan.md"));
    let source = note("c/Linker.md");
    let others = [
        "a/sib.md",
        "b/Other.md",
        "c/Linker.md",
        "x/Same.md",
        "y/Same.md",
        "Top.md",
    ];
    let mut before: Vec<NotePath> = others.iter().map(|path| note(path)).collect();
    let mut after = before.clone();
    before.push(old.clone());
    after.push(new.clone());
    let there = match relinked_note(&text, &source, &old, &new, &before) {
        Ok(Some(there)) => there,
        Ok(None) => return,
        Err(error) => {
            let lines = text.split('\n').count();
            assert!(
                error.line >= 1 && error.line <= lines,
                "{error}: {lines} lines"
            );
            return;
        }
    };
    // Only link targets changed: the first and the last byte that differ
    // lie in the target of a link (or a frontmatter value holding one).
    let facts = parse_note(&text);
    let mut targets: Vec<(usize, usize)> = Vec::new();
    for link in &facts.wikilinks {
        targets.extend(wikilink_target_span(&text, link.span).map(|span| (span.start, span.end)));
    }
    for link in &facts.markdown_links {
        targets.extend(link.destination.map(|span| (span.start, span.end)));
    }
    targets.extend(
        facts
            .property_links
            .iter()
            .map(|link| (link.span.start, link.span.end)),
    );
    let (old_bytes, new_bytes) = (text.as_bytes(), there.as_bytes());
    let prefix = old_bytes
        .iter()
        .zip(new_bytes)
        .take_while(|(a, b)| a == b)
        .count();
    let room = old_bytes.len().min(new_bytes.len()) - prefix;
    let suffix = old_bytes
        .iter()
        .rev()
        .zip(new_bytes.iter().rev())
        .take(room)
        .take_while(|(a, b)| a == b)
        .count();
    let (first, last) = (prefix, old_bytes.len() - suffix);
    let inside = |at: usize| targets.iter().any(|&(start, end)| start <= at && at <= end);
    assert!(
        inside(first) && inside(last),
        "bytes changed outside a link's target ({first}..{last}): {text:?} -> {there:?}"
    );
    // A round trip (there and back), when neither move is refused, is
    // stable: a second one gives the text the first gave. (A first round
    // trip may change more than a link's way there: a link that led
    // nowhere and took the new name leads back to the old note. Either
    // move may be refused, rightly: a rewritten name can change how the
    // text around it reads, as `[t]( [[New plan]]x)` written `[[Old]]`
    // becomes a Markdown link; the refusal must name a line.)
    let named_a_line = |error: &quire_kiln::RelinkError, text: &str| {
        let lines = text.split('\n').count();
        assert!(
            error.line >= 1 && error.line <= lines,
            "{error}: {lines} lines"
        );
    };
    let round_trip = |text: &str| -> Option<String> {
        let there = match relinked_note(text, &source, &old, &new, &before) {
            Ok(there) => there.unwrap_or_else(|| text.to_owned()),
            Err(error) => {
                named_a_line(&error, text);
                return None;
            }
        };
        match relinked_note(&there, &source, &new, &old, &after) {
            Ok(back) => Some(back.unwrap_or(there)),
            Err(error) => {
                named_a_line(&error, &there);
                None
            }
        }
    };
    if let Some(once) = round_trip(&text) {
        assert_eq!(
            round_trip(&once).as_deref(),
            Some(once.as_str()),
            "a second round trip changed the text, or was refused"
        );
    }
});
