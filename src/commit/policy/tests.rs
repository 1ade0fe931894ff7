use serde_json::{Value, json};

use super::*;
use crate::commit::lint::{IgnoredKind, Level, Rule};
use crate::plan::ParserConfig;

fn conventional() -> CommitRules {
    CommitRules::Conventional {
        lint: Box::new(LintRules::conventional()),
        plan: ParserConfig::COMMIT_MESSAGE,
    }
}

fn plan_rules() -> CommitRules {
    CommitRules::Plan(ParserConfig::COMMIT_MESSAGE)
}

fn check(source: MessageSource, preset: Option<PresetChoice>, config: Option<&str>) -> CommitCheck {
    CommitCheck::new(CheckOptions::new(source).preset(preset), config)
        .unwrap_or_else(|error| panic!("{error}"))
}

const PLAN_TOML: &str = "[commit]\npreset = \"plan\"\n";
const BROKEN_TOML: &str = "[commit]\npreset = \"angular\"\n";

/// Issue 27: one command, one verdict: a text gets the same rules from a
/// file, standard input, the hook or the history.
#[test]
fn every_source_gets_the_conventional_rules_unless_a_plan_check_is_named() {
    for source in [
        MessageSource::GitMessage,
        MessageSource::History,
        MessageSource::Document,
    ] {
        assert_eq!(check(source, None, None).rules(), &conventional());
        let named = Some(PresetChoice::Commit(Preset::Plan));
        assert_eq!(check(source, named, None).rules(), &plan_rules());
    }
    for text in [
        "ci: add a runner
",
        "feat(greet): Add a farewell
",
    ] {
        let verdicts: Vec<bool> = [
            MessageSource::GitMessage,
            MessageSource::History,
            MessageSource::Document,
        ]
        .map(|source| check(source, None, None).check(text).unwrap().is_valid())
        .to_vec();
        assert!(
            verdicts.windows(2).all(|pair| pair[0] == pair[1]),
            "{text}: {verdicts:?}"
        );
    }
}

/// Issue 27: the planner's output (a plan document in the commit message)
/// passes the default hook: a message with plan sections below its header
/// is judged by the plan grammar, any other by commitlint's rules.
#[test]
fn a_plan_document_is_judged_by_the_plan_grammar_under_the_conventional_rules() {
    let check = check(MessageSource::GitMessage, None, None);
    let plan = "feat(greet): Add a farewell function\n\nGreeting users on the way out too, with a \
                description line that is longer than one hundred characters, as the planner writes it.\n\n\
                - Never: break the greeting\n\n- [x]: Write the farewell\n- [ ]: Test it\n";
    let verdict = check.check(plan).unwrap();
    assert!(verdict.is_valid(), "{:?}", verdict.to_json());
    assert_eq!(verdict.judged_by(), Some(JudgedBy::Plan));
    assert_eq!(verdict.to_json().unwrap()["rules"], "plan");
    // The same header with a plain body is a commit message: sentence case
    // is commitlint's to refuse.
    let plain = check
        .check("feat(greet): Add a farewell function\n\nWhy.\n")
        .unwrap();
    assert!(!plain.is_valid());
    assert_eq!(plain.judged_by(), Some(JudgedBy::Conventional));
    // A plan document breaking the plan grammar (`ci` is not one of its
    // types) fails by its rules.
    let broken = check
        .check("ci(greet): Add a farewell\n\n- [ ]: Write it\n- [x]: Test it\n")
        .unwrap();
    assert!(!broken.is_valid());
    assert!(broken.lint_findings().is_empty() && !broken.plan_findings().is_empty());
}

/// Issue 27: `ignores` lets a team's own headers through, with either
/// preset, in every source; a pattern that would skip everything is
/// refused.
#[test]
fn headers_matching_ignores_are_skipped() {
    let config = "[commit]\nignores = [\"Bump *\", \"* (#*)\"]\n";
    for source in [
        MessageSource::GitMessage,
        MessageSource::History,
        MessageSource::Document,
    ] {
        let check = check(source, None, Some(config));
        for header in ["Bump serde from 1 to 2\n", "Add the parser (#12)\n"] {
            let verdict = check.check(header).unwrap();
            assert!(verdict.is_valid() && verdict.is_ignored(), "{header}");
            assert_eq!(verdict.to_json().unwrap()["ignored_as"], "ignores");
            assert_eq!(verdict.judged_by(), None);
        }
        assert!(!check.check("Add the parser\n").unwrap().is_valid());
    }
    let plan = check(
        MessageSource::GitMessage,
        None,
        Some("[commit]\npreset = \"plan\"\nignores = [\"Bump *\"]\n"),
    );
    assert!(plan.check("Bump x\n").unwrap().is_ignored());
    for everything in ["*", "**", " "] {
        let text = format!("[commit]\nignores = [\"{everything}\"]\n");
        let error = CommitCheck::new(CheckOptions::new(MessageSource::GitMessage), Some(&text))
            .unwrap_err();
        assert!(
            error.to_string().contains("would skip every message"),
            "{error}"
        );
    }
}

