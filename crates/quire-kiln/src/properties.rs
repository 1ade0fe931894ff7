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
//!
//! A value may also be an object of operators, every one of which must
//! hold (`{"after": "2026-01-01", "before": "2026-02-01"}` is a range); in
//! a list, such an object is one more alternative:
//!
//! - `{"not": v}` (or a list of values): no value matches as `v` would
//!   match. A note without the key matches, as one with a broken
//!   frontmatter does; add `"exists": true` to leave them out.
//! - `{"exists": true}`: the key is in the frontmatter, whatever its value
//!   (even empty); `false`, it is not. For `tags` and `aliases`: the note
//!   has at least one (inline tags included).
//! - `{"before": v}`, `{"after": v}`: a value strictly before or after `v`,
//!   which is a date written `YYYY-MM-DD` (compared as dates; a date and
//!   time held, `2024-01-05T10:30:00Z`, compares by its date) or a number
//!   (compared as numbers; a string writing one out counts, as for
//!   equality). A held value of the other kind, or of neither, does not
//!   match; a list property matches when one of its items does. Anything
//!   else as `v` is refused, and so is a comparison of `tags` or
//!   `aliases`, which hold names.
//!
//! Any other key in the object is refused, naming the four.

use std::cmp::Ordering;

use chrono::NaiveDate;
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
    /// string, number, boolean or null, an object of operators (`not`,
    /// `exists`, `before`, `after`: see the module documentation), or a
    /// list of them (any one matches). Every key must match. Example:
    /// {"status": {"not": "done"}, "due": {"before": "2026-12-01"},
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
    /// An object of operators with a key that is none of [`PROPERTY_OPERATORS`].
    #[error(
        "`properties.{key}` holds an object with `{operator}`, which is no operator; give a value, \
         or an object of the operators `not`, `exists`, `before` and `after`, such as \
         {{\"{key}\": {{\"not\": \"done\"}}}} or {{\"{key}\": {{\"before\": \"2026-12-01\"}}}}"
    )]
    UnknownOperator {
        /// The key, for display.
        key: String,
        /// The operator written, for display.
        operator: String,
    },
    /// An object of operators with none in it (`{}`).
    #[error(
        "`properties.{key}` holds an object without an operator; give a value, or an object of \
         the operators `not`, `exists`, `before` and `after`, such as {{\"{key}\": {{\"exists\": true}}}}"
    )]
    NoOperator {
        /// The key, for display.
        key: String,
    },
    /// An operator given what it cannot take.
    #[error("`properties.{key}.{operator}` is {given}; {expected}")]
    BadOperand {
        /// The key, for display.
        key: String,
        /// The operator.
        operator: &'static str,
        /// What was given, for display.
        given: String,
        /// What to give instead.
        expected: &'static str,
    },
    /// `before` or `after` on `tags` or `aliases`, which hold names.
    #[error(
        "`properties.{key}.{operator}` compares dates and numbers, but `{key}` holds names; use \
         a value, `not` or `exists` with it"
    )]
    NamesNotOrdered {
        /// The key, for display.
        key: String,
        /// `before` or `after`.
        operator: &'static str,
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

/// One key and what it must hold: one of the `wanted` values, or every
/// operator of one of the `conditions` (the operator objects given).
#[derive(Clone, Debug, PartialEq)]
struct Criterion {
    key: String,
    field: Field,
    wanted: Vec<Wanted>,
    conditions: Vec<Vec<Operator>>,
}

/// The operators an object of operators may hold, as the errors name them.
pub const PROPERTY_OPERATORS: [&str; 4] = ["not", "exists", "before", "after"];

/// One operator of an operator object.
#[derive(Clone, Debug, PartialEq)]
enum Operator {
    /// `{"not": v}`: none of the values matches.
    Not(Vec<Wanted>),
    /// `{"exists": flag}`: whether the key is there.
    Exists(bool),
    /// `{"before": v}`: a value strictly less than the bound.
    Before(Bound),
    /// `{"after": v}`: a value strictly greater than the bound.
    After(Bound),
}

/// What `before` and `after` compare with: a date or a number, never
/// each other.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Bound {
    /// A day written `YYYY-MM-DD`.
    Date(NaiveDate),
    /// A number.
    Number(f64),
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
        self.criteria
            .iter()
            .all(|criterion| criterion.holds(facts, frontmatter))
    }
}

