//! The `nova` toolset's domain: reporting an agent's progress to the Nova
//! Task Manager (its session, the steps it works through, their status).
//!
//! [`TaskManagerClient`] is what the tools ask of the Task Manager; two
//! implementations offer it, chosen by `USE_MOCK_CLIENT`
//! ([`ClientConfig::from_env`], [`ClientConfig::client`]):
//! [`HttpClient`], the real API over HTTP, and [`MockClient`], in memory.
//!
//! The API is described by `src/nova/task-manager.openapi.yaml` (OpenAPI
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
//!   generator is an optional build dependency switched on by `nova`
//!   alone, so other builds neither compile nor run it; the first `nova`
//!   build compiles it (progenitor, typify, openapiv3, syn) and reqwest:
//!   about two minutes on two cores. It runs again only when the document
//!   or build.rs changes.
//!   A checked-in generated file would have needed the generator as a
//!   dev-dependency (compiled by every test build, whatever its features)
//!   to check that the file is current.
//!
//! progenitor's client methods are not used (build.rs keeps only the
//! types): [`HttpClient`] sends the requests itself, each id encoded as
//! one path segment (`path`), following no redirect, and reading an
//! answer up to [`SUCCESS_BODY_LIMIT`] without assuming its shape
//! (`http`'s module doc says why each). The domain's requests
//! ([`StepCreate`], [`StepPatch`], ...) are converted to the generated
//! types there, so the mock and the tools do not depend on generated code,
//! and a document change the domain must follow fails to compile there.
//! The answers are [`Answer`]s, the JSON (or text) as the Task Manager
//! sent it: the requirements define the requests, not the answers.
//!
//! ```
//! use quire_nova::{ClientConfig, ClientKind, StepCreate, StepPatch, StepStatus};
//!
//! # tokio::runtime::Runtime::new()?.block_on(async {
//! let config = ClientConfig::from_env(|name| {
//!     (name == "USE_MOCK_CLIENT").then(|| "true".to_owned())
//! })?;
//! let client = config.client()?;
//! assert_eq!(client.kind(), ClientKind::Mock);
//! let step = client.create_step("e1", &StepCreate::new("build")).await?;
//! let patch = StepPatch { status: Some(StepStatus::Completed), message: None };
//! let answer = client.update_step("e1", &step.step_id, &patch).await?;
//! assert_eq!(answer["status"], "completed");
//! # Ok::<(), quire_nova::NovaError>(())
//! # })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod body;
mod client;
mod config;
mod error;
mod generated;
mod http;
mod mock;
mod model;
mod path;

pub use client::{ClientKind, NovaFuture, TaskManagerClient};
pub use config::{ClientConfig, HttpConfig};
pub use error::NovaError;
pub use http::{HttpClient, RETRIES, SUCCESS_BODY_LIMIT};
pub use mock::{Execution, MockClient, Step};
pub use model::{
    Answer, CreatedStep, ExecutionPatch, Health, MAX_ID_BYTES, StepCreate, StepPatch, StepStatus,
};
