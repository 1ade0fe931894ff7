//! `quire.toml`'s `[commit]` table: the forms a setting may take, and for
//! each kind of mistake, the line, the key and what to write instead.

use quire_grammar::commit::Preset;
use quire_grammar::commit::config::{
    CONFIG_FILE_NAME, CommitConfig, ConfigCode, ConfigError, find_config,
};
use quire_grammar::commit::lint::{Case, Level, LintRules, Rule, RuleSetting, RuleValue, When};
use quire_grammar::diagnostics::LineIndex;
use std::path::{Path, PathBuf};

fn rules(text: &str) -> LintRules {
    CommitConfig::parse(text)
        .unwrap_or_else(|e| panic!("{text}\n{e}"))
        .lint_rules()
        .unwrap_or_else(|e| panic!("{text}\n{e}"))
}

fn names(list: &[&str]) -> RuleValue {
    RuleValue::Names(list.iter().map(|&n| n.to_owned()).collect())
}

#[test]
fn every_form_of_a_setting_reads() {
    let text = r#"
# A project's commit rules.
[commit]
preset = "conventional"
types = ["feat", "fix", "chore"]
scopes = ["cli", "mcp"]

[commit.rules]
subject-case = "off"
body-leading-blank = "error"
footer-leading-blank = 1
header-max-length = ["error", 72]
scope-empty = ["warning", "never"]
type-case = ["error", "always", "lower-case"]
scope-case = [2, "always", ["kebab-case", "lower-case"]]
subject-full-stop = ["error", "never", "!"]
body-max-line-length = ["warning"]
"#;
    let config = CommitConfig::parse(text).unwrap();
    assert_eq!(
        config.preset.as_ref().map(|p| p.value),
        Some(Preset::Conventional)
    );
    assert_eq!(
        config.types.as_deref(),
        Some(&["feat".to_owned(), "fix".into(), "chore".into()][..])
    );
    // In the order of the text, each with its span.
    let order: Vec<Rule> = config.rules.iter().map(|r| r.rule).collect();
    assert_eq!(order[0], Rule::SubjectCase);
    assert_eq!(
        &text[config.rules[0].span.range()],
        "subject-case = \"off\""
    );
    let rules = config.lint_rules().unwrap();
    let setting = |rule| rules.get(rule).clone();
    assert_eq!(setting(Rule::SubjectCase).level, Level::Off);
    assert_eq!(setting(Rule::BodyLeadingBlank).level, Level::Error);
    assert_eq!(setting(Rule::FooterLeadingBlank).level, Level::Warning);
    assert_eq!(
        setting(Rule::HeaderMaxLength),
        RuleSetting::new(Level::Error, When::Always, RuleValue::Length(72))
    );
    assert_eq!(
        setting(Rule::ScopeEmpty),
        RuleSetting::new(Level::Warning, When::Never, RuleValue::None)
    );
    assert_eq!(
        setting(Rule::TypeCase).value,
        RuleValue::Cases(vec![Case::Lower])
    );
    assert_eq!(
        setting(Rule::ScopeCase),
        RuleSetting::new(
            Level::Error,
            When::Always,
            RuleValue::Cases(vec![Case::Kebab, Case::Lower])
        )
    );
    assert_eq!(
        setting(Rule::SubjectFullStop).value,
        RuleValue::Text("!".into())
    );
    assert_eq!(
        setting(Rule::BodyMaxLineLength),
        RuleSetting::new(Level::Warning, When::Always, RuleValue::Length(100))
    );
    assert_eq!(
        setting(Rule::TypeEnum).value,
        names(&["feat", "fix", "chore"])
    );
    assert_eq!(setting(Rule::ScopeEnum).value, names(&["cli", "mcp"]));
}

#[test]
fn other_tomls_spellings_are_the_same_configuration() {
    let sections = "[commit]\npreset = \"conventional\"\n[commit.rules]\nheader-max-length = [\"error\", 72]\n";
    let dotted =
        "commit.preset = \"conventional\"\ncommit.rules.header-max-length = [\"error\", 72]\n";
    let inline =
        "commit = { preset = \"conventional\", rules = { header-max-length = [\"error\", 72] } }\n";
    assert_eq!(rules(sections), rules(dotted));
    assert_eq!(rules(sections), rules(inline));
    assert_eq!(
        rules(sections).get(Rule::HeaderMaxLength).value,
        RuleValue::Length(72)
    );
    // A file without [commit] is the default.
    assert_eq!(rules(""), LintRules::default());
    assert_eq!(rules("# nothing yet\n"), LintRules::default());
}

