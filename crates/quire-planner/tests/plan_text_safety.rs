//! Control characters in plan texts (`plan::control_character`): the
//! planner's tools refuse them before anything is stored, and say which
//! value holds which character and what to do.
//!
//! Every test runs the tools in-process over a plan file in a temporary
//! folder (`--plan-file PLAN.md`); the store kind does not matter here, as
//! the refusal happens before the store is written.

use std::fs;
use std::path::{Path, PathBuf};

use quire_grammar::diagnostics::one_line;
use quire_planner::{PlanReport, PlannerError, PlannerTools};
use serde_json::{Value, json};
use tempfile::TempDir;

#[path = "support/planner_requests.rs"]
mod planner_requests;

const PLAN_FILE: &str = "PLAN.md";

fn tools() -> (TempDir, PlannerTools) {
    let folder = tempfile::tempdir().expect("a temporary folder");
    let tools = PlannerTools::new(
        quire_fs::Workspace::new(folder.path()).unwrap(),
        Some(PathBuf::from(PLAN_FILE)),
    );
    (folder, tools)
}

fn stored(folder: &Path) -> String {
    fs::read_to_string(folder.join(PLAN_FILE)).unwrap_or_default()
}

fn call(tools: &PlannerTools, tool: &str, arguments: Value) -> Result<PlanReport, PlannerError> {
    planner_requests::call(tools, tool, arguments)
}

