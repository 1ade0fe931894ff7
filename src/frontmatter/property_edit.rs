//! Setting or removing one top-level property in place: the entry's own
//! bytes are rewritten (or the entry added before the closing fence, or the
//! block added), and every other byte of the text, comments included, is
//! kept.
//!
//! [`set_scalar`](super::set_scalar) keeps a scalar's quoting style but
//! takes only strings and only keys that exist; this takes any JSON value
//! (a list of tags, a number, `null`) and adds a key that is missing, by
//! writing the entry as [`write_block`](super::write_block) writes it. Like
//! `set_scalar`, the result is read back before it is returned: the key
//! must read as the value and every other property as before, else the
//! edit is abandoned.

use serde_json::Value;

use super::document::{Document, Entry};
use super::error::{ParseError, shown_key};
use super::parse::parse;
use super::write::{WriteError, write_block};

/// Why [`set_property`] or [`remove_property`] did not produce a text. The
/// input text is never changed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PropertyEditError {
    /// The frontmatter could not be read, so it cannot be edited safely.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// The value cannot be written as a property (an empty key).
    #[error(transparent)]
    Write(#[from] WriteError),
    /// The property to remove is not there.
    #[error("the frontmatter has no property `{}` to remove", shown_key(.0))]
    Missing(String),
    /// The edited text did not read back as intended; it was discarded.
    #[error(
        "changing `{}` was abandoned because the edited text did not read back as intended \
         ({reason}); the text was not changed",
        shown_key(.key)
    )]
    NotVerified {
        /// The property being changed.
        key: String,
        /// What read back differently.
        reason: String,
    },
}

// frontmatter.ebnf: written-entry
/// `text` with the top-level property `key` set to `value`: its entry
/// rewritten in place (a comment after a one-line value stays after the new
/// value), or added before the closing `---` when missing, or a block made
/// for it when the text has none. Line endings follow the text's.
///
/// ```
/// use quire_grammar::frontmatter::set_property;
/// use serde_json::json;
///
/// let text = "---\ntitle: Plan # mine\ntags: [a]\n---\nBody\n";
/// assert_eq!(
///     set_property(text, "tags", &json!(["a", "b"])).unwrap(),
///     "---\ntitle: Plan # mine\ntags:\n  - a\n  - b\n---\nBody\n"
/// );
/// assert_eq!(
///     set_property(text, "done", &json!(true)).unwrap(),
///     "---\ntitle: Plan # mine\ntags: [a]\ndone: true\n---\nBody\n"
/// );
/// assert_eq!(set_property("Body\n", "count", &json!(3)).unwrap(), "---\ncount: 3\n---\nBody\n");
/// ```
pub fn set_property(text: &str, key: &str, value: &Value) -> Result<String, PropertyEditError> {
    let document = parse(text)?;
    let eol = line_ending(text, &document);
    let entry = written_entry(key, value, eol)?;
    let edited = match &document.frontmatter {
        None => {
            let bom = document.bom.map_or("", |bom| &text[bom.range()]);
            format!("{bom}---{eol}{entry}{eol}---{eol}{}", &text[bom.len()..])
        }
        Some(frontmatter) => match frontmatter.entry(key) {
            Some(old) => {
                let start = old.key.span.start;
                format!("{}{entry}{}", &text[..start], &text[old.value.end..])
            }
            None => {
                let at = frontmatter.close.start;
                format!("{}{entry}{eol}{}", &text[..at], &text[at..])
            }
        },
    };
    verify(&document, &edited, key, Some(value))?;
    Ok(edited)
}

/// `text` without the top-level property `key`: the lines of its entry
/// removed, with the blank and indented lines after it (a comment on its
/// line goes with it, comment lines at the first column after it stay).
///
/// ```
/// use quire_grammar::frontmatter::remove_property;
///
/// let text = "---\ntitle: Plan\ntags:\n  - a\n# kept\nn: 1\n---\nBody\n";
/// assert_eq!(remove_property(text, "tags").unwrap(), "---\ntitle: Plan\n# kept\nn: 1\n---\nBody\n");
/// assert!(remove_property(text, "status").is_err());
/// ```
pub fn remove_property(text: &str, key: &str) -> Result<String, PropertyEditError> {
    let document = parse(text)?;
    let entry = document
        .frontmatter
        .as_ref()
        .and_then(|frontmatter| frontmatter.entry(key))
        .ok_or_else(|| PropertyEditError::Missing(key.to_owned()))?;
    let (start, end) = entry_lines(text, entry);
    let edited = format!("{}{}", &text[..start], &text[end..]);
    verify(&document, &edited, key, None)?;
    Ok(edited)
}

/// The entry `key: value` as `write_block` writes it, without its last
/// line ending, in the text's line endings.
fn written_entry(key: &str, value: &Value, eol: &str) -> Result<String, WriteError> {
    let block = write_block(&[(key.to_owned(), value.clone())])?;
    let entry = block
        .strip_prefix("---\n")
        .and_then(|rest| rest.strip_suffix("\n---\n"))
        .unwrap_or_default();
    Ok(entry.replace('\n', eol))
}

