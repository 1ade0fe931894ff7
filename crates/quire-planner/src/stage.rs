//! The workflow stage of a plan, detected from which sections it has, and
//! the guidance `gather_requirements` gives for each.

use quire_grammar::diagnostics::one_line;
use std::fmt::Write;

use serde::Serialize;

use quire_grammar::plan::{
    ALLOWED_CONSTRAINT_PREFIXES, ALLOWED_TYPES, MAX_TASK_DEPTH, ParserConfig, PlanDocument, Task,
    TaskPath,
};

/// The spec's stages. Stage 3 is reported as 2 (the spec's "2/3": a
/// description without constraints).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// 0: no header.
    Empty,
    /// 1: the overarching goal (header) only.
    Goal,
    /// 2/3: goal and detailed description.
    DetailedGoal,
    /// 4: goal, description and constraints.
    Constraints,
    /// 5: a plan of tasks, not finished.
    Plan,
    /// 6: finished (`~~~ COMPLETE ~~~`).
    Complete,
    /// The stored text is not a plan document: it has no stage until it
    /// is fixed or cleared.
    Unreadable,
}

/// The directive `finish_job` records.
pub const COMPLETE: &str = "COMPLETE";

impl Stage {
    /// Detects the stage by the sections present (the spec's "fuzzy
    /// schema"): every stage after the first needs a description, so a
    /// plan without one is at stage 1 whatever else it holds, and the agent
    /// is asked for it.
    pub fn of(document: &PlanDocument) -> Stage {
        let has_constraints = document.constraints.as_ref().is_some_and(|c| !c.is_empty());
        if document.header.is_none() {
            Stage::Empty
        } else if document.description.is_none() {
            Stage::Goal
        } else if document.tasks.is_none() {
            if has_constraints {
                Stage::Constraints
            } else {
                Stage::DetailedGoal
            }
        } else if document.directive() == Some(COMPLETE) {
            Stage::Complete
        } else {
            Stage::Plan
        }
    }

    /// The spec's stage number; `None` for [`Stage::Unreadable`].
    pub fn number(self) -> Option<u8> {
        Some(match self {
            Stage::Empty => 0,
            Stage::Goal => 1,
            Stage::DetailedGoal => 2,
            Stage::Constraints => 4,
            Stage::Plan => 5,
            Stage::Complete => 6,
            Stage::Unreadable => return None,
        })
    }
}

/// `1 task`, `2 tasks`.
pub(super) fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// How to start the next plan in `store` once this one is finished.
pub(super) fn fresh_start(store: &str) -> &'static str {
    match store {
        "jj" => {
            "call `set_overarching_goal` with `start_new: true` (it runs `jj new`, so this plan stays the description of its change), or run `jj new` yourself"
        }
        "git" => {
            "commit (the prepare-commit-msg hook offers this plan as the message and the post-commit hook clears it), or call `set_overarching_goal` with `start_new: true` to replace it"
        }
        _ => {
            "call `set_overarching_goal` with `start_new: true` (it replaces the plan file's text), or move the plan file away first to keep it"
        }
    }
}

/// A task with its path in the tree (`2.1` is the first subtask of the
/// second task).
pub(super) struct TaskAt<'a> {
    pub path: TaskPath,
    pub task: &'a Task,
}

impl TaskAt<'_> {
    /// `2.1 Write the tests`, as messages list a task: on one line, control
    /// characters escaped.
    pub(super) fn listed(&self) -> String {
        format!("{} {}", self.path, self.quoted())
    }

    /// The task's text as messages quote it.
    pub(super) fn quoted(&self) -> std::borrow::Cow<'_, str> {
        one_line(self.task.text())
    }
}

/// Every task of `document` in document order with its path.
pub(super) fn tasks_with_paths(document: &PlanDocument) -> Vec<TaskAt<'_>> {
    document
        .tasks_with_paths()
        .map(|(path, task)| TaskAt { path, task })
        .collect()
}

/// What to do next at `stage`, for a model to follow. `store` (`jj`, `git`
/// or `file`) says where the plan lives, for the advice on starting anew.
pub fn guidance(stage: Stage, document: &PlanDocument, store: &str) -> String {
    match stage {
        Stage::Empty => empty(),
        Stage::Goal => goal_set(document),
        Stage::DetailedGoal | Stage::Constraints => described(stage),
        Stage::Plan => planned(document),
        Stage::Complete => complete(document, store),
        Stage::Unreadable => "The stored text is not a plan document (see `errors`); it is left as it is, and every tool that writes refuses until it is fixed or cleared.".to_owned(),
    }
}

