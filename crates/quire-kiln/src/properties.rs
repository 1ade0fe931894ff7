//! `property_search`: the notes whose frontmatter properties hold the values
//! asked for, from the index, sorted by path, a page at a time.
//!
//! The request's `properties` object is checked once into a
//! [`PropertyQuery`] (refused with a [`PropertySearchError`] that says what
//! to write), then matched against each note's facts by pure functions, so
//! the rules below are tested without a file.
//!
//! How a note matches:
//!
//! - Every key must match (AND). A list of wanted values matches when any
//!   of them does (OR). A wanted value matches a list property when it
//!   matches any of its items.
//! - Key names are exact (`Status` is not `status`), except that `tag` and
//!   `tags` are one key, and so are `alias` and `aliases`, as Obsidian reads
//!   them.
//! - `tags` is matched against the note's tags as `read_metadata` gives
//!   them: the frontmatter's and the inline `#tags`, merged. So a note whose
//!   frontmatter is broken still matches on its inline tags, never on a
//!   property. Tags compare without `#` and ignoring case, and a search for
//!   `project` also finds the nested `project/quire` (not the reverse).
//! - `aliases` is matched against the note's aliases, ignoring case.
//! - Any other key is matched against the frontmatter's value: strings
//!   exactly (case included); numbers by value (`3` finds `3` and `3.0`);
//!   booleans by value. A string and a number or boolean match when the
//!   string is the other written out (`"3"` finds `3`, `"true"` finds
//!   `true`), since a caller may not know how the YAML typed a value.
//! - Dates compare as the text written: the frontmatter keeps
//!   `date: 2024-01-05` as the string `"2024-01-05"`, found by exactly that.
//! - `null` finds a note that has the key with no value: `null`, `""`, `[]`
//!   or `{}`. A note without the key never matches.
//! - A note whose frontmatter is broken has no properties, so it matches
//!   no property (see `tags` above); it is not an error.

use serde_json::{Map, Number, Value};

use super::error::shown;
use super::index::{IndexedNote, KilnIndex};
use super::note_path::FolderPath;
use super::page::page;
use quire_grammar::markdown::NoteFacts;

/// The most notes one page holds.
pub const MAX_PROPERTY_LIMIT: usize = 1_000;
/// The most keys one search names.
pub const MAX_PROPERTY_KEYS: usize = 32;
/// The most wanted values one key lists.
pub const MAX_WANTED_VALUES: usize = 256;

/// What [`KilnTools::property_search`](crate::KilnTools::property_search)
/// looks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PropertySearchRequest {
    /// The properties a note must have, at least one: each key's value is a
    /// string, number, boolean or null, or a list of them (any one
    /// matches). Every key must match. Example: {"status": "active",
    /// "tags": ["project", "idea"]}.
    pub properties: Map<String, Value>,
    /// Search only this folder and its subfolders, relative to the kiln
    /// root (the whole kiln when `None`).
    pub folder: Option<String>,
    /// The most notes per page (1 to [`MAX_PROPERTY_LIMIT`]).
    pub limit: usize,
    /// The `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

impl PropertySearchRequest {
    /// The most notes per page when the caller names no limit.
    pub const DEFAULT_LIMIT: usize = 100;

    /// A search for the notes whose properties hold `properties`, beneath
    /// the root, the first page of [`Self::DEFAULT_LIMIT`] notes.
    pub fn new(properties: Map<String, Value>) -> Self {
        PropertySearchRequest {
            properties,
            folder: None,
            limit: Self::DEFAULT_LIMIT,
            cursor: None,
        }
    }

    /// The request's `properties` checked into a query, once its `limit`
    /// is checked too: what [`property_search`] runs.
    pub(crate) fn query(&self) -> Result<PropertyQuery, PropertySearchError> {
        if self.limit == 0 || self.limit > MAX_PROPERTY_LIMIT {
            return Err(PropertySearchError::Limit(self.limit));
        }
        PropertyQuery::new(&self.properties)
    }
}

/// One page of the notes found.
#[derive(Clone, Debug, PartialEq)]
pub struct PropertySearch {
    /// The notes of this page, sorted by path.
    pub notes: Vec<MatchedNote>,
    /// Pass it as `cursor` for the next page; `None` on the last page.
    pub next_cursor: Option<String>,
    /// How many notes match in all (every page).
    pub total: usize,
}

