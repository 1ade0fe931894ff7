//! Any bytes, read as (lossy) UTF-8, read as a note's facts: no panic; every
//! span is a range of the text on char boundaries, and the tags, block ids
//! and tasks hold the text their spans cover.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let facts = quire_grammar::markdown::parse_note(&text);
    let spans = facts
        .headings
        .iter()
        .map(|heading| heading.span)
        .chain(facts.wikilinks.iter().map(|link| link.span))
        .chain(facts.markdown_links.iter().map(|link| link.span));
    for span in spans {
        assert!(text.get(span.range()).is_some(), "{span:?}");
    }
    for tag in &facts.inline_tags {
        assert_eq!(text[tag.span.range()], format!("#{}", tag.name));
    }
    for block in &facts.block_ids {
        assert_eq!(text[block.span.range()], format!("^{}", block.id));
    }
    for task in &facts.tasks {
        assert_eq!(text[task.span.range()], task.text);
    }
});
