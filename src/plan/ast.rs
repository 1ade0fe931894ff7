//! The typed AST of a plan document.
//!
//! Each section is optional and present only when the text had it, which is
//! what the JSON shape of the conformance cases encodes by absent keys. Every
//! node keeps the byte span it was read from; spans are not part of the JSON
//! shape (see [`crate::span::Spanned`]).

use serde::de::{Deserializer, SeqAccess, Visitor};
use serde::ser::{SerializeTuple, Serializer};
use serde::{Deserialize, Serialize};

use crate::span::{Span, Spanned};

/// A plan document (a structured commit message).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanDocument {
    /// The first line, when it reads as a header; `None` when the document has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<Header>,
    /// The description's lines joined with `\n` (CRLF line endings read as LF).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<Spanned<String>>,
    /// Present (possibly empty) when the document has a constraint section, or
    /// when tasks follow a description (the original parser's shape).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constraints: Option<Vec<Constraint>>,
    /// The task list, in document order, each task with its subtasks; `None`
    /// when the document has no task section.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<Vec<Task>>,
    /// Everything after the tasks, trimmed; may span several lines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direction: Option<Spanned<String>>,
}

impl PlanDocument {
    /// True when the document has no header and no section (empty input).
    pub fn is_empty(&self) -> bool {
        self.header.is_none()
            && self.description.is_none()
            && self.constraints.is_none()
            && self.tasks.is_none()
            && self.direction.is_none()
    }

    /// The directive the direction ends with, if its last line is exactly
    /// `~~~ WORD ~~~` (a word of capital letters): `Some("COMPLETE")` for
    /// `~~~ COMPLETE ~~~`. Lines before it are the rest of the direction
    /// ([`PlanDocument::direction_before_directive`]).
    ///
    /// ```
    /// use quire::plan::{parse, ParserConfig};
    ///
    /// let text = "feat(a): b\n\nWhy.\n- [x]: Done\n\n~~~ COMPLETE ~~~\n";
    /// let outcome = parse(text, &ParserConfig::default());
    /// assert_eq!(outcome.document.directive(), Some("COMPLETE"));
    ///
    /// let text = "feat(a): b\n\nWhy.\n- [x]: Done\n\nShip it on Friday\n~~~ COMPLETE ~~~\n";
    /// let outcome = parse(text, &ParserConfig::default());
    /// assert_eq!(outcome.document.directive(), Some("COMPLETE"));
    /// assert_eq!(outcome.document.direction_before_directive(), Some("Ship it on Friday"));
    /// ```
    pub fn directive(&self) -> Option<&str> {
        let direction = self.direction.as_ref()?.value.as_str();
        let last_line = direction.rsplit('\n').next().unwrap_or(direction);
        let word = last_line.strip_prefix("~~~ ")?.strip_suffix(" ~~~")?;
        (!word.is_empty() && word.chars().all(|c| c.is_ascii_uppercase())).then_some(word)
    }

    /// The direction without its closing directive line: the whole direction
    /// when it has no directive, `None` when it is only a directive (or
    /// absent).
    pub fn direction_before_directive(&self) -> Option<&str> {
        let direction = self.direction.as_ref()?.value.as_str();
        let before = match self.directive() {
            Some(_) => direction.rsplit_once('\n').map_or("", |(before, _)| before),
            None => direction,
        };
        let before = before.trim_end();
        (!before.is_empty()).then_some(before)
    }

    /// All tasks in document order (depth first), with their depth (0 for a
    /// top-level task).
    pub fn tasks_depth_first(&self) -> impl Iterator<Item = (usize, &Task)> {
        let mut stack: Vec<(usize, &Task)> = self
            .tasks
            .iter()
            .flatten()
            .rev()
            .map(|task| (0, task))
            .collect();
        std::iter::from_fn(move || {
            let (depth, task) = stack.pop()?;
            stack.extend(task.children.iter().rev().map(|child| (depth + 1, child)));
            Some((depth, task))
        })
    }
}

/// The first line: `type(scope)!: title` in the commit-message syntax, or just
/// a title in the markdown (`# Title`) and YAML-like (`title: Title`) syntaxes,
/// which have no type.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Header {
    /// The commit type before the scope (`feat`); `None` in syntaxes without one.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub commit_type: Option<Spanned<String>>,
    /// The scope inside the parentheses (`parser` in `feat(parser):`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<Spanned<String>>,
    /// `!` after the scope.
    #[serde(default)]
    pub breaking: bool,
    /// The text after the colon; `None` when the header ends at the colon.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<Spanned<String>>,
    /// The whole header line.
    #[serde(skip)]
    pub span: Span,
}

impl Header {
    /// A commit header (`type(scope): title`, not breaking) that did not
    /// come from parsed text.
    pub fn new(
        commit_type: impl Into<String>,
        scope: impl Into<String>,
        title: impl Into<String>,
    ) -> Self {
        Header {
            commit_type: Some(Spanned::detached(commit_type.into())),
            scope: Some(Spanned::detached(scope.into())),
            breaking: false,
            title: Some(Spanned::detached(title.into())),
            span: Span::DETACHED,
        }
    }
}

