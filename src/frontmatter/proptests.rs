//! Property tests: `set_scalar` and `replace_scalar` either refuse or
//! change only the value's bytes, and nothing panics on any input. The
//! invariants are the fuzz targets' (`tests/support/frontmatter_model.rs`,
//! included here by path), so they are written once.

use proptest::prelude::*;
use proptest::sample::Index;

use super::document::{Document, ValueLayout};
use super::parse::parse;

// The model declares its helpers `pub` for the fuzz targets; inside this
// private test module they reach no further than it.
#[allow(unreachable_pub)]
#[path = "../../tests/support/frontmatter_model.rs"]
mod frontmatter_model;

use frontmatter_model::Replaced;

fn eol() -> impl Strategy<Value = &'static str> {
    prop_oneof![Just("\n"), Just("\r\n")]
}

/// A value as written after `key: `, with what may follow it on the line.
fn written_value() -> impl Strategy<Value = String> {
    let plain = "[a-zA-Z][a-zA-Z0-9 ,.!?éü日/-]{0,12}";
    let quotable = "[ -~éü日\t]{0,10}";
    let scalar = prop_oneof![
        plain.prop_map(|s| s.trim_end().to_owned()),
        quotable.prop_map(|s| format!("'{}'", s.replace('\'', "''"))),
        quotable.prop_map(|s| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))),
        "[0-9]{1,4}",
        Just(String::new()),
        Just("true".to_owned()),
        Just("~".to_owned()),
    ];
    let trailer = prop_oneof![
        Just(""),
        Just(" "),
        Just(" # comment"),
        Just("\t# c: x #"),
        Just("  #"),
    ];
    let scalar_line = (scalar, trailer).prop_map(|(value, trailer)| format!("{value}{trailer}"));
    prop_oneof![
        4 => scalar_line,
        1 => Just("|\n  line one\n\n  # not a comment".to_owned()),
        1 => Just(">-\n  folded".to_owned()),
        1 => Just("\n- a\n# between\n- b".to_owned()),
        1 => Just("\n  x: 1\n  y: [1, 2]".to_owned()),
        1 => Just("[a, 'b # c'] # d".to_owned()),
        1 => Just("plain\n  continued".to_owned()),
        1 => Just("plain\n\n  continued # c\n  # after".to_owned()),
        1 => Just("!!str tagged # c".to_owned()),
        1 => Just("!!str >- # c\n  tagged\n  block\n # after".to_owned()),
        1 => Just("|+\n  kept\n".to_owned()),
        1 => Just("'quoted\n  # over lines' # c".to_owned()),
        1 => Just("\n  below the key".to_owned()),
        1 => Just("# c\n  \"below\" # d".to_owned()),
        1 => Just("!t\n  tag above".to_owned()),
        1 => Just("!!str # only a tag\n  # and a comment".to_owned()),
        1 => Just("&anchored x".to_owned()),
    ]
}

/// Body lines, including fences and key lines that are not frontmatter.
fn body_line() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("---".to_owned()),
        Just("...".to_owned()),
        Just("status: body".to_owned()),
        "[ -~é]{0,20}",
    ]
}

/// A text with frontmatter (optional byte-order mark, LF or CRLF, comments
/// and blank lines) and its keys.
fn document() -> impl Strategy<Value = (String, Vec<String>)> {
    (
        any::<bool>(),
        eol(),
        prop_oneof![Just(""), Just(" "), Just("\t ")],
        prop::collection::vec(("[a-z][a-z0-9_]{0,6}", written_value(), 0..4u8), 1..6),
        prop_oneof![Just("---"), Just("..."), Just("--- ")],
        prop::option::of(eol()),
        prop::collection::vec(body_line(), 0..4),
    )
        .prop_map(|(bom, eol, open_blanks, entries, close, close_eol, body)| {
            let mut text = String::new();
            if bom {
                text.push('\u{feff}');
            }
            text.push_str("---");
            text.push_str(open_blanks);
            text.push_str(eol);
            let mut keys = Vec::new();
            for (index, (key, value, extra)) in entries.into_iter().enumerate() {
                let key = format!("{key}{index}");
                match extra {
                    1 => text.push_str(&format!("# about {key}{eol}")),
                    2 => text.push_str(eol),
                    _ => {}
                }
                let value = value.replace('\n', eol);
                let separator = if value.is_empty() || value.starts_with(eol) {
                    ""
                } else {
                    " "
                };
                text.push_str(&format!("{key}:{separator}{value}{eol}"));
                keys.push(key);
            }
            text.push_str(close);
            if let Some(close_eol) = close_eol {
                text.push_str(close_eol);
                for line in body {
                    text.push_str(&line);
                    text.push_str(eol);
                }
            }
            (text, keys)
        })
}

