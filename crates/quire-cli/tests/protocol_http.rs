//! `quire serve --http`, driven with raw HTTP/1.1 over TCP: timeouts for
//! slow headers and bodies, the body size cap, JSON-RPC error bodies, the
//! session cap and idle timeout, `DELETE` as the MCP Streamable HTTP
//! transport specifies, the exact `/mcp` path, and `Origin`/`Host` checks
//! (one of each at most).
//! Every test ends by showing that the server still serves.

use std::fs;
use std::io::{ErrorKind, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

#[path = "support/jsonrpc_replies.rs"]
mod jsonrpc_replies;
use jsonrpc_replies::{INITIALIZE, assert_initialized, error_of};

/// How long a response may take before a test gives up on it.
const READ_TIMEOUT: Duration = Duration::from_secs(20);

struct Server {
    child: Child,
    port: u16,
    stderr: PathBuf,
    _folder: tempfile::TempDir,
}

impl Server {
    fn start(flags: &[&str]) -> Server {
        let folder = tempfile::tempdir().unwrap();
        let root = folder.path().join("root");
        fs::create_dir(&root).unwrap();
        let stderr = folder.path().join("stderr.log");
        let port = {
            let probe = TcpListener::bind("127.0.0.1:0").unwrap();
            probe.local_addr().unwrap().port()
        };
        let child = Command::new(env!("CARGO_BIN_EXE_quire"))
            .arg("serve")
            .arg("--root")
            .arg(&root)
            .args(["--tools", "tracker", "--http", &format!("127.0.0.1:{port}")])
            .args(flags)
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(fs::File::create(&stderr).unwrap())
            .spawn()
            .expect("quire runs");
        let mut server = Server {
            child,
            port,
            stderr,
            _folder: folder,
        };
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Some(status) = server.child.try_wait().unwrap() {
                panic!("quire serve exited with {status}:\n{}", server.stderr());
            }
            assert!(
                start.elapsed() < READ_TIMEOUT,
                "not listening:\n{}",
                server.stderr()
            );
            thread::sleep(Duration::from_millis(20));
        }
        server
    }

    fn stderr(&self) -> String {
        fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    fn connect(&self) -> TcpStream {
        let stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        stream.set_read_timeout(Some(READ_TIMEOUT)).unwrap();
        stream
    }

    /// Sends `head` (request line and headers, without the blank line) and
    /// `body`, and reads the response to the end of the connection.
    fn raw(&self, head: &str, body: &[u8]) -> Reply {
        let mut stream = self.connect();
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(b"\r\n").unwrap();
        stream.write_all(body).unwrap();
        read_reply(&mut stream)
    }

    /// A request to `path` with the headers an MCP client sends, plus
    /// `extra` header lines.
    fn request(&self, method: &str, path: &str, extra: &[String], body: &str) -> Reply {
        let mut head = format!(
            "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAccept: application/json, text/event-stream\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
            self.port,
            body.len()
        );
        for line in extra {
            head.push_str(line);
            head.push_str("\r\n");
        }
        self.raw(&head, body.as_bytes())
    }

    fn post(&self, body: &str) -> Reply {
        self.request("POST", "/mcp", &[], body)
    }

    /// Opens a session; its id.
    fn initialize(&self) -> String {
        let reply = self.post(INITIALIZE);
        assert_eq!(reply.status, 200, "{reply:?}\n{}", self.stderr());
        assert_initialized(&reply.message());
        reply
            .header("mcp-session-id")
            .expect("a session id")
            .to_owned()
    }

    /// `tools/list` in `session`.
    fn tools_list(&self, session: &str) -> Reply {
        self.request(
            "POST",
            "/mcp",
            &[
                format!("Mcp-Session-Id: {session}"),
                "MCP-Protocol-Version: 2025-06-18".to_owned(),
            ],
            r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        )
    }

    fn delete(&self, session: Option<&str>) -> Reply {
        let extra: Vec<String> = session
            .map(|session| format!("Mcp-Session-Id: {session}"))
            .into_iter()
            .collect();
        self.request("DELETE", "/mcp", &extra, "")
    }

    /// Asserts that the server still serves: a new session lists tools.
    fn still_serving(&self) {
        let session = self.initialize();
        let reply = self.tools_list(&session);
        assert_eq!(reply.status, 200, "{reply:?}");
        assert!(reply.message()["result"]["tools"].is_array(), "{reply:?}");
        assert_eq!(self.delete(Some(&session)).status, 200);
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl std::fmt::Debug for Reply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {:?} {}",
            self.status,
            self.headers,
            String::from_utf8_lossy(&self.body)
        )
    }
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// The one JSON-RPC message of the body: the body itself when it is
    /// JSON, else the SSE event that carries one.
    fn message(&self) -> Value {
        let text = String::from_utf8_lossy(&self.body);
        if self
            .header("content-type")
            .is_some_and(|kind| kind.starts_with("application/json"))
        {
            return serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        }
        let messages: Vec<Value> = text
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter_map(|data| serde_json::from_str(data.trim()).ok())
            .collect();
        assert_eq!(messages.len(), 1, "{self:?}");
        messages.into_iter().next().unwrap()
    }

    /// The JSON-RPC error of a JSON body: `(code, id)`.
    fn error(&self) -> (i64, Value) {
        assert!(
            self.header("content-type")
                .is_some_and(|kind| kind.starts_with("application/json")),
            "{self:?}"
        );
        error_of(&self.message())
    }

    fn error_text(&self) -> String {
        self.message()["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }
}

/// Reads a whole response (the server closes the connection after it).
fn read_reply(stream: &mut TcpStream) -> Reply {
    let mut bytes = Vec::new();
    if let Err(error) = stream.read_to_end(&mut bytes) {
        assert!(
            !bytes.is_empty() && error.kind() == ErrorKind::ConnectionReset,
            "no complete response: {error} after {:?}",
            String::from_utf8_lossy(&bytes)
        );
    }
    let split = bytes
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no header end in {:?}", String::from_utf8_lossy(&bytes)));
    let head = String::from_utf8(bytes[..split].to_vec()).unwrap();
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap().split(' ').nth(1).unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(key, value)| (key.trim().to_owned(), value.trim().to_owned()))
        .collect();
    let mut body = bytes[split + 4..].to_vec();
    let chunked = headers.iter().any(|(key, value)| {
        key.eq_ignore_ascii_case("transfer-encoding") && value.eq_ignore_ascii_case("chunked")
    });
    if chunked {
        body = dechunk(&body);
    }
    Reply {
        status: status.parse().unwrap(),
        headers,
        body,
    }
}

fn dechunk(mut bytes: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    loop {
        let Some(end) = bytes.windows(2).position(|window| window == b"\r\n") else {
            return body;
        };
        let size = std::str::from_utf8(&bytes[..end]).unwrap();
        let size = usize::from_str_radix(size.split(';').next().unwrap().trim(), 16).unwrap();
        if size == 0 {
            return body;
        }
        let start = end + 2;
        body.extend_from_slice(&bytes[start..start + size]);
        bytes = &bytes[start + size + 2..];
    }
}

/// Waits until the server closes `stream`; false if it is still open
/// after `deadline`.
fn closed_within(stream: &mut TcpStream, deadline: Instant) -> bool {
    let mut buffer = [0u8; 1024];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        stream.set_read_timeout(Some(left)).unwrap();
        match stream.read(&mut buffer) {
            Ok(0) => return true,
            Ok(_) => continue, // e.g. a 408 before the close
            Err(error) if matches!(error.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return false;
            }
            Err(_) => return true, // reset
        }
    }
}

