//! The in-process client behind `quire call`: a real MCP client and server
//! connected in memory, one JSON-RPC message a line, as over stdio. (The
//! stdio and HTTP transports are in [`super::stdio`] and [`super::http`].)
//!
//! No call waits for an answer that cannot come. rmcp's line transport
//! drops a line over its length limit without a word, so a request it
//! dropped would be waited for for ever. Here the client measures each
//! request as it is about to be sent and refuses one over
//! [`MAX_REQUEST_BYTES`] before it goes out
//! ([`InProcessError::RequestTooLarge`]); each side's reader ends the
//! connection on a longer line instead of dropping it
//! ([`InProcessError::MessageTooLong`]), and a server that stops before it
//! answers ends the call ([`InProcessError::ServerStopped`]).

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, ready};

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ClientJsonRpcMessage,
    ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationCapability,
    FormElicitationCapability, JsonObject, ServerJsonRpcMessage,
};
use rmcp::service::{RequestContext, RoleClient};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::{ClientHandler, ErrorData, ServiceExt};
use tokio::io::{AsyncRead, DuplexStream, ReadBuf, ReadHalf, WriteHalf};

use super::BoxError;
use super::jsonrpc::human_size;
use super::server::QuireServer;

/// The longest request a call sends, in bytes of JSON (the line's newline
/// not counted): what one message over stdio may hold
/// ([`super::MAX_LINE_BYTES`]), so a call that works here works there.
pub(super) const MAX_REQUEST_BYTES: usize = super::stdio::MAX_LINE_BYTES;

/// The longest answer the client reads. Each tool bounds what it returns,
/// far below this; only a runaway answer meets it, and then the call ends
/// with an error instead of waiting for an answer that was dropped.
const MAX_ANSWER_BYTES: usize = 4 * MAX_REQUEST_BYTES;

/// Why an in-process call got no answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub(super) enum InProcessError {
    /// The request, as it would be sent, is longer than the limit; it was
    /// not sent.
    #[error(
        "its JSON-RPC request would be {bytes} bytes, over {} ({limit} bytes), the most one MCP message may \
         hold; nothing was sent or run. Make the arguments smaller",
        human_size(*limit)
    )]
    RequestTooLarge {
        /// The request's length as serialized, in bytes.
        bytes: usize,
        /// The most a request may have.
        limit: usize,
    },
    /// One side read a line longer than it reads and closed the
    /// connection.
    #[error(
        "the in-process {reader} read a message longer than {} ({limit} bytes) and closed the connection, \
         so the call has no answer",
        human_size(*limit)
    )]
    MessageTooLong {
        /// `server` or `client`.
        reader: &'static str,
        /// The most that side reads in one message.
        limit: usize,
    },
    /// The server ended before it answered.
    #[error("the in-process server stopped before it answered the call")]
    ServerStopped,
}

/// The first reason a call ended without an answer, shared by the parts
/// that may see it.
#[derive(Clone, Default)]
struct Failure(Arc<Mutex<Option<InProcessError>>>);

impl Failure {
    /// Keeps `error` unless a reason is already known.
    fn set(&self, error: InProcessError) {
        let mut slot = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        slot.get_or_insert(error);
    }

    fn get(&self) -> Option<InProcessError> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// The limits of one in-process connection.
#[derive(Clone, Copy, Debug)]
struct Limits {
    /// The longest request the client sends.
    request: usize,
    /// The longest line the server reads.
    server_reads: usize,
    /// The longest line the client reads.
    client_reads: usize,
}

impl Limits {
    const CALL: Limits = Limits {
        request: MAX_REQUEST_BYTES,
        server_reads: MAX_REQUEST_BYTES,
        client_reads: MAX_ANSWER_BYTES,
    };
}

/// The result of one in-process tool call.
#[derive(Debug)]
pub struct CallOutcome {
    /// The result's `structuredContent` (or its text, as a JSON string, when
    /// a tool returned no structured content).
    pub value: serde_json::Value,
    /// The result's `isError`.
    pub is_error: bool,
}

/// Calls one tool through a real MCP client and server connected in memory:
/// the same path a remote client's call takes, without a process or socket.
/// The client cannot ask anyone anything (a write under
/// [`super::WritePolicy::Ask`] returns a pending confirmation).
pub async fn call_in_process(
    server: QuireServer,
    tool: &str,
    arguments: JsonObject,
) -> Result<CallOutcome, BoxError> {
    call_with_client(server, tool, arguments, ()).await
}

/// What a person decided when asked to approve a write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApprovalChoice {
    /// Approve this change.
    Once,
    /// Approve every change for the rest of the session.
    Session,
    /// Write nothing.
    Deny,
}

