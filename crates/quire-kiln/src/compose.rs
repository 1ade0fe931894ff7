//! The text of a note as a write leaves it: `create_note`'s from content
//! and properties, `update_note`'s from the note as it is and what changes.
//! Pure text, no file access: the write tools check, then store what this
//! returns.
//!
//! What an update keeps, byte for byte (issue 11, the spec's "Frontmatter-
//! Based Metadata Management"):
//! - content only: the byte-order mark and the whole frontmatter block,
//!   fences and comments included; only the body is new;
//! - properties only: the byte-order mark and the body; the block is
//!   replaced whole (written by [`write_block`]), or added, or removed when
//!   no property is left;
//! - both: a new note, the byte-order mark kept.
//!
//! A new block's line endings follow the note's (`\r\n` when the note's
//! first line ends so), so a CRLF note stays CRLF. A note whose YAML is
//! broken is never rewritten around it: only replacing its properties
//! replaces the broken block. Content that starts with a frontmatter block
//! of its own is refused where it would end up as body text below the
//! note's block, which is never what was meant.

use serde_json::Value;
use thiserror::Error;

use quire_grammar::frontmatter::{
    ParseError, PropertyEditError, WriteError, block_end, parse, write_block,
};

/// Why a note's new text cannot be made.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ComposeError {
    /// Neither content nor properties were given.
    #[error("nothing to change: give `content`, `frontmatter`, or both")]
    NothingToChange,
    /// The properties cannot be written as frontmatter.
    #[error(transparent)]
    Properties(#[from] WriteError),
    /// The note's frontmatter is broken, and the change would keep it.
    #[error(
        "the note's frontmatter is not valid ({0}); it is left as it is: pass `frontmatter` to replace it, \
         or fix it first"
    )]
    BrokenFrontmatter(String),
    /// The content starts with a frontmatter block of its own.
    #[error(
        "`content` starts with a frontmatter block (a `---` line, YAML, `---`), which would {0}; pass the \
         properties as `frontmatter` and the rest as `content`"
    )]
    ContentHasFrontmatter(&'static str),
    /// The whole block and edits of single properties, together.
    #[error(
        "`frontmatter` replaces every property, so it cannot come with `set_properties` or \
         `remove_properties`: give one or the other"
    )]
    WholeAndEdits,
    /// A body edit with `content` or `frontmatter`.
    #[error(
        "an edit changes part of the body, so it cannot come with `content` or `frontmatter`, which \
         replace the body or the properties whole: use update_note for those"
    )]
    EditAndReplace,
    /// A body edit of a note whose frontmatter block cannot be read.
    #[error(
        "the note's frontmatter is broken, so where its body starts is not known; fix the \
         frontmatter first (update_note with `frontmatter`), then edit the body"
    )]
    EditBrokenFrontmatter,
    /// A property both set and removed.
    #[error("the property `{0}` is both set and removed; give it in one of the two")]
    SetAndRemoved(String),
    /// A property cannot be set or removed.
    #[error(transparent)]
    PropertyEdit(#[from] PropertyEditError),
}

/// The text of a new note: `content`, after a block of `properties` when
/// there are any.
pub(crate) fn compose_new(
    content: &str,
    properties: Option<&[(String, Value)]>,
) -> Result<String, ComposeError> {
    let Some(properties) = properties else {
        return Ok(content.to_owned());
    };
    refuse_own_block(content, "come after the properties' block as body text")?;
    let eol = line_ending(content);
    Ok(format!("{}{content}", block(properties, eol)?))
}

