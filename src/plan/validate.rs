//! The commit conventions a parsed plan must follow (the spec's "Validation
//! System"): allowed types, scope pattern, title length and whitespace,
//! constraint prefixes and values, non-empty tasks, nesting depth; and no
//! control characters in any text (`plan::control_character`, see
//! `characters.rs`).
//!
//! Each finding names the offending value by its path in the document's JSON
//! shape (`header.scope`, `constraints.0.0`, `tasks.1.2.0.1`).

use super::ast::{Constraint, PlanDocument, Task};
use super::characters;
use super::codes::{Code, PlanDiagnostic};
use super::config::ParserConfig;
use super::parse::ParseOutcome;
use crate::diagnostics::{Diagnostic, Severity, one_line};
use crate::span::Span;

/// The commit types a header may use.
pub const ALLOWED_TYPES: [&str; 9] = [
    "feat", "fix", "refactor", "build", "chore", "docs", "lint", "infra", "spec",
];

/// The keys a constraint may use: every constraint says what not to do.
pub const ALLOWED_CONSTRAINT_PREFIXES: [&str; 7] = [
    "Do not",
    "Never",
    "Avoid",
    "Decide against",
    "Must not",
    "Cannot",
    "Forbidden",
];

/// Longest title, in characters, of the default configuration
/// ([`ParserConfig::COMMIT_MESSAGE`]); [`validate_with`] reads the limit of
/// the configuration it is given.
pub const MAX_TITLE_LENGTH: usize = ParserConfig::COMMIT_MESSAGE.max_title_length;

/// Deepest task level (top-level tasks are at depth 0) of the default
/// configuration ([`ParserConfig::COMMIT_MESSAGE`]); [`validate_with`] reads
/// the limit of the configuration it is given.
pub const MAX_TASK_DEPTH: usize = ParserConfig::COMMIT_MESSAGE.max_nesting_depth;

/// Checks `document` against the commit conventions with the limits of
/// [`ParserConfig::COMMIT_MESSAGE`]: [`validate_with`] that configuration.
///
/// ```
/// use quire_grammar::plan::{parse, validate, Code, ParserConfig};
///
/// let outcome = parse("feature(Parser): Add spans", &ParserConfig::default());
/// let codes: Vec<Code> = validate(&outcome.document).iter().map(|f| f.code).collect();
/// assert_eq!(codes, [Code::UnknownType, Code::InvalidScope]);
/// ```
pub fn validate(document: &PlanDocument) -> Vec<PlanDiagnostic> {
    validate_with(document, &ParserConfig::COMMIT_MESSAGE)
}

/// Checks `document` against the commit conventions, with the title length
/// and nesting depth limits of `config` (the configuration it was parsed
/// with). Returns every finding; the document is valid when none of them is
/// an error.
///
/// Every text must be free of control characters other than tab, and of the
/// Unicode line and paragraph separators; a one-line text (type, scope,
/// title, constraint key and value, task) of line feeds too
/// (`plan::control_character`, one finding per value).
///
/// A header without a type (the markdown and YAML-like syntaxes) is not a
/// commit header: the type and scope rules do not apply to it.
///
/// ```
/// use quire_grammar::plan::{validate_with, Code, Header, ParserConfig, PlanDocument};
///
/// let document = PlanDocument {
///     header: Some(Header::new("fix", "cli", "a".repeat(60))),
///     ..PlanDocument::default()
/// };
/// assert!(validate_with(&document, &ParserConfig::COMMIT_MESSAGE).is_empty());
/// let codes: Vec<Code> = validate_with(&document, &ParserConfig::STRICT)
///     .iter()
///     .map(|f| f.code)
///     .collect();
/// assert_eq!(codes, [Code::TitleTooLong]);
/// ```
pub fn validate_with(document: &PlanDocument, config: &ParserConfig) -> Vec<PlanDiagnostic> {
    let mut findings = conventions(document, config);
    findings.extend(characters::in_document(document));
    findings
}

