//! The Task Manager's HTTP client against a real HTTP server on 127.0.0.1:
//! what each call sends (method, path, JSON body, headers), and how
//! timeouts, refused connections, error answers and retries come out.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use quire::nova::{
    ExecutionPatch, HttpClient, HttpConfig, NovaError, StepCreate, StepPatch, StepStatus,
    TaskManagerClient,
};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

/// One request as the server read it.
#[derive(Clone, Debug)]
struct Seen {
    method: String,
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
    /// hangs up first).
    Endless(u16),
}

fn json_answer(status: u16, body: Value) -> Answer {
    Answer::Send(status, "application/json", body.to_string())
}

/// A server on 127.0.0.1 answering the requests it gets with `answers`, in
/// order (a 599 once they run out), recording each request. Every answer
/// closes its connection.
async fn server(answers: Vec<Answer>) -> (HttpConfig, Arc<Mutex<Vec<Seen>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let recorded = Arc::clone(&seen);
    let answers = Arc::new(Mutex::new(answers.into_iter()));
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            let recorded = Arc::clone(&recorded);
            let answers = Arc::clone(&answers);
            tokio::spawn(async move {
                let (reader, mut writer) = stream.into_split();
                let mut reader = BufReader::new(reader);
                let mut line = String::new();
                if reader.read_line(&mut line).await.unwrap_or(0) == 0 {
                    return;
                }
                let mut parts = line.split_whitespace();
                let method = parts.next().unwrap_or_default().to_owned();
                let path = parts.next().unwrap_or_default().to_owned();
                let mut headers = Vec::new();
                let mut length = 0;
                loop {
                    line.clear();
                    if reader.read_line(&mut line).await.unwrap_or(0) == 0 || line == "\r\n" {
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
                reader.read_exact(&mut body).await.unwrap();
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
                        tokio::time::sleep(Duration::from_secs(10)).await;
                        return;
                    }
                    Some(Answer::SlowBusy(pause)) => {
                        tokio::time::sleep(pause).await;
                        (503, "text/plain", "busy".to_owned())
                    }
                    Some(Answer::Endless(status)) => {
                        let head = format!(
                            "HTTP/1.1 {status} X\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n"
                        );
                        let _ = writer.write_all(head.as_bytes()).await;
                        // 64 KiB a millisecond, for at most 20 s.
                        let chunk = vec![b'y'; 64 * 1024];
                        let until = Instant::now() + Duration::from_secs(20);
                        while Instant::now() < until {
                            if writer.write_all(&chunk).await.is_err() {
                                return;
                            }
                            tokio::time::sleep(Duration::from_millis(1)).await;
                        }
                        return;
                    }
                    None => (599, "text/plain", "no answer left".to_owned()),
                };
                let response = format!(
                    "HTTP/1.1 {status} X\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = writer.write_all(response.as_bytes()).await;
            });
        }
    });
    let config = HttpConfig {
        host: "127.0.0.1".to_owned(),
        port,
        timeout: Duration::from_secs(5),
    };
    (config, seen)
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

#[tokio::test]
async fn each_call_sends_its_method_path_json_body_and_headers() {
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
    ])
    .await;
    let client = client(&config);
    assert_eq!(
        client.base_url(),
        format!("http://127.0.0.1:{}", config.port)
    );

    let execution = client
        .update_execution("e-1", &session("s-1"))
        .await
        .unwrap();
    assert_eq!(
        (
            execution.id.as_str(),
            execution.session_id.as_deref(),
            execution.worktree_path
        ),
        ("e-1", Some("s-1"), None)
    );
    let step = client
        .create_step("e-1", &StepCreate::new("build"))
        .await
        .unwrap();
    assert_eq!(
        (step.id.as_str(), step.status),
        ("step-7", Some(StepStatus::Running))
    );
    let skipped = StepCreate {
        message: Some("not needed".to_owned()),
        status: StepStatus::Skipped,
        ..StepCreate::new("lint")
    };
    let step = client.create_step("e-1", &skipped).await.unwrap();
    assert_eq!(step.message.as_deref(), Some("not needed"));
    let patch = StepPatch {
        status: Some(StepStatus::Completed),
        message: Some("done".to_owned()),
    };
    let step = client.update_step("e-1", "step-7", &patch).await.unwrap();
    assert_eq!(
        (step.status, step.message.as_deref()),
        (Some(StepStatus::Completed), Some("done"))
    );
    assert_eq!(client.health().await.unwrap().status, "ok");
    // Ids are one path segment each, whatever they hold.
    client
        .update_execution("e 1/x", &session("s-2"))
        .await
        .unwrap();

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

#[tokio::test]
async fn a_stalling_server_is_a_request_timeout_within_the_timeout_and_not_retried() {
    let (mut config, seen) = server(vec![Answer::Stall, Answer::Stall]).await;
    config.timeout = Duration::from_millis(500);
    let client = client(&config);
    let started = Instant::now();
    let error = client
        .update_execution("e-1", &session("s-1"))
        .await
        .unwrap_err();
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
        .await
        .unwrap_err();
    assert!(matches!(error, NovaError::Timeout { .. }), "{error:?}");
    assert_eq!(requests(&seen).len(), 2);
}

#[tokio::test]
async fn a_refused_connection_names_the_base_url() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
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
        client
            .update_execution("e-1", &session("s-1"))
            .await
            .unwrap_err(),
        client
            .create_step("e-1", &StepCreate::new("build"))
            .await
            .unwrap_err(),
        client
            .update_step("e-1", "step-1", &completed())
            .await
            .unwrap_err(),
        client.health().await.unwrap_err(),
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

