//! Control characters in plan texts (`plan::control_character`): the
//! planner's tools refuse them before anything is stored, and say which
//! value holds which character and what to do.
//!
//! Every test runs the tools in-process over a plan file in a temporary
//! folder (`--plan-file PLAN.md`); the store kind does not matter here, as
//! the refusal happens before the store is written.

use std::fs;
use std::path::{Path, PathBuf};

use quire::planner::PlannerTools;
use quire::tool_error::{ErrorCode, ToolError};
use serde_json::{Value, json};
use tempfile::TempDir;

const PLAN_FILE: &str = "PLAN.md";

fn tools() -> (TempDir, PlannerTools) {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let tools = PlannerTools::new(
        quire::fs::Workspace::new(folder.path()).unwrap(),
        Some(PathBuf::from(PLAN_FILE)),
    );
    (folder, tools)
}

fn stored(folder: &Path) -> String {
    fs::read_to_string(folder.join(PLAN_FILE)).unwrap_or_default()
}

fn call(tools: &PlannerTools, tool: &str, arguments: Value) -> Result<Value, ToolError> {
    tools
        .call(tool, arguments)
        .map(|response| serde_json::to_value(response).expect("responses serialize"))
}

/// Calls `tool`, expects a validation error, and returns its message.
fn refused(tools: &PlannerTools, tool: &str, arguments: Value) -> String {
    match call(tools, tool, arguments) {
        Ok(response) => panic!("{tool} accepted the call: {response:#}"),
        Err(error) => {
            assert_eq!(error.code, ErrorCode::ValidationError, "{error}");
            error.message
        }
    }
}

fn assert_mentions(message: &str, parts: &[&str]) {
    for part in parts {
        assert!(message.contains(part), "{part:?} missing from: {message}");
    }
    assert!(
        !message.chars().any(|c| c.is_control()),
        "the message itself holds a control character: {message:?}"
    );
}

fn goal(title: &str) -> Value {
    json!({"goal": {"type": "fix", "scope": "cli", "title": title}})
}

/// A plan with a header, a description and one task, stored through the
/// tools.
fn started(tools: &PlannerTools) {
    call(tools, "set_overarching_goal", goal("Print safely")).expect("the goal is set");
    call(
        tools,
        "set_detailed_goal",
        json!({"description": "Terminals must not run what a plan says."}),
    )
    .expect("the description is set");
    call(
        tools,
        "set_plan",
        json!({"plan": [[false, "Escape output", []]]}),
    )
    .expect("the plan is set");
}

#[test]
fn set_overarching_goal_refuses_an_escape_sequence_in_the_title() {
    let (folder, tools) = tools();
    let message = refused(
        &tools,
        "set_overarching_goal",
        goal("Clear \u{1b}[2J the screen"),
    );
    assert_mentions(
        &message,
        &[
            "nothing was stored",
            "header.title",
            "the title contains the control character U+001B ESCAPE",
            "remove it",
        ],
    );
    assert_eq!(stored(folder.path()), "", "nothing is stored");

    // In the scope too; a line separator in the title as well.
    let message = refused(
        &tools,
        "set_overarching_goal",
        json!({"goal": {"type": "fix", "scope": "c\u{7}li", "title": "Two\u{2028}lines"}}),
    );
    assert_mentions(
        &message,
        &[
            "header.scope: the scope contains the control character U+0007 BELL",
            "header.title: the title contains U+2028 LINE SEPARATOR",
            "this text is one line",
        ],
    );
}

#[test]
fn set_detailed_goal_refuses_controls_and_names_the_line() {
    let (folder, tools) = tools();
    call(&tools, "set_overarching_goal", goal("Print safely")).expect("the goal is set");
    let before = stored(folder.path());
    let message = refused(
        &tools,
        "set_detailed_goal",
        json!({"description": "Why it matters.\nThe terminal rings\u{7} here."}),
    );
    assert_mentions(
        &message,
        &[
            "description: line 2 of the description contains the control character U+0007 BELL",
            "remove it",
        ],
    );
    // A carriage return inside a line, and a next-line character.
    for (text, character) in [
        ("Looks fine.\rHidden text.", "U+000D CARRIAGE RETURN"),
        ("One line\u{85}two lines.", "U+0085 NEXT LINE"),
    ] {
        let message = refused(&tools, "set_detailed_goal", json!({ "description": text }));
        assert_mentions(&message, &[character, "break lines with a plain line feed"]);
    }
    // In a constraint written after the description.
    let message = refused(
        &tools,
        "set_detailed_goal",
        json!({"description": "Why.\n- Never: print \u{9b}31m raw"}),
    );
    assert_mentions(
        &message,
        &["constraints.0.1", "U+009B CONTROL SEQUENCE INTRODUCER"],
    );
    assert_eq!(stored(folder.path()), before, "nothing is stored");
}

#[test]
fn set_plan_refuses_controls_in_any_task_and_allows_tabs() {
    let (folder, tools) = tools();
    started(&tools);
    let before = stored(folder.path());
    let message = refused(
        &tools,
        "set_plan",
        json!({"plan": [[false, "Parse", [[false, "Open \u{1b}]8;;http://x\u{7}a link", []]]]]}),
    );
    assert_mentions(
        &message,
        &[
            "tasks.0.2.0.1: the text of task 1.1 contains the control character U+001B ESCAPE (and 1 more such character)",
        ],
    );
    // NUL used to get the generic "cannot be written so that it reads back"
    // refusal; it is named now like every other control character.
    let message = refused(
        &tools,
        "set_plan",
        json!({"plan": [[false, "Nul\u{0}byte", []]]}),
    );
    assert_mentions(&message, &["tasks.0.1", "U+0000 NULL"]);
    for character in ['\u{b}', '\u{c}', '\u{7f}', '\u{2029}'] {
        let text = format!("Split{character}here");
        let message = refused(&tools, "set_plan", json!({"plan": [[false, text, []]]}));
        assert_mentions(&message, &["tasks.0.1"]);
    }
    assert_eq!(stored(folder.path()), before, "nothing is stored");

    call(
        &tools,
        "set_plan",
        json!({"plan": [[false, "Align\twith a tab", []]]}),
    )
    .expect("a tab is allowed");
    assert!(stored(folder.path()).contains("- [ ]: Align\twith a tab"));
}

#[test]
fn mark_task_refuses_to_store_a_plan_that_holds_a_control_character() {
    let (folder, tools) = tools();
    started(&tools);
    // Written by hand (or by an older quire): the tools read it, but store
    // no edit of it until the character is gone.
    let path = folder.path().join(PLAN_FILE);
    let text = stored(folder.path()).replace("Escape output", "Escape \u{1b}[31moutput");
    fs::write(&path, &text).expect("the plan file is writable");
    let message = refused(&tools, "mark_task", json!({"task_id": "output"}));
    assert_mentions(
        &message,
        &[
            "tasks.0.1: the text of task 1 contains the control character U+001B ESCAPE",
            "remove it",
        ],
    );
    assert_eq!(stored(folder.path()), text, "the plan is left as it was");

    // gather_requirements still reads it, so the task can be replaced.
    let response = call(&tools, "gather_requirements", json!({})).expect("the plan is read");
    assert_eq!(
        response["document"]["tasks"][0][1],
        "Escape \u{1b}[31moutput"
    );
    call(
        &tools,
        "set_plan",
        json!({"plan": [[false, "Escape output", []]]}),
    )
    .expect("replacing the task fixes the plan");
    call(&tools, "mark_task", json!({"task_id": "output"})).expect("then it can be marked");
}