/// How much later than its timeout a connection may be cut off on a busy
/// machine: well short of the 10 s default, so a server that ignored
/// `--http-header-timeout 1s` would fail.
const CUT_OFF_SLACK: Duration = Duration::from_secs(3);

#[test]
fn slow_headers_are_cut_off_and_the_server_keeps_serving() {
    let server = Server::start(&["--http-header-timeout", "1s"]);
    let deadline = Instant::now() + Duration::from_secs(1) + CUT_OFF_SLACK;
    let mut sockets: Vec<TcpStream> = (0..50)
        .map(|_| {
            let mut stream = server.connect();
            stream
                .write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: appl")
                .unwrap();
            stream
        })
        .collect();
    // One that sends nothing at all.
    sockets.push(server.connect());
    // One that keeps sending a byte every 100 ms, its headers never ending:
    // each byte is progress, but the timeout is for the headers as a whole.
    let mut trickle = server.connect();
    let head = b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";
    let mut bytes = head.iter().chain(std::iter::repeat(&b'a'));
    while Instant::now() < deadline {
        if trickle.write_all(&[*bytes.next().unwrap()]).is_err() {
            break;
        }
        thread::sleep(Duration::from_millis(100));
    }
    sockets.push(trickle);
    for (index, socket) in sockets.iter_mut().enumerate() {
        assert!(
            closed_within(socket, deadline),
            "socket {index} is still open {CUT_OFF_SLACK:?} after the 1 s header timeout"
        );
    }
    server.still_serving();
}