/// One note found.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchedNote {
    /// The note's path (NFC, with `.md`).
    pub path: String,
    /// The frontmatter's properties (empty when it is broken).
    pub frontmatter: Map<String, Value>,
}

/// Why a property search's arguments do not make one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PropertySearchError {
    /// `properties` is `{}`.
    #[error(
        "`properties` is empty; name at least one property and the value to find, such as \
         {{\"properties\": {{\"status\": \"active\"}}}} or {{\"properties\": {{\"tags\": \"project\"}}}}"
    )]
    NoProperties,
    /// More than [`MAX_PROPERTY_KEYS`] keys.
    #[error(
        "`properties` names {0} keys; give at most {MAX_PROPERTY_KEYS} (every key must match, so \
         a few selective ones are enough)"
    )]
    TooManyKeys(usize),
    /// A key named `""`.
    #[error("`properties` has an empty key; name the property, such as `status`")]
    EmptyKey,
    /// More than [`MAX_WANTED_VALUES`] values for one key.
    #[error(
        "`properties.{key}` lists {count} values; give at most {MAX_WANTED_VALUES} (any one \
         matches), or search several times"
    )]
    TooManyValues {
        /// The key, for display.
        key: String,
        /// How many values it lists.
        count: usize,
    },
    /// A key whose wanted value is `[]`.
    #[error(
        "`properties.{key}` is an empty list; give at least one value to find, or `null` to \
         find notes where `{key}` is empty"
    )]
    NoValues {
        /// The key, for display.
        key: String,
    },
    /// A wanted value that is an object, or a list inside the list.
    #[error(
        "`properties.{key}` holds {found}; give a string, number, boolean or null, or a list \
         of them (any one matches), such as {{\"{key}\": [\"a\", \"b\"]}}"
    )]
    NotAScalar {
        /// The key, for display.
        key: String,
        /// What was given instead (`an object`, `a list inside the list`).
        found: &'static str,
    },
    /// A wanted tag or alias that is empty once trimmed (and a tag's `#`
    /// removed).
    #[error(
        "`properties.{key}` has the value `{value}`, which names no {what}; give the {what} \
         itself, such as {example}"
    )]
    NoName {
        /// The key, for display.
        key: String,
        /// The value, for display.
        value: String,
        /// `tag` or `alias`.
        what: &'static str,
        /// An example of what to give.
        example: &'static str,
    },
    /// A limit of 0 or over [`MAX_PROPERTY_LIMIT`].
    #[error("`limit` is {0}; give 1 to {MAX_PROPERTY_LIMIT}, and page with `cursor` for more")]
    Limit(usize),
    /// A cursor the search did not return.
    #[error(
        "`cursor` is not one this search returned; pass the `next_cursor` of the previous \
         page unchanged (with the same properties), or leave it out to start from the first page"
    )]
    Cursor,
}

/// The page of notes beneath `folder` that match `request`.
pub(crate) fn property_search(
    index: &KilnIndex,
    folder: &FolderPath,
    request: &PropertySearchRequest,
) -> Result<PropertySearch, PropertySearchError> {
    let query = request.query()?;
    let found: Vec<&IndexedNote> = index
        .notes()
        .filter(|note| folder.contains(&note.path) && query.matches(&note.facts))
        .collect();
    let page = page(
        &found,
        |note| note.path.as_str(),
        request.cursor.as_deref(),
        request.limit,
    )
    .map_err(|_| PropertySearchError::Cursor)?;
    Ok(PropertySearch {
        notes: page
            .items
            .iter()
            .map(|note| MatchedNote {
                path: note.path.to_string(),
                frontmatter: note.properties(),
            })
            .collect(),
        next_cursor: page.next_cursor,
        total: found.len(),
    })
}

/// A checked `properties` object: what each key must hold.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct PropertyQuery {
    criteria: Vec<Criterion>,
}

/// One key and the values any of which it must hold.
#[derive(Clone, Debug, PartialEq)]
struct Criterion {
    key: String,
    field: Field,
    wanted: Vec<Wanted>,
}

/// What a key is matched against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    /// The merged tags (`tags` or `tag`).
    Tags,
    /// The aliases (`aliases` or `alias`).
    Aliases,
    /// The frontmatter's value of the key.
    Property,
}

