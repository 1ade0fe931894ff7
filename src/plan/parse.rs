//! The document-level grammar: header, then description, constraints, tasks
//! and direction, each section found by peeking at the next line's rule and
//! taking it when it matches.
//!
//! The parser never gives up silently: when it halts it records one error
//! diagnostic and keeps everything parsed before that point; when it reads a
//! line it does not keep, it records a warning.

use serde::Serialize;
use serde::ser::{SerializeMap, Serializer};

use super::ast::{Constraint, Header, PlanDocument, Task};
use super::codes::{Code, PlanDiagnostic};
use super::config::{ConstraintSyntax, HeaderSyntax, ParserConfig, TaskSyntax};
use super::lines::{Line, end_without_line_ending, join_contents, split_lines};
use super::rules::{self, Input, Piece, TaskLine, TaskProblem, parse_line};
use crate::diagnostics::{Diagnostic, Severity, one_line};
use crate::span::{Span, Spanned};

/// Whether the parser read the whole text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ParseState {
    /// The whole text is a plan document (possibly an empty one).
    Parsed,
    /// The parser stopped at an error; the document holds what came before it.
    Halted,
}

/// The result of [`parse`]: the state, the document parsed so far, and every
/// diagnostic (at most one error, which is why the parser halted).
///
/// Serializes to the JSON shape of the conformance cases: `state` plus the
/// document's sections.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseOutcome {
    /// Whether the whole text was read, or where the parser halted.
    pub state: ParseState,
    /// Everything parsed up to the end, or up to the halt.
    pub document: PlanDocument,
    /// Every warning, and the error that halted the parser, if any.
    pub diagnostics: Vec<PlanDiagnostic>,
}

impl ParseOutcome {
    /// Whether the parser read the whole text without halting.
    pub fn is_parsed(&self) -> bool {
        self.state == ParseState::Parsed
    }

    /// The error that halted the parser, if it halted.
    pub fn halt_reason(&self) -> Option<&PlanDiagnostic> {
        self.diagnostics
            .iter()
            .find(|diagnostic| diagnostic.is_error())
    }
}

impl Serialize for ParseOutcome {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let document = serde_json::to_value(&self.document).map_err(serde::ser::Error::custom)?;
        let sections = document.as_object().into_iter().flatten();
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("state", &self.state)?;
        for (key, value) in sections {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

/// Parses a plan document.
///
/// Never panics, and runs in time linear in the length of `text`. A text
/// ending in one line ending (`\n` or `\r\n`) parses as the text without it;
/// CRLF line endings parse as LF.
///
/// ```
/// use quire::plan::{parse, ParseState, ParserConfig};
///
/// let outcome = parse("fix(io): Retry\n\nFlaky disks.\n- [ ]: Add a retry\n", &ParserConfig::default());
/// assert_eq!(outcome.state, ParseState::Parsed);
/// assert_eq!(outcome.document.tasks.as_ref().unwrap()[0].text.as_str(), "Add a retry");
///
/// let halted = parse("fix(io): Retry\nno blank line", &ParserConfig::default());
/// assert_eq!(halted.state, ParseState::Halted);
/// assert_eq!(halted.halt_reason().unwrap().to_string(),
///            "error[plan::missing_blank_line]: the header must be followed by a blank line");
/// ```
pub fn parse(text: &str, config: &ParserConfig) -> ParseOutcome {
    let mut parser = DocumentParser {
        text,
        config,
        lines: Vec::new(),
        cursor: 0,
        document: PlanDocument::default(),
        constraints: Vec::new(),
        diagnostics: Vec::new(),
    };
    let state = match parser.document() {
        Ok(()) => ParseState::Parsed,
        Err(Halted) => ParseState::Halted,
    };
    parser.finish(state)
}

/// The parser stopped; its error diagnostic is already recorded.
struct Halted;

type Step = Result<(), Halted>;

struct DocumentParser<'t> {
    text: &'t str,
    config: &'t ParserConfig,
    lines: Vec<Line>,
    /// Index of the next line to read.
    cursor: usize,
    document: PlanDocument,
    constraints: Vec<Constraint>,
    diagnostics: Vec<PlanDiagnostic>,
}

/// What a diagnostic says, before it gets a severity.
struct Finding<'a> {
    message: String,
    label: &'a str,
    help: String,
}

/// `1 task`, `2 tasks`: a count and its noun, in the plural unless one.
fn counted(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

fn finding(message: impl Into<String>, label: &str, help: impl Into<String>) -> Finding<'_> {
    Finding {
        message: message.into(),
        label,
        help: help.into(),
    }
}

