//! The planning workflow: six tools that take a plan document from an empty
//! goal to a finished job, kept in the Jujutsu change description, the git
//! directory, or a plain file.
//!
//! ```
//! use quire::planner::PlannerTools;
//! use serde_json::json;
//!
//! let folder = tempfile::tempdir()?;
//! let workspace = quire::fs::Workspace::new(folder.path())?;
//! let tools = PlannerTools::new(workspace, Some("PLAN.md".into()));
//! tools.call("set_overarching_goal", json!({"goal": {"type": "feat", "scope": "cli", "breaking": false, "title": "Add a hook"}})).unwrap();
//! tools.call("set_detailed_goal", json!({"description": "Commits should carry their plan.\n- Never: rewrite a message the user typed"})).unwrap();
//! tools.call("set_plan", json!({"plan": [[false, "Write the hook", []]]})).unwrap();
//! tools.call("mark_task", json!({"task_id": "hook"})).unwrap();
//! let done = tools.call("finish_job", json!({})).unwrap();
//! assert_eq!(done.stage, Some(6));
//! assert!(std::fs::read_to_string(folder.path().join("PLAN.md"))?.ends_with("~~~ COMPLETE ~~~\n"));
//! # Ok::<(), std::io::Error>(())
//! ```

mod edit;
mod findings;
mod stage;
pub mod store;
mod tools;

pub use edit::Goal;
pub use stage::{COMPLETE, Stage, guidance};
pub use tools::{
    LOCK_TIMEOUT, MarkTaskRequest, NoParameters, PlannerResponse, PlannerTools,
    SetDetailedGoalRequest, SetOverarchingGoalRequest, SetPlanRequest,
};
