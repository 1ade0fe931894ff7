//! The planner's traps and its fidelity to `planner.md` (issue 8, parts 1
//! and 2), in process over a plan file: task paths are exact ids, duplicate
//! texts are refused, no edit stores less than was there, every finding is
//! reported, the direction survives `finish_job`, stages follow the spec,
//! and a finished plan's goal changes only with `start_new`.

use std::fs;
use std::path::Path;

use quire_fs::Workspace;
use quire_planner::{Edit, NextStep, PlanReport, PlannerError, PlannerTools, PreviousPlan, Stage};
use serde_json::{Value, json};

#[path = "support/planner_requests.rs"]
mod planner_requests;

const PLAN_FILE: &str = "PLAN.md";

struct Plan {
    folder: tempfile::TempDir,
    tools: PlannerTools,
}

impl Plan {
    fn new() -> Plan {
        let folder = tempfile::tempdir().unwrap();
        let workspace = Workspace::new(folder.path()).unwrap();
        let tools = PlannerTools::new(workspace, Some(PLAN_FILE.into()));
        Plan { folder, tools }
    }

    /// A plan file holding `text`, written by hand.
    fn holding(text: &str) -> Plan {
        let plan = Plan::new();
        plan.write(text);
        plan
    }

    fn write(&self, text: &str) {
        fs::write(self.path(), text).unwrap();
    }

    fn path(&self) -> std::path::PathBuf {
        self.folder.path().join(PLAN_FILE)
    }

    fn stored(&self) -> String {
        fs::read_to_string(self.path()).unwrap_or_default()
    }

    #[track_caller]
    fn ok(&self, tool: &str, arguments: Value) -> PlanReport {
        planner_requests::call(&self.tools, tool, arguments)
            .unwrap_or_else(|error| panic!("{tool} failed: {error}"))
    }

    /// A call the plan's rules must refuse (VALIDATION_ERROR on the wire),
    /// changing nothing and saying each of `expected`; returns the message.
    #[track_caller]
    fn refused(&self, tool: &str, arguments: Value, expected: &[&str]) -> String {
        let before = self.stored();
        let error = match planner_requests::call(&self.tools, tool, arguments) {
            Ok(response) => panic!("{tool} succeeded: {}", response.rendered),
            Err(PlannerError::Edit(error)) => error,
            Err(error) => panic!("{tool} failed, not refused: {error}"),
        };
        assert!(!PlannerError::Edit(error.clone()).retryable(), "{error}");
        for part in expected {
            assert!(
                error.to_string().contains(part),
                "the message lacks {part:?}: {error}"
            );
        }
        assert_eq!(self.stored(), before, "a refused call changed the plan");
        error.to_string()
    }
}

/// The task a `mark_task` call marked: its path, its text, and whether it
/// is now done.
#[track_caller]
fn marked(report: &PlanReport) -> (String, &str, bool) {
    match &report.edit {
        Some(Edit::TaskMarked {
            task, completed, ..
        }) => (task.path.to_string(), task.text.as_str(), *completed),
        other => panic!("no task was marked: {other:?}"),
    }
}

fn assert_exists(path: &Path) {
    assert!(path.exists(), "{} is missing", path.display());
}

const RELEASE: &str = "chore(release): Cut v1.2\n\nThe release is due.\n\n\
    - [ ]: Write the changelog\n  - [ ]: Check the links\n- [ ]: Tag the release\n- [ ]: Bump to v1.2\n";

// ---------------------------------------------------------------- task ids

/// `"2"` once marked task 3 "Bump to v1.2" (a part of its text) and `"1.1"`
/// matched nothing: the paths the tools print name exactly that task.
#[test]
fn tree_paths_name_exactly_their_task() {
    let plan = Plan::holding(RELEASE);
    let report = plan.ok("mark_task", json!({"task_id": "2"}));
    assert_eq!(marked(&report), ("2".into(), "Tag the release", true));
    assert!(
        plan.stored()
            .contains("- [x]: Tag the release\n- [ ]: Bump to v1.2\n")
    );

    let report = plan.ok("mark_task", json!({"task_id": " 1.1\n"}));
    assert_eq!(
        marked(&report),
        ("1.1".into(), "Check the links", true),
        "ids are trimmed"
    );
    let reopened = plan.ok("mark_task", json!({"task_id": "2", "completed": false}));
    assert_eq!(marked(&reopened), ("2".into(), "Tag the release", false));

    // A path that names no task is refused, never read as a part of a text
    // ("4" and "2.1" are parts of "v1.2"... as "2" was).
    for missing in ["4", "2.1", "1.1.1"] {
        plan.refused(
            "mark_task",
            json!({ "task_id": missing }),
            &[
                &format!("there is no task {missing}"),
                "1.1 Check the links",
            ],
        );
    }
    // Text still works, whole or in part.
    let report = plan.ok("mark_task", json!({"task_id": "v1.2"}));
    assert_eq!(marked(&report), ("3".into(), "Bump to v1.2", true));
}