/// `- Key: value`; serializes as the pair `[key, value]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Constraint {
    /// The constraint's key, before the colon (`Scope`).
    pub key: Spanned<String>,
    /// The constraint's value, after the colon and its space.
    pub value: Spanned<String>,
    /// The whole constraint line.
    pub span: Span,
}

impl Constraint {
    /// A constraint that did not come from parsed text.
    pub fn new(key: impl Into<String>, value: impl Into<String>) -> Self {
        Constraint {
            key: Spanned::detached(key.into()),
            value: Spanned::detached(value.into()),
            span: Span::DETACHED,
        }
    }
}

/// `- [x]: text` with nested subtasks; serializes as
/// `[checked, text, children]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Task {
    /// Whether the checkbox is ticked (`[x]`).
    pub checked: bool,
    /// The task's text after the checkbox.
    pub text: Spanned<String>,
    /// The subtasks indented beneath this task.
    pub children: Vec<Task>,
    /// The task's own line (children have their own spans).
    pub span: Span,
}

impl Task {
    /// A task that did not come from parsed text.
    pub fn new(checked: bool, text: impl Into<String>, children: Vec<Task>) -> Self {
        Task {
            checked,
            text: Spanned::detached(text.into()),
            children,
            span: Span::DETACHED,
        }
    }
}

impl Serialize for Constraint {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut pair = serializer.serialize_tuple(2)?;
        pair.serialize_element(&self.key.value)?;
        pair.serialize_element(&self.value.value)?;
        pair.end()
    }
}

impl<'de> Deserialize<'de> for Constraint {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let (key, value) = <(String, String)>::deserialize(deserializer)?;
        Ok(Constraint::new(key, value))
    }
}

impl Serialize for Task {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut triple = serializer.serialize_tuple(3)?;
        triple.serialize_element(&self.checked)?;
        triple.serialize_element(&self.text.value)?;
        triple.serialize_element(&self.children)?;
        triple.end()
    }
}

impl<'de> Deserialize<'de> for Task {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TaskVisitor;

        impl<'de> Visitor<'de> for TaskVisitor {
            type Value = Task;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(
                    "a task as [checked, text, children], e.g. [false, \"Write tests\", []]",
                )
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Task, A::Error> {
                use serde::de::Error;
                let checked = seq
                    .next_element()?
                    .ok_or_else(|| A::Error::invalid_length(0, &self))?;
                let text: String = seq
                    .next_element()?
                    .ok_or_else(|| A::Error::invalid_length(1, &self))?;
                let children = seq
                    .next_element()?
                    .ok_or_else(|| A::Error::invalid_length(2, &self))?;
                if seq.next_element::<serde::de::IgnoredAny>()?.is_some() {
                    return Err(A::Error::invalid_length(4, &self));
                }
                Ok(Task::new(checked, text, children))
            }
        }

        deserializer.deserialize_seq(TaskVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tasks_and_constraints_use_the_tuple_shape() {
        let doc = PlanDocument {
            header: Some(Header {
                breaking: true,
                ..Header::new("feat", "parser", "Add tasks")
            }),
            constraints: Some(vec![Constraint::new("Never", "skip tests")]),
            tasks: Some(vec![Task::new(
                false,
                "Parse",
                vec![Task::new(true, "Lex", vec![])],
            )]),
            ..PlanDocument::default()
        };
        let value = serde_json::to_value(&doc).unwrap();
        assert_eq!(
            value,
            json!({
                "header": {"type": "feat", "scope": "parser", "breaking": true, "title": "Add tasks"},
                "constraints": [["Never", "skip tests"]],
                "tasks": [[false, "Parse", [[true, "Lex", []]]]],
            })
        );
        let back: PlanDocument = serde_json::from_value(value).unwrap();
        assert_eq!(back, doc);
    }

    #[test]
    fn a_malformed_task_tuple_is_rejected_with_the_expected_shape() {
        let error = serde_json::from_value::<Task>(json!([false, "x"])).unwrap_err();
        assert!(
            error.to_string().contains("[checked, text, children]"),
            "{error}"
        );
        assert!(serde_json::from_value::<Task>(json!([false, "x", [], 1])).is_err());
        assert!(serde_json::from_value::<PlanDocument>(json!({"titel": "x"})).is_err());
    }

    #[test]
    fn depth_first_walk_reports_depths_in_document_order() {
        let doc = PlanDocument {
            tasks: Some(vec![
                Task::new(
                    false,
                    "a",
                    vec![Task::new(false, "b", vec![Task::new(true, "c", vec![])])],
                ),
                Task::new(true, "d", vec![]),
            ]),
            ..PlanDocument::default()
        };
        let walked: Vec<(usize, &str)> = doc
            .tasks_depth_first()
            .map(|(depth, task)| (depth, task.text.as_str()))
            .collect();
        assert_eq!(walked, [(0, "a"), (1, "b"), (2, "c"), (0, "d")]);
    }
}
