//! MCP over Streamable HTTP on a loopback address, with the limits a
//! long-running server needs.
//!
//! rmcp's `StreamableHttpService` speaks the protocol; this module serves
//! the connections and stands in front of it. Why the connection loop is
//! hand-written rather than `axum::serve`: axum cannot set hyper's header
//! read timeout, so a client that never finishes its headers (slowloris)
//! holds its socket for ever. Here every connection is served by hyper's
//! HTTP/1 builder with [`HttpLimits::header_read_timeout`] (which also
//! closes idle keep-alive connections), and at most
//! [`HttpLimits::max_connections`] are open at once.
//!
//! In front of rmcp, each request is checked in this order:
//!
//! 1. the path is exactly `/mcp` (else 404);
//! 2. there is at most one `Host` and at most one `Origin` header (else
//!    400: RFC 9112 §3.2 makes a request with several `Host` fields
//!    invalid, and which of several `Origin`s to believe is not for the
//!    server to guess);
//! 3. `Host` names this machine (`localhost`, `127.0.0.1`, `[::1]`, with
//!    this server's port or none) and an `Origin`, when present, is a
//!    well-formed loopback origin `http(s)://host[:port]` with a port of
//!    1-65535 (else 403): a web page elsewhere cannot drive the server;
//! 4. a `POST` body arrives within [`HttpLimits::body_read_timeout`] (else
//!    408) and is at most [`HttpLimits::max_body_bytes`] (else 413), and
//!    parses as a JSON-RPC message ([`super::jsonrpc::check`]; else 400 with
//!    `-32700` and `id: null`, or `-32600`/`-32602` with the request's `id`);
//! 5. an `initialize` that would open a session beyond
//!    [`HttpLimits::max_sessions`] gets 503;
//! 6. `DELETE` follows the MCP Streamable HTTP transport: without
//!    `Mcp-Session-Id` 400, for a session that does not exist 404, else the
//!    session ends and the answer is 200 (rmcp answers 202 to all three).
//!
//! A session that sees no request for [`HttpLimits::session_idle_timeout`]
//! is closed by rmcp's session worker, which frees it. Every error this
//! module answers has a JSON-RPC error object as its body.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use rmcp::model::{ClientRequest, ErrorCode, JsonRpcMessage, RequestId};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{
    SessionManager, StreamableHttpServerConfig, StreamableHttpService,
};
use tokio::net::TcpListener;
use tokio::sync::{Mutex, Semaphore};

use super::BoxError;
use super::jsonrpc::{self, Rejection, human_size};
use super::server::QuireServer;

type HttpResponse = Response<BoxBody<Bytes, Infallible>>;

/// The only path served.
pub const MCP_PATH: &str = "/mcp";

/// The header that names a Streamable HTTP session.
const SESSION_HEADER: &str = "mcp-session-id";

/// Limits of the HTTP server. [`HttpLimits::default`] holds the values
/// `quire serve --http` uses unless told otherwise; set a field to change
/// one (`let mut limits = HttpLimits::default(); limits.max_sessions = 8;`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpLimits {
    /// How long a client may take to send a request's headers, counted
    /// from the connection's start or the end of its previous response; a
    /// connection that takes longer is closed. Default 10 s.
    pub header_read_timeout: Duration,
    /// How long a client may take to send a `POST` body; slower gets 408
    /// and the connection is closed. Default 30 s.
    pub body_read_timeout: Duration,
    /// The largest `POST` body; larger gets 413. Default 16 MiB, the stdio
    /// line limit.
    pub max_body_bytes: usize,
    /// Open MCP sessions at most; an `initialize` beyond gets 503. Default 64.
    pub max_sessions: usize,
    /// A session without requests for this long is closed. Default 10 min.
    pub session_idle_timeout: Duration,
    /// Open connections at most; more wait to be accepted. Default 256.
    pub max_connections: usize,
}

impl Default for HttpLimits {
    fn default() -> Self {
        HttpLimits {
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(30),
            max_body_bytes: super::stdio::MAX_LINE_BYTES,
            max_sessions: 64,
            session_idle_timeout: Duration::from_secs(10 * 60),
            max_connections: 256,
        }
    }
}