/// From the start of the entry's first line to the end of its last line,
/// line ending included, and the blank or indented lines after it (an
/// indented comment under the value): left behind, they would join a block
/// scalar above (`|`, `|+`). A line at the first column (the next key, a
/// comment, the closing fence) ends it.
fn entry_lines(text: &str, entry: &Entry) -> (usize, usize) {
    let start = text[..entry.key.span.start]
        .rfind('\n')
        .map_or(0, |newline| newline + 1);
    let mut end = text[entry.value.end..]
        .find('\n')
        .map_or(text.len(), |newline| entry.value.end + newline + 1);
    while let Some(line) = text[end..].split_inclusive('\n').next()
        && line.ends_with('\n')
        && (line.trim().is_empty() || line.starts_with([' ', '\t']))
    {
        end += line.len();
    }
    (start, end)
}

/// `\r\n` when the frontmatter (or, without one, the text's first line)
/// ends its lines so.
fn line_ending(text: &str, document: &Document) -> &'static str {
    let head = match &document.frontmatter {
        Some(frontmatter) => &text[frontmatter.span.range()],
        None => text.split_inclusive('\n').next().unwrap_or(""),
    };
    if head.contains("\r\n") { "\r\n" } else { "\n" }
}

/// Refuses `edited` unless it reads back with `key` as `wanted` (absent for
/// `None`) and every other property as in `before`.
fn verify(
    before: &Document,
    edited: &str,
    key: &str,
    wanted: Option<&Value>,
) -> Result<(), PropertyEditError> {
    let not_verified = |reason: String| PropertyEditError::NotVerified {
        key: key.to_owned(),
        reason,
    };
    let after = parse(edited).map_err(|error| not_verified(error.to_string()))?;
    let empty = serde_json::Map::new();
    let old = before.frontmatter.as_ref().map_or(&empty, |fm| &fm.values);
    let new = after.frontmatter.as_ref().map_or(&empty, |fm| &fm.values);
    if new.get(key) != wanted {
        return Err(not_verified(format!(
            "it reads back as {}",
            new.get(key)
                .map_or("absent".to_owned(), ToString::to_string)
        )));
    }
    let others_kept = old.iter().filter(|(k, _)| *k != key).count()
        == new.iter().filter(|(k, _)| *k != key).count()
        && old
            .iter()
            .filter(|(k, _)| *k != key)
            .all(|(k, v)| new.get(k) == Some(v));
    if !others_kept {
        return Err(not_verified("another property changed".to_owned()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_value_is_set_in_place_keeping_every_other_byte() {
        let text = "---\r\n# top\r\nstatus: todo # board\r\ntags:\r\n  - a\r\n# after tags\r\nn: 1\r\n---\r\nBody\r\n";
        assert_eq!(
            set_property(text, "status", &json!("done")).unwrap(),
            "---\r\n# top\r\nstatus: done # board\r\ntags:\r\n  - a\r\n# after tags\r\nn: 1\r\n---\r\nBody\r\n"
        );
        assert_eq!(
            set_property(text, "tags", &json!(["a", "x y"])).unwrap(),
            "---\r\n# top\r\nstatus: todo # board\r\ntags:\r\n  - a\r\n  - x y\r\n# after tags\r\nn: 1\r\n---\r\nBody\r\n"
        );
        assert_eq!(
            set_property(text, "due", &Value::Null).unwrap(),
            "---\r\n# top\r\nstatus: todo # board\r\ntags:\r\n  - a\r\n# after tags\r\nn: 1\r\ndue:\r\n---\r\nBody\r\n"
        );
        assert_eq!(
            set_property("\u{feff}Body\n", "count", &json!(2)).unwrap(),
            "\u{feff}---\ncount: 2\n---\nBody\n"
        );
        assert_eq!(
            set_property("---\n---\nBody\n", "count", &json!("3")).unwrap(),
            "---\ncount: \"3\"\n---\nBody\n"
        );
    }

    #[test]
    fn a_property_is_removed_with_its_lines_only() {
        let text = "---\nstatus: todo # board\naliases: [A, B]\nn:\n---\nBody\n";
        assert_eq!(
            remove_property(text, "status").unwrap(),
            "---\naliases: [A, B]\nn:\n---\nBody\n"
        );
        assert_eq!(
            remove_property(text, "n").unwrap(),
            "---\nstatus: todo # board\naliases: [A, B]\n---\nBody\n"
        );
        assert_eq!(
            remove_property(text, "nope"),
            Err(PropertyEditError::Missing("nope".into()))
        );
        // Found by the property test: lines left behind would join the
        // block scalar above (its kept blank lines, an indented comment).
        let kept = "---\na0: |+\n  kept\n\n\na1: a\n\na2: A\n---\n";
        assert_eq!(
            remove_property(kept, "a1").unwrap(),
            "---\na0: |+\n  kept\n\n\na2: A\n---\n"
        );
        let commented = "---\na1: |\n  one\n\na2: !!str # tag\n  # and a comment\na3: a\n---\n";
        assert_eq!(
            remove_property(commented, "a2").unwrap(),
            "---\na1: |\n  one\n\na3: a\n---\n"
        );
    }

    #[test]
    fn what_cannot_be_read_or_written_is_refused() {
        assert!(matches!(
            set_property("---\na: [\n---\n", "a", &json!(1)),
            Err(PropertyEditError::Parse(_))
        ));
        assert!(matches!(
            set_property("---\na: 1\n---\n", "", &json!(1)),
            Err(PropertyEditError::Write(WriteError::EmptyKey))
        ));
        // An anchor another value names: changing it would change that one.
        assert!(matches!(
            set_property("---\na: &x 1\nb: *x\n---\n", "a", &json!(2)),
            Err(PropertyEditError::Parse(_) | PropertyEditError::NotVerified { .. })
        ));
    }
}
