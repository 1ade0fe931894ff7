//! commitlint's rules over hand-built message views: each rule passing and
//! failing, as a warning and as an error, `always` and `never`; the URL
//! exemption; the default ignores; the presets; the configuration's order
//! of precedence; and a snapshot of each rule's rendered finding
//! (`snapshots/commit-lint__<rule>.snap`).
//!
//! Agreement with commitlint itself: its verdicts on 1,400 texts for every
//! case, on the default ignores, and under `@commitlint/config-conventional`
//! on the 631 messages of a real history and 43 written to make every rule
//! fail, recorded in `tests/corpus/commitlint/` (`judge.mjs` there remakes
//! them).
//!
//! The views come from [`view`], a deliberately small reading of a message
//! (the commit grammar fills the real ones), so each case shows the text it
//! stands for. Update the snapshots with `INSTA_UPDATE=always cargo test
//! --no-default-features --features cli --test commit_lint`, then read every
//! changed one.

use quire_grammar::commit::config::CommitConfig;
use quire_grammar::commit::lint::{
    Case, IgnoredKind, Level, LintFinding, LintMessage, LintRules, Rule, RuleSetting, RuleValue,
    SettingError, When,
};
use quire_grammar::diagnostics::{LineIndex, Severity};
use quire_grammar::span::{Span, Spanned};

// ------------------------------------------------------------------ views

/// Whether `line` is a footer line: `Token: value`, `Token #value` (token
/// words joined by `-`), or `BREAKING CHANGE: value`.
fn is_footer_line(line: &str) -> bool {
    if line.starts_with("BREAKING CHANGE: ") {
        return true;
    }
    let token_end = line
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .unwrap_or(line.len());
    token_end > 0 && (line[token_end..].starts_with(": ") || line[token_end..].starts_with(" #"))
}

/// A view of `text`: `type(scope)!: subject`, then the body, then a
/// trailing run of footer lines.
fn view(text: &str) -> LintMessage<'_> {
    let mut message = LintMessage::header_only(text);
    message.ignored = IgnoredKind::detect(text);
    let header = message.header.value;
    match header.find(':') {
        Some(colon) => {
            let head = header[..colon]
                .strip_suffix('!')
                .unwrap_or(&header[..colon]);
            let (type_end, scope) = match (head.find('('), head.strip_suffix(')')) {
                (Some(open), Some(inner)) => (open, Some((open + 1, &inner[open + 1..]))),
                _ => (head.len(), None),
            };
            let commit_type = &head[..type_end];
            if commit_type.is_empty() || commit_type.contains(char::is_whitespace) {
                message.header_problem = Some(Spanned::new(
                    "the text before `:` is not a type".to_owned(),
                    Span::new(0, colon),
                ));
            } else {
                message.commit_type = Some(Spanned::new(commit_type, Span::new(0, type_end)));
                message.scope = scope.map(|(at, s)| Spanned::new(s, Span::new(at, at + s.len())));
                let rest = &header[colon + 1..];
                let skip = usize::from(rest.starts_with(' '));
                let at = colon + 1 + skip;
                if at < header.len() {
                    message.subject =
                        Some(Spanned::new(&header[at..], Span::new(at, header.len())));
                }
            }
        }
        None => {
            message.header_problem = Some(Spanned::new(
                "no `:` ends a type".to_owned(),
                Span::at(header.len()),
            ));
            // (An empty span: `type-empty` widens it to the header.)
        }
    }
    // The lines after the header, with their offsets.
    let mut lines = Vec::new();
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let content = line.trim_end_matches(['\n', '\r']);
        lines.push((offset, content));
        offset += line.len();
    }
    let rest = &lines[1.min(lines.len())..];
    message.body_leading_blank = rest.first().is_none_or(|(_, l)| l.is_empty());
    let content_end = rest
        .iter()
        .rposition(|(_, l)| !l.is_empty())
        .map_or(0, |i| i + 1);
    let rest = &rest[..content_end];
    let footer_start = rest
        .iter()
        .rposition(|(_, l)| !is_footer_line(l))
        .map_or(0, |i| i + 1);
    let block = |lines: &[(usize, &str)]| -> Option<Spanned<&str>> {
        let first = lines.iter().position(|(_, l)| !l.is_empty())?;
        let last = lines.iter().rposition(|(_, l)| !l.is_empty())?;
        let (start, _) = lines[first];
        let (end_line, end_text) = lines[last];
        let end = end_line + end_text.len();
        Some(Spanned::new(&text[start..end], Span::new(start, end)))
    };
    if footer_start < rest.len() {
        message.footer = block(&rest[footer_start..]);
        message.footer_leading_blank = footer_start == 0 && message.body_leading_blank
            || footer_start > 0 && rest[footer_start - 1].1.is_empty();
    }
    message.body = block(&rest[..footer_start]);
    message
}

#[test]
fn the_view_reads_the_parts() {
    let text = "feat(parser)!: add spans\n\nKeep offsets.\n\nSigned-off-by: A <a@b.c>\nRefs #12\n";
    let message = view(text);
    assert_eq!(message.commit_type.as_ref().map(|t| t.value), Some("feat"));
    assert_eq!(
        message.scope.as_ref().map(|s| (s.value, s.span)),
        Some(("parser", Span::new(5, 11)))
    );
    assert_eq!(message.subject.as_ref().map(|s| s.value), Some("add spans"));
    assert_eq!(
        message.body.as_ref().map(|b| b.value),
        Some("Keep offsets.")
    );
    assert_eq!(
        message.footer.as_ref().map(|f| f.value),
        Some("Signed-off-by: A <a@b.c>\nRefs #12")
    );
    assert!(message.body_leading_blank && message.footer_leading_blank);
    let bare = view("update stuff");
    assert!(bare.commit_type.is_none() && bare.header_problem.is_some());
}

