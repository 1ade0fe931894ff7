//! MCP over stdin and stdout: the framing between the process's standard
//! streams and rmcp.
//!
//! Why this is hand-written rather than `rmcp::transport::stdio()`: rmcp's
//! stdio transport stays silent on a line that is not JSON or is too long,
//! answers a badly shaped message without its `id`, ends the whole server
//! when a notification arrives before `initialize`, and, once stdin closes,
//! waits up to five seconds for calls still running. Here:
//!
//! - a reader task takes stdin one line at a time, never holding more than
//!   [`MAX_LINE_BYTES`] of a line (the rest of a longer line is skipped up
//!   to its newline and answered with a parse error, `id: null`);
//! - every line is checked by [`super::jsonrpc::check`]; a rejected request
//!   is answered with its JSON-RPC error, a rejected notification is logged;
//! - before the session starts, notifications are logged and dropped and
//!   requests other than `initialize`, `ping`, `server/discover` and those
//!   carrying their own protocol version are answered with an error, so
//!   rmcp only ever sees a handshake it accepts (should it still refuse
//!   one, a fresh handshake is started instead of exiting);
//! - one writer task owns stdout and writes whole lines, so replies from
//!   concurrent calls never interleave, and nothing else is written there;
//! - the next line is read only when the writer's queue has room, so a
//!   client that does not read its replies is not read from either (the
//!   server holds at most [`OUTPUT_QUEUE`] replies, not one per request);
//! - when stdin reaches its end, replies still being worked on get
//!   [`EXIT_GRACE`], then the server stops, whatever is in flight; when
//!   stdout is gone (a write fails, or on Unix the reading end closes) it
//!   stops at once. A tool call blocked in a thread is left behind: the
//!   caller must not wait for it (see `quire serve`).

use std::future::Future;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, GetMeta, JsonRpcMessage, ServerJsonRpcMessage,
};
use rmcp::service::{RoleServer, ServerInitializeError};
use rmcp::transport::Transport;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{Mutex, mpsc, oneshot};

use super::BoxError;
use super::jsonrpc::{self, Rejection};
use super::server::QuireServer;

/// The longest line (one JSON-RPC message, without its newline) read from
/// stdin: 16 MiB. A longer line is skipped unread and answered with a parse
/// error.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// How long replies still being worked on may take once stdin has closed.
pub const EXIT_GRACE: Duration = Duration::from_secs(1);

/// How long the last replies may take to be written once the server stops.
const FLUSH_GRACE: Duration = Duration::from_millis(500);

/// Replies queued for stdout before a call's reply waits for the writer.
const OUTPUT_QUEUE: usize = 64;

/// Why the stdio server stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StdioEnd {
    /// stdin reached its end (or could not be read).
    InputClosed,
    /// stdout was closed by the client.
    OutputClosed,
    /// The MCP session ended by itself.
    SessionEnded,
}

/// Serves MCP on stdin/stdout until stdin closes or stdout goes away.
///
/// Returns without waiting for tool calls still running: drop the runtime
/// with `shutdown_background` (or exit) rather than waiting for its
/// blocking threads.
pub async fn serve_stdio(server: QuireServer) -> Result<StdioEnd, BoxError> {
    tracing::info!("serving MCP on stdio");
    let end = serve_lines(
        server,
        tokio::io::stdin(),
        tokio::io::stdout(),
        stdout_hangup(),
        MAX_LINE_BYTES,
    )
    .await?;
    tracing::info!(?end, "stdio session ended");
    Ok(end)
}

