//! Parser configuration: which line syntaxes a document uses and the limits
//! that make the parser halt.
//!
//! The original implementation configured its parser with regular
//! expressions. Here each syntax is a variant with its own winnow rule
//! (`grammar/plan.ebnf` gives them all), so a configuration is plain data that
//! can be validated, compared and printed.

/// How the first line of a document is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HeaderSyntax {
    /// `type(scope)!: title` (conventional commits).
    Conventional,
    /// `# Title`: a title and no type.
    MarkdownHeading,
    /// `title: Title`: a title and no type.
    YamlTitle,
}

/// How a task line is written (after its indentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TaskSyntax {
    /// `- [x]: text` / `- [ ]: text`
    CheckboxColon,
    /// `- [x] text` / `- [ ] text` (markdown task lists)
    Checkbox,
    /// `- task: text (x)` / `- task: text ( )`
    YamlTask,
}

/// How a constraint line is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ConstraintSyntax {
    /// `- Key: value`, key `[A-Z][a-z ]*`, value starting with `[a-z]`.
    Dash,
    /// `> Key: value`, key without `:`.
    Blockquote,
    /// `key: value`, key a word (`[A-Za-z0-9_]+`).
    YamlKey,
}

/// The parser's settings. Use a preset ([`ParserConfig::COMMIT_MESSAGE`] is
/// the default) or start from one and change fields.
///
/// ```
/// use quire_grammar::plan::ParserConfig;
///
/// let config = ParserConfig { max_task_count: 10, ..ParserConfig::COMMIT_MESSAGE };
/// assert!(config.validate().is_ok());
/// let broken = ParserConfig { indent_size: 0, ..ParserConfig::STRICT };
/// assert_eq!(broken.validate().unwrap_err()[0].setting, "indent_size");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ParserConfig {
    /// How the first line is written: a conventional-commit header, `# Title`,
    /// or `title: Title`.
    pub header: HeaderSyntax,
    /// How a task line is written (checkbox placement and marks).
    pub task: TaskSyntax,
    /// How a constraint line is written.
    pub constraint: ConstraintSyntax,
    /// Spaces per task nesting level.
    pub indent_size: usize,
    /// Longest title, in characters.
    pub max_title_length: usize,
    /// Longest input, in characters.
    pub max_input_length: usize,
    /// Deepest task nesting (0 allows top-level tasks only).
    pub max_nesting_depth: usize,
    /// Most tasks, counting subtasks.
    pub max_task_count: usize,
    /// A direction whose first line has exactly this many characters is taken
    /// as unfinished and halts the parser. `None` (or `Some(0)`) turns it off.
    pub direction_halt_length: Option<usize>,
}

impl ParserConfig {
    /// Conventional-commit header, `- [x]: task`, `- Key: value`: the default.
    pub const COMMIT_MESSAGE: ParserConfig = ParserConfig {
        header: HeaderSyntax::Conventional,
        task: TaskSyntax::CheckboxColon,
        constraint: ConstraintSyntax::Dash,
        indent_size: 2,
        max_title_length: 120,
        max_input_length: 100_000,
        max_nesting_depth: 4,
        max_task_count: 1000,
        direction_halt_length: Some(3),
    };

    /// `# Title`, `- [x] task`, `> Key: value`, no direction halt.
    pub const MARKDOWN_TASKS: ParserConfig = ParserConfig {
        header: HeaderSyntax::MarkdownHeading,
        task: TaskSyntax::Checkbox,
        constraint: ConstraintSyntax::Blockquote,
        direction_halt_length: None,
        ..ParserConfig::COMMIT_MESSAGE
    };

    /// `title: Title`, `- task: text (x)`, `key: value`, 4-space indentation.
    pub const YAML_LIKE: ParserConfig = ParserConfig {
        header: HeaderSyntax::YamlTitle,
        task: TaskSyntax::YamlTask,
        constraint: ConstraintSyntax::YamlKey,
        indent_size: 4,
        ..ParserConfig::COMMIT_MESSAGE
    };

    /// The commit-message syntax with tighter limits.
    pub const STRICT: ParserConfig = ParserConfig {
        max_title_length: 50,
        max_input_length: 10_000,
        max_nesting_depth: 3,
        max_task_count: 50,
        direction_halt_length: Some(1),
        ..ParserConfig::COMMIT_MESSAGE
    };

    /// Checks the limits. A parser given an invalid configuration halts with a
    /// `plan::invalid_config` diagnostic naming each bad setting.
    pub fn validate(&self) -> Result<(), Vec<ConfigError>> {
        let positive = [
            ("max_title_length", self.max_title_length),
            ("indent_size", self.indent_size),
            ("max_input_length", self.max_input_length),
            ("max_task_count", self.max_task_count),
        ];
        let errors: Vec<ConfigError> = positive
            .into_iter()
            .filter(|&(_, value)| value == 0)
            .map(|(setting, _)| ConfigError {
                setting,
                reason: "must be at least 1",
            })
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }
}

