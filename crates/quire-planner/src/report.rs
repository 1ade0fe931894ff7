//! What a planner call hands back: the stored plan, its stage and findings,
//! what the call changed and what to do next, as data.

use quire_grammar::plan::PlanDocument;

use super::next::{NextStep, TaskRef};
use super::stage::Stage;
use super::store::{StoreKind, WorkingCopyChanges};

/// The plan after a call (the stored plan, for a call that only reads it).
#[derive(Clone, Debug, PartialEq)]
pub struct PlanReport {
    /// The workflow stage; [`Stage::Unreadable`] when the stored text is
    /// not a plan document.
    pub stage: Stage,
    /// Where the plan is kept.
    pub store: StoreKind,
    /// The plan as the plan grammar reads it (for unreadable text, as far
    /// as the parser got).
    pub document: PlanDocument,
    /// The plan's text: the document as stored, or the unreadable text as
    /// it is.
    pub rendered: String,
    /// What the call changed; `None` for a call that only reads the plan.
    pub edit: Option<Edit>,
    /// What to do next.
    pub next: NextStep,
    /// The working copy's changes beneath the root, when there are any:
    /// the changed files, and their diff when
    /// [`PlannerTools::with_changes`](crate::PlannerTools::with_changes)
    /// asks for it (see [`PlanStore::changes`](crate::store::PlanStore::changes)).
    pub changes: Option<WorkingCopyChanges>,
    /// What in the stored plan breaks the plan's rules, each on one line
    /// with its line and how to fix it: the next edit fails unless it
    /// fixes these.
    pub errors: Vec<String>,
    /// Things to look at that do not block (the scope's case, text the
    /// parser ignores), with their lines.
    pub warnings: Vec<String>,
    /// The text a new plan replaced, when the store could not keep it.
    pub previous_plan: Option<String>,
}

/// What a call changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Edit {
    /// The overarching goal (the header) is set.
    GoalSet,
    /// The description, and with it the constraints, are set.
    DetailedGoalSet,
    /// The tasks are set.
    PlanSet,
    /// A task is marked done, or open again.
    TaskMarked {
        /// The task.
        task: TaskRef,
        /// Whether it is now done.
        completed: bool,
        /// The text of its parent, when marking it done completed the
        /// parent's last open subtask (the parent is next to mark).
        parent_ready: Option<String>,
    },
    /// The job is recorded as complete.
    JobFinished {
        /// The direction the user wrote, kept above the closing directive.
        direction: Option<String>,
    },
    /// A new plan is started with the goal.
    NewPlanStarted {
        /// What became of the plan stored before.
        previous: PreviousPlan,
    },
}

/// What became of the stored plan when a new one was started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PreviousPlan {
    /// Nothing was stored.
    None,
    /// The store keeps it: Jujutsu leaves it the description of the change
    /// before the new one.
    Kept,
    /// The new plan replaced it (its text is the report's
    /// [`previous_plan`](PlanReport::previous_plan)).
    Replaced {
        /// The stage it had.
        stage: Stage,
    },
}
