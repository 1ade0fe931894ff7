//! In-place edits: rewrite the bytes of one top-level scalar value and keep
//! every other byte of the text, then prove it by reading the result back.

use super::document::{Document, Entry, Frontmatter, ValueLayout};
use super::entries::{Replacement, replacement};
use super::error::{EditError, shown_key};
use super::parse::parse;
use super::scalar;
use crate::span::Span;

/// Sets the top-level key `key` to the string `value`, changing only the
/// bytes of its current value.
///
/// The new value is written plain when YAML reads it back as the same string,
/// and quoted otherwise (it contains `: ` or ` #`, starts with a character
/// such as `-`, `[`, `&`, `'` or a digit, looks like a number, boolean or
/// null, has leading or trailing whitespace, or holds control characters or
/// line breaks, which are escaped). A single-quoted value stays single-quoted
/// (with `'` doubled) unless the new value has a line break or another
/// control character; a double-quoted value stays double-quoted. An empty
/// value (`key:`) gets a space and the new value after its colon.
///
/// Comments (also one after the value on the same line), key order, line
/// endings, whitespace and the body are kept byte for byte. The result is
/// parsed again before it is returned: the key must read back as exactly
/// `value` and every other top-level value must be unchanged, otherwise the
/// result is discarded and [`EditError::EditNotVerified`] returned.
///
/// Refused: text without frontmatter, frontmatter that does not parse
/// (duplicate keys included), a missing key, and a value that is not a
/// single-line scalar (block scalars, flow or nested collections, scalars
/// spanning lines, aliases, anchored or tagged values).
///
/// ```
/// use quire_grammar::frontmatter::{set_scalar, Code};
///
/// let text = "---\r\nstatus: 'todo' # tracker\r\nn: 1\r\n---\r\nBody\r\n";
/// assert_eq!(
///     set_scalar(text, "status", "won't fix").unwrap(),
///     "---\r\nstatus: 'won''t fix' # tracker\r\nn: 1\r\n---\r\nBody\r\n"
/// );
/// assert_eq!(
///     set_scalar(text, "n", "2").unwrap(),
///     "---\r\nstatus: 'todo' # tracker\r\nn: \"2\"\r\n---\r\nBody\r\n"
/// );
/// let error = set_scalar("---\ntags:\n- a\n---\n", "tags", "b").unwrap_err();
/// assert_eq!(error.code(), Code::NotAScalar);
/// ```
pub fn set_scalar(text: &str, key: &str, value: &str) -> Result<String, EditError> {
    let document = parse(text)?;
    let frontmatter = document
        .frontmatter
        .as_ref()
        .ok_or_else(|| EditError::NoFrontmatter { key: key.into() })?;
    let entry = frontmatter
        .entry(key)
        .ok_or_else(|| missing_key(frontmatter, key))?;
    if !entry.layout.is_single_line_scalar() {
        return Err(EditError::NotAScalar {
            key: key.into(),
            layout: entry.layout,
            span: entry.value,
        });
    }
    let place = Replacement {
        head: entry.value,
        tail: None,
    };
    rewrite(
        text,
        &document,
        frontmatter,
        entry,
        value,
        entry.layout,
        place,
    )
}

