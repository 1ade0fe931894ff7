//! Writing a frontmatter block from properties: the kiln's `create_note`
//! and `update_note` take the properties as JSON and store them as YAML.
//!
//! The block is written the way Obsidian writes properties, so a person
//! reading the note sees what they would have typed: keys in the order
//! given; a string plain when YAML reads it back as the same string, else
//! double-quoted with escapes; numbers and booleans as written; a null as
//! an empty value; a list of scalars as a block list (`- item` lines); an
//! empty list as `[]`; anything nested (a list of lists, a mapping) in flow
//! style, which for JSON values is JSON itself, a subset of YAML 1.2.
//!
//! Every block is read back with [`super::parse`] before it is returned,
//! and must give exactly the properties asked for, or nothing is returned:
//! what is written is what was asked for, never a near miss (a key YAML
//! reads as something else, a float that does not survive, a value past the
//! parser's limits).

use std::fmt::Write as _;

use serde_json::Value;
use thiserror::Error;

use super::document::ValueLayout;
use super::parse::parse;
use super::scalar;

/// Properties that cannot be written as a frontmatter block.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum WriteError {
    /// A key is empty.
    #[error("a property name is empty; give every property a name")]
    EmptyKey,
    /// Two properties have the same name.
    #[error("the property `{0}` is given twice; give each property once")]
    DuplicateKey(String),
    /// The block, read back, does not give the properties asked for.
    #[error("the properties cannot be stored as frontmatter: {0}")]
    NotStorable(String),
}

// frontmatter.ebnf: written-block
/// The frontmatter block (fences included, `\n` line endings) that holds
/// `properties` in the order given; the empty string for no properties (a
/// note without frontmatter).
///
/// ```
/// use quire_grammar::frontmatter::write_block;
/// use serde_json::json;
///
/// let block = write_block(&[
///     ("title".into(), json!("Plan: v2")),
///     ("tags".into(), json!(["work", "q3"])),
///     ("done".into(), json!(false)),
///     ("due".into(), json!(null)),
/// ])
/// .unwrap();
/// assert_eq!(block, "---\ntitle: \"Plan: v2\"\ntags:\n  - work\n  - q3\ndone: false\ndue:\n---\n");
/// ```
pub fn write_block(properties: &[(String, Value)]) -> Result<String, WriteError> {
    if properties.is_empty() {
        return Ok(String::new());
    }
    let mut block = String::from("---\n");
    for (index, (key, value)) in properties.iter().enumerate() {
        if key.is_empty() {
            return Err(WriteError::EmptyKey);
        }
        if properties[..index]
            .iter()
            .any(|(earlier, _)| earlier == key)
        {
            return Err(WriteError::DuplicateKey(shown(key)));
        }
        // frontmatter.ebnf: written-entry, written-key
        block.push_str(&scalar::render(key, ValueLayout::Plain));
        block.push(':');
        write_value(&mut block, value);
        block.push('\n');
    }
    block.push_str("---\n");
    check(&block, properties)?;
    Ok(block)
}

// frontmatter.ebnf: written-value
/// Writes `value` after its key's colon.
fn write_value(block: &mut String, value: &Value) {
    match value {
        Value::Null => {}
        Value::Array(items) if !items.is_empty() && items.iter().all(is_scalar) => {
            for item in items {
                block.push_str("\n  -");
                if !item.is_null() {
                    block.push(' ');
                    block.push_str(&scalar_text(item));
                }
            }
        }
        Value::Array(_) | Value::Object(_) => {
            block.push(' ');
            // JSON's flow style is YAML's; its escapes are YAML's too, but
            // characters YAML may not hold raw are escaped here as well.
            flow(block, value);
        }
        scalar => {
            block.push(' ');
            block.push_str(&scalar_text(scalar));
        }
    }
}

fn is_scalar(value: &Value) -> bool {
    !matches!(value, Value::Array(_) | Value::Object(_))
}

// frontmatter.ebnf: written-scalar
/// A scalar as YAML text on one line.
fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(text) => scalar::render(text, ValueLayout::Plain),
        Value::Null => "null".to_owned(),
        other => other.to_string(),
    }
}

// frontmatter.ebnf: flow-json
/// `value` in flow style: JSON, with every string double-quoted the way
/// YAML reads it.
fn flow(out: &mut String, value: &Value) {
    match value {
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push_str(", ");
                }
                flow(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (index, (key, item)) in map.iter().enumerate() {
                if index > 0 {
                    out.push_str(", ");
                }
                out.push_str(&scalar::render(key, ValueLayout::DoubleQuoted));
                out.push_str(": ");
                flow(out, item);
            }
            out.push('}');
        }
        Value::String(text) => out.push_str(&scalar::render(text, ValueLayout::DoubleQuoted)),
        other => {
            let _ = write!(out, "{other}");
        }
    }
}

