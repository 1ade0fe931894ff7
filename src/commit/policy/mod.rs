//! `quire check`'s policy for commit messages, everything of it but files
//! and the terminal: which rules a message gets, from a `quire.toml` text,
//! the preset the command line names and where the message comes from
//! ([`CommitCheck::new`]); how the text is read before the rules see it
//! (git's cleanup, the messages git writes, the preset's length limit);
//! and the verdict on it ([`Verdict`], with the `--json` object).
//!
//! `quire check --git-message FILE` reads the file, finds the `quire.toml`
//! from the current folder upward, and makes these calls; a library user
//! who gives the same texts gets the same verdict:
//!
//! ```
//! use quire_grammar::commit::policy::{CheckOptions, CommitCheck, MessageSource};
//!
//! // `quire check --git-message COMMIT_EDITMSG`, with this quire.toml:
//! let quire_toml = "[commit]\ntypes = [\"feat\", \"fix\"]\n\n[commit.rules]\nsubject-case = \"off\"\n";
//! let options = CheckOptions::new(MessageSource::GitMessage);
//! let check = CommitCheck::new(options, Some(quire_toml))?;
//!
//! // The file git's editor saved: git's comments are not the message.
//! let edited = "docs: Explain the hook\n\n# Please enter the commit message for your changes.\n";
//! let verdict = check.check(edited)?;
//! assert_eq!(verdict.message(), "docs: Explain the hook\n");
//! assert!(!verdict.is_valid()); // `docs` is not one of the types
//! let json = verdict.to_json()?; // what `--json` prints
//! assert_eq!(json["valid"], false);
//! assert_eq!(json["diagnostics"][0]["code"], "commit::type-enum");
//! assert_eq!(json["commit"]["type"], "docs");
//!
//! // A merge git wrote is accepted without a look, as the hook accepts it.
//! let merge = check.check("Merge branch 'topic'\n")?;
//! assert!(merge.is_valid() && merge.is_ignored());
//! assert_eq!(merge.to_json()?["ignored_as"], "merge");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The precedence is `quire check`'s: a preset named on the command line
//! ([`CheckOptions::preset`]) wins over the file's `preset`; with neither,
//! every text, whatever its source, gets the `conventional` rules, under
//! which a plan document (plan sections below the header) is judged by the
//! plan grammar: one verdict for a text, from a file, standard input, the
//! hook or the history. A `quire.toml` text given is always read, and
//! refused when it is wrong, even where the plan check leaves it unused.

mod verdict;

use std::fmt;

use super::config::{CommitConfig, ConfigError};
use super::lint::IgnoredKind;
use super::lint::LintRules;
use super::{HeaderPattern, Preset};
use super::{git_cleanup, message_kind};
use crate::plan;

pub use verdict::{CommitRules, JudgedBy, Verdict};

/// Where the text a check judges comes from, which decides how it is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MessageSource {
    /// A document as written (`quire check FILE`): judged as it is, nothing
    /// in it skipped; it may have at most the plan preset's
    /// `max_input_length` characters.
    Document,
    /// The file a commit-msg hook gets (`quire check --git-message FILE`):
    /// git's cleanup first ([`git_cleanup`]: comments, the scissors line
    /// and what is below it, surplus blank lines), then the message git
    /// keeps is judged as a commit message; the length limit applies to
    /// it, unless git or a release tool wrote it.
    GitMessage,
    /// A commit's message as git stores it (`quire check --range`): judged
    /// as it is, with no length limit.
    History,
}

/// What the command line's `--preset` names: the check of commit messages
/// ([`Preset`]), or a plan preset, which means the plan grammar's check
/// read with that preset.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PresetChoice {
    /// The check `conventional` or `plan` (read with the `commit-message`
    /// plan preset).
    Commit(Preset),
    /// The plan grammar's check, read with this plan preset.
    Plan(plan::Preset),
}

impl PresetChoice {
    /// Every choice, in the order `quire check --help` lists them: the
    /// checks, then the plan presets.
    pub const ALL: [PresetChoice; 6] = [
        PresetChoice::Commit(Preset::Conventional),
        PresetChoice::Commit(Preset::Plan),
        PresetChoice::Plan(plan::Preset::CommitMessage),
        PresetChoice::Plan(plan::Preset::MarkdownTasks),
        PresetChoice::Plan(plan::Preset::YamlLike),
        PresetChoice::Plan(plan::Preset::Strict),
    ];

    /// The name the command line takes: `conventional`, `plan`,
    /// `commit-message`, ...
    pub fn name(self) -> &'static str {
        match self {
            PresetChoice::Commit(preset) => preset.name(),
            PresetChoice::Plan(preset) => preset.name(),
        }
    }

    /// The plan preset a plan document is read with: the one named, else
    /// `commit-message`.
    pub fn plan_preset(self) -> plan::Preset {
        match self {
            PresetChoice::Plan(preset) => preset,
            PresetChoice::Commit(_) => plan::Preset::CommitMessage,
        }
    }
}

impl fmt::Display for PresetChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What decides the rules besides `quire.toml`: where the texts come from
/// and the preset the command line names, if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CheckOptions {
    source: MessageSource,
    preset: Option<PresetChoice>,
}

impl CheckOptions {
    /// The options of texts from `source`, with no preset named.
    pub fn new(source: MessageSource) -> CheckOptions {
        CheckOptions {
            source,
            preset: None,
        }
    }

    /// These options with `preset` named (`--preset`); `None` names none.
    pub fn preset(self, preset: Option<PresetChoice>) -> CheckOptions {
        CheckOptions { preset, ..self }
    }