#[test]
fn the_preset_named_wins_over_the_files() {
    let git = MessageSource::GitMessage;
    assert_eq!(check(git, None, Some(PLAN_TOML)).rules(), &plan_rules());
    let named = Some(PresetChoice::Commit(Preset::Conventional));
    assert_eq!(check(git, named, Some(PLAN_TOML)).rules(), &conventional());
    let types = "[commit]\ntypes = [\"feat\"]\n";
    let strict = Some(PresetChoice::Plan(plan::Preset::Strict));
    let check = check(git, strict, Some(types));
    assert_eq!(check.rules(), &CommitRules::Plan(ParserConfig::STRICT));
    assert_eq!(check.plan_preset(), plan::Preset::Strict);
}

#[test]
fn the_files_rules_adjust_the_conventional_ones() {
    let config = "[commit]\ntypes = [\"feat\"]\n\n[commit.rules]\nsubject-case = \"off\"\n";
    let check = check(MessageSource::GitMessage, None, Some(config));
    let CommitRules::Conventional { lint, plan } = check.rules() else {
        panic!("{:?}", check.rules());
    };
    assert_eq!(lint.get(Rule::SubjectCase).level, Level::Off);
    assert_eq!(plan, &ParserConfig::COMMIT_MESSAGE);
    assert!(check.check("feat: Add x\n").unwrap().is_valid());
    assert!(!check.check("fix: add x\n").unwrap().is_valid());
}

#[test]
fn a_config_given_is_refused_when_wrong_even_if_unused() {
    for (source, preset) in [
        (MessageSource::GitMessage, None),
        (
            MessageSource::GitMessage,
            Some(PresetChoice::Commit(Preset::Plan)),
        ),
        (MessageSource::Document, None),
    ] {
        let options = CheckOptions::new(source).preset(preset);
        let error = CommitCheck::new(options, Some(BROKEN_TOML)).unwrap_err();
        assert_eq!(
            error.to_string(),
            "quire.toml line 2: unknown preset `angular` (use one of: conventional, plan)"
        );
    }
    // A rule turned on without the value it needs: refused by the rules,
    // not by the reading.
    let options = CheckOptions::new(MessageSource::GitMessage);
    let error = CommitCheck::new(
        options,
        Some("[commit.rules]\nsubject-max-length = \"error\"\n"),
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "quire.toml line 2: `subject-max-length` is off in the `conventional` preset, so it has no value to turn on (give its value: `subject-max-length = [\"error\", 72]`)"
    );
}

#[test]
fn a_config_is_looked_for_only_when_its_rules_can_apply() {
    let uses = |source, preset| CheckOptions::new(source).preset(preset).uses_config();
    assert!(uses(MessageSource::GitMessage, None));
    assert!(uses(MessageSource::History, None));
    assert!(uses(MessageSource::Document, None));
    for source in [MessageSource::Document, MessageSource::GitMessage] {
        assert!(uses(
            source,
            Some(PresetChoice::Commit(Preset::Conventional))
        ));
        assert!(!uses(source, Some(PresetChoice::Commit(Preset::Plan))));
        assert!(!uses(
            source,
            Some(PresetChoice::Plan(plan::Preset::CommitMessage))
        ));
    }
}

#[test]
fn a_hooks_file_is_cleaned_up_before_it_is_judged() {
    let check = check(MessageSource::GitMessage, None, None);
    let edited = "feat: add x   \n\n\n# Please enter the commit message\nWhy.\n# ------------------------ >8 ------------------------\ndiff --git a/x b/x\n";
    let verdict = check.check(edited).unwrap();
    assert_eq!(verdict.message(), "feat: add x\n\nWhy.\n");
    assert!(verdict.is_valid(), "{verdict:?}");
    // A document is read as written: the comment is a body line.
    let document = check_document_conventional(edited);
    assert_eq!(document.message(), edited);
}

fn check_document_conventional(text: &str) -> Verdict {
    let named = Some(PresetChoice::Commit(Preset::Conventional));
    check(MessageSource::Document, named, None)
        .check(text)
        .unwrap()
}