/// Reads `block` back: it must hold exactly `properties`.
fn check(block: &str, properties: &[(String, Value)]) -> Result<(), WriteError> {
    let document = parse(block).map_err(|error| WriteError::NotStorable(error.to_string()))?;
    let frontmatter = document
        .frontmatter
        .ok_or_else(|| WriteError::NotStorable("the block was not read back".to_owned()))?;
    let keys: Vec<&str> = frontmatter
        .entries
        .iter()
        .map(|entry| entry.key.as_str())
        .collect();
    let asked: Vec<&str> = properties.iter().map(|(key, _)| key.as_str()).collect();
    if keys != asked {
        return Err(WriteError::NotStorable(format!(
            "the names read back are {}, not {}",
            list(&keys),
            list(&asked)
        )));
    }
    for (key, value) in properties {
        if frontmatter.values.get(key) != Some(value) {
            return Err(WriteError::NotStorable(format!(
                "`{}` would read back as {}",
                shown(key),
                frontmatter
                    .values
                    .get(key)
                    .map_or_else(|| "nothing".to_owned(), |read| shown(&read.to_string()))
            )));
        }
    }
    Ok(())
}

fn list(keys: &[&str]) -> String {
    keys.iter()
        .map(|key| format!("`{}`", shown(key)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A caller's text in a message: at most 80 characters, escaped.
fn shown(text: &str) -> String {
    let mut out: String = text.chars().take(80).flat_map(char::escape_debug).collect();
    if text.chars().count() > 80 {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn props(value: Value) -> Vec<(String, Value)> {
        value
            .as_object()
            .unwrap()
            .iter()
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect()
    }

    #[test]
    fn obsidian_style_for_what_people_write() {
        let block = write_block(&props(json!({
            "aliases": ["Plan B"],
            "count": 3,
            "empty": [],
            "nested": {"a": [1, "x: y"], "b": null},
            "ratio": 0.5,
            "status": "in progress",
            "tags": ["work", "#todo", null, 2]
        })))
        .unwrap();
        assert_eq!(
            block,
            "---\naliases:\n  - Plan B\ncount: 3\nempty: []\nnested: {\"a\": [1, \"x: y\"], \"b\": null}\n\
             ratio: 0.5\nstatus: in progress\ntags:\n  - work\n  - \"#todo\"\n  -\n  - 2\n---\n"
        );
    }

    #[test]
    fn order_is_kept_and_odd_keys_are_quoted() {
        let properties = vec![
            ("zeta".to_owned(), json!(1)),
            ("alpha".to_owned(), json!(2)),
            ("key: with colon".to_owned(), json!("v")),
            ("~".to_owned(), json!("tilde")),
            ("true".to_owned(), json!(true)),
            ("multi\nline".to_owned(), json!("a\nb\u{85}c\u{feff}")),
            ("日本".to_owned(), json!("語 🚀")),
        ];
        let block = write_block(&properties).unwrap();
        let read = parse(&block).unwrap().frontmatter.unwrap();
        let keys: Vec<&str> = read
            .entries
            .iter()
            .map(|entry| entry.key.as_str())
            .collect();
        assert_eq!(
            keys,
            [
                "zeta",
                "alpha",
                "key: with colon",
                "~",
                "true",
                "multi\nline",
                "日本"
            ]
        );
        assert!(
            block.starts_with("---\nzeta: 1\nalpha: 2\n\"key: with colon\": v\n"),
            "{block}"
        );
    }

    #[test]
    fn a_json_object_is_written_in_the_order_of_its_text() {
        // Parsed from text, as a tool call's arguments are: serde_json's
        // `preserve_order` keeps the keys as given, nested ones too (a
        // sorted map would write `alpha`, `mid`, `zeta`).
        let given: serde_json::Map<String, Value> = serde_json::from_str(
            r#"{"zeta": 1, "alpha": 2, "mid": ["b", "a"], "nested": {"z": 1, "a": 2}}"#,
        )
        .unwrap();
        let properties: Vec<(String, Value)> = given.into_iter().collect();
        assert_eq!(
            write_block(&properties).unwrap(),
            "---\nzeta: 1\nalpha: 2\nmid:\n  - b\n  - a\nnested: {\"z\": 1, \"a\": 2}\n---\n"
        );
    }

    #[test]
    fn what_cannot_be_stored_is_refused_with_why() {
        assert_eq!(write_block(&[]).unwrap(), "");
        assert_eq!(
            write_block(&[("".to_owned(), json!(1))]),
            Err(WriteError::EmptyKey)
        );
        let twice = vec![("a".to_owned(), json!(1)), ("a".to_owned(), json!(2))];
        assert_eq!(
            write_block(&twice),
            Err(WriteError::DuplicateKey("a".to_owned()))
        );
        // Deeper than the parser reads.
        let mut deep = json!(1);
        for _ in 0..100 {
            deep = json!([deep]);
        }
        let error = write_block(&[("deep".to_owned(), deep)]).unwrap_err();
        assert!(matches!(error, WriteError::NotStorable(_)), "{error}");
    }
}
