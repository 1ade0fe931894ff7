//! Frontmatter keeps its key order both ways (issue 11): `create_note` and
//! `update_note` write a JSON object's properties in the order its text
//! gives them, byte for byte, and `read_metadata`, `list_notes` and
//! `property_search` give a note's properties in the order its YAML writes
//! them. The properties are parsed from JSON text, as a tool call's
//! arguments are: a sorted map (serde_json without `preserve_order`) fails
//! every test here. (That the MCP layer's decoding keeps the order too is
//! tested beside it, in quire-cli's `mcp/kiln_types/args.rs`.)

use std::fs;
use std::path::Path;

use quire_fs::Workspace;
use quire_kiln::{
    CreateNoteRequest, KilnTools, ListNotesRequest, PropertySearchRequest, ReadMetadataRequest,
    UpdateNoteRequest,
};

fn tools(root: &Path) -> KilnTools {
    KilnTools::new(Workspace::new(root).unwrap())
}

/// A JSON object from its text.
fn object(json: &str) -> serde_json::Map<String, serde_json::Value> {
    serde_json::from_str(json).unwrap()
}

fn read_metadata(path: &str) -> ReadMetadataRequest {
    ReadMetadataRequest {
        path: path.to_owned(),
    }
}

fn keys(map: &serde_json::Map<String, serde_json::Value>) -> Vec<&str> {
    map.keys().map(String::as_str).collect()
}

#[test]
fn create_and_update_write_the_properties_in_the_order_given() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let tools = tools(root);

    let created = tools
        .create_note(&CreateNoteRequest {
            path: "Order".to_owned(),
            content: "Body\n".to_owned(),
            frontmatter: Some(object(r#"{"zeta": 1, "alpha": 2, "mid": ["b", "a"]}"#)),
        })
        .unwrap();
    assert_eq!(created.path, "Order.md");
    assert_eq!(
        fs::read_to_string(root.join("Order.md")).unwrap(),
        "---\nzeta: 1\nalpha: 2\nmid:\n  - b\n  - a\n---\nBody\n"
    );

    // A replacement in another unsorted order; the body is kept.
    tools
        .update_note(&UpdateNoteRequest {
            path: "Order.md".to_owned(),
            content: None,
            frontmatter: Some(object(
                r#"{"mid": {"z": true, "a": null}, "zeta": "last", "alpha": []}"#,
            )),
            set_properties: None,
            remove_properties: None,
            edit: None,
            expected_sha256: None,
        })
        .unwrap();
    assert_eq!(
        fs::read_to_string(root.join("Order.md")).unwrap(),
        "---\nmid: {\"z\": true, \"a\": null}\nzeta: last\nalpha: []\n---\nBody\n"
    );

    // Content and properties at once.
    tools
        .update_note(&UpdateNoteRequest {
            path: "Order".to_owned(),
            content: Some("New\n".to_owned()),
            frontmatter: Some(object(r#"{"c": 1, "b": 2, "a": 3}"#)),
            set_properties: None,
            remove_properties: None,
            edit: None,
            expected_sha256: None,
        })
        .unwrap();
    assert_eq!(
        fs::read_to_string(root.join("Order.md")).unwrap(),
        "---\nc: 1\nb: 2\na: 3\n---\nNew\n"
    );
}

#[test]
fn reads_give_the_properties_in_the_order_the_yaml_writes_them() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::write(
        root.join("Note.md"),
        "---\nzeta: 1\nalpha:\n  - x\nmid: {z: 1, a: 2}\nbeta: true\n---\nBody\n",
    )
    .unwrap();
    let tools = tools(root);
    let want = ["zeta", "alpha", "mid", "beta"];

    let metadata = tools.read_metadata(&read_metadata("Note")).unwrap();
    assert_eq!(keys(&metadata.frontmatter), want);
    // What a client reads: the JSON text, nested mappings in order too.
    let text = serde_json::to_string(&metadata.frontmatter).unwrap();
    assert_eq!(
        text,
        r#"{"zeta":1,"alpha":["x"],"mid":{"z":1,"a":2},"beta":true}"#
    );

    let listed = tools
        .list_notes(&ListNotesRequest {
            include_frontmatter: true,
            ..ListNotesRequest::default()
        })
        .unwrap();
    assert_eq!(keys(listed.notes[0].frontmatter.as_ref().unwrap()), want);

    let found = tools
        .property_search(&PropertySearchRequest::new(object(r#"{"beta": true}"#)))
        .unwrap();
    assert_eq!(keys(&found.notes[0].frontmatter), want);
}

#[test]
fn what_create_writes_reads_back_in_the_same_order() {
    let dir = tempfile::tempdir().unwrap();
    let tools = tools(dir.path());
    tools
        .create_note(&CreateNoteRequest {
            path: "Round".to_owned(),
            content: String::new(),
            frontmatter: Some(object(
                r#"{"status": "draft", "title": "T", "aliases": ["R"], "due": null}"#,
            )),
        })
        .unwrap();
    let metadata = tools.read_metadata(&read_metadata("Round")).unwrap();
    assert_eq!(
        keys(&metadata.frontmatter),
        ["status", "title", "aliases", "due"]
    );
}
