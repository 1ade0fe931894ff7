//! The Task Manager's HTTP client against a real HTTP server on 127.0.0.1:
//! what each call sends (method, raw request target, JSON body, headers),
//! and how timeouts, refused connections, error answers, retries,
//! answers of any shape, oversized answers, redirects and answers that
//! never end where a reader waits for a line's end come out.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use quire_nova::{
    ExecutionPatch, HttpClient, HttpConfig, MAX_ID_BYTES, NovaError, SUCCESS_BODY_LIMIT,
    StepCreate, StepPatch, StepStatus, TaskManagerClient,
};
use serde_json::{Value, json};

/// One request as the server read it.
#[derive(Clone, Debug)]
struct Seen {
    method: String,
    /// The request target exactly as it came on the wire.
    path: String,
    headers: Vec<(String, String)>,
    body: String,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|error| panic!("{self:?}: {error}"))
    }
}

/// What the server answers one request with.
#[derive(Clone, Debug)]
enum Answer {
    /// Status, Content-Type and body.
    Send(u16, &'static str, String),
    /// Read the request, then say nothing for 10 s.
    Stall,
    /// Read the request, wait this long, then send a 503.
    SlowBusy(Duration),
    /// A status and a text body that goes on (for 20 s, unless the client
    /// hangs up first), declaring this length when given.
    Endless(u16, Option<u64>),
    /// A redirect: its status and `Location`, if any.
    Redirect(u16, Option<String>),
    /// A status declaring a JSON body of 1000 bytes, the start of one, and
    /// then the connection closed.
    CutOff(u16),
    /// A status declaring a JSON body of 1000 bytes, the start of one, and
    /// then nothing for 10 s.
    StallMidBody(u16),
    /// An answer that never ends where a reader waits for a line to end,
    /// counting in the counter the bytes the client took before it hung
    /// up.
    Flood(Flood, Arc<AtomicU64>),
}

/// An answer whose start is followed by the same bytes for as long as the
/// client reads them (at most 20 s), so that a line never ends.
#[derive(Clone, Copy, Debug)]
enum Flood {
    /// A chunked body of this status whose first chunk-size line never
    /// ends (`fff...`).
    ChunkSize(u16),
    /// A chunked body of this status whose first chunk-size line, `1;`,
    /// goes on as a chunk extension that never ends.
    ChunkExtension(u16),
    /// A chunked body of this status, `{}`, whose trailer line never ends.
    ChunkTrailer(u16),
    /// Header lines without end, each a well-formed header of 1 KiB.
    HeaderLines,
    /// Header lines without end, each an obsolete line folding (` yyy`)
    /// continuing the header before it.
    FoldedHeaderLines,
    /// One header line that never ends.
    HeaderLine,
}

impl Flood {
    /// What is sent once, and what is then sent again and again.
    fn start_and_repeat(self) -> (String, Vec<u8>) {
        let chunked = |status: u16| {
            format!(
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            )
        };
        let line = |start: &str| format!("{start}{}\r\n", "y".repeat(1000)).repeat(64);
        match self {
            Flood::ChunkSize(status) => (chunked(status), vec![b'f'; 64 * 1024]),
            Flood::ChunkExtension(status) => (chunked(status) + "1;", vec![b'x'; 64 * 1024]),
            Flood::ChunkTrailer(status) => (
                chunked(status) + "2\r\n{}\r\n0\r\nX-Trailer: ",
                vec![b'y'; 64 * 1024],
            ),
            Flood::HeaderLines => ("HTTP/1.1 200 X\r\n".to_owned(), line("X-Filler: ").into()),
            Flood::FoldedHeaderLines => (
                "HTTP/1.1 200 X\r\nX-Filler: y\r\n".to_owned(),
                line(" ").into(),
            ),
            Flood::HeaderLine => (
                "HTTP/1.1 200 X\r\nX-Filler: ".to_owned(),
                vec![b'y'; 64 * 1024],
            ),
        }
    }
}

/// The most a flooding server may get the client to take before it hangs
/// up: what a bounded reader holds (tens of KiB) plus what the socket
/// buffers of both ends take in on loopback (a few MiB). A reader without
/// a bound takes all it is sent until the call's deadline: ureq 2, reading
/// a chunk-size line, took over 80 MB in 5 s.
const FLOOD_BOUND: u64 = 16 * 1024 * 1024;

/// The start of a created step's answer that never ends.
const CUT_BODY: &str = r#"{"step_id": "step-"#;

fn json_answer(status: u16, body: Value) -> Answer {
    Answer::Send(status, "application/json", body.to_string())
}

/// A server on 127.0.0.1 answering the requests it gets with `answers`, in
/// order (a 599 once they run out), recording each request. Every answer
/// closes its connection. Each connection is served on a thread of its
/// own.
fn server(answers: Vec<Answer>) -> (HttpConfig, Arc<Mutex<Vec<Seen>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let recorded = Arc::clone(&seen);
    let answers = Arc::new(Mutex::new(answers.into_iter()));
    thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else {
                return;
            };
            let recorded = Arc::clone(&recorded);
            let answers = Arc::clone(&answers);
            thread::spawn(move || serve(stream, &recorded, &answers));
        }
    });
    let config = HttpConfig {
        host: "127.0.0.1".to_owned(),
        port,
        timeout: Duration::from_secs(5),
    };
    (config, seen)
}