/// The problems of a bad text: (code, line, message, help).
fn problems(text: &str) -> Vec<(ConfigCode, usize, String, String)> {
    let error = match CommitConfig::parse(text) {
        Ok(config) => config.lint_rules().expect_err(text),
        Err(error) => error,
    };
    let index = LineIndex::new(text);
    error
        .problems()
        .iter()
        .map(|p| {
            (
                p.code,
                index.line_column(p.span.start).0,
                p.message.clone(),
                p.help.clone(),
            )
        })
        .collect()
}

fn one_problem(text: &str) -> (ConfigCode, usize, String, String) {
    let mut all = problems(text);
    assert_eq!(all.len(), 1, "{text}: {all:?}");
    all.remove(0)
}

#[test]
fn each_mistake_names_its_line_and_what_to_write() {
    use ConfigCode::*;
    let cases: Vec<(&str, ConfigCode, usize, &str, &str)> = vec![
        ("[commit\n", Syntax, 1, "not TOML", "fix the TOML syntax"),
        (
            "[lint]\nx = 1\n",
            UnknownKey,
            1,
            "unknown key `lint`",
            "quire.toml has one section, [commit]",
        ),
        (
            "[commit]\npreset = \"plan\"\ntype = [\"feat\"]\n",
            UnknownKey,
            3,
            "unknown key `type` in [commit]",
            "the keys of [commit] are: preset, types, scopes, ignores, rules",
        ),
        (
            "[commit]\nheader-max-length = 72\n",
            UnknownKey,
            2,
            "unknown key `header-max-length` in [commit]",
            "rules go in [commit.rules]: write `header-max-length = ...` there",
        ),
        (
            "[commit]\npreset = \"angular\"\n",
            UnknownPreset,
            2,
            "unknown preset `angular`",
            "use one of: conventional, plan",
        ),
        (
            "[commit]\npreset = 1\n",
            WrongType,
            2,
            "`preset` is the number 1, and must be a string",
            "write `preset = \"conventional\"`",
        ),
        (
            "[commit]\ntypes = \"feat\"\n",
            WrongType,
            2,
            "`types` is the string \"feat\", and must be a list of strings",
            "write `types = [\"feat\", \"fix\"]`",
        ),
        (
            "[commit]\ntypes = []\n",
            BadSetting,
            2,
            "`types` is empty, which would refuse every type",
            "turn the rule off: `type-enum = \"off\"`",
        ),
        (
            "[commit]\nscopes = [\"cli\", 2]\n",
            WrongType,
            2,
            "`scopes` is a list, and must be a list of strings",
            "write `scopes = [\"cli\", \"parser\"]`",
        ),
        (
            "[commit]\nrules = 3\n",
            WrongType,
            2,
            "`rules` is the number 3, and must be a table",
            "write a [commit.rules] section, or `rules = { ... }`",
        ),
        (
            "commit = \"conventional\"\n",
            WrongType,
            1,
            "`commit` is the string \"conventional\", and must be a table",
            "write a [commit] section, or `commit = { ... }`",
        ),
        (
            "[commit.rules]\nsubject-cases = \"off\"\n",
            UnknownRule,
            2,
            "unknown rule `subject-cases`",
            "did you mean `subject-case`?",
        ),
        (
            "[commit.rules]\nsignoff = \"off\"\n",
            UnknownRule,
            2,
            "unknown rule `signoff`",
            "the rules are: type-empty, type-case",
        ),
        (
            "[commit.rules]\nheader-max-length = 72\n",
            BadSetting,
            2,
            "`header-max-length` is set to the number 72; a rule is set with a level or a list",
            "write `header-max-length = [\"error\", 100]`",
        ),
        (
            "[commit.rules]\nheader-max-length = \"strict\"\n",
            BadSetting,
            2,
            "`header-max-length` is set to the string \"strict\"",
            "a level alone: \"off\", \"warning\", \"error\"",
        ),
        (
            "[commit.rules]\nheader-max-length = [\"error\", \"72\"]\n",
            BadSetting,
            2,
            "`header-max-length` takes a number of characters, not the string \"72\"",
            "write `header-max-length = [\"error\", 100]`",
        ),
        (
            "[commit.rules]\nheader-max-length = [\"error\", -1]\n",
            BadSetting,
            2,
            "`header-max-length` takes a number of characters, not the number -1",
            "write `header-max-length",
        ),
        (
            "[commit.rules]\nheader-max-length = [\"error\", \"never\", 72]\n",
            BadSetting,
            2,
            "`header-max-length` has no `never` form",
            "leave `never` out",
        ),
        (
            "[commit.rules]\nheader-max-length = [72, \"error\"]\n",
            BadSetting,
            2,
            "`header-max-length`'s setting must start with a level, not the number 72",
            "write `header-max-length",
        ),
        (
            "[commit.rules]\nheader-max-length = []\n",
            BadSetting,
            2,
            "`header-max-length` is set to an empty list",
            "write `header-max-length",
        ),
        (
            "[commit.rules]\ntype-enum = [\"error\", \"always\", [\"feat\"], 1]\n",
            BadSetting,
            2,
            "`type-enum`'s setting has more parts than [level, when, value]",
            "write `type-enum = [\"error\", [\"feat\", \"fix\"]]`",
        ),
        (
            "[commit.rules]\ntype-enum = [\"error\", \"feat\"]\n",
            BadSetting,
            2,
            "`type-enum` takes a list of names, not the string \"feat\"",
            "write `type-enum = [\"error\", [\"feat\", \"fix\"]]`",
        ),
        (
            "[commit.rules]\nbody-leading-blank = [\"error\", \"always\", 1]\n",
            BadSetting,
            2,
            "`body-leading-blank` takes no value",
            "write `body-leading-blank = \"error\"`",
        ),
        (
            "[commit.rules]\nsubject-case = [\"error\", \"never\", [\"title-case\"]]\n",
            UnknownCase,
            2,
            "unknown case `title-case`",
            "use one of: lower-case, upper-case",
        ),
        (
            "[commit.rules]\nsubject-case = [\"error\", \"never\", 3]\n",
            BadSetting,
            2,
            "`subject-case` takes a case name or a list of them, not the number 3",
            "write `subject-case",
        ),
        (
            "[commit.rules]\nsubject-max-length = \"error\"\n",
            BadSetting,
            2,
            "`subject-max-length` is off in the `conventional` preset, so it has no value to turn on",
            "give its value: `subject-max-length = [\"error\", 72]`",
        ),
    ];
    for (text, code, line, message, help) in cases {
        let (got_code, got_line, got_message, got_help) = one_problem(text);
        assert_eq!((got_code, got_line), (code, line), "{text}: {got_message}");
        assert!(
            got_message.starts_with(message),
            "{text}: message {got_message:?}"
        );
        assert!(got_help.contains(help), "{text}: help {got_help:?}");
    }
}

