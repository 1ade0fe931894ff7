//! Snapshot suite for the plan grammar.
//!
//! Every file in `tests/corpus/plan/` is parsed and checked; its snapshot in
//! `snapshots/plan__<file stem>.snap` holds
//!
//! 1. the outcome in the conformance JSON shape, the parser's diagnostics and
//!    the validator's findings (`outcome.check(text)` minus the parser's
//!    diagnostics), each as `Diagnostic::located` serializes;
//! 2. every diagnostic of `outcome.check(text)` rendered by miette.
//!
//! The file name chooses the parser configuration: a name in
//! [`CUSTOM_CONFIGS`] gets that configuration, a name starting `md-`,
//! `yaml-` or `strict-` gets that preset, anything else the default
//! (commit-message) preset.
//!
//! Some validator findings cannot come from text (the parser halts first, or
//! its line rules never produce the value). Documents for those are JSON files
//! in `tests/corpus/plan-json/`, deserialized and validated; their snapshots
//! are `snapshots/plan-json__<file stem>.snap`.
//!
//! Update the snapshots with `INSTA_UPDATE=always cargo test --test
//! plan_snapshots` (or `cargo insta test --test plan_snapshots --review`),
//! then read every changed snapshot.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::fs;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use quire_grammar::diagnostics::{DiagnosticCode, LineIndex, describe_character, is_unprintable};
use quire_grammar::plan::{
    Code, ParserConfig, PlanDiagnostic, PlanDocument, Preset, parse, validate,
};
use serde_json::{Value, json};

const TEXT_CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus/plan");
const JSON_CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus/plan-json");
const SNAPSHOTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots");

/// Corpus files that need a configuration no preset has: (file name, what
/// the configuration is, the configuration).
const CUSTOM_CONFIGS: &[(&str, &str, ParserConfig)] = &[
    (
        "32-invalid-config.txt",
        "commit-message with indent_size = 0 and max_task_count = 0",
        ParserConfig {
            indent_size: 0,
            max_task_count: 0,
            ..ParserConfig::COMMIT_MESSAGE
        },
    ),
    (
        // The parser accepts the title, the validator's 120-character limit
        // does not.
        "42-custom-title-over-validator-limit.txt",
        "commit-message with max_title_length = 200",
        ParserConfig {
            max_title_length: 200,
            ..ParserConfig::COMMIT_MESSAGE
        },
    ),
    (
        // The parser accepts depth 6, the validator's depth limit (4) does not.
        "43-custom-deep-nesting.txt",
        "commit-message with max_nesting_depth = 6",
        ParserConfig {
            max_nesting_depth: 6,
            ..ParserConfig::COMMIT_MESSAGE
        },
    ),
];

/// The configuration for a corpus file, and its name for the snapshot.
fn config_for(file_name: &str) -> (String, ParserConfig) {
    if let Some((_, description, config)) = CUSTOM_CONFIGS
        .iter()
        .find(|(name, _, _)| *name == file_name)
    {
        return ((*description).to_owned(), config.clone());
    }
    let preset = [
        ("md-", Preset::MarkdownTasks),
        ("yaml-", Preset::YamlLike),
        ("strict-", Preset::Strict),
    ]
    .into_iter()
    .find(|(prefix, _)| file_name.starts_with(prefix))
    .map_or(Preset::CommitMessage, |(_, preset)| preset);
    (preset.name().to_owned(), preset.config())
}