/// Reads one request from `stream`, records it, and answers it with the
/// next of `answers`.
fn serve(
    stream: TcpStream,
    recorded: &Mutex<Vec<Seen>>,
    answers: &Mutex<std::vec::IntoIter<Answer>>,
) {
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_owned();
    let path = parts.next().unwrap_or_default().to_owned();
    let mut headers = Vec::new();
    let mut length = 0;
    loop {
        line.clear();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        let (name, value) = line.trim_end().split_once(':').unwrap();
        let value = value.trim().to_owned();
        if name.eq_ignore_ascii_case("content-length") {
            length = value.parse().unwrap();
        }
        headers.push((name.to_owned(), value));
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap();
    recorded.lock().unwrap().push(Seen {
        method,
        path,
        headers,
        body: String::from_utf8(body).unwrap(),
    });
    let answer = answers.lock().unwrap().next();
    let (status, content_type, body) = match answer {
        Some(Answer::Send(status, content_type, body)) => (status, content_type, body),
        Some(Answer::Stall) => {
            thread::sleep(Duration::from_secs(10));
            return;
        }
        Some(Answer::SlowBusy(pause)) => {
            thread::sleep(pause);
            (503, "text/plain", "busy".to_owned())
        }
        Some(Answer::Endless(status, declared)) => {
            let length = declared
                .map(|length| format!("Content-Length: {length}\r\n"))
                .unwrap_or_default();
            let head = format!(
                "HTTP/1.1 {status} X\r\nContent-Type: text/plain\r\n{length}Connection: close\r\n\r\n"
            );
            let _ = writer.write_all(head.as_bytes());
            // 64 KiB a millisecond, for at most 20 s.
            let chunk = vec![b'y'; 64 * 1024];
            let until = Instant::now() + Duration::from_secs(20);
            while Instant::now() < until {
                if writer.write_all(&chunk).is_err() {
                    return;
                }
                thread::sleep(Duration::from_millis(1));
            }
            return;
        }
        Some(Answer::Redirect(status, location)) => {
            let location = location
                .map(|location| format!("Location: {location}\r\n"))
                .unwrap_or_default();
            let response = format!(
                "HTTP/1.1 {status} X\r\n{location}Content-Length: 0\r\nConnection: close\r\n\r\n"
            );
            let _ = writer.write_all(response.as_bytes());
            return;
        }
        Some(Answer::Flood(flood, sent)) => {
            let (start, repeat) = flood.start_and_repeat();
            if writer.write_all(start.as_bytes()).is_err() {
                return;
            }
            let until = Instant::now() + Duration::from_secs(20);
            while Instant::now() < until && writer.write_all(&repeat).is_ok() {
                sent.fetch_add(repeat.len() as u64, Ordering::Relaxed);
            }
            return;
        }
        Some(Answer::CutOff(status) | Answer::StallMidBody(status)) => {
            let response = format!(
                "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nConnection: close\r\n\r\n{CUT_BODY}"
            );
            let _ = writer.write_all(response.as_bytes());
            let _ = writer.flush();
            if matches!(answer, Some(Answer::StallMidBody(_))) {
                thread::sleep(Duration::from_secs(10));
            }
            return;
        }
        None => (599, "text/plain", "no answer left".to_owned()),
    };
    let response = format!(
        "HTTP/1.1 {status} X\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = writer.write_all(response.as_bytes());
}

fn client(config: &HttpConfig) -> HttpClient {
    HttpClient::new(config)
        .unwrap()
        .with_retry_pause(Duration::from_millis(10))
}

fn requests(seen: &Arc<Mutex<Vec<Seen>>>) -> Vec<Seen> {
    seen.lock().unwrap().clone()
}

fn step_json(id: &str, status: &str, message: Option<&str>) -> Value {
    json!({"id": id, "execution_id": "e-1", "step_name": "build", "status": status, "message": message, "created_at": "2026-11-26T10:00:00Z"})
}

fn session(session_id: &str) -> ExecutionPatch {
    ExecutionPatch {
        session_id: Some(session_id.to_owned()),
        worktree_path: None,
    }
}

fn completed() -> StepPatch {
    StepPatch {
        status: Some(StepStatus::Completed),
        message: None,
    }
}

#[test]
fn each_call_sends_its_method_path_json_body_and_headers() {
    let (config, seen) = server(vec![
        json_answer(
            200,
            json!({"id": "e-1", "session_id": "s-1", "worktree_path": null, "status": "running"}),
        ),
        json_answer(201, step_json("step-7", "running", None)),
        json_answer(200, step_json("step-8", "skipped", Some("not needed"))),
        json_answer(200, step_json("step-7", "completed", Some("done"))),
        json_answer(200, json!({"status": "ok", "version": "1.2"})),
        json_answer(200, json!({"id": "e 1/x"})),
    ]);
    let client = client(&config);
    assert_eq!(
        client.base_url(),
        format!("http://127.0.0.1:{}", config.port)
    );

    // Each answer is passed on whole, fields the document never named
    // included.
    let execution = client.update_execution("e-1", &session("s-1")).unwrap();
    assert_eq!(
        execution,
        json!({"id": "e-1", "session_id": "s-1", "worktree_path": null, "status": "running"})
    );
    let step = client
        .create_step("e-1", &StepCreate::new("build"))
        .unwrap();
    assert_eq!(step.step_id, "step-7");
    assert_eq!(step.data, step_json("step-7", "running", None));
    let skipped = StepCreate {
        message: Some("not needed".to_owned()),
        status: StepStatus::Skipped,
        ..StepCreate::new("lint")
    };
    let step = client.create_step("e-1", &skipped).unwrap();
    assert_eq!(step.data["message"], "not needed");
    let patch = StepPatch {
        status: Some(StepStatus::Completed),
        message: Some("done".to_owned()),
    };
    let step = client.update_step("e-1", "step-7", &patch).unwrap();
    assert_eq!(step, step_json("step-7", "completed", Some("done")));
    let health = client.health().unwrap();
    assert_eq!(health.status.as_deref(), Some("ok"));
    assert_eq!(health.data, json!({"status": "ok", "version": "1.2"}));
    // Ids are one path segment each, whatever they hold.
    client.update_execution("e 1/x", &session("s-2")).unwrap();

    let seen = requests(&seen);
    let calls: Vec<(&str, &str)> = seen
        .iter()
        .map(|request| (request.method.as_str(), request.path.as_str()))
        .collect();
    assert_eq!(
        calls,
        [
            ("PATCH", "/api/executions/e-1"),
            ("POST", "/api/executions/e-1/steps"),
            ("POST", "/api/executions/e-1/steps"),
            ("PATCH", "/api/executions/e-1/steps/step-7"),
            ("GET", "/api/health"),
            ("PATCH", "/api/executions/e%201%2Fx"),
        ]
    );
    // Fields left out are not sent (not even as null).
    assert_eq!(seen[0].json(), json!({"session_id": "s-1"}));
    assert_eq!(
        seen[1].json(),
        json!({"step_name": "build", "status": "running"})
    );
    assert_eq!(
        seen[2].json(),
        json!({"step_name": "lint", "message": "not needed", "status": "skipped"})
    );
    assert_eq!(
        seen[3].json(),
        json!({"status": "completed", "message": "done"})
    );
    assert_eq!(seen[4].body, "");
    for request in &seen {
        assert_eq!(
            request.header("accept"),
            Some("application/json"),
            "{request:?}"
        );
        assert_eq!(
            request.header("host"),
            Some(format!("127.0.0.1:{}", config.port).as_str())
        );
        if request.method == "GET" {
            assert_eq!(request.header("content-type"), None);
        } else {
            assert_eq!(
                request.header("content-type"),
                Some("application/json"),
                "{request:?}"
            );
        }
    }
}

#[test]
fn a_stalling_server_is_a_request_timeout_within_the_timeout_and_not_retried() {
    let (mut config, seen) = server(vec![Answer::Stall, Answer::Stall]);
    config.timeout = Duration::from_millis(500);
    let client = client(&config);
    let started = Instant::now();
    let error = client.update_execution("e-1", &session("s-1")).unwrap_err();
    let waited = started.elapsed();
    assert!(
        matches!(&error, NovaError::Timeout { base_url, timeout } if *base_url == client.base_url() && *timeout == config.timeout),
        "{error:?}"
    );
    assert!(error.to_string().starts_with("Request timeout"), "{error}");
    assert!(waited >= Duration::from_millis(450), "{waited:?}");
    assert!(waited < Duration::from_secs(2), "{waited:?}");
    assert_eq!(requests(&seen).len(), 1, "a timeout is not retried");

    let error = client
        .create_step("e-1", &StepCreate::new("build"))
        .unwrap_err();
    assert!(matches!(error, NovaError::Timeout { .. }), "{error:?}");
    assert_eq!(requests(&seen).len(), 2);
}

#[test]
fn a_refused_connection_names_the_base_url() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let config = HttpConfig {
        host: "127.0.0.1".to_owned(),
        port,
        timeout: Duration::from_secs(5),
    };
    let client = client(&config);
    let base_url = format!("http://127.0.0.1:{port}");
    let started = Instant::now();
    for error in [
        client.update_execution("e-1", &session("s-1")).unwrap_err(),
        client
            .create_step("e-1", &StepCreate::new("build"))
            .unwrap_err(),
        client
            .update_step("e-1", "step-1", &completed())
            .unwrap_err(),
        client.health().unwrap_err(),
    ] {
        match &error {
            NovaError::Unreachable {
                base_url: url,
                reason,
            } => {
                assert_eq!(url, &base_url);
                assert!(reason.to_lowercase().contains("refused"), "{reason}");
            }
            other => panic!("{other:?}"),
        }
        let message = error.to_string();
        assert!(
            message.starts_with(&format!(
                "the Task Manager could not be reached at {base_url}"
            )),
            "{message}"
        );
        assert!(message.contains("TASK_MANAGER_PORT"), "{message}");
    }
    // Three idempotent calls, each paused 10 + 20 ms between its tries.
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[test]
fn error_answers_carry_the_servers_error_or_the_start_of_a_body_that_is_not_json() {
    let (config, seen) = server(vec![
        json_answer(
            404,
            json!({"error": "execution e-9 not found", "error_code": "EXECUTION_NOT_FOUND"}),
        ),
        json_answer(500, json!({"error": "database is down"})),
        Answer::Send(400, "text/plain", "bad request: status".to_owned()),
        Answer::Send(
            422,
            "application/json",
            r#"{"detail": [{"msg": "field required"}]}"#.to_owned(),
        ),
        Answer::Send(409, "text/plain", String::new()),
        Answer::Send(
            502,
            "text/html",
            format!("<html>{}</html>", "x".repeat(500)),
        ),
        Answer::Endless(500, None),
    ]);
    let client = client(&config);

    let error = client.update_execution("e-9", &session("s-1")).unwrap_err();
    assert_eq!(
        error,
        NovaError::Server {
            status: 404,
            error: "execution e-9 not found".to_owned(),
            error_code: Some("EXECUTION_NOT_FOUND".to_owned()),
        }
    );
    assert_eq!(
        error.to_string(),
        "the Task Manager answered 404: execution e-9 not found (EXECUTION_NOT_FOUND)"
    );
    let error = client
        .update_step("e-1", "step-1", &completed())
        .unwrap_err();
    assert_eq!(
        error,
        NovaError::Server {
            status: 500,
            error: "database is down".to_owned(),
            error_code: None,
        }
    );
    let error = client
        .create_step("e-1", &StepCreate::new("build"))
        .unwrap_err();
    assert_eq!(
        error,
        NovaError::NotJsonError {
            status: 400,
            body: "bad request: status".to_owned(),
        }
    );
    // JSON that is not the API's error body is shown as text.
    let error = client
        .create_step("e-1", &StepCreate::new("build"))
        .unwrap_err();
    assert_eq!(
        error,
        NovaError::NotJsonError {
            status: 422,
            body: r#"{"detail": [{"msg": "field required"}]}"#.to_owned(),
        }
    );
    let error = client
        .create_step("e-1", &StepCreate::new("build"))
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "the Task Manager answered 409 without its JSON error body; it said: (no body)"
    );
    let error = client
        .create_step("e-1", &StepCreate::new("build"))
        .unwrap_err();
    match &error {
        NovaError::NotJsonError { status: 502, body } => {
            assert!(
                body.starts_with("<html>xxx") && body.ends_with("...") && body.len() == 303,
                "{body}"
            );
        }
        other => panic!("{other:?}"),
    }
    // An endless error body is read only as far as a message needs (read
    // whole, it would run into the timeout).
    let started = Instant::now();
    let error = client
        .create_step("e-1", &StepCreate::new("build"))
        .unwrap_err();
    assert_eq!(
        error,
        NovaError::NotJsonError {
            status: 500,
            body: format!("{}...", "y".repeat(300)),
        }
    );
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(requests(&seen).len(), 7, "none of these was retried");
}

#[test]
fn idempotent_calls_are_retried_twice_on_502_503_504_and_post_never() {
    let busy = || Answer::Send(503, "text/plain", "busy".to_owned());
    let (config, seen) = server(vec![
        // update_execution: 503, 502, then the answer.
        busy(),
        Answer::Send(502, "text/html", "<html>bad gateway</html>".to_owned()),
        json_answer(200, json!({"id": "e-1", "session_id": "s-1"})),
        // update_step: 503 three times: given up after two retries.
        busy(),
        busy(),
        json_answer(503, json!({"error": "still busy", "error_code": "BUSY"})),
        // health: 504, then the answer.
        Answer::Send(504, "text/plain", "gateway timeout".to_owned()),
        json_answer(200, json!({"status": "healthy"})),
        // create_step: 503 once, not retried.
        busy(),
        // update_step: a 500 is not retried.
        json_answer(500, json!({"error": "bug"})),
    ]);
    let client = client(&config);

    let execution = client.update_execution("e-1", &session("s-1")).unwrap();
    assert_eq!(execution["session_id"], "s-1");
    assert_eq!(requests(&seen).len(), 3);

    let error = client
        .update_step("e-1", "step-1", &completed())
        .unwrap_err();
    assert_eq!(
        error,
        NovaError::Server {
            status: 503,
            error: "still busy".to_owned(),
            error_code: Some("BUSY".to_owned()),
        }
    );
    assert_eq!(requests(&seen).len(), 6);

    assert_eq!(client.health().unwrap().status.as_deref(), Some("healthy"));
    assert_eq!(requests(&seen).len(), 8);

    let error = client
        .create_step("e-1", &StepCreate::new("build"))
        .unwrap_err();
    assert_eq!(
        error,
        NovaError::NotJsonError {
            status: 503,
            body: "busy".to_owned(),
        }
    );
    assert_eq!(requests(&seen).len(), 9, "a POST is sent once");

    let error = client
        .update_step("e-1", "step-1", &completed())
        .unwrap_err();
    assert!(
        matches!(error, NovaError::Server { status: 500, .. }),
        "{error:?}"
    );
    let seen = requests(&seen);
    assert_eq!(seen.len(), 10, "a 500 is not retried");
    // A retry sends the same request again.
    assert_eq!(seen[0].body, seen[2].body);
    assert_eq!(
        (seen[6].method.as_str(), seen[7].path.as_str()),
        ("GET", "/api/health")
    );
}

#[test]
fn retries_of_slow_failures_end_within_the_one_timeout() {
    // Each 503 takes 400 ms: the first try and one retry fit in the second
    // the call has; a third try would end after it, so it is cut there.
    let slow = || Answer::SlowBusy(Duration::from_millis(400));
    let (mut config, seen) = server(vec![slow(), slow(), slow(), slow()]);
    config.timeout = Duration::from_secs(1);
    let client = client(&config);
    let started = Instant::now();
    let error = client.health().unwrap_err();
    let waited = started.elapsed();
    assert!(matches!(error, NovaError::Timeout { .. }), "{error:?}");
    assert!(waited >= Duration::from_millis(950), "{waited:?}");
    assert!(waited < Duration::from_millis(1500), "{waited:?}");
    assert_eq!(requests(&seen).len(), 3);
}

/// The requirements define the requests, not the answers: a success
/// status is a success, and its body is passed on as it came, whatever its
/// shape. Only `create_step` looks into it, for the new step's id.
#[test]
fn any_success_answer_is_a_success_and_is_passed_on_as_it_came() {
    let (config, seen) = server(vec![
        // update_execution
        json_answer(200, json!({"ok": true, "session_id": "sess-9"})),
        json_answer(200, json!([{"id": "e-1"}])),
        Answer::Send(204, "text/plain", String::new()),
        Answer::Send(200, "text/plain", "Updated\n".to_owned()),
        Answer::Send(200, "application/json", "not json".to_owned()),
        // update_step
        json_answer(200, json!({"ok": true, "data": {"status": "completed"}})),
        Answer::Send(202, "application/json", "\"queued\"".to_owned()),
        // create_step
        json_answer(201, json!({"step_id": "step-42", "ok": true})),
        json_answer(200, json!({"ok": true, "data": {"id": "step-43"}})),
        json_answer(200, json!({"data": {"step_id": "step-44"}})),
        json_answer(201, json!({"id": 45, "step_name": "build"})),
        // health
        json_answer(200, json!({"healthy": true})),
        Answer::Send(200, "text/plain", "OK".to_owned()),
        json_answer(200, json!({"status": "degraded"})),
    ]);
    let client = client(&config);
    let mut answers = Vec::new();
    for _ in 0..5 {
        answers.push(client.update_execution("e-1", &session("sess-9")));
    }
    for _ in 0..2 {
        answers.push(client.update_step("e-1", "step-1", &completed()));
    }
    assert_eq!(
        answers,
        [
            Ok(json!({"ok": true, "session_id": "sess-9"})),
            Ok(json!([{"id": "e-1"}])),
            Ok(Value::Null),
            Ok(json!("Updated")),
            Ok(json!("not json")),
            Ok(json!({"ok": true, "data": {"status": "completed"}})),
            Ok(json!("queued")),
        ]
    );
    let mut ids = Vec::new();
    for _ in 0..4 {
        let step = client
            .create_step("e-1", &StepCreate::new("build"))
            .unwrap();
        ids.push(step.step_id);
    }
    assert_eq!(ids, ["step-42", "step-43", "step-44", "45"]);

    let health = client.health().unwrap();
    assert_eq!(
        (health.status, health.data),
        (None, json!({"healthy": true}))
    );
    let health = client.health().unwrap();
    assert_eq!((health.status, health.data), (None, json!("OK")));
    // The Task Manager's word is passed on, not judged.
    let health = client.health().unwrap();
    assert_eq!(health.status.as_deref(), Some("degraded"));
    assert_eq!(requests(&seen).len(), 14, "each answer was the first");
}

/// A created step whose answer gives no id: the step most likely exists,
/// so the error says so and that it must not be created again.
#[test]
fn a_created_step_without_an_id_in_its_answer_says_it_may_exist() {
    let (config, seen) = server(vec![
        json_answer(201, json!({"ok": true})),
        Answer::Send(201, "text/plain", String::new()),
        json_answer(200, json!({"id": "", "data": {"id": 1.5}})),
        Answer::Send(200, "text/plain", "Created".to_owned()),
    ]);
    let client = client(&config);
    let mut said = Vec::new();
    for _ in 0..4 {
        let error = client
            .create_step("e-1", &StepCreate::new("build"))
            .unwrap_err();
        assert!(!error.retryable());
        let message = error.to_string();
        assert!(
            message.contains("the step was most likely created")
                && message.contains("Do not create the step again"),
            "{message}"
        );
        match error {
            NovaError::NoStepId { answer, .. } => said.push(answer),
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(
        said,
        [
            r#"{"ok":true}"#,
            "(no body)",
            r#"{"id":"","data":{"id":1.5}}"#,
            "Created"
        ]
    );
    assert_eq!(requests(&seen).len(), 4, "a POST is never sent twice");
}

/// A created step whose success status came but whose answer broke off
/// (the connection dropped, or the rest did not come within the timeout):
/// the step most likely exists, so the error says so, is not retryable,
/// and the POST is not sent again.
#[test]
fn a_created_step_whose_answer_breaks_off_says_it_may_exist() {
    let (mut config, seen) = server(vec![Answer::CutOff(201), Answer::StallMidBody(201)]);
    config.timeout = Duration::from_millis(500);
    let client = client(&config);
    let mut reasons = Vec::new();
    for _ in 0..2 {
        let error = client
            .create_step("e-1", &StepCreate::new("build"))
            .unwrap_err();
        assert!(!error.retryable(), "{error:?}");
        let message = error.to_string();
        assert!(
            message.starts_with("the Task Manager answered 201 (success)")
                && message.contains("the step was most likely created")
                && message.contains("Do not create the step again"),
            "{message}"
        );
        match error {
            NovaError::StepAnswerLost {
                status: 201,
                reason,
            } => reasons.push(reason),
            other => panic!("{other:?}"),
        }
    }
    assert!(reasons[1].contains("0.5 s"), "{reasons:?}");
    assert_eq!(requests(&seen).len(), 2, "a POST is never sent twice");
}

#[test]
fn what_cannot_be_sent_is_refused_before_any_request() {
    let (config, seen) = server(vec![]);
    let client = client(&config);
    // An update that changes nothing is refused before any request.
    let error = client
        .update_step("e-1", "step-1", &StepPatch::default())
        .unwrap_err();
    assert_eq!(error, NovaError::NothingToUpdate);
    // So is one with a blank id, which would name another path.
    let error = client.update_execution("", &session("s-1")).unwrap_err();
    assert!(
        matches!(
            error,
            NovaError::MissingId {
                field: "execution_id",
                ..
            }
        ),
        "{error:?}"
    );
    let error = client
        .create_step(" ", &StepCreate::new("build"))
        .unwrap_err();
    assert!(
        matches!(
            error,
            NovaError::MissingId {
                field: "execution_id",
                ..
            }
        ),
        "{error:?}"
    );
    let error = client.update_step("e-1", "", &completed()).unwrap_err();
    assert!(
        matches!(
            error,
            NovaError::MissingId {
                field: "step_id",
                ..
            }
        ),
        "{error:?}"
    );
    // `.` and `..` would be resolved away (`/api/executions/../steps` is
    // `/api/steps`): refused before any request.
    for id in [".", ".."] {
        let error = client
            .create_step(id, &StepCreate::new("build"))
            .unwrap_err();
        assert!(
            matches!(&error, NovaError::DotId { field: "execution_id", id: given, .. } if given == id),
            "{error:?}"
        );
        let error = client.update_step("e-1", id, &completed()).unwrap_err();
        assert!(
            matches!(
                &error,
                NovaError::DotId {
                    field: "step_id",
                    ..
                }
            ),
            "{error:?}"
        );
    }
    let long = "x".repeat(MAX_ID_BYTES + 1);
    let error = client.update_step("e-1", &long, &completed()).unwrap_err();
    assert!(
        matches!(
            error,
            NovaError::LongId {
                field: "step_id",
                ..
            }
        ),
        "{error:?}"
    );
    assert_eq!(requests(&seen).len(), 0);
}

/// `id` as the request target must carry it: every byte outside RFC 3986's
/// unreserved set as `%XX`. Written here from the RFC, not from the code.
fn one_segment(id: &str) -> String {
    id.bytes()
        .map(|byte| match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(byte).to_string()
            }
            _ => format!("%{byte:02X}"),
        })
        .collect()
}

/// Ids that would leave their segment if any of their bytes were sent as
/// it is: backslashes (which the `url` crate reads as `/`), encoded dots
/// and slashes, query and fragment marks, blanks, parameters, NUL,
/// non-ASCII, and ids as long as they may be.
fn hostile_ids() -> Vec<String> {
    let mut ids: Vec<String> = [
        r"..\..\..\health",
        r"..\..\x",
        r".\.",
        r"\",
        r"a\b",
        r"\\host\share",
        "%2e%2e",
        "%2E%2E",
        ".%2e",
        "%2e",
        "%2F",
        "a%2Fb",
        "..%2F..%2Fhealth",
        "%",
        "%zz",
        "%00",
        "?",
        "a?b=c",
        "#",
        "a#b",
        " a",
        "a b",
        "a\tb",
        "a\r\nHost: evil",
        ";",
        "a;b=c",
        "\0",
        "a\0b",
        "/",
        "../x",
        "./",
        "...",
        ".a",
        "a.",
        "@evil",
        "a:b",
        "[::1]",
        "+&=,!$'()*",
        "\"<>{}|^`",
        "é",
        "日本語",
        "🙂",
        "\u{202e}gnp.exe",
        "-_.~",
    ]
    .iter()
    .map(|id| (*id).to_owned())
    .collect();
    ids.push("x".repeat(MAX_ID_BYTES));
    ids.push("\\".repeat(MAX_ID_BYTES));
    ids.push("é/".repeat(MAX_ID_BYTES / 3));
    ids
}

/// Each id travels as exactly one path segment of each call, whatever it
/// holds: the raw request target is the API's path with the id encoded
/// as RFC 3986 says, and nothing else reaches the server.
#[test]
fn hostile_ids_travel_as_exactly_one_path_segment() {
    let ids = hostile_ids();
    let ok = || json_answer(200, json!({"id": "x", "step_id": "x"}));
    let (config, seen) = server((0..ids.len() * 4).map(|_| ok()).collect());
    let client = client(&config);
    let mut expected = Vec::new();
    for id in &ids {
        client
            .update_execution(id, &session("s-1"))
            .unwrap_or_else(|error| panic!("{id:?}: {error}"));
        client
            .create_step(id, &StepCreate::new("build"))
            .unwrap_or_else(|error| panic!("{id:?}: {error}"));
        client
            .update_step(id, "step-1", &completed())
            .unwrap_or_else(|error| panic!("{id:?}: {error}"));
        client
            .update_step("e-1", id, &completed())
            .unwrap_or_else(|error| panic!("{id:?}: {error}"));
        let segment = one_segment(id);
        expected.extend([
            ("PATCH".to_owned(), format!("/api/executions/{segment}")),
            (
                "POST".to_owned(),
                format!("/api/executions/{segment}/steps"),
            ),
            (
                "PATCH".to_owned(),
                format!("/api/executions/{segment}/steps/step-1"),
            ),
            (
                "PATCH".to_owned(),
                format!("/api/executions/e-1/steps/{segment}"),
            ),
        ]);
    }
    let seen: Vec<(String, String)> = requests(&seen)
        .into_iter()
        .map(|seen| (seen.method, seen.path))
        .collect();
    assert_eq!(seen.len(), expected.len());
    for (seen, expected) in seen.iter().zip(&expected) {
        assert_eq!(seen, expected);
    }
    // And the segment decodes back to the id, byte for byte.
    for id in &ids {
        let target = format!("/api/executions/{}", one_segment(id));
        let segment = target.strip_prefix("/api/executions/").unwrap();
        assert!(!segment.contains(['/', '\\', '?', '#']), "{segment}");
        assert_eq!(percent_decoded(segment), id.as_bytes());
    }
}

fn percent_decoded(segment: &str) -> Vec<u8> {
    let bytes = segment.as_bytes();
    let mut decoded = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] == b'%' {
            let hex = std::str::from_utf8(&bytes[at + 1..at + 3]).unwrap();
            decoded.push(u8::from_str_radix(hex, 16).unwrap());
            at += 3;
        } else {
            decoded.push(bytes[at]);
            at += 1;
        }
    }
    decoded
}

