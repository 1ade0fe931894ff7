//! Which check judges a commit message: the name `--preset` and
//! `quire.toml`'s `preset` give.
//!
//! There are two, and they are different checks, not two rule lists for
//! one check: `conventional` is commitlint's rules ([`LintRules`], which a
//! `quire.toml` adjusts) over the Conventional Commits reading of the
//! message; `plan` is the plan grammar's own check (`crate::plan`): the same
//! header read under the plan profile, and the body as a plan document.
//!
//! [`LintRules`]: super::lint::LintRules

use std::fmt;
use std::str::FromStr;

/// The check a commit message gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Preset {
    /// `@commitlint/config-conventional`'s rules
    /// ([`LintRules::conventional`](super::lint::LintRules::conventional)),
    /// as `quire.toml` adjusts them.
    #[default]
    Conventional,
    /// The plan grammar's rules for the whole message, with the
    /// `commit-message` plan preset: what `quire check` did for commit
    /// messages before Conventional Commits.
    Plan,
}

impl Preset {
    /// Every preset.
    pub const ALL: [Preset; 2] = [Preset::Conventional, Preset::Plan];

    /// `conventional` or `plan`.
    pub fn name(self) -> &'static str {
        match self {
            Preset::Conventional => "conventional",
            Preset::Plan => "plan",
        }
    }
}

impl fmt::Display for Preset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A preset name that is none of [`Preset::ALL`]'s.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown preset `{0}`; use one of: {names}", names = Preset::ALL.map(Preset::name).join(", "))]
pub struct UnknownPreset(pub String);

impl FromStr for Preset {
    type Err = UnknownPreset;

    /// ```
    /// use quire_grammar::commit::Preset;
    ///
    /// assert_eq!("plan".parse(), Ok(Preset::Plan));
    /// assert_eq!(
    ///     "angular".parse::<Preset>().unwrap_err().to_string(),
    ///     "unknown preset `angular`; use one of: conventional, plan"
    /// );
    /// ```
    fn from_str(name: &str) -> Result<Preset, UnknownPreset> {
        Preset::ALL
            .into_iter()
            .find(|preset| preset.name() == name)
            .ok_or_else(|| UnknownPreset(name.to_owned()))
    }
}