/// How long open requests may take to finish once the server is told to
/// stop.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

/// Serves MCP over Streamable HTTP at `http://ADDR/mcp` until Ctrl-C.
pub async fn serve_http(
    server: QuireServer,
    address: SocketAddr,
    limits: HttpLimits,
) -> Result<(), BoxError> {
    let listener = TcpListener::bind(address).await?;
    let local = listener.local_addr()?;
    tracing::info!(address = %local, "serving MCP on http://{local}{MCP_PATH}");
    serve_http_on(server, listener, limits, async {
        let _ = tokio::signal::ctrl_c().await;
    })
    .await
}

/// Serves MCP over Streamable HTTP on `listener` until `shutdown` resolves.
pub async fn serve_http_on(
    server: QuireServer,
    listener: TcpListener,
    limits: HttpLimits,
    shutdown: impl Future<Output = ()>,
) -> Result<(), BoxError> {
    let port = listener.local_addr()?.port();
    let front = Front::new(server, port, limits.clone());
    let stopping = front.mcp.config.cancellation_token.clone();
    let connections = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let graceful = GracefulShutdown::new();
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout);
    tokio::pin!(shutdown);

    loop {
        let permit = tokio::select! {
            permit = connections.clone().acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => break,
            },
            () = &mut shutdown => break,
        };
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // E.g. out of file descriptors: wait, do not spin.
                    tracing::warn!(%error, "cannot accept a connection");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let front = front.clone();
        let service = service_fn(move |request| {
            let front = front.clone();
            async move { Ok::<_, Infallible>(front.handle(request).await) }
        });
        let connection = graceful.watch(builder.serve_connection(TokioIo::new(stream), service));
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(%peer, %error, "connection closed");
            }
            drop(permit);
        });
    }

    tracing::info!("stopping the HTTP server");
    stopping.cancel();
    if tokio::time::timeout(SHUTDOWN_GRACE, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("requests were still open at shutdown; they were cut off");
    }
    Ok(())
}

/// The checks in front of rmcp's service, shared by all connections.
#[derive(Clone)]
struct Front {
    mcp: StreamableHttpService<QuireServer, LocalSessionManager>,
    sessions: Arc<LocalSessionManager>,
    /// Held while an `initialize` opens a session, so that concurrent ones
    /// cannot pass the session cap together.
    opening: Arc<Mutex<()>>,
    port: u16,
    limits: HttpLimits,
}

impl Front {
    fn new(server: QuireServer, port: u16, limits: HttpLimits) -> Self {
        let mut sessions = LocalSessionManager::default();
        sessions.session_config.keep_alive = Some(limits.session_idle_timeout);
        let sessions = Arc::new(sessions);
        let config = StreamableHttpServerConfig::default()
            .with_allowed_hosts([
                "localhost".to_owned(),
                "127.0.0.1".to_owned(),
                "::1".to_owned(),
                format!("localhost:{port}"),
                format!("127.0.0.1:{port}"),
                format!("[::1]:{port}"),
            ])
            .with_allowed_origins([
                "http://localhost:*",
                "http://127.0.0.1:*",
                "http://[::1]:*",
                "https://localhost:*",
                "https://127.0.0.1:*",
                "https://[::1]:*",
            ])
            .enforce_origin_validation()
            .with_max_request_body_bytes(limits.max_body_bytes);
        let mcp = StreamableHttpService::new(
            move || Ok(server.for_new_session()),
            sessions.clone(),
            config,
        );
        Front {
            mcp,
            sessions,
            opening: Arc::new(Mutex::new(())),
            port,
            limits,
        }
    }

    async fn handle(&self, request: Request<Incoming>) -> HttpResponse {
        if request.uri().path() != MCP_PATH {
            return error_response(
                StatusCode::NOT_FOUND,
                None,
                ErrorCode(-32000),
                format!(
                    "Not Found: `{}` is not served; the MCP endpoint is {MCP_PATH}",
                    request.uri().path()
                ),
            );
        }
        if let Some(refusal) = repeated_header_refusal(request.headers()) {
            return refusal;
        }
        if let Some(refusal) = host_refusal(&request, self.port) {
            return refusal;
        }
        if let Some(refusal) = origin_refusal(request.headers()) {
            return refusal;
        }
        match *request.method() {
            Method::POST => self.post(request).await,
            Method::DELETE => self.delete(request).await,
            _ => self.mcp.handle(without_body(request)).await,
        }
    }