#[test]
fn ambiguous_text_is_answered_with_the_paths_to_use() {
    let plan = Plan::holding(RELEASE);
    plan.refused(
        "mark_task",
        json!({"task_id": "the"}),
        &[
            "matches 3 tasks",
            "1 \"Write the changelog\"",
            "1.1 \"Check the links\"",
            "2 \"Tag the release\"",
            "Give the path of one of them",
        ],
    );
}

// -------------------------------------------------------- duplicate texts

#[test]
fn set_plan_refuses_two_tasks_with_one_text_and_says_which() {
    let plan = Plan::holding("fix(cli): Flags\n\nWhy.\n");
    plan.refused(
        "set_plan",
        json!({"plan": [
            [false, "Write tests", [[false, "Write tests", []]]],
            [false, "Ship", []],
            [false, "Ship", []]
        ]}),
        &[
            "repeats a task text",
            "\"Write tests\" (tasks 1 and 1.1)",
            "\"Ship\" (tasks 2 and 3)",
            "nothing was stored",
        ],
    );
}

/// A plan written by hand may still repeat a text: its tasks are reached
/// by path, so the job can be finished.
#[test]
fn repeated_texts_written_by_hand_are_reached_by_path() {
    let plan = Plan::holding("fix(cli): Flags\n\nWhy.\n\n- [ ]: Test\n- [ ]: Test\n");
    plan.refused(
        "mark_task",
        json!({"task_id": "Test"}),
        &["matches 2 tasks"],
    );
    plan.ok("mark_task", json!({"task_id": "1"}));
    plan.ok("mark_task", json!({"task_id": "2"}));
    let done = plan.ok("finish_job", json!({}));
    assert_eq!(done.stage.number(), Some(6));
}

// ------------------------------------------------------ nothing is dropped

/// A constraint the grammar ignores (its value starts uppercase) and a
/// title after `type:` without a scope: an edit that does not rewrite
/// their section is refused with the line, the text and the fix; an edit
/// that rewrites it goes through.
#[test]
fn an_edit_never_stores_less_than_was_there() {
    let stored = "feat(cli): Flags\n\nWhy.\n- Never: Skip the tests\n\n- [ ]: Add the flag\n";
    let plan = Plan::holding(stored);
    for (tool, arguments) in [
        ("mark_task", json!({"task_id": "1"})),
        ("set_plan", json!({"plan": [[false, "Other", []]]})),
        ("finish_job", json!({})),
        (
            "set_overarching_goal",
            json!({"goal": {"type": "feat", "scope": "cli", "title": "Flags"}}),
        ),
    ] {
        let message = plan.refused(
            tool,
            arguments,
            &[
                "line 4: \"- Never: Skip the tests\"",
                "this edit would drop",
                "set the detailed goal",
                "Nothing was stored",
            ],
        );
        assert!(!message.contains('\u{1b}'), "{message}");
    }
    // The detailed goal rewrites the constraints: the user says it anew.
    let described = plan.ok(
        "set_detailed_goal",
        json!({"description": "Why.\n- Never: skip the tests"}),
    );
    assert!(described.rendered.contains("- Never: skip the tests\n"));
    assert!(described.rendered.contains("- [ ]: Add the flag\n"));

    let plan = Plan::holding("feat: Some title\n\nWhy.\n");
    plan.refused(
        "set_detailed_goal",
        json!({"description": "Why not."}),
        &[
            "line 1: \"Some title\"",
            "set the overarching goal",
            "a title needs a scope",
        ],
    );
    let goal = plan.ok(
        "set_overarching_goal",
        json!({"goal": {"type": "feat", "scope": "cli", "title": "Some title"}}),
    );
    assert!(goal.rendered.starts_with("feat(cli): Some title\n\nWhy.\n"));
}

// ----------------------------------------------------------- findings

