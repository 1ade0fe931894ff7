//! commitlint's rules over a parsed commit message: named rules, each with a
//! level (off, warning, error), `always` or `never`, and a value: those of
//! `@commitlint/config-conventional` ([`LintRules::conventional`]), as a
//! `quire.toml` adjusts them ([`crate::commit::config`]).
//!
//! The rules read a [`LintMessage`], a small view of the message (header,
//! type, scope, subject, body, footer block and where each is), so they do
//! not depend on how the message was parsed; the commit grammar fills it.
//! Each rule means what commitlint's rule of that name means, down to its
//! quirks (a subject's case is judged as `@commitlint/ensure` judges it, a
//! line holding a URL is exempt from the line length rules), so a project
//! moving from commitlint gets the same verdicts. Two departures, both
//! stricter in what they accept and clearer in what they say: lengths count
//! characters (commitlint counts UTF-16 units, so an emoji counts twice),
//! and `never` is refused, not ignored, on the rules it cannot apply to.
//!
//! A failed rule is a [`LintFinding`]: the crate's [`Diagnostic`] with the
//! rule as its code (`commit::type-enum`), so it renders, serializes and
//! locates exactly as the plan grammar's findings do.
//!
//! Hand-written: commitlint is JavaScript, and the Rust ports (`cocogitto`,
//! `git-conventional`) check the grammar but not these rules.

mod case;
mod check;
mod ignore;
mod rule;

use std::collections::BTreeMap;

pub use case::{Case, UnknownCase};
pub use ignore::IgnoredKind;
pub use rule::{Level, Rule, RuleSetting, RuleValue, UnknownRule, ValueKind, When};

use crate::diagnostics::Diagnostic;
use crate::span::{Span, Spanned};

/// A rule that failed: the rule (its printed code is `commit::<rule>`),
/// warning or error, message, label at the span, help. Implements
/// [`miette::Diagnostic`] and serializes as every quire diagnostic does.
pub type LintFinding = Diagnostic<Rule>;

/// What the rules look at: the parts of one commit message and where each
/// was written. Every span indexes `text`.
///
/// The commit grammar fills it from a parsed message; a header that is not
/// `type(scope): subject` leaves `commit_type`, `scope` and `subject` empty
/// and says why in `header_problem`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LintMessage<'a> {
    /// The whole message (comments already stripped, as git strips them).
    pub text: &'a str,
    /// The first line, without its line ending.
    pub header: Spanned<&'a str>,
    /// The type before `(scope)`/`!`/`:`, when the header has one.
    pub commit_type: Option<Spanned<&'a str>>,
    /// What is between the parentheses; `None` when there are none.
    pub scope: Option<Spanned<&'a str>>,
    /// The description after `: `, when the header has one.
    pub subject: Option<Spanned<&'a str>>,
    /// The body: from its first line to the end of its last, footers not
    /// included; `None` when there is none.
    pub body: Option<Spanned<&'a str>>,
    /// Whether a blank line separates the header from the body (or from
    /// whatever follows the header).
    pub body_leading_blank: bool,
    /// The footer block (trailers, `BREAKING CHANGE:`), from its first line
    /// to the end of its last; `None` when there is none.
    pub footer: Option<Spanned<&'a str>>,
    /// Whether a blank line comes right before the footer block.
    pub footer_leading_blank: bool,
    /// Set when the message is one git or a release tool writes (a merge, a
    /// revert, ...): such a message gets no findings.
    /// [`IgnoredKind::detect`] gives commitlint's verdict.
    pub ignored: Option<IgnoredKind>,
    /// Why the header is not a conventional header, and where, when it is
    /// not: `type-empty` reports it.
    pub header_problem: Option<Spanned<String>>,
}

