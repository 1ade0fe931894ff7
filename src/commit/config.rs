//! `quire.toml`: which commit rules a project uses.
//!
//! ```toml
//! [commit]
//! preset = "conventional"          # or "plan" (the plan grammar's check,
//!                                  # which takes none of the keys below)
//! types = ["feat", "fix", "chore"] # replaces type-enum's list
//! scopes = ["cli", "mcp"]          # scope-enum's list
//! ignores = ["Bump *", "* (#*)"]   # headers let through unjudged (`*`:
//!                                  # any run of characters), as
//!                                  # commitlint's `ignores`
//!
//! [commit.rules]
//! subject-case = "off"                         # a level: "off", "warning", "error"
//! header-max-length = ["error", 72]            # a level and a value
//! scope-empty = ["warning", "never"]           # a level and `always`/`never`
//! type-case = ["error", "always", "lower-case"] # all three, as commitlint writes them
//! ```
//!
//! A rule's setting is commitlint's `[level, when, value]` with the parts
//! that are not needed left out: a bare level keeps the preset's sense and
//! value; `[level, value]` means `always`. Levels may also be written as
//! commitlint's numbers 0, 1, 2. Settings apply in this order: the
//! `conventional` rules, then `types` and `scopes`, then `[commit.rules]`,
//! so a rule written out wins. (`--preset` on the command line wins over
//! `preset`.)
//!
//! Every mistake is reported with its line, the key, and what to write
//! instead; all of them at once, not only the first. This module reads a
//! text and touches no file: [`find_config`] finds the file given a way to
//! ask whether a path exists, and the command line reads it.

use std::fmt;
use std::path::{Path, PathBuf};

use toml::de::{DeTable, DeValue};

use super::ignores::HeaderPattern;
use super::lint::{
    Case, Level, LintRules, Rule, RuleSetting, RuleValue, SettingError, ValueKind, When,
};
use super::preset::Preset;
use crate::diagnostics::{Diagnostic, LineIndex, Report, Severity, diagnostic_codes, one_line};
use crate::span::{Span, Spanned};

/// The configuration file's name.
pub const CONFIG_FILE_NAME: &str = "quire.toml";

/// The nearest `quire.toml` in `start` or a folder above it, asking
/// `exists` whether a path is a file; `None` when there is none up to the
/// root. Pure, so the caller decides how to look (and tests need no files).
///
/// ```
/// use std::path::{Path, PathBuf};
/// use quire_grammar::commit::config::find_config;
///
/// let found = find_config(Path::new("/work/repo/src/cli"), |p| p == Path::new("/work/repo/quire.toml"));
/// assert_eq!(found, Some(PathBuf::from("/work/repo/quire.toml")));
/// assert_eq!(find_config(Path::new("/work"), |_| false), None);
/// ```
pub fn find_config(start: &Path, exists: impl Fn(&Path) -> bool) -> Option<PathBuf> {
    start
        .ancestors()
        .map(|folder| folder.join(CONFIG_FILE_NAME))
        .find(|candidate| exists(candidate))
}

diagnostic_codes! {
    /// Why a `quire.toml` was refused. Printed as `config::<snake_case>`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    #[non_exhaustive]
    pub enum ConfigCode {
        /// The text is not TOML.
        Syntax => "config::syntax",
        /// A key quire does not know.
        UnknownKey => "config::unknown_key",
        /// A value of the wrong type (a number where a list belongs, ...).
        WrongType => "config::wrong_type",
        /// A preset name that is not one of the presets.
        UnknownPreset => "config::unknown_preset",
        /// A rule name that is not one of the rules.
        UnknownRule => "config::unknown_rule",
        /// A case name that is not one of the cases.
        UnknownCase => "config::unknown_case",
        /// A rule setting that does not fit the rule: a value it does not
        /// take, `never` where it has no such sense, a value missing.
        BadSetting => "config::bad_setting",
        /// `preset = "plan"` with `types`, `scopes` or `[commit.rules]`,
        /// which adjust the `conventional` rules and mean nothing to the
        /// plan grammar's check.
        PlanWithRules => "config::plan_with_rules",
    }
}