/// The stdio server over any byte streams: `hangup` resolves when the
/// output's reader is known to be gone.
async fn serve_lines<R, W>(
    server: QuireServer,
    input: R,
    output: W,
    hangup: impl Future<Output = ()>,
    max_line_bytes: usize,
) -> Result<StdioEnd, BoxError>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (to_rmcp, from_reader) = mpsc::channel(1);
    let (replies, lines) = mpsc::channel(OUTPUT_QUEUE);
    let (finish, finishing) = oneshot::channel();
    let mut writer = tokio::spawn(write_lines(output, lines, finishing));
    let mut reader = tokio::spawn(read_messages(
        input,
        max_line_bytes,
        to_rmcp,
        replies.clone(),
    ));
    let session = run_sessions(server, Arc::new(Mutex::new(from_reader)), replies);
    tokio::pin!(session);
    tokio::pin!(hangup);

    let end = tokio::select! {
        ended = &mut session => {
            ended?;
            StdioEnd::SessionEnded
        }
        read = &mut reader => {
            if matches!(read, Ok(ReaderEnd::OutputClosed)) {
                tracing::info!("stdout is closed; exiting");
                return Ok(StdioEnd::OutputClosed);
            }
            if tokio::time::timeout(EXIT_GRACE, &mut session).await.is_err() {
                tracing::warn!(
                    "stdin closed while a call was still running; exiting without its reply"
                );
            }
            StdioEnd::InputClosed
        }
        written = &mut writer => {
            if let Ok(Err(error)) = written {
                tracing::info!(%error, "stdout is closed; exiting");
            }
            return Ok(StdioEnd::OutputClosed);
        }
        () = &mut hangup => {
            tracing::info!("stdout's reader went away; exiting");
            return Ok(StdioEnd::OutputClosed);
        }
    };
    reader.abort();
    let _ = finish.send(());
    match tokio::time::timeout(FLUSH_GRACE, writer).await {
        Ok(Ok(Ok(()))) => {}
        Ok(Ok(Err(error))) => {
            tracing::info!(%error, "stdout is closed; the last replies were lost")
        }
        Ok(Err(error)) => tracing::error!(%error, "the stdout writer failed"),
        Err(_) => tracing::warn!("stdout is not being read; the last replies were lost"),
    }
    Ok(end)
}

/// Serves MCP sessions with rmcp over the checked messages until one ends.
/// A handshake rmcp refuses starts a fresh one instead of ending the
/// server.
async fn run_sessions(
    server: QuireServer,
    incoming: Arc<Mutex<mpsc::Receiver<ClientJsonRpcMessage>>>,
    replies: mpsc::Sender<Vec<u8>>,
) -> Result<(), BoxError> {
    loop {
        let transport = LineTransport {
            incoming: incoming.clone(),
            replies: replies.clone(),
        };
        match server.clone().serve(transport).await {
            Ok(running) => {
                let reason = running.waiting().await?;
                tracing::debug!(?reason, "MCP session ended");
                return Ok(());
            }
            Err(ServerInitializeError::ConnectionClosed(_)) => {
                tracing::info!("stdin closed before `initialize`");
                return Ok(());
            }
            Err(error) => {
                tracing::warn!(%error, "the MCP handshake failed; waiting for a new `initialize`");
            }
        }
    }
}

/// rmcp's view of the checked messages and of the stdout writer.
struct LineTransport {
    incoming: Arc<Mutex<mpsc::Receiver<ClientJsonRpcMessage>>>,
    replies: mpsc::Sender<Vec<u8>>,
}

impl Transport<RoleServer> for LineTransport {
    type Error = io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let replies = self.replies.clone();
        let line = serde_json::to_vec(&item).map(|mut line| {
            line.push(b'\n');
            line
        });
        async move {
            let line = line.map_err(io::Error::other)?;
            replies
                .send(line)
                .await
                .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "stdout is closed"))
        }
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        self.incoming.lock().await.recv().await
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