#[test]
fn every_problem_is_reported_at_once_in_the_order_of_the_text() {
    let text = "[commit]\npreset = \"angular\"\nextra = 1\n\n[commit.rules]\nsubject-cases = \"off\"\nheader-max-length = 72\n";
    let found: Vec<(ConfigCode, usize)> = problems(text)
        .into_iter()
        .map(|(code, line, ..)| (code, line))
        .collect();
    assert_eq!(
        found,
        [
            (ConfigCode::UnknownPreset, 2),
            (ConfigCode::UnknownKey, 3),
            (ConfigCode::UnknownRule, 6),
            (ConfigCode::BadSetting, 7),
        ]
    );
    let error = CommitConfig::parse(text).unwrap_err();
    assert_eq!(
        error.to_string(),
        "quire.toml line 2: unknown preset `angular` (use one of: conventional, plan) (and 3 more problems)"
    );
    assert_eq!(error.source_text(), text);
}

/// `preset = "plan"` is the plan grammar's check: settings of the
/// conventional rules next to it are refused, each named, at the preset.
#[test]
fn the_plan_preset_takes_no_conventional_settings() {
    let config = CommitConfig::parse("[commit]\npreset = \"plan\"\n").unwrap();
    assert_eq!(config.preset(), Preset::Plan);
    for (text, named) in [
        (
            "[commit]\npreset = \"plan\"\ntypes = [\"feat\"]\n",
            "`types` adjust",
        ),
        (
            "[commit]\npreset = \"plan\"\nscopes = [\"cli\"]\n",
            "`scopes` adjust",
        ),
        (
            "[commit]\npreset = \"plan\"\n[commit.rules]\nsubject-max-length = [\"error\", 72]\n",
            "[commit.rules] adjust",
        ),
        (
            "[commit]\ntypes = [\"feat\"]\npreset = \"plan\"\n[commit.rules]\nheader-trim = \"off\"\n",
            "`types` and [commit.rules] adjust",
        ),
    ] {
        let error = CommitConfig::parse(text).unwrap_err();
        let problem = &error.problems()[0];
        assert_eq!(
            (error.problems().len(), problem.code),
            (1, ConfigCode::PlanWithRules),
            "{text}"
        );
        assert!(
            problem.message.contains(named),
            "{text}: {}",
            problem.message
        );
        assert_eq!(&text[problem.span.range()], "\"plan\"", "{text}");
        assert!(problem.help.contains("preset = \"conventional\""), "{text}");
    }
    assert_eq!(
        CommitConfig::parse("[commit]\ntypes = [\"feat\"]\n")
            .unwrap()
            .preset(),
        Preset::Conventional
    );
}

