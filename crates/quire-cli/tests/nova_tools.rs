//! The nova tools through a real MCP client and server connected in memory
//! (`call_in_process`): the mock Task Manager's bookkeeping as the tools
//! show it, the results the requirements ask for (`success`, `data`,
//! `step_id`, `error`, `valid_statuses`), arguments that do not fit, and
//! how the environment chooses the client; and, against a Task Manager
//! served from a thread here, what an agent sees of hostile ids, answers
//! of any shape, oversized answers, redirects and a host that is not one.
//! The environment is read in a
//! child process (this test binary run again), never changed in this one:
//! tests run on threads that share it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use quire_cli::mcp::{CallOutcome, QuireServer, Toolset, call_in_process};
use quire_fs::Workspace;
use quire_nova::{ClientConfig, NovaError};
use serde_json::{Value, json};

/// The variables `vars`, as `ClientConfig::from_env` reads them.
fn lookup(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + use<> {
    let vars: Vec<(String, String)> = vars
        .iter()
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect();
    move |name| {
        vars.iter()
            .find(|(variable, _)| variable == name)
            .map(|(_, value)| value.clone())
    }
}

/// A server offering only the nova tools, with the client `vars` choose.
fn server(vars: &[(&str, &str)]) -> QuireServer {
    let folder = tempfile::tempdir().unwrap();
    QuireServer::new(Workspace::new(folder.path()).unwrap(), &[Toolset::Nova])
        .with_nova_config(ClientConfig::from_env(lookup(vars)))
}

fn mock() -> QuireServer {
    server(&[("USE_MOCK_CLIENT", "true")])
}

fn call(server: &QuireServer, tool: &str, arguments: Value) -> CallOutcome {
    let Value::Object(arguments) = arguments else {
        panic!("arguments are an object");
    };
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(call_in_process(server.clone(), tool, arguments))
        .unwrap_or_else(|error| panic!("calling {tool} failed: {error}"))
}

/// A call's result, which must not be a tool error.
#[track_caller]
fn result(server: &QuireServer, tool: &str, arguments: Value) -> Value {
    let outcome = call(server, tool, arguments);
    assert!(!outcome.is_error, "{tool}: {}", outcome.value);
    outcome.value
}

#[test]
fn the_toolset_offers_the_four_tools_and_says_where_the_ids_come_from() {
    let server = mock();
    let mut names: Vec<String> = server
        .tools()
        .iter()
        .map(|tool| tool.name.to_string())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "create_step",
            "health_check",
            "update_execution_session",
            "update_step"
        ]
    );
    for tool in server.tools() {
        let description = tool.description.as_deref().unwrap_or_default();
        if tool.name != "health_check" {
            assert!(description.contains("NOVA_EXECUTION_ID"), "{}", tool.name);
        }
        if tool.name == "update_execution_session" {
            assert!(description.contains("skill tool"), "{description}");
        }
    }
    assert!("nova".parse::<Toolset>().unwrap() == Toolset::Nova);
    assert!(!Toolset::DEFAULT.contains(&Toolset::Nova));
    assert!(Toolset::ALL.contains(&Toolset::Nova));
}