/// `feature(Core): Title` once read as stage 1 with only a case warning,
/// and the next edit failed: every validator finding and parser warning is
/// reported with its line, and the guidance says to fix the errors first
/// (which the MCP layer words, from the errors).
#[test]
fn gather_requirements_reports_every_finding_with_its_line() {
    let plan = Plan::holding("feature(Core): Title\n\nWhy.\n\n- [ ]: A\n   - [ ]: B\n");
    let read = plan.ok("gather_requirements", json!({}));
    let errors = read.errors.join("\n");
    assert!(
        errors.contains("line 1, header.type:") && errors.contains("plan::unknown_type"),
        "{errors}"
    );
    assert!(
        errors.contains("line 1, header.scope:")
            && errors.contains("plan::invalid_scope")
            && errors.contains("(write `core`)"),
        "{errors}"
    );
    let warnings = read.warnings.join("\n");
    assert!(
        !warnings.contains("header.scope"),
        "one mistake, one finding: {warnings}"
    );
    assert!(
        warnings.contains("line 6: ") && warnings.contains("plan::irregular_indent"),
        "the parser's warnings: {warnings}"
    );
    // The text the parser ignores is a warning with its line too.
    let plan = Plan::holding("fix: Description\n");
    let read = plan.ok("gather_requirements", json!({}));
    assert!(
        read.warnings
            .iter()
            .any(|w| w.starts_with("line 1: ") && w.contains("plan::title_ignored")),
        "{:?}",
        read.warnings
    );
    // A sound plan has neither.
    let plan = Plan::holding(RELEASE);
    let read = plan.ok("gather_requirements", json!({}));
    assert!(
        read.errors.is_empty() && read.warnings.is_empty(),
        "{read:?}"
    );
}

// ---------------------------------------------------------- the direction

#[test]
fn finish_job_keeps_the_direction_and_reopening_gives_it_back() {
    let plan =
        Plan::holding("fix(cli): Flags\n\nWhy.\n\n- [x]: Add the flag\n\nShip it on Friday\n");
    let done = plan.ok("finish_job", json!({}));
    assert_eq!(done.stage.number(), Some(6));
    assert_eq!(
        plan.stored(),
        "fix(cli): Flags\n\nWhy.\n\n- [x]: Add the flag\n\nShip it on Friday\n~~~ COMPLETE ~~~\n"
    );
    assert_eq!(
        done.edit,
        Some(Edit::JobFinished {
            direction: Some("Ship it on Friday".into())
        }),
        "the direction is kept"
    );
    // Finishing twice changes nothing.
    plan.ok("finish_job", json!({}));
    assert!(
        plan.stored()
            .ends_with("\n\nShip it on Friday\n~~~ COMPLETE ~~~\n")
    );
    // Reopening a task takes only the directive away.
    let reopened = plan.ok("mark_task", json!({"task_id": "1", "completed": false}));
    assert_eq!(reopened.stage.number(), Some(5));
    assert!(
        plan.stored()
            .ends_with("- [ ]: Add the flag\n\nShip it on Friday\n")
    );
}

// -------------------------------------------------------------- stages

/// The spec: every stage after the first needs a description.
#[test]
fn a_plan_without_a_description_is_at_stage_1() {
    let plan = Plan::holding("fix(cli): Flags\n\n- [ ]: Add the flag\n");
    let read = plan.ok("gather_requirements", json!({}));
    assert_eq!(read.stage.number(), Some(1));
    assert_eq!(
        read.next,
        NextStep::Describe {
            kept_tasks: Some(1)
        },
        "the description is next, and the task is kept"
    );
    let described = plan.ok("set_detailed_goal", json!({"description": "Why."}));
    assert_eq!(described.stage.number(), Some(5));
    assert!(described.rendered.contains("- [ ]: Add the flag\n"));
}

#[test]
fn counts_are_singular_for_one() {
    let plan = Plan::holding("fix(cli): Flags\n\nWhy.\n\n- [ ]: Add the flag\n");
    let read = plan.ok("gather_requirements", json!({}));
    assert!(
        matches!(
            read.next,
            NextStep::Work {
                tasks: 1,
                done: 0,
                ..
            }
        ),
        "{:?}",
        read.next
    );
    plan.refused(
        "finish_job",
        json!({}),
        &["1 task is still open: 1 Add the flag; finish it and mark it"],
    );
    plan.ok("mark_task", json!({"task_id": "1"}));
    let done = plan.ok("finish_job", json!({}));
    assert_eq!(done.next, NextStep::Review { tasks: 1 });
}