/// `.` and `..` are the only ids still dot segments once encoded: refused
/// before any request, as execution and as step ids.
#[test]
fn dot_segment_ids_are_refused_before_any_request() {
    let (config, seen) = server(vec![]);
    let client = client(&config);
    for id in [".", ".."] {
        let error = client.update_execution(id, &session("s-1")).unwrap_err();
        assert!(
            matches!(&error, NovaError::DotId { field: "execution_id", id: given, .. } if given == id),
            "{error:?}"
        );
        let error = client.update_step("e-1", id, &completed()).unwrap_err();
        assert!(
            matches!(
                &error,
                NovaError::DotId {
                    field: "step_id",
                    ..
                }
            ),
            "{error:?}"
        );
    }
    assert_eq!(requests(&seen).len(), 0);
}

/// A success body is read up to SUCCESS_BODY_LIMIT and refused past it,
/// at once when its declared length is over, and as soon as the limit is
/// passed when it declares none; a body of exactly the limit is read.
#[test]
fn an_oversized_success_body_is_refused_without_being_held() {
    let exactly = format!("\"{}\"", "x".repeat(SUCCESS_BODY_LIMIT - 2));
    let over = format!("\"{}\"", "x".repeat(SUCCESS_BODY_LIMIT - 1));
    let (mut config, seen) = server(vec![
        Answer::Endless(200, Some(2 * 1024 * 1024 * 1024)),
        Answer::Endless(200, None),
        Answer::Endless(201, None),
        Answer::Send(200, "application/json", exactly.clone()),
        Answer::Send(200, "application/json", over),
        Answer::Endless(200, None),
    ]);
    config.timeout = Duration::from_secs(10);
    let client = client(&config);
    let started = Instant::now();
    let error = client.update_execution("e-1", &session("s-1")).unwrap_err();
    assert_eq!(
        error,
        NovaError::AnswerTooLarge {
            status: 200,
            declared: Some(2 * 1024 * 1024 * 1024),
            limit: SUCCESS_BODY_LIMIT,
        }
    );
    let message = error.to_string();
    assert!(
        message.starts_with(&format!(
            "the Task Manager answered 200 (success) with a body longer than the {SUCCESS_BODY_LIMIT} bytes (4 MiB, SUCCESS_BODY_LIMIT)"
        )) && message.contains("(it declared 2147483648 bytes)")
            && message.contains("do not repeat it"),
        "{message}"
    );
    assert!(!error.retryable());
    // No length declared: read until the limit is passed, then refused.
    let error = client
        .update_step("e-1", "step-1", &completed())
        .unwrap_err();
    assert_eq!(
        error,
        NovaError::AnswerTooLarge {
            status: 200,
            declared: None,
            limit: SUCCESS_BODY_LIMIT,
        }
    );
    let error = client
        .create_step("e-1", &StepCreate::new("build"))
        .unwrap_err();
    assert!(
        matches!(error, NovaError::AnswerTooLarge { status: 201, .. }),
        "{error:?}"
    );
    // Read whole, an endless body would have run into the 10 s timeout.
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(
        client.update_execution("e-1", &session("s-1")).unwrap(),
        Value::String(exactly[1..exactly.len() - 1].to_owned())
    );
    let error = client.update_execution("e-1", &session("s-1")).unwrap_err();
    assert!(
        matches!(error, NovaError::AnswerTooLarge { declared: Some(length), .. } if length == SUCCESS_BODY_LIMIT as u64 + 1),
        "{error:?}"
    );
    let error = client.health().unwrap_err();
    assert!(
        matches!(error, NovaError::AnswerTooLarge { .. }),
        "{error:?}"
    );
    assert_eq!(requests(&seen).len(), 6, "none of these was retried");
}

