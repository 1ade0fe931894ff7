//! The rules by name, what value each takes, and how one is set: level,
//! `always`/`never`, value, as commitlint writes `[2, "always", 100]`.

use std::fmt;
use std::str::FromStr;

use super::case::Case;
use crate::diagnostics::{DiagnosticCode, diagnostic_codes};

diagnostic_codes! {
    /// A lint rule, by commitlint's name. Printed in diagnostics as
    /// `commit::<name>` (`commit::type-enum`); [`Rule::name`] is the bare
    /// name a configuration writes. The order is the order findings are
    /// reported in: header parts first, then body, then footer.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[non_exhaustive]
    pub enum Rule {
        /// The type is (`always`) or is not (`never`) empty. A header that
        /// is not `type: subject` has no type.
        TypeEmpty => "commit::type-empty",
        /// The type is (or is not) in one of the listed cases.
        TypeCase => "commit::type-case",
        /// The type is (or is not) one of the listed types.
        TypeEnum => "commit::type-enum",
        /// The scope is (or is not) empty.
        ScopeEmpty => "commit::scope-empty",
        /// Each part of the scope (split at `/`, `\` and `,`) is (or is not)
        /// in one of the listed cases.
        ScopeCase => "commit::scope-case",
        /// The scope (or each part of it) is (or is not) one of the listed
        /// scopes; an empty list allows any.
        ScopeEnum => "commit::scope-enum",
        /// The subject (the description after `: `) is (or is not) empty.
        SubjectEmpty => "commit::subject-empty",
        /// The subject is (or is not) in one of the listed cases; a subject
        /// that does not start with a letter is not checked.
        SubjectCase => "commit::subject-case",
        /// The header ends (or does not end) with the given character, `.`
        /// by default; `...` is not a full stop.
        SubjectFullStop => "commit::subject-full-stop",
        /// The subject is at most this many characters.
        SubjectMaxLength => "commit::subject-max-length",
        /// The header neither starts nor ends with white space.
        HeaderTrim => "commit::header-trim",
        /// The header is at most this many characters.
        HeaderMaxLength => "commit::header-max-length",
        /// A blank line is (or is not) between the header and the body.
        BodyLeadingBlank => "commit::body-leading-blank",
        /// Every body line is at most this many characters, but a line
        /// holding a URL.
        BodyMaxLineLength => "commit::body-max-line-length",
        /// A blank line is (or is not) before the footers.
        FooterLeadingBlank => "commit::footer-leading-blank",
        /// Every footer line is at most this many characters, but a line
        /// holding a URL.
        FooterMaxLineLength => "commit::footer-max-line-length",
    }
}