/// One problem of a `quire.toml`.
pub type ConfigDiagnostic = Diagnostic<ConfigCode>;

/// A `quire.toml` that cannot be used: every problem found, over the text.
/// Implements [`miette::Diagnostic`] with each problem as a related
/// diagnostic (line, label, help), as [`crate::plan::PlanError`] does.
#[derive(Clone, Debug)]
pub struct ConfigError {
    source: String,
    problems: Vec<ConfigDiagnostic>,
    reports: Vec<Report>,
}

impl ConfigError {
    fn new(source: &str, mut problems: Vec<ConfigDiagnostic>) -> ConfigError {
        problems.sort_by_key(|p| (p.span.start, p.span.end));
        let reports = problems
            .iter()
            .map(|p| p.to_report(CONFIG_FILE_NAME, source))
            .collect();
        ConfigError {
            source: source.to_owned(),
            problems,
            reports,
        }
    }

    /// Every problem, in the order of the text.
    pub fn problems(&self) -> &[ConfigDiagnostic] {
        &self.problems
    }

    /// The configuration text.
    pub fn source_text(&self) -> &str {
        &self.source
    }
}

/// `quire.toml line 4: message (help)`, then how many more problems.
impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let index = LineIndex::new(&self.source);
        match self.problems.first() {
            Some(first) => {
                let (line, _) = index.line_column(first.span.start);
                write!(
                    f,
                    "{CONFIG_FILE_NAME} line {line}: {} ({})",
                    one_line(&first.message),
                    one_line(&first.help)
                )?;
            }
            None => write!(f, "{CONFIG_FILE_NAME} cannot be used")?,
        }
        match self.problems.len() {
            0 | 1 => Ok(()),
            2 => f.write_str(" (and 1 more problem)"),
            n => write!(f, " (and {} more problems)", n - 1),
        }
    }
}

impl std::error::Error for ConfigError {}

impl miette::Diagnostic for ConfigError {
    fn related<'a>(&'a self) -> Option<Box<dyn Iterator<Item = &'a dyn miette::Diagnostic> + 'a>> {
        Some(Box::new(
            self.reports.iter().map(|r| r as &dyn miette::Diagnostic),
        ))
    }
}

/// How `quire.toml` sets one rule, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleOverride {
    /// The rule.
    pub rule: Rule,
    /// Its level.
    pub level: Level,
    /// `always`/`never`, when written.
    pub when: Option<When>,
    /// The value, when written.
    pub value: Option<RuleValue>,
    /// Where the setting is written (the key and its value).
    pub span: Span,
}

/// The `[commit]` table of a `quire.toml`.
///
/// ```
/// use quire_grammar::commit::config::CommitConfig;
/// use quire_grammar::commit::lint::{Level, Rule, RuleValue};
///
/// let config = CommitConfig::parse("[commit]\ntypes = [\"feat\", \"fix\"]\n\n[commit.rules]\nheader-max-length = [\"error\", 72]\n")?;
/// let rules = config.lint_rules()?;
/// assert_eq!(rules.get(Rule::HeaderMaxLength).value, RuleValue::Length(72));
/// assert_eq!(rules.get(Rule::TypeEnum).value, RuleValue::Names(vec!["feat".into(), "fix".into()]));
///
/// let error = CommitConfig::parse("[commit]\npreset = \"angular\"\n").unwrap_err();
/// assert_eq!(
///     error.to_string(),
///     "quire.toml line 2: unknown preset `angular` (use one of: conventional, plan)"
/// );
/// # Ok::<(), quire_grammar::commit::config::ConfigError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CommitConfig {
    /// `preset`, with where it is written.
    pub preset: Option<Spanned<Preset>>,
    /// `types`: type-enum's list.
    pub types: Option<Vec<String>>,
    /// `scopes`: scope-enum's list.
    pub scopes: Option<Vec<String>>,
    /// `[commit.rules]`, in the order of the text.
    pub rules: Vec<RuleOverride>,
    /// `ignores`: a message whose header one of them matches is skipped,
    /// with either preset.
    pub ignores: Vec<HeaderPattern>,
    source: String,
}

