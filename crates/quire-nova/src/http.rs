//! The Task Manager over HTTP: the requests the OpenAPI document describes
//! (their bodies are its generated types, `generated::types`, written with
//! serde), sent with ureq 3 (blocking; `super::agent` sets it up), and
//! the error mapping and retries the requirements ask for:
//!
//! - a timeout is [`NovaError::Timeout`] ("Request timeout"), never retried,
//!   so a caller waits at most the timeout;
//! - a connection that cannot be made or breaks is
//!   [`NovaError::Unreachable`], naming the base URL;
//! - an answer that is not HTTP/1.1 as read here (malformed, a head past
//!   16 KiB, a chunked body's line past 32 KiB: `super::agent`) is
//!   [`NovaError::InvalidResponse`], not retried;
//! - a status of 400 or more is [`NovaError::Server`] with the Task
//!   Manager's `error` and `error_code`, or [`NovaError::NotJsonError`] with
//!   the start of the body when it is not that JSON (read up to 64 KiB);
//! - a redirect (3xx) is [`NovaError::Redirected`], naming where it
//!   pointed, and is not followed;
//! - a success (2xx) is the call's success, whatever its body: the body is
//!   passed on as it came ([`Answer`]: JSON of any shape, text, or
//!   nothing), read up to [`SUCCESS_BODY_LIMIT`] and refused past it
//!   ([`NovaError::AnswerTooLarge`]); only `create_step` looks into it, for
//!   the new step's id ([`CreatedStep::from_answer`]), and a success of
//!   `create_step` whose body breaks off (the connection drops, or the
//!   rest does not come in time) is [`NovaError::StepAnswerLost`], which
//!   says the step most likely exists, not a retryable failure;
//! - the idempotent calls (the PATCHes and GET) are tried again twice, with
//!   a doubling pause, after a connection failure or a 502, 503 or 504, as
//!   long as the retry can end within the one timeout the whole call has;
//!   `create_step` (POST) never is, since a retry after a lost answer would
//!   create the step twice.
//!
//! Each try of a call connects anew (no connection is kept between calls):
//! the calls are few, and a kept connection the Task Manager has since
//! closed would fail a `create_step` whose request may have arrived.
//! Connecting, sending and reading are bounded by what is left of the
//! call's timeout, the host name's lookup too (`super::resolve`), and no
//! part of an answer is held past a set size: its head and the lines of a
//! chunked body by ureq's buffers (`super::agent`), its body by
//! `super::body`.
//!
//! Why not the client methods progenitor generates (build.rs generates
//! only the types): they put an id into the path with only `/` and `%`
//! encoded, so `..\..\..\health` reached `PATCH /health` (the `url` crate
//! reads `\` as `/`; `super::path` encodes every byte outside RFC 3986's
//! unreserved set); they read a success body whole into memory, however
//! long; they leave redirects to the HTTP client, which follows them to
//! any host and re-sends a 307's body there; and they decode an answer
//! into the document's response types, which the requirements do not
//! define, so a Task Manager answering `{"ok": true}` to a successful
//! update was reported as failing. They are also async, and the domain is
//! not. The retries are here too, decided per operation in plain code a
//! reader finds.

use std::io;
use std::time::{Duration, Instant};

use serde::Serialize;
use ureq::http::{self, HeaderMap};
use url::Url;

use super::agent::{self, Failure, Part};
use super::body::{self, answer_excerpt, excerpt};
use super::client::{ClientKind, TaskManagerClient};
use super::config::{HttpConfig, check_host};
use super::error::NovaError;
use super::generated::types;
use super::model::{
    Answer, CreatedStep, ExecutionPatch, Health, StepCreate, StepPatch, StepStatus,
    check_execution_id, check_step_id,
};
use super::path;
use super::resolve::{self, LookupFailure};

/// How many times an idempotent call is tried again.
pub(crate) const RETRIES: u32 = 2;

/// The most of a successful answer read, in bytes (4 MiB). The Task
/// Manager answers a call with one record, a few hundred bytes; an answer
/// past this is refused with [`NovaError::AnswerTooLarge`] instead of
/// being held in memory.
pub const SUCCESS_BODY_LIMIT: usize = 4 * 1024 * 1024;

/// The most of an error body read: the JSON error is a line or two, and a
/// server (or proxy) sending megabytes with its error must not make the
/// client hold them.
const ERROR_BODY_LIMIT: usize = 64 * 1024;

/// The Task Manager's API over HTTP. Its calls block (see
/// [`TaskManagerClient`]).
#[derive(Debug)]
pub struct HttpClient {
    base_url: String,
    timeout: Duration,
    first_pause: Duration,
}