/// Asks a person the question given (what a write will change); `None`
/// when nobody answered. Runs on a blocking thread.
pub type AskUser = Arc<dyn Fn(&str) -> Option<ApprovalChoice> + Send + Sync>;

/// [`call_in_process`] with a client that puts a write's approval question
/// to `ask` (the way `quire call` asks on its terminal).
pub async fn call_in_process_asking(
    server: QuireServer,
    tool: &str,
    arguments: JsonObject,
    ask: AskUser,
) -> Result<CallOutcome, BoxError> {
    call_with_client(server, tool, arguments, AskingClient { ask }).await
}

/// An in-process client that can elicit, through a function.
#[derive(Clone)]
struct AskingClient {
    ask: AskUser,
}

impl ClientHandler for AskingClient {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        let mut elicitation = ElicitationCapability::new();
        elicitation.form = Some(FormElicitationCapability::default());
        capabilities.elicitation = Some(elicitation);
        ClientConfig::new(
            capabilities,
            rmcp::model::Implementation::new("quire-call", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } = request
        else {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        // The options offered: a write's (once, session, deny) or a
        // folder's (allow, deny).
        let offered = serde_json::to_value(&requested_schema)
            .ok()
            .and_then(|schema| schema.pointer("/properties/decision/oneOf").cloned())
            .and_then(|options| options.as_array().cloned())
            .unwrap_or_default();
        let offers = |choice: &str| offered.iter().any(|option| option["const"] == choice);
        let ask = Arc::clone(&self.ask);
        let choice = tokio::task::spawn_blocking(move || ask(&message))
            .await
            .ok()
            .flatten();
        let decision = match choice {
            None => return Ok(ElicitResult::new(ElicitationAction::Cancel)),
            Some(ApprovalChoice::Deny) => "deny",
            Some(_) if offers("allow") => "allow",
            Some(ApprovalChoice::Once) => "once",
            Some(ApprovalChoice::Session) => "session",
        };
        Ok(ElicitResult::new(ElicitationAction::Accept)
            .with_content(serde_json::json!({ "decision": decision })))
    }
}

async fn call_with_client<C: ClientHandler>(
    server: QuireServer,
    tool: &str,
    arguments: JsonObject,
    client: C,
) -> Result<CallOutcome, BoxError> {
    call_within(server, tool, arguments, client, Limits::CALL).await
}

async fn call_within<C: ClientHandler>(
    server: QuireServer,
    tool: &str,
    arguments: JsonObject,
    client: C,
    limits: Limits,
) -> Result<CallOutcome, BoxError> {
    let failure = Failure::default();
    let (server_end, client_end) = tokio::io::duplex(64 * 1024);
    let server_transport = line_transport(server_end, "server", limits.server_reads, &failure);
    let mut server_task = tokio::spawn(async move {
        match server.serve(server_transport).await {
            Ok(running) => {
                let _ = running.waiting().await;
            }
            Err(error) => tracing::error!(%error, "in-process server failed to start"),
        }
    });
    let client_transport = MeasuredRequests {
        lines: line_transport(client_end, "client", limits.client_reads, &failure),
        limit: limits.request,
        failure: failure.clone(),
    };
    let client = match client.serve(client_transport).await {
        Ok(client) => client,
        Err(error) => {
            server_task.abort();
            return Err(failure.get().map_or_else(|| error.into(), Into::into));
        }
    };
    let call =
        client.call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments));
    // The call ends with its answer, or with the server: a server that
    // stops has nothing more to say.
    let (result, server_ended) = tokio::select! {
        result = call => (Some(result), false),
        _ = &mut server_task => (None, true),
    };
    let _ = client.cancel().await;
    if !server_ended {
        let _ = server_task.await;
    }
    let result = match (result, failure.get()) {
        (_, Some(error)) => return Err(error.into()),
        (Some(result), None) => result?,
        (None, None) => return Err(InProcessError::ServerStopped.into()),
    };
    let is_error = result.is_error.unwrap_or(false);
    let value = match result.structured_content {
        Some(value) => value,
        None => serde_json::Value::String(
            result
                .content
                .iter()
                .filter_map(|block| block.as_text().map(|text| text.text.clone()))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
    };
    Ok(CallOutcome { value, is_error })
}