/// The files of a corpus directory with the given extension, sorted.
fn corpus_files(dir: &str, extension: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|error| panic!("cannot read {dir}: {error}"))
        .map(|entry| entry.expect("a readable directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == extension))
        .collect();
    files.sort();
    files
}

fn file_name(path: &Path) -> &str {
    path.file_name()
        .and_then(|n| n.to_str())
        .expect("UTF-8 file names")
}

fn file_stem(path: &Path) -> &str {
    path.file_stem()
        .and_then(|n| n.to_str())
        .expect("UTF-8 file names")
}

fn read_text(path: &Path) -> String {
    let bytes = fs::read(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    String::from_utf8(bytes).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// Renders one diagnostic the way the CLI does, without colors.
fn render(diagnostic: &PlanDiagnostic, name: &str, source: &str) -> String {
    let report = diagnostic.to_report(name, source);
    let handler =
        miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
            .with_width(100);
    let mut out = String::new();
    handler
        .render_report(&mut out, &report)
        .expect("rendering into a String cannot fail");
    out
}

/// Rendered reports escape every character that would steer a terminal
/// (`quire_grammar::diagnostics::escape_unprintable`), so snapshot files stay plain
/// text; a report that does not is a bug, not something to snapshot.
fn assert_printable(name: &str, report: &str) {
    let unprintable: Vec<String> = report
        .chars()
        .filter(|&c| is_unprintable(c))
        .map(describe_character)
        .collect();
    assert!(
        unprintable.is_empty(),
        "{name}: the rendered report holds {}",
        unprintable.join(", ")
    );
}

fn to_json_all(diagnostics: &[PlanDiagnostic], index: &LineIndex<'_>) -> Value {
    let located: Vec<_> = diagnostics.iter().map(|d| d.located(index)).collect();
    serde_json::to_value(located).expect("diagnostics serialize")
}

/// The snapshot text: pretty JSON, then every rendered diagnostic.
fn snapshot_text(json: &Value, rendered: &[String]) -> String {
    let mut text = serde_json::to_string_pretty(json).expect("JSON values serialize");
    text.push_str("\n\n");
    if rendered.is_empty() {
        text.push_str("(no diagnostics)\n");
    }
    for (index, report) in rendered.iter().enumerate() {
        let _ = writeln!(text, "── diagnostic {} of {} ──", index + 1, rendered.len());
        text.push_str(report);
        text.push('\n');
    }
    text
}

/// The snapshot of one text corpus file, and the codes its check produced.
fn text_snapshot(path: &Path) -> (String, Vec<Code>) {
    let name = file_name(path);
    let text = read_text(path);
    let (config_name, config) = config_for(name);
    let outcome = parse(&text, &config);
    let checked = outcome.check(&text);
    let (parser, validator) = checked.split_at(outcome.diagnostics.len());
    assert_eq!(
        parser, outcome.diagnostics,
        "{name}: check() must start with the parser's diagnostics"
    );
    let index = LineIndex::new(&text);
    let json = json!({
        "config": config_name,
        "outcome": serde_json::to_value(&outcome).expect("outcomes serialize"),
        "parser_diagnostics": to_json_all(parser, &index),
        "validator_findings": to_json_all(validator, &index),
    });
    let rendered: Vec<String> = checked.iter().map(|d| render(d, name, &text)).collect();
    for report in &rendered {
        assert_printable(name, report);
    }
    let codes = checked.iter().map(|d| d.code).collect();
    (snapshot_text(&json, &rendered), codes)
}

/// The snapshot of one JSON corpus document, and the codes it produced.
fn json_snapshot(path: &Path) -> (String, Vec<Code>) {
    let name = file_name(path);
    let text = read_text(path);
    let document: PlanDocument = serde_json::from_str(&text)
        .unwrap_or_else(|error| panic!("{name} is not a plan document: {error}"));
    let findings = validate(&document);
    let index = LineIndex::new(&text);
    let json = json!({
        "document": serde_json::to_value(&document).expect("documents serialize"),
        "validator_findings": to_json_all(&findings, &index),
    });
    // A deserialized document has detached spans (0..0): the reports point at
    // the start of the JSON text.
    let rendered: Vec<String> = findings.iter().map(|d| render(d, name, &text)).collect();
    for report in &rendered {
        assert_printable(name, report);
    }
    let codes = findings.iter().map(|d| d.code).collect();
    (snapshot_text(&json, &rendered), codes)
}

/// Asserts one snapshot per file, reporting every mismatch instead of only
/// the first.
fn assert_snapshots(
    prefix: &str,
    files: &[PathBuf],
    snapshot: impl Fn(&Path) -> (String, Vec<Code>),
) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    let failures: Vec<String> = files
        .iter()
        .filter_map(|path| {
            let name = format!("{prefix}__{}", file_stem(path));
            let (text, _) = snapshot(path);
            let mut settings = settings.clone();
            let relative = path
                .strip_prefix(env!("CARGO_MANIFEST_DIR"))
                .unwrap_or(path);
            settings.set_input_file(relative);
            let result = catch_unwind(AssertUnwindSafe(|| {
                settings.bind(|| insta::assert_snapshot!(name.as_str(), text));
            }));
            result.is_err().then_some(name)
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} snapshot(s) differ: {}",
        failures.len(),
        failures.join(", ")
    );
}

#[test]
fn text_corpus_snapshots() {
    let files = corpus_files(TEXT_CORPUS, "txt");
    assert_snapshots("plan", &files, text_snapshot);
}

#[test]
fn json_document_snapshots() {
    let files = corpus_files(JSON_CORPUS, "json");
    assert_snapshots("plan-json", &files, json_snapshot);
}

#[test]
fn corpus_is_large_and_well_named() {
    let files = corpus_files(TEXT_CORPUS, "txt");
    assert!(files.len() >= 35, "only {} corpus documents", files.len());
    for path in &files {
        let name = file_name(path);
        let numbered = ["md-", "yaml-", "strict-"]
            .iter()
            .find_map(|prefix| name.strip_prefix(prefix))
            .unwrap_or(name);
        let (number, rest) = numbered.split_at(numbered.len().min(3));
        assert!(
            number.len() == 3
                && number[..2].bytes().all(|b| b.is_ascii_digit())
                && number.ends_with('-')
                && !rest.is_empty(),
            "{name}: corpus files are named `NN-short-name.txt` (optionally after a preset prefix)"
        );
    }
    for (name, _, _) in CUSTOM_CONFIGS {
        assert!(
            files.iter().any(|path| file_name(path) == *name),
            "CUSTOM_CONFIGS names {name}, which is not in the corpus"
        );
    }
}

#[test]
fn corpus_covers_every_code() {
    let mut covered = BTreeSet::new();
    for path in corpus_files(TEXT_CORPUS, "txt") {
        covered.extend(text_snapshot(&path).1.iter().map(|code| code.as_str()));
    }
    for path in corpus_files(JSON_CORPUS, "json") {
        covered.extend(json_snapshot(&path).1.iter().map(|code| code.as_str()));
    }
    let missing: Vec<&str> = Code::ALL
        .iter()
        .map(|code| code.as_str())
        .filter(|code| !covered.contains(code))
        .collect();
    assert!(
        missing.is_empty(),
        "no corpus document produces: {}",
        missing.join(", ")
    );
}

#[test]
fn no_snapshot_outlives_its_corpus_file() {
    let mut expected: BTreeSet<String> = BTreeSet::new();
    for path in corpus_files(TEXT_CORPUS, "txt") {
        expected.insert(format!("plan__{}.snap", file_stem(&path)));
    }
    for path in corpus_files(JSON_CORPUS, "json") {
        expected.insert(format!("plan-json__{}.snap", file_stem(&path)));
    }
    let Ok(entries) = fs::read_dir(SNAPSHOTS) else {
        return;
    };
    let stale: Vec<String> = entries
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| {
            (name.starts_with("plan__") || name.starts_with("plan-json__"))
                && name.ends_with(".snap")
        })
        .filter(|name| !expected.contains(name))
        .collect();
    assert!(
        stale.is_empty(),
        "snapshots without a corpus file (delete them): {}",
        stale.join(", ")
    );
}