impl Default for ParserConfig {
    fn default() -> Self {
        ParserConfig::COMMIT_MESSAGE
    }
}

/// One invalid setting of a [`ParserConfig`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("parser setting `{setting}` {reason}")]
pub struct ConfigError {
    /// The setting's field name in [`ParserConfig`], e.g. `indent_size`.
    pub setting: &'static str,
    /// What is wrong with its value, as a phrase following the name.
    pub reason: &'static str,
}

crate::named_enum! {
    /// The named presets, for command lines and tool parameters, in the
    /// order help texts list them; each written in kebab case
    /// (`commit-message`, ...).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    pub enum Preset {
        /// [`ParserConfig::COMMIT_MESSAGE`], written `commit-message`.
        #[default]
        CommitMessage => "commit-message",
        /// [`ParserConfig::MARKDOWN_TASKS`], written `markdown-tasks`.
        MarkdownTasks => "markdown-tasks",
        /// [`ParserConfig::YAML_LIKE`], written `yaml-like`.
        YamlLike => "yaml-like",
        /// [`ParserConfig::STRICT`], written `strict`.
        Strict => "strict",
    }

    /// A preset name that is none of the four; holds the name as given.
    pub struct UnknownPreset(pub String) = "unknown preset";
    /// Accepts the kebab-case name or the original's constant name
    /// (`COMMIT_MESSAGE`), in any case.
    impl FromStr with preset_spelled;
}

impl Preset {
    /// The parser configuration this preset names.
    pub fn config(self) -> ParserConfig {
        match self {
            Preset::CommitMessage => ParserConfig::COMMIT_MESSAGE,
            Preset::MarkdownTasks => ParserConfig::MARKDOWN_TASKS,
            Preset::YamlLike => ParserConfig::YAML_LIKE,
            Preset::Strict => ParserConfig::STRICT,
        }
    }

    /// The name of the original's constant (`COMMIT_MESSAGE`, ...), the
    /// spelling the spec uses.
    pub fn spec_name(self) -> &'static str {
        match self {
            Preset::CommitMessage => "COMMIT_MESSAGE",
            Preset::MarkdownTasks => "MARKDOWN_TASKS",
            Preset::YamlLike => "YAML_LIKE",
            Preset::Strict => "STRICT",
        }
    }
}

/// The preset `name` spells: its kebab-case name or its constant name, in
/// any letter case, blanks around it ignored.
fn preset_spelled(name: &str) -> Option<Preset> {
    Preset::from_name(&name.trim().to_ascii_lowercase().replace('_', "-"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_hold_the_original_values() {
        let c = ParserConfig::COMMIT_MESSAGE;
        assert_eq!(
            (c.indent_size, c.max_title_length, c.max_input_length),
            (2, 120, 100_000)
        );
        assert_eq!(
            (
                c.max_nesting_depth,
                c.max_task_count,
                c.direction_halt_length
            ),
            (4, 1000, Some(3))
        );
        assert_eq!(ParserConfig::MARKDOWN_TASKS.direction_halt_length, None);
        assert_eq!(ParserConfig::YAML_LIKE.indent_size, 4);
        let s = ParserConfig::STRICT;
        assert_eq!(
            (s.max_title_length, s.max_input_length, s.max_nesting_depth),
            (50, 10_000, 3)
        );
        assert_eq!((s.max_task_count, s.direction_halt_length), (50, Some(1)));
        for preset in Preset::ALL {
            assert!(preset.config().validate().is_ok(), "{preset}");
        }
    }

    #[test]
    fn validation_names_every_bad_setting() {
        let config = ParserConfig {
            max_title_length: 0,
            max_task_count: 0,
            ..ParserConfig::COMMIT_MESSAGE
        };
        let settings: Vec<_> = config
            .validate()
            .unwrap_err()
            .iter()
            .map(|e| e.setting)
            .collect();
        assert_eq!(settings, ["max_title_length", "max_task_count"]);
    }

    #[test]
    fn every_preset_parses_in_every_spelling() {
        for preset in Preset::ALL {
            let spec = preset.spec_name();
            assert_eq!(spec.to_ascii_lowercase().replace('_', "-"), preset.name());
            for spelling in [
                preset.name().to_owned(),
                preset.name().to_ascii_uppercase(),
                spec.to_owned(),
                spec.to_ascii_lowercase(),
                format!(" {spec} "),
            ] {
                assert_eq!(spelling.parse(), Ok(preset), "{spelling:?}");
            }
        }
    }

    #[test]
    fn preset_names_parse_in_both_spellings() {
        assert_eq!("commit-message".parse(), Ok(Preset::CommitMessage));
        assert_eq!("YAML_LIKE".parse(), Ok(Preset::YamlLike));
        assert_eq!("Strict".parse(), Ok(Preset::Strict));
        let error = "markdown".parse::<Preset>().unwrap_err();
        assert_eq!(
            error.to_string(),
            "unknown preset `markdown`; use one of: commit-message, markdown-tasks, yaml-like, strict"
        );
    }
}
