//! The frontmatter fuzz targets' invariants (`tests/support/frontmatter_model.rs`)
//! on their checked-in seeds, crashes found by fuzzing included, and on every
//! key of every seed note set to values that need each kind of quoting, so
//! `cargo test` keeps what the fuzzers found fixed.

// The model declares its helpers `pub`; inside this private module they reach
// no further than this test crate.
#[allow(unreachable_pub)]
#[path = "support/frontmatter_model.rs"]
mod frontmatter_model;

use std::fs;
use std::path::{Path, PathBuf};

use frontmatter_model::{
    EditInput, Replaced, check_error, check_message, check_parse, check_replace,
    check_replace_scalar, check_replaced, check_set_scalar,
};
use quire_grammar::diagnostics::is_unprintable;
use quire_grammar::frontmatter::{Code, EditError, parse, replace_scalar};
use quire_grammar::span::Span;

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

#[test]
fn replace_scalar_seeds_hold_the_invariants() {
    let (mut replaced, mut not_replaceable) = (0, 0);
    for (path, bytes) in seeds("frontmatter_replace_scalar") {
        let input = EditInput::decode(&bytes);
        let key = input.key_in(&parse(&input.text));
        match check_replace(&input.text, &key, &input.value) {
            Ok(Replaced::Edited(_)) => replaced += 1,
            Ok(Replaced::Refused(error)) if error.code() == Code::NotReplaceable => {
                not_replaceable += 1;
            }
            Ok(Replaced::Refused(_)) => {}
            Err(failure) => panic!("{}: {failure}", path.display()),
        }
        for check in [check_replace_scalar, check_set_scalar] {
            if let Err(failure) = check(&bytes) {
                panic!("{}: {failure}", path.display());
            }
        }
        if let Err(failure) = check_parse(&input.text) {
            panic!("{}: {failure}", path.display());
        }
    }
    // The seeds reach both sides of the target.
    assert!(replaced >= 20, "{replaced} replaced");
    assert!(
        not_replaceable >= 8,
        "{not_replaceable} refused as not replaceable"
    );
    for (path, bytes) in seeds("frontmatter_set_scalar") {
        if let Err(failure) = check_replace_scalar(&bytes) {
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
                for check in [check_set_scalar, check_replace_scalar] {
                    if let Err(failure) = check(&input.encode()) {
                        panic!("{failure}");
                    }
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

#[test]
fn the_model_catches_unsound_errors() {
    let text = "---\na: [1,\n---\n";
    let error = parse(text).expect_err("an unclosed flow list");
    let check = |code, span, diagnostic: &_| check_error(text, &error, code, span, diagnostic);
    let diagnostic = error.to_diagnostic();
    check(error.code(), error.span(), &diagnostic).expect("the real error is sound");

    let outside = Span::new(text.len(), text.len() + 1);
    assert!(
        check(error.code(), outside, &diagnostic).is_err(),
        "span outside"
    );
    let mut moved = diagnostic.clone();
    moved.span = Span::new(0, 1);
    assert!(
        check(error.code(), error.span(), &moved).is_err(),
        "span lost"
    );
    let mut debug = diagnostic.clone();
    debug.help = "limits breached: Depth { depth: 65 }".into();
    assert!(
        check(error.code(), error.span(), &debug).is_err(),
        "Debug text"
    );
}

/// Hostile frontmatter: each is refused with the code given, or read; either
/// way `parse` and `set_scalar` hold the model's invariants on it, with LF
/// and with CRLF fences. (An alias bomb's expansion limit is
/// `frontmatter::yaml`'s unit test: in a debug build it takes seconds.)
#[test]
fn hostile_yaml_is_refused_in_words_or_read_soundly() {
    use quire_grammar::frontmatter::Code::{InvalidYaml, LimitExceeded, UnsupportedSyntax};

    let nested_block: String = (0..200)
        .map(|depth| format!("{}k:\n", " ".repeat(depth)))
        .collect();
    let nested_flow = format!("a: {}\n", "[".repeat(100_000));
    let nested_mappings = format!("a: {}\n", "{b: ".repeat(1_000));
    let alias_storm = format!("x: &x 1\na: [{}]\n", "*x,".repeat(120));
    let long_plain_key = format!("{}: v\n", "k".repeat(100_000));
    let long_quoted_key = format!("\"{}\": v\n", "k".repeat(100_000));
    let long_value = format!("a: {}\n", "v".repeat(100_000));
    let cases = [
        ("block nesting", nested_block.as_str(), Some(LimitExceeded)),
        ("flow nesting", &nested_flow, Some(LimitExceeded)),
        ("mapping nesting", &nested_mappings, Some(LimitExceeded)),
        ("aliases for one anchor", &alias_storm, Some(LimitExceeded)),
        (
            "aliases of aliases",
            "a: &a [1]\nb: &b [*a, *a]\nc: [*b, *b]\n",
            None,
        ),
        ("plain key of 100k", &long_plain_key, Some(InvalidYaml)),
        ("quoted key of 100k", &long_quoted_key, Some(InvalidYaml)),
        ("value of 100k", &long_value, None),
        (
            "lone CR in a value",
            "a: x\ry: z\n",
            Some(UnsupportedSyntax),
        ),
        ("lone CR in a key", "a\rb: x\n", Some(UnsupportedSyntax)),
        (
            "lone CR in a comment",
            "a: | # c\r\r x\n",
            Some(UnsupportedSyntax),
        ),
        ("CR CR LF", "a: x\r\r\nb: y\n", Some(UnsupportedSyntax)),
        ("CRLF in a quoted value", "a: 'x\r\n  y'\r\nb: 2\r\n", None),
        // Not line breaks in YAML 1.2: `b: y` is inside a plain scalar.
        ("NEL in a value", "a: x\u{85}b: y\n", Some(InvalidYaml)),
        (
            "line separator in a value",
            "a: x\u{2028}b: y\n",
            Some(InvalidYaml),
        ),
        ("NEL ending a value", "a: x\u{85}\nb: y\n", None),
        ("escaped ESC in a value", "a: \"\\e[2J\"\n", None),
        ("raw ESC in a value", "a: \u{1b}[31m\n", Some(InvalidYaml)),
        ("NUL in a value", "a: x\0y\n", Some(InvalidYaml)),
        (
            "BOM inside the YAML",
            "a: 1\n\u{feff}b: 2\n",
            Some(InvalidYaml),
        ),
        (
            "document start inside",
            "a: 1\n--- !x\nb: 2\n",
            Some(InvalidYaml),
        ),
        (
            "merge then override",
            "b: &b {x: 1}\na: {<<: *b, x: 2}\n",
            None,
        ),
    ];
    for (name, yaml, expected) in cases {
        for text in [
            format!("---\n{yaml}---\nbody\n"),
            format!("---\r\n{yaml}---\r\n"),
        ] {
            let error = parse(&text).err();
            assert_eq!(
                error.as_ref().map(|e| e.code()),
                expected,
                "{name}: {error:?}"
            );
            // The user's characters are never echoed raw.
            let message = error.map(|error| error.to_string()).unwrap_or_default();
            assert!(!message.chars().any(is_unprintable), "{name}: {message:?}");
            if let Err(failure) = check_parse(&text) {
                panic!("{name}: {failure}");
            }
            for selector in [0, 0x80] {
                let input = EditInput {
                    selector,
                    key: "absent".into(),
                    value: "Applied".into(),
                    text: text.clone(),
                };
                for check in [check_set_scalar, check_replace_scalar] {
                    if let Err(failure) = check(&input.encode()) {
                        panic!("{name}: {failure}");
                    }
                }
            }
        }
    }
}

#[test]
fn the_model_catches_bad_replacements() {
    // A replacement the model accepts, and the same text with one byte
    // dropped, a comment lost, a byte after the value changed, the value
    // moved below its key: the model must notice each, or the fuzz target
    // checks nothing.
    let text = "---\nstatus: !!str >- # board\n  Applied\n # after\nb: 2\n---\nBody\n";
    let document = parse(text).unwrap();
    let frontmatter = document.frontmatter.as_ref().unwrap();
    let check =
        |edited: &str| check_replaced(text, &document, frontmatter, "status", "Offer", edited);
    let edited = replace_scalar(text, "status", "Offer").unwrap();
    assert_eq!(
        edited,
        "---\nstatus: Offer # board\n # after\nb: 2\n---\nBody\n"
    );
    check(&edited).expect("the real replacement is sound");
    for (what, bad) in [
        ("a dropped byte", edited.replacen("# board", "# bard", 1)),
        ("a lost comment", edited.replacen(" # board", "", 1)),
        ("a lost comment line", edited.replacen(" # after\n", "", 1)),
        ("a changed body", edited.replacen("Body", "body", 1)),
        ("a changed byte after", edited.replacen("b: 2", "b:  2", 1)),
        (
            "a value below its key",
            edited.replacen(" Offer", "\n  Offer", 1),
        ),
        ("a tag kept", edited.replacen(" Offer", " !!str Offer", 1)),
        (
            "a single-quoted value",
            edited.replacen(" Offer", " 'Offer'", 1),
        ),
    ] {
        assert_ne!(bad, edited, "{what}");
        assert!(check(&bad).is_err(), "{what} went unnoticed: {bad:?}");
    }

    // A block's line that looks like a comment is content: left behind as
    // a comment line, it changes no value, yet the model notices.
    let text = "---\nstatus: !!str >- # board\n  # content\n # after\n---\n";
    let document = parse(text).unwrap();
    let frontmatter = document.frontmatter.as_ref().unwrap();
    let check =
        |edited: &str| check_replaced(text, &document, frontmatter, "status", "Offer", edited);
    let edited = replace_scalar(text, "status", "Offer").unwrap();
    assert_eq!(edited, "---\nstatus: Offer # board\n # after\n---\n");
    check(&edited).expect("the real replacement is sound");
    let left_behind = edited.replacen("# board\n", "# board\n  # content\n", 1);
    let values = |text: &str| parse(text).unwrap().frontmatter.unwrap().values;
    assert_eq!(values(&left_behind), values(&edited));
    assert!(
        check(&left_behind).is_err(),
        "content left behind went unnoticed"
    );
}

/// Long values over many lines are replaced (or refused) in linear time: a
/// quadratic scan of 20,000 lines would take minutes in a debug build.
#[test]
fn long_multiline_values_are_replaced_in_linear_time() {
    let lines = 20_000;
    let block = format!("status: >-\n{}b: 1\n", "  word\n".repeat(lines));
    let plain = format!("status: first\n{}b: 1\n", "  word\n".repeat(lines));
    let blank = format!("status:\n{}  Applied\n", "\n".repeat(lines));
    let comments = format!("status: !!str # c\n{}b: 1\n", "  # c\n".repeat(lines));
    let refused = format!("status: # c\n{}  Applied\n", "  # c\n".repeat(lines));
    for (name, yaml) in [
        ("block", &block),
        ("plain", &plain),
        ("blank lines", &blank),
        ("comments", &comments),
        ("refused", &refused),
    ] {
        let text = format!("---\n{yaml}---\n");
        let started = std::time::Instant::now();
        let result = replace_scalar(&text, "status", "Offer");
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "{name}: {:?}",
            started.elapsed()
        );
        match result {
            Ok(edited) => assert!(edited.starts_with("---\nstatus: Offer"), "{name}"),
            Err(EditError::NotReplaceable { .. }) => assert_eq!(name, "refused"),
            Err(error) => panic!("{name}: {error}"),
        }
    }
}
