//! The MCP tool list (names, descriptions, annotations, input and output
//! schemas) as clients see it. A change here changes the server's contract.

use quire_cli::mcp::{QuireServer, Toolset, WritePolicy};
use quire_fs::Workspace;
use serde_json::Value;

/// Every tool of this build, writes included.
fn every_tool() -> Vec<(String, Value, Value)> {
    let folder = tempfile::tempdir().unwrap();
    let server =
        QuireServer::new(Workspace::new(folder.path()).unwrap(), &Toolset::ALL).allowing_writes();
    server
        .tools()
        .into_iter()
        .map(|tool| {
            (
                tool.name.to_string(),
                Value::Object((*tool.input_schema).clone()),
                Value::Object(tool.output_schema.as_deref().cloned().unwrap_or_default()),
            )
        })
        .collect()
}

/// Every schema inside `schema` (itself included), with its JSON pointer.
fn schemas_within<'a>(schema: &'a Value, at: String, found: &mut Vec<(String, &'a Value)>) {
    match schema {
        Value::Object(object) => {
            found.push((at.clone(), schema));
            for (key, value) in object {
                schemas_within(value, format!("{at}/{key}"), found);
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                schemas_within(item, format!("{at}/{index}"), found);
            }
        }
        _ => {}
    }
}

#[test]
#[cfg_attr(
    not(feature = "nova"),
    ignore = "the snapshot is of a build with the nova tools"
)]
fn tools_list_is_stable() {
    let folder = tempfile::tempdir().unwrap();
    let server =
        QuireServer::new(Workspace::new(folder.path()).unwrap(), &Toolset::ALL).allowing_writes();
    let tools = serde_json::to_value(server.tools()).unwrap();
    insta::with_settings!({ snapshot_path => "../snapshots", prepend_module_to_snapshot => false }, {
        insta::assert_json_snapshot!("mcp__tools_list", tools);
    });
}

#[test]
fn write_tools_are_offered_only_when_allowed() {
    let folder = tempfile::tempdir().unwrap();
    let names = |server: &QuireServer| -> Vec<String> {
        server
            .tools()
            .iter()
            .map(|tool| tool.name.to_string())
            .collect()
    };
    let writes = ["create_note", "update_note", "delete_note"];
    let default = QuireServer::new(Workspace::new(folder.path()).unwrap(), &Toolset::ALL);
    assert!(
        names(&default)
            .iter()
            .all(|name| !writes.contains(&name.as_str()))
    );
    let allowed = default.clone().allowing_writes();
    for write in writes {
        assert!(names(&allowed).contains(&write.to_owned()), "{write}");
        assert!(QuireServer::is_write_tool(write));
    }
    // Without the kiln toolset, allowing writes offers nothing more.
    let tracker = QuireServer::new(Workspace::new(folder.path()).unwrap(), &[Toolset::Tracker]);
    assert_eq!(names(&tracker.clone().allowing_writes()), names(&tracker));
}

#[test]
fn every_tool_declares_an_output_schema_and_annotations() {
    let folder = tempfile::tempdir().unwrap();
    let server =
        QuireServer::new(Workspace::new(folder.path()).unwrap(), &Toolset::ALL).allowing_writes();
    for tool in server.tools() {
        assert!(
            tool.output_schema.is_some(),
            "{} has no output schema",
            tool.name
        );
        assert!(
            tool.annotations.is_some(),
            "{} has no annotations",
            tool.name
        );
        let input = serde_json::Value::Object((*tool.input_schema).clone());
        assert_eq!(
            input["additionalProperties"], false,
            "{} accepts unknown properties",
            tool.name
        );
    }
}

/// The instructions a client gets at `initialize` speak of the toolsets
/// served only: a tracker-only server must not send a client to
/// `gather_requirements`, which it does not offer.
#[test]
fn the_instructions_speak_of_the_toolsets_served_only() {
    use rmcp::ServerHandler;

    let folder = tempfile::tempdir().unwrap();
    let instructions = |toolsets: &[Toolset]| {
        QuireServer::new(Workspace::new(folder.path()).unwrap(), toolsets)
            .get_info()
            .instructions
            .unwrap_or_default()
    };
    let tracker = instructions(&[Toolset::Tracker]);
    assert!(tracker.contains("update_tracker_status"), "{tracker}");
    for word in ["gather_requirements", "planner", "plan"] {
        assert!(!tracker.contains(word), "{word}: {tracker}");
    }
    let planner = instructions(&[Toolset::Planner]);
    assert!(
        planner.contains("call gather_requirements first"),
        "{planner}"
    );
    assert!(!planner.contains("tracker"), "{planner}");
    let both = instructions(&Toolset::ALL);
    assert!(
        both.contains("update_tracker_status") && both.contains("call gather_requirements first"),
        "{both}"
    );
}

