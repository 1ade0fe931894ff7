//! Job-application tracker notes: guarded status changes.
//!
//! A tracker note is a markdown file with YAML frontmatter holding `status`
//! (and, for `Resume Written`, `resume_path`). [`TrackerTools`] changes the
//! status under the transition policy ([`transition_allowed`]) and the resume
//! guardrails ([`check_resume_written`]), rewriting only the status value's
//! bytes, atomically.
//!
//! ```
//! use quire_tracker::{Action, StatusUpdate, TrackerTools};
//! use quire_fs::Workspace;
//!
//! let folder = tempfile::tempdir()?;
//! std::fs::create_dir(folder.path().join("trackers"))?;
//! let note = "---\ncompany: Acme # the employer\nstatus: Resume Written\n---\n# Acme\n";
//! std::fs::write(folder.path().join("trackers/acme.md"), note)?;
//!
//! let tools = TrackerTools::new(Workspace::new(folder.path())?);
//! let request = StatusUpdate {
//!     tracker_path: "trackers/acme.md".into(),
//!     target_status: "Applied".into(),
//!     dry_run: false,
//!     force: false,
//! };
//! let response = tools.update_status(&request)?;
//! assert_eq!(response.action, Action::Updated);
//! let after = std::fs::read_to_string(folder.path().join("trackers/acme.md"))?;
//! assert_eq!(after, "---\ncompany: Acme # the employer\nstatus: Applied\n---\n# Acme\n");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod error;
mod guardrails;
mod status;
mod update;

pub use error::{TrackerError, TrackerErrorKind};
pub use guardrails::{
    GuardrailReport, PLACEHOLDER_TOKENS, check_resume_written, resume_link_target,
};
pub use status::{TrackerStatus, transition_allowed};
pub use update::{Action, StatusUpdate, StatusUpdateReport, TrackerTools, WriteHook};
