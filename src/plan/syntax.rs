//! The borrowed syntax layer: a plan document as slices of its text.
//!
//! [`parse`] reads a plan into a [`SyntaxDocument`] that borrows every value
//! from the text (`&str` slices with their byte spans) and keeps the tasks in
//! one flat vector in document order, each with its depth and its parent's
//! index. Apart from that vector, the constraints' vector and the
//! diagnostics of a text that has problems, it allocates nothing: read it
//! when you only need to look at a plan. [`crate::plan::parse`] builds this
//! layer first and converts it into the owned [`PlanDocument`] for editing.
//!
//! ```
//! use quire_grammar::plan::{syntax, ParseState, ParserConfig};
//!
//! let text = "feat(io): Retry\n\nFlaky disks.\n- [x]: Add a retry\n  - [ ]: Test it\n";
//! let outcome = syntax::parse(text, &ParserConfig::default());
//! assert_eq!(outcome.state, ParseState::Parsed);
//! let tasks = &outcome.document.tasks;
//! assert_eq!((tasks[1].text.value, tasks[1].depth, tasks[1].parent), ("Test it", 1, Some(0)));
//! assert_eq!(&text[tasks[1].text.span.range()], "Test it");
//! assert_eq!(outcome.document.to_document(), quire_grammar::plan::parse(text, &ParserConfig::default()).document);
//! ```

mod problems;
mod scanner;
mod sections;

use std::borrow::Cow;

use super::ast::{Constraint, Header, PlanDocument, Task};
use super::codes::PlanDiagnostic;
use super::config::ParserConfig;
use super::parse::ParseState;
use crate::span::{Span, Spanned};

/// The result of [`parse`]: the state, the document as slices of the text,
/// and every diagnostic (the first error is why the parser halted; any after
/// it are further problems found by reading on).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxOutcome<'a> {
    /// Whether the whole text was read, or where the parser halted.
    pub state: ParseState,
    /// Everything parsed up to the end, or up to the halt.
    pub document: SyntaxDocument<'a>,
    /// Every warning, the error that halted the parser, if any, and the
    /// errors found after it.
    pub diagnostics: Vec<PlanDiagnostic>,
}

/// A plan document whose values are slices of the parsed text.
///
/// Sections the text does not have are `None` or empty. Unlike
/// [`PlanDocument`], the description and the direction are the text as
/// written, line endings included (CRLF stays CRLF); [`Self::description`]
/// and [`Self::direction`] give them with `\n` line endings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SyntaxDocument<'a> {
    /// The first line, when it reads as a header.
    pub header: Option<SyntaxHeader<'a>>,
    /// The description's lines as written.
    pub raw_description: Option<Spanned<&'a str>>,
    /// The constraints, in document order.
    pub constraints: Vec<SyntaxConstraint<'a>>,
    /// Every task in document order (depth first): a task's subtasks follow
    /// it, before its next sibling.
    pub tasks: Vec<SyntaxTask<'a>>,
    /// Everything after the tasks as written, trimmed of surrounding
    /// whitespace.
    pub raw_direction: Option<Spanned<&'a str>>,
}

/// The header line's parts (see [`Header`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SyntaxHeader<'a> {
    /// The commit type (`feat`); `None` in syntaxes without one.
    pub commit_type: Option<Spanned<&'a str>>,
    /// The scope inside the parentheses.
    pub scope: Option<Spanned<&'a str>>,
    /// `!` after the scope.
    pub breaking: bool,
    /// The title; `None` when the header ends at the colon (or the title is
    /// over the limit, which halts the parser).
    pub title: Option<Spanned<&'a str>>,
    /// The whole header line.
    pub span: Span,
}

/// One constraint line's key and value (see [`Constraint`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxConstraint<'a> {
    /// The key, before the colon.
    pub key: Spanned<&'a str>,
    /// The value, after the colon and its space.
    pub value: Spanned<&'a str>,
    /// The whole line.
    pub span: Span,
}

