//! The `nova` toolset's domain: reporting an agent's progress to the Nova
//! Task Manager (its session, the steps it works through, their status).
//!
//! [`TaskManagerClient`] is what the tools ask of the Task Manager; two
//! implementations offer it, chosen by `USE_MOCK_CLIENT`
//! ([`ClientConfig::from_env`], [`ClientConfig::client`]):
//! [`HttpClient`], the real API over HTTP, and an in-memory Task Manager
//! ([`ClientKind::Mock`]).
//!
//! The API is described by `src/task-manager.openapi.yaml` (OpenAPI
//! 3.0.3), and its types (the request bodies, the error body) are
//! generated from it at build time by [progenitor](https://docs.rs/progenitor)
//! (in build.rs; the code lands in `$OUT_DIR/task_manager_types.rs`). Why
//! progenitor in build.rs:
//!
//! - progenitor is the maintained Rust generator for OpenAPI 3.0 documents
//!   (Oxide's, used for their own APIs); it emits typed, serde-ready
//!   structs for the document's schemas. The OpenAPI Generator's Rust
//!   target needs a Java tool to regenerate, and emits a crate of its own.
//! - in build.rs, the types cannot fall behind the document: an edit
//!   changes them on the next build, with nothing to remember to run. The
//!   generator is a build dependency of this crate alone (quire-cli
//!   depends on this crate only with its `nova` feature), so other builds
//!   neither compile nor run it; the first build of this crate compiles
//!   it (progenitor, typify, openapiv3, syn). It runs again only when the
//!   document or build.rs changes.
//!   A checked-in generated file would have needed the generator as a
//!   dev-dependency (compiled by every test build, whatever its features)
//!   to check that the file is current.
//!
//! progenitor's client methods are not used (build.rs keeps only the
//! types): [`HttpClient`] sends the requests itself, with ureq 3's blocking
//! client, each id encoded as one path segment (`path`), following no
//! redirect, and reading an answer up to [`SUCCESS_BODY_LIMIT`] without
//! assuming its shape (`http`'s module doc says why each). The domain's
//! requests ([`StepCreate`], [`StepPatch`], ...) are converted to the
//! generated types there, so the mock and the tools do not depend on
//! generated code, and a document change the domain must follow fails to
//! compile there. The answers are [`Answer`]s, the JSON (or text) as the
//! Task Manager sent it: the requirements define the requests, not the
//! answers.
//!
//! The calls block: a call returns when the Task Manager has answered, or
//! when the client's timeout has passed. An async caller (the MCP server)
//! runs them on a thread meant for blocking work.
//!
//! ```
//! use quire_nova::{ClientConfig, ClientKind, StepCreate, StepPatch, StepStatus};
//!
//! let config = ClientConfig::from_env(|name| {
//!     (name == "USE_MOCK_CLIENT").then(|| "true".to_owned())
//! })?;
//! let client = config.client()?;
//! assert_eq!(client.kind(), ClientKind::Mock);
//! let step = client.create_step("e1", &StepCreate::new("build"))?;
//! let patch = StepPatch { status: Some(StepStatus::Completed), message: None };
//! let answer = client.update_step("e1", &step.step_id, &patch)?;
//! assert_eq!(answer["status"], "completed");
//! # Ok::<(), quire_nova::NovaError>(())
//! ```

mod agent;
mod body;
mod client;
mod config;
mod error;
mod generated;
mod http;
mod mock;
mod model;
mod path;
mod resolve;

pub use client::{ClientKind, TaskManagerClient};
pub use config::{ClientConfig, HttpConfig};
pub use error::NovaError;
pub use http::{HttpClient, SUCCESS_BODY_LIMIT};
pub use model::{
    Answer, CreatedStep, ExecutionPatch, Health, MAX_ID_BYTES, StepCreate, StepPatch, StepStatus,
};
