//! The workflow stage of a plan, detected from which sections it has, and
//! the guidance `gather_requirements` gives for each.

use crate::diagnostics::one_line;
use std::fmt::Write;

use serde::Serialize;

use crate::plan::{ALLOWED_CONSTRAINT_PREFIXES, ALLOWED_TYPES, PlanDocument, Task};

/// The spec's stages. Stage 3 is reported as 2 (the spec's "2/3": a
/// description without constraints).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
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
}

/// The directive `finish_job` records.
pub const COMPLETE: &str = "COMPLETE";

impl Stage {
    /// Detects the stage by the sections present (the spec's "fuzzy schema").
    pub fn of(document: &PlanDocument) -> Stage {
        let has_constraints = document.constraints.as_ref().is_some_and(|c| !c.is_empty());
        if document.header.is_none() {
            Stage::Empty
        } else if document.description.is_none() && document.tasks.is_none() && !has_constraints {
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

    pub fn number(self) -> u8 {
        match self {
            Stage::Empty => 0,
            Stage::Goal => 1,
            Stage::DetailedGoal => 2,
            Stage::Constraints => 4,
            Stage::Plan => 5,
            Stage::Complete => 6,
        }
    }
}

/// A task with its 1-based path in the tree (`2.1` is the first subtask of
/// the second task).
pub struct TaskAt<'a> {
    pub path: String,
    pub task: &'a Task,
}

impl TaskAt<'_> {
    /// `2.1 Write the tests`, as messages list a task: on one line, control
    /// characters escaped.
    pub fn listed(&self) -> String {
        format!("{} {}", self.path, one_line(&self.task.text.value))
    }

    /// The task's text as messages quote it.
    pub fn quoted(&self) -> std::borrow::Cow<'_, str> {
        one_line(&self.task.text.value)
    }
}

/// Every task in document order with its path.
pub fn tasks_with_paths(tasks: &[Task]) -> Vec<TaskAt<'_>> {
    fn walk<'a>(tasks: &'a [Task], prefix: &str, out: &mut Vec<TaskAt<'a>>) {
        for (index, task) in tasks.iter().enumerate() {
            let path = if prefix.is_empty() {
                format!("{}", index + 1)
            } else {
                format!("{prefix}.{}", index + 1)
            };
            out.push(TaskAt {
                path: path.clone(),
                task,
            });
            walk(&task.children, &path, out);
        }
    }
    let mut out = Vec::new();
    walk(tasks, "", &mut out);
    out
}

/// What to do next at `stage`, for a model to follow. `store` (`jj`, `git`
/// or `file`) says where the plan lives, for the advice on starting anew.
pub fn guidance(stage: Stage, document: &PlanDocument, store: &str) -> String {
    let mut text = String::new();
    match stage {
        Stage::Empty => {
            let _ = write!(
                text,
                "Stage 0: no plan yet.\n\nNext: define the overarching goal with `set_overarching_goal`, \
                 giving `goal` = {{type, scope, breaking, title}}:\n\
                 - type: one of {}\n\
                 - scope: lowercase letters, digits and hyphens, starting with a letter (e.g. `parser`)\n\
                 - breaking: true if the change breaks existing users\n\
                 - title: one line, at most 120 characters, no surrounding spaces\n\
                 Ask the user what they want to achieve if it is not clear yet.",
                ALLOWED_TYPES.join(", ")
            );
        }
        Stage::Goal => {
            let _ = write!(
                text,
                "Stage 1: the overarching goal is set.\n\nNext: describe the change with `set_detailed_goal`: \
                 why it is needed, what it changes (targets) and how (approach), as one paragraph (no blank lines). \
                 To record what must not be done, end it with constraint lines such as `- Never: skip the tests` \
                 (prefixes: {}; the value starts with a lowercase letter). To change the goal itself, call \
                 `set_overarching_goal` again.",
                ALLOWED_CONSTRAINT_PREFIXES.join(", ")
            );
        }
        Stage::DetailedGoal | Stage::Constraints => {
            let step = if stage == Stage::DetailedGoal {
                "Stage 2/3: the goal is described."
            } else {
                "Stage 4: the goal is described, with constraints."
            };
            let _ = write!(
                text,
                "{step}\n\nNext: break the work into tasks with `set_plan`: `plan` is a list of \
                 [checked, text, children] tuples, e.g. [[false, \"Parse task lines\", [[false, \"Handle indentation\", []]]]]: \
                 top-level tasks and up to 4 levels of subtasks, each a concrete one-line step that can be checked off. \
                 To change the description or the constraints, call `set_detailed_goal` again with the whole text: \
                 the paragraph and every constraint line to keep."
            );
        }
        Stage::Plan => {
            let tasks = tasks_with_paths(document.tasks.as_deref().unwrap_or_default());
            let open: Vec<&TaskAt<'_>> = tasks.iter().filter(|at| !at.task.checked).collect();
            let _ = write!(
                text,
                "Stage 5: the plan is set: {} tasks, {} done.\n\n",
                tasks.len(),
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
                        "Next: work on task {} \"{}\". When a task is done, call `mark_task` with its text \
                         (`completed: false` reopens it). A parent task is done only when all its subtasks are, so \
                         mark it after them. When every task is done, call `finish_job`. To change the plan, call \
                         `set_plan` again.\n\nOpen tasks:",
                        next.path,
                        next.quoted()
                    );
                    for at in open {
                        let _ = write!(text, "\n- {}", at.listed());
                    }
                }
                None => text.push_str(
                    "Every task is done. Next: call `finish_job` to record the job as complete.",
                ),
            }
        }
        Stage::Complete => {
            let count = tasks_with_paths(document.tasks.as_deref().unwrap_or_default()).len();
            let fresh_start = match store {
                "jj" => "start a new change with `jj new` (its description starts empty)",
                "git" => {
                    "commit: the prepare-commit-msg hook offers this plan as the message and the post-commit hook clears it"
                }
                _ => "move or delete the plan file",
            };
            let _ = write!(
                text,
                "Stage 6: the job is complete ({count} tasks done).\n\nNext: review the change with the user. \
                 To start the next piece of work, {fresh_start}; then call `set_overarching_goal`. \
                 To reopen a task instead, call `mark_task` with `completed: false`."
            );
        }
    }
    text
}
