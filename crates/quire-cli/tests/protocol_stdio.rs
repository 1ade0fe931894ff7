//! `quire serve` over stdio, driven with raw bytes: JSON-RPC 2.0 error
//! replies for what cannot be served (with the request's `id` whenever it
//! can be read), the MCP lifecycle before `initialize`, and a prompt exit
//! when stdin or stdout closes while a call is stuck.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::Ordering;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

#[path = "support/jsonrpc_replies.rs"]
mod jsonrpc_replies;
#[path = "support/stdio_server.rs"]
mod stdio_server;
use stdio_server::{EXIT_DEADLINE, INITIALIZED, REPLY_TIMEOUT, Server};

/// A workspace with one tracker note.
fn workspace() -> tempfile::TempDir {
    let folder = tempfile::tempdir().unwrap();
    fs::create_dir(folder.path().join("trackers")).unwrap();
    fs::write(
        folder.path().join("trackers/acme.md"),
        "---\ncompany: Acme\nstatus: Resume Written\n---\n# Acme\n",
    )
    .unwrap();
    folder
}

fn tracker_server() -> (Server, tempfile::TempDir) {
    let root = workspace();
    let mut server = Server::start(&["--tools", "tracker"], root.path(), None);
    server.initialize();
    (server, root)
}

#[test]
fn a_parse_error_is_answered_with_32700_and_a_null_id() {
    let (mut server, _root) = tracker_server();
    for bad in [
        "{bad",
        r#"{"jsonrpc":"2.0","id":4,"method":"ping""#,
        r#"{"jsonrpc":"2.0","id":4,"method":"ping"} trailing"#,
    ] {
        server.send(bad);
        assert_eq!(server.error(), (-32700, Value::Null), "{bad}");
    }
    server.send_bytes(b"{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"\xff\"}\n");
    assert_eq!(server.error(), (-32700, Value::Null), "not UTF-8");
    server.still_serving(10);
}

#[test]
fn nesting_over_128_levels_is_a_parse_error() {
    let (mut server, _root) = tracker_server();
    let deep = |levels: usize| {
        format!(
            r#"{{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{{"name":"update_tracker_status","arguments":{{"x":{}{}}}}}}}"#,
            "[".repeat(levels),
            "]".repeat(levels)
        )
    };
    server.send(&deep(200));
    assert_eq!(server.error(), (-32700, Value::Null));
    server.send(&"[".repeat(100_000));
    assert_eq!(server.error(), (-32700, Value::Null));
    // Nesting within the limit is read: the tool itself refuses the
    // unknown argument, under the request's id.
    server.send(&deep(100));
    let reply = server.reply();
    assert_eq!(reply["id"], 5, "{reply}");
    assert_eq!(reply["result"]["isError"], true, "{reply}");
    server.still_serving(10);
}

#[test]
fn a_line_over_16_mib_is_skipped_and_answered_with_32700() {
    let (mut server, _root) = tracker_server();
    let padding = "x".repeat(16 * 1024 * 1024);
    server.send(&format!(
        r#"{{"jsonrpc":"2.0","id":6,"method":"ping","params":{{"_meta":{{"pad":"{padding}"}}}}}}"#
    ));
    let reply = server.reply();
    assert_eq!(reply["error"]["code"], -32700, "{reply}");
    assert_eq!(reply["id"], Value::Null, "{reply}");
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("16 MiB"),
        "{reply}"
    );
    server.still_serving(10);
}