#[test]
fn a_slow_body_gets_408_and_a_closed_connection() {
    let server = Server::start(&["--http-body-timeout", "1s"]);
    let mut stream = server.connect();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAccept: application/json, text/event-stream\r\n\
         Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"jsonrpc\":",
        server.port
    )
    .unwrap();
    let sent = Instant::now();
    let reply = read_reply(&mut stream);
    assert!(
        sent.elapsed() < Duration::from_secs(1) + CUT_OFF_SLACK,
        "the 408 took {:?}",
        sent.elapsed()
    );
    assert_eq!(reply.status, 408, "{reply:?}");
    assert_eq!(reply.error().1, Value::Null);
    assert!(reply.error_text().contains("1 s"), "{reply:?}");
    server.still_serving();
}

#[test]
fn an_oversized_body_gets_413_without_being_read() {
    let server = Server::start(&[]);
    let mut stream = server.connect();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAccept: application/json, text/event-stream\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{{",
        server.port,
        16 * 1024 * 1024 + 1
    )
    .unwrap();
    let reply = read_reply(&mut stream);
    assert_eq!(reply.status, 413, "{reply:?}");
    assert!(reply.error_text().contains("16 MiB"), "{reply:?}");

    // Also when the body comes without a length (chunked).
    let mut stream = server.connect();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAccept: application/json, text/event-stream\r\n\
         Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
        server.port
    )
    .unwrap();
    let chunk = vec![b' '; 1024 * 1024];
    for _ in 0..17 {
        if write!(stream, "{:x}\r\n", chunk.len()).is_err()
            || stream.write_all(&chunk).is_err()
            || stream.write_all(b"\r\n").is_err()
        {
            break; // the server answered and closed early
        }
    }
    let reply = read_reply(&mut stream);
    assert_eq!(reply.status, 413, "{reply:?}");
    assert_eq!(reply.error(), (-32000, Value::Null));
    assert!(reply.error_text().contains("16 MiB"), "{reply:?}");
    server.still_serving();
}

#[test]
fn malformed_messages_get_jsonrpc_error_bodies() {
    let server = Server::start(&[]);
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    let cases = [
        // not JSON
        ("{bad".to_owned(), -32700, Value::Null),
        (deep, -32700, Value::Null),
        (String::new(), -32700, Value::Null),
        (
            r#"{"jsonrpc":"2.0","id":4,"method":"ping"} trailing"#.to_owned(),
            -32700,
            Value::Null,
        ),
        // params of the wrong JSON type
        (
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/list","params":[1]}"#.to_owned(),
            -32600,
            json!(7),
        ),
        (
            r#"{"jsonrpc":"2.0","id":"s","method":"tools/call","params":"x"}"#.to_owned(),
            -32600,
            json!("s"),
        ),
        (
            r#"{"jsonrpc":"2.0","id":8,"method":"ping","params":3}"#.to_owned(),
            -32600,
            json!(8),
        ),
        // params of a known method that do not fit it
        (
            r#"{"jsonrpc":"2.0","id":"eight","method":"tools/call","params":{"name":5}}"#
                .to_owned(),
            -32602,
            json!("eight"),
        ),
        (
            r#"{"jsonrpc":"2.0","id":9,"method":"initialize","params":{}}"#.to_owned(),
            -32602,
            json!(9),
        ),
        // method not a string
        (
            r#"{"jsonrpc":"2.0","id":10,"method":5}"#.to_owned(),
            -32600,
            json!(10),
        ),
        (
            r#"{"jsonrpc":"2.0","id":11,"method":["initialize"]}"#.to_owned(),
            -32600,
            json!(11),
        ),
        // an id that is not a string or an integer cannot be echoed
        (
            r#"{"jsonrpc":"2.0","id":{"a":1},"method":"initialize"}"#.to_owned(),
            -32600,
            Value::Null,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#.to_owned(),
            -32600,
            Value::Null,
        ),
        (
            r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#.to_owned(),
            -32600,
            Value::Null,
        ),
        (
            r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}"#.to_owned(),
            -32600,
            Value::Null,
        ),
        // batches
        (
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#.to_owned(),
            -32600,
            Value::Null,
        ),
        // a notification that cannot be read: refused, with no id
        (
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":7}"#.to_owned(),
            -32600,
            Value::Null,
        ),
    ];
    for (body, code, id) in cases {
        let reply = server.post(&body);
        assert_eq!(reply.status, 400, "{body}: {reply:?}");
        assert_eq!(reply.error(), (code, id), "{body}");
    }
    let not_utf8 = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}";
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAccept: application/json, text/event-stream\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
        server.port,
        not_utf8.len()
    );
    let reply = server.raw(&head, not_utf8);
    assert_eq!(
        (reply.status, reply.error()),
        (400, (-32700, Value::Null)),
        "not UTF-8"
    );
    server.still_serving();
}