impl<'t> DocumentParser<'t> {
    fn record(&mut self, code: Code, severity: Severity, span: Span, finding: Finding<'_>) {
        self.diagnostics.push(Diagnostic {
            code,
            severity,
            message: finding.message,
            label: finding.label.to_owned(),
            help: finding.help,
            span,
            field: None,
        });
    }

    fn halt(&mut self, code: Code, span: Span, finding: Finding<'_>) -> Halted {
        self.record(code, Severity::Error, span, finding);
        Halted
    }

    fn warn(&mut self, code: Code, span: Span, finding: Finding<'_>) {
        self.record(code, Severity::Warning, span, finding);
    }

    fn line_text(&self, line: Line) -> &'t str {
        line.text(self.text)
    }

    fn task_at(&self, line: Line) -> Option<TaskLine<'t>> {
        let syntax = self.config.task;
        parse_line(self.text, line, |input: &mut Input<'t>| {
            rules::task_line(syntax, input)
        })
    }

    fn constraint_at(&self, line: Line) -> Option<rules::ConstraintLine<'t>> {
        let syntax = self.config.constraint;
        parse_line(self.text, line, |input: &mut Input<'t>| {
            rules::constraint_line(syntax, input)
        })
    }

    /// Does this line begin the constraint or task section? A line that
    /// starts like a task but is not one counts too, so that the constraint
    /// section reports it instead of the description swallowing it.
    fn starts_section(&self, line: Line) -> bool {
        let text = self.line_text(line);
        self.task_at(line).is_some()
            || self.constraint_at(line).is_some()
            || rules::is_constraint_like(self.config.constraint, text)
            || rules::task_problem(self.config.task, text).is_some()
    }

    // document ::= blank-text
    //            | header ( EOL ( EOL body )? )? EOL?
    // body     ::= description? constraints? tasks? direction?
    //
    // Halts: invalid configuration, a leading line ending, more than
    // max_input_length characters, a NUL character, a second line that is not
    // blank.
    fn document(&mut self) -> Step {
        if let Err(errors) = self.config.validate() {
            let settings: Vec<String> = errors
                .iter()
                .map(|error| format!("`{}` {}", error.setting, error.reason))
                .collect();
            return Err(self.halt(
                Code::InvalidConfig,
                Span::at(0),
                finding(
                    format!("the parser configuration is invalid: {}", settings.join("; ")),
                    "",
                    "use a preset, or set max_title_length, indent_size, max_input_length and max_task_count to at least 1",
                ),
            ));
        }
        // A UTF-8 byte-order mark is not part of the document.
        let start = if self.text.starts_with('\u{feff}') {
            3
        } else {
            0
        };
        let content = &self.text[start..];
        if content.trim().is_empty() {
            return Ok(());
        }
        let first_line = content.split('\n').next().unwrap_or_default();
        if content.len() > first_line.len() && first_line.trim_start_matches('\r').is_empty() {
            return Err(self.halt(
                Code::LeadingBlankLine,
                Span::new(start, start + first_line.len() + 1),
                finding(
                    "the document starts with a blank line",
                    "the header must be on this first line",
                    "remove the blank line so the header is the first line",
                ),
            ));
        }
        self.check_size_and_characters()?;

        self.lines = split_lines(self.text, start, end_without_line_ending(self.text));
        self.header()?;
        let Some(&second) = self.lines.get(1) else {
            return Ok(());
        };
        if !second.is_blank() {
            return Err(self.halt(
                Code::MissingBlankLine,
                second.span(),
                finding(
                    "the header must be followed by a blank line",
                    "expected a blank line before this line",
                    "insert an empty line between the header and the description",
                ),
            ));
        }
        self.cursor = 2;
        self.description()?;
        self.constraints()?;
        self.tasks()?;
        self.direction()
    }

    fn check_size_and_characters(&mut self) -> Step {
        let limit = self.config.max_input_length;
        // Bytes bound characters from above: count only when it can matter.
        if self.text.len() > limit
            && let Some((cut, _)) = self.text.char_indices().nth(limit)
        {
            return Err(self.halt(
                Code::InputTooLong,
                Span::new(cut, self.text.len()),
                finding(
                    format!(
                        "the document has {} characters; the limit is {limit}",
                        self.text.chars().count()
                    ),
                    "everything from here on is over the limit",
                    "shorten the document, or split the plan into several changes",
                ),
            ));
        }
        if let Some(nul) = memchr::memchr(0, self.text.as_bytes()) {
            return Err(self.halt(
                Code::NulByte,
                Span::new(nul, nul + 1),
                finding(
                    "the document contains a NUL character",
                    "NUL character",
                    "remove the NUL character; plan documents are plain text",
                ),
            ));
        }
        Ok(())
    }

    // header ::= conventional-header | markdown-header | yaml-header  (by preset)
    //
    // Halts: a first line that is not a header; a title longer than
    // max_title_length characters (the header is kept without its title).
    // Warns: text after `type:` without a scope, which is not a title.
    fn header(&mut self) -> Step {
        let line = self.lines[0];
        let syntax = self.config.header;
        let Some(parsed) = parse_line(self.text, line, |input: &mut Input<'t>| {
            rules::header_line(syntax, input)
        }) else {
            let mistake = header_mistake(syntax, self.line_text(line));
            let span = Span::new(
                line.start + mistake.range.start,
                line.start + mistake.range.end,
            );
            return Err(self.halt(
                Code::InvalidHeader,
                span,
                finding(
                    "the first line is not a valid header",
                    mistake.label,
                    mistake.help,
                ),
            ));
        };
        let owned = |piece: Piece<'_>| Spanned::new(piece.text.to_owned(), piece.span);
        let mut header = Header {
            commit_type: parsed.commit_type.map(owned),
            scope: parsed.scope.map(owned),
            breaking: parsed.breaking,
            title: None,
            span: line.span(),
        };
        if let Some(ignored) = parsed.ignored {
            let type_name = parsed.commit_type.map_or("type", |t| t.text);
            self.warn(
                Code::TitleIgnored,
                ignored.span,
                finding(
                    "text after `type:` without a scope is not kept as a title",
                    "ignored",
                    format!(
                        "add a scope to keep it as the title: `{type_name}(scope): {}`",
                        one_line(ignored.text)
                    ),
                ),
            );
        }
        let title_length = parsed.title.map(|title| title.text.chars().count());
        let too_long = title_length.filter(|&length| length > self.config.max_title_length);
        if too_long.is_none() {
            header.title = parsed.title.map(owned);
        }
        self.document.header = Some(header);
        match (too_long, parsed.title) {
            (Some(length), Some(title)) => {
                let limit = self.config.max_title_length;
                Err(self.halt(
                    Code::TitleTooLong,
                    title.span,
                    finding(
                        format!("the title has {length} characters; the limit is {limit}"),
                        "this title",
                        format!("shorten the title to {limit} characters and move the details into the description"),
                    ),
                ))
            }
            _ => Ok(()),
        }
    }

    // description ::= text-line ( EOL text-line )*
    // text-line   ::= a non-blank line that is not a task, constraint,
    //                 constraint-like or task-like line
    //
    // Ends at a line that starts the constraint or task section, or at blank
    // lines followed by one (or by the end of the text).
    // Halts: a blank line followed by more description (the description is
    // one paragraph).
    fn description(&mut self) -> Step {
        let first = self.cursor;
        let mut end = first;
        let mut outcome = Ok(());
        while self.cursor < self.lines.len() {
            let line = self.lines[self.cursor];
            if line.is_blank() {
                let next = (self.cursor..self.lines.len()).find(|&i| !self.lines[i].is_blank());
                match next {
                    None => self.cursor = self.lines.len(),
                    Some(i) if self.starts_section(self.lines[i]) => self.cursor = i,
                    Some(i) => {
                        let span = self.lines[i].span();
                        outcome = Err(self.halt(
                            Code::BlankLineInDescription,
                            span,
                            finding(
                                "the description continues after a blank line",
                                "this line follows a blank line",
                                "keep the description one paragraph (remove the blank line), or start a section after it: constraints like `- Never: skip tests`, tasks like `- [ ]: Write the parser`",
                            ),
                        ));
                    }
                }
                break;
            }
            if self.starts_section(line) {
                break;
            }
            self.cursor += 1;
            end = self.cursor;
        }
        if end > first {
            let span = Span::new(self.lines[first].start, self.lines[end - 1].end);
            let value = join_contents(self.text, &self.lines[first..end]);
            self.document.description = Some(Spanned::new(value, span));
        }
        outcome
    }

    // constraints ::= ( constraint | constraint-like | blank-line )*
    //
    // Ends at a task line or at any other line (which begins the direction).
    // Halts: a line that starts like a task but is not one.
    // Warns: a constraint-like line that the constraint rule rejects (skipped).
    fn constraints(&mut self) -> Step {
        while self.cursor < self.lines.len() {
            let line = self.lines[self.cursor];
            if line.is_blank() {
                self.cursor += 1;
                continue;
            }
            if self.task_at(line).is_some() {
                break;
            }
            self.check_task_problem(line)?;
            if let Some(parsed) = self.constraint_at(line) {
                self.constraints.push(Constraint {
                    key: Spanned::new(parsed.key.text.to_owned(), parsed.key.span),
                    value: Spanned::new(parsed.value.text.to_owned(), parsed.value.span),
                    span: line.span(),
                });
            } else if rules::is_constraint_like(self.config.constraint, self.line_text(line)) {
                let (message, help) =
                    constraint_rejection(self.config.constraint, self.line_text(line));
                self.warn(
                    Code::ConstraintIgnored,
                    line.span(),
                    finding(message, "ignored", help),
                );
            } else {
                break;
            }
            self.cursor += 1;
        }
        Ok(())
    }

    /// Halts on a line that starts like a task but is not a valid one.
    fn check_task_problem(&mut self, line: Line) -> Step {
        let syntax = self.config.task;
        let Some(problem) = rules::task_problem(syntax, self.line_text(line)) else {
            return Ok(());
        };
        let example = task_example(syntax);
        Err(match problem {
            TaskProblem::Empty => self.halt(
                Code::EmptyTask,
                line.span(),
                finding(
                    "this task has no text",
                    "empty task",
                    format!("write what the task is, e.g. `{example}`, or remove the line"),
                ),
            ),
            TaskProblem::Malformed => self.halt(
                Code::MalformedTask,
                line.span(),
                finding(
                    "this line starts like a task but is not one",
                    "malformed task",
                    format!(
                        "write tasks as `{example}` (`[x]` when done), indented {} per level",
                        counted(self.config.indent_size, "space")
                    ),
                ),
            ),
        })
    }

    // tasks     ::= task ( EOL ( task | blank-line ) )*
    // task      ::= indent task-line        (syntax by preset)
    //
    // A task's parent is the nearest task above it with a smaller indentation.
    // Halts: a task with blank text, more than max_task_count tasks, a task
    // deeper than max_nesting_depth (by indentation or by tree depth), a line
    // that starts like a task but is not one. Everything before is kept.
    // Warns: indentation that is not a multiple of indent_size spaces.
    fn tasks(&mut self) -> Step {
        let mut tree = TaskTree::default();
        let outcome = self.collect_tasks(&mut tree);
        let tasks = tree.finish();
        if !tasks.is_empty() {
            self.document.tasks = Some(tasks);
        }
        outcome
    }

    fn collect_tasks(&mut self, tree: &mut TaskTree) -> Step {
        let indent_size = self.config.indent_size;
        let max_depth = self.config.max_nesting_depth;
        let max_width = max_depth.saturating_mul(indent_size);
        let mut count = 0;
        while self.cursor < self.lines.len() {
            let line = self.lines[self.cursor];
            if line.is_blank() {
                self.cursor += 1;
                continue;
            }
            let Some(task) = self.task_at(line) else {
                self.check_task_problem(line)?;
                break;
            };
            if task.text.text.trim().is_empty() {
                let example = task_example(self.config.task);
                return Err(self.halt(
                    Code::EmptyTask,
                    task.text.span,
                    finding(
                        "this task has no text",
                        "empty task",
                        format!("write what the task is, e.g. `{example}`, or remove the line"),
                    ),
                ));
            }
            if count == self.config.max_task_count {
                let limit = self.config.max_task_count;
                return Err(self.halt(
                    Code::TooManyTasks,
                    line.span(),
                    finding(
                        format!("the plan has more than {}", counted(limit, "task")),
                        "first task over the limit",
                        format!("keep the plan to {}: merge small tasks or split the work into several changes", counted(limit, "task")),
                    ),
                ));
            }
            let width = task.indent_width();
            let depth = tree.close_until(width);
            if width > max_width || depth > max_depth {
                let help = if width > max_width {
                    format!(
                        "indent tasks {} per level, at most {}; flatten the plan",
                        counted(indent_size, "space"),
                        counted(max_width, "space")
                    )
                } else {
                    format!(
                        "each indentation change nests a level, so uneven indentation nests deep quickly: indent exactly {} per level",
                        counted(indent_size, "space")
                    )
                };
                return Err(self.halt(
                    Code::NestingTooDeep,
                    Span::new(task.indent.span.start, task.text.span.end),
                    finding(
                        format!(
                            "this task is nested deeper than {}",
                            counted(max_depth, "level")
                        ),
                        "too deep",
                        help,
                    ),
                ));
            }
            let has_tabs = task.indent.text.bytes().any(|b| b != b' ');
            if has_tabs || width % indent_size != 0 {
                let message = if has_tabs {
                    "this task is indented with a tab or other non-space whitespace".to_owned()
                } else {
                    let unit = if width == 1 { "space" } else { "spaces" };
                    format!(
                        "this task is indented by {width} {unit}, not a multiple of {indent_size}"
                    )
                };
                self.warn(
                    Code::IrregularIndent,
                    task.indent.span,
                    finding(
                        message,
                        "indentation",
                        format!(
                            "indent with {} per level; `quire fmt` rewrites the indentation",
                            counted(indent_size, "space")
                        ),
                    ),
                );
            }
            tree.open(
                width,
                Task {
                    checked: task.checked,
                    text: Spanned::new(task.text.text.to_owned(), task.text.span),
                    children: Vec::new(),
                    span: line.span(),
                },
            );
            count += 1;
            self.cursor += 1;
        }
        Ok(())
    }

    // direction ::= char+   (the rest of the text, trimmed)
    //
    // Halts: the direction's first line has exactly direction_halt_length
    // characters (the original read such a direction as unfinished); the
    // document keeps that first line as its direction.
    fn direction(&mut self) -> Step {
        let (Some(first), Some(last)) = (self.lines.get(self.cursor), self.lines.last()) else {
            return Ok(());
        };
        // The value joins line contents (line endings read as LF); the span
        // covers the same characters in the original bytes.
        let rest = &self.text[first.start..last.end];
        let joined = join_contents(self.text, &self.lines[self.cursor..]);
        let value = joined.trim();
        if value.is_empty() {
            return Ok(());
        }
        let start = first.start + (rest.len() - rest.trim_start().len());
        let span = Span::new(start, first.start + rest.trim_end().len());
        let first_line = value.split('\n').next().unwrap_or_default();
        let halt_length = self
            .config
            .direction_halt_length
            .filter(|&length| length > 0);
        if let Some(length) = halt_length
            && first_line.chars().count() == length
        {
            let line_span = Span::new(start, start + first_line.len());
            self.document.direction = Some(Spanned::new(first_line.to_owned(), line_span));
            return Err(self.halt(
                Code::IncompleteDirection,
                line_span,
                finding(
                    format!(
                        "a direction whose first line has exactly {length} character{} is read as unfinished",
                        if length == 1 { "" } else { "s" }
                    ),
                    "unfinished direction",
                    "write the direction out in full (a longer first line), or end the plan after the tasks",
                ),
            ));
        }
        self.document.direction = Some(Spanned::new(value.to_owned(), span));
        Ok(())
    }

    fn finish(mut self, state: ParseState) -> ParseOutcome {
        let has_tasks = self.document.tasks.is_some();
        self.document.constraints = if !self.constraints.is_empty() {
            Some(self.constraints)
        } else if has_tasks && self.document.description.is_some() {
            // The original's shape: tasks after a description carry `[]`.
            Some(Vec::new())
        } else {
            None
        };
        ParseOutcome {
            state,
            document: self.document,
            diagnostics: self.diagnostics,
        }
    }
}

