//! The Task Manager over HTTP, through the client generated from the
//! OpenAPI document (`generated`), with the error mapping and retries the
//! requirements ask for:
//!
//! - a timeout is [`NovaError::Timeout`] ("Request timeout"), never retried,
//!   so a caller waits at most the timeout;
//! - a connection that cannot be made or breaks is
//!   [`NovaError::Unreachable`], naming the base URL;
//! - a status of 400 or more is [`NovaError::Server`] with the Task
//!   Manager's `error` and `error_code`, or [`NovaError::NotJsonError`] with
//!   the start of the body when it is not that JSON;
//! - the idempotent calls (the PATCHes and GET) are tried again twice, with
//!   a doubling pause, after a connection failure or a 502, 503 or 504, as
//!   long as the retry can end within the one timeout the whole call has;
//!   `create_step` (POST) never is, since a retry after a lost answer would
//!   create the step twice.
//!
//! The retries are here rather than in a progenitor hook so that what is
//! retried is decided per operation, in plain code a reader finds.

use std::error::Error as _;
use std::future::Future;
use std::time::Duration;

use progenitor_client::{Error as GeneratedError, ResponseValue};
use tokio::time::Instant;

use super::client::{ClientKind, NovaFuture, TaskManagerClient};
use super::config::HttpConfig;
use super::error::NovaError;
use super::generated::{self, types};
use super::model::{
    Execution, ExecutionPatch, Health, Step, StepCreate, StepPatch, StepStatus, check_execution_id,
    check_step_id,
};

/// How many times an idempotent call is tried again.
pub const RETRIES: u32 = 2;

/// The most of an error body an error message shows.
const BODY_EXCERPT: usize = 300;

/// The most of an error body read: the JSON error is a line or two, and a
/// server (or proxy) sending megabytes with its error must not make the
/// client hold them.
const ERROR_BODY_LIMIT: usize = 64 * 1024;

/// The Task Manager's API over HTTP.
#[derive(Debug)]
pub struct HttpClient {
    client: generated::Client,
    base_url: String,
    timeout: Duration,
    first_pause: Duration,
}

/// Whether a call may be sent again after a failure that may not have
/// reached the Task Manager.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Idempotent {
    Yes,
    No,
}

impl HttpClient {
    /// A client for the Task Manager `config` describes. It connects
    /// directly (no proxy from the environment: the Task Manager is named
    /// by host and port, and a proxy would turn a refused connection into a
    /// 502 that hides where the Task Manager was looked for).
    pub fn new(config: &HttpConfig) -> Result<HttpClient, NovaError> {
        let client = reqwest::Client::builder()
            .timeout(config.timeout)
            .connect_timeout(config.timeout)
            .no_proxy()
            .build()
            .map_err(|error| NovaError::Setup(error_chain(&error)))?;
        let base_url = config.base_url();
        Ok(HttpClient {
            client: generated::Client::new_with_client(&base_url, client),
            base_url,
            timeout: config.timeout,
            first_pause: Duration::from_millis(200),
        })
    }

    /// The same client, pausing `pause` before the first retry (and twice
    /// that before the second) instead of 200 ms.
    pub fn with_retry_pause(mut self, pause: Duration) -> HttpClient {
        self.first_pause = pause;
        self
    }

