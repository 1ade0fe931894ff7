//! The body's sections, in order: description, constraints, tasks and
//! direction. Each reads classified lines until one that is not its own,
//! which it hands back to the next section.

use super::super::classify::{ClassifiedLines, PlanLine};
use super::super::codes::Code;
use super::super::rules::{EXPECTED_TASK_TEXT, Mismatch, TaskLine, TaskProblem};
use super::SyntaxConstraint;
use super::SyntaxTask;
use super::problems::{constraint_rejection, counted, finding, task_example};
use super::scanner::{Halted, Scanner, Step};
use crate::span::{Span, Spanned};
use crate::text::{Line, is_blank};

impl<'t> Scanner<'t> {
    // plan.ebnf: description
    //
    // Ends at a line that begins a section, or at blank lines followed by one
    // (or by the end of the text); a blank line followed by more text halts.
    pub(super) fn description(&mut self, lines: &mut ClassifiedLines<'t>) {
        let mut span: Option<Span> = None;
        let mut after_blank = false;
        let mut ended = false;
        while let Some(classified) = lines.next() {
            let line = classified.line;
            if classified.kind == PlanLine::Blank {
                after_blank = true;
            } else if classified.kind.begins_section() {
                lines.put_back(classified);
                break;
            } else if after_blank && !ended {
                // The description ends here; reading on skips the rest of
                // its paragraphs, reported once.
                self.set_description(span);
                ended = true;
                self.halt(
                    Code::BlankLineInDescription,
                    line.span(),
                    finding(
                        "the description continues after a blank line",
                        "this line follows a blank line",
                        "keep the description one paragraph (remove the blank line), or start a section after it: constraints like `- Never: skip tests`, tasks like `- [ ]: Write the parser`",
                    ),
                );
            } else if !ended {
                span = Some(Span::new(span.map_or(line.start, |s| s.start), line.end));
            }
        }
        if !ended {
            self.set_description(span);
        }
    }

    fn set_description(&mut self, span: Option<Span>) {
        self.document.raw_description =
            span.map(|span| Spanned::new(&self.text[span.range()], span));
    }

    // plan.ebnf: constraints
    //
    // Ends at a task line or at any other line (which begins the direction).
    pub(super) fn constraints(&mut self, lines: &mut ClassifiedLines<'t>) {
        while let Some(classified) = lines.next() {
            let line = classified.line;
            match classified.kind {
                PlanLine::Blank => {}
                PlanLine::TaskLike(problem, mismatch) => {
                    self.task_like(problem, mismatch);
                }
                PlanLine::Constraint(parsed) => {
                    if self.document.constraints.is_empty() {
                        self.document.constraints.reserve(lines.remaining() + 1);
                    }
                    self.document.constraints.push(SyntaxConstraint {
                        key: self.slice(parsed.key),
                        value: self.slice(parsed.value),
                        span: line.span(),
                    });
                }
                PlanLine::ConstraintLike(mismatch) => {
                    let syntax = self.config.constraint;
                    let message = constraint_rejection(syntax, line.text(self.text), &mismatch);
                    // The span is the text that is dropped (the planner
                    // quotes it); the message says where the rule failed.
                    self.warn(
                        Code::ConstraintIgnored,
                        line.span(),
                        finding(message, "ignored", mismatch.hint),
                    );
                }
                PlanLine::Task(_) | PlanLine::Text => {
                    lines.put_back(classified);
                    break;
                }
            }
        }
    }

    /// Halts on a line that starts like a task but is not a valid one: at
    /// the first character the task rule cannot take.
    fn task_like(&mut self, problem: TaskProblem, mismatch: Mismatch) -> Halted {
        let label = match problem {
            TaskProblem::Empty => EXPECTED_TASK_TEXT,
            TaskProblem::Malformed => mismatch.expected,
        };
        self.task_problem(problem, mismatch.span, label)
    }

    fn task_problem(&mut self, problem: TaskProblem, span: Span, label: &str) -> Halted {
        let example = task_example(self.config.task);
        match problem {
            TaskProblem::Empty => self.halt(
                Code::EmptyTask,
                span,
                finding(
                    "this task has no text",
                    label,
                    format!("write what the task is, e.g. `{example}`, or remove the line"),
                ),
            ),
            TaskProblem::Malformed => self.halt(
                Code::MalformedTask,
                span,
                finding(
                    "this line starts like a task but is not one",
                    label,
                    format!(
                        "write tasks as `{example}` (`[x]` when done), indented {} per level",
                        counted(self.config.indent_size, "space")
                    ),
                ),
            ),
        }
    }

