//! Counts in the parser's messages agree with their nouns: a limit of one
//! says "1 task", "1 level", "1 space", not "1 tasks".

use quire_grammar::plan::{ParserConfig, parse};

/// Every message and help text of parsing `text` with `config`, one a line.
fn said(text: &str, config: &ParserConfig) -> String {
    parse(text, config)
        .diagnostics
        .iter()
        .map(|diagnostic| format!("{}\n{}", diagnostic.message, diagnostic.help))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_limit_of_one_task_says_1_task() {
    let config = ParserConfig {
        max_task_count: 1,
        ..ParserConfig::COMMIT_MESSAGE
    };
    let text = said("feat(a): b\n\nWhy.\n\n- [ ]: One\n- [ ]: Two\n", &config);
    assert!(text.contains("the plan has more than 1 task\n"), "{text}");
    assert!(text.contains("keep the plan to 1 task:"), "{text}");
    assert!(!text.contains("1 tasks"), "{text}");
}

#[test]
fn a_limit_of_one_level_and_one_space_say_so_in_the_singular() {
    let config = ParserConfig {
        max_nesting_depth: 1,
        indent_size: 1,
        ..ParserConfig::COMMIT_MESSAGE
    };
    let text = said(
        "feat(a): b\n\nWhy.\n\n- [ ]: One\n - [ ]: Two\n  - [ ]: Three\n",
        &config,
    );
    assert!(text.contains("nested deeper than 1 level\n"), "{text}");
    assert!(text.contains("1 space per level"), "{text}");
    assert!(
        !text.contains("1 levels") && !text.contains("1 spaces"),
        "{text}"
    );

    let text = said("feat(a): b\n\nWhy.\n\n- [ ]: One\n   - [ ]: Two\n", &config);
    assert!(text.contains("1 space per level"), "{text}");
    assert!(!text.contains("1 spaces"), "{text}");
}