// ------------------------------------------------------ a finished plan

#[test]
fn a_finished_plans_goal_changes_only_with_start_new() {
    let finished = "fix(cli): Flags\n\nWhy.\n\n- [x]: Add the flag\n\n~~~ COMPLETE ~~~\n";
    let plan = Plan::holding(finished);
    let goal = json!({"type": "docs", "scope": "readme", "title": "Describe the flag"});
    plan.refused(
        "set_overarching_goal",
        json!({ "goal": goal }),
        &[
            "the plan is finished (stage 6)",
            "start a new plan with this goal",
        ],
    );
    let next = plan.ok(
        "set_overarching_goal",
        json!({ "goal": goal, "start_new": true }),
    );
    assert_eq!(next.stage.number(), Some(1));
    assert_eq!(plan.stored(), "docs(readme): Describe the flag\n");
    assert_eq!(next.previous_plan.as_deref(), Some(finished));
    assert_exists(&plan.path());
    // On an empty store there is nothing to hand back.
    let empty = Plan::new();
    let first = empty.ok(
        "set_overarching_goal",
        json!({ "goal": goal, "start_new": true }),
    );
    assert_eq!(first.previous_plan, None);
    assert_eq!(
        first.edit,
        Some(Edit::NewPlanStarted {
            previous: PreviousPlan::None
        })
    );
}

/// Text that is not a plan, replaced by a new plan, was reported as a plan
/// "at stage 0, unfinished": it is reported as not a plan (and handed back).
#[test]
fn a_new_plan_over_text_that_is_no_plan_says_so() {
    let unreadable = "- [ ]: A task with no plan around it\n";
    let plan = Plan::holding(unreadable);
    assert_eq!(
        plan.ok("gather_requirements", json!({})).stage,
        Stage::Unreadable
    );
    let goal = json!({"type": "docs", "scope": "readme", "title": "Describe the flag"});
    let next = plan.ok(
        "set_overarching_goal",
        json!({ "goal": goal, "start_new": true }),
    );
    assert_eq!(
        next.edit,
        Some(Edit::NewPlanStarted {
            previous: PreviousPlan::Replaced {
                stage: Stage::Unreadable
            }
        })
    );
    assert_eq!(next.previous_plan.as_deref(), Some(unreadable));
}

// ------------------------------------------------------- no tool names

/// Issue 24: the planner's refusals say what is wrong and what to do in
/// the workflow's own words; naming the MCP tools that take the next step
/// is the MCP layer's job (quire-cli words these refusals for agents).
#[test]
fn no_refusal_names_a_tool() {
    const TOOLS: [&str; 7] = [
        "gather_requirements",
        "set_overarching_goal",
        "set_detailed_goal",
        "set_plan",
        "mark_task",
        "finish_job",
        "start_new",
    ];
    let goal = json!({"goal": {"type": "docs", "scope": "readme", "title": "Next"}});
    let described = "fix(cli): Flags\n\nWhy.\n";
    let cases = [
        // Finished: the goal changes only in a new plan.
        (
            "fix(cli): Flags\n\nWhy.\n\n- [x]: Add the flag\n\n~~~ COMPLETE ~~~\n",
            "set_overarching_goal",
            goal.clone(),
        ),
        // Tasks in the description, and no tasks to mark or to finish.
        (
            described,
            "set_detailed_goal",
            json!({"description": "Why.\n\n- [ ]: A task"}),
        ),
        (described, "mark_task", json!({"task_id": "1"})),
        (described, "finish_job", json!({})),
        // Open tasks.
        (
            "fix(cli): Flags\n\nWhy.\n\n- [ ]: Add the flag\n",
            "finish_job",
            json!({}),
        ),
        // Text the edit would drop: a constraint, a title without a scope.
        (
            "feat(cli): Flags\n\nWhy.\n- Never: Skip the tests\n\n- [ ]: Add the flag\n",
            "mark_task",
            json!({"task_id": "1"}),
        ),
        (
            "feat: Some title\n\nWhy.\n",
            "set_detailed_goal",
            json!({"description": "Why not."}),
        ),
    ];
    for (stored, tool, arguments) in cases {
        let plan = Plan::holding(stored);
        let message = planner_requests::call(&plan.tools, tool, arguments)
            .expect_err("the call is refused")
            .to_string();
        for name in TOOLS {
            assert!(
                !message.contains(name),
                "{tool}'s refusal names `{name}`: {message}"
            );
        }
    }
}