    async fn post(&self, request: Request<Incoming>) -> HttpResponse {
        let (parts, body) = request.into_parts();
        let limit = self.limits.max_body_bytes;
        let declared = parts
            .headers
            .get(header::CONTENT_LENGTH)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.parse::<u64>().ok());
        if declared.is_some_and(|length| length > limit as u64) {
            return too_large(limit);
        }
        let body = match tokio::time::timeout(
            self.limits.body_read_timeout,
            Limited::new(body, limit).collect(),
        )
        .await
        {
            Ok(Ok(body)) => body.to_bytes(),
            Ok(Err(error)) if error.is::<http_body_util::LengthLimitError>() => {
                return too_large(limit);
            }
            Ok(Err(error)) => {
                return close(error_response(
                    StatusCode::BAD_REQUEST,
                    None,
                    ErrorCode(-32000),
                    format!("Bad Request: the request body could not be read: {error}"),
                ));
            }
            Err(_) => {
                return close(error_response(
                    StatusCode::REQUEST_TIMEOUT,
                    None,
                    ErrorCode(-32000),
                    format!(
                        "Request Timeout: the request body did not arrive within {}; send it at once",
                        seconds(self.limits.body_read_timeout)
                    ),
                ));
            }
        };

        // rmcp answers a body that is not JSON with 415 itself. A checked
        // body is parsed once more by rmcp's service, which takes an HTTP
        // request rather than a message: its API has no way to hand the
        // parsed message on, as the stdio transport does.
        let mut opens_session = false;
        let mut request_id = None;
        if is_json(&parts.headers) {
            match jsonrpc::check(&body) {
                Ok(message) => {
                    if let JsonRpcMessage::Request(request) = &message {
                        request_id = Some(request.id.clone());
                        opens_session =
                            matches!(request.request, ClientRequest::InitializeRequest(_))
                                && !parts.headers.contains_key(SESSION_HEADER);
                    }
                }
                Err(rejection) => return rejection_response(&rejection),
            }
        }
        let request = Request::from_parts(parts, Full::new(body));
        if !opens_session {
            return self.mcp.handle(request).await;
        }
        let _opening = self.opening.lock().await;
        let open = self.sessions.sessions.read().await.len();
        if open >= self.limits.max_sessions {
            tracing::warn!(open, "refused a new session: the session limit is reached");
            return error_response(
                StatusCode::SERVICE_UNAVAILABLE,
                request_id,
                ErrorCode(-32000),
                format!(
                    "Service Unavailable: {open} MCP sessions are open, the most this server keeps; \
                     end one you no longer use (HTTP DELETE with its Mcp-Session-Id), or retry once an \
                     idle one expires ({} without requests)",
                    seconds(self.limits.session_idle_timeout)
                ),
            );
        }
        self.mcp.handle(request).await
    }

    async fn delete(&self, request: Request<Incoming>) -> HttpResponse {
        let session = request
            .headers()
            .get(SESSION_HEADER)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        let Some(session) = session else {
            return error_response(
                StatusCode::BAD_REQUEST,
                None,
                ErrorCode(-32000),
                "Bad Request: DELETE ends a session and needs the Mcp-Session-Id header of that session",
            );
        };
        let known = self
            .sessions
            .has_session(&session.as_str().into())
            .await
            .unwrap_or(false);
        if !known {
            return error_response(
                StatusCode::NOT_FOUND,
                None,
                ErrorCode(-32000),
                "Not Found: no such session; it has ended, expired or never existed \
                 (start a new one with `initialize`)",
            );
        }
        let response = self.mcp.handle(without_body(request)).await;
        if response.status() == StatusCode::ACCEPTED {
            tracing::info!(session, "session ended by the client");
            return Response::builder()
                .status(StatusCode::OK)
                .body(empty())
                .unwrap_or_else(|_| Response::new(empty()));
        }
        response
    }
}