/// Reads stdin line by line, checks each message and passes the good ones
/// to rmcp; answers or logs the rest. Returns when stdin ends (or rmcp or
/// the writer is gone).
async fn read_messages<R: AsyncRead + Unpin>(
    input: R,
    max_line_bytes: usize,
    to_rmcp: mpsc::Sender<ClientJsonRpcMessage>,
    replies: mpsc::Sender<Vec<u8>>,
) -> ReaderEnd {
    let mut lines = LineReader::new(input, max_line_bytes);
    let mut lifecycle = Lifecycle::default();
    loop {
        // The next message is read only once stdout has room for a reply:
        // rmcp sends every reply from a task of its own, so without this
        // wait a client that never reads would have the server take in
        // requests, and hold their replies, without end.
        if replies.reserve().await.is_err() {
            return ReaderEnd::OutputClosed;
        }
        let verdict = match lines.next().await {
            Ok(Line::End) => {
                tracing::info!("stdin closed");
                return ReaderEnd::InputClosed;
            }
            Err(error) => {
                tracing::warn!(%error, "cannot read stdin; stopping");
                return ReaderEnd::InputClosed;
            }
            Ok(Line::TooLong) => Verdict::Reject(Rejection::too_long(max_line_bytes)),
            Ok(Line::Complete) => {
                let line = lines.line();
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                match jsonrpc::check(line) {
                    Ok(message) => lifecycle.admit(message),
                    Err(rejection) => Verdict::Reject(rejection),
                }
            }
        };
        match verdict {
            Verdict::Pass(message) => {
                if to_rmcp.send(*message).await.is_err() {
                    return ReaderEnd::SessionGone;
                }
            }
            Verdict::Reject(rejection) if rejection.notification => {
                tracing::warn!(reason = %rejection.message, "ignored a notification that cannot be read");
            }
            Verdict::Reject(rejection) => {
                tracing::warn!(code = rejection.code.0, reason = %rejection.message, "answered a message that cannot be served");
                if replies.send(rejection.to_line()).await.is_err() {
                    return ReaderEnd::OutputClosed;
                }
            }
            Verdict::Ignore(reason) => tracing::warn!("{reason}"),
        }
    }
}

/// Why the reader stopped. It can notice a closed stdout before the
/// writer's end is seen, so it says so itself.
enum ReaderEnd {
    InputClosed,
    OutputClosed,
    /// rmcp stopped taking messages: its session ended.
    SessionGone,
}

enum Verdict {
    Pass(Box<ClientJsonRpcMessage>),
    Reject(Rejection),
    Ignore(String),
}

/// Where the client is in the MCP lifecycle, as far as the messages seen
/// tell: before the session starts, only `initialize`, `ping`,
/// `server/discover` and requests that carry their own protocol version go
/// through. `initialize` starts the session, and so does a request with
/// its own protocol version (MCP 2026-07-28 has no `initialize`).
#[derive(Default)]
struct Lifecycle {
    started: bool,
}

impl Lifecycle {
    fn admit(&mut self, message: ClientJsonRpcMessage) -> Verdict {
        if self.started {
            return Verdict::Pass(Box::new(message));
        }
        match &message {
            JsonRpcMessage::Request(request) => match &request.request {
                ClientRequest::PingRequest(_) | ClientRequest::DiscoverRequest(_) => {
                    Verdict::Pass(Box::new(message))
                }
                ClientRequest::InitializeRequest(_) => {
                    self.started = true;
                    Verdict::Pass(Box::new(message))
                }
                other if other.get_meta().protocol_version().is_some() => {
                    self.started = true;
                    Verdict::Pass(Box::new(message))
                }
                other => Verdict::Reject(Rejection::invalid_request(
                    Some(request.id.clone()),
                    format!(
                        "Invalid Request: `{}` before `initialize`; start the session with an \
                         `initialize` request, then send `notifications/initialized`",
                        other.method()
                    ),
                )),
            },
            JsonRpcMessage::Notification(notification) => Verdict::Ignore(format!(
                "ignored the notification `{}` sent before `initialize`",
                notification_method(notification)
            )),
            JsonRpcMessage::Response(_) | JsonRpcMessage::Error(_) => Verdict::Ignore(
                "ignored a response sent before `initialize`: the server asked nothing yet"
                    .to_owned(),
            ),
        }
    }
}

fn notification_method(
    notification: &rmcp::model::JsonRpcNotification<rmcp::model::ClientNotification>,
) -> String {
    serde_json::to_value(&notification.notification)
        .ok()
        .and_then(|value| {
            value
                .get("method")
                .and_then(|m| m.as_str())
                .map(str::to_owned)
        })
        .unwrap_or_else(|| "?".to_owned())
}

/// Writes each queued line whole, in order. After `finishing`, writes what
/// is queued and returns. Fails when stdout does.
async fn write_lines<W: AsyncWrite + Unpin>(
    mut output: W,
    mut lines: mpsc::Receiver<Vec<u8>>,
    mut finishing: oneshot::Receiver<()>,
) -> io::Result<()> {
    loop {
        tokio::select! {
            biased;
            line = lines.recv() => match line {
                Some(line) => {
                    output.write_all(&line).await?;
                    output.flush().await?;
                }
                None => return Ok(()),
            },
            _ = &mut finishing => {
                lines.close();
                while let Some(line) = lines.recv().await {
                    output.write_all(&line).await?;
                }
                return output.flush().await;
            }
        }
    }
}

