//! Where quire's plan grammar differs from `planner.md`, each difference is
//! the behaviour the original's tests (or its implementation) show, and
//! `grammar/plan.ebnf` says so in a NOTE (the preset spellings are tested
//! in `plan::config`). Each case pins the behaviour and
//! the NOTE together, so neither changes alone.

use quire_grammar::plan::{Code, ParseState, ParserConfig, parse};

const GRAMMAR: &str = include_str!("../grammar/plan.ebnf");

/// The grammar's text with its comment layout undone: words joined by one
/// space, so a NOTE is found whatever its line breaks.
fn grammar_words() -> String {
    GRAMMAR.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[track_caller]
fn assert_noted(words: &str) {
    assert!(
        grammar_words().contains(words),
        "grammar/plan.ebnf has no NOTE saying {words:?}"
    );
}

/// The spec lists "empty" and "unknown" states; the original's tests never
/// produce them.
#[test]
fn there_are_no_empty_or_unknown_states() {
    for text in ["", "   ", "\n", " \t\n "] {
        let outcome = parse(text, &ParserConfig::default());
        assert_eq!(outcome.state, ParseState::Parsed, "{text:?}");
        assert!(outcome.document.is_empty());
    }
    let outcome = parse("WIP", &ParserConfig::default());
    assert_eq!(outcome.halt_reason().unwrap().code, Code::InvalidHeader);
    assert_noted(r#"NOTE The spec's state type also lists "empty" (no content) and "unknown""#);
}

/// The spec's EBNF allows `feat!:`; its pattern table and the original do not.
#[test]
fn a_breaking_mark_needs_a_scope() {
    let outcome = parse("feat!: x", &ParserConfig::default());
    let reason = outcome.halt_reason().expect("feat!: halts");
    assert_eq!(reason.code, Code::InvalidHeader);
    assert!(
        reason.help.contains("feat(scope)!: title"),
        "{}",
        reason.help
    );
    assert!(parse("feat(x)!: y", &ParserConfig::default()).is_parsed());
    assert_noted(
        "NOTE `feat!: x` (a breaking `!` without a scope) halts with plan::invalid_header.",
    );
}

/// The spec's second "invalid example" says it halts; a "- " line without
/// ": " is a description line, as it was in the original.
#[test]
fn the_specs_second_invalid_example_is_a_description() {
    let outcome = parse(
        "feat: Title\n\n- invalid constraint format",
        &ParserConfig::default(),
    );
    assert!(outcome.is_parsed(), "{:?}", outcome.diagnostics);
    assert_eq!(
        outcome.document.description(),
        Some("- invalid constraint format")
    );
    // A line that does look like a constraint is reported, not swallowed.
    let outcome = parse(
        "f(s): t\n\nWhy.\n- Never: Do that",
        &ParserConfig::default(),
    );
    assert!(
        outcome
            .diagnostics
            .iter()
            .any(|d| d.code == Code::ConstraintIgnored)
    );
    assert_noted(r#"NOTE The spec's second "invalid example""#);
}

/// `finish_job` writes its directive under the direction: the directive is
/// the direction's last line.
#[test]
fn the_directive_is_the_directions_last_line() {
    let text = "f(s): t\n\nWhy.\n\n- [x]: a\n\nShip it\n~~~ COMPLETE ~~~\n";
    let outcome = parse(text, &ParserConfig::default());
    assert_eq!(outcome.document.directive(), Some("COMPLETE"));
    assert_eq!(
        outcome.document.direction_before_directive(),
        Some("Ship it")
    );
    assert_noted("A direction whose last line is exactly a directive ends with one");
}