#[test]
fn the_length_limit_counts_the_message_git_keeps_and_skips_what_git_wrote() {
    let strict = Some(PresetChoice::Plan(plan::Preset::Strict));
    let git = check(MessageSource::GitMessage, strict, None);
    let long_body = "x".repeat(10_001);
    // Over the limit as a file, within it once git's comments are gone.
    let commented = format!("feat: add x\n\n# {long_body}\n");
    assert!(git.check(&commented).is_ok());
    let long = format!("feat: add x\n\n{long_body}\n");
    let error = git.check(&long).unwrap_err();
    assert_eq!(
        (error.characters(), error.limit(), error.preset()),
        (10_015, 10_000, plan::Preset::Strict)
    );
    assert_eq!(
        error.to_string(),
        "the text has 10015 characters; the strict preset allows 10000: shorten the document, or split the plan into several changes"
    );
    // Characters, not bytes.
    let accented = format!("feat: add x\n\n{}\n", "é".repeat(9_000));
    assert!(git.check(&accented).is_ok());
    // git's merges pass whatever their length.
    let merge = format!("Merge branch 'topic'\n\n{long_body}\n");
    assert!(git.check(&merge).unwrap().is_ignored());
    // A document over the limit is refused whatever it is; history never.
    let document = check(MessageSource::Document, strict, None);
    assert!(document.check(&merge).is_err());
    let history = check(MessageSource::History, strict, None);
    assert!(history.check(&long).is_ok());
}

#[test]
fn messages_git_writes_are_ignored_and_valid() {
    let verdict = conventional().check_message("Merge branch 'topic'\n");
    assert!(verdict.is_ignored() && verdict.is_valid());
    let json = verdict.to_json().unwrap();
    assert_eq!(
        (&json["ignored"], &json["ignored_as"]),
        (&json!(true), &json!("merge"))
    );
    let verdict = plan_rules().check_message("Merge branch 'topic'\n");
    assert!(verdict.is_ignored() && verdict.is_valid());
    assert_eq!(verdict.ignored(), Some(IgnoredKind::Merge));
    let json = verdict.to_json().unwrap();
    assert_eq!(json["commit"], Value::Null);
    // Named as the conventional rules name it, not just "generated".
    assert_eq!(json["ignored_as"], json!("merge"));
    let verdict = plan_rules().check_message("Merge two lists\n");
    assert!(!verdict.is_ignored() && !verdict.is_valid());
    // A document's `Merge ...` line is a header like any other.
    let verdict = plan_rules().check_document("Merge branch 'topic'\n");
    assert!(!verdict.is_ignored() && !verdict.is_valid());
}

#[test]
fn a_body_that_is_a_plan_is_checked_as_one_and_another_body_is_not() {
    let plan = "feat(parser): add tasks\n\nWhy.\n\n- [ ]: First\n- [ ]:\n";
    let verdict = conventional().check_message(plan);
    assert!(
        !verdict.plan_findings().is_empty() && !verdict.is_valid(),
        "{verdict:?}"
    );
    assert!(
        verdict
            .plan_findings()
            .iter()
            .all(|finding| finding.span.start > 23)
    );
    let json = verdict.to_json().unwrap();
    let codes: Vec<&str> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert!(
        codes.iter().all(|code| code.starts_with("plan::")),
        "{codes:?}"
    );
    let prose = "feat: add tasks\n\n- a list\n- of things\n";
    let verdict = conventional().check_message(prose);
    assert!(
        verdict.plan_findings().is_empty() && verdict.is_valid(),
        "{verdict:?}"
    );
}

#[test]
fn a_message_without_a_type_is_invalid() {
    let verdict = conventional().check_message("bad message without type\n");
    assert!(!verdict.is_ignored());
    assert!(!verdict.is_valid());
    let json = verdict.to_json().unwrap();
    assert_eq!(json["valid"], false);
    assert_eq!(json["diagnostics"][0]["line"], 1);
}

#[test]
fn a_conventional_header_is_valid_and_described() {
    let verdict = plan_rules().check_message("feat(cli)!: Add x\n\nWhy.\n");
    assert!(verdict.is_valid());
    assert_eq!(verdict.to_json().unwrap()["commit"]["description"], "Add x");
    let verdict = conventional().check_message("feat(cli)!: add x\n\nWhy.\n");
    assert!(verdict.is_valid());
    let json = verdict.to_json().unwrap();
    assert_eq!(json["commit"]["type"], "feat");
    assert_eq!(json["commit"]["scope"], "cli");
    assert_eq!(json["commit"]["breaking"], true);
    assert_eq!(json["commit"]["description"], "add x");
}

#[test]
fn an_empty_message_is_invalid() {
    assert!(!conventional().check_message("").is_valid());
    assert!(!plan_rules().check_message("").is_valid());
}

#[test]
fn every_choice_has_its_own_name() {
    let names = PresetChoice::ALL.map(PresetChoice::name);
    assert_eq!(
        names,
        [
            "conventional",
            "plan",
            "commit-message",
            "markdown-tasks",
            "yaml-like",
            "strict"
        ]
    );
    assert_eq!(
        PresetChoice::Commit(Preset::Plan).plan_preset(),
        plan::Preset::CommitMessage
    );
}
