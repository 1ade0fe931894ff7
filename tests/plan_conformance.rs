//! The 42 input/expected pairs of the original TypeScript parser's test suite
//! (SyntheticGoop/oc-agentic, commit 2c8ecbc, `src2/parse.test.ts`), kept as
//! data in `tests/conformance/plan-parse-cases.json`. quire must give the same
//! JSON for every one.

use quire_grammar::plan::{ParserConfig, parse};
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize)]
struct Case {
    group: String,
    input: String,
    expected: Value,
}

fn cases() -> Vec<Case> {
    let text = include_str!("conformance/plan-parse-cases.json");
    serde_json::from_str(text).expect("the conformance table is valid JSON")
}

#[test]
fn all_42_original_cases_give_the_original_json() {
    let cases = cases();
    assert_eq!(cases.len(), 42, "the table must hold the original suite");
    let failures: Vec<String> = cases
        .iter()
        .enumerate()
        .filter_map(|(index, case)| {
            let outcome = parse(&case.input, &ParserConfig::COMMIT_MESSAGE);
            let actual = serde_json::to_value(&outcome).expect("outcomes serialize");
            (actual != case.expected).then(|| {
                format!(
                    "#{index} [{}] {:?}\n  expected {}\n  actual   {}",
                    case.group, case.input, case.expected, actual
                )
            })
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} case(s) differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_case_also_parses_identically_with_crlf_line_endings() {
    for case in cases() {
        let crlf = case.input.replace('\n', "\r\n");
        let outcome = parse(&crlf, &ParserConfig::COMMIT_MESSAGE);
        let actual = serde_json::to_value(&outcome).unwrap();
        assert_eq!(actual, case.expected, "CRLF version of {:?}", case.input);
    }
}

#[test]
fn halted_cases_say_why_and_parsed_cases_have_no_error() {
    for case in cases() {
        let outcome = parse(&case.input, &ParserConfig::COMMIT_MESSAGE);
        let errors = outcome.diagnostics.iter().filter(|d| d.is_error()).count();
        let expected = usize::from(case.expected["state"] == "halted");
        assert_eq!(
            errors, expected,
            "{:?}: {:?}",
            case.input, outcome.diagnostics
        );
    }
}
