//! The kiln's approval model attacked over raw JSON-RPC on stdio (issue
//! 23): a token answers only the call, kiln, session and way of asking it
//! was issued for; a retry without the user's answer, or with an answer the
//! server cannot read, writes nothing; a client that can only open URLs is
//! never sent a form. What an ordinary client sees is tested through the
//! Python MCP client in `tests/e2e/test_kiln_approval.py`.

use std::fs;
use std::path::Path;

use serde_json::{Value, json};

#[path = "support/jsonrpc_replies.rs"]
mod jsonrpc_replies;
#[allow(dead_code)]
#[path = "support/stdio_server.rs"]
mod stdio_server;
use jsonrpc_replies::assert_initialized;
use stdio_server::{INITIALIZED, Server};

/// A vault and, beside it, a folder outside it with one note.
struct Vaults {
    _dir: tempfile::TempDir,
    root: std::path::PathBuf,
    outside: std::path::PathBuf,
}

fn vaults() -> Vaults {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let root = base.join("vault");
    let outside = base.join("elsewhere");
    fs::create_dir_all(&root).unwrap();
    fs::create_dir_all(&outside).unwrap();
    fs::write(root.join("Home.md"), "# Home\n").unwrap();
    fs::write(outside.join("Far.md"), "# Far\n").unwrap();
    Vaults {
        _dir: dir,
        root,
        outside,
    }
}

fn kiln_server(root: &Path) -> Server {
    Server::start(&["--tools", "kiln"], root, None)
}

/// A 2026-07-28 `tools/call` (no `initialize`): the protocol version and
/// the client's capabilities travel with the request.
fn modern_call(
    server: &mut Server,
    id: i64,
    tool: &str,
    arguments: Value,
    state: Option<&str>,
    responses: Option<Value>,
) -> Value {
    let mut params = json!({
        "name": tool,
        "arguments": arguments,
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
        },
    });
    if let Some(state) = state {
        params["requestState"] = json!(state);
    }
    if let Some(responses) = responses {
        params["inputResponses"] = responses;
    }
    server.send(
        &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}).to_string(),
    );
    let reply = server.reply();
    assert_eq!(reply["id"], id, "{reply}");
    reply["result"].clone()
}

/// The `requestState` of an input-required result that asks `key`.
fn asking(result: &Value, key: &str) -> String {
    assert!(
        result["inputRequests"].get(key).is_some(),
        "expected a question `{key}`: {result}"
    );
    result["requestState"]
        .as_str()
        .unwrap_or_else(|| panic!("no requestState: {result}"))
        .to_owned()
}

fn choose(key: &str, decision: &str) -> Value {
    json!({ key: {"action": "accept", "content": {"decision": decision}} })
}