/// Resolves when stdout's reading end is closed, on Unix where the kernel
/// reports that as an error condition on the descriptor (pipes and
/// sockets); never elsewhere, or when stdout cannot be watched (a regular
/// file, `/dev/null`). A failed write is noticed regardless.
async fn stdout_hangup() {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        use tokio::io::Interest;
        use tokio::io::unix::AsyncFd;

        if let Ok(fd) = std::io::stdout().as_fd().try_clone_to_owned() {
            // SAFETY: the AsyncFd owns `fd`, a descriptor this process just
            // duplicated, so it stays open and refers to the same open file
            // description until the AsyncFd is dropped.
            let watched = unsafe { AsyncFd::register_with_interest(fd, Interest::ERROR) };
            if let Ok(watched) = watched
                && watched.ready(Interest::ERROR).await.is_ok()
            {
                return;
            }
        }
    }
    std::future::pending::<()>().await
}

/// One line read by [`LineReader`].
#[derive(Debug, PartialEq, Eq)]
enum Line {
    /// A whole line is in [`LineReader::line`] (the last one may lack its
    /// newline).
    Complete,
    /// The line was longer than the limit and has been skipped.
    TooLong,
    /// The input has ended.
    End,
}

/// Reads `\n`-terminated lines without ever holding more than `limit`
/// bytes of one.
struct LineReader<R> {
    input: BufReader<R>,
    line: Vec<u8>,
    limit: usize,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    fn new(input: R, limit: usize) -> Self {
        LineReader {
            input: BufReader::with_capacity(64 * 1024, input),
            line: Vec::new(),
            limit,
        }
    }

    /// The line [`Line::Complete`] reported, without `\n` or `\r\n`.
    fn line(&self) -> &[u8] {
        self.line.strip_suffix(b"\r").unwrap_or(&self.line)
    }