/// The request with its (unread) body replaced by an empty one.
fn without_body(request: Request<Incoming>) -> Request<Full<Bytes>> {
    let (parts, _) = request.into_parts();
    Request::from_parts(parts, Full::new(Bytes::new()))
}

fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| {
            let essence = value.split(';').next().unwrap_or_default().trim();
            essence.eq_ignore_ascii_case("application/json")
        })
}

/// The refusal of a request with more than one `Host` or `Origin` header:
/// checking only the first would let a second one through unchecked to
/// whatever reads the last.
fn repeated_header_refusal(headers: &HeaderMap) -> Option<HttpResponse> {
    for (name, shown) in [(header::HOST, "Host"), (header::ORIGIN, "Origin")] {
        let count = headers.get_all(&name).iter().count();
        if count > 1 {
            tracing::warn!(count, "refused a request with several {shown} headers");
            return Some(error_response(
                StatusCode::BAD_REQUEST,
                None,
                ErrorCode(-32000),
                format!("Bad Request: the request has {count} {shown} headers; send exactly one"),
            ));
        }
    }
    None
}

/// The refusal of a request whose `Host` (or request target authority)
/// does not name this machine, with this server's port or none.
fn host_refusal<B>(request: &Request<B>, port: u16) -> Option<HttpResponse> {
    let host = match request.headers().get(header::HOST) {
        Some(value) => value.to_str().ok().map(str::to_owned),
        None => request
            .uri()
            .authority()
            .map(|authority| authority.to_string()),
    };
    let Some(host) = host else {
        return Some(error_response(
            StatusCode::BAD_REQUEST,
            None,
            ErrorCode(-32000),
            "Bad Request: the request has no Host header",
        ));
    };
    match parse_authority(&host) {
        Some((name, found)) if is_loopback(&name) && found.is_none_or(|found| found == port) => {
            None
        }
        _ => {
            tracing::warn!(host, "refused a request for another host (DNS rebinding?)");
            Some(error_response(
                StatusCode::FORBIDDEN,
                None,
                ErrorCode(-32000),
                format!(
                    "Forbidden: Host `{host}` is not this server; use localhost:{port}, \
                     127.0.0.1:{port} or [::1]:{port}"
                ),
            ))
        }
    }
}

/// The refusal of a request whose `Origin`, when present, is not a
/// well-formed loopback origin.
fn origin_refusal(headers: &HeaderMap) -> Option<HttpResponse> {
    let origin = headers.get(header::ORIGIN)?;
    let origin = String::from_utf8_lossy(origin.as_bytes()).into_owned();
    let refusal = match parse_origin(&origin) {
        Some(host) if is_loopback(&host) => return None,
        Some(_) => "is not a loopback origin; only pages served from this machine may call it",
        None => "is not a well-formed origin (scheme://host[:port], port 1-65535)",
    };
    tracing::warn!(origin, "refused a request from a browser origin");
    Some(error_response(
        StatusCode::FORBIDDEN,
        None,
        ErrorCode(-32000),
        format!("Forbidden: Origin `{origin}` {refusal}"),
    ))
}

/// The host of an `Origin` value `scheme://host[:port]` (`http` or
/// `https`), lowercased; `None` when it is anything else (`null`, a path,
/// user info, a bad port).
fn parse_origin(origin: &str) -> Option<String> {
    let (scheme, authority) = origin.split_once("://")?;
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return None;
    }
    parse_authority(authority).map(|(host, _)| host)
}