    /// `http://host:port`, where the Task Manager is asked.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// Sends a call (`send` makes one attempt) and tries it again as the
    /// module doc says, all within one timeout: an attempt gets what is
    /// left of it, and no retry starts that could not end in it. So a
    /// caller waits at most the timeout even when a slow 503 would earn a
    /// retry, and a body that trickles in counts against it too.
    async fn call<T, F, Fut>(&self, idempotent: Idempotent, mut send: F) -> Result<T, NovaError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<ResponseValue<T>, GeneratedError<()>>>,
    {
        let deadline = Instant::now() + self.timeout;
        let mut retried = 0;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let attempt = async {
                match send().await {
                    Ok(value) => Ok(value.into_inner()),
                    Err(error) => Err(self.failure(error).await),
                }
            };
            let error = match tokio::time::timeout(left, attempt).await {
                Ok(Ok(value)) => return Ok(value),
                Ok(Err(error)) => error,
                Err(_) => self.timed_out(),
            };
            let pause = self.first_pause * 2u32.pow(retried);
            let again = idempotent == Idempotent::Yes
                && retried < RETRIES
                && !matches!(error, NovaError::Timeout { .. })
                && error.retryable()
                && Instant::now() + pause < deadline;
            if !again {
                return Err(error);
            }
            tokio::time::sleep(pause).await;
            retried += 1;
        }
    }

    fn timed_out(&self) -> NovaError {
        NovaError::Timeout {
            base_url: self.base_url.clone(),
            timeout: self.timeout,
        }
    }

    /// The domain's word for what the generated client reported.
    async fn failure(&self, error: GeneratedError<()>) -> NovaError {
        match error {
            GeneratedError::CommunicationError(error)
            | GeneratedError::ResponseBodyError(error) => self.transport(&error),
            GeneratedError::UnexpectedResponse(response) => self.answer(response).await,
            GeneratedError::InvalidResponsePayload(body, error) => {
                NovaError::InvalidResponse(format!(
                    "not the JSON the API describes ({error}); it began: {}",
                    excerpt(&body)
                ))
            }
            GeneratedError::InvalidRequest(reason) => NovaError::Setup(reason),
            GeneratedError::ErrorResponse(response) => NovaError::NotJsonError {
                status: response.status().as_u16(),
                body: "(no body)".to_owned(),
            },
            other => NovaError::InvalidResponse(other.to_string()),
        }
    }

    /// A request that got no (whole) answer.
    fn transport(&self, error: &reqwest::Error) -> NovaError {
        if error.is_timeout() {
            self.timed_out()
        } else if error.is_builder() {
            NovaError::Setup(format!(
                "no request to {} could be formed: {}",
                self.base_url,
                error_chain(error)
            ))
        } else {
            NovaError::Unreachable {
                base_url: self.base_url.clone(),
                reason: root_cause(error),
            }
        }
    }

    /// An answer the document does not describe: an error status (read
    /// here; see build.rs for why), or a success status it does not list.
    async fn answer(&self, response: reqwest::Response) -> NovaError {
        let status = response.status();
        if !status.is_client_error() && !status.is_server_error() {
            return NovaError::InvalidResponse(format!(
                "status {status}, which the API does not describe for this call"
            ));
        }
        let mut response = response;
        let mut body = Vec::new();
        while body.len() < ERROR_BODY_LIMIT {
            match response.chunk().await {
                Ok(Some(chunk)) => body.extend_from_slice(&chunk),
                Ok(None) => break,
                Err(error) => return self.transport(&error),
            }
        }
        match serde_json::from_slice::<types::ErrorBody>(&body) {
            Ok(said) => NovaError::Server {
                status: status.as_u16(),
                error: said.error,
                error_code: said.error_code,
            },
            Err(_) => NovaError::NotJsonError {
                status: status.as_u16(),
                body: excerpt(&body),
            },
        }
    }
}

impl TaskManagerClient for HttpClient {
    fn kind(&self) -> ClientKind {
        ClientKind::Http
    }