/// Builds the task tree from tasks in document order and their indentation.
///
/// Tasks wait on one stack until their parent is closed; closing a task moves
/// its children off the stack into a vector of exactly their number. No
/// children vector ever grows, which saves an allocation or a reallocation
/// per parent task.
#[derive(Default)]
struct TaskTree {
    /// Every task whose parent is not closed yet, in document order: the
    /// roots, then each open task's descendants so far.
    pending: Vec<Task>,
    /// The chain of tasks that can still receive children: their indentation
    /// widths (strictly increasing) and their places in `pending`.
    open: Vec<(usize, usize)>,
}

impl TaskTree {
    /// Closes every open task indented at least `width`; returns the depth a
    /// task at `width` gets.
    fn close_until(&mut self, width: usize) -> usize {
        while self.open.last().is_some_and(|&(top, _)| top >= width) {
            self.close_top();
        }
        self.open.len()
    }

    fn open(&mut self, width: usize, task: Task) {
        self.close_until(width);
        self.open.push((width, self.pending.len()));
        self.pending.push(task);
    }

    /// Closes the innermost open task: everything pending after it is its
    /// children (their own children were collected when they closed).
    fn close_top(&mut self) {
        if let Some((_, index)) = self.open.pop() {
            let children = self.pending.split_off(index + 1);
            self.pending[index].children = children;
        }
    }

