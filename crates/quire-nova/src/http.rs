//! The Task Manager over HTTP: the requests the OpenAPI document describes
//! (their bodies are its generated types, `generated::types`, written with
//! serde), sent with reqwest, and the error mapping and retries the
//! requirements ask for:
//!
//! - a timeout is [`NovaError::Timeout`] ("Request timeout"), never retried,
//!   so a caller waits at most the timeout;
//! - a connection that cannot be made or breaks is
//!   [`NovaError::Unreachable`], naming the base URL;
//! - a status of 400 or more is [`NovaError::Server`] with the Task
//!   Manager's `error` and `error_code`, or [`NovaError::NotJsonError`] with
//!   the start of the body when it is not that JSON (read up to 64 KiB);
//! - a redirect (3xx) is [`NovaError::Redirected`], naming where it
//!   pointed, and is not followed;
//! - a success (2xx) is the call's success, whatever its body: the body is
//!   passed on as it came ([`Answer`]: JSON of any shape, text, or
//!   nothing), read up to [`SUCCESS_BODY_LIMIT`] and refused past it
//!   ([`NovaError::AnswerTooLarge`]); only `create_step` looks into it, for
//!   the new step's id ([`CreatedStep::from_answer`]);
//! - the idempotent calls (the PATCHes and GET) are tried again twice, with
//!   a doubling pause, after a connection failure or a 502, 503 or 504, as
//!   long as the retry can end within the one timeout the whole call has;
//!   `create_step` (POST) never is, since a retry after a lost answer would
//!   create the step twice.
//!
//! Why not the client methods progenitor generates (build.rs now generates
//! only the types): they put an id into the path with only `/` and `%`
//! encoded, so `..\..\..\health` reached `PATCH /health` (the `url` crate
//! reads `\` as `/`; `super::path` encodes every byte outside RFC 3986's
//! unreserved set); they read a success body whole into memory, however
//! long; they leave redirects to reqwest, which follows them to any host
//! and re-sends a 307's body there; and they decode an answer into the
//! document's response types, which the requirements do not define, so a
//! Task Manager answering `{"ok": true}` to a successful update was
//! reported as failing. The retries are here too, decided per operation in
//! plain code a reader finds.

use std::error::Error as _;
use std::time::Duration;

use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderValue, LOCATION};
use reqwest::{Method, Response, Url, redirect};
use serde::Serialize;
use tokio::time::Instant;

use super::body::{self, answer_excerpt, excerpt};
use super::client::{ClientKind, NovaFuture, TaskManagerClient};
use super::config::{HttpConfig, check_host};
use super::error::NovaError;
use super::generated::types;
use super::model::{
    Answer, CreatedStep, ExecutionPatch, Health, StepCreate, StepPatch, StepStatus,
    check_execution_id, check_step_id,
};
use super::path;

/// How many times an idempotent call is tried again.
pub const RETRIES: u32 = 2;

/// The most of a successful answer read, in bytes (4 MiB). The Task
/// Manager answers a call with one record, a few hundred bytes; an answer
/// past this is refused with [`NovaError::AnswerTooLarge`] instead of
/// being held in memory.
pub const SUCCESS_BODY_LIMIT: usize = 4 * 1024 * 1024;

/// The most of an error body read: the JSON error is a line or two, and a
/// server (or proxy) sending megabytes with its error must not make the
/// client hold them.
const ERROR_BODY_LIMIT: usize = 64 * 1024;