    /// Where the texts come from.
    pub fn source(&self) -> MessageSource {
        self.source
    }

    /// The plan preset plan documents (and plan bodies) are read with, and
    /// whose `max_input_length` limits a text: the one named, else
    /// `commit-message`.
    pub fn plan_preset(&self) -> plan::Preset {
        self.preset
            .map_or(plan::Preset::CommitMessage, PresetChoice::plan_preset)
    }

    /// Whether the rules depend on a `quire.toml`: they do unless the plan
    /// grammar's check is named. When they do not, there is no need to look
    /// for one (`quire check` then reads only a file `--config` names, to
    /// refuse it if it is wrong).
    pub fn uses_config(&self) -> bool {
        match self.preset {
            Some(PresetChoice::Commit(Preset::Conventional)) | None => true,
            Some(PresetChoice::Commit(Preset::Plan) | PresetChoice::Plan(_)) => false,
        }
    }
}

/// `quire check`'s check of commit messages: the rules, made once, and how
/// each text is read before them. See the [module](self) for an example.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommitCheck {
    source: MessageSource,
    preset: plan::Preset,
    rules: CommitRules,
    /// `quire.toml`'s `ignores`.
    ignores: Vec<HeaderPattern>,
}

impl CommitCheck {
    /// The check `options` make with the `quire.toml` text `config` (`None`
    /// when there is no file): the `conventional` rules as the file adjusts
    /// them (a plan document judged by the plan grammar), unless the command
    /// line names the plan check or a plan preset, or names nothing and the
    /// file says `preset = "plan"`.
    ///
    /// Fails when `config` is not a usable `quire.toml`, whether or not its
    /// rules apply, with every problem and its line.
    pub fn new(options: CheckOptions, config: Option<&str>) -> Result<CommitCheck, ConfigError> {
        let preset = options.plan_preset();
        let plan = preset.config();
        let config = config.map(CommitConfig::parse).transpose()?;
        let plan_check = !options.uses_config()
            || (options.preset.is_none()
                && config
                    .as_ref()
                    .is_some_and(|config| config.preset() == Preset::Plan));
        let rules = if plan_check {
            CommitRules::Plan(plan)
        } else {
            let lint = match &config {
                Some(config) => config.lint_rules()?,
                None => LintRules::conventional(),
            };
            CommitRules::Conventional {
                lint: Box::new(lint),
                plan,
            }
        };
        Ok(CommitCheck {
            source: options.source,
            preset,
            rules,
            ignores: config.map(|config| config.ignores).unwrap_or_default(),
        })
    }

    /// The rules every text is checked against.
    pub fn rules(&self) -> &CommitRules {
        &self.rules
    }

    /// Where the texts come from.
    pub fn source(&self) -> MessageSource {
        self.source
    }

    /// The plan preset whose `max_input_length` limits a text.
    pub fn plan_preset(&self) -> plan::Preset {
        self.preset
    }

    /// Judges `text`, read as its [`MessageSource`] says: a hook's file
    /// cleaned up as git cleans it, a document read as written.
    ///
    /// Fails when the text (for a hook's file: the message git keeps, if
    /// git did not write it itself) has more characters than the plan
    /// preset allows; a history message is never refused.
    pub fn check(&self, text: &str) -> Result<Verdict, TooLong> {
        match self.source {
            MessageSource::Document => {
                self.within_limit(text)?;
                Ok(self
                    .ignored(text)
                    .unwrap_or_else(|| self.rules.check_document(text)))
            }
            MessageSource::GitMessage => {
                let message = git_cleanup(text);
                // What git (or a release tool) wrote passes whatever its
                // length: a merge of many branches lists them all.
                if !message_kind(&message).is_generated() {
                    self.within_limit(&message)?;
                }
                Ok(self
                    .ignored(&message)
                    .unwrap_or_else(|| self.rules.check_message(&message)))
            }
            MessageSource::History => Ok(self
                .ignored(text)
                .unwrap_or_else(|| self.rules.check_message(text))),
        }
    }

    /// The verdict on a message `ignores` lets through, if it does.
    fn ignored(&self, message: &str) -> Option<Verdict> {
        self.ignores
            .iter()
            .any(|pattern| pattern.matches(message))
            .then(|| Verdict::skipped(message, IgnoredKind::Configured))
    }

    fn within_limit(&self, text: &str) -> Result<(), TooLong> {
        let limit = self.preset.config().max_input_length;
        // A character is at least a byte: most texts need no count.
        if text.len() <= limit {
            return Ok(());
        }
        let characters = text.chars().count();
        if characters <= limit {
            return Ok(());
        }
        Err(TooLong {
            characters,
            limit,
            preset: self.preset,
        })
    }
}

/// A text longer than the plan preset allows, refused before any rule
/// reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TooLong {
    characters: usize,
    limit: usize,
    preset: plan::Preset,
}

impl TooLong {
    /// How many characters the text has.
    pub fn characters(&self) -> usize {
        self.characters
    }

    /// How many the preset allows (its `max_input_length`).
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// The plan preset whose limit it is.
    pub fn preset(&self) -> plan::Preset {
        self.preset
    }
}

/// `the text has 100001 characters; the commit-message preset allows
/// 100000: ...`.
impl fmt::Display for TooLong {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the text has {} characters; the {} preset allows {}: shorten the document, or split the plan into several changes",
            self.characters, self.preset, self.limit
        )
    }
}

impl std::error::Error for TooLong {}

#[cfg(test)]
mod tests;