impl Criterion {
    /// Whether the note with `facts` (and `frontmatter`, when it parsed)
    /// holds one wanted value or satisfies one operator object.
    fn holds(&self, facts: &NoteFacts, frontmatter: Option<&Map<String, Value>>) -> bool {
        self.wanted
            .iter()
            .any(|wanted| self.finds(wanted, facts, frontmatter))
            || self.conditions.iter().any(|operators| {
                operators
                    .iter()
                    .all(|operator| self.satisfies(operator, facts, frontmatter))
            })
    }

    /// Whether the note holds `wanted`.
    fn finds(
        &self,
        wanted: &Wanted,
        facts: &NoteFacts,
        frontmatter: Option<&Map<String, Value>>,
    ) -> bool {
        match wanted {
            // `null` asks about the key as written in the frontmatter,
            // whatever the field.
            Wanted::Empty => self.value(frontmatter).is_some_and(is_empty),
            Wanted::Name(name) => match self.field {
                Field::Tags => facts.tags.iter().any(|tag| tag_matches(tag, name)),
                _ => facts.aliases.iter().any(|alias| caseless_eq(alias, name)),
            },
            _ => self
                .value(frontmatter)
                .is_some_and(|value| value_matches(wanted, value)),
        }
    }

    /// Whether the note satisfies `operator`.
    fn satisfies(
        &self,
        operator: &Operator,
        facts: &NoteFacts,
        frontmatter: Option<&Map<String, Value>>,
    ) -> bool {
        match operator {
            Operator::Not(values) => !values
                .iter()
                .any(|wanted| self.finds(wanted, facts, frontmatter)),
            Operator::Exists(wanted) => self.present(facts, frontmatter) == *wanted,
            Operator::Before(bound) => self
                .value(frontmatter)
                .is_some_and(|value| ordered(value, bound, Ordering::Less)),
            Operator::After(bound) => self
                .value(frontmatter)
                .is_some_and(|value| ordered(value, bound, Ordering::Greater)),
        }
    }

    /// The frontmatter's value of the key, if it has one.
    fn value<'a>(&self, frontmatter: Option<&'a Map<String, Value>>) -> Option<&'a Value> {
        frontmatter.and_then(|values| values.get(&self.key))
    }

    /// Whether the note has the key: tags and aliases as matched (merged,
    /// so an inline tag counts), any other key in the frontmatter.
    fn present(&self, facts: &NoteFacts, frontmatter: Option<&Map<String, Value>>) -> bool {
        match self.field {
            Field::Tags => !facts.tags.is_empty(),
            Field::Aliases => !facts.aliases.is_empty(),
            Field::Property => self.value(frontmatter).is_some(),
        }
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
    let mut wanted_values = Vec::new();
    let mut conditions = Vec::new();
    for value in values {
        match value {
            Value::Object(operators) => conditions.push(operators_of(key, field, operators)?),
            value => wanted_values.push(wanted(key, field, value)?),
        }
    }
    Ok(Criterion {
        key: key.to_owned(),
        field,
        wanted: wanted_values,
        conditions,
    })
}

/// The operators of one operator object given for `key`.
fn operators_of(
    key: &str,
    field: Field,
    operators: &Map<String, Value>,
) -> Result<Vec<Operator>, PropertySearchError> {
    if operators.is_empty() {
        return Err(PropertySearchError::NoOperator { key: shown(key) });
    }
    operators
        .iter()
        .map(|(operator, operand)| operator_of(key, field, operator, operand))
        .collect()
}