fn tool_error(result: &Value) -> String {
    assert_eq!(result["isError"], true, "{result}");
    result["structuredContent"]["error"]["message"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn a_question_token_works_only_in_the_kiln_it_was_asked_about() {
    let vaults = vaults();
    let mut server = kiln_server(&vaults.root);
    let far = vaults.outside.join("new.md").to_string_lossy().into_owned();

    // The folder outside is allowed, then the write there is asked about.
    let asked = modern_call(
        &mut server,
        1,
        "create_note",
        json!({"path": far, "content": "x\n"}),
        None,
        None,
    );
    let folder_state = asking(&asked, "folder");
    let asked = modern_call(
        &mut server,
        2,
        "create_note",
        json!({"path": far, "content": "x\n"}),
        Some(&folder_state),
        Some(choose("folder", "allow")),
    );
    let write_state = asking(&asked, "approval");

    // The approval for `elsewhere/new.md`, brought back with the same
    // arguments relative to the root: refused, nothing written anywhere.
    let refused = modern_call(
        &mut server,
        3,
        "create_note",
        json!({"path": "new.md", "content": "x\n"}),
        Some(&write_state),
        Some(choose("approval", "once")),
    );
    let message = tool_error(&refused);
    assert!(message.contains("another folder"), "{message}");
    assert!(!vaults.root.join("new.md").exists());
    assert!(!vaults.outside.join("new.md").exists());

    // The other way: an approval for the root's `new.md`, brought back
    // for the outside folder's.
    let asked = modern_call(
        &mut server,
        4,
        "create_note",
        json!({"path": "new.md", "content": "x\n"}),
        None,
        None,
    );
    let root_state = asking(&asked, "approval");
    let refused = modern_call(
        &mut server,
        5,
        "create_note",
        json!({"path": far, "content": "x\n"}),
        Some(&root_state),
        Some(choose("approval", "once")),
    );
    assert!(tool_error(&refused).contains("another folder"), "{refused}");
    assert!(!vaults.root.join("new.md").exists());
    assert!(!vaults.outside.join("new.md").exists());

    // Asked and answered properly, the write happens where it was shown.
    let asked = modern_call(
        &mut server,
        6,
        "create_note",
        json!({"path": far, "content": "x\n"}),
        None,
        None,
    );
    let state = asking(&asked, "approval");
    let done = modern_call(
        &mut server,
        7,
        "create_note",
        json!({"path": far, "content": "x\n"}),
        Some(&state),
        Some(choose("approval", "once")),
    );
    assert_eq!(done["structuredContent"]["path"], far.as_str(), "{done}");
    assert!(vaults.outside.join("new.md").exists());
    assert!(!vaults.root.join("new.md").exists());
}

#[test]
fn a_retry_without_the_users_answer_writes_nothing() {
    let vaults = vaults();
    let mut server = kiln_server(&vaults.root);
    let arguments = json!({"path": "Home", "content": "overwritten\n"});
    let asked = modern_call(&mut server, 1, "update_note", arguments.clone(), None, None);
    let state = asking(&asked, "approval");
    // The requestState alone: a decline.
    let declined = modern_call(
        &mut server,
        2,
        "update_note",
        arguments.clone(),
        Some(&state),
        None,
    );
    assert_eq!(
        declined["structuredContent"]["declined"], true,
        "{declined}"
    );
    assert!(
        declined["structuredContent"]["reason"]
            .as_str()
            .unwrap()
            .contains("no answer from the user"),
        "{declined}"
    );
    // Responses to something else: a decline too.
    let asked = modern_call(&mut server, 3, "update_note", arguments.clone(), None, None);
    let state = asking(&asked, "approval");
    let declined = modern_call(
        &mut server,
        4,
        "update_note",
        arguments.clone(),
        Some(&state),
        Some(choose("other", "once")),
    );
    assert_eq!(
        declined["structuredContent"]["declined"], true,
        "{declined}"
    );
    // An answer that cannot be read: a decline.
    let asked = modern_call(&mut server, 5, "update_note", arguments.clone(), None, None);
    let state = asking(&asked, "approval");
    let declined = modern_call(
        &mut server,
        6,
        "update_note",
        arguments.clone(),
        Some(&state),
        Some(json!({"approval": {"action": "DECLINE"}})),
    );
    assert_eq!(
        declined["structuredContent"]["declined"], true,
        "{declined}"
    );
    assert_eq!(
        fs::read_to_string(vaults.root.join("Home.md")).unwrap(),
        "# Home\n"
    );
}

#[test]
fn a_question_token_is_not_a_confirmation_nor_the_reverse() {
    let vaults = vaults();
    let mut server = kiln_server(&vaults.root);
    let arguments = json!({"path": "Home", "content": "overwritten\n"});
    let asked = modern_call(&mut server, 1, "update_note", arguments.clone(), None, None);
    let state = asking(&asked, "approval");
    let mut confirmed = arguments.clone();
    confirmed["confirmation"] = json!(state);
    let refused = modern_call(&mut server, 2, "update_note", confirmed.clone(), None, None);
    assert!(
        tool_error(&refused).contains("not as `confirmation`"),
        "{refused}"
    );
    // Both at once: refused.
    let asked = modern_call(&mut server, 3, "update_note", arguments.clone(), None, None);
    let state = asking(&asked, "approval");
    let refused = modern_call(
        &mut server,
        4,
        "update_note",
        confirmed,
        Some(&state),
        Some(choose("approval", "once")),
    );
    assert!(tool_error(&refused).contains("both"), "{refused}");
    assert_eq!(
        fs::read_to_string(vaults.root.join("Home.md")).unwrap(),
        "# Home\n"
    );
}

/// A handshake-era session whose client declared `capabilities`.
fn session(root: &Path, capabilities: Value) -> Server {
    let mut server = kiln_server(root);
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": capabilities,
        "clientInfo": {"name": "raw-test", "version": "1"},
    }});
    server.send(&initialize.to_string());
    assert_initialized(&server.reply());
    server.send(INITIALIZED);
    server
}

fn call(server: &mut Server, id: i64, tool: &str, arguments: Value) {
    server.send(
        &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": tool, "arguments": arguments}})
        .to_string(),
    );
}

#[test]
fn a_client_that_opens_only_urls_is_never_sent_a_form() {
    let vaults = vaults();
    let mut server = session(&vaults.root, json!({"elicitation": {"url": {}}}));
    let far = vaults.outside.join("Far.md").to_string_lossy().into_owned();
    call(&mut server, 2, "read_note", json!({"path": far}));
    // The first line back is the answer, not a question.
    let reply = server.reply();
    assert_eq!(
        reply["id"], 2,
        "the server asked instead of answering: {reply}"
    );
    let message = tool_error(&reply["result"]);
    assert!(message.contains("cannot ask the user"), "{message}");
}

#[test]
fn an_answer_the_server_cannot_read_is_a_decline_not_a_token() {
    let vaults = vaults();
    let mut server = session(&vaults.root, json!({"elicitation": {"form": {}}}));
    call(
        &mut server,
        2,
        "create_note",
        json!({"path": "Declined", "content": "no\n"}),
    );
    let question = server.reply();
    assert_eq!(question["method"], "elicitation/create", "{question}");
    // The user declined, in words the protocol does not have.
    server.send(
        &json!({"jsonrpc": "2.0", "id": question["id"], "result": {"action": "DECLINE"}})
            .to_string(),
    );
    let reply = server.reply();
    assert_eq!(reply["id"], 2, "{reply}");
    let result = &reply["result"]["structuredContent"];
    assert_eq!(result["declined"], true, "{reply}");
    assert!(result.get("confirmation").is_none(), "{reply}");
    assert!(!vaults.root.join("Declined.md").exists());

    // An error instead of an answer: a decline as well.
    call(
        &mut server,
        3,
        "create_note",
        json!({"path": "Declined", "content": "no\n"}),
    );
    let question = server.reply();
    server.send(
        &json!({"jsonrpc": "2.0", "id": question["id"], "error": {"code": -32603, "message": "no user"}})
            .to_string(),
    );
    let reply = server.reply();
    assert_eq!(
        reply["result"]["structuredContent"]["declined"], true,
        "{reply}"
    );
    assert!(!vaults.root.join("Declined.md").exists());
}