/// The keys of `[commit]`.
const COMMIT_KEYS: [&str; 5] = ["preset", "types", "scopes", "ignores", "rules"];

impl CommitConfig {
    /// Reads the `[commit]` table of a `quire.toml` text. A text without
    /// one is the default configuration (the `conventional` preset).
    pub fn parse(text: &str) -> Result<CommitConfig, ConfigError> {
        let mut reader = Reader {
            problems: Vec::new(),
        };
        let config = reader.document(text);
        if reader.problems.is_empty() {
            Ok(config)
        } else {
            Err(ConfigError::new(text, reader.problems))
        }
    }

    /// The check the file names: its `preset`, or `conventional`.
    pub fn preset(&self) -> Preset {
        self.preset.as_ref().map(|p| p.value).unwrap_or_default()
    }

    /// The rules this configuration makes for the `conventional` check:
    /// [`LintRules::conventional`], then `types` and `scopes`, then each
    /// rule of `[commit.rules]`. (A file whose preset is `plan` has none of
    /// these: [`CommitConfig::parse`] refuses them there.)
    ///
    /// Fails when a rule is turned on by its level alone but
    /// `conventional` has it off and it has no usual value
    /// (`subject-max-length = "error"`: how long?).
    pub fn lint_rules(&self) -> Result<LintRules, ConfigError> {
        let mut rules = LintRules::conventional();
        if let Some(types) = &self.types {
            rules.set_types(types.iter().cloned());
        }
        if let Some(scopes) = &self.scopes {
            rules.set_scopes(scopes.iter().cloned());
        }
        let mut problems = Vec::new();
        for rule_override in &self.rules {
            if let Err(problem) = apply(&mut rules, rule_override) {
                problems.push(problem);
            }
        }
        if problems.is_empty() {
            Ok(rules)
        } else {
            Err(ConfigError::new(&self.source, problems))
        }
    }
}

/// Sets one rule as `given` says. What is left out comes from `rules` as
/// `conventional` made them; for a rule it has off, from the rule's usual
/// setting, or it is an error when the rule has none.
fn apply(rules: &mut LintRules, given: &RuleOverride) -> Result<(), ConfigDiagnostic> {
    let rule = given.rule;
    let base = rules.get(rule).clone();
    let value = match &given.value {
        Some(value) => value.clone(),
        None if base.level == Level::Off && given.level != Level::Off => {
            match rule.usual_setting(given.level) {
                Some(usual) => usual.value,
                None => {
                    return Err(problem(
                        ConfigCode::BadSetting,
                        given.span,
                        format!(
                            "`{rule}` is off in the `conventional` preset, so it has no value to turn on"
                        ),
                        "needs a value",
                        format!("give its value: `{rule} = {}`", example(rule)),
                    ));
                }
            }
        }
        None => base.value.clone(),
    };
    let when = given.when.unwrap_or(if base.level == Level::Off {
        rule.usual_setting(given.level)
            .map_or(base.when, |usual| usual.when)
    } else {
        base.when
    });
    rules
        .set(rule, RuleSetting::new(given.level, when, value))
        .map_err(|error| {
            let help = match error {
                SettingError::NoNever { .. } => {
                    format!("leave `never` out: `{rule} = {}`", example(rule))
                }
                SettingError::WrongValue { .. } => format!("write `{rule} = {}`", example(rule)),
            };
            problem(
                ConfigCode::BadSetting,
                given.span,
                error.to_string(),
                "does not fit the rule",
                help,
            )
        })
}