/// The text of the note `old` once `content` (its body) and/or
/// `properties` (its whole frontmatter) are replaced.
pub(crate) fn compose_update(
    old: &str,
    content: Option<&str>,
    properties: Option<&[(String, Value)]>,
) -> Result<String, ComposeError> {
    let bom = if old.starts_with('\u{feff}') {
        "\u{feff}"
    } else {
        ""
    };
    let eol = line_ending(&old[bom.len()..]);
    match (content, properties) {
        (None, None) => Err(ComposeError::NothingToChange),
        (Some(content), None) => {
            let document = parse(old).map_err(|error| broken(&error))?;
            match document.frontmatter {
                Some(frontmatter) => {
                    refuse_own_block(content, "come after the note's own block as body text")?;
                    Ok(format!("{}{content}", &old[..frontmatter.span.end]))
                }
                // No block: the content is the whole note.
                None => Ok(format!("{bom}{content}")),
            }
        }
        (None, Some(properties)) => {
            let body = match parse(old) {
                Ok(document) => &old[document.body.range()],
                // The block is broken but found: it is what is replaced.
                Err(error) => &old[block_end(old).ok_or_else(|| broken(&error))?..],
            };
            Ok(format!("{bom}{}{body}", block(properties, eol)?))
        }
        (Some(content), Some(properties)) => {
            refuse_own_block(content, "come after the properties' block as body text")?;
            Ok(format!("{bom}{}{content}", block(properties, eol)?))
        }
    }
}

/// The block of `properties` with line endings `eol`.
fn block(properties: &[(String, Value)], eol: &str) -> Result<String, ComposeError> {
    let block = write_block(properties)?;
    Ok(if eol == "\n" {
        block
    } else {
        block.replace('\n', eol)
    })
}

/// `\r\n` when the first line of `text` ends so, else `\n`.
fn line_ending(text: &str) -> &'static str {
    match text.find('\n') {
        Some(at) if text[..at].ends_with('\r') => "\r\n",
        _ => "\n",
    }
}

fn refuse_own_block(content: &str, would: &'static str) -> Result<(), ComposeError> {
    match parse(content) {
        Ok(document) if document.frontmatter.is_none() => Ok(()),
        // A block of its own, whole or broken: either way it would land in
        // the body.
        _ => Err(ComposeError::ContentHasFrontmatter(would)),
    }
}