#[test]
fn the_mock_keeps_the_session_and_the_steps_it_is_told() {
    let server = mock();
    let session = result(
        &server,
        "update_execution_session",
        json!({"execution_id": "e1", "session_id": "s1"}),
    );
    assert_eq!(
        session,
        json!({"success": true, "data": {"id": "e1", "session_id": "s1", "worktree_path": null}})
    );

    let first = result(
        &server,
        "create_step",
        json!({"execution_id": "e1", "step_name": "build"}),
    );
    assert_eq!(
        first,
        json!({"success": true, "step_id": "step-1", "data": {
            "id": "step-1", "execution_id": "e1", "step_name": "build", "status": "running", "message": null}})
    );
    let second = result(
        &server,
        "create_step",
        json!({"execution_id": "e1", "step_name": "test", "message": "cargo test", "status": "skipped"}),
    );
    assert_eq!(second["step_id"], "step-2");
    assert_eq!(second["data"]["status"], "skipped");
    assert_eq!(second["data"]["message"], "cargo test");

    // A message alone keeps the status; a status alone keeps the message.
    let message = result(
        &server,
        "update_step",
        json!({"execution_id": "e1", "step_id": "step-2", "message": "no tests"}),
    );
    assert_eq!(
        message["data"],
        json!({"id": "step-2", "execution_id": "e1", "step_name": "test", "status": "skipped", "message": "no tests"})
    );
    let status = result(
        &server,
        "update_step",
        json!({"execution_id": "e1", "step_id": "step-2", "status": "completed"}),
    );
    assert_eq!(status["success"], true);
    assert_eq!(status["data"]["status"], "completed");
    assert_eq!(status["data"]["message"], "no tests");
    assert!(status.get("step_id").is_none(), "{status}");

    // A step of another execution is not this one's.
    let unknown = result(
        &server,
        "update_step",
        json!({"execution_id": "e2", "step_id": "step-1", "status": "failed"}),
    );
    assert_eq!(unknown["success"], false);
    assert_eq!(unknown["error_code"], "STEP_NOT_FOUND");
    assert!(
        unknown["error"]
            .as_str()
            .unwrap()
            .contains("step step-1 of execution e2 not found"),
        "{unknown}"
    );

    // Every HTTP session of one server shares the one mock.
    let later = result(
        &server.for_new_session(),
        "update_step",
        json!({"execution_id": "e1", "step_id": "step-1", "status": "failed"}),
    );
    assert_eq!(later["data"]["step_name"], "build");

    let health = result(&server, "health_check", json!({}));
    assert_eq!(
        health,
        json!({"success": true, "status": "healthy", "data": {"status": "healthy"}, "client": "mock"})
    );
}

#[test]
fn refusals_the_requirements_name_are_unsuccessful_results() {
    let server = mock();
    let valid = json!(["running", "completed", "failed", "skipped"]);
    for (tool, arguments) in [
        (
            "create_step",
            json!({"execution_id": "e1", "step_name": "build", "status": "done"}),
        ),
        (
            "create_step",
            json!({"execution_id": "e1", "step_name": "build", "status": "Running"}),
        ),
        (
            "update_step",
            json!({"execution_id": "e1", "step_id": "step-1", "status": ""}),
        ),
    ] {
        let refused = result(&server, tool, arguments.clone());
        assert_eq!(refused["success"], false, "{arguments}");
        assert_eq!(refused["valid_statuses"], valid, "{arguments}");
        assert!(
            refused["error"]
                .as_str()
                .unwrap()
                .contains("running, completed, failed, skipped"),
            "{refused}"
        );
        assert_eq!(refused["retryable"], false);
    }
    let nothing = result(
        &server,
        "update_step",
        json!({"execution_id": "e1", "step_id": "step-1"}),
    );
    assert_eq!(
        nothing,
        json!({"success": false,
            "error": "a step update needs at least one of status and message; neither was given",
            "retryable": false})
    );
    for (tool, arguments, field) in [
        (
            "update_execution_session",
            json!({"execution_id": " ", "session_id": "s1"}),
            "execution_id",
        ),
        (
            "create_step",
            json!({"execution_id": "", "step_name": "build"}),
            "execution_id",
        ),
        (
            "update_step",
            json!({"execution_id": "e1", "step_id": "\t", "message": "m"}),
            "step_id",
        ),
    ] {
        let refused = result(&server, tool, arguments);
        assert_eq!(refused["success"], false);
        assert!(
            refused["error"]
                .as_str()
                .unwrap()
                .starts_with(&format!("{field} is empty")),
            "{refused}"
        );
    }
    // Nothing refused was kept: the first step created is step-1.
    let created = result(
        &server,
        "create_step",
        json!({"execution_id": "e1", "step_name": "build"}),
    );
    assert_eq!(created["step_id"], "step-1");
}