/// One end of the in-memory connection as rmcp's line transport, its
/// reader ending the connection on a line over `limit` (see
/// [`LineLimited`]); rmcp's own limit is lifted, as it would drop such a
/// line and leave its sender waiting.
fn line_transport<R: rmcp::service::ServiceRole>(
    end: DuplexStream,
    reader: &'static str,
    limit: usize,
    failure: &Failure,
) -> AsyncRwTransport<R, LineLimited<ReadHalf<DuplexStream>>, WriteHalf<DuplexStream>> {
    let (read, write) = tokio::io::split(end);
    let read = LineLimited {
        inner: read,
        reader,
        limit,
        line: 0,
        failure: failure.clone(),
    };
    AsyncRwTransport::new(read, write).with_max_line_length(usize::MAX)
}

/// A reader of newline-ended messages that fails, ending the connection,
/// once a line (without its newline) grows past `limit` bytes.
struct LineLimited<R> {
    inner: R,
    /// `server` or `client`, for the message.
    reader: &'static str,
    limit: usize,
    /// Bytes of the current line read so far.
    line: usize,
    failure: Failure,
}

impl<R: AsyncRead + Unpin> AsyncRead for LineLimited<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        context: &mut Context<'_>,
        buffer: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buffer.filled().len();
        ready!(Pin::new(&mut this.inner).poll_read(context, buffer))?;
        let read = &buffer.filled()[before..];
        let mut start = 0;
        for newline in memchr::memchr_iter(b'\n', read) {
            this.line += newline - start;
            if this.line > this.limit {
                break;
            }
            this.line = 0;
            start = newline + 1;
        }
        if this.line <= this.limit {
            this.line += read.len() - start;
        }
        if this.line > this.limit {
            let error = InProcessError::MessageTooLong {
                reader: this.reader,
                limit: this.limit,
            };
            tracing::error!(%error, "in-process connection closed");
            this.failure.set(error.clone());
            // A failed read hands out nothing.
            buffer.set_filled(before);
            return Poll::Ready(Err(io::Error::new(io::ErrorKind::InvalidData, error)));
        }
        Poll::Ready(Ok(()))
    }
}

/// The client's transport: refuses to send a message longer than `limit`
/// bytes as serialized (what goes on the line, `_meta` and all), so the
/// server never meets one.
struct MeasuredRequests<T> {
    lines: T,
    limit: usize,
    failure: Failure,
}