impl Rule {
    /// The rule's name as commitlint and `quire.toml` write it: `type-enum`.
    pub fn name(self) -> &'static str {
        let code = self.as_str();
        code.strip_prefix("commit::").unwrap_or(code)
    }

    /// What value the rule takes.
    pub fn value_kind(self) -> ValueKind {
        match self {
            Rule::TypeEnum | Rule::ScopeEnum => ValueKind::Names,
            Rule::TypeCase | Rule::ScopeCase | Rule::SubjectCase => ValueKind::Cases,
            Rule::SubjectFullStop => ValueKind::Text,
            Rule::SubjectMaxLength
            | Rule::HeaderMaxLength
            | Rule::BodyMaxLineLength
            | Rule::FooterMaxLineLength => ValueKind::Length,
            Rule::TypeEmpty
            | Rule::ScopeEmpty
            | Rule::SubjectEmpty
            | Rule::HeaderTrim
            | Rule::BodyLeadingBlank
            | Rule::FooterLeadingBlank => ValueKind::None,
        }
    }

    /// Whether the rule can be turned around with `never`. commitlint
    /// ignores `never` on the length rules and `header-trim`; quire refuses
    /// it there, since it cannot mean what it says.
    pub fn takes_never(self) -> bool {
        !matches!(self.value_kind(), ValueKind::Length) && self != Rule::HeaderTrim
    }

    /// How the rule is set when a configuration turns it on without saying
    /// more (`scope-case = "error"` where the preset does not set it): the
    /// sense it is nearly always used in, with a value when one is
    /// natural. `None` for a rule that needs a value nobody can guess (a
    /// length, a list of types, the cases of a subject).
    pub fn usual_setting(self, level: Level) -> Option<RuleSetting> {
        let (when, value) = match self {
            Rule::TypeEmpty | Rule::ScopeEmpty | Rule::SubjectEmpty => {
                (When::Never, RuleValue::None)
            }
            Rule::HeaderTrim | Rule::BodyLeadingBlank | Rule::FooterLeadingBlank => {
                (When::Always, RuleValue::None)
            }
            Rule::TypeCase | Rule::ScopeCase => (When::Always, RuleValue::Cases(vec![Case::Lower])),
            Rule::SubjectFullStop => (When::Never, RuleValue::Text(".".to_owned())),
            Rule::TypeEnum
            | Rule::ScopeEnum
            | Rule::SubjectCase
            | Rule::SubjectMaxLength
            | Rule::HeaderMaxLength
            | Rule::BodyMaxLineLength
            | Rule::FooterMaxLineLength => return None,
        };
        Some(RuleSetting { level, when, value })
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A rule name that is none of [`Rule::ALL`]'s.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown rule `{0}`; the rules are: {names}", names = Rule::ALL.map(Rule::name).join(", "))]
pub struct UnknownRule(pub String);

/// Takes the bare name (`type-enum`); the printed code
/// (`commit::type-enum`) too.
impl FromStr for Rule {
    type Err = UnknownRule;

    fn from_str(name: &str) -> Result<Rule, UnknownRule> {
        let bare = name.strip_prefix("commit::").unwrap_or(name);
        Rule::ALL
            .into_iter()
            .find(|rule| rule.name() == bare)
            .ok_or_else(|| UnknownRule(name.to_owned()))
    }
}

/// What a rule's value is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ValueKind {
    /// The rule takes no value (`type-empty`).
    None,
    /// A number of characters (`header-max-length`).
    Length,
    /// Case names (`subject-case`).
    Cases,
    /// A list of words (`type-enum`).
    Names,
    /// A string (`subject-full-stop`'s character).
    Text,
}

impl ValueKind {
    /// The kind as a phrase for error messages: "a number of characters".
    pub fn describe(self) -> &'static str {
        match self {
            ValueKind::None => "no value",
            ValueKind::Length => "a number of characters",
            ValueKind::Cases => "a case name or a list of them",
            ValueKind::Names => "a list of names",
            ValueKind::Text => "a string",
        }
    }
}

/// How a rule's failure counts: commitlint's level 0, 1, 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    /// The rule is not checked (commitlint's 0).
    Off,
    /// A failure is reported, and the message is still accepted (1).
    Warning,
    /// A failure rejects the message (2).
    Error,
}

impl Level {
    /// `off`, `warning`, `error`.
    pub fn name(self) -> &'static str {
        match self {
            Level::Off => "off",
            Level::Warning => "warning",
            Level::Error => "error",
        }
    }
}

/// Whether a rule asks for what it names (`always`) or forbids it
/// (`never`): `subject-case` `never` `sentence-case` forbids sentence case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum When {
    /// The message must be so.
    Always,
    /// The message must not be so.
    Never,
}

impl When {
    /// `always` or `never`.
    pub fn name(self) -> &'static str {
        match self {
            When::Always => "always",
            When::Never => "never",
        }
    }
}

/// A rule's value; which variant a rule takes is its [`Rule::value_kind`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum RuleValue {
    /// For a rule that takes no value.
    None,
    /// A number of characters.
    Length(usize),
    /// Case names.
    Cases(Vec<Case>),
    /// Words: types, scopes.
    Names(Vec<String>),
    /// A string.
    Text(String),
}

impl RuleValue {
    /// The kind of this value.
    pub fn kind(&self) -> ValueKind {
        match self {
            RuleValue::None => ValueKind::None,
            RuleValue::Length(_) => ValueKind::Length,
            RuleValue::Cases(_) => ValueKind::Cases,
            RuleValue::Names(_) => ValueKind::Names,
            RuleValue::Text(_) => ValueKind::Text,
        }
    }
}

/// How one rule is set: commitlint's `[level, when, value]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RuleSetting {
    /// Off, warning or error.
    pub level: Level,
    /// `always` or `never`.
    pub when: When,
    /// The rule's value, of its [`Rule::value_kind`].
    pub value: RuleValue,
}

impl RuleSetting {
    /// `[level, when, value]`.
    pub fn new(level: Level, when: When, value: RuleValue) -> RuleSetting {
        RuleSetting { level, when, value }
    }
}