impl Field {
    fn of(key: &str) -> Field {
        match key {
            "tags" | "tag" => Field::Tags,
            "aliases" | "alias" => Field::Aliases,
            _ => Field::Property,
        }
    }
}

/// One wanted value, prepared once for matching every note.
#[derive(Clone, Debug, PartialEq)]
enum Wanted {
    /// `null`: the key is present with no value.
    Empty,
    /// A boolean.
    Bool(bool),
    /// A number.
    Number(Number),
    /// A string, with the number or boolean it writes out, if any.
    Text {
        text: String,
        number: Option<f64>,
        boolean: Option<bool>,
    },
    /// A tag or alias: folded for caseless comparison ([`folded`]), a tag
    /// without its `#`.
    Name(String),
}

impl PropertyQuery {
    /// Checks `properties` (a search's `properties` object).
    pub(crate) fn new(
        properties: &Map<String, Value>,
    ) -> Result<PropertyQuery, PropertySearchError> {
        if properties.is_empty() {
            return Err(PropertySearchError::NoProperties);
        }
        if properties.len() > MAX_PROPERTY_KEYS {
            return Err(PropertySearchError::TooManyKeys(properties.len()));
        }
        let criteria = properties
            .iter()
            .map(|(key, value)| criterion(key, value))
            .collect::<Result<_, _>>()?;
        Ok(PropertyQuery { criteria })
    }

    /// Whether a note with `facts` matches every key.
    pub(crate) fn matches(&self, facts: &NoteFacts) -> bool {
        let frontmatter = facts.frontmatter.as_ref().map(|fm| &fm.values);
        self.criteria.iter().all(|criterion| {
            criterion.wanted.iter().any(|wanted| match wanted {
                // `null` asks about the key as written in the frontmatter,
                // whatever the field.
                Wanted::Empty => frontmatter
                    .and_then(|values| values.get(&criterion.key))
                    .is_some_and(is_empty),
                Wanted::Name(name) => match criterion.field {
                    Field::Tags => facts.tags.iter().any(|tag| tag_matches(tag, name)),
                    _ => facts.aliases.iter().any(|alias| caseless_eq(alias, name)),
                },
                _ => frontmatter
                    .and_then(|values| values.get(&criterion.key))
                    .is_some_and(|value| value_matches(wanted, value)),
            })
        })
    }
}

fn criterion(key: &str, value: &Value) -> Result<Criterion, PropertySearchError> {
    if key.is_empty() {
        return Err(PropertySearchError::EmptyKey);
    }
    let field = Field::of(key);
    let values = match value {
        Value::Array(values) if values.is_empty() => {
            return Err(PropertySearchError::NoValues { key: shown(key) });
        }
        Value::Array(values) if values.len() > MAX_WANTED_VALUES => {
            return Err(PropertySearchError::TooManyValues {
                key: shown(key),
                count: values.len(),
            });
        }
        Value::Array(values) => values.as_slice(),
        single => std::slice::from_ref(single),
    };
    let wanted = values
        .iter()
        .map(|value| wanted(key, field, value))
        .collect::<Result<_, _>>()?;
    Ok(Criterion {
        key: key.to_owned(),
        field,
        wanted,
    })
}

