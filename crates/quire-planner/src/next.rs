//! What to do next with a plan, decided from which sections it has: the
//! workflow's next step as data. Putting it into words (and naming the call
//! that takes it) is the caller's job.

use std::fmt;

use quire_grammar::diagnostics::one_line;
use quire_grammar::plan::{PlanDocument, TaskPath};

use super::stage::{COMPLETE, Stage, tasks_with_paths};

/// A task as the workflow names it: its path in the tree (`2.1` is the
/// first subtask of the second task) and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskRef {
    /// Where the task is in the tree.
    pub path: TaskPath,
    /// The task's text, as written.
    pub text: String,
}

/// `2.1 Write the tests`: the path, then the text on one line with
/// control characters escaped.
impl fmt::Display for TaskRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.path, one_line(&self.text))
    }
}

/// The workflow's next step for a plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NextStep {
    /// Stage 0: there is no plan yet; set the overarching goal.
    SetGoal,
    /// Stage 1: the goal is set; describe the change.
    Describe {
        /// How many tasks the plan already holds (they are kept), when it
        /// has a task list.
        kept_tasks: Option<usize>,
    },
    /// Stages 2/3 and 4: the change is described; break it into tasks.
    Plan {
        /// Whether the description ends in constraints (stage 4).
        constraints: bool,
    },
    /// Stage 5: work on `next`, then mark it done.
    Work {
        /// How many tasks the plan has, at any depth.
        tasks: usize,
        /// How many of them are done.
        done: usize,
        /// The task to do now: the first open task without open subtasks.
        next: TaskRef,
        /// Every open task, in document order.
        open: Vec<TaskRef>,
    },
    /// Stage 5 with every task done: record the job as complete.
    Finish {
        /// How many tasks the plan has (all done).
        tasks: usize,
    },
    /// Stage 6: the job is complete; review it, then start the next plan.
    Review {
        /// How many tasks were done.
        tasks: usize,
    },
    /// The stored text is not a plan document: it is left as it is until
    /// it is fixed by hand or cleared.
    FixText {
        /// How to clear it in the store that holds it.
        clear_hint: String,
    },
}

impl NextStep {
    /// The next step for `document`, detected by the sections present (the
    /// spec's "fuzzy schema"): every stage after the first needs a
    /// description, so a plan without one is at stage 1 whatever else it
    /// holds, and the description is asked for.
    pub fn of(document: &PlanDocument) -> NextStep {
        if document.header.is_none() {
            return NextStep::SetGoal;
        }
        if document.description.is_none() {
            let kept_tasks = document
                .tasks
                .as_ref()
                .map(|_| document.tasks_with_paths().count());
            return NextStep::Describe { kept_tasks };
        }
        if document.tasks.is_none() {
            let constraints = document.constraints.as_ref().is_some_and(|c| !c.is_empty());
            return NextStep::Plan { constraints };
        }
        let tasks = tasks_with_paths(document);
        if document.directive() == Some(COMPLETE) {
            return NextStep::Review { tasks: tasks.len() };
        }
        let open: Vec<TaskRef> = tasks
            .iter()
            .filter(|at| !at.task.checked)
            .map(|at| at.task_ref())
            .collect();
        // The first open task that has no open subtask: the one to do now.
        let next = tasks
            .iter()
            .find(|at| !at.task.checked && at.task.children.iter().all(|child| child.checked));
        match next {
            Some(next) => NextStep::Work {
                tasks: tasks.len(),
                done: tasks.len() - open.len(),
                next: next.task_ref(),
                open,
            },
            None => NextStep::Finish { tasks: tasks.len() },
        }
    }

    /// The workflow stage this step belongs to.
    pub fn stage(&self) -> Stage {
        match self {
            NextStep::SetGoal => Stage::Empty,
            NextStep::Describe { .. } => Stage::Goal,
            NextStep::Plan { constraints: false } => Stage::DetailedGoal,
            NextStep::Plan { constraints: true } => Stage::Constraints,
            NextStep::Work { .. } | NextStep::Finish { .. } => Stage::Plan,
            NextStep::Review { .. } => Stage::Complete,
            NextStep::FixText { .. } => Stage::Unreadable,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quire_grammar::plan::{ParserConfig, parse};

    fn next(text: &str) -> NextStep {
        let outcome = parse(text, &ParserConfig::COMMIT_MESSAGE);
        assert!(outcome.is_parsed(), "{:?}", outcome.diagnostics);
        NextStep::of(&outcome.document)
    }

    fn task(path: &str, text: &str) -> TaskRef {
        TaskRef {
            path: path.parse().unwrap(),
            text: text.into(),
        }
    }

    #[test]
    fn each_stage_has_its_step() {
        assert_eq!(next(""), NextStep::SetGoal);
        assert_eq!(next("fix(a): B\n"), NextStep::Describe { kept_tasks: None });
        assert_eq!(
            next("fix(a): B\n\n- [ ]: One\n  - [x]: Two\n"),
            NextStep::Describe {
                kept_tasks: Some(2)
            }
        );
        assert_eq!(
            next("fix(a): B\n\nWhy.\n"),
            NextStep::Plan { constraints: false }
        );
        assert_eq!(
            next("fix(a): B\n\nWhy.\n- Never: skip it\n"),
            NextStep::Plan { constraints: true }
        );
        assert_eq!(
            next("fix(a): B\n\nWhy.\n\n- [ ]: One\n  - [x]: Two\n  - [ ]: Three\n- [x]: Four\n"),
            NextStep::Work {
                tasks: 4,
                done: 2,
                next: task("1.2", "Three"),
                open: vec![task("1", "One"), task("1.2", "Three")],
            }
        );
        assert_eq!(
            next("fix(a): B\n\nWhy.\n\n- [x]: One\n"),
            NextStep::Finish { tasks: 1 }
        );
        assert_eq!(
            next("fix(a): B\n\nWhy.\n\n- [x]: One\n\n~~~ COMPLETE ~~~\n"),
            NextStep::Review { tasks: 1 }
        );
    }

    #[test]
    fn a_task_is_named_by_its_path_and_its_text_on_one_line() {
        assert_eq!(
            task("2.1", "Ship\u{1b}[2J").to_string(),
            "2.1 Ship\\u{1b}[2J"
        );
    }
}
