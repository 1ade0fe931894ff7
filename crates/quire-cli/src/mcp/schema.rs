//! The tools' JSON Schemas, in the subset of JSON Schema every MCP client
//! reads.
//!
//! schemars writes good 2020-12 schemas, but three of its habits trip
//! clients today: `$ref` into `$defs` (several clients drop or mangle
//! references in an input schema), a choice of names as `oneOf` a list of
//! `{"const": ...}` (a client that builds a form wants a plain `enum`), and
//! `format`s of its own (`uint`, `uint8`, `float`, ...) that no validator
//! knows. [`input`] and [`output`] generate with schemars and then rewrite
//! those three: input schemas are inlined whole (no `$ref`, no `$defs`),
//! every choice of constants becomes an `enum` whose meanings move into the
//! description, and only the formats JSON Schema defines stay (the bounds
//! schemars writes beside its own formats, `minimum` and `maximum`, stay).
//! Output schemas keep their `$defs` (a result is not filled in by the
//! client, and inlining them would repeat shared types).

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rmcp::model::JsonObject;
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

/// The `format`s JSON Schema 2020-12 defines; any other is dropped.
const STANDARD_FORMATS: [&str; 19] = [
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// The input schema of a tool whose arguments decode into `T`: an object,
/// inlined whole, with no top-level `title` or `description` (the type's
/// name and doc, noise to a model).
pub(super) fn input<T: JsonSchema + Any>() -> Arc<JsonObject> {
    cached::<T>(Purpose::Input)
}

/// The output schema of a tool whose structured result serializes `T`.
pub(super) fn output<T: JsonSchema + Any>() -> Arc<JsonObject> {
    cached::<T>(Purpose::Output)
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Purpose {
    Input,
    Output,
}

/// Schemas already generated, by type and purpose: a tool list is asked
/// for on every `tools/list`, and a type's schema never changes.
type Generated = HashMap<(TypeId, Purpose), Arc<JsonObject>>;

fn cached<T: JsonSchema + Any>(purpose: Purpose) -> Arc<JsonObject> {
    static CACHE: Mutex<Option<Generated>> = Mutex::new(None);
    let key = (TypeId::of::<T>(), purpose);
    // A poisoned cache only means another thread panicked while inserting;
    // the map itself is still whole.
    let mut cache = CACHE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let cache = cache.get_or_insert_with(HashMap::new);
    cache
        .entry(key)
        .or_insert_with(|| Arc::new(generate::<T>(purpose)))
        .clone()
}

fn generate<T: JsonSchema>(purpose: Purpose) -> JsonObject {
    let settings = match purpose {
        Purpose::Input => SchemaSettings::draft2020_12().with(|s| s.inline_subschemas = true),
        Purpose::Output => SchemaSettings::draft2020_12().for_serialize(),
    };
    let schema = settings.into_generator().into_root_schema_for::<T>();
    let mut value = schema.to_value();
    plain(&mut value);
    let Value::Object(mut object) = value else {
        unreachable!("a root schema of a struct is an object, schemars writes `true` only for `()`")
    };
    object.remove("title");
    object.remove("description");
    object
}

/// Rewrites `schema` (and every schema inside it) into the subset the
/// module doc names.
pub(super) fn plain(schema: &mut Value) {
    match schema {
        Value::Object(object) => {
            for value in object.values_mut() {
                plain(value);
            }
            drop_unknown_format(object);
            for keyword in ["oneOf", "anyOf"] {
                constants_as_enum(object, keyword);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(plain),
        _ => {}
    }
}

fn drop_unknown_format(object: &mut Map<String, Value>) {
    if let Some(Value::String(format)) = object.get("format")
        && !STANDARD_FORMATS.contains(&format.as_str())
    {
        object.remove("format");
    }
}

/// `{"oneOf": [{"const": "a", "description": "..."}, ...]}` becomes
/// `{"enum": ["a", ...]}`, each meaning a line of the description. A
/// `{"type": "null"}` branch (an optional choice) becomes `null` in the
/// enum. Left alone when any branch is more than a constant.
fn constants_as_enum(object: &mut Map<String, Value>, keyword: &str) {
    let Some(Value::Array(branches)) = object.get(keyword) else {
        return;
    };
    let mut values = Vec::with_capacity(branches.len());
    let mut meanings = Vec::new();
    let mut types: Vec<&str> = Vec::new();
    for branch in branches {
        let Value::Object(branch) = branch else {
            return;
        };
        let only_known_keys = branch.keys().all(|key| {
            matches!(
                key.as_str(),
                "const" | "enum" | "type" | "description" | "title"
            )
        });
        if !only_known_keys {
            return;
        }
        let branch_values: Vec<&Value> = match (branch.get("const"), branch.get("enum")) {
            (Some(value), None) => vec![value],
            (None, Some(Value::Array(listed))) => listed.iter().collect(),
            (None, None) if branch.get("type") == Some(&Value::String("null".into())) => {
                vec![&Value::Null]
            }
            _ => return,
        };
        match (branch.get("description"), branch_values.as_slice()) {
            (Some(Value::String(meaning)), [value]) => {
                meanings.push(format!("`{}`: {}", display(value), sentence(meaning)));
            }
            (Some(Value::String(meaning)), _) => meanings.push(sentence(meaning).to_owned()),
            _ => {}
        }
        for value in branch_values {
            let kind = json_type(value);
            if !types.contains(&kind) {
                types.push(kind);
            }
            values.push(value.clone());
        }
    }
    // A description that already names every value says what they mean.
    let described = match object.get("description") {
        Some(Value::String(before)) => values
            .iter()
            .all(|value| value.is_null() || before.contains(&format!("`{}`", display(value)))),
        _ => false,
    };
    object.remove(keyword);
    object.insert(
        "type".to_owned(),
        match types.as_slice() {
            [one] => Value::String((*one).to_owned()),
            many => Value::Array(
                many.iter()
                    .map(|t| Value::String((*t).to_owned()))
                    .collect(),
            ),
        },
    );
    object.insert("enum".to_owned(), Value::Array(values));
    if !meanings.is_empty() && !described {
        let meanings = meanings.join("; ");
        let description = match object.get("description") {
            Some(Value::String(before)) => format!("{} {meanings}.", before.trim_end()),
            _ => format!("{meanings}."),
        };
        object.insert("description".to_owned(), Value::String(description));
    }
}

/// A meaning as a clause of a longer sentence: trimmed, without its full stop.
fn sentence(meaning: &str) -> &str {
    let meaning = meaning.trim();
    meaning.strip_suffix('.').unwrap_or(meaning)
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn display(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_choice_of_constants_is_a_plain_enum_with_its_meanings_described() {
        let mut schema = json!({
            "description": "How to sort.",
            "oneOf": [
                {"type": "string", "const": "name", "description": "by name"},
                {"type": "string", "const": "mtime", "description": "newest first."}
            ]
        });
        plain(&mut schema);
        assert_eq!(
            schema,
            json!({
                "description": "How to sort. `name`: by name; `mtime`: newest first.",
                "type": "string",
                "enum": ["name", "mtime"]
            })
        );
    }

    #[test]
    fn a_description_that_names_every_value_is_kept_as_it_is() {
        let mut schema = json!({
            "description": "`a` or `b`.",
            "oneOf": [{"const": "a", "description": "A."}, {"const": "b", "description": "B."}]
        });
        plain(&mut schema);
        assert_eq!(
            schema,
            json!({"description": "`a` or `b`.", "type": "string", "enum": ["a", "b"]})
        );
    }

    #[test]
    fn an_optional_choice_keeps_null_among_its_values() {
        let mut schema = json!({"anyOf": [{"const": "a"}, {"const": "b"}, {"type": "null"}]});
        plain(&mut schema);
        assert_eq!(
            schema,
            json!({"type": ["string", "null"], "enum": ["a", "b", null]})
        );
    }

    #[test]
    fn a_choice_of_shapes_is_left_as_it_is() {
        let before = json!({"oneOf": [{"const": "a"}, {"type": "object", "properties": {}}]});
        let mut schema = before.clone();
        plain(&mut schema);
        assert_eq!(schema, before);
    }

    #[test]
    fn only_standard_formats_stay_and_bounds_stay_with_them() {
        let mut schema = json!({
            "properties": {
                "limit": {"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255},
                "score": {"type": "number", "format": "float"},
                "when": {"type": "string", "format": "date-time"}
            }
        });
        plain(&mut schema);
        assert_eq!(
            schema,
            json!({
                "properties": {
                    "limit": {"type": "integer", "minimum": 0, "maximum": 255},
                    "score": {"type": "number"},
                    "when": {"type": "string", "format": "date-time"}
                }
            })
        );
    }

    #[derive(JsonSchema)]
    #[allow(dead_code, reason = "only its schema is read")]
    struct Inner {
        /// A count.
        count: u32,
    }

    #[derive(JsonSchema)]
    #[allow(dead_code, reason = "only its schema is read")]
    struct Outer {
        first: Inner,
        second: Option<Inner>,
    }

    #[test]
    fn an_input_schema_is_inlined_whole() {
        let schema = Value::Object((*input::<Outer>()).clone());
        let text = schema.to_string();
        assert!(!text.contains("$ref") && !text.contains("$defs"), "{text}");
        assert_eq!(
            schema["properties"]["first"]["properties"]["count"]["minimum"],
            0
        );
        assert!(schema.get("title").is_none());
    }
}
