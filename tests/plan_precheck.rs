//! `quire_grammar::plan::may_hold_sections` is conservative: when it says a text
//! cannot hold plan sections, the plan parse finds no constraints and no
//! tasks, for every syntax. Checked on random texts built from plan-ish
//! lines, and on every message of the commit corpus and every plan case.

use proptest::prelude::*;
use quire_grammar::plan::{ParserConfig, Preset, may_hold_sections, parse};
use serde::Deserialize;

const CORPUS: &str = include_str!("data/commit-messages.cocogitto.jsonl");

/// Whether the parse of `text` found constraints or tasks.
fn parse_finds_sections(text: &str, config: &ParserConfig) -> bool {
    let document = parse(text, config).document;
    document.constraints.is_some_and(|c| !c.is_empty())
        || document.tasks.is_some_and(|t| !t.is_empty())
}

/// Asserts the pre-check's promise on `text` under every preset; returns
/// how many presets the pre-check let the text through (`true`).
fn assert_conservative(text: &str) -> usize {
    let mut passed = 0;
    for preset in Preset::ALL {
        let config = preset.config();
        if may_hold_sections(text, &config) {
            passed += 1;
        } else {
            assert!(
                !parse_finds_sections(text, &config),
                "{}: the pre-check said no sections, the parse found some in {text:?}",
                preset.name()
            );
        }
    }
    passed
}

/// Lines a plan or a commit body may hold, in each syntax, well formed and
/// not: tasks, task-like lines, constraints, constraint-like lines,
/// headers, bullets, prose, trailers.
const LINES: &[&str] = &[
    "- [ ]: Add a parser",
    "- [x]: Done",
    "- [X]: Upper",
    "- [ ] Markdown task",
    "- [x] done",
    "- []: no mark",
    "- [ ]:",
    "[x]: no dash",
    "- task: Build (x)",
    "- task: Test ( )",
    "- Never: skip tests",
    "- Always: write docs",
    "- Key: Value",
    "- Never:",
    "> Never: rush",
    "> Note: x",
    "scope: core",
    "key:value",
    "title: Ship",
    "# Ship it",
    "feat(parser): Add tasks",
    "fix: typo",
    "-",
    "- ",
    "- a bullet",
    "* a star bullet",
    "Some prose.",
    "Signed-off-by: A <a@example.com>",
    "Refs: #12",
    "~~~ DONE ~~~",
    "",
    " ",
    "\t",
    "abc",
];

fn line() -> impl Strategy<Value = String> {
    (
        prop::sample::select(&["", " ", "  ", "    ", "\t", "\u{a0}", "      "][..]),
        prop::sample::select(LINES),
    )
        .prop_map(|(indent, line)| format!("{indent}{line}"))
}

fn text() -> impl Strategy<Value = String> {
    (
        prop::sample::select(
            &[
                "feat(parser): Add tasks",
                "fix: typo",
                "# Ship it",
                "title: Ship",
                "Update the docs",
                "",
            ][..],
        ),
        any::<bool>(),
        prop::collection::vec(line(), 0..12),
        prop::sample::select(&["\n", "\r\n"][..]),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(header, bom, lines, eol, blank_after_header, final_eol)| {
            let mut text = String::new();
            if bom {
                text.push('\u{feff}');
            }
            text.push_str(header);
            if blank_after_header {
                text.push_str(eol);
            }
            for line in lines {
                text.push_str(eol);
                text.push_str(&line);
            }
            if final_eol {
                text.push_str(eol);
            }
            text
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn no_sections_foreseen_means_none_found(text in text()) {
        assert_conservative(&text);
    }
}

#[derive(Deserialize)]
struct Row {
    message: String,
}

#[test]
fn the_commit_corpus_and_the_plan_cases_hold() {
    let mut messages = 0;
    let mut parsed = 0;
    for line in CORPUS.lines().filter(|line| !line.trim().is_empty()) {
        let row: Row = serde_json::from_str(line).unwrap();
        parsed += assert_conservative(&row.message);
        messages += 1;
    }
    assert_eq!(messages, 631);
    // Most real commit bodies hold no plan sections: the pre-check spares
    // most of their parses (under any preset).
    assert!(
        parsed < messages * Preset::ALL.len() / 10,
        "{parsed} of {} passed the pre-check",
        messages * Preset::ALL.len()
    );
    let cases = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus/plan"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "txt"));
    let mut read = 0;
    for path in cases {
        let bytes = std::fs::read(&path).unwrap();
        assert_conservative(&String::from_utf8_lossy(&bytes));
        read += 1;
    }
    assert!(read >= 48, "{read} plan cases");
}
