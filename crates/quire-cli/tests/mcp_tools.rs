//! The MCP tool list (names, descriptions, annotations, input and output
//! schemas) as clients see it. A change here changes the server's contract.

use quire_cli::mcp::{QuireServer, Toolset};
use quire_fs::Workspace;

#[test]
#[cfg_attr(
    not(feature = "nova"),
    ignore = "the snapshot is of a build with the nova tools"
)]
fn tools_list_is_stable() {
    let folder = tempfile::tempdir().unwrap();
    let server =
        QuireServer::new(Workspace::new(folder.path()).unwrap(), &Toolset::ALL).allowing_writes();
    let tools = serde_json::to_value(server.tools()).unwrap();
    insta::with_settings!({ snapshot_path => "../snapshots", prepend_module_to_snapshot => false }, {
        insta::assert_json_snapshot!("mcp__tools_list", tools);
    });
}

#[test]
fn write_tools_are_offered_only_when_allowed() {
    let folder = tempfile::tempdir().unwrap();
    let names = |server: &QuireServer| -> Vec<String> {
        server
            .tools()
            .iter()
            .map(|tool| tool.name.to_string())
            .collect()
    };
    let writes = ["create_note", "update_note", "delete_note"];
    let default = QuireServer::new(Workspace::new(folder.path()).unwrap(), &Toolset::ALL);
    assert!(
        names(&default)
            .iter()
            .all(|name| !writes.contains(&name.as_str()))
    );
    let allowed = default.clone().allowing_writes();
    for write in writes {
        assert!(names(&allowed).contains(&write.to_owned()), "{write}");
        assert!(QuireServer::is_write_tool(write));
    }
    // Without the kiln toolset, allowing writes offers nothing more.
    let tracker = QuireServer::new(Workspace::new(folder.path()).unwrap(), &[Toolset::Tracker]);
    assert_eq!(names(&tracker.clone().allowing_writes()), names(&tracker));
}

#[test]
fn every_tool_declares_an_output_schema_and_annotations() {
    let folder = tempfile::tempdir().unwrap();
    let server =
        QuireServer::new(Workspace::new(folder.path()).unwrap(), &Toolset::ALL).allowing_writes();
    for tool in server.tools() {
        assert!(
            tool.output_schema.is_some(),
            "{} has no output schema",
            tool.name
        );
        assert!(
            tool.annotations.is_some(),
            "{} has no annotations",
            tool.name
        );
        let input = serde_json::Value::Object((*tool.input_schema).clone());
        assert_eq!(
            input["additionalProperties"], false,
            "{} accepts unknown properties",
            tool.name
        );
    }
}

/// The instructions a client gets at `initialize` speak of the toolsets
/// served only: a tracker-only server must not send a client to
/// `gather_requirements`, which it does not offer.
#[test]
fn the_instructions_speak_of_the_toolsets_served_only() {
    use rmcp::ServerHandler;

    let folder = tempfile::tempdir().unwrap();
    let instructions = |toolsets: &[Toolset]| {
        QuireServer::new(Workspace::new(folder.path()).unwrap(), toolsets)
            .get_info()
            .instructions
            .unwrap_or_default()
    };
    let tracker = instructions(&[Toolset::Tracker]);
    assert!(tracker.contains("update_tracker_status"), "{tracker}");
    for word in ["gather_requirements", "planner", "plan"] {
        assert!(!tracker.contains(word), "{word}: {tracker}");
    }
    let planner = instructions(&[Toolset::Planner]);
    assert!(
        planner.contains("call gather_requirements first"),
        "{planner}"
    );
    assert!(!planner.contains("tracker"), "{planner}");
    let both = instructions(&Toolset::ALL);
    assert!(
        both.contains("update_tracker_status") && both.contains("call gather_requirements first"),
        "{both}"
    );
}