/// The Task Manager's API over HTTP.
#[derive(Debug)]
pub struct HttpClient {
    client: reqwest::Client,
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

/// A successful answer: its status and its body.
#[derive(Debug)]
struct Reply {
    status: u16,
    data: Answer,
}

impl HttpClient {
    /// A client for the Task Manager `config` describes, or
    /// [`NovaError::Config`] when its host is not a host name or IP
    /// address. It connects directly (no proxy from the environment: the
    /// Task Manager is named by host and port, and a proxy would turn a
    /// refused connection into a 502 that hides where the Task Manager was
    /// looked for), and follows no redirect (see the module doc).
    pub fn new(config: &HttpConfig) -> Result<HttpClient, NovaError> {
        check_host(&config.host)?;
        let client = reqwest::Client::builder()
            .timeout(config.timeout)
            .connect_timeout(config.timeout)
            .no_proxy()
            .redirect(redirect::Policy::none())
            .build()
            .map_err(|error| NovaError::Setup(error_chain(&error)))?;
        Ok(HttpClient {
            client,
            base_url: config.base_url(),
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

    /// Sends `method path` (with `body` as JSON, if any) and tries it again
    /// as the module doc says, all within one timeout: an attempt gets what
    /// is left of it, and no retry starts that could not end in it. So a
    /// caller waits at most the timeout even when a slow 503 would earn a
    /// retry, and a body that trickles in counts against it too.
    async fn call(
        &self,
        idempotent: Idempotent,
        method: Method,
        path: &str,
        body: Option<Vec<u8>>,
    ) -> Result<Reply, NovaError> {
        let url = self.url(path)?;
        let deadline = Instant::now() + self.timeout;
        let mut retried = 0;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let attempt = self.attempt(method.clone(), url.clone(), body.clone());
            let error = match tokio::time::timeout(left, attempt).await {
                Ok(Ok(reply)) => return Ok(reply),
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

    /// The base URL with `path` (built by `super::path`) after it. The
    /// parsed URL must keep the path exactly as built: were anything in it
    /// read as a separator or a dot segment, the request would go
    /// elsewhere, so it is not sent.
    fn url(&self, path: &str) -> Result<Url, NovaError> {
        let text = format!("{}{path}", self.base_url);
        match Url::parse(&text) {
            Ok(url) if url.path() == path && url.query().is_none() && url.fragment().is_none() => {
                Ok(url)
            }
            Ok(url) => Err(NovaError::Setup(format!(
                "the request for {text} would have gone to {url}, so it was not sent"
            ))),
            Err(error) => Err(NovaError::Setup(format!(
                "no request to {text} could be formed: {error}"
            ))),
        }
    }

    /// One try: the request, then its answer read as the module doc says.
    async fn attempt(
        &self,
        method: Method,
        url: Url,
        body: Option<Vec<u8>>,
    ) -> Result<Reply, NovaError> {
        let mut request = self
            .client
            .request(method, url)
            .header(ACCEPT, HeaderValue::from_static("application/json"));
        if let Some(body) = body {
            request = request
                .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
                .body(body);
        }
        let response = request
            .send()
            .await
            .map_err(|error| self.transport(&error))?;
        let status = response.status();
        if status.is_success() {
            self.success(response).await
        } else if status.is_redirection() {
            Err(redirected(&response))
        } else {
            Err(self.failure(response).await)
        }
    }

    /// A success's body, read up to [`SUCCESS_BODY_LIMIT`].
    async fn success(&self, response: Response) -> Result<Reply, NovaError> {
        let status = response.status().as_u16();
        let declared = response.content_length();
        let too_large = NovaError::AnswerTooLarge {
            status,
            declared,
            limit: SUCCESS_BODY_LIMIT,
        };
        // Declared too long: refused before a byte of it is waited for.
        if declared.is_some_and(|length| length > SUCCESS_BODY_LIMIT as u64) {
            return Err(too_large);
        }
        let read = body::read_capped(response, SUCCESS_BODY_LIMIT)
            .await
            .map_err(|error| self.transport(&error))?;
        if !read.whole {
            return Err(too_large);
        }
        Ok(Reply {
            status,
            data: body::answer(&read.bytes),
        })
    }

    fn timed_out(&self) -> NovaError {
        NovaError::Timeout {
            base_url: self.base_url.clone(),
            timeout: self.timeout,
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

    /// An answer that is neither a success nor a redirect: an error status
    /// (its body read up to [`ERROR_BODY_LIMIT`]), or another one.
    async fn failure(&self, response: Response) -> NovaError {
        let status = response.status();
        if !status.is_client_error() && !status.is_server_error() {
            return NovaError::InvalidResponse(format!(
                "status {status}, which is neither a success, a redirect nor an error"
            ));
        }
        let read = match body::read_capped(response, ERROR_BODY_LIMIT).await {
            Ok(read) => read,
            Err(error) => return self.transport(&error),
        };
        match serde_json::from_slice::<types::ErrorBody>(&read.bytes) {
            Ok(said) if read.whole => NovaError::Server {
                status: status.as_u16(),
                error: said.error,
                error_code: said.error_code,
            },
            _ => NovaError::NotJsonError {
                status: status.as_u16(),
                body: excerpt(&read.bytes),
            },
        }
    }
}

/// A redirect, with where it pointed (as text, and no longer than an
/// excerpt: the header is the peer's).
fn redirected(response: &Response) -> NovaError {
    let location = match response.headers().get(LOCATION) {
        Some(location) => excerpt(location.as_bytes()),
        None => "(no Location header)".to_owned(),
    };
    NovaError::Redirected {
        status: response.status().as_u16(),
        location,
    }
}

/// A request body as JSON: one of the document's generated types.
fn json_body(body: &impl Serialize) -> Result<Vec<u8>, NovaError> {
    serde_json::to_vec(body).map_err(|error| {
        NovaError::Setup(format!("the request body could not be written: {error}"))
    })
}

impl TaskManagerClient for HttpClient {
    fn kind(&self) -> ClientKind {
        ClientKind::Http
    }

    fn update_execution<'a>(
        &'a self,
        execution_id: &'a str,
        patch: &'a ExecutionPatch,
    ) -> NovaFuture<'a, Answer> {
        Box::pin(async move {
            check_execution_id(execution_id)?;
            let body = json_body(&types::ExecutionPatch {
                session_id: patch.session_id.clone(),
                worktree_path: patch.worktree_path.clone(),
            })?;
            let reply = self
                .call(
                    Idempotent::Yes,
                    Method::PATCH,
                    &path::execution(execution_id),
                    Some(body),
                )
                .await?;
            Ok(reply.data)
        })
    }

    fn create_step<'a>(
        &'a self,
        execution_id: &'a str,
        step: &'a StepCreate,
    ) -> NovaFuture<'a, CreatedStep> {
        Box::pin(async move {
            check_execution_id(execution_id)?;
            let body = json_body(&types::StepCreate {
                step_name: step.step_name.clone(),
                message: step.message.clone(),
                status: Some(to_generated(step.status)),
            })?;
            let reply = self
                .call(
                    Idempotent::No,
                    Method::POST,
                    &path::steps(execution_id),
                    Some(body),
                )
                .await?;
            CreatedStep::from_answer(reply.data).map_err(|data| NovaError::NoStepId {
                status: reply.status,
                answer: answer_excerpt(&data),
            })
        })
    }

    fn update_step<'a>(
        &'a self,
        execution_id: &'a str,
        step_id: &'a str,
        patch: &'a StepPatch,
    ) -> NovaFuture<'a, Answer> {
        Box::pin(async move {
            check_execution_id(execution_id)?;
            check_step_id(step_id)?;
            patch.check()?;
            let body = json_body(&types::StepPatch {
                status: patch.status.map(to_generated),
                message: patch.message.clone(),
            })?;
            let reply = self
                .call(
                    Idempotent::Yes,
                    Method::PATCH,
                    &path::step(execution_id, step_id),
                    Some(body),
                )
                .await?;
            Ok(reply.data)
        })
    }

    fn health(&self) -> NovaFuture<'_, Health> {
        Box::pin(async move {
            let reply = self
                .call(Idempotent::Yes, Method::GET, path::HEALTH, None)
                .await?;
            Ok(Health::from_answer(reply.data))
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
    fn statuses_convert_to_the_documents() {
        for status in StepStatus::ALL {
            assert_eq!(to_generated(status).to_string(), status.as_str());
        }
    }

    #[test]
    fn a_request_body_is_the_generated_type_without_the_fields_left_out() {
        let body = json_body(&types::StepPatch {
            status: Some(to_generated(StepStatus::Failed)),
            message: None,
        })
        .unwrap();
        assert_eq!(body, br#"{"status":"failed"}"#);
    }
}
