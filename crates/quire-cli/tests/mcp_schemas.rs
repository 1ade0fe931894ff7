//! Every tool's input and output schema, as `tools/list` gives them, checked
//! with a JSON Schema Draft 2020-12 validator (the `jsonschema` crate, the
//! dialect MCP names): each schema is a valid schema and every `$ref` in it
//! resolves; sample arguments are accepted or refused by the input schema as
//! the server accepts or refuses them; and real results, from the tools
//! driven through every planner stage (in a git repository and in a plan
//! file) and through each tracker outcome, match the output schemas.
//!
//! A client such as Python's `jsonschema` resolves `#/$defs/...` from the
//! root of the schema; a definition nested anywhere else is a reference to
//! nowhere (`PointerToNowhere`), which is what building a validator here
//! catches.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::process::Command;

use quire_cli::mcp::{CallOutcome, QuireServer, Toolset, call_in_process};
use quire_fs::Workspace;
use serde_json::{Value, json};

/// The served tools by name: (input schema, output schema).
fn schemas(server: &QuireServer) -> BTreeMap<String, (Value, Value)> {
    server
        .tools()
        .into_iter()
        .map(|tool| {
            let input = Value::Object((*tool.input_schema).clone());
            let output = Value::Object(
                tool.output_schema
                    .as_deref()
                    .cloned()
                    .unwrap_or_else(|| panic!("{} has no output schema", tool.name)),
            );
            (tool.name.to_string(), (input, output))
        })
        .collect()
}

/// A Draft 2020-12 validator for `schema`, after checking it against the
/// meta-schema. Building it resolves every reference, so a `$ref` to nowhere
/// fails here.
#[track_caller]
fn validator(tool: &str, which: &str, schema: &Value) -> jsonschema::Validator {
    assert_eq!(
        schema["$schema"], "https://json-schema.org/draft/2020-12/schema",
        "{tool}'s {which} schema names another dialect"
    );
    if let Err(error) = jsonschema::draft202012::meta::validate(schema) {
        panic!("{tool}'s {which} schema is not a valid Draft 2020-12 schema: {error}\n{schema:#}");
    }
    jsonschema::draft202012::new(schema).unwrap_or_else(|error| {
        panic!("{tool}'s {which} schema cannot be used: {error}\n{schema:#}")
    })
}