/// Stage 0: how to give the goal, with the types and the title's limit.
fn empty() -> String {
    format!(
        "Stage 0: no plan yet.\n\nNext: define the overarching goal with `set_overarching_goal`, \
         giving `goal` = {{type, scope, breaking, title}}:\n\
         - type: one of {}\n\
         - scope: lowercase letters, digits and hyphens, starting with a letter (e.g. `parser`)\n\
         - breaking: true if the change breaks existing users\n\
         - title: one line, at most {} characters, no surrounding spaces\n\
         Ask the user what they want to achieve if it is not clear yet.",
        ALLOWED_TYPES.join(", "),
        ParserConfig::COMMIT_MESSAGE.max_title_length
    )
}

/// Stage 1: how to describe the change, with the constraint prefixes.
fn goal_set(document: &PlanDocument) -> String {
    let kept = match document.tasks {
        Some(_) => format!(
            " The plan has no description yet, though it has {}; they are kept.",
            count(document.tasks_with_paths().count(), "task")
        ),
        None => String::new(),
    };
    format!(
        "Stage 1: the overarching goal is set.{kept}\n\nNext: describe the change with `set_detailed_goal`: \
         why it is needed, what it changes (targets) and how (approach), as one paragraph (no blank lines). \
         To record what must not be done, end it with constraint lines such as `- Never: skip the tests` \
         (prefixes: {}; the value starts with a lowercase letter). To change the goal itself, call \
         `set_overarching_goal` again.",
        ALLOWED_CONSTRAINT_PREFIXES.join(", ")
    )
}

/// Stages 2/3 and 4: how to give the tasks, with the nesting limit.
fn described(stage: Stage) -> String {
    let step = if stage == Stage::DetailedGoal {
        "Stage 2/3: the goal is described."
    } else {
        "Stage 4: the goal is described, with constraints."
    };
    format!(
        "{step}\n\nNext: break the work into tasks with `set_plan`: `plan` is a list of \
         [checked, text, children] tuples, e.g. [[false, \"Parse task lines\", [[false, \"Handle indentation\", []]]]]: \
         top-level tasks and up to {MAX_TASK_DEPTH} levels of subtasks, each a concrete one-line step that can be checked off. \
         To change the description or the constraints, call `set_detailed_goal` again with the whole text: \
         the paragraph and every constraint line to keep."
    )
}

/// Stage 5: the task to do now and every open task.
fn planned(document: &PlanDocument) -> String {
    let tasks = tasks_with_paths(document);
    let open: Vec<&TaskAt<'_>> = tasks.iter().filter(|at| !at.task.checked).collect();
    let mut text = format!(
        "Stage 5: the plan is set: {}, {} done.\n\n",
        count(tasks.len(), "task"),
        tasks.len() - open.len()
    );
    // The first open task that has no open subtask: the one to do now.
    let next = open
        .iter()
        .find(|at| at.task.children.iter().all(|child| child.checked));
    match next {
        Some(next) => {
            let _ = write!(
                text,
                "Next: work on task {} \"{}\". When a task is done, call `mark_task` with its path as listed \
                 (`task_id: \"{}\"`) or its text (`completed: false` reopens it). A parent task is done only when all its subtasks are, so \
                 mark it after them. When every task is done, call `finish_job`. To change the plan, call \
                 `set_plan` again.\n\nOpen tasks:",
                next.path,
                next.quoted(),
                next.path
            );
            for at in open {
                let _ = write!(text, "\n- {}", at.listed());
            }
        }
        None => text
            .push_str("Every task is done. Next: call `finish_job` to record the job as complete."),
    }
    text
}

/// Stage 6: review, then start the next plan the way `store` allows.
fn complete(document: &PlanDocument, store: &str) -> String {
    let tasks = count(tasks_with_paths(document).len(), "task");
    format!(
        "Stage 6: the job is complete ({tasks} done).\n\nNext: review the change with the user. \
         To start the next piece of work, {}. \
         To reopen a task instead, call `mark_task` with `completed: false`.",
        fresh_start(store)
    )
}