#[test]
fn invalid_requests_are_answered_with_their_id() {
    let (mut server, _root) = tracker_server();
    let cases = [
        // params of the wrong JSON type
        (
            json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": [1]}),
            -32600,
            json!(7),
        ),
        (
            json!({"jsonrpc": "2.0", "id": "s-8", "method": "tools/call", "params": "x"}),
            -32600,
            json!("s-8"),
        ),
        (
            json!({"jsonrpc": "2.0", "id": 9, "method": "ping", "params": 3}),
            -32600,
            json!(9),
        ),
        // params of a known method that do not fit it
        (
            json!({"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": {"name": 5}}),
            -32602,
            json!(10),
        ),
        (
            json!({"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": {}}),
            -32602,
            json!(11),
        ),
        // not a JSON-RPC 2.0 request
        (
            json!({"jsonrpc": "1.0", "id": 12, "method": "ping"}),
            -32600,
            json!(12),
        ),
        (
            json!({"jsonrpc": "2.0", "id": 13, "method": 5}),
            -32600,
            json!(13),
        ),
        (
            json!({"jsonrpc": "2.0", "id": 13, "method": null}),
            -32600,
            json!(13),
        ),
        (json!({"jsonrpc": "2.0", "id": 14}), -32600, json!(14)),
        // no id that could be echoed
        (
            json!({"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}),
            -32600,
            Value::Null,
        ),
        (
            json!({"jsonrpc": "2.0", "id": null, "method": "ping"}),
            -32600,
            Value::Null,
        ),
        (
            json!({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}),
            -32600,
            Value::Null,
        ),
        (
            json!({"jsonrpc": "2.0", "id": true, "method": "ping"}),
            -32600,
            Value::Null,
        ),
        (
            json!({"jsonrpc": "2.0", "id": [15], "method": "ping"}),
            -32600,
            Value::Null,
        ),
        (json!([1, 2]), -32600, Value::Null),
        (json!([]), -32600, Value::Null),
        (json!("ping"), -32600, Value::Null),
    ];
    for (message, code, id) in cases {
        server.send(&message.to_string());
        assert_eq!(server.error(), (code, id), "{message}");
    }
    // A notification is never answered, even a bad one.
    server.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":7}"#);
    server.still_serving(20);
}

/// Tool arguments are a JSON object: positional (array) or scalar arguments
/// never reach a tool (serde would read an array as the request's fields in
/// order) and change nothing.
#[test]
fn tool_arguments_that_are_not_an_object_are_invalid_params() {
    let (mut server, root) = tracker_server();
    let before = fs::read_to_string(root.path().join("trackers/acme.md")).unwrap();
    for (id, arguments) in [
        json!(["trackers/acme.md", "Rejected"]),
        json!(["trackers/acme.md", "Offer", false, true]),
        json!("trackers/acme.md"),
        json!(true),
        json!(42),
    ]
    .into_iter()
    .enumerate()
    {
        let message = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "update_tracker_status", "arguments": arguments}});
        server.send(&message.to_string());
        assert_eq!(server.error(), (-32602, json!(id)), "{message}");
    }
    server.still_serving(20);
    let after = fs::read_to_string(root.path().join("trackers/acme.md")).unwrap();
    assert_eq!(after, before);
}

#[test]
fn a_message_that_arrives_in_pieces_is_read_whole() {
    let (mut server, _root) = tracker_server();
    let ping = br#"{"jsonrpc":"2.0","id":"slow","method":"ping"}"#;
    let (first, rest) = ping.split_at(20);
    server.send_bytes(first);
    server.no_reply_within(Duration::from_millis(200));
    server.send_bytes(rest);
    server.no_reply_within(Duration::from_millis(200));
    server.send_bytes(b"\r\n");
    assert_eq!(
        server.reply(),
        json!({"jsonrpc": "2.0", "id": "slow", "result": {}})
    );
    server.still_serving(10);
}

#[test]
fn a_notification_before_initialize_is_logged_and_the_server_goes_on() {
    let root = workspace();
    let mut server = Server::start(&["--tools", "tracker"], root.path(), None);
    server.send(INITIALIZED);
    server.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#);
    server.no_reply_within(Duration::from_millis(300));
    assert!(
        server.child.try_wait().unwrap().is_none(),
        "{}",
        server.stderr()
    );
    server.initialize();
    server.still_serving(10);
    assert!(
        server.stderr().contains(
            "ignored the notification `notifications/initialized` sent before `initialize`"
        ),
        "{}",
        server.stderr()
    );
}

#[test]
fn a_request_before_initialize_is_refused_with_its_id() {
    let root = workspace();
    let mut server = Server::start(&["--tools", "tracker"], root.path(), None);
    server.send(r#"{"jsonrpc":"2.0","id":"early","method":"tools/list"}"#);
    let reply = server.reply();
    assert_eq!(reply["id"], "early", "{reply}");
    assert_eq!(reply["error"]["code"], -32600, "{reply}");
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("initialize"),
        "{reply}"
    );
    // ping is allowed before initialize.
    server.send(r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#);
    assert_eq!(
        server.reply(),
        json!({"jsonrpc": "2.0", "id": 2, "result": {}})
    );
    server.initialize();
    server.still_serving(10);
}

#[test]
fn a_request_with_its_own_protocol_version_starts_the_session_without_initialize() {
    let root = workspace();
    let mut server = Server::start(&["--tools", "tracker"], root.path(), None);
    let stateless = |id: i64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        }}})
        .to_string()
    };
    server.send(&stateless(1));
    let reply = server.reply();
    assert_eq!(reply["id"], 1, "{reply}");
    assert!(reply["result"]["tools"].is_array(), "{reply}");
    // The session has started: a notification is rmcp's to handle now
    // (here a cancellation of a call that has ended), not dropped.
    server.send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#);
    server.send(&stateless(2));
    assert_eq!(server.reply()["id"], 2);
    assert!(
        !server.stderr().contains("ignored the notification"),
        "{}",
        server.stderr()
    );
}