    fn finish(mut self) -> Vec<Task> {
        while !self.open.is_empty() {
            self.close_top();
        }
        self.pending
    }
}

fn task_example(syntax: TaskSyntax) -> &'static str {
    match syntax {
        TaskSyntax::CheckboxColon => "- [ ]: Write the parser",
        TaskSyntax::Checkbox => "- [ ] Write the parser",
        TaskSyntax::YamlTask => "- task: Write the parser ( )",
    }
}

/// Where a first line that is not a header goes wrong: the part of the line
/// to label (a byte range within it), the label, and a help line.
struct HeaderMistake {
    range: std::ops::Range<usize>,
    label: &'static str,
    help: String,
}

/// Points at the most likely mistake in a first line that is not a header.
fn header_mistake(syntax: HeaderSyntax, line: &str) -> HeaderMistake {
    let whole = |label, help: &str| HeaderMistake {
        range: 0..line.len(),
        label,
        help: help.to_owned(),
    };
    let example = match syntax {
        HeaderSyntax::MarkdownHeading => {
            return whole("not a heading", "start with a markdown heading: `# Title`");
        }
        HeaderSyntax::YamlTitle => {
            return whole(
                "not a title line",
                "start with a title line: `title: Title`",
            );
        }
        HeaderSyntax::Conventional => {
            "`feat(parser): Add task nesting` (or `fix(scope):`, `docs:`)"
        }
    };
    let word_end = line
        .find(|c: char| !c.is_alphabetic())
        .unwrap_or(line.len());
    let (word, after_word) = line.split_at(word_end);
    let next_width = after_word.chars().next().map_or(0, char::len_utf8);
    let (range, label, hint) = if word.chars().any(char::is_uppercase)
        && after_word.starts_with([':', '(', '!'])
    {
        (
            0..word_end,
            "not lowercase",
            "the type must be lowercase letters (`fix`, not `Fix`)",
        )
    } else if word.is_empty() || word.chars().any(|c| !c.is_ascii_lowercase()) {
        (
            0..line.len(),
            "no type",
            "the header must start with a type of lowercase letters, like `feat`, `fix` or `docs`",
        )
    } else if after_word.starts_with("!:") {
        (
            word_end..word_end + 1,
            "`!` without a scope",
            "a breaking `!` needs a scope before it: `feat(scope)!: title`",
        )
    } else if after_word.starts_with([' ', '\t']) && after_word.trim_start().starts_with([':', '('])
    {
        let spaces = after_word.len() - after_word.trim_start().len();
        (
            word_end..word_end + spaces,
            "remove this space",
            "no space is allowed between the type, the scope and the colon",
        )
    } else if after_word.starts_with('(') {
        let scope_end = after_word
            .find(')')
            .map_or(line.len(), |close| word_end + close + 1);
        (
            word_end..scope_end,
            "invalid scope",
            "the scope must be non-empty, without spaces, closed by `)` and followed by `:`",
        )
    } else {
        (
            word_end..word_end + next_width,
            "expected `:` or `(`",
            "the type must be followed by `:` or `(scope):`",
        )
    };
    HeaderMistake {
        range,
        label,
        help: format!("{hint}; for example {example}"),
    }
}