/// One task line, placed in the task tree by its depth and parent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxTask<'a> {
    /// Whether the checkbox is checked (`[x]`).
    pub checked: bool,
    /// The task's text.
    pub text: Spanned<&'a str>,
    /// The indentation before the task's marker.
    pub indent: Spanned<&'a str>,
    /// The indentation's width in characters (a tab counts as one).
    pub indent_width: usize,
    /// 0 for a top-level task, its parent's depth + 1 otherwise.
    pub depth: usize,
    /// The index (in [`SyntaxDocument::tasks`]) of the task it is a subtask of.
    pub parent: Option<usize>,
    /// How many direct subtasks it has.
    pub children: usize,
    /// The whole line.
    pub span: Span,
}

/// Parses a plan document into slices of `text`.
///
/// Reads the text as [`crate::plan::parse`] does, with the same state,
/// diagnostics and sections; see the [module documentation](self).
pub fn parse<'a>(text: &'a str, config: &ParserConfig) -> SyntaxOutcome<'a> {
    scanner::scan(text, config)
}

impl SyntaxDocument<'_> {
    /// The description with its lines joined by `\n` (as [`PlanDocument`]
    /// has it).
    pub fn description(&self) -> Option<Cow<'_, str>> {
        self.raw_description.as_ref().map(|raw| with_lf(raw.value))
    }

    /// The direction with its lines joined by `\n` (as [`PlanDocument`] has
    /// it).
    pub fn direction(&self) -> Option<Cow<'_, str>> {
        self.raw_direction.as_ref().map(|raw| with_lf(raw.value))
    }

    /// The tasks with no parent, with their indices.
    pub fn top_level_tasks(&self) -> impl Iterator<Item = (usize, &SyntaxTask<'_>)> {
        self.tasks
            .iter()
            .enumerate()
            .filter(|(_, task)| task.parent.is_none())
    }

    /// The owned document, as [`crate::plan::parse`] returns it.
    pub fn to_document(&self) -> PlanDocument {
        let owned = |piece: &Spanned<&str>| Spanned::new(piece.value.to_owned(), piece.span);
        let header = self.header.as_ref().map(|header| Header {
            commit_type: header.commit_type.as_ref().map(owned),
            scope: header.scope.as_ref().map(owned),
            breaking: header.breaking,
            title: header.title.as_ref().map(owned),
            span: header.span,
        });
        let joined = |raw: &Spanned<&str>| Spanned::new(with_lf(raw.value).into_owned(), raw.span);
        let description = self.raw_description.as_ref().map(joined);
        let tasks = (!self.tasks.is_empty()).then(|| task_tree(&self.tasks));
        let constraints = if !self.constraints.is_empty() {
            let mut constraints = Vec::with_capacity(self.constraints.len());
            constraints.extend(self.constraints.iter().map(|constraint| Constraint {
                key: owned(&constraint.key),
                value: owned(&constraint.value),
                span: constraint.span,
            }));
            Some(constraints)
        } else if tasks.is_some() && description.is_some() {
            // The original's shape: tasks after a description carry `[]`.
            Some(Vec::new())
        } else {
            None
        };
        PlanDocument {
            header,
            description,
            constraints,
            tasks,
            direction: self.raw_direction.as_ref().map(joined),
        }
    }
}

impl From<SyntaxOutcome<'_>> for super::parse::ParseOutcome {
    fn from(outcome: SyntaxOutcome<'_>) -> Self {
        super::parse::ParseOutcome {
            state: outcome.state,
            document: outcome.document.to_document(),
            diagnostics: outcome.diagnostics,
        }
    }
}