/// How a rule's setting is written, for help texts.
fn example(rule: Rule) -> &'static str {
    match rule {
        Rule::TypeEnum => r#"["error", ["feat", "fix"]]"#,
        Rule::ScopeEnum => r#"["error", ["cli", "parser"]]"#,
        Rule::TypeCase | Rule::ScopeCase => r#"["error", "always", "lower-case"]"#,
        Rule::SubjectCase => r#"["error", "never", ["sentence-case", "upper-case"]]"#,
        Rule::SubjectFullStop => r#"["error", "never", "."]"#,
        Rule::SubjectMaxLength => r#"["error", 72]"#,
        Rule::HeaderMaxLength => r#"["error", 100]"#,
        Rule::BodyMaxLineLength | Rule::FooterMaxLineLength => r#"["warning", 100]"#,
        Rule::TypeEmpty | Rule::ScopeEmpty | Rule::SubjectEmpty => r#"["error", "never"]"#,
        Rule::HeaderTrim | Rule::BodyLeadingBlank | Rule::FooterLeadingBlank => r#""error""#,
    }
}

fn problem(
    code: ConfigCode,
    span: Span,
    message: impl Into<String>,
    label: impl Into<String>,
    help: impl Into<String>,
) -> ConfigDiagnostic {
    Diagnostic {
        code,
        severity: Severity::Error,
        message: message.into(),
        label: label.into(),
        help: help.into(),
        span,
        field: None,
    }
}

type Value<'i> = toml::Spanned<DeValue<'i>>;

fn span_of<T>(spanned: &toml::Spanned<T>) -> Span {
    spanned.span().into()
}

/// The problems found so far.
struct Reader {
    problems: Vec<ConfigDiagnostic>,
}

impl Reader {
    fn report(
        &mut self,
        code: ConfigCode,
        span: Span,
        message: impl Into<String>,
        label: &str,
        help: impl Into<String>,
    ) {
        self.problems
            .push(problem(code, span, message, label, help));
    }

    /// `key` holds a value of the wrong type; `write` is how to write it
    /// (after `key = `), or for a table, the section to write instead.
    fn wrong_type(&mut self, key: &str, value: &Value<'_>, expected: &str, write: &str) {
        let help = if expected == "a table" {
            format!("write a [{write}] section, or `{key} = {{ ... }}`")
        } else {
            format!("write `{key} = {write}`")
        };
        self.report(
            ConfigCode::WrongType,
            span_of(value),
            format!(
                "`{key}` is {}, and must be {expected}",
                a_type(value.get_ref())
            ),
            "wrong type",
            help,
        );
    }

    fn document(&mut self, text: &str) -> CommitConfig {
        let mut config = CommitConfig {
            source: text.to_owned(),
            ..CommitConfig::default()
        };
        let table = match DeTable::parse(text) {
            Ok(table) => table,
            Err(error) => {
                let span = error.span().map_or(Span::at(0), Span::from);
                self.report(
                    ConfigCode::Syntax,
                    span,
                    format!("not TOML: {}", error.message().trim_end()),
                    "here",
                    "fix the TOML syntax (https://toml.io)",
                );
                return config;
            }
        };
        for (key, value) in table.get_ref() {
            if key.get_ref() == "commit" {
                match value.get_ref() {
                    DeValue::Table(commit) => self.commit(commit, &mut config),
                    _ => self.wrong_type("commit", value, "a table", "commit"),
                }
            } else {
                self.report(
                    ConfigCode::UnknownKey,
                    span_of(key),
                    format!("unknown key `{}`", key.get_ref()),
                    "unknown key",
                    "quire.toml has one section, [commit]",
                );
            }
        }
        config
    }

