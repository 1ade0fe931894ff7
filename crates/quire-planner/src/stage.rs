//! The workflow stage of a plan, and the tasks of a plan with their paths.

use quire_grammar::diagnostics::one_line;

use quire_grammar::plan::{PlanDocument, Task, TaskPath};

use super::next::{NextStep, TaskRef};

/// The spec's stages. Stage 3 is reported as 2 (the spec's "2/3": a
/// description without constraints).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
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

/// The directive that records a finished job.
pub(crate) const COMPLETE: &str = "COMPLETE";

impl Stage {
    /// Detects the stage by the sections present (see [`NextStep::of`]).
    pub fn of(document: &PlanDocument) -> Stage {
        NextStep::of(document).stage()
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

    /// The task as the workflow's results name it.
    pub(super) fn task_ref(&self) -> TaskRef {
        TaskRef {
            path: self.path.clone(),
            text: self.task.text().to_owned(),
        }
    }
}

/// Every task of `document` in document order with its path.
pub(super) fn tasks_with_paths(document: &PlanDocument) -> Vec<TaskAt<'_>> {
    document
        .tasks_with_paths()
        .map(|(path, task)| TaskAt { path, task })
        .collect()
}