fn broken(error: &ParseError) -> ComposeError {
    ComposeError::BrokenFrontmatter(error.to_string())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    /// A new note: its properties as YAML frontmatter, then the body.
    #[test]
    fn a_new_note_gets_its_properties_as_frontmatter() {
        let text = compose_new("# Plan\n", Some(&[("status".into(), json!("draft"))])).unwrap();
        assert_eq!(text, "---\nstatus: draft\n---\n# Plan\n");
    }

    use super::*;

    fn props(pairs: &[(&str, Value)]) -> Vec<(String, Value)> {
        pairs
            .iter()
            .map(|(key, value)| ((*key).to_owned(), value.clone()))
            .collect()
    }

    #[test]
    fn content_only_keeps_the_block_byte_for_byte() {
        let old = "\u{feff}---\r\nstatus: 'x'  # kept\r\n---\r\nold body\r\n";
        let new = compose_update(old, Some("new body\n"), None).unwrap();
        assert_eq!(
            new,
            "\u{feff}---\r\nstatus: 'x'  # kept\r\n---\r\nnew body\n"
        );
        assert_eq!(compose_update("plain\n", Some("x"), None).unwrap(), "x");
        assert_eq!(
            compose_update("\u{feff}plain\n", Some("x"), None).unwrap(),
            "\u{feff}x"
        );
    }

    #[test]
    fn properties_only_keep_the_body_byte_for_byte() {
        let status = props(&[("status", json!("done")), ("tags", json!(["a"]))]);
        let old = "---\r\nstatus: todo # c\r\nother: 1\r\n---\r\n# Body\r\n\r\ntext";
        assert_eq!(
            compose_update(old, None, Some(&status)).unwrap(),
            "---\r\nstatus: done\r\ntags:\r\n  - a\r\n---\r\n# Body\r\n\r\ntext"
        );
        // Added to a note without one; removed when none is left.
        assert_eq!(
            compose_update("# Body\n", None, Some(&status)).unwrap(),
            "---\nstatus: done\ntags:\n  - a\n---\n# Body\n"
        );
        assert_eq!(
            compose_update("---\na: 1\n---\nBody\n", None, Some(&[])).unwrap(),
            "Body\n"
        );
        // A broken block is what a replacement replaces.
        assert_eq!(
            compose_update("---\ntitle: [x\n---\nBody\n", None, Some(&status)).unwrap(),
            "---\nstatus: done\ntags:\n  - a\n---\nBody\n"
        );
    }

    #[test]
    fn properties_from_json_text_are_written_in_its_order() {
        // As a tool call gives them: a JSON object's text, its keys in an
        // order that is not sorted, replacing a block in another order.
        let given: serde_json::Map<String, Value> =
            serde_json::from_str(r#"{"zeta": 1, "alpha": 2, "mid": ["b", "a"]}"#).unwrap();
        let properties: Vec<(String, Value)> = given.into_iter().collect();
        let block = "---\nzeta: 1\nalpha: 2\nmid:\n  - b\n  - a\n---\n";
        assert_eq!(
            compose_new("Body\n", Some(&properties)).unwrap(),
            format!("{block}Body\n")
        );
        let old = "---\nalpha: 0\nmid: []\nzeta: 0\n---\nBody\n";
        assert_eq!(
            compose_update(old, None, Some(&properties)).unwrap(),
            format!("{block}Body\n")
        );
    }

    #[test]
    fn a_broken_note_is_not_rewritten_around_its_block() {
        for old in ["---\ntitle: [x\n---\nBody\n", "---\nnever closed\n"] {
            let error = compose_update(old, Some("new\n"), None).unwrap_err();
            assert!(
                matches!(error, ComposeError::BrokenFrontmatter(_)),
                "{error}"
            );
            assert!(
                error
                    .to_string()
                    .contains("pass `frontmatter` to replace it")
            );
        }
        let error = compose_update("---\nnever closed\n", None, Some(&[])).unwrap_err();
        assert!(
            matches!(error, ComposeError::BrokenFrontmatter(_)),
            "{error}"
        );
    }

    #[test]
    fn content_with_its_own_block_is_refused_where_it_would_become_body() {
        let with_block = "---\ntitle: x\n---\nBody\n";
        let status = props(&[("status", json!("x"))]);
        for error in [
            compose_update("---\na: 1\n---\nold\n", Some(with_block), None),
            compose_update("old\n", Some(with_block), Some(&status)),
            compose_new(with_block, Some(&status)),
        ] {
            assert!(
                matches!(error, Err(ComposeError::ContentHasFrontmatter(_))),
                "{error:?}"
            );
        }
        // Without a block to keep, content is the whole note.
        assert_eq!(
            compose_update("old\n", Some(with_block), None).unwrap(),
            with_block
        );
        assert_eq!(compose_new(with_block, None).unwrap(), with_block);
    }

    proptest::proptest! {
        /// Whatever the note and the change, what an update keeps is kept
        /// byte for byte and what it writes reads back.
        #[test]
        fn updates_keep_what_they_do_not_change(
            keys in proptest::collection::btree_set("[a-z]{1,6}", 0..4),
            value in "\\PC{0,10}",
            body in "([^-](\\PC|\n){0,40})?",
            content in "[^-](\\PC|\n){0,40}",
            crlf in proptest::bool::ANY,
        ) {
            let properties: Vec<(String, Value)> =
                keys.iter().map(|key| (key.clone(), json!(value))).collect();
            let mut old = compose_new(&body, Some(&properties)).unwrap();
            if crlf {
                old = old.replace('\n', "\r\n");
            }
            let block_len = parse(&old).unwrap().body.start;
            let new = compose_update(&old, Some(&content), None).unwrap();
            proptest::prop_assert_eq!(&new[..block_len], &old[..block_len]);
            proptest::prop_assert_eq!(&new[block_len..], content.as_str());

            let swapped: Vec<(String, Value)> =
                properties.iter().rev().map(|(key, _)| (key.clone(), json!(1))).collect();
            let new = compose_update(&old, None, Some(&swapped)).unwrap();
            let document = parse(&new).unwrap();
            proptest::prop_assert_eq!(&new[document.body.range()], &old[block_len..]);
            let read = document.frontmatter.map(|f| f.values).unwrap_or_default();
            proptest::prop_assert_eq!(read.len(), swapped.len());
        }
    }

    #[test]
    fn nothing_to_change_and_bad_properties_say_what_to_pass() {
        assert_eq!(
            compose_update("x", None, None),
            Err(ComposeError::NothingToChange)
        );
        let twice = props(&[("a", json!(1)), ("a", json!(2))]);
        let error = compose_new("x", Some(&twice)).unwrap_err();
        assert!(error.to_string().contains("`a` is given twice"), "{error}");
    }
}