    fn commit(&mut self, commit: &DeTable<'_>, config: &mut CommitConfig) {
        for (key, value) in commit {
            match key.get_ref().as_ref() {
                "preset" => config.preset = self.preset(value),
                "types" => {
                    config.types = self.names("types", value, r#"["feat", "fix"]"#);
                    // type-enum with no types refuses every type
                    // (commitlint's reading); nobody means that.
                    if config.types.as_ref().is_some_and(Vec::is_empty) {
                        config.types = None;
                        self.report(
                            ConfigCode::BadSetting,
                            span_of(value),
                            "`types` is empty, which would refuse every type",
                            "no types",
                            "list the types, leave `types` out to keep the preset's, or turn the rule off: `type-enum = \"off\"` in [commit.rules]",
                        );
                    }
                }
                "scopes" => config.scopes = self.names("scopes", value, r#"["cli", "parser"]"#),
                "ignores" => {
                    let patterns = self.names("ignores", value, r#"["Bump *", "* (#*)"]"#);
                    for pattern in patterns.unwrap_or_default() {
                        if pattern.trim().is_empty() || pattern.chars().all(|c| c == '*') {
                            self.report(
                                ConfigCode::BadSetting,
                                span_of(value),
                                format!(
                                    "the pattern `{}` in `ignores` would skip every message",
                                    one_line(&pattern)
                                ),
                                "skips everything",
                                "write what the headers to skip start or end with, such as `Bump *` or `* (#*)`",
                            );
                        } else {
                            config.ignores.push(HeaderPattern::new(pattern));
                        }
                    }
                }
                "rules" => match value.get_ref() {
                    DeValue::Table(rules) => {
                        for (name, setting) in rules {
                            if let Some(rule_override) = self.rule(name, setting) {
                                config.rules.push(rule_override);
                            }
                        }
                    }
                    _ => self.wrong_type("rules", value, "a table", "commit.rules"),
                },
                other => {
                    let help = match other.parse::<Rule>() {
                        Ok(rule) => {
                            format!("rules go in [commit.rules]: write `{rule} = ...` there")
                        }
                        Err(_) => format!("the keys of [commit] are: {}", COMMIT_KEYS.join(", ")),
                    };
                    self.report(
                        ConfigCode::UnknownKey,
                        span_of(key),
                        format!("unknown key `{other}` in [commit]"),
                        "unknown key",
                        help,
                    );
                }
            }
        }
        config.rules.sort_by_key(|r| r.span.start);
        self.plan_without_rules(config);
    }

    /// `preset = "plan"` names the plan grammar's check, which has its
    /// own rules: settings for the `conventional` rules next to it would be
    /// silently dead, so they are refused.
    fn plan_without_rules(&mut self, config: &CommitConfig) {
        let Some(preset) = config.preset.as_ref().filter(|p| p.value == Preset::Plan) else {
            return;
        };
        let given: Vec<&str> = [
            (config.types.is_some(), "`types`"),
            (config.scopes.is_some(), "`scopes`"),
            (!config.rules.is_empty(), "[commit.rules]"),
        ]
        .into_iter()
        .filter_map(|(present, name)| present.then_some(name))
        .collect();
        if given.is_empty() {
            return;
        }
        self.report(
            ConfigCode::PlanWithRules,
            preset.span,
            format!(
                "preset `plan` is the plan grammar's own check; {} adjust the `conventional` rules and would do nothing",
                given.join(" and ")
            ),
            "the plan grammar's check",
            format!(
                "remove {} or write `preset = \"conventional\"`",
                given.join(" and ")
            ),
        );
    }

    fn preset(&mut self, value: &Value<'_>) -> Option<Spanned<Preset>> {
        let Some(name) = value.get_ref().as_str() else {
            self.wrong_type("preset", value, "a string", "\"conventional\"");
            return None;
        };
        match name.parse::<Preset>() {
            Ok(preset) => Some(Spanned::new(preset, span_of(value))),
            Err(error) => {
                let help = error.to_string();
                let help = help
                    .split_once("; ")
                    .map_or(help.as_str(), |(_, h)| h)
                    .to_owned();
                self.report(
                    ConfigCode::UnknownPreset,
                    span_of(value),
                    format!("unknown preset `{name}`"),
                    "unknown preset",
                    help,
                );
                None
            }
        }
    }

    fn names(&mut self, key: &str, value: &Value<'_>, write: &str) -> Option<Vec<String>> {
        let strings = value.get_ref().as_array().and_then(|items| {
            items
                .iter()
                .map(|item| item.get_ref().as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
        });
        if strings.is_none() {
            self.wrong_type(key, value, "a list of strings", write);
        }
        strings
    }

    fn rule(
        &mut self,
        name: &toml::Spanned<toml::de::DeString<'_>>,
        setting: &Value<'_>,
    ) -> Option<RuleOverride> {
        let rule = match name.get_ref().parse::<Rule>() {
            Ok(rule) => rule,
            Err(_) => {
                let known = Rule::ALL.map(Rule::name);
                let near = known
                    .iter()
                    .map(|k| (strsim::osa_distance(name.get_ref(), k), k))
                    .filter(|(d, _)| *d <= 3)
                    .min_by_key(|(d, _)| *d);
                let help = match near {
                    Some((_, k)) => {
                        format!("did you mean `{k}`? The rules are: {}", known.join(", "))
                    }
                    None => format!("the rules are: {}", known.join(", ")),
                };
                self.report(
                    ConfigCode::UnknownRule,
                    span_of(name),
                    format!("unknown rule `{}`", name.get_ref()),
                    "unknown rule",
                    help,
                );
                return None;
            }
        };
        let span = Span::new(name.span().start, setting.span().end);
        let bad = |reader: &mut Reader, at: &Value<'_>, message: String| {
            reader.report(
                ConfigCode::BadSetting,
                span_of(at),
                message,
                "here",
                format!(
                    "write `{rule} = {}`, or a level alone: \"off\", \"warning\", \"error\"",
                    example(rule)
                ),
            );
        };
        let parts: Vec<&Value<'_>> = match setting.get_ref() {
            DeValue::Array(items) => items.iter().collect(),
            _ => vec![setting],
        };
        let Some((level_part, rest)) = parts.split_first() else {
            bad(self, setting, format!("`{rule}` is set to an empty list"));
            return None;
        };
        let Some(level) = level_of(level_part.get_ref()) else {
            let message = if matches!(setting.get_ref(), DeValue::Array(_)) {
                format!(
                    "`{rule}`'s setting must start with a level, not {}",
                    a_type(level_part.get_ref())
                )
            } else {
                format!(
                    "`{rule}` is set to {}; a rule is set with a level or a list",
                    a_type(level_part.get_ref())
                )
            };
            bad(self, level_part, message);
            return None;
        };
        let (when, rest) = match rest.split_first() {
            Some((first, more)) => match first.get_ref().as_str() {
                Some("always") => (Some(When::Always), more),
                Some("never") => (Some(When::Never), more),
                _ => (None, rest),
            },
            None => (None, rest),
        };
        let value = match rest {
            [] => None,
            [value] => Some(self.value(rule, value)?),
            [_, extra, ..] => {
                bad(
                    self,
                    extra,
                    format!("`{rule}`'s setting has more parts than [level, when, value]"),
                );
                return None;
            }
        };
        Some(RuleOverride {
            rule,
            level,
            when,
            value,
            span,
        })
    }

    fn value(&mut self, rule: Rule, value: &Value<'_>) -> Option<RuleValue> {
        let kind = rule.value_kind();
        let raw = value.get_ref();
        let parsed = match kind {
            ValueKind::None => None,
            ValueKind::Length => raw
                .as_integer()
                .and_then(|n| usize::from_str_radix(n.as_str(), n.radix()).ok())
                .map(RuleValue::Length),
            ValueKind::Text => raw.as_str().map(|s| RuleValue::Text(s.to_owned())),
            ValueKind::Names => raw.as_array().and_then(|items| {
                items
                    .iter()
                    .map(|item| item.get_ref().as_str().map(str::to_owned))
                    .collect::<Option<Vec<_>>>()
                    .map(RuleValue::Names)
            }),
            ValueKind::Cases => {
                let names: Option<Vec<&Value<'_>>> = match raw {
                    DeValue::String(_) => Some(vec![value]),
                    DeValue::Array(items) => Some(items.iter().collect()),
                    _ => None,
                };
                let names = names.filter(|n| n.iter().all(|v| v.get_ref().is_str()));
                return match names {
                    Some(names) => self.cases(&names).map(RuleValue::Cases),
                    None => {
                        self.setting_problem(rule, value, kind);
                        None
                    }
                };
            }
        };
        if parsed.is_none() {
            self.setting_problem(rule, value, kind);
        }
        parsed
    }

    fn setting_problem(&mut self, rule: Rule, value: &Value<'_>, kind: ValueKind) {
        let message = match kind {
            ValueKind::None => format!("`{rule}` takes no value"),
            _ => format!(
                "`{rule}` takes {}, not {}",
                kind.describe(),
                a_type(value.get_ref())
            ),
        };
        self.report(
            ConfigCode::BadSetting,
            span_of(value),
            message,
            "does not fit the rule",
            format!("write `{rule} = {}`", example(rule)),
        );
    }

    fn cases(&mut self, names: &[&Value<'_>]) -> Option<Vec<Case>> {
        let mut cases = Vec::new();
        let mut all_known = true;
        for name in names {
            let text = name.get_ref().as_str().unwrap_or_default();
            match text.parse::<Case>() {
                Ok(case) => cases.push(case),
                Err(_) => {
                    all_known = false;
                    self.report(
                        ConfigCode::UnknownCase,
                        span_of(name),
                        format!("unknown case `{text}`"),
                        "unknown case",
                        format!("use one of: {}", Case::ALL.map(Case::name).join(", ")),
                    );
                }
            }
        }
        all_known.then_some(cases)
    }
}

/// A level: `"off"`, `"warning"`, `"error"`, or commitlint's 0, 1, 2.
fn level_of(value: &DeValue<'_>) -> Option<Level> {
    match value {
        DeValue::String(name) => match name.as_ref() {
            "off" => Some(Level::Off),
            "warning" => Some(Level::Warning),
            "error" => Some(Level::Error),
            _ => None,
        },
        DeValue::Integer(n) => match (n.as_str(), n.radix()) {
            ("0", _) => Some(Level::Off),
            ("1", _) => Some(Level::Warning),
            ("2", _) => Some(Level::Error),
            _ => None,
        },
        _ => None,
    }
}

/// A TOML value's type, with the value when short, for messages.
fn a_type(value: &DeValue<'_>) -> String {
    match value {
        DeValue::String(s) if s.chars().count() <= 40 => format!("the string \"{s}\""),
        DeValue::String(_) => "a string".to_owned(),
        DeValue::Integer(n) => format!("the number {}", n.as_str()),
        DeValue::Float(_) => "a fractional number".to_owned(),
        DeValue::Boolean(b) => format!("{b}"),
        DeValue::Datetime(_) => "a date".to_owned(),
        DeValue::Array(_) => "a list".to_owned(),
        DeValue::Table(_) => "a table".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::assert_codes_are_distinct;

    #[test]
    fn every_code_has_its_own_name() {
        assert_codes_are_distinct(&ConfigCode::ALL, "config");
    }

    #[test]
    fn every_example_is_a_valid_setting() {
        for rule in Rule::ALL {
            let text = format!("[commit.rules]\n{rule} = {}\n", example(rule));
            let config = CommitConfig::parse(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
            config
                .lint_rules()
                .unwrap_or_else(|e| panic!("{text}: {e}"));
        }
    }
}