#[tokio::test]
async fn error_answers_carry_the_servers_error_or_the_start_of_a_body_that_is_not_json() {
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
        Answer::Endless(500),
    ])
    .await;
    let client = client(&config);

    let error = client
        .update_execution("e-9", &session("s-1"))
        .await
        .unwrap_err();
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
        .await
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
        .await
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
        .await
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
        .await
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "the Task Manager answered 409 without its JSON error body; it said: (no body)"
    );
    let error = client
        .create_step("e-1", &StepCreate::new("build"))
        .await
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
        .await
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

#[tokio::test]
async fn idempotent_calls_are_retried_twice_on_502_503_504_and_post_never() {
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
    ])
    .await;
    let client = client(&config);

    let execution = client
        .update_execution("e-1", &session("s-1"))
        .await
        .unwrap();
    assert_eq!(execution.session_id.as_deref(), Some("s-1"));
    assert_eq!(requests(&seen).len(), 3);

    let error = client
        .update_step("e-1", "step-1", &completed())
        .await
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

    assert_eq!(client.health().await.unwrap().status, "healthy");
    assert_eq!(requests(&seen).len(), 8);

    let error = client
        .create_step("e-1", &StepCreate::new("build"))
        .await
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
        .await
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

#[tokio::test]
async fn retries_of_slow_failures_end_within_the_one_timeout() {
    // Each 503 takes 400 ms: the first try and one retry fit in the second
    // the call has; a third try would end after it, so it is cut there.
    let slow = || Answer::SlowBusy(Duration::from_millis(400));
    let (mut config, seen) = server(vec![slow(), slow(), slow(), slow()]).await;
    config.timeout = Duration::from_secs(1);
    let client = client(&config);
    let started = Instant::now();
    let error = client.health().await.unwrap_err();
    let waited = started.elapsed();
    assert!(matches!(error, NovaError::Timeout { .. }), "{error:?}");
    assert!(waited >= Duration::from_millis(950), "{waited:?}");
    assert!(waited < Duration::from_millis(1500), "{waited:?}");
    assert_eq!(requests(&seen).len(), 3);
}

#[tokio::test]
async fn answers_the_api_does_not_describe_are_reported() {
    let (config, seen) = server(vec![
        Answer::Send(200, "application/json", "not json".to_owned()),
        json_answer(200, json!({"session_id": "s-1"})),
        Answer::Send(204, "text/plain", String::new()),
        // A created step whose id is a number, not the string described.
        json_answer(201, json!({"id": 7, "step_name": "build"})),
    ])
    .await;
    let client = client(&config);
    let error = client
        .update_execution("e-1", &session("s-1"))
        .await
        .unwrap_err();
    assert!(
        matches!(&error, NovaError::InvalidResponse(reason) if reason.contains("not the JSON the API describes") && reason.contains("not json")),
        "{error:?}"
    );
    let error = client
        .update_execution("e-1", &session("s-1"))
        .await
        .unwrap_err();
    assert!(
        matches!(&error, NovaError::InvalidResponse(reason) if reason.contains("missing field `id`")),
        "{error:?}"
    );
    let error = client.health().await.unwrap_err();
    assert!(
        matches!(&error, NovaError::InvalidResponse(reason) if reason.contains("204")),
        "{error:?}"
    );
    let error = client
        .create_step("e-1", &StepCreate::new("build"))
        .await
        .unwrap_err();
    assert!(
        matches!(&error, NovaError::InvalidResponse(reason) if reason.contains("may have been created")),
        "{error:?}"
    );
    assert_eq!(requests(&seen).len(), 4, "none of these was retried");

    // An update that changes nothing is refused before any request.
    let error = client
        .update_step("e-1", "step-1", &StepPatch::default())
        .await
        .unwrap_err();
    assert_eq!(error, NovaError::NothingToUpdate);
    // So is one with a blank id, which would name another path.
    let error = client
        .update_execution("", &session("s-1"))
        .await
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
    let error = client
        .create_step(" ", &StepCreate::new("build"))
        .await
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
    let error = client
        .update_step("e-1", "", &completed())
        .await
        .unwrap_err();
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
            .await
            .unwrap_err();
        assert!(
            matches!(&error, NovaError::DotId { field: "execution_id", id: given, .. } if given == id),
            "{error:?}"
        );
        let error = client
            .update_step("e-1", id, &completed())
            .await
            .unwrap_err();
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
    assert_eq!(requests(&seen).len(), 4);
}

#[tokio::test]
async fn an_id_is_one_path_segment_whatever_it_holds() {
    let (config, seen) = server(vec![
        json_answer(200, json!({"id": "a/../b?c#d%e f"})),
        json_answer(200, step_json("..x", "completed", None)),
    ])
    .await;
    let client = client(&config);
    client
        .update_execution("a/../b?c#d%e f", &session("s-1"))
        .await
        .unwrap();
    client
        .update_step("é/..", "..x", &completed())
        .await
        .unwrap();
    let paths: Vec<String> = requests(&seen).into_iter().map(|seen| seen.path).collect();
    assert_eq!(
        paths,
        [
            "/api/executions/a%2F..%2Fb%3Fc%23d%25e%20f",
            "/api/executions/%C3%A9%2F../steps/..x",
        ]
    );
}