    fn update_execution<'a>(
        &'a self,
        execution_id: &'a str,
        patch: &'a ExecutionPatch,
    ) -> NovaFuture<'a, Execution> {
        Box::pin(async move {
            check_execution_id(execution_id)?;
            let body = types::ExecutionPatch {
                session_id: patch.session_id.clone(),
                worktree_path: patch.worktree_path.clone(),
            };
            let execution = self
                .call(Idempotent::Yes, || {
                    self.client.patch_execution(execution_id, &body)
                })
                .await?;
            Ok(Execution {
                id: execution.id,
                session_id: execution.session_id,
                worktree_path: execution.worktree_path,
            })
        })
    }

    fn create_step<'a>(
        &'a self,
        execution_id: &'a str,
        step: &'a StepCreate,
    ) -> NovaFuture<'a, Step> {
        Box::pin(async move {
            check_execution_id(execution_id)?;
            let body = types::StepCreate {
                step_name: step.step_name.clone(),
                message: step.message.clone(),
                status: Some(to_generated(step.status)),
            };
            let step = self
                .call(Idempotent::No, || {
                    self.client.create_step(execution_id, &body)
                })
                .await
                .map_err(|error| match error {
                    // The POST went through; only its answer is unreadable.
                    NovaError::InvalidResponse(reason) => NovaError::InvalidResponse(format!(
                        "{reason}. The step may have been created all the same: look before creating it again"
                    )),
                    other => other,
                })?;
            Ok(from_generated_step(step))
        })
    }

    fn update_step<'a>(
        &'a self,
        execution_id: &'a str,
        step_id: &'a str,
        patch: &'a StepPatch,
    ) -> NovaFuture<'a, Step> {
        Box::pin(async move {
            check_execution_id(execution_id)?;
            check_step_id(step_id)?;
            patch.check()?;
            let body = types::StepPatch {
                status: patch.status.map(to_generated),
                message: patch.message.clone(),
            };
            let step = self
                .call(Idempotent::Yes, || {
                    self.client.patch_step(execution_id, step_id, &body)
                })
                .await?;
            Ok(from_generated_step(step))
        })
    }

    fn health(&self) -> NovaFuture<'_, Health> {
        Box::pin(async move {
            let health = self
                .call(Idempotent::Yes, || self.client.health_check())
                .await?;
            Ok(Health {
                status: health.status,
            })
        })
    }
}

fn to_generated(status: StepStatus) -> types::StepStatus {
    match status {
        StepStatus::Running => types::StepStatus::Running,
        StepStatus::Completed => types::StepStatus::Completed,
        StepStatus::Failed => types::StepStatus::Failed,
        StepStatus::Skipped => types::StepStatus::Skipped,
    }
}

fn from_generated(status: types::StepStatus) -> StepStatus {
    match status {
        types::StepStatus::Running => StepStatus::Running,
        types::StepStatus::Completed => StepStatus::Completed,
        types::StepStatus::Failed => StepStatus::Failed,
        types::StepStatus::Skipped => StepStatus::Skipped,
    }
}

fn from_generated_step(step: types::Step) -> Step {
    Step {
        id: step.id,
        execution_id: step.execution_id,
        step_name: step.step_name,
        status: step.status.map(from_generated),
        message: step.message,
    }
}

/// The start of a body as text, for a message.
fn excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    if text.is_empty() {
        return "(no body)".to_owned();
    }
    let mut shown: String = text.chars().take(BODY_EXCERPT).collect();
    if shown.len() < text.len() {
        shown.push_str("...");
    }
    shown
}

/// The innermost cause (`Connection refused (os error 111)`): reqwest's
/// own message only says that sending failed.
fn root_cause(error: &reqwest::Error) -> String {
    let mut cause: &dyn std::error::Error = error;
    while let Some(source) = cause.source() {
        cause = source;
    }
    cause.to_string()
}

/// Every message in an error's chain, outermost first.
fn error_chain(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(source) = cause {
        text.push_str(": ");
        text.push_str(&source.to_string());
        cause = source.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_are_trimmed_and_bounded() {
        assert_eq!(excerpt(b"  busy \n"), "busy");
        assert_eq!(excerpt(b""), "(no body)");
        assert_eq!(excerpt(b"\xff\xfeok"), "\u{fffd}\u{fffd}ok");
        let long = "x".repeat(1000);
        assert_eq!(excerpt(long.as_bytes()), format!("{}...", "x".repeat(300)));
    }

    #[test]
    fn statuses_convert_both_ways() {
        for status in StepStatus::ALL {
            let generated = to_generated(status);
            assert_eq!(generated.to_string(), status.as_str());
            assert_eq!(from_generated(generated), status);
        }
    }
}