/// One wanted value of `key` (an item of its list, or its only value, so
/// an array here is a list inside the list).
fn wanted(key: &str, field: Field, value: &Value) -> Result<Wanted, PropertySearchError> {
    let not_a_scalar = |found| PropertySearchError::NotAScalar {
        key: shown(key),
        found,
    };
    let text = match value {
        Value::Null => return Ok(Wanted::Empty),
        Value::Object(_) => return Err(not_a_scalar("an object")),
        Value::Array(_) => return Err(not_a_scalar("a list inside the list")),
        Value::Bool(flag) if field == Field::Property => return Ok(Wanted::Bool(*flag)),
        Value::Number(number) if field == Field::Property => {
            return Ok(Wanted::Number(number.clone()));
        }
        Value::String(text) if field == Field::Property => {
            return Ok(Wanted::Text {
                text: text.clone(),
                number: number_written(text),
                boolean: boolean_written(text),
            });
        }
        // Tags and aliases are text, whatever the YAML typed them as.
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    let name = match field {
        Field::Tags => text.trim().trim_start_matches('#').trim_end_matches('/'),
        _ => text.trim(),
    };
    if name.is_empty() {
        let (what, example) = match field {
            Field::Tags => ("tag", "`project` or `#project`"),
            _ => ("alias", "`Plan B`"),
        };
        return Err(PropertySearchError::NoName {
            key: shown(key),
            value: shown(&text),
            what,
            example,
        });
    }
    Ok(Wanted::Name(lowercase(name)))
}

/// Whether the property `value` holds `wanted` (a scalar), or holds it
/// among its items.
fn value_matches(wanted: &Wanted, value: &Value) -> bool {
    match value {
        Value::Array(items) => items.iter().any(|item| scalar_matches(wanted, item)),
        scalar => scalar_matches(wanted, scalar),
    }
}

/// Whether the scalar property `value` is `wanted`.
fn scalar_matches(wanted: &Wanted, value: &Value) -> bool {
    match (wanted, value) {
        (Wanted::Bool(want), Value::Bool(held)) => want == held,
        (Wanted::Bool(want), Value::String(held)) => boolean_written(held) == Some(*want),
        (Wanted::Number(want), Value::Number(held)) => numbers_equal(want, held),
        (Wanted::Number(want), Value::String(held)) => number_written(held)
            .zip(want.as_f64())
            .is_some_and(|(held, want)| held == want),
        (Wanted::Text { text, .. }, Value::String(held)) => text == held,
        (Wanted::Text { number, .. }, Value::Number(held)) => number
            .zip(held.as_f64())
            .is_some_and(|(want, held)| want == held),
        (Wanted::Text { boolean, .. }, Value::Bool(held)) => *boolean == Some(*held),
        _ => false,
    }
}

/// Whether two numbers are the same value: integers exactly, otherwise as
/// floats (`3` is `3.0`).
fn numbers_equal(a: &Number, b: &Number) -> bool {
    if let (Some(a), Some(b)) = (a.as_i64(), b.as_i64()) {
        return a == b;
    }
    if let (Some(a), Some(b)) = (a.as_u64(), b.as_u64()) {
        return a == b;
    }
    a.as_f64().zip(b.as_f64()).is_some_and(|(a, b)| a == b)
}

/// The finite number `text` writes out (`"3"`, `"-2.5"`, `"1e3"`), if any.
fn number_written(text: &str) -> Option<f64> {
    let text = text.trim();
    // `inf` and `NaN` parse as floats but are words here; so is "".
    if !text.starts_with(|c: char| c.is_ascii_digit() || matches!(c, '-' | '+' | '.')) {
        return None;
    }
    text.parse::<f64>().ok().filter(|number| number.is_finite())
}

/// The boolean `text` writes out (`"true"`, `"false"`), if any.
fn boolean_written(text: &str) -> Option<bool> {
    match text {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

/// Whether a property value is empty: `null`, `""`, `[]` or `{}`.
fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(text) => text.trim().is_empty(),
        Value::Array(items) => items.is_empty(),
        Value::Object(map) => map.is_empty(),
        Value::Bool(_) | Value::Number(_) => false,
    }
}

/// `text` folded for caseless comparison: lowercased one character at a
/// time, with the final sigma `ς` as `σ` (what full case folding does
/// beyond lowercasing for the names notes hold), so `ΣΊΣΥΦΟΣ` is
/// `Σίσυφος`.
fn folded(text: &str) -> impl Iterator<Item = char> + '_ {
    text.chars()
        .flat_map(char::to_lowercase)
        .map(|c| if c == 'ς' { 'σ' } else { c })
}

/// `text` folded ([`folded`]) into a string, once per wanted value.
fn lowercase(text: &str) -> String {
    folded(text).collect()
}

/// Whether `name` folded is `wanted` (already folded), without allocating.
fn caseless_eq(name: &str, wanted: &str) -> bool {
    folded(name).eq(wanted.chars())
}

/// Whether the tag `tag` is the tag `wanted` (folded, without `#`) or
/// nested beneath it (`project/quire` beneath `project`), ignoring case.
fn tag_matches(tag: &str, wanted: &str) -> bool {
    let mut held = folded(tag);
    for want in wanted.chars() {
        if held.next() != Some(want) {
            return false;
        }
    }
    matches!(held.next(), None | Some('/'))
}

#[cfg(test)]
#[path = "properties_tests.rs"]
mod tests;