/// Every finding of [`validate_with`] but the control characters.
fn conventions(document: &PlanDocument, config: &ParserConfig) -> Vec<PlanDiagnostic> {
    let mut findings = Findings {
        found: Vec::new(),
        max_title_length: config.max_title_length,
        max_task_depth: config.max_nesting_depth,
    };
    findings.document(document);
    findings.found
}

impl ParseOutcome {
    /// [`check_with`](ParseOutcome::check_with) the default configuration,
    /// [`ParserConfig::COMMIT_MESSAGE`].
    ///
    /// ```
    /// use quire_grammar::plan::{parse, Code, ParserConfig};
    ///
    /// let text = "fix(cli): Ring\n\n- [ ]: Escape output\n  \u{7}\n";
    /// let codes: Vec<Code> = parse(text, &ParserConfig::default()).check(text).iter().map(|f| f.code).collect();
    /// assert_eq!(codes, [Code::ControlCharacter]);
    /// ```
    pub fn check(&self, text: &str) -> Vec<PlanDiagnostic> {
        self.check_with(text, &ParserConfig::COMMIT_MESSAGE)
    }

    /// Everything `quire check` reports for `text`, the text this outcome
    /// was parsed from with `config`: the parser's diagnostics, then — when
    /// the document parsed — the validator's findings, with `config`'s
    /// limits. A halted document is not validated; its halt is already an
    /// error.
    ///
    /// Control characters are looked for in the whole text, line by line,
    /// rather than value by value as [`validate_with`] does: so they are found
    /// where no value keeps them too (indentation, blank lines, ignored
    /// text), each at the exact character.
    ///
    /// ```
    /// use quire_grammar::plan::{parse, Code, ParserConfig};
    ///
    /// let config = ParserConfig::STRICT;
    /// let text = "feature(cli): Ring\n";
    /// let codes: Vec<Code> = parse(text, &config).check_with(text, &config).iter().map(|f| f.code).collect();
    /// assert_eq!(codes, [Code::UnknownType]);
    /// ```
    pub fn check_with(&self, text: &str, config: &ParserConfig) -> Vec<PlanDiagnostic> {
        let mut all = self.diagnostics.clone();
        if self.is_parsed() {
            all.extend(conventions(&self.document, config));
            all.extend(characters::in_text(text, &self.document));
        }
        all
    }
}

/// The findings so far, and the limits they are checked against.
struct Findings {
    found: Vec<PlanDiagnostic>,
    max_title_length: usize,
    max_task_depth: usize,
}

/// What one finding says: message, label at the span, help.
struct Wording {
    message: String,
    label: &'static str,
    help: String,
}

fn wording(message: impl Into<String>, label: &'static str, help: impl Into<String>) -> Wording {
    Wording {
        message: message.into(),
        label,
        help: help.into(),
    }
}

impl Findings {
    fn push(
        &mut self,
        code: Code,
        severity: Severity,
        field: impl Into<String>,
        span: Span,
        wording: Wording,
    ) {
        self.found.push(Diagnostic {
            code,
            severity,
            message: wording.message,
            label: wording.label.to_owned(),
            help: wording.help,
            span,
            field: Some(field.into()),
        });
    }

    fn error(&mut self, code: Code, field: impl Into<String>, span: Span, wording: Wording) {
        self.push(code, Severity::Error, field, span, wording);
    }

    fn document(&mut self, document: &PlanDocument) {
        let Some(header) = &document.header else {
            self.error(
                Code::MissingHeader,
                "header",
                Span::at(0),
                wording(
                    "the document has no header",
                    "expected a header here",
                    "start with a header such as `feat(parser): Add task nesting`",
                ),
            );
            return;
        };
        if let Some(commit_type) = &header.commit_type {
            if !ALLOWED_TYPES.contains(&commit_type.value.as_str()) {
                self.error(
                    Code::UnknownType,
                    "header.type",
                    commit_type.span,
                    wording(
                        format!(
                            "`{}` is not an allowed commit type",
                            one_line(&commit_type.value)
                        ),
                        "unknown type",
                        format!("use one of: {}", ALLOWED_TYPES.join(", ")),
                    ),
                );
            }
            if let Some(scope) = &header.scope {
                self.scope(&scope.value, scope.span);
            }
        }
        if let Some(title) = &header.title {
            self.title(&title.value, title.span);
        }
        for (index, constraint) in document.constraints.iter().flatten().enumerate() {
            self.constraint(index, constraint);
        }
        if let Some(tasks) = &document.tasks {
            self.tasks(tasks, "tasks", 0);
        }
    }