// ------------------------------------------------------------------ rules

/// Rules with everything off but `rule`, set as given.
fn only(rule: Rule, setting: RuleSetting) -> LintRules {
    let mut rules = LintRules::conventional();
    for other in Rule::ALL {
        rules.set_level(other, Level::Off);
    }
    rules.set(rule, setting).unwrap();
    rules
}

fn names(list: &[&str]) -> RuleValue {
    RuleValue::Names(list.iter().map(|&n| n.to_owned()).collect())
}

fn cases(list: &[Case]) -> RuleValue {
    RuleValue::Cases(list.to_vec())
}

/// One row: a rule set `when` with `value`, a message, whether it fails.
struct Row {
    rule: Rule,
    when: When,
    value: RuleValue,
    text: &'static str,
    fails: bool,
}

fn row(rule: Rule, when: When, value: RuleValue, text: &'static str, fails: bool) -> Row {
    Row {
        rule,
        when,
        value,
        text,
        fails,
    }
}

fn rows() -> Vec<Row> {
    use Case::*;
    use Rule::*;
    use When::{Always, Never};
    let none = || RuleValue::None;
    let sentence_like = || cases(&[Sentence, Start, Pascal, Upper]);
    let long_body = "feat: x\n\nshort line\nthis body line is 31 characters\n";
    let url_body = "feat: x\n\nsee https://example.com/a/very/long/path/that/goes/on\n";
    vec![
        row(TypeEmpty, Never, none(), "feat: add", false),
        row(TypeEmpty, Never, none(), "update stuff", true),
        row(TypeEmpty, Never, none(), "Update the thing: now", true),
        row(TypeEmpty, Always, none(), "update stuff", false),
        row(TypeEmpty, Always, none(), "feat: add", true),
        row(TypeCase, Always, cases(&[Lower]), "feat: add", false),
        row(TypeCase, Always, cases(&[Lower]), "Feat: add", true),
        row(TypeCase, Always, cases(&[Upper, Lower]), "FEAT: add", false),
        row(TypeCase, Never, cases(&[Lower]), "feat: add", true),
        row(TypeCase, Never, cases(&[Lower]), "FEAT: add", false),
        row(TypeCase, Always, cases(&[Lower]), "update stuff", false),
        row(TypeEnum, Always, names(&["feat", "fix"]), "fix: add", false),
        row(
            TypeEnum,
            Always,
            names(&["feat", "fix"]),
            "feature: add",
            true,
        ),
        row(
            TypeEnum,
            Always,
            names(&["feat", "fix"]),
            "update stuff",
            false,
        ),
        row(TypeEnum, Never, names(&["wip"]), "wip: add", true),
        row(TypeEnum, Never, names(&["wip"]), "feat: add", false),
        row(ScopeEmpty, Never, none(), "feat: add", true),
        row(ScopeEmpty, Never, none(), "feat(cli): add", false),
        row(ScopeEmpty, Always, none(), "feat(cli): add", true),
        row(ScopeEmpty, Always, none(), "feat: add", false),
        row(
            ScopeCase,
            Always,
            cases(&[Lower]),
            "feat(parser): add",
            false,
        ),
        row(
            ScopeCase,
            Always,
            cases(&[Lower]),
            "feat(Parser): add",
            true,
        ),
        row(
            ScopeCase,
            Always,
            cases(&[Lower]),
            "feat(cli/Mcp): add",
            true,
        ),
        row(
            ScopeCase,
            Always,
            cases(&[Lower]),
            "feat(cli, mcp): add",
            false,
        ),
        row(
            ScopeCase,
            Always,
            cases(&[Kebab]),
            "feat(mcp-server): add",
            false,
        ),
        row(
            ScopeCase,
            Always,
            cases(&[Kebab]),
            "feat(mcp_server): add",
            true,
        ),
        row(ScopeCase, Never, cases(&[Upper]), "feat(CLI): add", true),
        row(ScopeCase, Always, cases(&[Lower]), "feat: add", false),
        row(
            ScopeEnum,
            Always,
            names(&["cli", "mcp"]),
            "feat(cli): add",
            false,
        ),
        row(
            ScopeEnum,
            Always,
            names(&["cli", "mcp"]),
            "feat(cli,mcp): add",
            false,
        ),
        row(
            ScopeEnum,
            Always,
            names(&["cli", "mcp"]),
            "feat(cli/core): add",
            true,
        ),
        row(
            ScopeEnum,
            Always,
            names(&["cli", "mcp"]),
            "feat: add",
            false,
        ),
        row(ScopeEnum, Always, names(&["a/b"]), "feat(a/b): add", false), // the whole scope listed
        row(ScopeEnum, Always, names(&[]), "feat(anything): add", false),
        row(
            ScopeEnum,
            Never,
            names(&["legacy"]),
            "feat(legacy): add",
            true,
        ),
        row(
            ScopeEnum,
            Never,
            names(&["legacy"]),
            "feat(cli/legacy): add",
            true,
        ),
        row(
            ScopeEnum,
            Never,
            names(&["legacy"]),
            "feat(cli): add",
            false,
        ),
        row(SubjectEmpty, Never, none(), "feat: add", false),
        row(SubjectEmpty, Never, none(), "feat:", true),
        row(SubjectEmpty, Never, none(), "update stuff", true),
        row(SubjectEmpty, Always, none(), "feat: add", true),
        row(SubjectEmpty, Always, none(), "feat:", false),
        row(
            SubjectCase,
            Never,
            sentence_like(),
            "feat: add parser",
            false,
        ),
        row(
            SubjectCase,
            Never,
            sentence_like(),
            "feat: Add parser",
            true,
        ),
        row(
            SubjectCase,
            Never,
            sentence_like(),
            "feat: Add Parser",
            true,
        ),
        row(SubjectCase, Never, sentence_like(), "feat: AddParser", true),
        row(
            SubjectCase,
            Never,
            sentence_like(),
            "feat: ADD PARSER",
            true,
        ),
        row(
            SubjectCase,
            Never,
            sentence_like(),
            "feat: add `Parser` type",
            false,
        ),
        row(
            SubjectCase,
            Never,
            sentence_like(),
            "feat: `Parser` added",
            false,
        ), // no letter first
        row(
            SubjectCase,
            Never,
            sentence_like(),
            "feat: 2FA login",
            false,
        ),
        row(
            SubjectCase,
            Never,
            sentence_like(),
            "feat: Élan vital",
            true,
        ),
        row(
            SubjectCase,
            Always,
            cases(&[Lower]),
            "feat: add parser",
            false,
        ),
        row(
            SubjectCase,
            Always,
            cases(&[Lower]),
            "feat: add Parser",
            true,
        ),
        row(
            SubjectCase,
            Always,
            cases(&[Sentence]),
            "feat: Add parser",
            false,
        ),
        row(
            SubjectFullStop,
            Never,
            RuleValue::Text(".".into()),
            "feat: add parser",
            false,
        ),
        row(
            SubjectFullStop,
            Never,
            RuleValue::Text(".".into()),
            "feat: add parser.",
            true,
        ),
        row(
            SubjectFullStop,
            Never,
            RuleValue::Text(".".into()),
            "feat: add parser...",
            false,
        ),
        row(
            SubjectFullStop,
            Never,
            RuleValue::Text(".".into()),
            "feat:",
            false,
        ),
        row(
            SubjectFullStop,
            Always,
            RuleValue::Text(".".into()),
            "feat: add parser.",
            false,
        ),
        row(
            SubjectFullStop,
            Always,
            RuleValue::Text(".".into()),
            "feat: add parser",
            true,
        ),
        row(
            SubjectFullStop,
            Never,
            RuleValue::Text("!".into()),
            "feat: add parser!",
            true,
        ),
        row(
            SubjectMaxLength,
            Always,
            RuleValue::Length(10),
            "feat: abcdefghij",
            false,
        ),
        row(
            SubjectMaxLength,
            Always,
            RuleValue::Length(10),
            "feat: abcdefghijk",
            true,
        ),
        row(
            SubjectMaxLength,
            Always,
            RuleValue::Length(10),
            "feat:",
            false,
        ),
        row(HeaderTrim, Always, none(), "feat: add", false),
        row(HeaderTrim, Always, none(), " feat: add", true),
        row(HeaderTrim, Always, none(), "feat: add\t", true),
        row(HeaderTrim, Always, none(), "", false),
        row(
            HeaderMaxLength,
            Always,
            RuleValue::Length(10),
            "feat: abcd",
            false,
        ),
        row(
            HeaderMaxLength,
            Always,
            RuleValue::Length(10),
            "feat: abcde",
            true,
        ),
        row(
            HeaderMaxLength,
            Always,
            RuleValue::Length(10),
            "feat: éééé",
            false,
        ), // characters, not bytes
        row(
            HeaderMaxLength,
            Always,
            RuleValue::Length(10),
            "feat: abcd\n\nbody lines do not count",
            false,
        ),
        row(BodyLeadingBlank, Always, none(), "feat: add\n\nbody", false),
        row(BodyLeadingBlank, Always, none(), "feat: add\nbody", true),
        row(BodyLeadingBlank, Always, none(), "feat: add", false),
        row(BodyLeadingBlank, Never, none(), "feat: add\n\nbody", true),
        row(BodyLeadingBlank, Never, none(), "feat: add\nbody", false),
        row(
            BodyMaxLineLength,
            Always,
            RuleValue::Length(30),
            long_body,
            true,
        ),
        row(
            BodyMaxLineLength,
            Always,
            RuleValue::Length(31),
            long_body,
            false,
        ),
        row(
            BodyMaxLineLength,
            Always,
            RuleValue::Length(30),
            url_body,
            false,
        ),
        row(
            BodyMaxLineLength,
            Always,
            RuleValue::Length(30),
            "feat: a header longer than thirty characters",
            false,
        ),
        row(
            FooterLeadingBlank,
            Always,
            none(),
            "feat: add\n\nbody\n\nRefs #1",
            false,
        ),
        row(
            FooterLeadingBlank,
            Always,
            none(),
            "feat: add\n\nbody\nRefs #1",
            true,
        ),
        row(
            FooterLeadingBlank,
            Always,
            none(),
            "feat: add\n\nbody",
            false,
        ),
        row(
            FooterLeadingBlank,
            Never,
            none(),
            "feat: add\n\nbody\n\nRefs #1",
            true,
        ),
        row(
            FooterMaxLineLength,
            Always,
            RuleValue::Length(30),
            "feat: add\n\nSigned-off-by: Someone <someone@example.com>",
            true,
        ),
        row(
            FooterMaxLineLength,
            Always,
            RuleValue::Length(50),
            "feat: add\n\nSigned-off-by: Someone <someone@example.com>",
            false,
        ),
        row(
            FooterMaxLineLength,
            Always,
            RuleValue::Length(30),
            "feat: add\n\nRefs: https://example.com/issues/12345678",
            false,
        ),
        row(
            FooterMaxLineLength,
            Always,
            RuleValue::Length(30),
            "feat: add\n\na body line that is long, not a footer",
            false,
        ),
    ]
}