/// The subset of JSON Schema every client reads (issue 25): no references
/// in an input schema, a choice of names as a plain `enum`, only the
/// formats JSON Schema defines; and every schema compiles.
#[test]
fn every_schema_is_in_the_subset_every_client_reads() {
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
    for (name, input, output) in every_tool() {
        let text = input.to_string();
        for reference in ["$ref", "$defs", "definitions"] {
            assert!(
                !text.contains(reference),
                "{name}'s input schema has {reference}: {text}"
            );
        }
        for (side, schema) in [("input", &input), ("output", &output)] {
            jsonschema::validator_for(schema)
                .unwrap_or_else(|error| panic!("{name}'s {side} schema does not compile: {error}"));
            let mut found = Vec::new();
            schemas_within(schema, String::new(), &mut found);
            for (at, schema) in found {
                if let Some(format) = schema.get("format").and_then(Value::as_str) {
                    assert!(
                        STANDARD_FORMATS.contains(&format),
                        "{name}'s {side} schema: format {format:?} at {at}"
                    );
                }
                for keyword in ["oneOf", "anyOf"] {
                    if let Some(Value::Array(branches)) = schema.get(keyword) {
                        let all_constants = branches.iter().all(|branch| {
                            branch.get("const").is_some()
                                || branch.get("type") == Some(&"null".into())
                        });
                        assert!(
                            !all_constants,
                            "{name}'s {side} schema: a {keyword} of constants at {at}, not an enum"
                        );
                    }
                }
            }
        }
    }
}

/// Every bound an input's description states (`(1 to 1,000)`, `from 1`,
/// `at most 120 characters`) is the schema's `minimum`/`maximum` (or, for
/// a string, `minLength`/`maxLength`), so a client that checks arguments
/// against the schema refuses what the server would.
#[test]
fn every_bound_a_description_states_is_in_the_schema() {
    fn number(text: &str) -> f64 {
        text.replace(',', "").parse().unwrap()
    }
    fn bound(schema: &Value, key: &str) -> Option<f64> {
        schema.get(key).and_then(Value::as_f64)
    }
    let mut checked = 0;
    for (name, input, _) in every_tool() {
        let mut found = Vec::new();
        schemas_within(&input, String::new(), &mut found);
        for (at, schema) in found {
            let Some(description) = schema.get("description").and_then(Value::as_str) else {
                continue;
            };
            let description = description.replace('\n', " ");
            let is_string = schema.get("type") == Some(&"string".into());
            let (low, high) = if is_string {
                ("minLength", "maxLength")
            } else {
                ("minimum", "maximum")
            };
            let words: Vec<&str> = description.split_whitespace().collect();
            for window in words.windows(3) {
                let clean = |word: &str| {
                    word.trim_matches(|c: char| !(c.is_ascii_digit() || c == '-'))
                        .to_owned()
                };
                let is_number = |word: &str| {
                    let word = clean(word).replace(',', "");
                    !word.is_empty() && word.parse::<f64>().is_ok()
                };
                if schema.get("type") == Some(&"array".into()) {
                    continue; // "at most 4 levels": a depth, not a length
                }
                if is_number(window[0]) && window[1] == "to" && is_number(window[2]) {
                    let (from, to) = (number(&clean(window[0])), number(&clean(window[2])));
                    assert_eq!(bound(schema, low), Some(from), "{name} {at}: {description}");
                    assert_eq!(bound(schema, high), Some(to), "{name} {at}: {description}");
                    checked += 1;
                }
                if window[0] == "at" && window[1] == "most" && is_number(window[2]) {
                    assert_eq!(
                        bound(schema, high),
                        Some(number(&clean(window[2]))),
                        "{name} {at}: {description}"
                    );
                    checked += 1;
                }
                if window[1] == "from" && is_number(window[2]) && window[0].ends_with(',') {
                    assert_eq!(
                        bound(schema, low),
                        Some(number(&clean(window[2]))),
                        "{name} {at}: {description}"
                    );
                    checked += 1;
                }
            }
        }
    }
    // list_notes, property_search, the two queries, semantic_search's limit
    // and min_score, text_search's context and limit, start_line, the title.
    assert!(
        checked >= 10,
        "only {checked} bounds found in the descriptions"
    );
}

/// The instructions name every tool a client is given, so an agent that
/// reads them first knows what each is for (issue 25).
#[test]
fn the_instructions_name_every_tool_served() {
    use rmcp::ServerHandler;

    let folder = tempfile::tempdir().unwrap();
    for policy in [WritePolicy::Deny, WritePolicy::Ask, WritePolicy::Allow] {
        let server = QuireServer::new(Workspace::new(folder.path()).unwrap(), &Toolset::ALL)
            .with_writes(policy);
        let instructions = server.get_info().instructions.unwrap_or_default();
        for tool in server.tools() {
            assert!(
                instructions.contains(tool.name.as_ref()),
                "{policy:?}: the instructions do not name {}: {instructions}",
                tool.name
            );
        }
    }
}