/// The task tree of `flat` (tasks in document order with their child
/// counts), each children vector allocated at its final size.
///
/// Built back to front: when a task is reached, its subtasks are already
/// built and on top of the stack, first child topmost.
fn task_tree(flat: &[SyntaxTask<'_>]) -> Vec<Task> {
    let mut built: Vec<Task> = Vec::with_capacity(flat.len());
    for task in flat.iter().rev() {
        let children = built.drain(built.len() - task.children..).rev().collect();
        built.push(Task {
            checked: task.checked,
            text: Spanned::new(task.text.value.to_owned(), task.text.span),
            children,
            span: task.span,
        });
    }
    built.reverse();
    built
}

/// `raw` with every line ending (`\n` after any carriage returns) as `\n`.
fn with_lf(raw: &str) -> Cow<'_, str> {
    if !raw.contains("\r\n") {
        return Cow::Borrowed(raw);
    }
    let mut joined = String::with_capacity(raw.len());
    for (index, line) in raw.split('\n').enumerate() {
        if index > 0 {
            joined.push('\n');
        }
        joined.push_str(line.trim_end_matches('\r'));
    }
    Cow::Owned(joined)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Code;

    #[test]
    fn line_endings_become_lf_and_lone_carriage_returns_stay() {
        assert_eq!(with_lf("a\r\nb\r\r\nc\rd"), "a\nb\nc\rd");
        assert!(matches!(with_lf("a\nb\rc"), Cow::Borrowed("a\nb\rc")));
    }

    #[test]
    fn the_flat_tasks_know_their_parents_and_the_tree_is_rebuilt() {
        let text = "f(s): t\n\n- [ ]: a\n  - [x]: b\n      - [ ]: c\n  - [ ]: d\n- [ ]: e";
        let outcome = parse(text, &ParserConfig::default());
        let shape: Vec<(&str, usize, Option<usize>, usize)> = outcome
            .document
            .tasks
            .iter()
            .map(|task| (task.text.value, task.depth, task.parent, task.children))
            .collect();
        assert_eq!(
            shape,
            [
                ("a", 0, None, 2),
                ("b", 1, Some(0), 1),
                ("c", 2, Some(1), 0),
                ("d", 1, Some(0), 0),
                ("e", 0, None, 0),
            ]
        );
        let tree = serde_json::to_value(outcome.document.to_document().tasks).unwrap();
        assert_eq!(
            tree,
            serde_json::json!([
                [
                    false,
                    "a",
                    [[true, "b", [[false, "c", []]]], [false, "d", []]]
                ],
                [false, "e", []]
            ])
        );
        let top: Vec<usize> = outcome.document.top_level_tasks().map(|(i, _)| i).collect();
        assert_eq!(top, [0, 4]);
    }

    fn codes(outcome: &SyntaxOutcome<'_>) -> Vec<Code> {
        outcome.diagnostics.iter().map(|d| d.code).collect()
    }

    #[test]
    fn after_a_halt_every_further_problem_is_reported_and_the_document_kept() {
        let text = "feat(a) b\n\nWhy.\n\nMore.\n- [x] c\n- Never: Do\n- [ ]: d\n- [X]: e\n\nabc";
        let outcome = parse(text, &ParserConfig::default());
        assert_eq!(outcome.state, ParseState::Halted);
        assert_eq!(
            codes(&outcome),
            [
                Code::InvalidHeader,
                Code::BlankLineInDescription,
                Code::MalformedTask,
                Code::ConstraintIgnored,
                Code::MalformedTask,
                Code::IncompleteDirection,
            ]
        );
        // The document is what it was at the first halt: nothing.
        assert_eq!(outcome.document, SyntaxDocument::default());

        let text = "feat(a): b\nWhy.\n- [ ]: c\n- [x] d";
        let outcome = parse(text, &ParserConfig::default());
        assert_eq!(
            codes(&outcome),
            [Code::MissingBlankLine, Code::MalformedTask]
        );
        assert!(outcome.document.header.is_some() && outcome.document.tasks.is_empty());
    }

    #[test]
    fn reading_on_reports_at_most_a_hundred_problems() {
        let text = format!("f(s): t\n\n{}", "- [X]: x\n".repeat(500));
        let outcome = parse(&text, &ParserConfig::default());
        assert_eq!(
            outcome.diagnostics.len(),
            1 + scanner::MAX_FURTHER_DIAGNOSTICS
        );
    }

    #[test]
    fn raw_sections_keep_crlf_and_the_joined_ones_do_not() {
        let text = "f(s): t\r\n\r\nline one\r\nline two\r\n- [ ]: a\r\n\r\nGo on\r\nnow\r\n";
        let document = parse(text, &ParserConfig::default()).document;
        assert_eq!(
            document.raw_description.as_ref().unwrap().value,
            "line one\r\nline two"
        );
        assert_eq!(document.description().unwrap(), "line one\nline two");
        assert_eq!(
            document.raw_direction.as_ref().unwrap().value,
            "Go on\r\nnow"
        );
        assert_eq!(document.direction().unwrap(), "Go on\nnow");
    }
}
