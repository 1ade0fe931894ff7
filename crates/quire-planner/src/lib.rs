//! The planning workflow: six tools that take a plan document from an empty
//! goal to a finished job, kept in the Jujutsu change description, the git
//! directory, or a plain file.
//!
//! ```
//! use quire_planner::{
//!     Goal, MarkTaskRequest, PlannerTools, SetDetailedGoalRequest, SetOverarchingGoalRequest,
//!     SetPlanRequest,
//! };
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
//! tools.set_overarching_goal(&SetOverarchingGoalRequest { goal, start_new: false })?;
//! tools.set_detailed_goal(&SetDetailedGoalRequest {
//!     description: "Commits should carry their plan.\n- Never: rewrite a message the user typed".into(),
//! })?;
//! tools.set_plan(&SetPlanRequest { plan: vec![quire_grammar::plan::Task::new(false, "Write the hook", vec![])] })?;
//! tools.mark_task(&MarkTaskRequest { task_id: "hook".into(), completed: true })?;
//! let done = tools.finish_job()?;
//! assert_eq!(done.stage, Some(6));
//! assert!(std::fs::read_to_string(folder.path().join("PLAN.md"))?.ends_with("~~~ COMPLETE ~~~\n"));
//!
//! // An edit the plan's rules refuse says why, and stores nothing.
//! let refused = tools.mark_task(&MarkTaskRequest { task_id: "deploy".into(), completed: true });
//! assert!(matches!(refused, Err(quire_planner::PlannerError::Edit(_))));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod edit;
mod error;
mod findings;
mod stage;
pub mod store;
mod tools;

pub use edit::Goal;
pub use error::{PlanEditError, PlannerError};
pub use stage::{COMPLETE, Stage, guidance};
pub use tools::{
    LOCK_TIMEOUT, MarkTaskRequest, NoParameters, PlannerResponse, PlannerTools,
    SetDetailedGoalRequest, SetOverarchingGoalRequest, SetPlanRequest,
};