    // plan.ebnf: tasks
    //
    // Ends at any line that is neither a task nor blank (which begins the
    // direction); a task-like line halts.
    pub(super) fn tasks(&mut self, lines: &mut ClassifiedLines<'t>) {
        while let Some(classified) = lines.next() {
            match classified.kind {
                PlanLine::Blank => {}
                PlanLine::Task(task) => {
                    if self.document.tasks.is_empty() {
                        self.document.tasks.reserve(lines.remaining() + 1);
                    }
                    // A task that halts is skipped; reading on reports the
                    // problems of the lines after it.
                    let _: Step = self.task(classified.line, task);
                }
                PlanLine::TaskLike(problem, mismatch) => {
                    self.task_like(problem, mismatch);
                }
                PlanLine::Constraint(_) | PlanLine::ConstraintLike(_) | PlanLine::Text => {
                    lines.put_back(classified);
                    break;
                }
            }
        }
    }

    // plan.ebnf: task
    //
    // A task's parent is the nearest task above it with a smaller
    // indentation: one of the previous task and its ancestors.
    fn task(&mut self, line: Line, task: TaskLine) -> Step {
        if is_blank(&self.text[task.text.range()]) {
            return Err(self.task_problem(TaskProblem::Empty, task.text, "empty task"));
        }
        if self.document.tasks.len() >= self.config.max_task_count {
            // Reported once; the tasks over the limit are not kept.
            if self.over_task_limit {
                return Err(Halted);
            }
            self.over_task_limit = true;
            return Err(self.too_many_tasks(line));
        }
        let width = task.indent_width(self.text);
        let tasks = &self.document.tasks;
        let mut parent = tasks.len().checked_sub(1);
        while let Some(index) = parent.filter(|&index| tasks[index].indent_width >= width) {
            parent = tasks[index].parent;
        }
        let depth = parent.map_or(0, |index| tasks[index].depth + 1);
        self.check_nesting(&task, width, depth)?;
        if let Some(index) = parent {
            self.document.tasks[index].children += 1;
        }
        self.document.tasks.push(SyntaxTask {
            checked: task.checked,
            text: self.slice(task.text),
            indent: self.slice(task.indent),
            indent_width: width,
            depth,
            parent,
            children: 0,
            span: line.span(),
        });
        Ok(())
    }

    fn too_many_tasks(&mut self, line: Line) -> Halted {
        let limit = self.config.max_task_count;
        self.halt(
            Code::TooManyTasks,
            line.span(),
            finding(
                format!("the plan has more than {}", counted(limit, "task")),
                "first task over the limit",
                format!(
                    "keep the plan to {}: merge small tasks or split the work into several changes",
                    counted(limit, "task")
                ),
            ),
        )
    }

    /// Halts on a task too deep (by indentation or by tree depth); warns on
    /// indentation that is not whole levels of spaces.
    fn check_nesting(&mut self, task: &TaskLine, width: usize, depth: usize) -> Step {
        let indent_size = self.config.indent_size;
        let max_depth = self.config.max_nesting_depth;
        let max_width = max_depth.saturating_mul(indent_size);
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
                Span::new(task.indent.start, task.text.end),
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
        let has_tabs = self.text[task.indent.range()].bytes().any(|b| b != b' ');
        // A task indented a whole level per depth is the common case, and
        // needs no division to tell.
        let regular =
            width == depth.saturating_mul(indent_size) || width.is_multiple_of(indent_size);
        if has_tabs || !regular {
            let message = if has_tabs {
                "this task is indented with a tab or other non-space whitespace".to_owned()
            } else {
                let unit = if width == 1 { "space" } else { "spaces" };
                format!("this task is indented by {width} {unit}, not a multiple of {indent_size}")
            };
            self.warn(
                Code::IrregularIndent,
                task.indent,
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
        Ok(())
    }

    // plan.ebnf: direction
    //
    // The rest of the text, trimmed. A first line of exactly
    // direction_halt_length characters halts, and the document keeps that
    // first line as its direction.
    pub(super) fn direction(&mut self, lines: &ClassifiedLines<'t>) {
        let Some(start) = lines.next_start() else {
            return;
        };
        let end = super::super::lines::end_without_line_ending(self.text);
        let rest = &self.text[start..end];
        let value = rest.trim();
        if value.is_empty() {
            return;
        }
        let start = start + (rest.len() - rest.trim_start().len());
        let span = Span::new(start, start + value.len());
        let first_line = value.split('\n').next().unwrap_or_default();
        let first_line = first_line.trim_end_matches('\r');
        let halt_length = self
            .config
            .direction_halt_length
            .filter(|&length| length > 0);
        if let Some(length) = halt_length
            && first_line.chars().count() == length
        {
            let line_span = Span::new(start, start + first_line.len());
            self.document.raw_direction = Some(Spanned::new(first_line, line_span));
            self.halt(
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
            );
            return;
        }
        self.document.raw_direction = Some(Spanned::new(value, span));
    }
}