impl<T> Transport<RoleClient> for MeasuredRequests<T>
where
    T: Transport<RoleClient, Error = io::Error>,
{
    type Error = io::Error;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        // Serialized once more to measure it: the request's `_meta` is
        // filled in by rmcp, so only the message itself has the true size.
        let too_large = match serde_json::to_vec(&item) {
            Ok(bytes) if bytes.len() > self.limit => Some(InProcessError::RequestTooLarge {
                bytes: bytes.len(),
                limit: self.limit,
            }),
            // A message that cannot be serialized fails in `send` below.
            _ => None,
        };
        let send = match too_large {
            Some(error) => {
                self.failure.set(error.clone());
                Err(io::Error::new(io::ErrorKind::InvalidInput, error))
            }
            None => Ok(self.lines.send(item)),
        };
        async move { send?.await }
    }

    fn receive(&mut self) -> impl Future<Output = Option<ServerJsonRpcMessage>> + Send {
        self.lines.receive()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.lines.close()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::mcp::Toolset;
    use quire_fs::Workspace;

    /// A call with arguments of about `size` bytes, under `limits`; it
    /// must end within seconds either way.
    async fn call_of_size(limits: Limits, size: usize) -> Result<CallOutcome, BoxError> {
        let folder = tempfile::tempdir().unwrap();
        let server = QuireServer::new(Workspace::new(folder.path()).unwrap(), &[Toolset::Tracker]);
        let mut arguments = JsonObject::new();
        arguments.insert("tracker_path".into(), "x".repeat(size).into());
        arguments.insert("target_status".into(), "Applied".into());
        tokio::time::timeout(
            Duration::from_secs(20),
            call_within(server, "update_tracker_status", arguments, (), limits),
        )
        .await
        .expect("the call ends instead of waiting for an answer that cannot come")
    }

    fn in_process_error(result: Result<CallOutcome, BoxError>) -> InProcessError {
        let error = result.expect_err("the call has no answer");
        error
            .downcast_ref::<InProcessError>()
            .unwrap_or_else(|| panic!("not an in-process error: {error}"))
            .clone()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_request_over_the_limit_is_not_sent() {
        let limits = Limits {
            request: 4096,
            ..Limits::CALL
        };
        let error = in_process_error(call_of_size(limits, 5000).await);
        let InProcessError::RequestTooLarge { bytes, limit } = error else {
            panic!("{error:?}");
        };
        assert_eq!(limit, 4096);
        assert!((5000..5500).contains(&bytes), "{bytes}");
        assert!(
            error.to_string().starts_with(&format!(
                "its JSON-RPC request would be {bytes} bytes, over 4 KiB (4096 bytes)"
            )),
            "{error}"
        );
        // Under it, the tool answers (here: no such tracker).
        let answered = call_of_size(limits, 3000).await.unwrap();
        assert!(answered.is_error, "{:?}", answered.value);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_message_the_server_will_not_read_ends_the_call() {
        // The client sends what the server will not read: rmcp would drop
        // the line and never answer.
        let limits = Limits {
            request: usize::MAX,
            server_reads: 4096,
            ..Limits::CALL
        };
        assert_eq!(
            in_process_error(call_of_size(limits, 5000).await),
            InProcessError::MessageTooLong {
                reader: "server",
                limit: 4096
            }
        );
        assert!(call_of_size(limits, 3000).await.is_ok());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_answer_the_client_will_not_read_ends_the_call() {
        // The server's answer to `initialize` alone is longer.
        let limits = Limits {
            client_reads: 64,
            ..Limits::CALL
        };
        assert_eq!(
            in_process_error(call_of_size(limits, 10).await),
            InProcessError::MessageTooLong {
                reader: "client",
                limit: 64
            }
        );
    }

    #[tokio::test]
    async fn lines_are_measured_across_reads_and_without_their_newline() {
        use tokio::io::AsyncReadExt;
        let read_all = |input: &'static [u8], limit: usize| async move {
            let failure = Failure::default();
            let mut reader = LineLimited {
                // One byte a read at most: lines span many reads.
                inner: byte_at_a_time(input),
                reader: "server",
                limit,
                line: 0,
                failure: failure.clone(),
            };
            let mut read = Vec::new();
            let result = reader.read_to_end(&mut read).await;
            (result.is_ok(), failure.get().is_some())
        };
        assert_eq!(read_all(b"abcd\nabcd\nabcd", 4).await, (true, false));
        assert_eq!(read_all(b"abcd\nabcde\n", 4).await, (false, true));
        assert_eq!(read_all(b"\n\n\nabcde", 4).await, (false, true));
        assert_eq!(read_all(b"abcd\r\n", 4).await, (false, true), "\\r counts");
    }

    /// A reader that hands out `input` a byte at a time.
    fn byte_at_a_time(input: &'static [u8]) -> impl AsyncRead + Unpin {
        struct ByteAtATime(&'static [u8]);
        impl AsyncRead for ByteAtATime {
            fn poll_read(
                mut self: Pin<&mut Self>,
                _context: &mut Context<'_>,
                buffer: &mut ReadBuf<'_>,
            ) -> Poll<io::Result<()>> {
                if let Some((first, rest)) = self.0.split_first() {
                    buffer.put_slice(&[*first]);
                    self.0 = rest;
                }
                Poll::Ready(Ok(()))
            }
        }
        ByteAtATime(input)
    }
}