#[test]
fn stdin_closing_ends_the_server_without_a_reply_lost() {
    let (mut server, _root) = tracker_server();
    server.send(r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#);
    server.close_stdin();
    assert_eq!(
        server.reply(),
        json!({"jsonrpc": "2.0", "id": 3, "result": {}})
    );
    assert_eq!(
        server.exit_within(EXIT_DEADLINE),
        Some(0),
        "{}",
        server.stderr()
    );
}

/// A `git` that never returns: it records its pid, then sleeps.
struct StuckGit {
    bin: tempfile::TempDir,
    pids: PathBuf,
}

impl StuckGit {
    fn new() -> StuckGit {
        let bin = tempfile::tempdir().unwrap();
        let pids = bin.path().join("pids");
        let script = bin.path().join("git");
        fs::write(
            &script,
            format!(
                "#!/bin/sh\necho $$ >> '{}'\nexec sleep 600\n",
                pids.display()
            ),
        )
        .unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
        }
        StuckGit { bin, pids }
    }

    /// PATH with this `git` first.
    fn path(&self) -> PathBuf {
        let mut paths = vec![self.bin.path().to_owned()];
        paths.extend(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        ));
        std::env::join_paths(paths).unwrap().into()
    }

    fn wait_until_running(&self) {
        let start = Instant::now();
        while !self.pids.exists() {
            assert!(start.elapsed() < REPLY_TIMEOUT, "the fake git never ran");
            thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for StuckGit {
    fn drop(&mut self) {
        for pid in fs::read_to_string(&self.pids).unwrap_or_default().lines() {
            let _ = Command::new("kill").arg(pid.trim()).status();
        }
    }
}

/// A server whose `gather_requirements` call (id 2) is stuck in `git`,
/// after showing that another call (id 3) still completes meanwhile.
fn server_with_a_stuck_call(git: &StuckGit, root: &Path) -> Server {
    let mut server = Server::start(&["--tools", "tracker,planner"], root, Some(&git.path()));
    server.initialize();
    server.send(
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"gather_requirements","arguments":{}}}"#,
    );
    git.wait_until_running();
    server.send(
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"update_tracker_status","arguments":{"tracker_path":"trackers/acme.md","target_status":"Applied","dry_run":true}}}"#,
    );
    let reply = server.reply();
    assert_eq!(reply["id"], 3, "the stuck call must not answer: {reply}");
    assert_eq!(
        reply["result"]["structuredContent"]["action"], "would_update",
        "{reply}"
    );
    server
}

#[cfg(unix)]
#[test]
fn the_server_exits_promptly_when_stdin_closes_with_a_call_stuck() {
    let git = StuckGit::new();
    let root = workspace();
    let mut server = server_with_a_stuck_call(&git, root.path());
    server.close_stdin();
    let code = server.exit_within(EXIT_DEADLINE);
    assert_eq!(
        code,
        Some(0),
        "still running {EXIT_DEADLINE:?} after stdin closed; stderr:\n{}",
        server.stderr()
    );
}

#[cfg(unix)]
#[test]
fn the_server_exits_promptly_when_stdout_closes_with_a_call_stuck() {
    let git = StuckGit::new();
    let root = workspace();
    let mut server = server_with_a_stuck_call(&git, root.path());
    // The reader closes stdout after the reply to this ping; stdin stays
    // open and nothing more is sent.
    server.close_stdout.store(true, Ordering::SeqCst);
    server.send(r#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#);
    assert_eq!(server.reply()["id"], 4);
    let code = server.exit_within(EXIT_DEADLINE);
    assert_eq!(
        code,
        Some(0),
        "still running {EXIT_DEADLINE:?} after stdout closed; stderr:\n{}",
        server.stderr()
    );
}