#[test]
fn messages_outside_a_session_are_refused_and_open_none() {
    let server = Server::start(&["--http-max-sessions", "1"]);
    // Before `initialize`, or without the session's header: nothing is
    // served and no session is opened.
    for body in [
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":4,"result":{}}"#,
    ] {
        let reply = server.post(body);
        assert_eq!(reply.status, 400, "{body}: {reply:?}");
        assert!(
            String::from_utf8_lossy(&reply.body).contains("Session ID"),
            "{body}: {reply:?}"
        );
        assert_eq!(reply.header("mcp-session-id"), None, "{reply:?}");
    }
    // A forged session id is not one.
    let reply = server.request(
        "POST",
        "/mcp",
        &["Mcp-Session-Id: forged-0123456789".to_owned()],
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
    );
    assert_eq!(reply.status, 404, "{reply:?}");
    // The one session the server keeps is still free.
    server.still_serving();
}

#[test]
fn sessions_are_capped_at_64_and_an_ended_one_frees_its_place() {
    let server = Server::start(&[]);
    let sessions: Vec<String> = (0..64).map(|_| server.initialize()).collect();
    let reply = server.post(INITIALIZE);
    assert_eq!(reply.status, 503, "{reply:?}");
    assert_eq!(reply.error(), (-32000, json!(1)));
    assert!(reply.error_text().contains("DELETE"), "{reply:?}");
    // Open sessions still work.
    assert_eq!(server.tools_list(&sessions[0]).status, 200);
    assert_eq!(server.delete(Some(&sessions[0])).status, 200);
    server.still_serving();
}

#[test]
fn initializes_at_once_cannot_pass_the_session_cap_together() {
    let server = Server::start(&["--http-max-sessions", "3"]);
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAccept: application/json, text/event-stream\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{INITIALIZE}",
        server.port,
        INITIALIZE.len()
    );
    // Every request but its last byte first, then all the last bytes, so
    // that the server has them all to serve at the same moment.
    let (most, last) = request.as_bytes().split_at(request.len() - 1);
    let mut streams: Vec<TcpStream> = (0..40)
        .map(|_| {
            let mut stream = server.connect();
            stream.write_all(most).unwrap();
            stream
        })
        .collect();
    for stream in &mut streams {
        stream.write_all(last).unwrap();
    }
    let statuses: Vec<u16> = streams
        .iter_mut()
        .map(|stream| read_reply(stream).status)
        .collect();
    let opened = statuses.iter().filter(|&&status| status == 200).count();
    let refused = statuses.iter().filter(|&&status| status == 503).count();
    assert_eq!((opened, refused), (3, 37), "{statuses:?}");
}

#[test]
fn idle_sessions_expire_and_free_their_place() {
    let server = Server::start(&[
        "--http-session-idle-timeout",
        "1s",
        "--http-max-sessions",
        "1",
    ]);
    let session = server.initialize();
    assert_eq!(server.post(INITIALIZE).status, 503);
    // Asking for a new session does not touch the idle one: once it has
    // expired, its place is free.
    let start = Instant::now();
    let replacement = loop {
        thread::sleep(Duration::from_millis(250));
        let reply = server.post(INITIALIZE);
        if reply.status == 200 {
            break reply.header("mcp-session-id").unwrap().to_owned();
        }
        assert_eq!(reply.status, 503, "{reply:?}");
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the idle session still holds its place long after 1 s"
        );
    };
    assert_eq!(server.tools_list(&session).status, 404, "expired");
    assert_eq!(server.tools_list(&replacement).status, 200);
    assert_eq!(server.delete(Some(&replacement)).status, 200);
    server.still_serving();
}