impl<'a> LintMessage<'a> {
    /// A message of a header and nothing else; the parts are the caller's
    /// to fill. For building views by hand (tests, other grammars).
    pub fn header_only(text: &'a str) -> LintMessage<'a> {
        let end = text.find(['\n', '\r']).unwrap_or(text.len());
        LintMessage {
            text,
            header: Spanned::new(&text[..end], Span::new(0, end)),
            commit_type: None,
            scope: None,
            subject: None,
            body: None,
            body_leading_blank: true,
            footer: None,
            footer_leading_blank: true,
            ignored: None,
            header_problem: None,
        }
    }
}

/// The types of `@commitlint/config-conventional`.
pub const CONVENTIONAL_TYPES: [&str; 11] = [
    "build", "chore", "ci", "docs", "feat", "fix", "perf", "refactor", "revert", "style", "test",
];

/// A setting given a rule it does not fit: a value of the wrong kind, or
/// `never` where the rule has no such sense.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SettingError {
    /// The value is not of the kind the rule takes.
    #[error("`{rule}` takes {expected}, not {given}", expected = rule.value_kind().describe(), given = given.describe())]
    WrongValue {
        /// The rule.
        rule: Rule,
        /// The kind of the value given.
        given: ValueKind,
    },
    /// `never` on a rule that cannot be turned around.
    #[error("`{rule}` has no `never` form")]
    NoNever {
        /// The rule.
        rule: Rule,
    },
}

/// Every rule's setting: which rules run, how bad their failures are, and
/// with what values.
///
/// Start from commitlint's conventional rules, change what you need, then
/// [`check`](LintRules::check) messages:
///
/// ```
/// use quire_grammar::commit::lint::{Level, LintMessage, LintRules, Rule};
/// use quire_grammar::span::{Span, Spanned};
///
/// let text = "feature: Add parser.";
/// let message = LintMessage {
///     commit_type: Some(Spanned::new("feature", Span::new(0, 7))),
///     subject: Some(Spanned::new("Add parser.", Span::new(9, 20))),
///     ..LintMessage::header_only(text)
/// };
/// let rules = LintRules::conventional();
/// let failed: Vec<&str> = rules.check(&message).iter().map(|f| f.code.name()).collect();
/// assert_eq!(failed, ["type-enum", "subject-case", "subject-full-stop"]);
///
/// let mut rules = rules;
/// rules.set_types(["feature", "fix"]);
/// rules.set_level(Rule::SubjectCase, Level::Off);
/// let failed: Vec<&str> = rules.check(&message).iter().map(|f| f.code.name()).collect();
/// assert_eq!(failed, ["subject-full-stop"]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LintRules {
    settings: BTreeMap<Rule, RuleSetting>,
}

impl LintRules {
    /// `@commitlint/config-conventional`'s rules: types `build`, `chore`,
    /// `ci`, `docs`, `feat`, `fix`, `perf`, `refactor`, `revert`, `style`,
    /// `test` in lower case; a type and a subject; the subject not in
    /// sentence, start, pascal or upper case and without a full stop; a
    /// header of at most 100 characters without surrounding white space;
    /// body and footer lines of at most 100 characters (errors); blank
    /// lines before body and footer (warnings).
    ///
    /// (The `plan` preset is not a set of these rules: it is the plan
    /// grammar's own check, [`crate::plan::validate`].)
    pub fn conventional() -> LintRules {
        use Level::{Error, Off, Warning};
        use When::{Always, Never};
        let names =
            |names: &[&str]| RuleValue::Names(names.iter().map(|&n| n.to_owned()).collect());
        let length = RuleValue::Length;
        let conventional = [
            (Rule::TypeEmpty, Error, Never, RuleValue::None),
            (
                Rule::TypeCase,
                Error,
                Always,
                RuleValue::Cases(vec![Case::Lower]),
            ),
            (Rule::TypeEnum, Error, Always, names(&CONVENTIONAL_TYPES)),
            (Rule::ScopeEmpty, Off, Never, RuleValue::None),
            (
                Rule::ScopeCase,
                Off,
                Always,
                RuleValue::Cases(vec![Case::Lower]),
            ),
            (Rule::ScopeEnum, Off, Always, names(&[])),
            (Rule::SubjectEmpty, Error, Never, RuleValue::None),
            (
                Rule::SubjectCase,
                Error,
                Never,
                RuleValue::Cases(vec![Case::Sentence, Case::Start, Case::Pascal, Case::Upper]),
            ),
            (
                Rule::SubjectFullStop,
                Error,
                Never,
                RuleValue::Text(".".to_owned()),
            ),
            (Rule::SubjectMaxLength, Off, Always, length(100)),
            (Rule::HeaderTrim, Error, Always, RuleValue::None),
            (Rule::HeaderMaxLength, Error, Always, length(100)),
            (Rule::BodyLeadingBlank, Warning, Always, RuleValue::None),
            (Rule::BodyMaxLineLength, Error, Always, length(100)),
            (Rule::FooterLeadingBlank, Warning, Always, RuleValue::None),
            (Rule::FooterMaxLineLength, Error, Always, length(100)),
        ];
        LintRules {
            settings: conventional
                .into_iter()
                .map(|(rule, level, when, value)| (rule, RuleSetting { level, when, value }))
                .collect(),
        }
    }

