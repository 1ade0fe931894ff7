//! `grammar/plan.ebnf` is the normative grammar and the code names the rule
//! it implements in a comment (`// plan.ebnf: task-line`) instead of
//! restating it. These tests keep the two in step: every rule the grammar
//! defines is named in a comment under `src/plan/`, and every name a comment
//! gives is a rule the grammar defines.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Rules implemented outside `src/plan/`'s parser files, each with where.
const NAMED_ELSEWHERE: &[(&str, &str)] = &[(
    "directive",
    "PlanDocument::directive in src/plan/ast.rs, the AST's own accessor",
)];

/// The names the grammar defines: `name = ...` at the start of a line,
/// outside `(* comments *)`.
fn defined_rules(grammar: &str) -> BTreeSet<String> {
    let mut rules = BTreeSet::new();
    let mut depth = 0_usize;
    for line in grammar.lines() {
        if depth == 0
            && let Some((name, _)) = line.split_once('=')
        {
            let name = name.trim();
            if !name.is_empty() && name.chars().all(is_name_char) {
                rules.insert(name.to_owned());
            }
        }
        depth += line.matches("(*").count();
        depth = depth.saturating_sub(line.matches("*)").count());
    }
    rules
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-'
}

/// The rule names of every `plan.ebnf: a, b (prose)` comment in the Rust
/// files under `dir`, with the file each is in.
fn named_rules(dir: &Path, named: &mut Vec<(String, String)>) {
    for entry in fs::read_dir(dir).expect("the source directory is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            named_rules(&path, named);
            continue;
        }
        if path.extension().is_none_or(|ext| ext != "rs") {
            continue;
        }
        let source = fs::read_to_string(&path).expect("a source file is readable");
        for line in source.lines() {
            let Some((_, names)) = line.split_once("plan.ebnf: ") else {
                continue;
            };
            for piece in names.split(',') {
                let piece = piece.trim_start();
                let name: String = piece.chars().take_while(|&c| is_name_char(c)).collect();
                named.push((name.clone(), path.display().to_string()));
                // Prose after a name ends the list.
                if piece.len() > name.len() {
                    break;
                }
            }
        }
    }
}

fn plan_names() -> Vec<(String, String)> {
    let mut named = Vec::new();
    named_rules(&Path::new(ROOT).join("src/plan"), &mut named);
    named
}

fn plan_rules() -> BTreeSet<String> {
    let grammar = fs::read_to_string(Path::new(ROOT).join("grammar/plan.ebnf"))
        .expect("the grammar is readable");
    defined_rules(&grammar)
}

#[test]
fn the_grammar_is_read_as_its_rules() {
    let rules = plan_rules();
    for rule in [
        "document",
        "EOL",
        "BOM",
        "task-like",
        "constraint-like",
        "directive",
    ] {
        assert!(rules.contains(rule), "{rule} is not found among {rules:?}");
    }
    // Rules named only inside comments are not definitions.
    assert!(!rules.contains("blank-text ="));
    assert_eq!(
        defined_rules("a = b ;\n(* c = d\n e = f *)\ng-h = i ;"),
        BTreeSet::from(["a".to_owned(), "g-h".to_owned()])
    );
}

#[test]
fn every_plan_rule_is_named_in_the_code() {
    let named: BTreeSet<String> = plan_names().into_iter().map(|(name, _)| name).collect();
    let elsewhere: BTreeSet<&str> = NAMED_ELSEWHERE.iter().map(|(rule, _)| *rule).collect();
    let missing: Vec<String> = plan_rules()
        .into_iter()
        .filter(|rule| !named.contains(rule) && !elsewhere.contains(rule.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "no `// plan.ebnf: <rule>` comment under src/plan/ names {missing:?}"
    );
}

#[test]
fn every_named_plan_rule_is_defined() {
    let rules = plan_rules();
    let unknown: Vec<(String, String)> = plan_names()
        .into_iter()
        .filter(|(name, _)| !rules.contains(name))
        .collect();
    assert!(
        unknown.is_empty(),
        "comments name rules grammar/plan.ebnf does not define: {unknown:?}"
    );
    for (rule, _) in NAMED_ELSEWHERE {
        assert!(rules.contains(*rule), "{rule} is not a rule any more");
    }
}