#[test]
fn delete_ends_a_session_as_the_transport_specifies() {
    let server = Server::start(&[]);
    let session = server.initialize();
    let reply = server.delete(None);
    assert_eq!(reply.status, 400, "{reply:?}");
    assert!(reply.error_text().contains("Mcp-Session-Id"), "{reply:?}");
    let reply = server.delete(Some("forged-0123456789"));
    assert_eq!(reply.status, 404, "{reply:?}");
    assert_eq!(server.tools_list(&session).status, 200, "untouched");
    let reply = server.delete(Some(&session));
    assert_eq!(reply.status, 200, "{reply:?}");
    assert_eq!(server.delete(Some(&session)).status, 404, "already ended");
    assert_eq!(server.tools_list(&session).status, 404, "ended");
    server.still_serving();
}

#[test]
fn only_the_mcp_path_is_served() {
    let server = Server::start(&[]);
    for path in ["/mcp/x", "/mcp/", "/mcpx", "/", "/other"] {
        for method in ["POST", "GET", "DELETE"] {
            let reply = server.request(method, path, &[], INITIALIZE);
            assert_eq!(reply.status, 404, "{method} {path}: {reply:?}");
            assert!(reply.error_text().contains("/mcp"), "{reply:?}");
        }
    }
    let reply = server.request("POST", "/mcp?client=raw", &[], INITIALIZE);
    assert_eq!(reply.status, 200, "a query string is fine: {reply:?}");
    server.still_serving();
}

#[test]
fn origins_and_hosts_must_be_well_formed_and_loopback() {
    let server = Server::start(&[]);
    let port = server.port;
    for origin in [
        "http://127.0.0.1:abc",
        "http://127.0.0.1:99999",
        "http://127.0.0.1:0",
        "http://localhost:3000/path",
        "http://user@localhost",
        "null",
        "localhost",
        "http://evil.example",
        "http://localhost.evil.example:80",
    ] {
        let reply = server.request("POST", "/mcp", &[format!("Origin: {origin}")], INITIALIZE);
        assert_eq!(reply.status, 403, "Origin {origin}: {reply:?}");
        assert!(reply.error_text().contains("Origin"), "{reply:?}");
    }
    for host in [
        "evil.example".to_owned(),
        format!("evil.example:{port}"),
        "127.0.0.1:abc".to_owned(),
        format!("localhost:{}", if port == 1 { 2 } else { port - 1 }),
    ] {
        let head = format!(
            "POST /mcp HTTP/1.1\r\nHost: {host}\r\nAccept: application/json, text/event-stream\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n",
            INITIALIZE.len()
        );
        let reply = server.raw(&head, INITIALIZE.as_bytes());
        assert_eq!(reply.status, 403, "Host {host}: {reply:?}");
    }
    for origin in [
        "http://localhost:3000".to_owned(),
        "http://localhost".to_owned(),
        "https://127.0.0.1".to_owned(),
        format!("http://127.0.0.1:{port}"),
        "http://[::1]:8080".to_owned(),
    ] {
        let reply = server.request("POST", "/mcp", &[format!("Origin: {origin}")], INITIALIZE);
        assert_eq!(reply.status, 200, "Origin {origin}: {reply:?}");
    }
    server.still_serving();
}

#[test]
fn a_request_with_two_hosts_or_two_origins_gets_400() {
    let server = Server::start(&[]);
    let good_host = format!("127.0.0.1:{}", server.port);
    let good_origin = format!("http://127.0.0.1:{}", server.port);
    let pairs = |good: &str, bad: &str| {
        [
            [good.to_owned(), bad.to_owned()],
            [bad.to_owned(), good.to_owned()],
            [good.to_owned(), good.to_owned()],
        ]
    };
    for (name, values) in [
        ("Host", pairs(&good_host, "evil.example")),
        ("Origin", pairs(&good_origin, "http://evil.example")),
    ] {
        for [first, second] in values {
            // Raw, so that the headers go out exactly as written.
            let other = if name == "Host" {
                String::new()
            } else {
                format!("Host: {good_host}\r\n")
            };
            let head = format!(
                "POST /mcp HTTP/1.1\r\n{other}{name}: {first}\r\n{name}: {second}\r\n\
                 Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n\
                 Content-Length: {}\r\nConnection: close\r\n",
                INITIALIZE.len()
            );
            let reply = server.raw(&head, INITIALIZE.as_bytes());
            assert_eq!(reply.status, 400, "{name}: {first}, {second}: {reply:?}");
            assert_eq!(reply.error(), (-32000, Value::Null), "{reply:?}");
            assert_eq!(
                reply.error_text(),
                format!("Bad Request: the request has 2 {name} headers; send exactly one")
            );
            assert_eq!(reply.header("mcp-session-id"), None, "no session opened");
        }
    }
    server.still_serving();
}