    async fn next(&mut self) -> io::Result<Line> {
        // Keep a large line's memory only until the next line.
        if self.line.capacity() > 1024 * 1024 {
            self.line = Vec::new();
        }
        self.line.clear();
        let mut too_long = false;
        loop {
            let available = self.input.fill_buf().await?;
            if available.is_empty() {
                return Ok(if too_long {
                    Line::TooLong
                } else if self.line.is_empty() {
                    Line::End
                } else {
                    Line::Complete
                });
            }
            let newline = memchr::memchr(b'\n', available);
            let chunk = &available[..newline.unwrap_or(available.len())];
            if !too_long {
                if self.line.len() + chunk.len() > self.limit {
                    too_long = true;
                    self.line = Vec::new();
                } else {
                    self.line.extend_from_slice(chunk);
                }
            }
            let consumed = chunk.len() + usize::from(newline.is_some());
            self.input.consume(consumed);
            if newline.is_some() {
                return Ok(if too_long {
                    Line::TooLong
                } else {
                    Line::Complete
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::Toolset;
    use quire_fs::Workspace;
    use tokio::io::{AsyncReadExt, DuplexStream};
    use tokio::task::JoinHandle;

    /// A tracker server on in-memory streams: the client's ends, and the
    /// server's task. `output_buffer` is how much of its output the server
    /// can write before the client reads.
    fn serve_in_memory(
        output_buffer: usize,
    ) -> (
        DuplexStream,
        DuplexStream,
        JoinHandle<Result<StdioEnd, BoxError>>,
        tempfile::TempDir,
    ) {
        let root = tempfile::tempdir().unwrap();
        let server = QuireServer::new(Workspace::new(root.path()).unwrap(), &[Toolset::Tracker]);
        let (client_input, server_input) = tokio::io::duplex(64 * 1024);
        let (server_output, client_output) = tokio::io::duplex(output_buffer);
        let served = tokio::spawn(serve_lines(
            server,
            server_input,
            server_output,
            std::future::pending(),
            MAX_LINE_BYTES,
        ));
        (client_input, client_output, served, root)
    }

    const INITIALIZE: &[u8] = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"unit","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
"#;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_client_that_never_reads_its_output_is_not_read_either() {
        let (mut input, output, served, _root) = serve_in_memory(4 * 1024);
        input.write_all(INITIALIZE).await.unwrap();
        // Everything the server takes in while its replies go unread, it
        // must hold. It takes what its input buffers hold (128 KiB here)
        // and the requests of the replies queued for output, then waits.
        const MOST_TAKEN: usize = 512 * 1024;
        let mut taken = 0;
        for id in 1.. {
            let ping = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n");
            let write = input.write_all(ping.as_bytes());
            if tokio::time::timeout(Duration::from_millis(500), write)
                .await
                .is_err()
            {
                break;
            }
            taken += ping.len();
            assert!(
                taken < MOST_TAKEN,
                "the server took {taken} bytes of requests while nobody read its replies"
            );
        }
        // The client goes away: the server notices at its next write.
        drop(output);
        let end = tokio::time::timeout(Duration::from_secs(5), served).await;
        assert!(matches!(end, Ok(Ok(Ok(StdioEnd::OutputClosed)))), "{end:?}");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn replies_flow_again_once_the_client_reads() {
        let (mut input, mut output, served, _root) = serve_in_memory(1024);
        input.write_all(INITIALIZE).await.unwrap();
        let pings = 2_000;
        let writer = tokio::spawn(async move {
            for id in 1..=pings {
                let ping = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"ping\"}}\n");
                input.write_all(ping.as_bytes()).await.unwrap();
            }
            input
        });
        // Only once the writer is stuck does the client start reading.
        tokio::time::sleep(Duration::from_millis(300)).await;
        let mut replies = String::new();
        let mut buffer = vec![0; 64 * 1024];
        while replies.matches('\n').count() < pings + 1 {
            let read = tokio::time::timeout(Duration::from_secs(5), output.read(&mut buffer))
                .await
                .expect("replies keep coming")
                .unwrap();
            assert_ne!(read, 0, "the server stopped");
            replies.push_str(std::str::from_utf8(&buffer[..read]).unwrap());
        }
        for id in 1..=pings {
            assert!(
                replies.contains(&format!("\"id\":{id},")),
                "no reply to {id}"
            );
        }
        drop(writer.await.unwrap());
        let end = tokio::time::timeout(Duration::from_secs(5), served).await;
        assert!(
            matches!(
                end,
                Ok(Ok(Ok(StdioEnd::InputClosed | StdioEnd::SessionEnded)))
            ),
            "{end:?}"
        );
    }

    async fn lines_of(input: &[u8], limit: usize) -> Vec<Result<String, Line>> {
        let mut reader = LineReader::new(input, limit);
        let mut seen = Vec::new();
        loop {
            match reader.next().await.unwrap() {
                Line::End => return seen,
                Line::Complete => seen.push(Ok(String::from_utf8(reader.line().to_vec()).unwrap())),
                other => seen.push(Err(other)),
            }
        }
    }

    #[tokio::test]
    async fn lines_are_split_bounded_and_skipped_whole_when_too_long() {
        assert_eq!(
            lines_of(b"a\r\nbb\n\nlast", 4).await,
            vec![
                Ok("a".into()),
                Ok("bb".into()),
                Ok("".into()),
                Ok("last".into())
            ]
        );
        assert_eq!(
            lines_of(b"12345\nok\n123456789", 4).await,
            vec![Err(Line::TooLong), Ok("ok".into()), Err(Line::TooLong)]
        );
        assert_eq!(lines_of(b"1234\n", 4).await, vec![Ok("1234".into())]);
    }

    #[tokio::test]
    async fn a_line_longer_than_the_read_buffer_is_skipped_without_being_held() {
        let mut input = vec![b'x'; 300 * 1024];
        input.extend_from_slice(b"\nnext\n");
        let mut reader = LineReader::new(&input[..], 1024);
        assert_eq!(reader.next().await.unwrap(), Line::TooLong);
        assert!(reader.line.capacity() <= 1024 * 64);
        assert_eq!(reader.next().await.unwrap(), Line::Complete);
        assert_eq!(reader.line(), b"next");
    }
}
