//! Tags and aliases from the frontmatter, merged with the inline tags.

use std::collections::HashSet;

use serde_json::Value;

use crate::frontmatter::Frontmatter;

/// The values of the first of `keys` the frontmatter has: a list, a single
/// string, or a comma-separated string; each trimmed, a leading `#` removed
/// when `strip_hash`.
pub(super) fn list_property(
    frontmatter: Option<&Frontmatter>,
    keys: &[&str],
    strip_hash: bool,
) -> Vec<String> {
    let Some(value) = frontmatter.and_then(|fm| keys.iter().find_map(|key| fm.get(key))) else {
        return Vec::new();
    };
    let mut items = Vec::new();
    match value {
        Value::Array(values) => values.iter().for_each(|v| push_scalar(v, &mut items)),
        other => push_scalar(other, &mut items),
    }
    items
        .into_iter()
        .map(|item| {
            let item = item.trim();
            if strip_hash {
                item.trim_start_matches('#')
            } else {
                item
            }
            .to_owned()
        })
        .filter(|item| !item.is_empty())
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
