//! The `nova` toolset's domain: reporting an agent's progress to the Nova
//! Task Manager (its session, the steps it works through, their status).
//!
//! [`TaskManagerClient`] is what the tools ask of the Task Manager; two
//! implementations offer it, chosen by `USE_MOCK_CLIENT`
//! ([`ClientConfig::from_env`], [`ClientConfig::client`]):
//! [`HttpClient`], the real API over HTTP, and [`MockClient`], in memory.
//!
//! The API is described by `src/nova/task-manager.openapi.yaml` (OpenAPI
//! 3.0.3), and the HTTP client is generated from it at build time by
//! [progenitor](https://docs.rs/progenitor) (in build.rs; the code lands in
//! `$OUT_DIR/task_manager_client.rs`). Why progenitor in build.rs:
//!
//! - progenitor is the maintained Rust generator for OpenAPI 3.0 documents
//!   (Oxide's, used for their own APIs); it emits typed request and
//!   response structs and async methods over reqwest, which runs on the
//!   tokio the MCP server already has. The OpenAPI Generator's Rust target
//!   needs a Java tool to regenerate, and emits a crate of its own.
//! - in build.rs, the client cannot fall behind the document: an edit
//!   changes it on the next build, with nothing to remember to run. The
//!   generator is an optional build dependency switched on by `nova`
//!   alone, so other builds neither compile nor run it; the first `nova`
//!   build compiles it (progenitor, typify, openapiv3, syn) and reqwest:
//!   about two minutes on two cores. It runs again only when the document
//!   or build.rs changes.
//!   A checked-in generated file would have needed the generator as a
//!   dev-dependency (compiled by every test build, whatever its features)
//!   to check that the file is current.
//!
//! The domain's own types ([`StepCreate`], [`Step`], ...) are converted to
//! and from the generated ones in [`HttpClient`], so the mock and the tools
//! do not depend on generated code, and a document change the domain must
//! follow fails to compile there.
//!
//! ```
//! use quire::nova::{ClientConfig, ClientKind, StepCreate, StepPatch, StepStatus};
//!
//! # tokio::runtime::Runtime::new()?.block_on(async {
//! let config = ClientConfig::from_env(|name| {
//!     (name == "USE_MOCK_CLIENT").then(|| "true".to_owned())
//! })?;
//! let client = config.client()?;
//! assert_eq!(client.kind(), ClientKind::Mock);
//! let step = client.create_step("e1", &StepCreate::new("build")).await?;
//! let patch = StepPatch { status: Some(StepStatus::Completed), message: None };
//! let step = client.update_step("e1", &step.id, &patch).await?;
//! assert_eq!(step.status, Some(StepStatus::Completed));
//! # Ok::<(), quire::nova::NovaError>(())
//! # })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod client;
mod config;
mod error;
mod generated;
mod http;
mod mock;
mod model;

pub use client::{ClientKind, NovaFuture, TaskManagerClient};
pub use config::{ClientConfig, HttpConfig};
pub use error::NovaError;
pub use http::{HttpClient, RETRIES};
pub use mock::MockClient;
pub use model::{Execution, ExecutionPatch, Health, Step, StepCreate, StepPatch, StepStatus};