fn new_value() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => "[ -~]{0,12}",
        2 => "\\PC{0,8}",
        1 => any::<String>(),
        2 => prop::sample::select(vec![
            "", " ", "yes", "No", "12", "-3", "0x1F", "1_000", ".inf", "~", "null", "a: b", "a:",
            "#x", "x #y", "x#y", "'", "\"", "\\", "''", "it's", "line\nbreak", "\r", "\t",
            "\u{85}", "\u{2028}", "\u{feff}", "\u{7f}", "\0", "- x", "? x", "[x]", "{x}", "&a",
            "*a", "!t", "|", ">", "%x", "@x", "`x", "=", "<<", "Ünïcödé ✓", "日本語",
        ])
        .prop_map(str::to_owned),
    ]
}

/// Lines that exercise the grammar's corners.
fn yaml_ish_text() -> impl Strategy<Value = String> {
    let fragment = prop::sample::select(vec![
        "---",
        "...",
        "--- ",
        "a: 1",
        "b:",
        "  - x",
        "- y",
        "'k': v",
        "\"k\": v",
        "c: |",
        "  text",
        "# c",
        "d: [1,",
        "  2]",
        "e: &x v",
        "f: *x",
        "",
        " ",
        "\t",
        "? q",
        ": r",
        "g: 'x",
        "  y'",
        "h: \"a\\",
        "%YAML 1.2",
        "a: 2",
        "i: \"\\u00e9\" # c",
        "\u{feff}",
        "j: x\u{85}y",
        "k: !!str >- # c",
        "k: !t",
        "k: |2+",
        " # trail",
        "  # in",
        "   deeper",
        "k: *x",
        "k: # c",
    ]);
    (
        prop::collection::vec((fragment, eol()), 0..12),
        any::<bool>(),
        prop::sample::select(vec!["", "---\n", "---\r\n", "\u{feff}---\n"]),
    )
        .prop_map(|(lines, final_eol, start)| {
            let mut text = start.to_owned();
            let count = lines.len();
            for (index, (line, eol)) in lines.into_iter().enumerate() {
                text.push_str(line);
                if final_eol || index + 1 < count {
                    text.push_str(eol);
                }
            }
            text
        })
}

/// `set_scalar` refuses what it must and otherwise changes only the value:
/// `check_set` of the fuzz targets' model.
fn check_edit(text: &str, key: &str, value: &str) -> Result<(), TestCaseError> {
    frontmatter_model::check_set(text, key, value).map_err(TestCaseError::fail)
}

/// `replace_scalar` refuses with a fitting reason, or writes the value on the
/// key's line as a one-line scalar and keeps every other byte and comment:
/// `check_replace` of the fuzz targets' model. With `every_scalar`, it must
/// also succeed on every scalar written without an anchor (the forms
/// `document()` writes).
fn check_replace(
    text: &str,
    key: &str,
    value: &str,
    every_scalar: bool,
) -> Result<(), TestCaseError> {
    let outcome =
        frontmatter_model::check_replace(text, key, value).map_err(TestCaseError::fail)?;
    let Replaced::Refused(error) = outcome else {
        return Ok(());
    };
    let Ok(Document {
        frontmatter: Some(before),
        ..
    }) = parse(text)
    else {
        return Ok(());
    };
    let Some(entry) = before.entry(key) else {
        return Ok(());
    };
    let is_scalar = !matches!(
        before.get(key),
        Some(serde_json::Value::Array(_) | serde_json::Value::Object(_))
    );
    prop_assert!(
        !(every_scalar && is_scalar && entry.layout != ValueLayout::Anchored),
        "replacing the {} {:?} in {:?} failed: {}",
        entry.layout,
        key,
        text,
        error
    );
    Ok(())
}

proptest! {
    #[test]
    fn edits_change_only_the_value((text, keys) in document(), pick in any::<Index>(), value in new_value()) {
        let document = parse(&text);
        prop_assert!(document.is_ok(), "{:?}: {}", text, document.unwrap_err());
        let key = pick.get(&keys);
        check_edit(&text, key, &value)?;
        check_replace(&text, key, &value, true)?;
    }

    #[test]
    fn grammar_corners_never_panic(text in yaml_ish_text(), key in "[a-k]", value in new_value()) {
        check_edit(&text, &key, &value)?;
        check_replace(&text, &key, &value, false)?;
    }

    #[test]
    fn arbitrary_strings_never_panic(text in any::<String>(), key in "\\PC{0,3}", value in any::<String>()) {
        let _ = parse(&text);
        check_edit(&text, &key, &value)?;
        check_replace(&text, &key, &value, false)?;
        let fenced = format!("---\n{text}\n---\n");
        check_edit(&fenced, &key, &value)?;
        check_replace(&fenced, &key, &value, false)?;
    }
}

/// A property value: scalars of every kind (any string, floats and large
/// integers), lists and mappings nested a few levels.
fn property_value() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value;
    let scalar = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-1e12f64..1e12).prop_map(Value::from),
        any::<String>().prop_map(Value::String),
        "[a-z #:'\"\\-\\[\\]{},&*!|>%@`~.0-9]{0,12}".prop_map(Value::String),
    ];
    scalar.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::Array),
            prop::collection::btree_map("\\PC{0,6}", inner, 0..4)
                .prop_map(|map| serde_json::Value::Object(map.into_iter().collect())),
        ]
    })
}