/// Sets the top-level key `key` to the string `value` like [`set_scalar`],
/// and also replaces a scalar that `set_scalar` leaves alone: a block scalar
/// (`key: >-` and its lines), a tagged scalar (`key: !!str value`), an alias
/// (`key: *name`), a scalar continued on the lines below its key (plain or
/// quoted, also one that starts on the line below `key:`), or one of these
/// with a tag before it.
///
/// Such a value is replaced as a whole (its tag, its block header and its
/// lines below the key's line) by `value` written as a single-line scalar on
/// the key's line: plain when YAML reads it back as the same string,
/// double-quoted otherwise. A comment on the key's line and comment lines
/// after the value stay, and so does every other byte of the text. A plain,
/// quoted or empty value is left to [`set_scalar`] and keeps its style.
///
/// Refused ([`EditError::NotReplaceable`], saying why): a value that YAML
/// reads as a list or a mapping, one with an anchor (`&name`: an alias
/// elsewhere may name it), a comment line between the key and a value that
/// starts below it, and a value whose tag, anchor or block header is on a
/// line below its key. Everything [`set_scalar`] refuses for other reasons
/// is refused the same way, and the result is read back and checked the
/// same way.
///
/// ```
/// use quire_grammar::frontmatter::{replace_scalar, Code};
///
/// let text = "---\nstatus: >- # set by the board\n  Applied\nnext: x\n---\nBody\n";
/// assert_eq!(
///     replace_scalar(text, "status", "Interview").unwrap(),
///     "---\nstatus: Interview # set by the board\nnext: x\n---\nBody\n"
/// );
/// assert_eq!(
///     replace_scalar("---\nstatus: !!str Applied\n---\n", "status", "Offer").unwrap(),
///     "---\nstatus: Offer\n---\n"
/// );
/// let anchored = replace_scalar("---\na: &s x\nb: *s\n---\n", "a", "y").unwrap_err();
/// assert_eq!(anchored.code(), Code::NotReplaceable);
/// ```
pub fn replace_scalar(text: &str, key: &str, value: &str) -> Result<String, EditError> {
    let document = parse(text)?;
    let frontmatter = document
        .frontmatter
        .as_ref()
        .ok_or_else(|| EditError::NoFrontmatter { key: key.into() })?;
    let entry = frontmatter
        .entry(key)
        .ok_or_else(|| missing_key(frontmatter, key))?;
    if entry.layout.is_single_line_scalar() {
        let place = Replacement {
            head: entry.value,
            tail: None,
        };
        return rewrite(
            text,
            &document,
            frontmatter,
            entry,
            value,
            entry.layout,
            place,
        );
    }
    let refused = |reason: &'static str| EditError::NotReplaceable {
        key: key.into(),
        layout: entry.layout,
        reason,
        span: entry.value,
    };
    let is_collection = matches!(
        frontmatter.get(key),
        Some(serde_json::Value::Array(_) | serde_json::Value::Object(_))
    );
    if is_collection
        || matches!(
            entry.layout,
            ValueLayout::FlowCollection | ValueLayout::BlockCollection
        )
    {
        return Err(refused("it is a list or a mapping, not a scalar"));
    }
    let place = replacement(text, entry).map_err(refused)?;
    rewrite(
        text,
        &document,
        frontmatter,
        entry,
        value,
        ValueLayout::Plain,
        place,
    )
}

/// Writes `value` in the style of a `style` value in place of the
/// replacement's head (after a space when the head is empty: right after a
/// colon) and removes its tail, then reads the result back.
fn rewrite(
    text: &str,
    document: &Document,
    frontmatter: &Frontmatter,
    entry: &Entry,
    value: &str,
    style: ValueLayout,
    Replacement { head, tail }: Replacement,
) -> Result<String, EditError> {
    let key = &entry.key.value;
    let not_verified = |reason: String| EditError::EditNotVerified {
        key: key.clone(),
        reason,
        span: entry.value,
    };
    let written = scalar::render(value, style);
    let (kept, removed) = match tail {
        Some(tail) if tail.start >= head.end => (tail.start, tail.end),
        Some(tail) => {
            return Err(not_verified(format!(
                "the lines to remove ({tail}) overlap the value"
            )));
        }
        None => (head.end, head.end),
    };
    let start = if head.is_empty() {
        head.start + 1
    } else {
        head.start
    };
    let mut edited = String::with_capacity(text.len() + written.len() + 1);
    edited.push_str(&text[..head.start]);
    if head.is_empty() {
        edited.push(' ');
    }
    edited.push_str(&written);
    edited.push_str(&text[head.end..kept]);
    edited.push_str(&text[removed..]);
    verify(
        text,
        document,
        frontmatter,
        key,
        &edited,
        Span::new(start, start + written.len()),
        value,
    )
    .map_err(not_verified)?;
    Ok(edited)
}

