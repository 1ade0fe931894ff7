//! [`parse`], which ties the block (`block.rs`), the top-level key locator
//! (`entries.rs`) and the YAML reader (`yaml.rs`) together.

use std::collections::HashMap;

use super::block::split;
use super::document::{Document, Frontmatter};
use super::entries::{self, RawEntry};
use super::error::ParseError;
use super::yaml;
use crate::span::Span;
use crate::text::line_number;

/// Parses a text's frontmatter: finds the block, locates its top-level keys
/// and reads its YAML.
///
/// A text that does not start with a `---` line (after an optional byte-order
/// mark) has no frontmatter: the result's `frontmatter` is `None` and its
/// body is the whole text. Never panics.
///
/// ```
/// use quire_grammar::frontmatter::{parse, Code, ValueLayout};
///
/// let text = "\u{feff}---\r\ntags:\r\n- a\r\nstatus: 'to do'\r\n---\r\nBody\r\n";
/// let document = parse(text).unwrap();
/// let frontmatter = document.frontmatter.unwrap();
/// let status = frontmatter.entry("status").unwrap();
/// assert_eq!(&text[status.value.range()], "'to do'");
/// assert_eq!(frontmatter.get("status"), Some(&"to do".into()));
/// assert_eq!(frontmatter.entry("tags").unwrap().layout, ValueLayout::BlockCollection);
/// assert_eq!(&text[document.body.range()], "Body\r\n");
///
/// assert!(parse("# No frontmatter\n").unwrap().frontmatter.is_none());
/// assert_eq!(parse("---\ntitle: x\n").unwrap_err().code(), Code::Unclosed);
/// ```
pub fn parse(text: &str) -> Result<Document, ParseError> {
    let split = split(text)?;
    let Some(block) = split.block else {
        return Ok(Document {
            bom: split.bom,
            frontmatter: None,
            body: split.body,
        });
    };
    check_line_endings(text, block.yaml)?;
    let located = entries::locate(text, &block.lines);
    check_duplicates(text, &located.entries)?;
    let values = yaml::read_mapping(text, block.yaml, &block.lines)?;
    if let Some(unsupported) = located.unsupported {
        return Err(unsupported);
    }
    entries::check_keys(text, block.yaml, &located.entries, &values)?;
    let entries = located
        .entries
        .into_iter()
        .map(|raw| {
            let value = values.get(&raw.key.value);
            entries::finish(text, raw, value)
        })
        .collect();
    Ok(Document {
        bom: split.bom,
        frontmatter: Some(Frontmatter {
            span: block.span,
            open: block.open,
            yaml: block.yaml,
            close: block.close,
            entries,
            values,
        }),
        body: split.body,
    })
}

/// YAML reads a lone `\r` (one no `\n` follows) as a line break, so with
/// one in the YAML its lines are not the lines found here, and no span could
/// be trusted: refused, at the `\r`.
fn check_line_endings(text: &str, yaml: Span) -> Result<(), ParseError> {
    let bytes = &text.as_bytes()[yaml.range()];
    let lone = memchr::memchr_iter(b'\r', bytes).find(|&at| bytes.get(at + 1) != Some(&b'\n'));
    match lone {
        None => Ok(()),
        Some(offset) => {
            let at = yaml.start + offset;
            Err(ParseError::UnsupportedSyntax {
                reason: "it holds a carriage return (`\\r`) that no line feed follows, which \
                         YAML reads as a line break; end every line with `\\n` or `\\r\\n`"
                    .into(),
                span: Span::new(at, at + 1),
                line: line_number(text, at),
            })
        }
    }
}