#[test]
fn every_rule_passes_and_fails_as_commitlint_says_at_both_levels() {
    let rows = rows();
    let mut failures = Vec::new();
    for row in &rows {
        for level in [Level::Warning, Level::Error] {
            let rules = only(
                row.rule,
                RuleSetting::new(level, row.when, row.value.clone()),
            );
            let findings = rules.check(&view(row.text));
            let expected_severity = if level == Level::Error {
                Severity::Error
            } else {
                Severity::Warning
            };
            let ok = if row.fails {
                findings.len() == 1
                    && findings[0].code == row.rule
                    && findings[0].severity == expected_severity
                    && LintRules::rejects(&findings) == (level == Level::Error)
            } else {
                findings.is_empty()
            };
            if !ok {
                failures.push(format!(
                    "{} {} {:?} on {:?}: expected {}, got {:?}",
                    row.rule,
                    row.when.name(),
                    row.value,
                    row.text,
                    if row.fails { "one finding" } else { "none" },
                    findings
                        .iter()
                        .map(|f| (f.code.name(), f.severity, f.message.as_str()))
                        .collect::<Vec<_>>()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Every rule has a passing and a failing row.
    for rule in Rule::ALL {
        for fails in [false, true] {
            assert!(
                rows.iter().any(|r| r.rule == rule && r.fails == fails),
                "{rule}: no row with fails = {fails}"
            );
        }
    }
}

#[test]
fn an_off_rule_reports_nothing() {
    let mut rules = only(
        Rule::TypeEnum,
        RuleSetting::new(Level::Error, When::Always, names(&["fix"])),
    );
    assert_eq!(rules.check(&view("feat: add")).len(), 1);
    rules.set_level(Rule::TypeEnum, Level::Off);
    assert!(rules.check(&view("feat: add")).is_empty());
}

#[test]
fn findings_point_at_what_is_wrong_and_say_what_to_write() {
    let rules = LintRules::conventional();
    let text = "feature(cli): Add parser.";
    let findings = rules.check(&view(text));
    let at = |rule: Rule| findings.iter().find(|f| f.code == rule).unwrap();
    let enum_finding = at(Rule::TypeEnum);
    assert_eq!(&text[enum_finding.span.range()], "feature");
    assert!(
        enum_finding.help.starts_with("did you mean `feat`?"),
        "{}",
        enum_finding.help
    );
    assert_eq!(enum_finding.field.as_deref(), Some("type"));
    let case = at(Rule::SubjectCase);
    assert_eq!(&text[case.span.range()], "Add parser.");
    assert_eq!(
        case.message,
        "the subject `Add parser.` is sentence-case, which is not allowed"
    );
    assert_eq!(case.help, "write `add parser.`");
    assert_eq!(case.field.as_deref(), Some("description"));
    assert_eq!(&text[at(Rule::SubjectFullStop).span.range()], ".");
    // A length finding covers what is over the limit.
    let long = format!("feat: {}", "x".repeat(100));
    let findings = rules.check(&view(&long));
    assert_eq!(findings.len(), 1);
    assert_eq!(findings[0].span, Span::new(100, 106));
    assert_eq!(
        findings[0].message,
        "the header has 106 characters; the limit is 100"
    );
    assert_eq!(findings[0].label, "6 characters over the limit");
    // The header's problem is what `type-empty` says.
    let findings = rules.check(&view("update stuff"));
    assert_eq!(
        findings[0].message,
        "the header is not `type: subject`: no `:` ends a type"
    );
}

#[test]
fn a_body_line_holding_a_url_is_exempt_from_the_length_rules() {
    let rules = LintRules::conventional();
    let url = format!("https://example.com/{}", "a".repeat(120));
    for text in [
        format!("fix: x\n\nsee {url}\n"),
        format!("fix: x\n\n{url} is where it is\n"),
        format!("fix: x\n\nbody\n\nRefs: {url}\n"),
    ] {
        assert!(rules.check(&view(&text)).is_empty(), "{text}");
    }
    // Not a URL: `\b` before `http`, something after `://`.
    let text = format!("fix: x\n\nxhttps://{}\n", "a".repeat(120));
    let findings = rules.check(&view(&text));
    assert_eq!(
        findings.iter().map(|f| f.code).collect::<Vec<_>>(),
        [Rule::BodyMaxLineLength]
    );
    // Only the lines that are too long and hold no URL count.
    let text = format!(
        "fix: x\n\n{}\nsee {url}\n{}\n",
        "b".repeat(101),
        "c".repeat(102)
    );
    let findings = rules.check(&view(&text));
    assert_eq!(findings.len(), 1);
    assert_eq!(
        findings[0].message,
        "a body line has 101 characters; the limit is 100 (1 line more too long)"
    );
}

#[test]
fn messages_git_and_release_tools_write_get_no_findings() {
    let rules = LintRules::conventional();
    for (text, kind) in [
        ("Merge branch 'main' into topic", IgnoredKind::Merge),
        (
            "Merge pull request #12 from a/b\n\nFix It.",
            IgnoredKind::Merge,
        ),
        (
            "Revert \"feat: add\"\n\nThis reverts commit 1e69d542c16c2a32acfd139e32efa07a45f19111.",
            IgnoredKind::Revert,
        ),
        ("Reapply \"feat: add\"", IgnoredKind::Reapply),
        ("fixup! Feat: Broken header.", IgnoredKind::Autosquash),
        ("v1.2.3", IgnoredKind::Release),
        (
            "2.3.3-beta.1 (ci skip)\n\nSigned-off-by: A <a@b.c>",
            IgnoredKind::Release,
        ),
        ("Automatic merge from CI", IgnoredKind::AutomaticMerge),
    ] {
        let message = view(text);
        assert_eq!(message.ignored, Some(kind), "{text}");
        assert!(rules.check(&message).is_empty(), "{text}");
        // The same text, not marked ignored, does fail: the ignore is what passes it.
        let unmarked = LintMessage {
            ignored: None,
            ..message
        };
        assert!(!rules.check(&unmarked).is_empty(), "{text} fails no rule");
    }
}

// ---------------------------------------------------------------- presets

fn failing(rules: &LintRules, text: &str) -> Vec<(&'static str, Severity)> {
    rules
        .check(&view(text))
        .iter()
        .map(|f: &LintFinding| (f.code.name(), f.severity))
        .collect()
}

#[test]
fn the_conventional_preset_is_config_conventional() {
    use Severity::{Error, Warning};
    let rules = LintRules::conventional();
    let header_100 = format!("fix: {}", "x".repeat(95));
    let header_101 = format!("fix: {}", "x".repeat(96));
    let table: Vec<(String, Vec<(&str, Severity)>)> = vec![
        ("feat(parser): add spans".into(), vec![]),
        ("perf: cache the index\n\nTwo paragraphs.\n\nOf body.\n\nSigned-off-by: A <a@b.c>\nCo-authored-by: B <b@c.d>\nFixes #12".into(), vec![]),
        ("Feat: Add spans.".into(), vec![("type-case", Error), ("type-enum", Error), ("subject-case", Error), ("subject-full-stop", Error)]),
        ("update stuff".into(), vec![("type-empty", Error), ("subject-empty", Error)]),
        ("wip: add".into(), vec![("type-enum", Error)]),
        ("feat(API): add".into(), vec![]), // config-conventional leaves the scope alone
        // Not a conventional header either, as with commitlint's parser.
        (" feat: add".into(), vec![("type-empty", Error), ("subject-empty", Error), ("header-trim", Error)]),
        ("feat: add ".into(), vec![("header-trim", Error)]),
        (header_100, vec![]),
        (header_101, vec![("header-max-length", Error)]),
        ("fix: add\nno blank line".into(), vec![("body-leading-blank", Warning)]),
        ("fix: add\n\nbody\nRefs #1".into(), vec![("footer-leading-blank", Warning)]),
        (format!("fix: add\n\n{}", "y".repeat(101)), vec![("body-max-line-length", Error)]),
        (format!("fix: add\n\nRefs: {}", "z".repeat(101)), vec![("footer-max-line-length", Error)]),
    ];
    for (text, expected) in table {
        assert_eq!(failing(&rules, &text), expected, "{text}");
    }
    for commit_type in [
        "build", "chore", "ci", "docs", "feat", "fix", "perf", "refactor", "revert", "style",
        "test",
    ] {
        assert!(
            failing(&rules, &format!("{commit_type}: add")).is_empty(),
            "{commit_type}"
        );
    }
    // Warnings alone do not reject.
    assert!(!LintRules::rejects(
        &rules.check(&view("fix: add\nno blank line"))
    ));
    assert_eq!(LintRules::default(), rules);
}

#[test]
fn presets_are_named() {
    use quire_grammar::commit::Preset;
    assert_eq!("conventional".parse(), Ok(Preset::Conventional));
    assert_eq!("plan".parse(), Ok(Preset::Plan));
    assert_eq!(
        "angular".parse::<Preset>().unwrap_err().to_string(),
        "unknown preset `angular`; use one of: conventional, plan"
    );
    assert_eq!(Preset::default(), Preset::Conventional);
}

#[test]
fn settings_that_do_not_fit_their_rule_are_refused() {
    let mut rules = LintRules::default();
    let before = rules.clone();
    assert_eq!(
        rules.set(
            Rule::HeaderMaxLength,
            RuleSetting::new(Level::Error, When::Always, names(&["x"]))
        ),
        Err(SettingError::WrongValue {
            rule: Rule::HeaderMaxLength,
            given: quire_grammar::commit::lint::ValueKind::Names
        })
    );
    assert_eq!(
        rules.set(
            Rule::HeaderMaxLength,
            RuleSetting::new(Level::Error, When::Never, RuleValue::Length(5))
        ),
        Err(SettingError::NoNever {
            rule: Rule::HeaderMaxLength
        })
    );
    assert_eq!(rules, before);
    assert_eq!(
        SettingError::WrongValue {
            rule: Rule::TypeEnum,
            given: quire_grammar::commit::lint::ValueKind::Length
        }
        .to_string(),
        "`type-enum` takes a list of names, not a number of characters"
    );
}

#[test]
fn rules_are_named_as_commitlint_names_them() {
    let names: Vec<&str> = Rule::ALL.iter().map(|r| r.name()).collect();
    for name in [
        "type-enum",
        "type-case",
        "type-empty",
        "scope-case",
        "scope-enum",
        "subject-case",
        "subject-empty",
        "subject-full-stop",
        "header-max-length",
        "body-leading-blank",
        "body-max-line-length",
        "footer-leading-blank",
        "footer-max-line-length",
        "header-trim",
    ] {
        assert!(names.contains(&name), "{name}");
        assert_eq!(name.parse::<Rule>().map(Rule::name), Ok(name));
    }
    assert_eq!("commit::type-enum".parse(), Ok(Rule::TypeEnum));
    assert!("type_enum".parse::<Rule>().is_err());
}

// ------------------------------------------------------------- precedence

#[test]
fn configuration_applies_conventional_then_types_and_scopes_then_rules() {
    let text = r#"
[commit]
types = ["feat", "fix", "test"]
scopes = ["cli", "mcp"]

[commit.rules]
subject-case = ["error", "always", "sentence-case"]
"#;
    let config = CommitConfig::parse(text).unwrap();
    let rules = config.lint_rules().unwrap();
    // conventional's own settings, where the file says nothing.
    assert_eq!(rules.get(Rule::HeaderMaxLength).level, Level::Error);
    assert_eq!(rules.get(Rule::ScopeCase).level, Level::Off);
    // `types` replaced conventional's list, `scopes` turned scope-enum on.
    assert_eq!(
        rules.get(Rule::TypeEnum).value,
        names(&["feat", "fix", "test"])
    );
    assert_eq!(rules.get(Rule::ScopeEnum).level, Level::Error);
    assert!(failing(&rules, "test(cli): Add spans").is_empty());
    assert_eq!(
        failing(&rules, "test(core): Add spans"),
        [("scope-enum", Severity::Error)]
    );
    // The rule written out: sentence case required.
    assert_eq!(
        failing(&rules, "fix(cli): add spans"),
        [("subject-case", Severity::Error)]
    );

    // A rule written out wins over `types`.
    let text =
        "[commit]\ntypes = [\"feat\"]\n[commit.rules]\ntype-enum = [\"warning\", [\"fix\"]]\n";
    let rules = CommitConfig::parse(text).unwrap().lint_rules().unwrap();
    assert_eq!(
        rules.get(Rule::TypeEnum),
        &RuleSetting::new(Level::Warning, When::Always, names(&["fix"]))
    );
    // A level alone keeps the preset's sense and value.
    let text = "[commit.rules]\nsubject-case = \"warning\"\nbody-leading-blank = 2\n";
    let rules = CommitConfig::parse(text).unwrap().lint_rules().unwrap();
    let conventional = LintRules::default();
    assert_eq!(
        rules.get(Rule::SubjectCase).value,
        conventional.get(Rule::SubjectCase).value
    );
    assert_eq!(rules.get(Rule::SubjectCase).when, When::Never);
    assert_eq!(rules.get(Rule::SubjectCase).level, Level::Warning);
    assert_eq!(rules.get(Rule::BodyLeadingBlank).level, Level::Error);
    // An empty configuration is the conventional preset.
    assert_eq!(
        CommitConfig::parse("").unwrap().lint_rules().unwrap(),
        conventional
    );
}

// -------------------------------------------------------------- snapshots

/// One failing message per rule, under the conventional preset with the
/// rule turned on where the preset has it off.
fn snapshot_examples() -> Vec<(Rule, RuleSetting, String)> {
    use Case::*;
    use Level::Error;
    use When::{Always, Never};
    let setting = RuleSetting::new;
    vec![
        (Rule::TypeEmpty, setting(Error, Never, RuleValue::None), "Update the parser".into()),
        (Rule::TypeCase, setting(Error, Always, cases(&[Lower])), "Fix(parser): handle empty input".into()),
        (Rule::TypeEnum, setting(Error, Always, names(&["build", "chore", "ci", "docs", "feat", "fix", "perf", "refactor", "revert", "style", "test"])), "feature(parser): handle empty input".into()),
        (Rule::ScopeEmpty, setting(Error, Never, RuleValue::None), "fix: handle empty input".into()),
        (Rule::ScopeCase, setting(Error, Always, cases(&[Lower])), "fix(Parser): handle empty input".into()),
        (Rule::ScopeEnum, setting(Error, Always, names(&["cli", "mcp", "parser"])), "fix(parsr): handle empty input".into()),
        (Rule::SubjectEmpty, setting(Error, Never, RuleValue::None), "fix(parser):".into()),
        (Rule::SubjectCase, setting(Error, Never, cases(&[Sentence, Start, Pascal, Upper])), "fix(parser): Handle empty input".into()),
        (Rule::SubjectFullStop, setting(Error, Never, RuleValue::Text(".".into())), "fix(parser): handle empty input.".into()),
        (Rule::SubjectMaxLength, setting(Error, Always, RuleValue::Length(30)), "fix(parser): handle empty input without a panic".into()),
        (Rule::HeaderTrim, setting(Error, Always, RuleValue::None), "fix(parser): handle empty input  ".into()),
        (Rule::HeaderMaxLength, setting(Error, Always, RuleValue::Length(50)), "fix(parser): handle empty input without a panic and say so".into()),
        (Rule::BodyLeadingBlank, setting(Level::Warning, Always, RuleValue::None), "fix(parser): handle empty input\nAn empty file parsed to a panic.\n".into()),
        (Rule::BodyMaxLineLength, setting(Error, Always, RuleValue::Length(72)), format!("fix(parser): handle empty input\n\nAn empty file parsed to a panic; {}.\nSee https://example.com/issues/12 for the report, which has the whole backtrace.\n", "now it parses to an empty document, which is what every caller expects")),
        (Rule::FooterLeadingBlank, setting(Level::Warning, Always, RuleValue::None), "fix(parser): handle empty input\n\nAn empty file parsed to a panic.\nFixes #12\n".into()),
        (Rule::FooterMaxLineLength, setting(Error, Always, RuleValue::Length(72)), "fix(parser): handle empty input\n\nAn empty file parsed to a panic.\n\nCo-authored-by: Somebody With A Very Long Name <somebody.with.a.very.long.name@example.com>\n".into()),
    ]
}

/// The finding as `quire check` shows it: miette's report without colors,
/// then the JSON a program reads.
fn rendered(text: &str, finding: &LintFinding) -> String {
    let report = miette::Report::new(finding.to_report("COMMIT_EDITMSG", text));
    let mut shown = String::new();
    miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
        .with_width(100)
        .render_report(&mut shown, report.as_ref())
        .unwrap();
    let json = serde_json::to_string_pretty(&finding.located(&LineIndex::new(text))).unwrap();
    format!("message:\n{text}\n---\n{shown}\n---\n{json}\n")
}

#[test]
fn every_rule_renders_its_finding() {
    let examples = snapshot_examples();
    assert_eq!(
        examples.iter().map(|(rule, ..)| *rule).collect::<Vec<_>>(),
        Rule::ALL
    );
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    let mut failures = Vec::new();
    for (rule, setting, text) in examples {
        let findings = only(rule, setting).check(&view(&text));
        assert_eq!(findings.len(), 1, "{rule} on {text:?}: {findings:?}");
        let shown = rendered(&text, &findings[0]);
        assert!(shown.contains(&format!("commit::{rule}")), "{shown}");
        let name = format!("commit-lint__{rule}");
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            settings.bind(|| insta::assert_snapshot!(name.as_str(), shown));
        }));
        if result.is_err() {
            failures.push(name);
        }
    }
    assert!(
        failures.is_empty(),
        "snapshots differ: {}",
        failures.join(", ")
    );
}

// ---------------------------------------------------------------- no panics

mod no_panics {
    use super::*;
    use proptest::prelude::*;

    /// Every rule on, in both senses, with values that make each check run.
    fn every_rule(when: When) -> LintRules {
        let mut rules = LintRules::conventional();
        for rule in Rule::ALL {
            let when = if rule.takes_never() {
                when
            } else {
                When::Always
            };
            let value = match rule.value_kind() {
                quire_grammar::commit::lint::ValueKind::None => RuleValue::None,
                quire_grammar::commit::lint::ValueKind::Length => RuleValue::Length(3),
                quire_grammar::commit::lint::ValueKind::Cases => cases(&Case::ALL),
                quire_grammar::commit::lint::ValueKind::Names => names(&["a", "feat", "b/c"]),
                quire_grammar::commit::lint::ValueKind::Text => RuleValue::Text(".".into()),
            };
            rules
                .set(rule, RuleSetting::new(Level::Error, when, value))
                .unwrap();
        }
        rules
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn any_message_is_checked_without_a_panic(text in "(\\PC|[\\n\\r\\t ]){0,80}") {
            let message = view(&text);
            for when in [When::Always, When::Never] {
                for finding in every_rule(when).check(&message) {
                    prop_assert!(finding.span.end <= text.len());
                    prop_assert!(text.is_char_boundary(finding.span.start) && text.is_char_boundary(finding.span.end));
                    let _ = rendered(&text, &finding);
                }
            }
            let _ = IgnoredKind::detect(&text);
        }

        #[test]
        fn conventional_looking_messages_are_checked_without_a_panic(
            commit_type in "[a-zA-Z]{0,6}",
            scope in proptest::option::of("[a-zA-Z/,\\\\ -]{0,8}"),
            subject in "\\PC{0,40}",
            body in "(\\PC|\\n){0,60}",
        ) {
            let scope = scope.map(|s| format!("({s})")).unwrap_or_default();
            let text = format!("{commit_type}{scope}: {subject}\n\n{body}");
            let message = view(&text);
            for when in [When::Always, When::Never] {
                for finding in every_rule(when).check(&message) {
                    prop_assert!(text.is_char_boundary(finding.span.start) && text.is_char_boundary(finding.span.end));
                }
            }
        }

        #[test]
        fn any_text_is_judged_in_every_case(text in "\\PC{0,40}") {
            for case in Case::ALL {
                let _ = case.matches(&text);
            }
        }

        #[test]
        fn any_configuration_text_is_read_without_a_panic(text in "(\\PC|\\n){0,120}") {
            if let Ok(config) = CommitConfig::parse(&text) {
                let _ = config.lint_rules();
            }
        }

        #[test]
        fn any_rule_setting_is_read_without_a_panic(
            rule in proptest::sample::select(Rule::ALL.to_vec()),
            setting in "\\[(\"(off|warning|error|always|never|lower-case|x)\"|-?[0-9]{1,3}|\\[\\]|\\[\"a\"\\]|, ){0,8}\\]",
        ) {
            let text = format!("[commit.rules]\n{rule} = {setting}\n");
            if let Ok(config) = CommitConfig::parse(&text) {
                let _ = config.lint_rules();
            }
        }
    }
}

// ------------------------------------------------- agreement with commitlint

/// Verdicts of commitlint itself (tests/corpus/commitlint/judge.mjs says
/// how they were made and how to make them again).
const COMMITLINT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus/commitlint");

fn commitlint_rows(name: &str) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(format!("{COMMITLINT}/{name}")).unwrap();
    text.lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

#[test]
fn cases_agree_with_commitlints_ensure_case() {
    let rows = commitlint_rows("cases.jsonl");
    assert!(rows.len() > 1000);
    let mut differ = Vec::new();
    for row in &rows {
        let text = row["text"].as_str().unwrap();
        let theirs: Vec<&str> = row["cases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect();
        let ours: Vec<&str> = Case::ALL
            .iter()
            .filter(|c| c.matches(text))
            .map(|c| c.name())
            .collect();
        if ours != theirs {
            differ.push(format!("{text:?}: quire {ours:?}, commitlint {theirs:?}"));
        }
    }
    assert!(
        differ.is_empty(),
        "{} of {} differ:\n{}",
        differ.len(),
        rows.len(),
        differ.join("\n")
    );
}

#[test]
fn ignores_agree_with_commitlints_is_ignored() {
    let mut rows = commitlint_rows("ignores.jsonl");
    rows.extend(commitlint_rows("rules.jsonl"));
    let mut differ = Vec::new();
    for row in &rows {
        let text = row["text"].as_str().or(row["message"].as_str()).unwrap();
        let theirs = row["ignored"].as_bool().unwrap();
        let ours = IgnoredKind::detect(text);
        if ours.is_some() != theirs {
            differ.push(format!(
                "{text:?}: quire {ours:?}, commitlint ignores: {theirs}"
            ));
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
    assert!(rows.iter().filter(|r| r["ignored"] == true).count() > 40);
}

/// The view of `message` made of the parts commitlint's parser read, so
/// only the rules are compared.
fn commitlint_view<'a>(message: &'a str, parsed: &'a serde_json::Value) -> LintMessage<'a> {
    // A part where commitlint read it (after `from`), or detached when the
    // parser changed it.
    let find = |part: Option<&'a str>, from: usize| -> Option<Spanned<&'a str>> {
        let part = part?;
        Some(match message.get(from..).and_then(|rest| rest.find(part)) {
            Some(at) => Spanned::new(
                &message[from + at..from + at + part.len()],
                Span::new(from + at, from + at + part.len()),
            ),
            None => Spanned::new(part, Span::DETACHED),
        })
    };
    let part = |key: &str| parsed[key].as_str();
    let mut view = LintMessage::header_only(message);
    let header = find(part("header"), 0).unwrap_or(Spanned::new("", Span::DETACHED));
    let after_header = header.span.end;
    view.header = header;
    view.commit_type = find(part("type"), 0);
    view.scope = find(part("scope"), 0);
    view.subject = find(part("subject"), 0);
    view.body = find(part("body"), after_header);
    view.footer = find(part("footer"), after_header);
    // commitlint: the second raw line is empty; the raw line before the
    // footer's first line is empty.
    let lines: Vec<&str> = message
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    view.body_leading_blank = lines.get(1).is_some_and(|l| l.is_empty());
    if let Some(footer) = part("footer") {
        let first = footer.split('\n').next().unwrap_or("");
        let at = lines.iter().position(|l| *l == first);
        view.footer_leading_blank = at
            .and_then(|at| at.checked_sub(1))
            .and_then(|i| lines.get(i))
            == Some(&"");
    }
    view.ignored = IgnoredKind::detect(message);
    view
}

#[test]
fn the_conventional_preset_agrees_with_commitlint_on_real_history() {
    let rows = commitlint_rows("rules.jsonl");
    let rules = LintRules::conventional();
    let mut differ = Vec::new();
    let mut failing = 0;
    for row in &rows {
        let message = row["message"].as_str().unwrap();
        let view = commitlint_view(message, &row["parsed"]);
        let mut ours: Vec<String> = rules
            .check(&view)
            .iter()
            .map(|f| format!("{} {}", f.severity, f.code.name()))
            .collect();
        let mut theirs: Vec<String> = ["errors", "warnings"]
            .iter()
            .flat_map(|key| {
                let severity = if *key == "errors" { "error" } else { "warning" };
                row[*key]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(move |name| format!("{severity} {}", name.as_str().unwrap()))
            })
            .collect();
        ours.sort();
        theirs.sort();
        failing += usize::from(!theirs.is_empty());
        if ours != theirs {
            differ.push(format!(
                "{}: quire {ours:?}, commitlint {theirs:?}",
                row["id"]
            ));
        }
    }
    assert!(
        differ.is_empty(),
        "{} of {} differ:\n{}",
        differ.len(),
        rows.len(),
        differ.join("\n")
    );
    // The corpus exercises the rules: dozens of messages fail some.
    assert!(failing > 40, "{failing}");
}
