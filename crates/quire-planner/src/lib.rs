//! The planning workflow: steps that take a plan document from an empty
//! goal to a finished job, kept in the Jujutsu change description, the git
//! directory, or a plain file.
//!
//! Every step returns a [`PlanReport`]: the stored plan, its [`Stage`], what
//! the step changed ([`Edit`]) and what to do next ([`NextStep`]), as data
//! for a front end to put into words.
//!
//! ```
//! use quire_planner::{Goal, NextStep, PlanEditError, PlannerError, PlannerTools, Stage};
//!
//! let folder = tempfile::tempdir()?;
//! let workspace = quire_fs::Workspace::new(folder.path())?;
//! let tools = PlannerTools::new(workspace, Some("PLAN.md".into()));
//! let goal = Goal {
//!     commit_type: "feat".into(),
//!     scope: "cli".into(),
//!     breaking: false,
//!     title: "Add a hook".into(),
//! };
//! tools.set_overarching_goal(&goal)?;
//! tools.set_detailed_goal("Commits should carry their plan.\n- Never: rewrite a message the user typed")?;
//! let planned = tools.set_plan(vec![quire_grammar::plan::Task::new(false, "Write the hook", vec![])])?;
//! assert!(matches!(planned.next, NextStep::Work { tasks: 1, done: 0, .. }));
//! tools.mark_task("hook", true)?;
//! let done = tools.finish_job()?;
//! assert_eq!(done.stage, Stage::Complete);
//! assert!(std::fs::read_to_string(folder.path().join("PLAN.md"))?.ends_with("~~~ COMPLETE ~~~\n"));
//!
//! // An edit the plan's rules refuse says why, and stores nothing.
//! let refused = tools.mark_task("deploy", true);
//! assert!(matches!(refused, Err(PlannerError::Edit(PlanEditError::Invalid(_)))));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod edit;
mod error;
mod findings;
mod next;
mod report;
mod stage;
pub mod store;
mod tools;

pub use edit::Goal;
pub use error::{IgnoredText, PlanEditError, PlanPart, PlannerError};
pub use next::{NextStep, TaskRef};
pub use report::{Edit, PlanReport, PreviousPlan};
pub use stage::Stage;
pub use tools::{LOCK_TIMEOUT, PlannerTools};