/// Calls `tool`, expects a validation error, and returns its message.
fn refused(tools: &PlannerTools, tool: &str, arguments: Value) -> String {
    match call(tools, tool, arguments) {
        Ok(response) => panic!("{tool} accepted the call: {}", response.rendered),
        Err(PlannerError::Edit(error)) => error.to_string(),
        Err(error) => panic!("{tool} failed, not refused: {error}"),
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
    let document = serde_json::to_value(&response.document).expect("documents serialize");
    assert_eq!(document["tasks"][0][1], "Escape \u{1b}[31moutput");
    call(
        &tools,
        "set_plan",
        json!({"plan": [[false, "Escape output", []]]}),
    )
    .expect("replacing the task fixes the plan");
    call(&tools, "mark_task", json!({"task_id": "output"})).expect("then it can be marked");
}

/// One character of each class the rule names: C0 controls (the carriage
/// return inside a line), DEL, C1 controls, the line and paragraph
/// separators.
const REFUSED: [(char, &str); 14] = [
    ('\u{1}', "U+0001 START OF HEADING"),
    ('\u{7}', "U+0007 BELL"),
    ('\u{8}', "U+0008 BACKSPACE"),
    ('\r', "U+000D CARRIAGE RETURN"),
    ('\u{b}', "U+000B LINE TABULATION"),
    ('\u{c}', "U+000C FORM FEED"),
    ('\u{1b}', "U+001B ESCAPE"),
    ('\u{1f}', "U+001F UNIT SEPARATOR"),
    ('\u{7f}', "U+007F DELETE"),
    ('\u{80}', "U+0080 PADDING CHARACTER"),
    ('\u{85}', "U+0085 NEXT LINE"),
    ('\u{9b}', "U+009B CONTROL SEQUENCE INTRODUCER"),
    ('\u{2028}', "U+2028 LINE SEPARATOR"),
    ('\u{2029}', "U+2029 PARAGRAPH SEPARATOR"),
];

#[test]
fn every_tool_refuses_every_class_in_every_field_it_writes() {
    let (folder, tools) = tools();
    started(&tools);
    let before = stored(folder.path());
    for (c, name) in REFUSED {
        let x = |text: &str| text.replace('@', &c.to_string());
        let calls = [
            (
                "set_overarching_goal",
                json!({"goal": {"type": x("fi@x"), "scope": "cli", "title": "T"}}),
                "header.type",
            ),
            (
                "set_overarching_goal",
                json!({"goal": {"type": "fix", "scope": x("c@li"), "title": "T"}}),
                "header.scope",
            ),
            (
                "set_overarching_goal",
                goal(&x("Print @safely")),
                "header.title",
            ),
            (
                "set_detailed_goal",
                json!({"description": x("Why @ it matters.")}),
                "description",
            ),
            (
                "set_detailed_goal",
                json!({"description": x("Why.\n- Never: print @ raw")}),
                "constraints.0.1",
            ),
            (
                "set_plan",
                json!({"plan": [[false, x("Escape @ output"), []]]}),
                "tasks.0.1",
            ),
            (
                "set_plan",
                json!({"plan": [[false, "Parse", [[false, "Lex", [[false, x("Deep @ task"), []]]]]]]}),
                "tasks.0.2.0.2.0.1",
            ),
        ];
        for (tool, arguments, field) in calls {
            let message = refused(&tools, tool, arguments);
            // A carriage return in a header part or a task is refused before
            // the rule runs, as not one line.
            if field.starts_with("header.") && c == '\r' {
                assert_mentions(&message, &["must be one line"]);
            } else if field.starts_with("tasks.") && c == '\r' {
                // This refusal quotes the task, its carriage return escaped.
                assert!(message.contains("spans several lines"), "{message:?}");
                assert!(message.contains(r"\r"), "{message:?}");
                assert!(!message.chars().any(char::is_control), "{message:?}");
            } else {
                assert_mentions(&message, &[&format!("{field}: "), name]);
            }
        }
    }
    assert_eq!(stored(folder.path()), before, "nothing is stored");
}

#[test]
fn a_constraint_key_with_a_control_character_is_no_constraint() {
    let (folder, tools) = tools();
    started(&tools);
    let before = stored(folder.path());
    for (c, _) in REFUSED {
        // Not a key the grammar reads: the line is refused as a constraint
        // that would be lost, and the key is quoted escaped.
        let description = format!("Why.\n- Ne{c}ver: print raw");
        let message = refused(
            &tools,
            "set_detailed_goal",
            json!({ "description": description }),
        );
        let key = format!("its key `{}` is not", one_line(&format!("Ne{c}ver")));
        assert_mentions(&message, &["description line 2", &key]);
    }
    assert_eq!(stored(folder.path()), before, "nothing is stored");
}

#[test]
fn tools_that_store_a_plan_read_with_a_control_character_refuse_to() {
    for (c, name) in REFUSED {
        let (folder, tools) = tools();
        started(&tools);
        // Done, so that finish_job gets as far as storing.
        let text = stored(folder.path())
            .replace("- [ ]: Escape output", &format!("- [x]: Escape {c}output"));
        fs::write(folder.path().join(PLAN_FILE), &text).expect("the plan file is writable");
        for (tool, arguments) in [
            (
                "mark_task",
                json!({"task_id": "output", "completed": false}),
            ),
            ("finish_job", json!({})),
            ("set_detailed_goal", json!({"description": "A new why."})),
        ] {
            let message = refused(&tools, tool, arguments);
            assert_mentions(&message, &["tasks.0.1: the text of task 1 contains", name]);
        }
        assert_eq!(stored(folder.path()), text, "{name}: left as it was");
    }
}

#[test]
fn tabs_and_bidirectional_controls_are_allowed() {
    let (folder, tools) = tools();
    started(&tools);
    call(
        &tools,
        "set_overarching_goal",
        goal("Print\tsafely \u{202e}txet\u{202c}"),
    )
    .expect("a tab and a bidi override are allowed in the title");
    call(
        &tools,
        "set_plan",
        json!({"plan": [[false, "Align\twith \u{2067}a tab\u{2069}", []]]}),
    )
    .expect("and in a task");
    let plan = stored(folder.path());
    assert!(
        plan.starts_with("fix(cli): Print\tsafely \u{202e}txet\u{202c}\n"),
        "{plan:?}"
    );
}

#[test]
fn check_finds_every_class_in_every_field_of_a_text() {
    use quire_grammar::plan::{Code, ParserConfig, parse};

    // `@` marks where the character goes; each template's finding names the
    // field it is in (none for indentation or a blank line).
    let templates = [
        ("feat(cli): Ti@tle\n", Some("header.title")),
        (
            "feat(cli): Title\n\nWhy @ it matters.\n",
            Some("description"),
        ),
        (
            "feat(cli): Title\n\nWhy.\nSecond @ line.\n",
            Some("description"),
        ),
        (
            "feat(cli): Title\n\nWhy.\n- Never: print @ raw\n",
            Some("constraints.0.1"),
        ),
        (
            "feat(cli): Title\n\n- [ ]: Parse\n  - [ ]: Le@x\n",
            Some("tasks.0.2.0.1"),
        ),
        // A title the commit-message syntax ignores (no scope).
        ("fix: Ti@tle\n", None),
        (
            "feat(cli): Title\n\n- [ ]: Parse\n\nGo @ on\n",
            Some("direction"),
        ),
    ];
    for (c, name) in REFUSED {
        for (template, field) in templates {
            let text = template.replace('@', &c.to_string());
            let outcome = parse(&text, &ParserConfig::default());
            let findings: Vec<_> = outcome
                .check(&text)
                .into_iter()
                .filter(|f| f.code == Code::ControlCharacter)
                .collect();
            let at = template.find('@').expect("a place");
            let context = format!("{name} in {template:?}: {findings:?}");
            assert_eq!(findings.len(), 1, "{context}");
            assert_eq!(findings[0].span.range(), at..at + c.len_utf8(), "{context}");
            assert_eq!(findings[0].field.as_deref(), field, "{context}");
            assert!(findings[0].message.contains(name), "{context}");
            assert!(findings[0].is_error(), "{context}");
        }
    }
}

#[test]
fn task_ids_and_task_texts_are_quoted_escaped_in_messages() {
    let (_folder, tools) = tools();
    started(&tools);
    call(
        &tools,
        "set_plan",
            json!({"plan": [[false, "Write the parser", [[false, "Lex", []]]], [false, "Write the docs", []]]}),
        )
        .unwrap();
    for (task_id, expected) in [
        // No match: the id is quoted escaped, the open tasks listed.
        ("\u{1b}[2Jgone", r#"no task matches "\u{1b}[2Jgone""#),
        // Several matches.
        ("Write", "\"Write\" matches 2 tasks"),
        // A parent with open subtasks.
        ("Write the parser", "has open subtasks: 1.1 Lex"),
    ] {
        let message = refused(&tools, "mark_task", json!({ "task_id": task_id }));
        assert!(message.contains(expected), "{message:?}");
        assert!(!message.chars().any(char::is_control), "{message:?}");
    }
}
