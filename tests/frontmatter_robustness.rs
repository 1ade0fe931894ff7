//! The frontmatter fuzz targets' invariants (`tests/support/frontmatter_model.rs`)
//! on their checked-in seeds, crashes found by fuzzing included, and on every
//! key of every seed note set to values that need each kind of quoting, so
//! `cargo test` keeps what the fuzzers found fixed.

#[path = "support/frontmatter_model.rs"]
mod frontmatter_model;

use std::fs;
use std::path::{Path, PathBuf};

use frontmatter_model::{EditInput, check_message, check_parse, check_set_scalar};
use quire::frontmatter::parse;

fn seeds(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/seeds")
        .join(target);
    let mut seeds: Vec<(PathBuf, Vec<u8>)> = fs::read_dir(&folder)
        .unwrap_or_else(|error| panic!("{}: {error}", folder.display()))
        .map(|entry| {
            let path = entry.unwrap().path();
            let bytes = fs::read(&path).unwrap();
            (path, bytes)
        })
        .collect();
    seeds.sort();
    assert!(seeds.len() >= 10, "{target}: only {} seeds", seeds.len());
    seeds
}

#[test]
fn parse_seeds_hold_the_invariants() {
    for (path, bytes) in seeds("frontmatter_parse") {
        let text = String::from_utf8_lossy(&bytes);
        if let Err(failure) = check_parse(&text) {
            panic!("{}: {failure}", path.display());
        }
    }
}

#[test]
fn set_scalar_seeds_hold_the_invariants() {
    for (path, bytes) in seeds("frontmatter_set_scalar") {
        if let Err(failure) = check_set_scalar(&bytes) {
            panic!("{}: {failure}", path.display());
        }
        let text = EditInput::decode(&bytes).text;
        if let Err(failure) = check_parse(&text) {
            panic!("{}: {failure}", path.display());
        }
    }
}

/// Values that need each way of writing: plain, quoted, escaped.
const VALUES: &[&str] = &[
    "Applied",
    "Resume Written",
    "",
    " padded ",
    "a: b",
    "x # y",
    "it's",
    "say \"hi\"",
    "back\\slash",
    "12",
    "yes",
    "~",
    "- item",
    "[x]",
    "&a",
    "line\nbreak",
    "crlf\r\n",
    "nul\0 nel\u{85} ls\u{2028} bom\u{feff}",
    "Ünïcödé — 日本 🚀",
];

#[test]
fn every_key_of_every_seed_takes_every_kind_of_value() {
    let mut edits = 0;
    for (_, bytes) in seeds("frontmatter_parse") {
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let keys = match parse(&text) {
            Ok(document) => document.frontmatter.map_or(0, |f| f.entries.len()),
            Err(_) => 0,
        };
        for selector in 0..keys.max(1) {
            for value in VALUES {
                let input = EditInput {
                    selector: u8::try_from(selector).unwrap(),
                    key: "absent".into(),
                    value: (*value).into(),
                    text: text.clone(),
                };
                if let Err(failure) = check_set_scalar(&input.encode()) {
                    panic!("{failure}");
                }
                edits += 1;
            }
        }
    }
    assert!(edits > 1000, "{edits}");
}

#[test]
fn inputs_without_separators_edit_the_first_key() {
    let input = EditInput::decode(b"---\nstatus: Reviewed\n---\n");
    assert_eq!(input.text, "---\nstatus: Reviewed\n---\n");
    assert_eq!(input.value, "Applied");
    assert_eq!(input.key_in(&parse(&input.text)), "status");

    let bytes = EditInput {
        selector: 0x80,
        key: "missing".into(),
        value: "v\u{ff}".into(),
        text: "---\na: 1\n---\n".into(),
    }
    .encode();
    let decoded = EditInput::decode(&bytes);
    assert_eq!(decoded.key_in(&parse(&decoded.text)), "missing");
    assert_eq!(decoded.value, "v\u{ff}");
    check_set_scalar(&bytes).unwrap();
}

#[test]
fn the_message_check_catches_debug_text() {
    assert!(check_message("limits breached: Nodes { nodes: 250001 }").is_err());
    assert!(check_message("it is Depth { depth: 65 } deep").is_err());
    assert!(check_message("invalid u64 at line 2").is_err());
    assert!(check_message("").is_err());
    assert!(check_message("the key `Nodes { nodes: 1 }` appears twice").is_ok());
    assert!(
        check_message("the frontmatter nests lists and mappings more than 64 levels deep").is_ok()
    );
}

#[test]
fn the_model_catches_wrong_spans() {
    // A text the model accepts, and the same text with a span moved: the
    // model must notice, or the fuzz target checks nothing.
    let text = "---\nstatus: 'Reviewed' # c\nnext: 1\n---\n";
    check_parse(text).unwrap();
    let mut document = parse(text).unwrap();
    let frontmatter = document.frontmatter.as_mut().unwrap();
    let status = &mut frontmatter.entries[0];
    assert_eq!(&text[status.value.range()], "'Reviewed'");
    status.value.end -= 1;
    let check = frontmatter_model::check_document(text, &document);
    assert!(check.is_err(), "a cut value went unnoticed");
}