proptest! {
    /// Any properties with distinct non-empty names are written, in order,
    /// as a block that reads back as exactly those properties.
    #[test]
    fn written_blocks_read_back_as_the_properties(
        properties in prop::collection::vec(("\\PC{1,12}", property_value()), 0..6)
    ) {
        let mut distinct: Vec<(String, serde_json::Value)> = Vec::new();
        for (key, value) in properties {
            if !distinct.iter().any(|(seen, _)| *seen == key) {
                distinct.push((key, value));
            }
        }
        let block = super::write_block(&distinct).map_err(|error| {
            TestCaseError::fail(format!("{distinct:?} refused: {error}"))
        })?;
        if distinct.is_empty() {
            prop_assert_eq!(block, "");
        } else {
            let read = parse(&block).unwrap().frontmatter.unwrap();
            let keys: Vec<&str> = read.entries.iter().map(|entry| entry.key.as_str()).collect();
            let asked: Vec<&str> = distinct.iter().map(|(key, _)| key.as_str()).collect();
            prop_assert_eq!(keys, asked);
            for (key, value) in &distinct {
                prop_assert_eq!(read.values.get(key), Some(value), "{}", block);
            }
        }
    }
}

/// A value as JSON gives it to `set_property`: scalars of every kind, text
/// YAML would misread, and lists of them.
fn json_value() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value;
    let text = new_value().prop_map(Value::String);
    let scalar = prop_oneof![
        3 => text,
        1 => any::<i32>().prop_map(Value::from),
        1 => any::<bool>().prop_map(Value::Bool),
        1 => Just(Value::Null),
        1 => (-1e6f64..1e6).prop_map(Value::from),
    ];
    prop_oneof![
        3 => scalar.clone(),
        1 => prop::collection::vec(scalar, 0..4).prop_map(Value::Array),
    ]
}

/// Issue 25's in-place property edits: on every document `document()`
/// writes, setting a property (present or new) and removing one succeed;
/// the result reads back with that property as asked and every other one
/// as before, and the bytes before the entry (and, for a set or a removal
/// of a present key, after it) are the text's own.
fn check_property_edits(
    text: &str,
    key: &str,
    new_key: &str,
    value: &serde_json::Value,
) -> Result<(), TestCaseError> {
    use super::property_edit::{remove_property, set_property};
    let before = parse(text).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let frontmatter = before
        .frontmatter
        .as_ref()
        .expect("document() writes a block");
    let entry = frontmatter.entry(key).expect("the key is in the block");
    let others = |values: &serde_json::Map<String, serde_json::Value>, except: &str| {
        values
            .iter()
            .filter(|(k, _)| k.as_str() != except)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect::<Vec<_>>()
    };
    for (target, is_new) in [(key, false), (new_key, true)] {
        let edited = set_property(text, target, value).map_err(|e| {
            TestCaseError::fail(format!("set {target:?} = {value} in {text:?}: {e}"))
        })?;
        let after = parse(&edited).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let values = &after.frontmatter.as_ref().expect("still a block").values;
        prop_assert_eq!(values.get(target), Some(value));
        prop_assert_eq!(others(values, target), others(&frontmatter.values, target));
        let kept = if is_new {
            frontmatter.close.start
        } else {
            entry.key.span.start
        };
        prop_assert_eq!(&edited[..kept], &text[..kept]);
        if !is_new {
            prop_assert!(edited.ends_with(&text[entry.value.end..]));
        }
    }
    let removed = remove_property(text, key)
        .map_err(|e| TestCaseError::fail(format!("remove {key:?} from {text:?}: {e}")))?;
    let after = parse(&removed).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let values = after
        .frontmatter
        .as_ref()
        .map(|fm| fm.values.clone())
        .unwrap_or_default();
    prop_assert!(!values.contains_key(key));
    prop_assert_eq!(others(&values, key), others(&frontmatter.values, key));
    Ok(())
}

proptest! {
    #[test]
    fn property_edits_read_back_and_keep_the_rest(
        (text, keys) in document(),
        pick in any::<Index>(),
        new_key in "[a-z][a-z0-9 _-]{0,8}",
        value in json_value(),
    ) {
        let key = pick.get(&keys);
        // A key of its own, which document() never writes (its keys end in
        // their index).
        let new_key = format!("{}new", new_key.trim());
        prop_assume!(!keys.contains(&new_key));
        check_property_edits(&text, key, &new_key, &value)?;
    }

    #[test]
    fn property_edits_never_panic(text in yaml_ish_text(), key in "[a-k]", value in json_value()) {
        let _ = super::property_edit::set_property(&text, &key, &value);
        let _ = super::property_edit::remove_property(&text, &key);
    }
}