/// Whether a call may be sent again after a failure that may not have
/// reached the Task Manager. A call that is not (`create_step`) creates
/// something each time it arrives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Idempotent {
    Yes,
    No,
}

/// The request methods the API uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Method {
    Get,
    Post,
    Patch,
}

impl Method {
    fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Patch => "PATCH",
        }
    }
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
        Ok(HttpClient {
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
    fn call(
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
            let error = match self.attempt(idempotent, method, &url, body.as_deref(), deadline) {
                Ok(reply) => return Ok(reply),
                Err(error) => error,
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
            std::thread::sleep(pause);
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

    /// One try, ended by `deadline`: the request, then its answer read as
    /// the module doc says.
    fn attempt(
        &self,
        idempotent: Idempotent,
        method: Method,
        url: &Url,
        body: Option<&[u8]>,
        deadline: Instant,
    ) -> Result<Reply, NovaError> {
        let agent = self.agent(url, deadline)?;
        let request = http::Request::builder()
            .method(method.as_str())
            .uri(url.as_str())
            .header("Accept", "application/json");
        let sent = match body {
            Some(body) => request
                .header("Content-Type", "application/json")
                .body(body)
                .map(|request| agent.run(request)),
            None => request.body(()).map(|request| agent.run(request)),
        };
        let response = sent
            .map_err(|error| self.unsendable(&error.to_string()))?
            .map_err(|error| self.transport(error))?;
        match response.status().as_u16() {
            200..=299 => self.success(response, idempotent),
            300..=399 => Err(redirected(&response)),
            400..=599 => Err(self.failure(response)),
            status => Err(NovaError::InvalidResponse(format!(
                "status {status}, which is neither a success, a redirect nor an error"
            ))),
        }
    }

    /// What is left of the call's time, or [`NovaError::Timeout`] when
    /// nothing is.
    fn left(&self, deadline: Instant) -> Result<Duration, NovaError> {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(self.timed_out());
        }
        Ok(left)
    }

    /// An agent for one try (`super::agent`): the Task Manager's addresses
    /// looked up by `deadline`, the rest of the try given what is left of
    /// it.
    fn agent(&self, url: &Url, deadline: Instant) -> Result<ureq::Agent, NovaError> {
        let (Some(host), Some(port)) = (url.host(), url.port_or_known_default()) else {
            return Err(NovaError::Setup(format!(
                "{url} names no host and port to connect to"
            )));
        };
        let addresses =
            resolve::addresses(host, port, deadline).map_err(|failure| match failure {
                LookupFailure::TimedOut => self.timed_out(),
                LookupFailure::Failed(reason) => NovaError::Unreachable {
                    base_url: self.base_url.clone(),
                    reason,
                },
            })?;
        Ok(agent::for_one_try(addresses, self.left(deadline)?))
    }

    /// A success's body, read up to [`SUCCESS_BODY_LIMIT`]. A body that
    /// breaks off after the success status is, for a call that is not
    /// idempotent, [`NovaError::StepAnswerLost`]: what it asked for was
    /// most likely done, and must not be asked again.
    fn success(&self, response: Response, idempotent: Idempotent) -> Result<Reply, NovaError> {
        let status = response.status().as_u16();
        let declared = content_length(response.headers());
        let too_large = NovaError::AnswerTooLarge {
            status,
            declared,
            limit: SUCCESS_BODY_LIMIT,
        };
        // Declared too long: refused before a byte of it is waited for.
        if declared.is_some_and(|length| length > SUCCESS_BODY_LIMIT as u64) {
            return Err(too_large);
        }
        let body = response.into_body().into_reader();
        let read = match body::read_capped(body, declared, SUCCESS_BODY_LIMIT) {
            Ok(read) => read,
            Err(error) if idempotent == Idempotent::No => {
                return Err(NovaError::StepAnswerLost {
                    status,
                    reason: self.broken_off(error),
                });
            }
            Err(error) => return Err(self.read_failed(error)),
        };
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

    fn unsendable(&self, why: &str) -> NovaError {
        NovaError::Setup(format!(
            "no request to {} could be formed: {why}",
            self.base_url
        ))
    }

    fn unreachable(&self, reason: String) -> NovaError {
        NovaError::Unreachable {
            base_url: self.base_url.clone(),
            reason,
        }
    }

    /// A request that got no answer, or an answer whose head could not be
    /// read.
    fn transport(&self, error: ureq::Error) -> NovaError {
        match Failure::of(error, Part::Head) {
            Failure::TimedOut => self.timed_out(),
            Failure::Unsendable(why) => self.unsendable(&why),
            Failure::Malformed(what) => not_http(&what),
            Failure::Broken(reason) => self.unreachable(reason),
        }
    }

    /// A body whose reading failed: the time ran out, the connection
    /// broke, or the body is not HTTP/1.1 as read here.
    fn read_failed(&self, error: io::Error) -> NovaError {
        match Failure::of_read(error) {
            Failure::TimedOut => self.timed_out(),
            Failure::Malformed(what) => not_http(&what),
            Failure::Unsendable(reason) | Failure::Broken(reason) => self.unreachable(reason),
        }
    }

    /// Why a success's body broke off, in words.
    fn broken_off(&self, error: io::Error) -> String {
        match Failure::of_read(error) {
            Failure::TimedOut => format!(
                "the rest of it did not come within the {} s timeout (TASK_MANAGER_TIMEOUT)",
                self.timeout.as_secs_f64()
            ),
            Failure::Malformed(what) => what,
            Failure::Unsendable(reason) | Failure::Broken(reason) => {
                format!("the connection broke: {reason}")
            }
        }
    }

    /// An answer with an error status, its body read up to
    /// [`ERROR_BODY_LIMIT`].
    fn failure(&self, response: Response) -> NovaError {
        let status = response.status().as_u16();
        let declared = content_length(response.headers());
        let body = response.into_body().into_reader();
        let read = match body::read_capped(body, declared, ERROR_BODY_LIMIT) {
            Ok(read) => read,
            Err(error) => return self.read_failed(error),
        };
        match serde_json::from_slice::<types::ErrorBody>(&read.bytes) {
            Ok(said) if read.whole => NovaError::Server {
                status,
                error: said.error,
                error_code: said.error_code,
            },
            _ => NovaError::NotJsonError {
                status,
                body: excerpt(&read.bytes),
            },
        }
    }
}

/// An answer as ureq gives it: its head read, its body still to read.
type Response = http::Response<ureq::Body>;

/// An answer that is not HTTP/1.1 as read here: `what` was wrong with it.
fn not_http(what: &str) -> NovaError {
    NovaError::InvalidResponse(format!(
        "{what}; check that TASK_MANAGER_HOST and TASK_MANAGER_PORT name the Task Manager itself"
    ))
}

/// The length an answer declares (`Content-Length`), when it declares
/// one that is a number.
fn content_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get("Content-Length")
        .and_then(|length| length.to_str().ok())
        .and_then(|length| length.trim().parse().ok())
}

/// A redirect, with where it pointed (as text, and no longer than an
/// excerpt: the header is the peer's).
fn redirected(response: &Response) -> NovaError {
    let location = match response.headers().get("Location") {
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

    fn update_execution(
        &self,
        execution_id: &str,
        patch: &ExecutionPatch,
    ) -> Result<Answer, NovaError> {
        check_execution_id(execution_id)?;
        let body = json_body(&types::ExecutionPatch {
            session_id: patch.session_id.clone(),
            worktree_path: patch.worktree_path.clone(),
        })?;
        let reply = self.call(
            Idempotent::Yes,
            Method::Patch,
            &path::execution(execution_id),
            Some(body),
        )?;
        Ok(reply.data)
    }

    fn create_step(&self, execution_id: &str, step: &StepCreate) -> Result<CreatedStep, NovaError> {
        check_execution_id(execution_id)?;
        let body = json_body(&types::StepCreate {
            step_name: step.step_name.clone(),
            message: step.message.clone(),
            status: Some(to_generated(step.status)),
        })?;
        let reply = self.call(
            Idempotent::No,
            Method::Post,
            &path::steps(execution_id),
            Some(body),
        )?;
        CreatedStep::from_answer(reply.data).map_err(|data| NovaError::NoStepId {
            status: reply.status,
            answer: answer_excerpt(&data),
        })
    }

    fn update_step(
        &self,
        execution_id: &str,
        step_id: &str,
        patch: &StepPatch,
    ) -> Result<Answer, NovaError> {
        check_execution_id(execution_id)?;
        check_step_id(step_id)?;
        patch.check()?;
        let body = json_body(&types::StepPatch {
            status: patch.status.map(to_generated),
            message: patch.message.clone(),
        })?;
        let reply = self.call(
            Idempotent::Yes,
            Method::Patch,
            &path::step(execution_id, step_id),
            Some(body),
        )?;
        Ok(reply.data)
    }

    fn health(&self) -> Result<Health, NovaError> {
        let reply = self.call(Idempotent::Yes, Method::Get, path::HEALTH, None)?;
        Ok(Health::from_answer(reply.data))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_convert_to_the_documents() {
        for status in StepStatus::ALL {
            assert_eq!(to_generated(status).to_string(), status.as_str());
            // On the wire too: the request bodies carry the API's spelling.
            assert_eq!(
                serde_json::to_value(to_generated(status)).unwrap(),
                serde_json::json!(status.as_str())
            );
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