    /// The setting of `rule`.
    pub fn get(&self, rule: Rule) -> &RuleSetting {
        // `conventional` sets every rule, and `set` only replaces settings.
        static OFF: RuleSetting = RuleSetting {
            level: Level::Off,
            when: When::Always,
            value: RuleValue::None,
        };
        self.settings.get(&rule).unwrap_or(&OFF)
    }

    /// Every rule and its setting, in report order.
    pub fn iter(&self) -> impl Iterator<Item = (Rule, &RuleSetting)> {
        self.settings.iter().map(|(&rule, setting)| (rule, setting))
    }

    /// Sets `rule`, checking that the value is of the rule's kind and that
    /// `never` is one of its senses.
    pub fn set(&mut self, rule: Rule, setting: RuleSetting) -> Result<(), SettingError> {
        if setting.value.kind() != rule.value_kind() {
            return Err(SettingError::WrongValue {
                rule,
                given: setting.value.kind(),
            });
        }
        if setting.when == When::Never && !rule.takes_never() {
            return Err(SettingError::NoNever { rule });
        }
        self.settings.insert(rule, setting);
        Ok(())
    }

    /// Changes the level of `rule` only, keeping its sense and value.
    pub fn set_level(&mut self, rule: Rule, level: Level) {
        if let Some(setting) = self.settings.get_mut(&rule) {
            setting.level = level;
        }
    }

    /// The allowed types (`type-enum`'s list); turns `type-enum` on as an
    /// error if it was off.
    pub fn set_types<S: Into<String>>(&mut self, types: impl IntoIterator<Item = S>) {
        self.set_names(Rule::TypeEnum, types);
    }

    /// The allowed scopes (`scope-enum`'s list); turns `scope-enum` on as an
    /// error if it was off. A message without a scope still passes; turn
    /// `scope-empty` on to require one.
    pub fn set_scopes<S: Into<String>>(&mut self, scopes: impl IntoIterator<Item = S>) {
        self.set_names(Rule::ScopeEnum, scopes);
    }

    fn set_names<S: Into<String>>(&mut self, rule: Rule, names: impl IntoIterator<Item = S>) {
        let names = RuleValue::Names(names.into_iter().map(Into::into).collect());
        let setting = self
            .settings
            .entry(rule)
            .or_insert_with(|| RuleSetting::new(Level::Error, When::Always, RuleValue::None));
        if setting.level == Level::Off {
            setting.level = Level::Error;
        }
        setting.value = names;
    }

    /// Every rule that is on and fails for `message`, in [`Rule`] order.
    /// A message with [`LintMessage::ignored`] set gets none.
    pub fn check(&self, message: &LintMessage<'_>) -> Vec<LintFinding> {
        if message.ignored.is_some() {
            return Vec::new();
        }
        self.iter()
            .filter(|(_, setting)| setting.level != Level::Off)
            .filter_map(|(rule, setting)| check::rule(rule, setting, message))
            .collect()
    }

    /// Whether `findings` reject the message: any of them is an error.
    pub fn rejects(findings: &[LintFinding]) -> bool {
        findings.iter().any(Diagnostic::is_error)
    }
}

impl Default for LintRules {
    /// [`LintRules::conventional`].
    fn default() -> Self {
        LintRules::conventional()
    }
}