/// Every `$ref` in `schema`, to check that each is resolved by use.
fn references(schema: &Value, found: &mut Vec<String>) {
    match schema {
        Value::Object(map) => {
            for (key, value) in map {
                match (key.as_str(), value) {
                    ("$ref", Value::String(reference)) => found.push(reference.clone()),
                    _ => references(value, found),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| references(item, found)),
        _ => {}
    }
}

/// Arguments each input schema must accept, and arguments it must refuse.
fn samples() -> BTreeMap<&'static str, (Vec<Value>, Vec<Value>)> {
    let goal = json!({"type": "feat", "scope": "cli", "breaking": false, "title": "Add a hook"});
    #[cfg_attr(not(feature = "nova"), allow(unused_mut))]
    let mut samples = BTreeMap::from([
        (
            "gather_requirements",
            (
                vec![json!({}), json!({"include_diff": true})],
                vec![json!({"stage": 1}), json!({"include_diff": "yes"})],
            ),
        ),
        (
            "set_overarching_goal",
            (
                vec![
                    json!({ "goal": goal }),
                    json!({ "goal": goal, "start_new": false, "include_diff": true }),
                ],
                vec![
                    json!({}),
                    json!({"goal": goal, "include_diff": 1}),
                    json!({"goal": "feat(cli): Add a hook"}),
                    json!({"goal": {"type": "feature", "scope": "cli", "breaking": false, "title": "x"}}),
                    json!({"goal": goal, "extra": true}),
                ],
            ),
        ),
        (
            "set_detailed_goal",
            (
                vec![
                    json!({"description": "Why.\n- Never: skip the tests"}),
                    json!({"description": "Why.", "include_diff": false}),
                ],
                vec![
                    json!({}),
                    json!({"description": 7}),
                    json!({"description": "Why.", "include_diff": null}),
                ],
            ),
        ),
        (
            "set_plan",
            (
                vec![
                    json!({"plan": [[false, "Parse", []]]}),
                    json!({"plan": [[true, "Parse", [[false, "Headers", [[false, "Scopes", [[true, "Case", []]]]]]]], [false, "Docs", []]]}),
                    json!({"plan": [[false, "Parse", []]], "include_diff": true}),
                ],
                vec![
                    json!({}),
                    json!({"plan": "- [ ]: Parse"}),
                    json!({"plan": [[false, "Parse"]]}),
                    json!({"plan": [[false, "Parse", [], 4]]}),
                    json!({"plan": [["no", "Parse", []]]}),
                    // Wrong only inside a subtask: only a resolved `Task`
                    // reference sees it.
                    json!({"plan": [[false, "Parse", [[false, 3, []]]]]}),
                    json!({"plan": [[false, "Parse", [[false, "Headers", [["x", "Scopes", []]]]]]]}),
                ],
            ),
        ),
        (
            "mark_task",
            (
                vec![
                    json!({"task_id": "1.2"}),
                    json!({"task_id": "Parse", "completed": false}),
                    json!({"task_id": "Parse", "include_diff": true}),
                ],
                vec![
                    json!({}),
                    json!({"task_id": "1", "include_diff": "true"}),
                    json!({"task_id": 1}),
                    json!({"task_id": "1", "completed": "yes"}),
                ],
            ),
        ),
        (
            "finish_job",
            (
                vec![json!({}), json!({"include_diff": false})],
                vec![json!({"force": true}), json!({"include_diff": []})],
            ),
        ),
        (
            "create_note",
            (
                vec![
                    json!({"path": "a", "content": "x"}),
                    json!({"path": "a/b.md", "content": "", "frontmatter": {"tags": ["x"], "n": 1}}),
                ],
                vec![
                    json!({"path": "a"}),
                    json!({"path": "a", "content": 1}),
                    json!({"path": "a", "content": "x", "frontmatter": [1]}),
                ],
            ),
        ),
        (
            "delete_note",
            (
                vec![
                    json!({"path": "a"}),
                    json!({"path": "a", "permanent": true}),
                ],
                vec![json!({}), json!({"path": "a", "permanent": "yes"})],
            ),
        ),
        (
            "find_links",
            (
                vec![
                    json!({"kind": "broken"}),
                    json!({"kind": "orphans", "folder": "projects", "limit": 5, "cursor": "p1.61"}),
                    json!({"kind": "neighbours", "path": "[[Plan]]", "depth": 3}),
                ],
                vec![
                    json!({}),
                    json!({"kind": "neighbors", "path": "Plan"}),
                    json!({"kind": "broken", "limit": 0}),
                    json!({"kind": "broken", "limit": 1001}),
                    json!({"kind": "neighbours", "path": "Plan", "depth": 0}),
                    json!({"kind": "neighbours", "path": "Plan", "depth": 4}),
                    json!({"kind": "broken", "note": "Plan"}),
                ],
            ),
        ),
        (
            "get_kiln_info",
            (
                vec![json!({}), json!({"detailed": true})],
                vec![json!({"detailed": "yes"}), json!({"verbose": true})],
            ),
        ),
        (
            "list_notes",
            (
                vec![
                    json!({}),
                    json!({"folder": "projects", "recursive": false, "include_frontmatter": true, "limit": 5, "cursor": "p1.61"}),
                ],
                vec![
                    json!({"limit": -1}),
                    json!({"limit": 0}),
                    json!({"limit": 1001}),
                    json!({"recursive": "yes"}),
                    json!({"folders": "a"}),
                ],
            ),
        ),
        (
            "property_search",
            (
                vec![
                    json!({"properties": {"status": "active"}}),
                    json!({"properties": {"tags": ["a", "#b"], "n": 3, "done": true, "x": null}, "folder": "p", "limit": 5, "cursor": "p1.61"}),
                    json!({"properties": {"status": {"not": "done"}, "due": {"after": "2026-01-01", "before": "2026-12-01"}, "n": {"before": 3}}}),
                    json!({"properties": {"s": ["a", {"exists": false}], "t": {"not": ["a", null]}}}),
                ],
                vec![
                    json!({}),
                    json!({"properties": "status"}),
                    json!({"properties": {"s": {"a": 1}}}),
                    json!({"properties": {"s": {}}}),
                    json!({"properties": {"s": {"exists": "yes"}}}),
                    json!({"properties": {"s": {"before": true}}}),
                    json!({"properties": {"s": {"not": {"exists": true}}}}),
                    json!({"properties": {"s": {"not": []}}}),
                    json!({"properties": {"s": [[1]]}}),
                    json!({"properties": {"s": 1}, "limit": -1}),
                    json!({"properties": {"s": 1}, "limit": 1001}),
                    json!({"properties": {"s": 1}, "folders": "a"}),
                ],
            ),
        ),
        (
            "read_metadata",
            (
                vec![json!({"path": "projects/Plan"}), json!({"path": "a.md"})],
                vec![
                    json!({}),
                    json!({"path": ["a"]}),
                    json!({"path": "a", "head": 1}),
                ],
            ),
        ),
        (
            "read_note",
            (
                vec![
                    json!({"path": "projects/Plan"}),
                    json!({"path": "a.md", "start_line": 3, "end_line": 9}),
                    json!({"path": "a", "head": 20}),
                ],
                vec![
                    json!({}),
                    json!({"path": 3}),
                    json!({"path": "a", "head": -1}),
                    json!({"path": "a", "head": 0}),
                    json!({"path": "a", "start_line": 0}),
                    json!({"path": "a", "start_line": "3"}),
                    json!({"path": "a", "lines": 3}),
                ],
            ),
        ),
        (
            "semantic_search",
            (
                vec![
                    json!({"query": "how we chose the database"}),
                    json!({"query": "x", "limit": 100, "properties": {"status": ["a", "b"], "n": null}, "folder": "notes", "min_score": 0.3, "mode": "semantic"}),
                    json!({"query": "QX-2291", "mode": "hybrid"}),
                ],
                vec![
                    json!({}),
                    json!({"query": 3}),
                    json!({"query": "x", "mode": "lexical"}),
                    json!({"query": "x", "limit": -1}),
                    json!({"query": "x", "limit": 101}),
                    json!({"query": ""}),
                    json!({"query": "x", "min_score": "high"}),
                    json!({"query": "x", "min_score": 1.5}),
                    json!({"query": "x", "properties": {"s": {"a": 1}}}),
                    json!({"query": "x", "k": 3}),
                ],
            ),
        ),
        (
            "text_search",
            (
                vec![
                    json!({"query": "review"}),
                    json!({"query": "a.b", "regex": true, "case": "insensitive", "folder": "projects", "context_lines": 0, "limit": 1000}),
                    json!({"query": "x", "case": "smart"}),
                ],
                vec![
                    json!({}),
                    json!({"query": 3}),
                    json!({"query": "x", "case": "upper"}),
                    json!({"query": "x", "regex": "yes"}),
                    json!({"query": "x", "context_lines": -1}),
                    json!({"query": "x", "context_lines": 11}),
                    json!({"query": "x", "limit": -1}),
                    json!({"query": "x", "limit": 0}),
                    json!({"query": ""}),
                    json!({"query": "x", "path": "a"}),
                ],
            ),
        ),
        (
            "move_note",
            (
                vec![
                    json!({"path": "a", "new_path": "b/c"}),
                    json!({"path": "a", "new_path": "b", "expected_sha256": "00"}),
                ],
                vec![
                    json!({}),
                    json!({"path": "a"}),
                    json!({"new_path": "b"}),
                    json!({"path": "a", "new_path": 1}),
                    json!({"path": "a", "new_path": "b", "x": 1}),
                ],
            ),
        ),
        (
            "edit_note",
            (
                vec![
                    json!({"path": "a", "operation": "append", "text": "x"}),
                    json!({"path": "a", "operation": "replace_text", "text": "y", "old_text": "x", "expected_sha256": "00"}),
                    json!({"path": "a", "operation": "insert_under_heading", "heading": "Tasks", "text": "- x"}),
                ],
                vec![
                    json!({"path": "a", "text": "x"}),
                    json!({"path": "a", "operation": "insert", "text": "x"}),
                    json!({"path": "a", "operation": "append"}),
                    json!({"path": "a", "operation": "append", "text": "x", "content": "y"}),
                ],
            ),
        ),
        (
            "update_note",
            (
                vec![
                    json!({"path": "a", "content": "x"}),
                    json!({"path": "a", "frontmatter": {}, "expected_sha256": "00"}),
                ],
                vec![
                    json!({"content": "x"}),
                    json!({"path": "a", "sha256": "00"}),
                ],
            ),
        ),
        (
            "update_tracker_status",
            (
                vec![
                    json!({"tracker_path": "trackers/acme.md", "target_status": "Applied"}),
                    json!({"tracker_path": "a.md", "target_status": "Resume Written", "dry_run": true, "force": false}),
                ],
                vec![
                    json!({"tracker_path": "a.md"}),
                    json!({"tracker_path": "a.md", "target_status": "applied"}),
                    json!({"tracker_path": "a.md", "target_status": "Applied", "dry_run": "no"}),
                    json!({"tracker_path": "a.md", "target_status": "Applied", "status": "Applied"}),
                ],
            ),
        ),
    ]);
    // The nova tools refuse only what does not fit their schema; an invalid
    // status or an update that changes nothing is a normal result with
    // `success: false` (tests/nova_tools.rs), so their schemas accept them.
    #[cfg(feature = "nova")]
    samples.extend([
        (
            "update_execution_session",
            (
                vec![json!({"execution_id": "e1", "session_id": "s1"})],
                vec![
                    json!({"execution_id": "e1"}),
                    json!({"session_id": "s1"}),
                    json!({"execution_id": 1, "session_id": "s1"}),
                    json!({"execution_id": "e1", "session_id": "s1", "worktree_path": "/w"}),
                ],
            ),
        ),
        (
            "create_step",
            (
                vec![
                    json!({"execution_id": "e1", "step_name": "build"}),
                    json!({"execution_id": "e1", "step_name": "build", "message": "m", "status": "completed"}),
                    json!({"execution_id": "e1", "step_name": "build", "status": "done"}),
                ],
                vec![
                    json!({"execution_id": "e1"}),
                    json!({"execution_id": "e1", "step_name": ["build"]}),
                    json!({"execution_id": "e1", "step_name": "build", "step_id": "s"}),
                ],
            ),
        ),
        (
            "update_step",
            (
                vec![
                    json!({"execution_id": "e1", "step_id": "step-1", "status": "failed"}),
                    json!({"execution_id": "e1", "step_id": "step-1", "message": "half way"}),
                    json!({"execution_id": "e1", "step_id": "step-1"}),
                ],
                vec![
                    json!({"execution_id": "e1", "status": "failed"}),
                    json!({"execution_id": "e1", "step_id": 1, "status": "failed"}),
                    json!({"execution_id": "e1", "step_id": "step-1", "step_name": "x"}),
                ],
            ),
        ),
        ("health_check", (vec![json!({})], vec![json!({"verbose": true})])),
    ]);
    samples
}

fn server(root: &Path, plan_file: Option<&str>) -> QuireServer {
    QuireServer::new(Workspace::new(root).unwrap(), &Toolset::ALL)
        .with_plan_file(plan_file.map(Into::into))
        .allowing_writes()
}

fn call(server: &QuireServer, tool: &str, arguments: Value) -> CallOutcome {
    let Value::Object(arguments) = arguments else {
        panic!("arguments are an object");
    };
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(call_in_process(server.clone(), tool, arguments))
        .unwrap_or_else(|error| panic!("calling {tool} failed: {error}"))
}

#[test]
fn every_schema_is_a_valid_draft_2020_12_schema_whose_references_resolve() {
    let folder = tempfile::tempdir().unwrap();
    for toolsets in [
        vec![Toolset::Planner],
        vec![Toolset::Tracker],
        Toolset::ALL.to_vec(),
    ] {
        let server =
            QuireServer::new(Workspace::new(folder.path()).unwrap(), &toolsets).allowing_writes();
        let schemas = schemas(&server);
        assert!(!schemas.is_empty());
        for (tool, (input, output)) in &schemas {
            validator(tool, "input", input);
            validator(tool, "output", output);
            // Each reference points into the schema it is in, from its root.
            for (which, schema) in [("input", input), ("output", output)] {
                let mut found = Vec::new();
                references(schema, &mut found);
                for reference in found {
                    let pointer = reference.strip_prefix('#').unwrap_or_else(|| {
                        panic!("{tool}'s {which} schema: {reference} is not a local reference")
                    });
                    assert!(
                        schema.pointer(pointer).is_some(),
                        "{tool}'s {which} schema: {reference} points to nowhere"
                    );
                }
            }
        }
    }
}

#[test]
fn sample_arguments_are_accepted_and_refused_as_the_server_does() {
    let folder = tempfile::tempdir().unwrap();
    let server = server(folder.path(), Some("PLAN.md"));
    let schemas = schemas(&server);
    let samples = samples();
    assert_eq!(
        schemas.keys().map(String::as_str).collect::<Vec<_>>(),
        samples.keys().copied().collect::<Vec<_>>(),
        "every tool has samples"
    );
    for (tool, (valid, invalid)) in &samples {
        let input = validator(tool, "input", &schemas[*tool].0);
        for arguments in valid {
            let errors: Vec<String> = input
                .iter_errors(arguments)
                .map(|e| e.to_string())
                .collect();
            assert!(errors.is_empty(), "{tool} refuses {arguments}: {errors:?}");
        }
        for arguments in invalid {
            assert!(
                !input.is_valid(arguments),
                "{tool}'s schema accepts {arguments}"
            );
            // The server refuses them too, changing nothing.
            let outcome = call(&server, tool, arguments.clone());
            assert!(
                outcome.is_error,
                "{tool} accepted {arguments}: {:?}",
                outcome.value
            );
            assert_eq!(
                outcome.value["error"]["code"], "VALIDATION_ERROR",
                "{tool} {arguments}"
            );
        }
    }
    assert!(!folder.path().join("PLAN.md").exists());
}

/// Checks one successful result against `tool`'s output schema; returns it.
#[track_caller]
fn checked(server: &QuireServer, tool: &str, arguments: Value) -> Value {
    let schemas = schemas(server);
    let output = validator(tool, "output", &schemas[tool].1);
    let outcome = call(server, tool, arguments.clone());
    assert!(
        !outcome.is_error,
        "{tool} {arguments} failed: {}",
        outcome.value
    );
    let errors: Vec<String> = output
        .iter_errors(&outcome.value)
        .map(|error| format!("{error} at {}", error.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{tool}'s result does not match its output schema: {errors:?}\n{:#}",
        outcome.value
    );
    outcome.value
}

/// Every stage of the workflow, each result checked against its schema;
/// `changes` is present in the results where the working copy has changes.
fn every_stage(server: &QuireServer) -> Vec<Value> {
    let goal = json!({"type": "feat", "scope": "cli", "breaking": true, "title": "Add a hook"});
    let results = vec![
        checked(server, "gather_requirements", json!({})),
        checked(server, "set_overarching_goal", json!({ "goal": goal })),
        checked(
            server,
            "set_detailed_goal",
            json!({"description": "Why, what and how."}),
        ),
        checked(
            server,
            "set_detailed_goal",
            json!({"description": "Why, what and how.\n- Never: skip the tests"}),
        ),
        checked(
            server,
            "set_plan",
            json!({"plan": [[false, "Write it", [[false, "Test it", []]]], [false, "Document it", []]]}),
        ),
        checked(server, "mark_task", json!({"task_id": "Test it"})),
        checked(server, "mark_task", json!({"task_id": "Write it"})),
        checked(server, "mark_task", json!({"task_id": "Document it"})),
        checked(server, "gather_requirements", json!({})),
        checked(server, "finish_job", json!({})),
        checked(server, "gather_requirements", json!({})),
    ];
    let stages: Vec<u64> = results
        .iter()
        .map(|r| r["stage"].as_u64().unwrap())
        .collect();
    assert_eq!(stages, [0, 1, 2, 4, 5, 5, 5, 5, 5, 6, 6]);
    results
}

#[test]
fn planner_results_of_every_stage_match_the_output_schema_in_a_git_repository() {
    let folder = tempfile::tempdir().unwrap();
    let git = Command::new("git")
        .args(["init", "-q"])
        .current_dir(folder.path())
        .status()
        .unwrap();
    assert!(git.success());
    // A change in the work tree, so that `changes` is there.
    fs::write(folder.path().join("notes.txt"), "draft\n").unwrap();
    let results = every_stage(&server(folder.path(), None));
    for result in &results {
        assert_eq!(result["store"], "git");
        assert_eq!(
            result["changes"],
            json!({
                "files": [{"path": "notes.txt", "status": "added", "lines_added": 1, "lines_removed": 0}],
                "files_total": 1,
                "files_shown": 1
            })
        );
    }
}

/// git in `folder`, with a fixed identity and no configuration of the
/// machine's.
fn git(folder: &Path, args: &[&str]) {
    let status = Command::new("git")
        .args(args)
        .current_dir(folder)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "A")
        .env("GIT_AUTHOR_EMAIL", "a@example.com")
        .env("GIT_COMMITTER_NAME", "A")
        .env("GIT_COMMITTER_EMAIL", "a@example.com")
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

#[test]
fn planner_results_with_every_kind_of_changed_file_match_the_output_schema() {
    let folder = tempfile::tempdir().unwrap();
    let root = folder.path();
    git(root, &["init", "-q"]);
    fs::write(root.join("old.txt"), "one\n").unwrap();
    fs::write(root.join("gone.txt"), "two\n").unwrap();
    git(root, &["add", "."]);
    git(root, &["commit", "-q", "-m", "Start"]);
    git(root, &["mv", "old.txt", "new.txt"]);
    fs::remove_file(root.join("gone.txt")).unwrap();
    fs::write(root.join("picture.png"), b"\x89PNG\r\n\x1a\n\0\0").unwrap();
    // More new files than are counted, and more than the list holds.
    fs::create_dir(root.join("many")).unwrap();
    for n in 0..150 {
        fs::write(root.join(format!("many/{n:03}.txt")), "x\n").unwrap();
    }
    let server = server(root, None);
    let listed = checked(&server, "gather_requirements", json!({}));
    let changes = &listed["changes"];
    assert_eq!(changes["files_total"], 153);
    let files = changes["files"].as_array().unwrap();
    assert!(files.len() < 153, "{changes}");
    assert_eq!(changes["files_shown"], files.len());
    let with_diff = checked(
        &server,
        "gather_requirements",
        json!({"include_diff": true}),
    );
    assert!(with_diff["changes"]["diff"].is_string(), "{with_diff}");
    // The kinds the list holds, the first ones by path: `gone.txt`, then
    // `many/000.txt` and on.
    assert_eq!(
        files[0],
        json!({"path": "gone.txt", "status": "deleted", "lines_added": 0, "lines_removed": 1})
    );
    // Past the list's room: the rename, the binary file, and new files
    // whose lines were not counted, each checked against the schema too.
    let output = validator(
        "gather_requirements",
        "output",
        &schemas(&server)["gather_requirements"].1,
    );
    let mut whole = listed.clone();
    whole["changes"]["files"] = json!([
        {"path": "many/149.txt", "status": "added"},
        {"path": "new.txt", "status": "renamed", "previous_path": "old.txt", "lines_added": 0, "lines_removed": 0},
        {"path": "picture.png", "status": "added", "binary": true},
    ]);
    assert!(output.is_valid(&whole), "{whole:#}");
    whole["changes"]["files"][0]["status"] = json!("untracked");
    assert!(
        !output.is_valid(&whole),
        "a status the schema does not name"
    );
}

#[test]
fn planner_results_whose_changes_cannot_be_read_match_the_output_schema() {
    // A plan file beside a `.jj` folder that is no repository: jj fails,
    // and the plan file still works, saying why there are no changes.
    let folder = tempfile::tempdir().unwrap();
    fs::create_dir(folder.path().join(".jj")).unwrap();
    let server = server(folder.path(), Some("PLAN.md"));
    let result = checked(&server, "gather_requirements", json!({}));
    let Some(changes) = result.get("changes") else {
        // Without jj there is no working copy to read.
        let jj = Command::new("jj").arg("--version").output();
        assert!(jj.is_err(), "jj runs, so its failure is reported: {result}");
        eprintln!(
            "SKIPPED: planner_results_whose_changes_cannot_be_read_match_the_output_schema: jj is not installed"
        );
        return;
    };
    assert_eq!(changes["files"], json!([]));
    assert_eq!(changes["files_total"], 0);
    let error = changes["error"].as_str().unwrap();
    assert!(
        error.starts_with(
            "the working copy's changes cannot be read: `jj log -r @ --no-graph -T quire_changed_files` failed:"
        ),
        "{error}"
    );
}

#[test]
fn planner_results_of_every_stage_match_the_output_schema_in_a_plan_file() {
    let folder = tempfile::tempdir().unwrap();
    let results = every_stage(&server(folder.path(), Some("PLAN.md")));
    for result in &results {
        assert_eq!(result["store"], "file");
        assert_eq!(result.get("changes"), None, "no working copy here");
    }
}

#[test]
fn tracker_results_of_every_outcome_match_the_output_schema() {
    let folder = tempfile::tempdir().unwrap();
    let root = folder.path();
    fs::create_dir_all(root.join("trackers")).unwrap();
    fs::create_dir_all(root.join("apps/acme/resume")).unwrap();
    fs::write(
        root.join("apps/acme/resume/resume.pdf"),
        b"%PDF-1.7\n%%EOF\n",
    )
    .unwrap();
    fs::write(
        root.join("apps/acme/resume/resume.tex"),
        "\\documentclass{article}\n\\begin{document}\nBuilt the parser.\n\\end{document}\n",
    )
    .unwrap();
    fs::write(
        root.join("trackers/acme.md"),
        "---\ncompany: Acme\nstatus: Reviewed\nresume_path: \"[[apps/acme/resume/resume.pdf]]\"\n---\n# Acme\n",
    )
    .unwrap();
    let server = server(root, None);
    let update = |target: &str, dry_run: bool, force: bool| {
        checked(
            &server,
            "update_tracker_status",
            json!({"tracker_path": "trackers/acme.md", "target_status": target, "dry_run": dry_run, "force": force}),
        )
    };
    let blocked = update("Applied", false, false);
    assert_eq!(
        (blocked["action"].as_str(), blocked["success"].as_bool()),
        (Some("blocked"), Some(false))
    );
    assert!(blocked["error"].is_string());
    let would = update("Resume Written", true, false);
    assert_eq!(would["action"], "would_update");
    assert_eq!(would["guardrail_check_passed"], true);
    assert_eq!(update("Resume Written", false, false)["action"], "updated");
    assert_eq!(update("Resume Written", false, false)["action"], "noop");
    let forced = update("Reviewed", false, true);
    assert_eq!(forced["action"], "updated");
    assert!(
        !forced["warnings"].as_array().unwrap().is_empty(),
        "{forced}"
    );
    // A guardrail that fails: the resume is gone.
    fs::remove_file(root.join("apps/acme/resume/resume.pdf")).unwrap();
    let guarded = update("Resume Written", false, false);
    assert_eq!(guarded["action"], "blocked");
    assert_eq!(guarded["guardrail_check_passed"], false);
}

#[test]
fn read_note_results_match_the_output_schema() {
    let folder = tempfile::tempdir().unwrap();
    fs::write(folder.path().join("Plan.md"), "line\n".repeat(2_500)).unwrap();
    let server = server(folder.path(), None);
    let whole = checked(&server, "read_note", json!({"path": "Plan"}));
    assert_eq!(whole["next_start_line"], 2_001);
    let clamped = checked(
        &server,
        "read_note",
        json!({"path": "Plan.md", "start_line": 2_499, "end_line": 9_000}),
    );
    assert_eq!(clamped["lines_returned"], 2);
    assert!(clamped["clamped"].is_string());
    fs::write(
        folder.path().join("Other.md"),
        "---\ntags: [a]\nn: 3\n---\n# Other\n[[Plan]] [[Nowhere]] ![[Plan]] #b\n",
    )
    .unwrap();
    let metadata = checked(&server, "read_metadata", json!({"path": "Other"}));
    assert_eq!(metadata["links"][1]["path"], Value::Null);
    assert_eq!(metadata["frontmatter"]["n"], 3);
    let plan = checked(&server, "read_metadata", json!({"path": "Plan"}));
    let listed = checked(
        &server,
        "list_notes",
        json!({"limit": 1, "include_frontmatter": true}),
    );
    assert_eq!(listed["total"], 2);
    assert!(listed["next_cursor"].is_string());
    assert_eq!(plan["backlinks"], json!(["Other.md"]));
    let info = checked(&server, "get_kiln_info", json!({"detailed": true}));
    assert_eq!(
        (
            info["note_count"].clone(),
            info["index"]["broken_links"].clone()
        ),
        (json!(2), json!(1))
    );
    let searched = checked(
        &server,
        "text_search",
        json!({"query": "line", "limit": 1, "context_lines": 1}),
    );
    assert_eq!(searched["truncated_reason"], "limit");
    assert_eq!(searched["total_matches"], 2_500);
    assert_eq!(searched["notes"][0]["path"], "Plan.md");
    // Line 2 matches too: it is nobody's context.
    assert_eq!(searched["notes"][0]["matches"][0].get("after"), None);
    assert!(searched["next_cursor"].is_string());
    let paged = checked(&server, "text_search", json!({"query": "line"}));
    assert!(paged.to_string().len() <= 16 * 1024);
    assert!(paged["truncated"].as_bool().unwrap());
    let next = checked(
        &server,
        "text_search",
        json!({"query": "line", "cursor": paged["next_cursor"]}),
    );
    assert_eq!(next["total_matches"], 2_500);
    let refused = call(&server, "text_search", json!({"query": "(", "regex": true}));
    assert!(refused.is_error);
    assert_eq!(refused.value["error"]["code"], "VALIDATION_ERROR");
    let found = checked(
        &server,
        "property_search",
        json!({"properties": {"tags": "A", "n": "3"}}),
    );
    assert_eq!(found["notes"][0]["path"], "Other.md");
    assert_eq!(found["total"], 1);
    let paged = checked(
        &server,
        "property_search",
        json!({"properties": {"tags": ["a", "nothing"]}, "limit": 1}),
    );
    assert!(paged.get("next_cursor").is_none());
    let broken = checked(&server, "find_links", json!({"kind": "broken"}));
    assert_eq!(broken["links"][0]["target"], "Nowhere");
    assert_eq!(broken["links"][0]["line"], 6);
    checked(&server, "find_links", json!({"kind": "ambiguous"}));
    let orphans = checked(
        &server,
        "find_links",
        json!({"kind": "orphans", "limit": 1}),
    );
    assert_eq!(orphans["notes"], json!([{"path": "Other.md"}]));
    let around = checked(
        &server,
        "find_links",
        json!({"kind": "neighbours", "path": "Plan", "depth": 2}),
    );
    assert_eq!(
        around["notes"],
        json!([{"path": "Other.md", "distance": 1, "direction": "in"}])
    );
    let missing = call(&server, "read_note", json!({"path": "plans"}));
    assert!(missing.is_error);
    assert_eq!(missing.value["error"]["code"], "FILE_NOT_FOUND");
    assert_eq!(
        missing.value["error"]["message"],
        "there is no note `plans.md`; did you mean `Plan.md`?"
    );
    // A name, as a link writes it, finds the note (issue 25).
    let named = checked(&server, "read_note", json!({"path": "[[plan]]"}));
    assert_eq!(named["path"], "Plan.md");
}
