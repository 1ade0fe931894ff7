//! Why a planner call could not be carried out: the plan's rules refused
//! the edit, or the store could not be used.
//!
//! Messages say what is wrong and what to do in terms of the workflow's own
//! steps ("set the tasks first"); the refusals whose remedy is another step
//! carry what a front end needs to name its own way of taking that step.

use std::fmt;

use super::next::TaskRef;
use super::store::{StoreError, StoreKind};

/// An edit the plan's rules refuse (a request that breaks them, or stored
/// text the edit cannot keep); nothing was stored. The message says what is
/// wrong and what to do instead.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PlanEditError {
    /// The request, or the plan it would make, breaks a rule; the message
    /// says which and how to fix it.
    #[error("{0}")]
    Invalid(String),
    /// The plan is finished, so its goal is not changed: the next plan is
    /// started instead.
    #[error(
        "the plan is finished (stage 6), so its goal is not changed; nothing was stored. \
         To start the next plan, {}",
        fresh_start(*store)
    )]
    Finished {
        /// Where the plan is kept, which decides how the next one starts.
        store: StoreKind,
    },
    /// A detailed goal with tasks or other text after its constraint lines.
    #[error(
        "the description may end in constraint lines (`- Never: ...`) but holds no tasks or other text after them; \
         set the tasks as the plan instead"
    )]
    TasksInDescription,
    /// A task to mark in a plan without tasks.
    #[error("the plan has no tasks yet; set them first")]
    NoTasksToMark,
    /// A job to finish in a plan without tasks.
    #[error("the plan has no tasks; set them, do them, then finish")]
    NoTasksToFinish,
    /// A job to finish while tasks are open.
    #[error("{}", TasksOpen(open))]
    TasksOpen {
        /// The open tasks, in document order.
        open: Vec<TaskRef>,
    },
    /// Stored text the plan grammar ignores, outside the sections the edit
    /// rewrites: storing the edit would drop it.
    #[error(
        "the stored plan holds text the plan grammar ignores, which this edit would drop: {}. Nothing was stored. \
         Keep the text as the help says, or fix the stored plan by hand",
        Dropped(dropped)
    )]
    WouldDrop {
        /// Each piece of text, with its line and how to keep it.
        dropped: Vec<IgnoredText>,
    },
}

impl PlanEditError {
    pub(super) fn invalid(message: impl Into<String>) -> Self {
        PlanEditError::Invalid(message.into())
    }
}

/// How the next plan starts in `store`, in the workflow's words.
fn fresh_start(store: StoreKind) -> &'static str {
    match store {
        StoreKind::Jj => {
            "start a new plan with this goal (in a new change, as `jj new` does, so this plan stays the description of its change), or run `jj new` yourself"
        }
        StoreKind::Git => {
            "commit (the prepare-commit-msg hook offers this plan as the message and the post-commit hook clears it), or start a new plan with this goal to replace it"
        }
        StoreKind::File => {
            "start a new plan with this goal (it replaces the plan file's text), or move the plan file away first to keep it"
        }
    }
}

/// `2 tasks are still open: 1 Write; 2 Ship; finish them and mark them done first`.
struct TasksOpen<'a>(&'a [TaskRef]);

impl fmt::Display for TasksOpen<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let open: Vec<String> = self.0.iter().map(TaskRef::to_string).collect();
        let (count, them) = match open.len() {
            1 => ("1 task is".to_owned(), "it"),
            n => (format!("{n} tasks are"), "them"),
        };
        write!(
            f,
            "{count} still open: {}; finish {them} and mark {them} done first",
            open.join("; ")
        )
    }
}

/// Text the plan grammar ignores, which an edit would drop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IgnoredText {
    /// Its line in the stored plan (from 1).
    pub line: usize,
    /// The text, on one line, control characters escaped.
    pub text: String,
    /// Why the grammar ignores it.
    pub message: String,
    /// The grammar's help for it.
    pub help: String,
    /// The part of the plan to set again to keep the text.
    pub keep_in: PlanPart,
}

/// A part of the plan that one workflow step sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PlanPart {
    /// The header: type, scope and title.
    Goal,
    /// The description and its constraints.
    DetailedGoal,
}

/// `line 4: "- Never: Skip": message (help; how to keep it)`.
impl fmt::Display for IgnoredText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let keep = match self.keep_in {
            PlanPart::Goal => {
                "to keep it, set the overarching goal with it as the title (a title needs a scope)"
            }
            PlanPart::DetailedGoal => {
                "to keep it, set the detailed goal again with the whole description and this constraint rewritten"
            }
        };
        write!(
            f,
            "line {}: \"{}\": {} ({}; {keep})",
            self.line, self.text, self.message, self.help
        )
    }
}

/// Every dropped text, `; `-separated.
struct Dropped<'a>(&'a [IgnoredText]);

impl fmt::Display for Dropped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, text) in self.0.iter().enumerate() {
            if index > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{text}")?;
        }
        Ok(())
    }
}

/// Why a planner call failed. A refused edit changes nothing; the same
/// call fails the same way until its request (or the stored plan) changes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PlannerError {
    /// The plan's rules refuse the edit.
    #[error(transparent)]
    Edit(#[from] PlanEditError),
    /// The place the plan is kept could not be used.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl PlannerError {
    /// Whether the same call may succeed if made again unchanged (a lock
    /// held by another writer, say).
    pub fn retryable(&self) -> bool {
        match self {
            PlannerError::Edit(_) => false,
            PlannerError::Store(error) => error.retryable(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every store's advice on starting the next plan is in the workflow's
    /// words: no MCP tool or argument is named.
    #[test]
    fn a_finished_plans_refusal_names_no_tool_in_any_store() {
        for store in [StoreKind::Jj, StoreKind::Git, StoreKind::File] {
            let message = PlanEditError::Finished { store }.to_string();
            assert!(
                message.contains("To start the next plan, ")
                    && message.contains("start a new plan"),
                "{store}: {message}"
            );
            for tool in ["set_overarching_goal", "start_new"] {
                assert!(!message.contains(tool), "{store}: {message}");
            }
        }
    }
}
