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

crate::named_enum! {
    /// The check a commit message gets.
    ///
    /// ```
    /// use quire_grammar::commit::Preset;
    ///
    /// assert_eq!("plan".parse(), Ok(Preset::Plan));
    /// assert_eq!(
    ///     "angular".parse::<Preset>().unwrap_err().to_string(),
    ///     "unknown preset `angular`; use one of: conventional, plan"
    /// );
    /// ```
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    pub enum Preset {
        /// `@commitlint/config-conventional`'s rules
        /// ([`LintRules::conventional`](super::lint::LintRules::conventional)),
        /// as `quire.toml` adjusts them.
        #[default]
        Conventional => "conventional",
        /// The plan grammar's rules for the whole message, with the
        /// `commit-message` plan preset: what `quire check` did for commit
        /// messages before Conventional Commits.
        Plan => "plan",
    }

    /// A preset name that is none of [`Preset::ALL`]'s.
    pub struct UnknownPreset(pub String) = "unknown preset";
}