    fn title(&mut self, title: &str, span: Span) {
        let length = title.chars().count();
        let limit = self.max_title_length;
        if length > limit {
            self.error(
                Code::TitleTooLong,
                "header.title",
                span,
                wording(
                    format!("the title has {length} characters; the limit is {limit}"),
                    "too long",
                    "shorten the title and move the details into the description",
                ),
            );
        }
        if title.trim().is_empty() {
            self.error(
                Code::TitleWhitespace,
                "header.title",
                span,
                wording(
                    "the title is blank",
                    "only whitespace",
                    "write a title after the colon, or end the header at the colon",
                ),
            );
        } else if title.trim() != title {
            self.error(
                Code::TitleWhitespace,
                "header.title",
                span,
                wording(
                    "the title starts or ends with whitespace",
                    "surrounding whitespace",
                    format!("write `{}`", one_line(title.trim())),
                ),
            );
        }
    }

    fn constraint(&mut self, index: usize, constraint: &Constraint) {
        let key = &constraint.key;
        if !ALLOWED_CONSTRAINT_PREFIXES.contains(&key.value.as_str()) {
            self.error(
                Code::UnknownConstraintPrefix,
                format!("constraints.{index}.0"),
                key.span,
                wording(
                    format!(
                        "`{}` is not an allowed constraint prefix",
                        one_line(&key.value)
                    ),
                    "unknown prefix",
                    format!(
                        "constraints say what not to do; start them with one of: {}",
                        ALLOWED_CONSTRAINT_PREFIXES.join(", ")
                    ),
                ),
            );
        }
        let value = &constraint.value;
        let field = format!("constraints.{index}.1");
        match value.value.chars().next() {
            None => self.error(
                Code::EmptyConstraintValue,
                field,
                value.span,
                wording(
                    "the constraint has no value",
                    "missing value",
                    "say what not to do, e.g. `- Never: skip the tests`",
                ),
            ),
            Some(first) if first.is_uppercase() => self.error(
                Code::ConstraintValueCase,
                field,
                value.span,
                wording(
                    "the constraint value starts with an uppercase letter",
                    "uppercase start",
                    "start the value with a lowercase letter: it continues the key's sentence",
                ),
            ),
            Some(_) => {}
        }
    }

    // scope ::= [a-z] [a-z0-9-]*
    fn scope(&mut self, scope: &str, span: Span) {
        if is_valid_scope(scope) {
            return;
        }
        let suggestion = suggest_scope(scope);
        let help = match &suggestion {
            Some(suggestion) => format!("write `{suggestion}`"),
            None => "use a scope like `parser` or `mcp-server`".to_owned(),
        };
        // One mistake, one finding: when lowercasing is the whole fix (the
        // spec's scope-case suggestion), the label says so and the help
        // gives the lowercase scope.
        let lowercase = scope.to_lowercase();
        let (message, label) = if lowercase != scope && is_valid_scope(&lowercase) {
            (
                format!(
                    "the scope `{}` has uppercase letters; a scope is lowercase letters, digits and hyphens",
                    one_line(scope)
                ),
                "uppercase letters",
            )
        } else {
            (
                format!(
                    "the scope `{}` is not lowercase letters, digits and hyphens starting with a letter",
                    one_line(scope)
                ),
                "invalid scope",
            )
        };
        self.error(
            Code::InvalidScope,
            "header.scope",
            span,
            wording(message, label, help),
        );
    }