fn missing_key(frontmatter: &Frontmatter, key: &str) -> EditError {
    let keys: Vec<&str> = frontmatter
        .entries
        .iter()
        .map(|entry| entry.key.as_str())
        .collect();
    EditError::MissingKey {
        key: key.into(),
        // Each key quoted, so a key that reads like words (or like a
        // message) is not taken for the message's own text; a backtick in
        // a key would end the quote, so it is shown as `'`.
        available: if keys.is_empty() {
            "none".into()
        } else {
            keys.iter()
                .map(|key| format!("`{}`", shown_key(key)))
                .collect::<Vec<_>>()
                .join(", ")
        },
        span: frontmatter.yaml,
    }
}

/// Reads `edited` back and checks that only the value of `key` changed, to
/// exactly `value`, written at `written` as a single-line scalar.
fn verify(
    text: &str,
    before: &Document,
    frontmatter: &Frontmatter,
    key: &str,
    edited: &str,
    written: Span,
    value: &str,
) -> Result<(), String> {
    let after = parse(edited).map_err(|error| format!("the result does not parse: {error}"))?;
    let edited_frontmatter = after
        .frontmatter
        .as_ref()
        .ok_or("the result has no frontmatter")?;

    let new_entry = edited_frontmatter
        .entry(key)
        .ok_or("the key is gone from the result")?;
    if new_entry.value != written {
        return Err(format!(
            "the new value was read at {} instead of where it was written",
            new_entry.value
        ));
    }
    if !new_entry.layout.is_single_line_scalar() {
        return Err(format!("the new value reads as {}", new_entry.layout));
    }
    match edited_frontmatter.get(key) {
        Some(serde_json::Value::String(read)) if read == value => {}
        other => {
            return Err(format!(
                "the key reads back as {}",
                other.map_or("nothing".into(), ToString::to_string)
            ));
        }
    }

    let keys_before = frontmatter.entries.iter().map(|e| &e.key.value);
    let keys_after = edited_frontmatter.entries.iter().map(|e| &e.key.value);
    if !keys_before.eq(keys_after) {
        return Err("the top-level keys changed".into());
    }
    let mut expected = frontmatter.values.clone();
    expected.insert(key.to_owned(), value.into());
    if expected != edited_frontmatter.values {
        return Err("another top-level value changed".into());
    }

    let shift = edited.len() as isize - text.len() as isize;
    let body = after.body;
    if body.len() != before.body.len() || body.start as isize - before.body.start as isize != shift
    {
        return Err("the body moved".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontmatter::Code;

    fn set(text: &str, key: &str, value: &str) -> String {
        set_scalar(text, key, value).unwrap_or_else(|e| panic!("{text:?} {key}={value:?}: {e}"))
    }

    fn refused(text: &str, key: &str) -> EditError {
        set_scalar(text, key, "new").unwrap_err()
    }

    const NOTE: &str = "\u{feff}---\r\n\
        # Tracker fields\r\n\
        title: \"Parser: plan\"   # shown in lists\r\n\
        status: todo # set by the tracker\r\n\
        owner: 'ann'\r\n\
        tags:\r\n\
        - a\r\n\
        - b\r\n\
        note: |\r\n\
        \x20 status: not this one\r\n\
        empty:\r\n\
        \r\n\
        ---\r\n\
        status: body text\r\n\
        ---\r\n";

    #[test]
    fn only_the_value_bytes_change() {
        assert_eq!(
            set(NOTE, "status", "in review"),
            NOTE.replace("status: todo #", "status: in review #")
        );
        assert_eq!(
            set(NOTE, "status", "done: shipped"),
            NOTE.replace("status: todo #", "status: \"done: shipped\" #")
        );
        assert_eq!(
            set(NOTE, "title", "Plan \"B\""),
            NOTE.replace(r#""Parser: plan"   #"#, r#""Plan \"B\""   #"#)
        );
        assert_eq!(
            set(NOTE, "owner", "o'neil"),
            NOTE.replace("owner: 'ann'", "owner: 'o''neil'")
        );
        assert_eq!(
            set(NOTE, "empty", "now set"),
            NOTE.replace("empty:\r\n", "empty: now set\r\n")
        );
    }

    #[test]
    fn values_that_need_quotes_are_quoted() {
        let text = "---\na: x\n---\n";
        for (value, written) in [
            ("a: b", "\"a: b\""),
            ("#tag", "\"#tag\""),
            ("x #y", "\"x #y\""),
            ("- x", "\"- x\""),
            ("7", "\"7\""),
            ("false", "\"false\""),
            ("NULL", "\"NULL\""),
            (" padded ", "\" padded \""),
            ("", "\"\""),
            ("l1\nl2", "\"l1\\nl2\""),
        ] {
            assert_eq!(set(text, "a", value), format!("---\na: {written}\n---\n"));
        }
    }

    #[test]
    fn non_ascii_values() {
        let text = "---\ntitle: old\nnext: 1\n---\n";
        assert_eq!(
            set(text, "title", "Überblick — 日本 ✓"),
            "---\ntitle: Überblick — 日本 ✓\nnext: 1\n---\n"
        );
        let text = "---\ntitle: 'ünï'\n---\n";
        assert_eq!(set(text, "title", "ça va"), "---\ntitle: 'ça va'\n---\n");
    }

    #[test]
    fn trailing_comment_and_whitespace_are_kept() {
        let text = "---\na: 1 \t# one\t\nb: x\t\n---\nbody";
        assert_eq!(
            set(text, "a", "two"),
            "---\na: two \t# one\t\nb: x\t\n---\nbody"
        );
        assert_eq!(
            set(text, "b", "z"),
            "---\na: 1 \t# one\t\nb: z\t\n---\nbody"
        );
    }

    #[test]
    fn empty_values_keep_their_comment() {
        assert_eq!(
            set("---\na:   # c\n---\n", "a", "v"),
            "---\na: v   # c\n---\n"
        );
        assert_eq!(set("---\na:\n---", "a", "v"), "---\na: v\n---");
    }

    #[test]
    fn closing_fence_at_end_of_file_and_dots() {
        assert_eq!(set("---\na: x\n---", "a", "z"), "---\na: z\n---");
        assert_eq!(
            set("---\na: x\n...\n---\n", "a", "z"),
            "---\na: z\n...\n---\n"
        );
        // `y` and `n` are booleans in YAML 1.1: quoted.
        assert_eq!(set("---\na: x\n---", "a", "y"), "---\na: \"y\"\n---");
    }

    #[test]
    fn quoted_keys_are_found_by_their_value() {
        assert_eq!(
            set("---\n'my key': x\n\"k\\u00e9\": y\n---\n", "ké", "z"),
            "---\n'my key': x\n\"k\\u00e9\": z\n---\n"
        );
        assert_eq!(
            set("---\n'my key': x\n---\n", "my key", "z"),
            "---\n'my key': z\n---\n"
        );
    }

    #[test]
    fn refuses_values_that_are_not_single_line_scalars() {
        for (text, layout) in [
            ("---\nk: |\n  x\n---\n", ValueLayout::BlockScalar),
            ("---\nk: >-\n  x\n---\n", ValueLayout::BlockScalar),
            ("---\nk: [a]\n---\n", ValueLayout::FlowCollection),
            ("---\nk: {a: 1}\n---\n", ValueLayout::FlowCollection),
            ("---\nk:\n  a: 1\n---\n", ValueLayout::BlockCollection),
            ("---\nk:\n- a\n---\n", ValueLayout::BlockCollection),
            ("---\nk: a\n  b\n---\n", ValueLayout::MultilineScalar),
            ("---\nk: 'a\n  b'\n---\n", ValueLayout::MultilineScalar),
            ("---\nk:\n  text\n---\n", ValueLayout::MultilineScalar),
            ("---\na: &x 1\nk: *x\n---\n", ValueLayout::Alias),
            ("---\nk: &x 1\n---\n", ValueLayout::Anchored),
            ("---\nk: !!str 1\n---\n", ValueLayout::Tagged),
        ] {
            match refused(text, "k") {
                EditError::NotAScalar {
                    layout: l, span, ..
                } => {
                    assert_eq!(l, layout, "{text:?}");
                    assert!(!span.is_empty());
                }
                other => panic!("{text:?}: {other}"),
            }
        }
        let message = refused("---\nk: |\n  x\n---\n", "k").to_string();
        assert!(message.contains("a block scalar"), "{message}");
    }

    #[test]
    fn refuses_missing_and_duplicate_keys_and_broken_text() {
        let missing = refused("---\na: 1\nb: 2\n---\n", "c");
        assert_eq!(missing.code(), Code::MissingKey);
        assert!(missing.to_string().contains("(its keys are: `a`, `b`)"));
        // The caller's key is shown on one line and cannot close the quote.
        let hostile = refused("---\na: 1\n---\n", "x`\n\u{1b}[2Jy").to_string();
        assert!(
            hostile.contains("no top-level key `x'\\n\\u{1b}[2Jy` (its keys"),
            "{hostile}"
        );
        assert!(
            !hostile.contains('\n') && !hostile.contains('\u{1b}'),
            "{hostile}"
        );
        assert_eq!(refused("no frontmatter\n", "a").code(), Code::NoFrontmatter);
        assert_eq!(
            refused("---\na: 1\na: 2\n---\n", "a").code(),
            Code::DuplicateKey
        );
        assert_eq!(refused("---\na: 1\n", "a").code(), Code::Unclosed);
        assert_eq!(refused("---\na: [\n---\n", "a").code(), Code::InvalidYaml);
        assert_eq!(refused("---\n- a\n---\n", "a").code(), Code::NotAMapping);
    }

    #[test]
    fn fences_and_keys_in_the_body_are_untouched() {
        let text = "---\nstatus: a\n---\nstatus: a\n---\n";
        assert_eq!(
            set(text, "status", "b"),
            "---\nstatus: b\n---\nstatus: a\n---\n"
        );
    }

    #[test]
    fn error_diagnostics_point_at_the_value() {
        let text = "---\nk: [a, b] # c\n---\n";
        let diagnostic = refused(text, "k").to_diagnostic();
        assert_eq!(diagnostic.code, Code::NotAScalar);
        assert_eq!(&text[diagnostic.span.range()], "[a, b]");
    }

    fn replaced(text: &str, key: &str, value: &str) -> String {
        replace_scalar(text, key, value).unwrap_or_else(|e| panic!("{text:?} {key}={value:?}: {e}"))
    }

    #[test]
    fn replace_keeps_the_style_of_single_line_scalars() {
        for (text, expected) in [
            ("---\ns: 'a' # c\n---\n", "---\ns: 'b' # c\n---\n"),
            ("---\ns: \"a\"\n---\n", "---\ns: \"b\"\n---\n"),
            ("---\ns: a # c\n---\n", "---\ns: b # c\n---\n"),
            ("---\ns:   # c\n---\n", "---\ns: b   # c\n---\n"),
        ] {
            assert_eq!(replaced(text, "s", "b"), expected);
            assert_eq!(replaced(text, "s", "b"), set(text, "s", "b"));
        }
    }

    #[test]
    fn block_scalars_become_one_line_and_keep_their_comments() {
        for (text, expected) in [
            (
                "---\na: 1\nstatus: >-\n  Applied\nnext: x\n---\nBody\n",
                "---\na: 1\nstatus: Offer\nnext: x\n---\nBody\n",
            ),
            // The header's comment stays on the key's line; a less indented
            // comment after the block stays where it is.
            (
                "---\nstatus: >- # board\n  Applied\n\n # after\nb: 2\n---\n",
                "---\nstatus: Offer # board\n\n # after\nb: 2\n---\n",
            ),
            // Kept line breaks (`|+`) are blank lines once the block is gone.
            (
                "---\nstatus: |+\n  Applied\n\n\nb: 2\n---\n",
                "---\nstatus: Offer\n\n\nb: 2\n---\n",
            ),
            // `#` lines inside the block are its content.
            (
                "---\nstatus: |\n  # not a comment\n\n  Applied\n---\n",
                "---\nstatus: Offer\n---\n",
            ),
            // Explicit indentation, deeper lines, and a header at the end of the YAML.
            (
                "---\nstatus: |2-\n  Resume\n     Written\n---\n",
                "---\nstatus: Offer\n---\n",
            ),
            ("---\nstatus: >\n---\n", "---\nstatus: Offer\n---\n"),
            // Tagged block scalars lose their tag with the block.
            (
                "---\nstatus: !!str >- # c\n  Applied\n---\n",
                "---\nstatus: Offer # c\n---\n",
            ),
            // CRLF and a byte-order mark.
            (
                "\u{feff}---\r\nstatus: >-\r\n  Applied\r\n # after\r\nb: 2\r\n---\r\nBody\r\n",
                "\u{feff}---\r\nstatus: Offer\r\n # after\r\nb: 2\r\n---\r\nBody\r\n",
            ),
        ] {
            assert_eq!(replaced(text, "status", "Offer"), expected, "{text:?}");
        }
    }

    #[test]
    fn tagged_scalars_and_aliases_become_plain() {
        for (text, expected) in [
            (
                "---\nstatus: !!str Applied # c\n---\n",
                "---\nstatus: Offer # c\n---\n",
            ),
            (
                "---\nstatus: !!str 'Applied'\n---\n",
                "---\nstatus: Offer\n---\n",
            ),
            (
                "---\nstatus: !!str \"Applied\" # c\n---\n",
                "---\nstatus: Offer # c\n---\n",
            ),
            ("---\nstatus: ! Applied\n---\n", "---\nstatus: Offer\n---\n"),
            (
                "---\nstatus: !<tag:yaml.org,2002:str> Applied\n---\n",
                "---\nstatus: Offer\n---\n",
            ),
            (
                "---\nstatus: !board Applied\n---\n",
                "---\nstatus: Offer\n---\n",
            ),
            (
                "---\nstatus: !!str\n  Applied\nb: 1\n---\n",
                "---\nstatus: Offer\nb: 1\n---\n",
            ),
            (
                "---\nstatus: !!str # c\n  Applied\n---\n",
                "---\nstatus: Offer # c\n---\n",
            ),
            // A tag alone is an empty string; comment lines after it stay.
            (
                "---\nstatus: !!str # c\n  # after\nb: 1\n---\n",
                "---\nstatus: Offer # c\n  # after\nb: 1\n---\n",
            ),
            ("---\nstatus: !!str\n---\n", "---\nstatus: Offer\n---\n"),
            // Lines of only blanks after a tagged scalar stay.
            (
                "---\nstatus: !!str Applied\n  \nb: 1\n---\n",
                "---\nstatus: Offer\n  \nb: 1\n---\n",
            ),
            // Found by fuzzing (frontmatter_replace_scalar): lines that look
            // like comments under a tagged block scalar or a tagged quoted
            // scalar over several lines are its content, and go with it.
            (
                "---\nstatus: !!str >- # c\n  # not a comment\nb: 1\n---\n",
                "---\nstatus: Offer # c\nb: 1\n---\n",
            ),
            (
                "---\nstatus: !!str \"a\n  # b\" # c\nb: 1\n---\n",
                "---\nstatus: Offer # c\nb: 1\n---\n",
            ),
            // An alias: the anchor it names is untouched.
            (
                "---\ns: &a Applied\nstatus: *a # c\n---\n",
                "---\ns: &a Applied\nstatus: Offer # c\n---\n",
            ),
        ] {
            assert_eq!(replaced(text, "status", "Offer"), expected, "{text:?}");
        }
    }

    #[test]
    fn scalars_over_several_lines_become_one_line() {
        for (text, expected) in [
            (
                "---\nstatus: Resume\n  Written\n  # c\nb: 2\n---\n",
                "---\nstatus: Offer\n  # c\nb: 2\n---\n",
            ),
            (
                "---\nstatus: Resume\n\n  Written # c\nb: 2\n---\n",
                "---\nstatus: Offer # c\nb: 2\n---\n",
            ),
            (
                "---\nstatus: 'Resume\n  # inside Written' # c\n---\n",
                "---\nstatus: Offer # c\n---\n",
            ),
            (
                "---\nstatus: \"Resume\\\n  Written\"\n---\n",
                "---\nstatus: Offer\n---\n",
            ),
            (
                "---\nstatus:\n  Applied\nb: 1\n---\n",
                "---\nstatus: Offer\nb: 1\n---\n",
            ),
            (
                "---\nstatus:   # c\n  Applied\n---\n",
                "---\nstatus: Offer   # c\n---\n",
            ),
            (
                "---\nstatus:\n  'Applied' # c\n---\n",
                "---\nstatus: Offer # c\n---\n",
            ),
        ] {
            assert_eq!(replaced(text, "status", "Offer"), expected, "{text:?}");
        }
    }

    #[test]
    fn replacements_are_quoted_when_plain_would_not_read_back() {
        assert_eq!(
            replaced("---\nstatus: >-\n  x\n---\n", "status", "a: b"),
            "---\nstatus: \"a: b\"\n---\n"
        );
        assert_eq!(
            replaced("---\nstatus: !!str x\n---\n", "status", "true"),
            "---\nstatus: \"true\"\n---\n"
        );
    }

    #[test]
    fn replace_refuses_anchors_collections_and_odd_placements() {
        for (text, reason) in [
            ("---\nk: &a x\nb: *a\n---\n", "anchor"),
            ("---\nk: &a x\n---\n", "anchor"),
            ("---\nk: !!str &a x\n---\n", "anchor"),
            ("---\nk: [a]\n---\n", "list or a mapping"),
            ("---\nk:\n  a: 1\n---\n", "list or a mapping"),
            ("---\nk: !!seq [a]\n---\n", "list or a mapping"),
            ("---\na: &l [1]\nk: *l\n---\n", "list or a mapping"),
            ("---\nk: # c\n  # d\n  x\n---\n", "comment line"),
            ("---\nk:\n |1\n  \n---\n", "block scalar starts"),
            ("---\nk:\n  !!str x\n---\n", "below its key"),
        ] {
            match replace_scalar(text, "k", "new") {
                Err(error @ EditError::NotReplaceable { .. }) => {
                    assert!(error.to_string().contains(reason), "{text:?}: {error}");
                    assert_eq!(error.code(), Code::NotReplaceable);
                    assert!(!error.span().is_empty());
                    assert!(!error.to_diagnostic().help.is_empty());
                }
                other => panic!("{text:?}: {other:?}"),
            }
        }
        assert_eq!(
            replace_scalar("---\na: 1\n---\n", "k", "x")
                .unwrap_err()
                .code(),
            Code::MissingKey
        );
        assert_eq!(
            replace_scalar("no frontmatter", "k", "x")
                .unwrap_err()
                .code(),
            Code::NoFrontmatter
        );
    }

    #[test]
    fn replacing_twice_changes_nothing_more() {
        let text = "---\nstatus: !!str >- # c\n  Applied\n # after\n---\n";
        let once = replaced(text, "status", "Offer");
        assert_eq!(replaced(&once, "status", "Offer"), once);
        assert_eq!(set(&once, "status", "Offer"), once);
    }
}