/// Why a constraint-like line was rejected, and how to write it.
fn constraint_rejection(syntax: ConstraintSyntax, line: &str) -> (String, String) {
    let help = match syntax {
        ConstraintSyntax::Dash => {
            "write `- Key: value`: the key a capital letter then lowercase letters and spaces (`Never`, `Do not`), the value starting with a lowercase letter"
        }
        ConstraintSyntax::Blockquote => {
            "write `> Key: value` with a key without `:` and a non-empty value"
        }
        ConstraintSyntax::YamlKey => "write `key: value` with a key of letters, digits and `_`",
    };
    let reason = match syntax {
        _ if line.starts_with(char::is_whitespace) => {
            "it is indented (constraints start at the beginning of the line)".to_owned()
        }
        ConstraintSyntax::Dash => {
            let body = line.get(2..).unwrap_or_default();
            let (key, value) = body.split_once(": ").unwrap_or((body, ""));
            let key_ok = key.starts_with(|c: char| c.is_ascii_uppercase())
                && key
                    .chars()
                    .skip(1)
                    .all(|c| c.is_ascii_lowercase() || c == ' ');
            if key_ok {
                format!(
                    "its value `{}` does not start with a lowercase letter",
                    one_line(value)
                )
            } else {
                format!(
                    "its key `{}` is not a capital letter followed by lowercase letters and spaces",
                    one_line(key)
                )
            }
        }
        ConstraintSyntax::Blockquote | ConstraintSyntax::YamlKey => {
            "it does not match the constraint syntax".to_owned()
        }
    };
    (
        format!("this line looks like a constraint but {reason}, so it is ignored"),
        help.to_owned(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::DiagnosticCode;

    fn codes(text: &str) -> Vec<&'static str> {
        parse(text, &ParserConfig::default())
            .diagnostics
            .iter()
            .map(|d| d.code.as_str())
            .collect()
    }

    #[test]
    fn crlf_parses_exactly_as_lf_and_spans_index_the_crlf_bytes() {
        let lf =
            "feat(a): b\n\nline one\nline two\n- Never: x\n\n- [ ]: t\n  - [x]: u\n\nGo on\nnow\n";
        let crlf = lf.replace('\n', "\r\n");
        let (lf_outcome, crlf_outcome) = (
            parse(lf, &ParserConfig::default()),
            parse(&crlf, &ParserConfig::default()),
        );
        assert_eq!(
            serde_json::to_value(&lf_outcome).unwrap(),
            serde_json::to_value(&crlf_outcome).unwrap()
        );
        assert_eq!(crlf_outcome.state, ParseState::Parsed);
        let document = &crlf_outcome.document;
        let description = document.description.as_ref().unwrap();
        assert_eq!(description.value, "line one\nline two");
        assert_eq!(&crlf[description.span.range()], "line one\r\nline two");
        let subtask = &document.tasks.as_ref().unwrap()[0].children[0];
        assert_eq!(&crlf[subtask.text.span.range()], "u");
        assert_eq!(&crlf[subtask.span.range()], "  - [x]: u");
        let direction = document.direction.as_ref().unwrap();
        assert_eq!(
            (direction.value.as_str(), &crlf[direction.span.range()]),
            ("Go on\nnow", "Go on\r\nnow")
        );
    }

    #[test]
    fn halted_results_keep_what_came_before() {
        let outcome = parse(
            "f(s): t\n\nd\n- [ ]: one\n- [x]: two\n          - [ ]: too deep",
            &ParserConfig::default(),
        );
        assert_eq!(outcome.state, ParseState::Halted);
        assert_eq!(outcome.document.tasks.as_ref().map(Vec::len), Some(2));
        assert_eq!(outcome.halt_reason().unwrap().code, Code::NestingTooDeep);
    }

    #[test]
    fn too_many_tasks_keeps_the_first_ones() {
        let config = ParserConfig {
            max_task_count: 2,
            ..ParserConfig::default()
        };
        let outcome = parse("f(s): t\n\n- [ ]: a\n- [ ]: b\n- [ ]: c", &config);
        assert_eq!(outcome.halt_reason().unwrap().code, Code::TooManyTasks);
        assert_eq!(outcome.document.tasks.unwrap().len(), 2);
    }

    #[test]
    fn tree_depth_is_limited_even_with_irregular_indentation() {
        // Widths 0..=5 are all within 4 levels of 2 spaces, but nest 6 deep.
        let text =
            "f(s): t\n\n- [ ]: 0\n - [ ]: 1\n  - [ ]: 2\n   - [ ]: 3\n    - [ ]: 4\n     - [ ]: 5";
        assert!(codes(text).ends_with(&["plan::nesting_too_deep"]));
    }

    #[test]
    fn silently_dropped_text_gets_a_warning() {
        assert_eq!(codes("fix: Description"), ["plan::title_ignored"]);
        assert_eq!(
            codes("f(s): t\n\nd\n- Never: Do that"),
            ["plan::constraint_ignored"]
        );
        assert_eq!(
            codes("f(s): t\n\nd\n- [ ]: a\n   - [ ]: b"),
            ["plan::irregular_indent"]
        );
    }

    #[test]
    fn each_halt_has_its_code() {
        let cases = [
            ("\nfeat: x", "plan::leading_blank_line"),
            ("a\0b", "plan::nul_byte"),
            ("feat: a\0b", "plan::nul_byte"),
            ("Feat: x", "plan::invalid_header"),
            ("f(s): t\nd", "plan::missing_blank_line"),
            ("f(s): t\n\na\n\nb", "plan::blank_line_in_description"),
            ("f(s): t\n\nd\n- D: d\n[x]: a", "plan::malformed_task"),
            ("f(s): t\n\nd\n- [ ]: a\n- [x] b", "plan::malformed_task"),
            ("f(s): t\n\nd\n- [ ]:", "plan::empty_task"),
            ("f(s): t\n\nd\n- [ ]:    ", "plan::empty_task"),
            (
                "f(s): t\n\nd\n- [ ]: a\n\nabc",
                "plan::incomplete_direction",
            ),
        ];
        for (text, code) in cases {
            let found = codes(text);
            assert!(found.contains(&code), "{text:?}: {found:?}");
        }
    }

    #[test]
    fn input_limit_counts_characters_not_bytes() {
        let config = ParserConfig {
            max_input_length: 12,
            ..ParserConfig::default()
        };
        assert!(parse("feat(a): ééé", &config).is_parsed()); // 12 characters, 15 bytes
        let outcome = parse("feat(a): éééé", &config);
        let reason = outcome.halt_reason().unwrap();
        assert_eq!(
            (reason.code, reason.span),
            (Code::InputTooLong, Span::new(15, 17))
        );
    }

    #[test]
    fn title_limit_counts_characters() {
        let config = ParserConfig {
            max_title_length: 3,
            ..ParserConfig::default()
        };
        assert!(parse("f(s): ééé", &config).is_parsed());
        let outcome = parse("f(s): éééé\n\nbody", &config);
        assert_eq!(outcome.halt_reason().unwrap().code, Code::TitleTooLong);
        assert_eq!(outcome.document.header.unwrap().title, None);
    }

    #[test]
    fn invalid_config_halts_and_names_the_setting() {
        let config = ParserConfig {
            indent_size: 0,
            ..ParserConfig::default()
        };
        let outcome = parse("feat: x", &config);
        assert!(
            outcome
                .halt_reason()
                .unwrap()
                .message
                .contains("indent_size")
        );
        assert!(outcome.document.is_empty());
    }

    #[test]
    fn header_help_points_at_the_likely_mistake() {
        let help = |line: &str| {
            parse(line, &ParserConfig::default())
                .halt_reason()
                .unwrap()
                .help
                .clone()
        };
        assert!(help("Feat: x").contains("lowercase"));
        assert!(help("feat!: x").contains("needs a scope"));
        assert!(help("feat (a): x").contains("no space"));
        assert!(help("feat(a b): x").contains("without spaces"));
    }

    #[test]
    fn invalid_header_labels_point_at_the_mistake() {
        let labelled = |line: &str| {
            let outcome = parse(line, &ParserConfig::default());
            let reason = outcome.halt_reason().unwrap();
            (line[reason.span.range()].to_owned(), reason.label.clone())
        };
        assert_eq!(
            labelled("Fix(io): x"),
            ("Fix".into(), "not lowercase".into())
        );
        assert_eq!(
            labelled("feat!: x"),
            ("!".into(), "`!` without a scope".into())
        );
        assert_eq!(
            labelled("fix  (io): x"),
            ("  ".into(), "remove this space".into())
        );
        assert_eq!(
            labelled("fix(a b): x"),
            ("(a b)".into(), "invalid scope".into())
        );
        assert_eq!(
            labelled("fix-it: x"),
            ("-".into(), "expected `:` or `(`".into())
        );
        assert_eq!(labelled("fix"), ("".into(), "expected `:` or `(`".into()));
        assert_eq!(
            labelled("Update the docs"),
            ("Update the docs".into(), "no type".into())
        );
    }

    #[test]
    fn blank_line_before_constraints_is_accepted() {
        // The spec's complete example separates every section by a blank line.
        let outcome = parse(
            "f(s): t\n\nd\n\n- Never: x\n\n- [ ]: a\n\nGo on",
            &ParserConfig::default(),
        );
        assert!(outcome.is_parsed(), "{:?}", outcome.diagnostics);
        assert_eq!(outcome.document.constraints.unwrap().len(), 1);
    }

    #[test]
    fn other_presets_parse_their_own_syntax() {
        let md = parse(
            "# Ship it\n\nWhy.\n> Never: rush\n- [x] Build\n  - [ ] Test\n\nabc",
            &ParserConfig::MARKDOWN_TASKS,
        );
        assert!(md.is_parsed(), "{:?}", md.diagnostics);
        let json = serde_json::to_value(&md).unwrap();
        assert_eq!(
            json["header"],
            serde_json::json!({"title": "Ship it", "breaking": false})
        );
        assert_eq!(
            json["tasks"],
            serde_json::json!([[true, "Build", [[false, "Test", []]]]])
        );
        assert_eq!(json["direction"], "abc");
        let yaml = parse(
            "title: Ship\n\nWhy.\nscope: core\n- task: Build (x)\n    - task: Test ( )",
            &ParserConfig::YAML_LIKE,
        );
        let json = serde_json::to_value(&yaml).unwrap();
        assert_eq!(json["constraints"], serde_json::json!([["scope", "core"]]));
        assert_eq!(
            json["tasks"],
            serde_json::json!([[true, "Build", [[false, "Test", []]]]])
        );
    }
}