/// `host[:port]` with host a name, an IPv4 address or a bracketed IPv6
/// address, and port 1-65535 in digits; the host lowercased. Not
/// `http::uri::Authority`: it takes `:abc`, `:+80`, `[zz]` and user info,
/// reading them as no port or a valid one, where a malformed value must
/// be refused.
fn parse_authority(authority: &str) -> Option<(String, Option<u16>)> {
    let (host, port) = if let Some(rest) = authority.strip_prefix('[') {
        let (inside, after) = rest.split_once(']')?;
        inside.parse::<std::net::Ipv6Addr>().ok()?;
        let port = match after {
            "" => None,
            _ => Some(after.strip_prefix(':')?),
        };
        (format!("[{}]", inside.to_ascii_lowercase()), port)
    } else {
        let (host, port) = match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        };
        let valid = !host.is_empty()
            && host
                .bytes()
                .all(|byte| byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'.');
        if !valid {
            return None;
        }
        (host.to_ascii_lowercase(), port)
    };
    let port = match port {
        None => None,
        Some(digits) => {
            if digits.is_empty() || digits.len() > 5 || !digits.bytes().all(|b| b.is_ascii_digit())
            {
                return None;
            }
            match digits.parse::<u16>() {
                Ok(0) | Err(_) => return None,
                Ok(port) => Some(port),
            }
        }
    };
    Some((host, port))
}

fn is_loopback(host: &str) -> bool {
    matches!(host, "localhost" | "127.0.0.1" | "[::1]")
}

fn seconds(duration: Duration) -> String {
    let secs = duration.as_secs_f64();
    if secs >= 60.0 && duration.as_secs().is_multiple_of(60) {
        format!("{} min", duration.as_secs() / 60)
    } else {
        format!("{secs} s")
    }
}

fn empty() -> BoxBody<Bytes, Infallible> {
    Full::new(Bytes::new()).boxed()
}

fn rejection_response(rejection: &Rejection) -> HttpResponse {
    json_response(StatusCode::BAD_REQUEST, rejection)
}

fn too_large(limit: usize) -> HttpResponse {
    close(error_response(
        StatusCode::PAYLOAD_TOO_LARGE,
        None,
        ErrorCode(-32000),
        format!(
            "Payload Too Large: the request body is over {} ({limit} bytes), the most this server \
             reads; send smaller messages",
            human_size(limit)
        ),
    ))
}

/// The response, and the connection closed after it: its request's body
/// was not read to the end.
fn close(mut response: HttpResponse) -> HttpResponse {
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

fn error_response(
    status: StatusCode,
    id: Option<RequestId>,
    code: ErrorCode,
    message: impl Into<String>,
) -> HttpResponse {
    json_response(status, &Rejection::new(code, id, message))
}

fn json_response(status: StatusCode, rejection: &Rejection) -> HttpResponse {
    let body = rejection.to_json_text();
    let mut response = Response::new(Full::new(Bytes::from(body)).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_must_be_well_formed_and_loopback() {
        for good in [
            "http://localhost",
            "http://127.0.0.1:8080",
            "https://[::1]:1",
            "HTTP://LOCALHOST:65535",
        ] {
            assert!(
                parse_origin(good).is_some_and(|host| is_loopback(&host)),
                "{good}"
            );
        }
        for malformed in [
            "http://127.0.0.1:abc",
            "http://127.0.0.1:0",
            "http://127.0.0.1:65536",
            "http://127.0.0.1:",
            "http://127.0.0.1:+80",
            "http://127.0.0.1/",
            "http://user@127.0.0.1",
            "null",
            "ftp://127.0.0.1",
            "http://[::1",
            "http://[zz]:80",
            "127.0.0.1:80",
            "http://",
        ] {
            assert_eq!(parse_origin(malformed), None, "{malformed}");
        }
        for foreign in [
            "http://evil.example",
            "http://127.0.0.2:80",
            "http://localhost.evil.example",
        ] {
            assert!(
                parse_origin(foreign).is_some_and(|host| !is_loopback(&host)),
                "{foreign}"
            );
        }
    }

    #[test]
    fn authorities_keep_their_port() {
        assert_eq!(
            parse_authority("[::1]:8080"),
            Some(("[::1]".to_owned(), Some(8080)))
        );
        assert_eq!(
            parse_authority("LocalHost"),
            Some(("localhost".to_owned(), None))
        );
        assert_eq!(parse_authority("a:b:c"), None);
    }

    #[test]
    fn durations_read_as_people_write_them() {
        assert_eq!(seconds(Duration::from_secs(600)), "10 min");
        assert_eq!(seconds(Duration::from_millis(1500)), "1.5 s");
    }
}