fn check_duplicates(text: &str, entries: &[RawEntry]) -> Result<(), ParseError> {
    let mut seen: HashMap<&str, Span> = HashMap::with_capacity(entries.len());
    for entry in entries {
        if let Some(&first) = seen.get(entry.key.value.as_str()) {
            return Err(ParseError::DuplicateKey {
                key: entry.key.value.clone(),
                span: entry.key.span,
                line: line_number(text, entry.key.span.start),
                first,
                first_line: line_number(text, first.start),
            });
        }
        seen.insert(&entry.key.value, entry.key.span);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontmatter::{Code, ValueLayout};

    #[test]
    fn fences_in_the_body_are_body() {
        let text = "---\na: 1\n---\ntext\n---\nmore\n---\n";
        let document = parse(text).unwrap();
        assert_eq!(&text[document.body.range()], "text\n---\nmore\n---\n");
        assert_eq!(document.frontmatter.unwrap().values.len(), 1);
    }

    #[test]
    fn parse_reads_values_and_entries() {
        let text = "---\n# about\ntitle: Notes  # c\ncount: 3\ntags: [a, b]\n---\n";
        let frontmatter = parse(text).unwrap().frontmatter.unwrap();
        assert_eq!(frontmatter.get("count"), Some(&3.into()));
        let keys: Vec<&str> = frontmatter.entries.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(keys, ["title", "count", "tags"]);
        let title = frontmatter.entry("title").unwrap();
        assert_eq!(&text[title.key.span.range()], "title");
        assert_eq!(&text[title.value.range()], "Notes");
        let tags = frontmatter.entry("tags").unwrap();
        assert_eq!(tags.layout, ValueLayout::FlowCollection);
        assert_eq!(&text[tags.value.range()], "[a, b]");
    }

    #[test]
    fn empty_and_comment_only_blocks_are_empty_mappings() {
        for text in ["---\n---\n", "---\n\n# just a comment\n\n---\n"] {
            let frontmatter = parse(text).unwrap().frontmatter.unwrap();
            assert!(frontmatter.values.is_empty());
            assert!(frontmatter.entries.is_empty());
        }
    }

    #[test]
    fn duplicate_keys_are_an_error_at_the_second() {
        let text = "---\na: 1\nb: 2\n'a': 3\n---\n";
        let error = parse(text).unwrap_err();
        assert_eq!(error.code(), Code::DuplicateKey);
        assert_eq!(&text[error.span().range()], "'a'");
        assert_eq!(
            error.to_string(),
            "the key `a` appears twice in the frontmatter (lines 2 and 4): YAML keys must be \
             unique, so remove or rename one of them"
        );
    }

    #[test]
    fn keys_the_locator_cannot_place_are_errors_not_guesses() {
        for (text, spanned) in [
            ("---\na: 1\n? b\n: 2\n---\n", "? b"),
            ("---\nbase: &b {x: 1}\n<<: *b\n---\n", "<<"),
            ("---\n  a: 1\n  b: 2\n---\n", "  a: 1"),
        ] {
            let error = parse(text).unwrap_err();
            assert_eq!(error.code(), Code::UnsupportedSyntax, "{text:?}");
            assert_eq!(&text[error.span().range()], spanned);
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let flow = format!("---\na: {}\n---\n", "[".repeat(100_000));
        assert_eq!(parse(&flow).unwrap_err().code(), Code::LimitExceeded);
        let mut block = String::from("---\n");
        for depth in 0..200 {
            block.push_str(&" ".repeat(depth));
            block.push_str("k:\n");
        }
        block.push_str("---\n");
        assert_eq!(parse(&block).unwrap_err().code(), Code::LimitExceeded);
    }

    #[test]
    fn a_lone_carriage_return_in_the_yaml_is_refused_at_it() {
        // Found by fuzzing (frontmatter_parse): YAML reads `x\r y` as two
        // lines, and a `\r` in a comment can hide a line of a block scalar,
        // so no line-by-line span is sound.
        for (text, at) in [
            ("---\na: x\r y\n---\n", 8),
            ("---\na: 1\nb: 'c\r d'\n---\n", 14),
            ("---\nliteral: | # c\r\r breaks\n---\n", 18),
            ("---\r\na: x\rb: y\r\n---\r\n", 9),
        ] {
            let error = parse(text).unwrap_err();
            assert_eq!(error.code(), Code::UnsupportedSyntax, "{text:?}");
            assert_eq!(error.span(), Span::new(at, at + 1), "{text:?}");
            let refused = crate::frontmatter::set_scalar(text, "a", "z").unwrap_err();
            assert_eq!(refused.code(), Code::UnsupportedSyntax);
        }
        assert_eq!(
            parse("---\na: x\r y\n---\n").unwrap_err().to_string(),
            "line 2 of the frontmatter is not a top-level entry quire can locate: it holds a \
             carriage return (`\\r`) that no line feed follows, which YAML reads as a line \
             break; end every line with `\\n` or `\\r\\n`; write top-level entries as \
             `key: value` with the key at the first column (a plain, 'single-quoted' or \
             \"double-quoted\" key on one line)"
        );
        // In the body, and as CRLF line endings, it is fine.
        assert!(parse("---\r\na: x\r\n---\r\nbody\rmore\n").is_ok());
    }
}