/// What `operand` asks of `key` with `operator`.
fn operator_of(
    key: &str,
    field: Field,
    operator: &str,
    operand: &Value,
) -> Result<Operator, PropertySearchError> {
    let bad = |operator: &'static str, expected: &'static str| PropertySearchError::BadOperand {
        key: shown(key),
        operator,
        given: given(operand),
        expected,
    };
    match operator {
        "not" => {
            let values = match operand {
                Value::Array(values) if values.len() > MAX_WANTED_VALUES => {
                    return Err(PropertySearchError::TooManyValues {
                        key: format!("{}.not", shown(key)),
                        count: values.len(),
                    });
                }
                Value::Array(values) => values.as_slice(),
                single => std::slice::from_ref(single),
            };
            let scalars = !values.is_empty()
                && values
                    .iter()
                    .all(|value| !matches!(value, Value::Array(_) | Value::Object(_)));
            if !scalars {
                return Err(bad(
                    "not",
                    "give a string, number, boolean or null, or a list of them (a note holding \
                     none of them matches), such as {\"not\": \"done\"}",
                ));
            }
            let wanted = values
                .iter()
                .map(|value| wanted(key, field, value))
                .collect::<Result<_, _>>()?;
            Ok(Operator::Not(wanted))
        }
        "exists" => match operand {
            Value::Bool(flag) => Ok(Operator::Exists(*flag)),
            _ => Err(bad(
                "exists",
                "give true (the note has the property) or false (it has not)",
            )),
        },
        "before" | "after" => {
            let operator = if operator == "before" {
                "before"
            } else {
                "after"
            };
            if field != Field::Property {
                return Err(PropertySearchError::NamesNotOrdered {
                    key: shown(key),
                    operator,
                });
            }
            let bound = bound(operand).ok_or_else(|| {
                bad(
                    operator,
                    "give a date written YYYY-MM-DD, such as \"2026-12-01\", or a number, such \
                     as 3",
                )
            })?;
            Ok(if operator == "before" {
                Operator::Before(bound)
            } else {
                Operator::After(bound)
            })
        }
        other => Err(PropertySearchError::UnknownOperator {
            key: shown(key),
            operator: shown(other),
        }),
    }
}

/// An operand as an error quotes it: JSON, on one line, clipped.
fn given(operand: &Value) -> String {
    match operand {
        Value::Object(_) => "an object".to_owned(),
        Value::Array(items) if items.is_empty() => "an empty list".to_owned(),
        other => format!("`{}`", shown(&other.to_string())),
    }
}

/// The date or number `operand` names, if it names one.
fn bound(operand: &Value) -> Option<Bound> {
    match operand {
        Value::Number(number) => number.as_f64().map(Bound::Number),
        Value::String(text) => date_written(text.trim())
            .map(Bound::Date)
            .or_else(|| number_written(text).map(Bound::Number)),
        _ => None,
    }
}

/// Whether the property `value` (or one of its items) compares with
/// `bound` as `wanted`.
fn ordered(value: &Value, bound: &Bound, wanted: Ordering) -> bool {
    match value {
        Value::Array(items) => items
            .iter()
            .any(|item| compare(item, bound) == Some(wanted)),
        scalar => compare(scalar, bound) == Some(wanted),
    }
}

/// How the scalar `held` compares with `bound`, when both are dates or
/// both numbers.
fn compare(held: &Value, bound: &Bound) -> Option<Ordering> {
    match (bound, held) {
        (Bound::Date(bound), Value::String(text)) => date_held(text).map(|held| held.cmp(bound)),
        (Bound::Number(bound), Value::Number(held)) => held.as_f64()?.partial_cmp(bound),
        (Bound::Number(bound), Value::String(text)) => number_written(text)?.partial_cmp(bound),
        _ => None,
    }
}

/// The day `text` writes as exactly `YYYY-MM-DD`, if it is one of the
/// calendar.
fn date_written(text: &str) -> Option<NaiveDate> {
    let bytes = text.as_bytes();
    let shape = bytes.len() == 10
        && bytes.iter().enumerate().all(|(at, byte)| match at {
            4 | 7 => *byte == b'-',
            _ => byte.is_ascii_digit(),
        });
    if !shape {
        return None;
    }
    let number = |range: std::ops::Range<usize>| text[range].parse::<u32>().ok();
    let year = i32::try_from(number(0..4)?).ok()?;
    NaiveDate::from_ymd_opt(year, number(5..7)?, number(8..10)?)
}

/// The day a held value names: a date, or a date and time (`T` or a space
/// after the date), compared by its date.
fn date_held(text: &str) -> Option<NaiveDate> {
    let text = text.trim();
    let (date, rest) = (text.get(..10)?, text.get(10..)?);
    if !(rest.is_empty() || rest.starts_with(['T', ' '])) {
        return None;
    }
    date_written(date)
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
