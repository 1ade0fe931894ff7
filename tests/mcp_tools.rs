//! The MCP tool list (names, descriptions, annotations, input and output
//! schemas) as clients see it. A change here changes the server's contract.

use quire::fs::Workspace;
use quire::mcp::{QuireServer, Toolset};

#[test]
fn tools_list_is_stable() {
    let folder = tempfile::tempdir().unwrap();
    let server = QuireServer::new(Workspace::new(folder.path()).unwrap(), &Toolset::ALL);
    let tools = serde_json::to_value(server.tools()).unwrap();
    insta::with_settings!({ snapshot_path => "../snapshots", prepend_module_to_snapshot => false }, {
        insta::assert_json_snapshot!("mcp__tools_list", tools);
    });
}

#[test]
fn every_tool_declares_an_output_schema_and_annotations() {
    let folder = tempfile::tempdir().unwrap();
    let server = QuireServer::new(Workspace::new(folder.path()).unwrap(), &Toolset::ALL);
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
