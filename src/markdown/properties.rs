//! Tags and aliases from the frontmatter, merged with the inline tags.

use std::collections::HashSet;

use serde_json::Value;

use crate::frontmatter::Frontmatter;

/// The values of the property `key`: a list, a single string, or a
/// comma-separated string; each trimmed. For `tags`, also split at white
/// space, with a leading `#` removed.
pub(super) fn list_property(
    frontmatter: Option<&Frontmatter>,
    key: &str,
    tags: bool,
) -> Vec<String> {
    let Some(value) = frontmatter.and_then(|fm| fm.get(key)) else {
        return Vec::new();
    };
    let mut items = Vec::new();
    match value {
        Value::Array(values) => values.iter().for_each(|v| push_scalar(v, &mut items)),
        other => push_scalar(other, &mut items),
    }
    items
        .iter()
        // A tag never holds a space: `tags: gamma delta` is two tags, as
        // Obsidian reads it. An alias may.
        .flat_map(|item| {
            if tags {
                item.split_whitespace().collect::<Vec<_>>()
            } else {
                vec![item.trim()]
            }
        })
        .map(|item| {
            if tags {
                item.trim_start_matches('#')
            } else {
                item
            }
        })
        .filter(|item| !item.is_empty())
        .map(str::to_owned)
        .collect()
}

fn push_scalar(value: &Value, items: &mut Vec<String>) {
    match value {
        Value::String(text) => items.extend(text.split(',').map(str::to_owned)),
        Value::Number(number) => items.push(number.to_string()),
        Value::Bool(flag) => items.push(flag.to_string()),
        _ => {}
    }
}

/// `names` without case-insensitive repeats, each kept at its first spelling.
pub(super) fn dedup_caseless(names: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut seen = HashSet::new();
    names
        .into_iter()
        .filter(|name| seen.insert(name.to_lowercase()))
        .collect()
}
