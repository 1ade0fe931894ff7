//! The typed AST of a plan document.
//!
//! Each section is optional and present only when the text had it, which is
//! what the JSON shape of the conformance cases encodes by absent keys. Every
//! node keeps the byte span it was read from; spans are not part of the JSON
//! shape (see [`crate::span::Spanned`]).
//!
//! The fields are public, for building and editing documents; the accessors
//! (`title()`, `tasks()`, ...) read them without the `Option`/`Spanned`
//! wrapping. `==` compares spans too (two parses of the same text are
//! equal); `same_content` compares what the JSON shape holds and ignores
//! where it was written.

use serde::de::{Deserializer, SeqAccess, Visitor};
use serde::ser::{SerializeTuple, Serializer};
use serde::{Deserialize, Serialize};

use super::task_path::TaskPath;
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

    /// The header, when the document has one.
    pub fn header(&self) -> Option<&Header> {
        self.header.as_ref()
    }

    /// The description's text, lines joined with `\n`.
    pub fn description(&self) -> Option<&str> {
        text_of(&self.description)
    }

    /// The constraints in document order (none when the section is absent).
    pub fn constraints(&self) -> std::slice::Iter<'_, Constraint> {
        self.constraints.as_deref().unwrap_or_default().iter()
    }

    /// The top-level tasks in document order (none when the section is
    /// absent); each task's subtasks are [`Task::children`].
    pub fn tasks(&self) -> std::slice::Iter<'_, Task> {
        self.tasks.as_deref().unwrap_or_default().iter()
    }

    /// The direction's text: everything after the tasks, trimmed.
    pub fn direction(&self) -> Option<&str> {
        text_of(&self.direction)
    }

    /// The task at `path`, if the document has one there.
    ///
    /// ```
    /// use quire_grammar::plan::{PlanDocument, TaskPath};
    ///
    /// let mut document: PlanDocument = "feat(a): b\n\nWhy.\n- [ ]: One\n  - [ ]: Sub\n".parse().unwrap();
    /// let path: TaskPath = "1.1".parse().unwrap();
    /// assert_eq!(document.task(&path).map(|task| task.text()), Some("Sub"));
    /// assert!(document.task(&"1.2".parse().unwrap()).is_none());
    /// document.task_mut(&path).unwrap().checked = true;
    /// assert!(document.task(&path).unwrap().checked);
    /// ```
    pub fn task(&self, path: &TaskPath) -> Option<&Task> {
        let (first, rest) = path.indices().split_first()?;
        rest.iter()
            .try_fold(self.tasks.as_ref()?.get(*first)?, |task, &index| {
                task.children.get(index)
            })
    }

    /// The task at `path`, to edit, if the document has one there.
    pub fn task_mut(&mut self, path: &TaskPath) -> Option<&mut Task> {
        let (first, rest) = path.indices().split_first()?;
        rest.iter()
            .try_fold(self.tasks.as_mut()?.get_mut(*first)?, |task, &index| {
                task.children.get_mut(index)
            })
    }

    /// Every task in document order (depth first) with its path.
    ///
    /// ```
    /// use quire_grammar::plan::PlanDocument;
    ///
    /// let document: PlanDocument =
    ///     "feat(a): b\n\nWhy.\n- [x]: One\n  - [x]: Sub\n- [ ]: Two\n".parse().unwrap();
    /// let listed: Vec<String> = document
    ///     .tasks_with_paths()
    ///     .map(|(path, task)| format!("{path} {}", task.text()))
    ///     .collect();
    /// assert_eq!(listed, ["1 One", "1.1 Sub", "2 Two"]);
    /// ```
    pub fn tasks_with_paths(&self) -> impl Iterator<Item = (TaskPath, &Task)> {
        let mut stack: Vec<(TaskPath, &Task)> = self
            .tasks()
            .enumerate()
            .rev()
            .map(|(index, task)| (TaskPath::top(index), task))
            .collect();
        std::iter::from_fn(move || {
            let (path, task) = stack.pop()?;
            let children = task.children.iter().enumerate().rev();
            stack.extend(children.map(|(index, child)| (path.child(index), child)));
            Some((path, task))
        })
    }

    /// Whether `other` has the same content: the same sections with the same
    /// values, wherever they were written. This is equality of the JSON
    /// shape; `==` also compares spans.
    ///
    /// ```
    /// use quire_grammar::plan::{format, PlanDocument, ParserConfig};
    ///
    /// let tight: PlanDocument = "feat(a): b\n\nWhy.\n- [ ]: One\n".parse().unwrap();
    /// let spaced: PlanDocument = "feat(a): b\n\nWhy.\n\n- [ ]: One\n".parse().unwrap();
    /// assert!(tight.same_content(&spaced));
    /// assert_ne!(tight, spaced); // the task starts one line later
    /// ```
    pub fn same_content(&self, other: &PlanDocument) -> bool {
        same_option(&self.header, &other.header, Header::same_content)
            && self.description() == other.description()
            && same_option(&self.constraints, &other.constraints, |ours, theirs| {
                same_all(ours, theirs, Constraint::same_content)
            })
            && same_option(&self.tasks, &other.tasks, |ours, theirs| {
                same_all(ours, theirs, Task::same_content)
            })
            && self.direction() == other.direction()
    }

    /// The directive the direction ends with, if its last line is exactly
    /// `~~~ WORD ~~~` (a word of capital letters): `Some("COMPLETE")` for
    /// `~~~ COMPLETE ~~~`. Lines before it are the rest of the direction
    /// ([`PlanDocument::direction_before_directive`]).
    ///
    /// ```
    /// use quire_grammar::plan::{parse, ParserConfig};
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
        let direction = self.direction()?;
        let last_line = direction.rsplit('\n').next().unwrap_or(direction);
        let word = last_line.strip_prefix("~~~ ")?.strip_suffix(" ~~~")?;
        (!word.is_empty() && word.chars().all(|c| c.is_ascii_uppercase())).then_some(word)
    }

    /// The direction without its closing directive line: the whole direction
    /// when it has no directive, `None` when it is only a directive (or
    /// absent).
    pub fn direction_before_directive(&self) -> Option<&str> {
        let direction = self.direction()?;
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

    /// The commit type (`feat`); `None` in syntaxes without one.
    pub fn commit_type(&self) -> Option<&str> {
        text_of(&self.commit_type)
    }

    /// The scope (`parser` in `feat(parser):`).
    pub fn scope(&self) -> Option<&str> {
        text_of(&self.scope)
    }

    /// The title after the colon; `None` when the header ends at the colon.
    pub fn title(&self) -> Option<&str> {
        text_of(&self.title)
    }

    /// Whether the header marks a breaking change (`!` after the scope).
    pub fn is_breaking(&self) -> bool {
        self.breaking
    }

    /// Whether `other` has the same type, scope, `!` and title, wherever
    /// they were written.
    pub fn same_content(&self, other: &Header) -> bool {
        self.commit_type() == other.commit_type()
            && self.scope() == other.scope()
            && self.breaking == other.breaking
            && self.title() == other.title()
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

    /// The key, before the colon (`Never`).
    pub fn key(&self) -> &str {
        &self.key.value
    }

    /// The value, after the colon and its space.
    pub fn value(&self) -> &str {
        &self.value.value
    }

    /// Whether `other` has the same key and value, wherever they were
    /// written.
    pub fn same_content(&self, other: &Constraint) -> bool {
        self.key() == other.key() && self.value() == other.value()
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

    /// The task's text after the checkbox.
    pub fn text(&self) -> &str {
        &self.text.value
    }

    /// Whether the checkbox is ticked (`[x]`).
    pub fn is_checked(&self) -> bool {
        self.checked
    }

    /// The subtasks indented beneath this task, in document order.
    pub fn children(&self) -> &[Task] {
        &self.children
    }

    /// Whether `other` has the same checkbox, text and subtasks (compared
    /// the same way), wherever they were written.
    pub fn same_content(&self, other: &Task) -> bool {
        self.checked == other.checked
            && self.text() == other.text()
            && same_all(&self.children, &other.children, Task::same_content)
    }
}

/// The text of an optional spanned string.
fn text_of(value: &Option<Spanned<String>>) -> Option<&str> {
    value.as_ref().map(|spanned| spanned.value.as_str())
}

/// Whether two optional values are both absent, or both present and `same`.
fn same_option<T>(ours: &Option<T>, theirs: &Option<T>, same: impl Fn(&T, &T) -> bool) -> bool {
    match (ours, theirs) {
        (Some(ours), Some(theirs)) => same(ours, theirs),
        (None, None) => true,
        _ => false,
    }
}

/// Whether two lists have the same length and are `same` item by item.
fn same_all<T>(ours: &[T], theirs: &[T], same: impl Fn(&T, &T) -> bool) -> bool {
    ours.len() == theirs.len()
        && ours
            .iter()
            .zip(theirs)
            .all(|(ours, theirs)| same(ours, theirs))
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

    fn sample() -> PlanDocument {
        PlanDocument {
            header: Some(Header::new("feat", "parser", "Add tasks")),
            description: Some("Why.".into()),
            constraints: Some(vec![Constraint::new("Never", "skip tests")]),
            tasks: Some(vec![
                Task::new(false, "a", vec![Task::new(true, "b", vec![])]),
                Task::new(true, "c", vec![]),
            ]),
            direction: Some("Next".into()),
        }
    }

    #[test]
    fn accessors_read_through_options_and_spans() {
        let doc = sample();
        let header = doc.header().unwrap();
        assert_eq!(
            (header.commit_type(), header.scope(), header.title()),
            (Some("feat"), Some("parser"), Some("Add tasks"))
        );
        assert!(!header.is_breaking());
        assert_eq!(doc.description(), Some("Why."));
        assert_eq!(doc.direction(), Some("Next"));
        let constraint = doc.constraints().next().unwrap();
        assert_eq!(
            (constraint.key(), constraint.value()),
            ("Never", "skip tests")
        );
        let top: Vec<&str> = doc.tasks().map(Task::text).collect();
        assert_eq!(top, ["a", "c"]);
        assert!(doc.tasks().next().unwrap().children()[0].is_checked());
        let empty = PlanDocument::default();
        assert_eq!((empty.tasks().len(), empty.constraints().len()), (0, 0));
        assert_eq!((empty.description(), empty.direction()), (None, None));
    }

    #[test]
    fn tasks_are_found_by_path() {
        let mut doc = sample();
        let walked: Vec<(String, &str)> = doc
            .tasks_with_paths()
            .map(|(path, task)| (path.to_string(), task.text()))
            .collect();
        assert_eq!(
            walked,
            [("1".into(), "a"), ("1.1".into(), "b"), ("2".into(), "c")]
        );
        for (path, task) in doc.tasks_with_paths() {
            assert!(std::ptr::eq(doc.task(&path).unwrap(), task));
        }
        let missing = ["3", "1.2", "2.1", "1.1.1"];
        for path in missing {
            assert!(doc.task(&path.parse().unwrap()).is_none(), "{path}");
        }
        doc.task_mut(&"1.1".parse().unwrap()).unwrap().checked = false;
        assert!(!doc.task(&"1.1".parse().unwrap()).unwrap().checked);
        assert!(doc.task_mut(&"2.1".parse().unwrap()).is_none());
        assert!(PlanDocument::default().task(&TaskPath::top(0)).is_none());
    }

    #[test]
    fn same_content_ignores_spans_and_nothing_else() {
        let doc = sample();
        let mut moved = doc.clone();
        moved.header.as_mut().unwrap().span = Span::new(0, 20);
        moved.tasks.as_mut().unwrap()[0].children[0].text.span = Span::new(40, 41);
        moved.constraints.as_mut().unwrap()[0].value.span = Span::new(30, 40);
        assert!(doc.same_content(&moved) && moved.same_content(&doc));
        assert_ne!(doc, moved);

        let changes: [fn(&mut PlanDocument); 9] = [
            |d| d.header.as_mut().unwrap().breaking = true,
            |d| d.header.as_mut().unwrap().scope = None,
            |d| d.header.as_mut().unwrap().title = Some("Add Tasks".into()),
            |d| d.description = None,
            |d| d.constraints = Some(vec![]),
            |d| d.constraints.as_mut().unwrap()[0] = Constraint::new("Never", "skip test"),
            |d| d.tasks.as_mut().unwrap()[0].children[0].checked = false,
            |d| {
                d.tasks.as_mut().unwrap()[0]
                    .children
                    .push(Task::new(false, "x", vec![]))
            },
            |d| d.direction = Some("Next ".into()),
        ];
        for (at, change) in changes.iter().enumerate() {
            let mut changed = doc.clone();
            change(&mut changed);
            assert!(!doc.same_content(&changed), "change {at}");
            assert!(!changed.same_content(&doc), "change {at}");
        }
    }
}