#[test]
fn a_rule_turned_on_by_its_level_alone_needs_a_usual_value() {
    // `subject-max-length` is off in `conventional` and has no length to
    // turn on with.
    let config = CommitConfig::parse("[commit.rules]\nsubject-max-length = \"warning\"\n").unwrap();
    let error = config.lint_rules().unwrap_err();
    assert_eq!(error.problems()[0].code, ConfigCode::BadSetting);
    assert!(
        error.problems()[0]
            .message
            .contains("off in the `conventional` preset"),
        "{error}"
    );
    // A rule with a usual value turns on with it.
    let rules = rules_of("[commit.rules]\nscope-case = \"error\"\nscope-empty = \"warning\"\n");
    assert_eq!(
        rules.get(Rule::ScopeCase),
        &RuleSetting::new(
            Level::Error,
            When::Always,
            RuleValue::Cases(vec![Case::Lower])
        )
    );
    assert_eq!(
        rules.get(Rule::ScopeEmpty),
        &RuleSetting::new(Level::Warning, When::Never, RuleValue::None)
    );
}

fn rules_of(text: &str) -> LintRules {
    rules(text)
}

#[test]
fn the_report_shows_each_problem_at_its_line() {
    let text = "[commit]\npreset = \"angular\"\n\n[commit.rules]\nheader-max-length = [\"error\", \"72\"]\n";
    let error: ConfigError = CommitConfig::parse(text).unwrap_err();
    let report = miette::Report::new(error);
    let mut shown = String::new();
    miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
        .with_width(120)
        .render_report(&mut shown, report.as_ref())
        .unwrap();
    for expected in [
        "config::unknown_preset",
        "2 │ preset = \"angular\"",
        "config::bad_setting",
        "5 │ header-max-length = [\"error\", \"72\"]",
        "[quire.toml:5:31]",
        "write `header-max-length = [\"error\", 100]`",
    ] {
        assert!(
            shown.contains(expected),
            "{expected:?} missing from\n{shown}"
        );
    }
}

#[test]
fn the_config_is_found_in_the_folder_or_above() {
    fn at(path: &'static str) -> impl Fn(&Path) -> bool {
        move |candidate| candidate == Path::new(path)
    }
    let start = Path::new("/home/me/repo/src/commit");
    assert_eq!(
        find_config(start, at("/home/me/repo/quire.toml")),
        Some(PathBuf::from("/home/me/repo/quire.toml"))
    );
    assert_eq!(
        find_config(start, at("/home/me/repo/src/commit/quire.toml")),
        Some(PathBuf::from("/home/me/repo/src/commit/quire.toml"))
    );
    assert_eq!(
        find_config(start, at("/quire.toml")),
        Some(PathBuf::from("/quire.toml"))
    );
    // The nearest wins.
    let both = |candidate: &Path| {
        candidate == Path::new("/home/me/quire.toml")
            || candidate == Path::new("/home/me/repo/src/quire.toml")
    };
    assert_eq!(
        find_config(start, both),
        Some(PathBuf::from("/home/me/repo/src/quire.toml"))
    );
    assert_eq!(find_config(start, |_| false), None);
    assert_eq!(
        find_config(Path::new("relative/dir"), at("relative/quire.toml")),
        Some(PathBuf::from("relative/quire.toml"))
    );
    assert_eq!(CONFIG_FILE_NAME, "quire.toml");
}