#[test]
fn arguments_that_do_not_fit_are_validation_errors() {
    let server = mock();
    for (tool, arguments, says) in [
        (
            "update_execution_session",
            json!({"execution_id": "e1"}),
            "missing field `session_id`",
        ),
        (
            "create_step",
            json!({"execution_id": "e1", "step_name": 3}),
            "step_name: invalid type",
        ),
        (
            "update_step",
            json!({"execution_id": "e1", "step_id": "step-1", "state": "failed"}),
            "unknown field `state`",
        ),
        (
            "health_check",
            json!({"deep": true}),
            "unknown field `deep`",
        ),
    ] {
        let outcome = call(&server, tool, arguments.clone());
        assert!(outcome.is_error, "{tool} {arguments}: {}", outcome.value);
        assert_eq!(outcome.value["error"]["code"], "VALIDATION_ERROR");
        let message = outcome.value["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with(&format!("invalid arguments for {tool}: "))
                && message.contains(says),
            "{message}"
        );
    }
}

#[test]
fn a_variable_that_cannot_be_used_is_what_every_tool_answers() {
    let server = server(&[("USE_MOCK_CLIENT", "true"), ("TASK_MANAGER_TIMEOUT", "30s")]);
    for (tool, arguments) in [
        (
            "update_execution_session",
            json!({"execution_id": "e1", "session_id": "s1"}),
        ),
        (
            "create_step",
            json!({"execution_id": "e1", "step_name": "build"}),
        ),
        (
            "update_step",
            json!({"execution_id": "e1", "step_id": "step-1", "status": "failed"}),
        ),
        ("health_check", json!({})),
    ] {
        let refused = result(&server, tool, arguments);
        assert_eq!(refused["success"], false, "{tool}");
        assert!(
            refused["error"]
                .as_str()
                .unwrap()
                .starts_with("TASK_MANAGER_TIMEOUT is `30s`: a number of seconds"),
            "{tool}: {refused}"
        );
    }
    assert!(matches!(
        ClientConfig::from_env(lookup(&[("USE_MOCK_CLIENT", "yes")])),
        Err(NovaError::Config {
            variable: "USE_MOCK_CLIENT",
            ..
        })
    ));
}

#[test]
fn the_http_client_that_cannot_connect_says_where_it_looked() {
    // A port just freed: nothing listens there, so the connection is refused.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let port = port.to_string();
    let server = server(&[
        ("TASK_MANAGER_HOST", "127.0.0.1"),
        ("TASK_MANAGER_PORT", &port),
        ("TASK_MANAGER_TIMEOUT", "5"),
    ]);
    let health = result(&server, "health_check", json!({}));
    let base_url = format!("http://127.0.0.1:{port}");
    assert_eq!(health["success"], false, "{health}");
    assert_eq!(health["client"], "http");
    assert_eq!(health["host"], "127.0.0.1");
    assert_eq!(health["port"].to_string(), port);
    assert_eq!(health["base_url"], base_url.as_str());
    assert_eq!(health["retryable"], true);
    let error = health["error"].as_str().unwrap();
    assert!(
        error.contains(&format!("could not be reached at {base_url}")),
        "{error}"
    );
    let created = result(
        &server,
        "create_step",
        json!({"execution_id": "e1", "step_name": "build"}),
    );
    assert_eq!(created["success"], false);
    assert!(created.get("step_id").is_none(), "{created}");
}