/// No redirect is followed, to another host or to the same one: the
/// request, body and all, is sent once, where TASK_MANAGER_HOST and
/// TASK_MANAGER_PORT say, and the error names where the redirect pointed.
#[test]
fn redirects_are_not_followed_and_say_where_they_pointed() {
    let (elsewhere, elsewhere_seen) = server(vec![
        json_answer(200, json!({"id": "e-1"})),
        json_answer(200, json!({"id": "e-1"})),
    ]);
    let away = format!("http://127.0.0.1:{}/api/executions/e-1", elsewhere.port);
    let (config, seen) = server(vec![
        Answer::Redirect(307, Some(away.clone())),
        Answer::Redirect(308, Some(away.clone())),
        Answer::Redirect(301, Some(away.clone())),
        Answer::Redirect(302, Some(away.clone())),
        Answer::Redirect(303, Some("/api/executions/other".to_owned())),
        Answer::Redirect(307, None),
        Answer::Redirect(307, Some(format!("http://x/{}", "y".repeat(1000)))),
    ]);
    let client = client(&config);
    let errors = [
        client
            .update_execution("e-1", &session("secret-session"))
            .unwrap_err(),
        client
            .create_step("e-1", &StepCreate::new("secret step"))
            .unwrap_err(),
        client
            .update_step("e-1", "step-1", &completed())
            .unwrap_err(),
        client.health().unwrap_err(),
        client.update_execution("e-1", &session("s-1")).unwrap_err(),
        client.update_execution("e-1", &session("s-1")).unwrap_err(),
        client.update_execution("e-1", &session("s-1")).unwrap_err(),
    ];
    let statuses_and_places: Vec<(u16, String)> = errors
        .iter()
        .map(|error| match error {
            NovaError::Redirected { status, location } => (*status, location.clone()),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        statuses_and_places,
        [
            (307, away.clone()),
            (308, away.clone()),
            (301, away.clone()),
            (302, away.clone()),
            (303, "/api/executions/other".to_owned()),
            (307, "(no Location header)".to_owned()),
            (307, format!("http://x/{}...", "y".repeat(291))),
        ]
    );
    let message = errors[0].to_string();
    assert!(
        message.starts_with(&format!(
            "the Task Manager answered 307, a redirect to {away}; redirects are not followed"
        )) && message.contains("TASK_MANAGER_HOST"),
        "{message}"
    );
    assert!(errors.iter().all(|error| !error.retryable()));
    assert_eq!(requests(&seen).len(), 7, "each sent once, none retried");
    assert!(
        requests(&elsewhere_seen).is_empty(),
        "nothing reached the redirect's target: {:?}",
        requests(&elsewhere_seen)
    );
}

/// A host that is not a host name or an IP address is refused when the
/// client is made, naming the variable, not sent somewhere else.
#[test]
fn a_client_for_a_host_that_is_not_one_is_refused() {
    for host in [r"127.0.0.1\", "h%2f", "tm/x", "tm:80", "user@tm", ""] {
        let config = HttpConfig {
            host: host.to_owned(),
            port: 8080,
            timeout: Duration::from_secs(1),
        };
        match HttpClient::new(&config) {
            Err(NovaError::Config {
                variable: "TASK_MANAGER_HOST",
                value,
                ..
            }) => assert_eq!(value, host),
            other => panic!("{host:?}: {other:?}"),
        }
    }
}

#[test]
fn an_id_is_one_path_segment_whatever_it_holds() {
    let (config, seen) = server(vec![
        json_answer(200, json!({"id": "a/../b?c#d%e f"})),
        json_answer(200, step_json("..x", "completed", None)),
    ]);
    let client = client(&config);
    client
        .update_execution("a/../b?c#d%e f", &session("s-1"))
        .unwrap();
    client.update_step("é/..", "..x", &completed()).unwrap();
    let paths: Vec<String> = requests(&seen).into_iter().map(|seen| seen.path).collect();
    assert_eq!(
        paths,
        [
            "/api/executions/a%2F..%2Fb%3Fc%23d%25e%20f",
            "/api/executions/%C3%A9%2F../steps/..x",
        ]
    );
}

/// A chunked answer whose chunk-size line never ends, or goes on as a
/// chunk extension that never ends, or whose trailer never ends, is
/// refused as soon as the line passes
/// what the client reads of one: the call fails at once, not at its
/// deadline, without being retried, and the client stops reading (an
/// unbounded reader held the line in memory until the deadline). On a
/// success of `create_step` the step most likely exists, so that is what
/// the error says.
#[test]
fn an_endless_chunk_size_line_or_extension_is_refused_at_once() {
    let floods = [
        Flood::ChunkSize(200),
        Flood::ChunkExtension(200),
        Flood::ChunkSize(500),
        Flood::ChunkExtension(503),
        Flood::ChunkTrailer(200),
        Flood::ChunkSize(201),
        Flood::ChunkExtension(201),
    ];
    let sent: Vec<Arc<AtomicU64>> = floods.iter().map(|_| Arc::default()).collect();
    let (mut config, seen) = server(
        floods
            .iter()
            .zip(&sent)
            .map(|(flood, sent)| Answer::Flood(*flood, Arc::clone(sent)))
            .collect(),
    );
    config.timeout = Duration::from_secs(5);
    let client = client(&config);
    let calls: [&dyn Fn() -> NovaError; 7] = [
        &|| client.update_execution("e-1", &session("s-1")).unwrap_err(),
        &|| client.health().unwrap_err(),
        &|| {
            client
                .update_step("e-1", "step-1", &completed())
                .unwrap_err()
        },
        &|| client.update_execution("e-1", &session("s-1")).unwrap_err(),
        &|| client.health().unwrap_err(),
        &|| {
            client
                .create_step("e-1", &StepCreate::new("build"))
                .unwrap_err()
        },
        &|| {
            client
                .create_step("e-1", &StepCreate::new("build"))
                .unwrap_err()
        },
    ];
    for ((call, flood), sent) in calls.iter().zip(floods).zip(&sent) {
        let started = Instant::now();
        let error = call();
        let waited = started.elapsed();
        match (&error, flood) {
            (NovaError::InvalidResponse(said), Flood::ChunkSize(200 | 500))
            | (NovaError::InvalidResponse(said), Flood::ChunkExtension(200 | 503))
            | (NovaError::InvalidResponse(said), Flood::ChunkTrailer(200)) => {
                assert!(said.contains("chunked body"), "{flood:?}: {said}");
            }
            (
                NovaError::StepAnswerLost {
                    status: 201,
                    reason,
                },
                _,
            ) => {
                assert!(reason.contains("chunked body"), "{flood:?}: {reason}");
            }
            _ => panic!("{flood:?}: {error:?}"),
        }
        assert!(!error.retryable(), "{flood:?}: {error:?}");
        assert!(waited < Duration::from_secs(2), "{flood:?}: {waited:?}");
        // The server stops once the client has hung up.
        thread::sleep(Duration::from_millis(100));
        let sent = sent.load(Ordering::Relaxed);
        assert!(
            sent < FLOOD_BOUND,
            "{flood:?}: the client took {sent} bytes"
        );
    }
    assert_eq!(requests(&seen).len(), 7, "none of these was retried");
}

/// An answer whose headers never end (well-formed header lines, folded
/// continuation lines, or one line without end) is refused as soon as it
/// passes what the client reads of an answer's head: at once, with an
/// error that says so, and not retried.
#[test]
fn endless_header_lines_are_refused_at_once() {
    let floods = [
        Flood::HeaderLines,
        Flood::FoldedHeaderLines,
        Flood::HeaderLine,
    ];
    let sent: Vec<Arc<AtomicU64>> = floods.iter().map(|_| Arc::default()).collect();
    let (mut config, seen) = server(
        floods
            .iter()
            .zip(&sent)
            .map(|(flood, sent)| Answer::Flood(*flood, Arc::clone(sent)))
            .collect(),
    );
    config.timeout = Duration::from_secs(5);
    let client = client(&config);
    for (flood, sent) in floods.iter().zip(&sent) {
        let started = Instant::now();
        let error = client.update_execution("e-1", &session("s-1")).unwrap_err();
        let waited = started.elapsed();
        match &error {
            NovaError::InvalidResponse(said) => {
                assert!(said.contains("header"), "{flood:?}: {said}");
            }
            other => panic!("{flood:?}: {other:?}"),
        }
        assert!(!error.retryable(), "{flood:?}: {error:?}");
        assert!(waited < Duration::from_secs(2), "{flood:?}: {waited:?}");
        thread::sleep(Duration::from_millis(100));
        let sent = sent.load(Ordering::Relaxed);
        assert!(
            sent < FLOOD_BOUND,
            "{flood:?}: the client took {sent} bytes"
        );
    }
    assert_eq!(requests(&seen).len(), 3, "none of these was retried");
}