    fn tasks(&mut self, tasks: &[Task], path: &str, depth: usize) {
        for (index, task) in tasks.iter().enumerate() {
            let task_path = format!("{path}.{index}");
            if task.text.value.trim().is_empty() {
                self.error(
                    Code::EmptyTask,
                    format!("{task_path}.1"),
                    task.text.span,
                    wording(
                        "this task has no text",
                        "empty task",
                        "write what the task is, or remove it",
                    ),
                );
            }
            let limit = self.max_task_depth;
            if depth > limit {
                self.error(
                    Code::NestingTooDeep,
                    task_path,
                    task.span,
                    wording(
                        format!("this task is nested {depth} levels deep; the limit is {limit}"),
                        "too deep",
                        "flatten the plan: move deep subtasks up a level",
                    ),
                );
                // Its subtasks are deeper still; one finding per branch is enough.
                continue;
            }
            self.tasks(&task.children, &format!("{task_path}.2"), depth + 1);
        }
    }
}

fn is_valid_scope(scope: &str) -> bool {
    let mut chars = scope.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// A valid scope close to `scope`: lowercased, other characters turned into
/// hyphens, without leading characters that are not letters.
fn suggest_scope(scope: &str) -> Option<String> {
    let mapped: String = scope
        .to_lowercase()
        .chars()
        .map(|c| {
            if c.is_ascii_lowercase() || c.is_ascii_digit() {
                c
            } else {
                '-'
            }
        })
        .collect();
    let trimmed = mapped
        .trim_start_matches(|c: char| !c.is_ascii_lowercase())
        .trim_end_matches('-');
    let mut collapsed = String::with_capacity(trimmed.len());
    for c in trimmed.chars() {
        if !(c == '-' && collapsed.ends_with('-')) {
            collapsed.push(c);
        }
    }
    is_valid_scope(&collapsed).then_some(collapsed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{Constraint, Header, ParserConfig, parse};

    fn fields(document: &PlanDocument) -> Vec<(Code, String)> {
        validate(document)
            .into_iter()
            .map(|f| (f.code, f.field.unwrap()))
            .collect()
    }

    #[test]
    fn a_conventional_plan_is_valid() {
        let text = "feat(mcp-server): Add tools\n\nWhy.\n- Never: skip tests\n- Do not: log to stdout\n- [x]: a\n  - [ ]: b\n\nGo on";
        let outcome = parse(text, &ParserConfig::default());
        assert!(outcome.is_parsed());
        assert_eq!(validate(&outcome.document), []);
    }

    #[test]
    fn header_rules() {
        let document = PlanDocument {
            header: Some(Header::new(
                "feature",
                "9lives",
                format!(" {}", "a".repeat(120)),
            )),
            ..PlanDocument::default()
        };
        assert_eq!(
            fields(&document),
            [
                (Code::UnknownType, "header.type".into()),
                (Code::InvalidScope, "header.scope".into()),
                (Code::TitleTooLong, "header.title".into()),
                (Code::TitleWhitespace, "header.title".into()),
            ]
        );
    }

    #[test]
    fn an_uppercase_scope_is_one_finding_that_gives_the_lowercase_scope() {
        let outcome = parse("fix(Core): x", &ParserConfig::default());
        let findings = validate(&outcome.document);
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert_eq!(
            (findings[0].code, findings[0].severity),
            (Code::InvalidScope, Severity::Error)
        );
        assert_eq!(
            (findings[0].label.as_str(), findings[0].help.as_str()),
            ("uppercase letters", "write `core`")
        );
        let other = validate(&parse("fix(Core_2): x", &ParserConfig::default()).document);
        assert_eq!(other.len(), 1, "{other:?}");
        assert_eq!(other[0].label, "invalid scope");
    }

    #[test]
    fn constraint_rules() {
        let document = PlanDocument {
            header: Some(Header {
                commit_type: Some("fix".into()),
                ..Header::default()
            }),
            constraints: Some(vec![
                Constraint::new("Should", "do it"),
                Constraint::new("Never", ""),
                Constraint::new("Avoid", "Caps"),
                Constraint::new("Cannot", "9 lives"),
            ]),
            ..PlanDocument::default()
        };
        assert_eq!(
            fields(&document),
            [
                (Code::UnknownConstraintPrefix, "constraints.0.0".into()),
                (Code::EmptyConstraintValue, "constraints.1.1".into()),
                (Code::ConstraintValueCase, "constraints.2.1".into()),
            ]
        );
    }

    #[test]
    fn task_rules_name_the_path_in_the_json_shape() {
        fn chain(depth: usize) -> Task {
            let children = if depth == 0 {
                vec![]
            } else {
                vec![chain(depth - 1)]
            };
            Task::new(false, "t", children)
        }
        let document = PlanDocument {
            header: Some(Header {
                commit_type: Some("fix".into()),
                ..Header::default()
            }),
            tasks: Some(vec![
                Task::new(false, "ok", vec![Task::new(true, " ", vec![])]),
                chain(6),
            ]),
            ..PlanDocument::default()
        };
        assert_eq!(
            fields(&document),
            [
                (Code::EmptyTask, "tasks.0.2.0.1".into()),
                (Code::NestingTooDeep, "tasks.1.2.0.2.0.2.0.2.0.2.0".into())
            ]
        );
    }

    #[test]
    fn the_limits_come_from_the_config() {
        assert_eq!(
            (MAX_TITLE_LENGTH, MAX_TASK_DEPTH),
            (
                ParserConfig::COMMIT_MESSAGE.max_title_length,
                ParserConfig::COMMIT_MESSAGE.max_nesting_depth
            )
        );
        let document = PlanDocument {
            header: Some(Header::new("fix", "cli", "a".repeat(51))),
            tasks: Some(vec![Task::new(
                false,
                "a",
                vec![Task::new(false, "b", vec![Task::new(false, "c", vec![])])],
            )]),
            ..PlanDocument::default()
        };
        assert_eq!(validate(&document), []);
        let tight = ParserConfig {
            max_title_length: 50,
            max_nesting_depth: 1,
            ..ParserConfig::COMMIT_MESSAGE
        };
        let findings = validate_with(&document, &tight);
        let found: Vec<(Code, &str)> = findings
            .iter()
            .map(|f| (f.code, f.message.as_str()))
            .collect();
        assert_eq!(
            found,
            [
                (
                    Code::TitleTooLong,
                    "the title has 51 characters; the limit is 50"
                ),
                (
                    Code::NestingTooDeep,
                    "this task is nested 2 levels deep; the limit is 1"
                ),
            ]
        );
    }

    #[test]
    fn headers_without_type_skip_the_commit_rules() {
        let outcome = parse("# Anything Goes", &ParserConfig::MARKDOWN_TASKS);
        assert_eq!(validate(&outcome.document), []);
        assert_eq!(
            fields(&PlanDocument::default()),
            [(Code::MissingHeader, "header".into())]
        );
    }

    #[test]
    fn check_validates_only_parsed_documents() {
        let check = |text: &str| parse(text, &ParserConfig::default()).check(text);
        let codes = |text: &str| -> Vec<Code> { check(text).iter().map(|f| f.code).collect() };
        assert_eq!(codes("feature(a): b\nc"), [Code::MissingBlankLine]);
        assert_eq!(codes("feature(a): b\u{7}\nc"), [Code::MissingBlankLine]);
        assert_eq!(codes("feature(a): b\n\nc"), [Code::UnknownType]);
        // A control character is found once, in the text (at its line), not
        // a second time in the value that holds it.
        let findings = check("feature(a): b\u{7}\n\nc");
        assert_eq!(
            findings.iter().map(|f| f.code).collect::<Vec<_>>(),
            [Code::UnknownType, Code::ControlCharacter]
        );
        assert_eq!(
            findings[1].message,
            "line 1 contains the control character U+0007 BELL"
        );
        assert_eq!(findings[1].span, Span::new(13, 14));
        assert_eq!(findings[1].field.as_deref(), Some("header.title"));
    }
}
