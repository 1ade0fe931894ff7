//! The nova tools through a real MCP client and server connected in memory
//! (`call_in_process`): the mock Task Manager's bookkeeping as the tools
//! show it, the results the requirements ask for (`success`, `data`,
//! `step_id`, `error`, `valid_statuses`), arguments that do not fit, and
//! how the environment chooses the client. The environment is read in a
//! child process (this test binary run again), never changed in this one:
//! tests run on threads that share it.

use std::process::Command;

use quire::fs::Workspace;
use quire::mcp::{CallOutcome, QuireServer, Toolset, call_in_process};
use quire::nova::{ClientConfig, NovaError};
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
        json!({"success": true, "status": "healthy", "client": "mock"})
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