/// What the Task Manager served from a thread answers one request with.
enum Reply {
    /// A status and a body (`Content-Type: application/json`).
    Body(u16, &'static str),
    /// A redirect to this `Location`.
    Redirect(u16, String),
    /// A 200 declaring a 2 GiB body and sending it until the client hangs
    /// up (or 20 s pass).
    Huge,
    /// A status declaring a body of 1000 bytes, the start of one, and then
    /// the connection closed.
    CutOff(u16),
}

/// The requests a Task Manager served from a thread saw: (method, request
/// target exactly as sent, body).
type Seen = Arc<Mutex<Vec<(String, String, String)>>>;

/// A Task Manager on 127.0.0.1, served from a thread: it answers the
/// requests it gets with `replies` in order (a 599 once they run out),
/// closing each connection, and records each request as (method, request
/// target exactly as sent, body). Returns its port, and what it saw.
fn task_manager(replies: Vec<Reply>) -> (u16, Seen) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let recorded = Arc::clone(&seen);
    std::thread::spawn(move || {
        let mut replies = replies.into_iter();
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let Ok(clone) = stream.try_clone() else {
                return;
            };
            let mut reader = BufReader::new(clone);
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                continue;
            }
            let mut parts = line.split_whitespace();
            let method = parts.next().unwrap_or_default().to_owned();
            let target = parts.next().unwrap_or_default().to_owned();
            let mut length = 0;
            loop {
                let mut header = String::new();
                if reader.read_line(&mut header).unwrap_or(0) == 0 || header == "\r\n" {
                    break;
                }
                if let Some((name, value)) = header.split_once(':')
                    && name.eq_ignore_ascii_case("content-length")
                {
                    length = value.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            recorded.lock().unwrap().push((
                method,
                target,
                String::from_utf8_lossy(&body).into_owned(),
            ));
            let head = |status: u16, extra: &str, length: usize| {
                format!(
                    "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\n{extra}Content-Length: {length}\r\nConnection: close\r\n\r\n"
                )
            };
            let _ = match replies.next() {
                Some(Reply::Body(status, body)) => {
                    stream.write_all(format!("{}{body}", head(status, "", body.len())).as_bytes())
                }
                Some(Reply::Redirect(status, location)) => stream
                    .write_all(head(status, &format!("Location: {location}\r\n"), 0).as_bytes()),
                Some(Reply::Huge) => {
                    let _ = stream.write_all(head(200, "", 2 << 30).as_bytes());
                    let chunk = vec![b'y'; 64 * 1024];
                    let until = Instant::now() + Duration::from_secs(20);
                    while Instant::now() < until && stream.write_all(&chunk).is_ok() {}
                    Ok(())
                }
                Some(Reply::CutOff(status)) => stream
                    .write_all(format!(r#"{}{{"step_id": "st"#, head(status, "", 1000)).as_bytes()),
                None => stream.write_all(format!("{}none", head(599, "", 4)).as_bytes()),
            };
        }
    });
    (port, seen)
}

/// A server whose tools ask the Task Manager on 127.0.0.1:`port`.
fn http_server(port: u16) -> QuireServer {
    server(&[
        ("TASK_MANAGER_HOST", "127.0.0.1"),
        ("TASK_MANAGER_PORT", &port.to_string()),
        ("TASK_MANAGER_TIMEOUT", "10"),
    ])
}

fn targets(seen: &Seen) -> Vec<String> {
    seen.lock()
        .unwrap()
        .iter()
        .map(|(method, target, _)| format!("{method} {target}"))
        .collect()
}

/// Item 1 of issue 23: each id reaches the Task Manager as exactly one
/// path segment (a backslash once turned `..\..\..\health` into
/// `PATCH /health`); `.` and `..` are refused without a request.
#[test]
fn hostile_ids_reach_the_task_manager_as_one_path_segment() {
    let ids = [
        r"..\..\..\health",
        r"..\..\x",
        r".\.",
        "%2e%2e",
        "%2F",
        "a?b#c",
        "a b;c",
        "é\0",
    ];
    let ok = || Reply::Body(200, r#"{"id": "x"}"#);
    let (port, seen) = task_manager((0..ids.len() * 2).map(|_| ok()).collect());
    let server = http_server(port);
    for id in ids {
        let session = result(
            &server,
            "update_execution_session",
            json!({"execution_id": id, "session_id": "s1"}),
        );
        assert_eq!(session["success"], true, "{id:?}: {session}");
        let updated = result(
            &server,
            "update_step",
            json!({"execution_id": "exec-1", "step_id": id, "status": "completed"}),
        );
        assert_eq!(updated["success"], true, "{id:?}: {updated}");
    }
    assert_eq!(
        targets(&seen),
        [
            r"PATCH /api/executions/..%5C..%5C..%5Chealth",
            r"PATCH /api/executions/exec-1/steps/..%5C..%5C..%5Chealth",
            r"PATCH /api/executions/..%5C..%5Cx",
            r"PATCH /api/executions/exec-1/steps/..%5C..%5Cx",
            r"PATCH /api/executions/.%5C.",
            r"PATCH /api/executions/exec-1/steps/.%5C.",
            "PATCH /api/executions/%252e%252e",
            "PATCH /api/executions/exec-1/steps/%252e%252e",
            "PATCH /api/executions/%252F",
            "PATCH /api/executions/exec-1/steps/%252F",
            "PATCH /api/executions/a%3Fb%23c",
            "PATCH /api/executions/exec-1/steps/a%3Fb%23c",
            "PATCH /api/executions/a%20b%3Bc",
            "PATCH /api/executions/exec-1/steps/a%20b%3Bc",
            "PATCH /api/executions/%C3%A9%00",
            "PATCH /api/executions/exec-1/steps/%C3%A9%00",
        ]
    );
    for id in [".", ".."] {
        let refused = result(
            &server,
            "create_step",
            json!({"execution_id": id, "step_name": "build"}),
        );
        assert_eq!(refused["success"], false, "{refused}");
        assert!(
            refused["error"]
                .as_str()
                .unwrap()
                .starts_with(&format!("execution_id `{id}` cannot be used")),
            "{refused}"
        );
    }
    assert_eq!(targets(&seen).len(), ids.len() * 2, "nothing more was sent");
}

/// Item 5 of issue 23: a success status is a success, and the answer is
/// passed to the agent as `data` whatever its shape; `create_step` finds
/// the step's id where Task Managers put it, and says so when there is
/// none (without inviting a second step).
#[test]
fn any_success_answer_reaches_the_agent_as_data() {
    let (port, seen) = task_manager(vec![
        Reply::Body(200, r#"{"ok": true, "session_id": "sess-9"}"#),
        Reply::Body(201, r#"{"step_id": "step-42", "ok": true}"#),
        Reply::Body(200, r#"{"ok": true}"#),
        Reply::Body(204, ""),
        Reply::Body(200, "Updated"),
        Reply::Body(201, r#"{"ok": true}"#),
        Reply::Body(200, r#"{"healthy": true}"#),
    ]);
    let server = http_server(port);
    let session = result(
        &server,
        "update_execution_session",
        json!({"execution_id": "exec-1", "session_id": "sess-9"}),
    );
    assert_eq!(
        session,
        json!({"success": true, "data": {"ok": true, "session_id": "sess-9"}})
    );
    let created = result(
        &server,
        "create_step",
        json!({"execution_id": "exec-1", "step_name": "build"}),
    );
    assert_eq!(
        created,
        json!({"success": true, "step_id": "step-42", "data": {"step_id": "step-42", "ok": true}})
    );
    let step = json!({"execution_id": "exec-1", "step_id": "step-42", "status": "completed"});
    assert_eq!(
        result(&server, "update_step", step.clone()),
        json!({"success": true, "data": {"ok": true}})
    );
    assert_eq!(
        result(&server, "update_step", step.clone()),
        json!({"success": true, "data": null})
    );
    assert_eq!(
        result(&server, "update_step", step),
        json!({"success": true, "data": "Updated"})
    );
    let unnamed = result(
        &server,
        "create_step",
        json!({"execution_id": "exec-1", "step_name": "lint"}),
    );
    assert_eq!(unnamed["success"], false, "{unnamed}");
    assert_eq!(unnamed["retryable"], false, "{unnamed}");
    assert!(unnamed.get("step_id").is_none(), "{unnamed}");
    let error = unnamed["error"].as_str().unwrap();
    assert!(
        error.contains("the step was most likely created")
            && error.contains(r#"it said: {"ok":true}"#)
            && error.contains("Do not create the step again"),
        "{error}"
    );
    let health = result(&server, "health_check", json!({}));
    assert_eq!(health["success"], true, "{health}");
    assert_eq!(health["data"], json!({"healthy": true}));
    assert!(health.get("status").is_none(), "{health}");
    assert_eq!(targets(&seen).len(), 7);
}

/// A step created (201) whose answer broke off: the agent is told the step
/// most likely exists and not to create it again, and the result is not
/// retryable (an agent retrying would create it twice).
#[test]
fn a_created_step_whose_answer_breaks_off_is_not_to_be_created_again() {
    let (port, seen) = task_manager(vec![Reply::CutOff(201)]);
    let server = http_server(port);
    let created = result(
        &server,
        "create_step",
        json!({"execution_id": "exec-1", "step_name": "build"}),
    );
    assert_eq!(created["success"], false, "{created}");
    assert_eq!(created["retryable"], false, "{created}");
    assert!(created.get("step_id").is_none(), "{created}");
    let error = created["error"].as_str().unwrap();
    assert!(
        error.contains("the step was most likely created")
            && error.contains("broke off")
            && error.contains("Do not create the step again"),
        "{error}"
    );
    assert_eq!(targets(&seen), ["POST /api/executions/exec-1/steps"]);
}

/// Items 2 and 3 of issue 23: a 2 GiB answer is refused at once with the
/// limit named, and a redirect is not followed (the request, session id
/// and all, goes nowhere else) but named.
#[test]
fn an_oversized_answer_and_a_redirect_are_errors_the_agent_can_read() {
    let (elsewhere, elsewhere_seen) = task_manager(vec![]);
    let away = format!("http://127.0.0.1:{elsewhere}/steal");
    let (port, seen) = task_manager(vec![
        Reply::Huge,
        Reply::Redirect(307, away.clone()),
        Reply::Redirect(302, away.clone()),
    ]);
    let server = http_server(port);
    let started = Instant::now();
    let huge = result(
        &server,
        "update_execution_session",
        json!({"execution_id": "exec-1", "session_id": "sess-1"}),
    );
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(huge["success"], false, "{huge}");
    assert_eq!(huge["retryable"], false, "{huge}");
    let error = huge["error"].as_str().unwrap();
    assert!(
        error.contains("with a body longer than the 4194304 bytes (4 MiB, SUCCESS_BODY_LIMIT)")
            && error.contains("(it declared 2147483648 bytes)"),
        "{error}"
    );
    for tool_and_arguments in [
        (
            "create_step",
            json!({"execution_id": "exec-1", "step_name": "secret step"}),
        ),
        (
            "update_execution_session",
            json!({"execution_id": "exec-1", "session_id": "secret-session"}),
        ),
    ] {
        let (tool, arguments) = tool_and_arguments;
        let redirected = result(&server, tool, arguments);
        assert_eq!(redirected["success"], false, "{redirected}");
        let error = redirected["error"].as_str().unwrap();
        assert!(
            error.contains(&format!("a redirect to {away}; redirects are not followed")),
            "{error}"
        );
    }
    assert_eq!(targets(&seen).len(), 3);
    assert!(elsewhere_seen.lock().unwrap().is_empty());
}

/// Item 4 of issue 23: `TASK_MANAGER_HOST` must be a host name or an IP
/// address; `127.0.0.1\` was taken, and the request went to port 80.
#[test]
fn a_host_that_is_not_one_is_what_every_tool_answers() {
    for host in [r"127.0.0.1\", "h%2f"] {
        let server = server(&[("TASK_MANAGER_HOST", host), ("TASK_MANAGER_PORT", "9")]);
        for (tool, arguments) in [
            ("health_check", json!({})),
            (
                "update_execution_session",
                json!({"execution_id": "e1", "session_id": "s1"}),
            ),
        ] {
            let refused = result(&server, tool, arguments);
            assert_eq!(refused["success"], false, "{refused}");
            let error = refused["error"].as_str().unwrap();
            assert!(
                error.starts_with(&format!("TASK_MANAGER_HOST is `{host}`: write a host name"))
                    && error.contains("IP address"),
                "{tool}: {error}"
            );
        }
    }
}

/// Set in the child this test binary starts: the test named by
/// `NOVA_TOOLS_CHILD` runs there against the environment it was given.
const CHILD: &str = "NOVA_TOOLS_CHILD";

/// What the child is to find: `mock`, `http`, or the start of the error.
const EXPECT: &str = "NOVA_TOOLS_EXPECT";

/// Runs `test` of this binary in a child process with `vars` set (and the
/// Task Manager variables not given cleared); true when it passed.
fn in_child(test: &str, vars: &[(&str, &str)]) -> bool {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command.args([test, "--exact", "--test-threads=1"]);
    for variable in [
        "USE_MOCK_CLIENT",
        "TASK_MANAGER_HOST",
        "TASK_MANAGER_PORT",
        "TASK_MANAGER_TIMEOUT",
    ] {
        command.env_remove(variable);
    }
    command.env(CHILD, test).envs(vars.iter().copied());
    let output = command.output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("1 passed") || stdout.contains("1 failed"),
        "{stdout}"
    );
    output.status.success()
}

/// In a child: the server made by `QuireServer::new` uses the client the
/// process environment chooses, and answers with its error when it cannot
/// be used (the server itself starts).
#[test]
fn child_reads_the_process_environment() {
    let Ok(expect) = std::env::var(EXPECT) else {
        return; // Not in a child: nothing to check here.
    };
    let folder = tempfile::tempdir().unwrap();
    let server = QuireServer::new(Workspace::new(folder.path()).unwrap(), &[Toolset::Nova]);
    let health = result(&server, "health_check", json!({}));
    match expect.as_str() {
        "mock" => {
            assert_eq!(health["client"], "mock", "{health}");
            let created = result(
                &server,
                "create_step",
                json!({"execution_id": "e1", "step_name": "build"}),
            );
            assert_eq!(created["step_id"], "step-1");
        }
        "http" => {
            assert_eq!(health["client"], "http", "{health}");
            assert_eq!(health["base_url"], "http://127.0.0.1:1", "{health}");
        }
        error => {
            assert_eq!(health["success"], false, "{health}");
            assert!(
                health["error"].as_str().unwrap().starts_with(error),
                "{health}"
            );
        }
    }
}

#[test]
fn the_process_environment_chooses_the_client() {
    if std::env::var_os(CHILD).is_some() {
        return;
    }
    let test = "child_reads_the_process_environment";
    assert!(in_child(
        test,
        &[("USE_MOCK_CLIENT", "true"), (EXPECT, "mock")]
    ));
    assert!(in_child(
        test,
        &[("USE_MOCK_CLIENT", "TRUE"), (EXPECT, "mock")]
    ));
    assert!(in_child(
        test,
        &[
            ("USE_MOCK_CLIENT", "false"),
            ("TASK_MANAGER_HOST", "127.0.0.1"),
            ("TASK_MANAGER_PORT", "1"),
            ("TASK_MANAGER_TIMEOUT", "2"),
            (EXPECT, "http")
        ]
    ));
    assert!(in_child(
        test,
        &[
            ("TASK_MANAGER_HOST", "127.0.0.1"),
            ("TASK_MANAGER_PORT", "1"),
            ("TASK_MANAGER_TIMEOUT", "2"),
            (EXPECT, "http")
        ]
    ));
    assert!(in_child(
        test,
        &[
            ("TASK_MANAGER_PORT", "0"),
            (EXPECT, "TASK_MANAGER_PORT is `0`")
        ]
    ));
    assert!(in_child(
        test,
        &[
            ("USE_MOCK_CLIENT", "yes"),
            (EXPECT, "USE_MOCK_CLIENT is `yes`")
        ]
    ));
    // The child fails when what it finds is not what it is told to expect,
    // so these checks can fail.
    assert!(!in_child(
        test,
        &[("USE_MOCK_CLIENT", "true"), (EXPECT, "http")]
    ));
}
