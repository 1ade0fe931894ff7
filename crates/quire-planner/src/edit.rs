//! The workflow's edits of a plan document, as pure functions. Each checks
//! its input and says precisely what is wrong; none touches a store.

use quire_grammar::diagnostics::{LineIndex, one_line};
use quire_grammar::plan::{
    Code, Header, MAX_TASK_DEPTH, ParseState, ParserConfig, PlanDocument, Task, TaskPath, parse,
};
use quire_grammar::span::Spanned;

use super::error::{IgnoredText, PlanEditError, PlanPart};
use super::next::TaskRef;
use super::stage::{COMPLETE, TaskAt, tasks_with_paths};

/// The overarching goal: the header's parts. The validator checks them
/// once the goal is set: the type is one of the plan grammar's
/// `ALLOWED_TYPES`, the scope lowercase letters, digits and hyphens
/// starting with a letter, the title one line within the grammar's
/// `max_title_length`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Goal {
    /// The kind of change (`feat`, `fix`, ...).
    pub commit_type: String,
    /// What the change is about.
    pub scope: String,
    /// Whether the change breaks existing users (`!` in the header).
    pub breaking: bool,
    /// What the change achieves, on one line.
    pub title: String,
}

/// Sets the header. The validator checks the parts afterwards; a title or
/// scope that cannot be written on one header line is refused here.
pub(super) fn set_goal(document: &mut PlanDocument, goal: &Goal) -> Result<(), PlanEditError> {
    for (name, value) in [
        ("type", &goal.commit_type),
        ("scope", &goal.scope),
        ("title", &goal.title),
    ] {
        if value.contains(['\n', '\r']) {
            return Err(PlanEditError::invalid(format!(
                "goal.{name} must be one line"
            )));
        }
    }
    if goal.title.trim().is_empty() {
        return Err(PlanEditError::invalid(
            "goal.title is empty; say in one line what the change achieves",
        ));
    }
    document.header = Some(Header {
        commit_type: Some(Spanned::detached(goal.commit_type.clone())),
        scope: Some(Spanned::detached(goal.scope.clone())),
        breaking: goal.breaking,
        title: Some(Spanned::detached(goal.title.clone())),
        span: Default::default(),
    });
    Ok(())
}

/// Sets the description and, when the text ends in constraint lines
/// (`- Never: ...`), the constraints.
pub(super) fn set_detailed_goal(
    document: &mut PlanDocument,
    text: &str,
    config: &ParserConfig,
) -> Result<(), PlanEditError> {
    let text = text.trim_matches(['\n', '\r']);
    if text.trim().is_empty() {
        return Err(PlanEditError::invalid(
            "description is empty; describe why the change is needed, what it changes and how",
        ));
    }
    // Read the text as the body of a document, exactly as it will be stored.
    const HEAD: &str = "chore:\n\n";
    let as_stored = format!("{HEAD}{text}");
    let outcome = parse(&as_stored, config);
    if let Some(problem) = outcome
        .diagnostics
        .iter()
        .find(|d| d.is_error() || d.code.drops_text())
    {
        // 1-based, counted in the given text (the header's two lines off).
        let line = as_stored[..problem.span.start]
            .matches('\n')
            .count()
            .saturating_sub(1);
        let hint = match problem.code {
            Code::BlankLineInDescription => {
                "write the description as one paragraph (no blank lines); a blank line may only come before the constraint lines"
            }
            _ => problem.help.as_str(),
        };
        return Err(PlanEditError::invalid(format!(
            "description line {line}: {}; {hint}",
            problem.message
        )));
    }
    let parsed = outcome.document;
    if parsed.tasks.is_some() || parsed.direction.is_some() {
        return Err(PlanEditError::TasksInDescription);
    }
    let Some(description) = parsed.description else {
        return Err(PlanEditError::invalid(
            "the text has constraint lines but no description before them; start with a paragraph saying why, what and how",
        ));
    };
    document.description = Some(description);
    // The text is the whole detailed goal: its constraints replace the old ones.
    document.constraints = parsed.constraints.filter(|c| !c.is_empty());
    Ok(())
}

/// Replaces the tasks. A plan that changes is not finished any more.
pub(super) fn set_plan(
    document: &mut PlanDocument,
    plan: Vec<Task>,
    config: &ParserConfig,
) -> Result<(), PlanEditError> {
    if plan.is_empty() {
        return Err(PlanEditError::invalid(
            "plan is empty; give at least one task as [false, \"text\", []]",
        ));
    }
    let candidate = PlanDocument {
        tasks: Some(plan),
        ..PlanDocument::default()
    };
    let mut count = 0;
    for (depth, task) in candidate.tasks_depth_first() {
        count += 1;
        let text = task.text();
        // Quoted in messages on one line, control characters escaped.
        let shown = one_line(text);
        if text.trim().is_empty() {
            return Err(PlanEditError::invalid(format!(
                "task {count} has no text; every task says what to do"
            )));
        }
        if text.trim() != text && !text.contains(['\n', '\r']) {
            return Err(PlanEditError::invalid(format!(
                "task {count} (\"{shown}\") starts or ends with whitespace; write it without (git would strip it from a commit message)"
            )));
        }
        if text.contains(['\n', '\r']) {
            return Err(PlanEditError::invalid(format!(
                "task {count} (\"{}\") spans several lines; a task is one line",
                one_line(text.lines().next().unwrap_or_default())
            )));
        }
        if depth > MAX_TASK_DEPTH {
            return Err(PlanEditError::invalid(format!(
                "task \"{shown}\" is a subtask {depth} levels down; the limit is {MAX_TASK_DEPTH} levels of subtasks below the top-level tasks: flatten the plan"
            )));
        }
    }
    if count > config.max_task_count {
        return Err(PlanEditError::invalid(format!(
            "the plan has {count} tasks; the limit is {}: merge small tasks",
            config.max_task_count
        )));
    }
    refuse_duplicate_texts(&candidate)?;
    document.tasks = candidate.tasks;
    reopen(document);
    Ok(())
}

/// Two tasks with the same text could not be told apart by text, so
/// marking a task by its text (and then finishing the job) could never
/// reach both.
fn refuse_duplicate_texts(candidate: &PlanDocument) -> Result<(), PlanEditError> {
    let all = tasks_with_paths(candidate);
    let mut seen: std::collections::HashMap<&str, &TaskPath> = std::collections::HashMap::new();
    let mut repeated: Vec<String> = Vec::new();
    for at in &all {
        let text = at.task.text();
        match seen.get(text) {
            Some(first) => repeated.push(format!(
                "\"{}\" (tasks {first} and {})",
                at.quoted(),
                at.path
            )),
            None => {
                seen.insert(text, &at.path);
            }
        }
    }
    if repeated.is_empty() {
        return Ok(());
    }
    Err(PlanEditError::invalid(format!(
        "the plan repeats a task text: {}; nothing was stored. Every task needs its own text, so that it can be marked by it: \
         say what differs (\"Write the parser tests\", \"Write the CLI tests\")",
        repeated.join(", ")
    )))
}

/// A plan that changes is not finished any more: the closing directive
/// goes, and the direction the user wrote before it stays.
fn reopen(document: &mut PlanDocument) {
    if document.directive() == Some(COMPLETE) {
        document.direction = document
            .direction_before_directive()
            .map(|direction| Spanned::detached(direction.to_owned()));
    }
}

/// What [`mark_task`] did.
pub(super) struct Marked {
    /// The task marked.
    pub task: TaskRef,
    /// Set when marking completed the last open subtask of a parent.
    pub parent_ready: Option<String>,
}

/// Marks the task `task_id` names as completed or open. An id written as a
/// tree path (`2`, `1.1`, `2.3.1`, as results list tasks) names exactly the
/// task at that path; any other id is a task's text (an exact match wins,
/// else a unique case-insensitive part of it). Ids are trimmed.
pub(super) fn mark_task(
    document: &mut PlanDocument,
    task_id: &str,
    completed: bool,
) -> Result<Marked, PlanEditError> {
    let path = resolve(document, task_id)?;
    if completed {
        let (text, parent_ready) = mark_done(document, &path)?;
        return Ok(Marked {
            task: TaskRef { path, text },
            parent_ready,
        });
    }
    let text = reopen_path(document, &path);
    Ok(Marked {
        task: TaskRef { path, text },
        parent_ready: None,
    })
}

/// The path of the one task `task_id` names, or why there is none.
fn resolve(document: &PlanDocument, task_id: &str) -> Result<TaskPath, PlanEditError> {
    if document.tasks().len() == 0 {
        return Err(PlanEditError::NoTasksToMark);
    };
    let task_id = task_id.trim();
    if task_id.is_empty() {
        return Err(PlanEditError::invalid(
            "task_id is empty; give the task's path as listed (`2`, `1.1`) or its text",
        ));
    }
    let all = tasks_with_paths(document);
    match find_task(&all, task_id) {
        Found::One(at) => Ok(at.path.clone()),
        Found::NoPath => Err(PlanEditError::invalid(format!(
            "there is no task {task_id}; the plan's tasks are: {}",
            listing(all.iter())
        ))),
        Found::None => Err(PlanEditError::invalid(format!(
            "no task matches \"{}\". Open tasks: {}",
            one_line(task_id),
            listing(all.iter().filter(|at| !at.task.checked))
        ))),
        Found::Several(several) => {
            let candidates: Vec<String> = several
                .iter()
                .map(|at| format!("{} \"{}\"", at.path, at.quoted()))
                .collect();
            Err(PlanEditError::invalid(format!(
                "\"{}\" matches {} tasks: {}; nothing was changed. Give the path of one of them (e.g. `{}`) or its full text",
                one_line(task_id),
                several.len(),
                candidates.join(", "),
                several[0].path
            )))
        }
    }
}

/// Checks the task at `path`, refusing while it has open subtasks. Its
/// text, and its parent's when that parent's subtasks are now all done.
fn mark_done(
    document: &mut PlanDocument,
    path: &TaskPath,
) -> Result<(String, Option<String>), PlanEditError> {
    let open_children: Vec<String> = tasks_with_paths(document)
        .iter()
        .filter(|at| is_below(&at.path, path) && !at.task.checked)
        .map(TaskAt::listed)
        .collect();
    let task = document.task_mut(path).expect("resolve found a task");
    if !open_children.is_empty() {
        return Err(PlanEditError::invalid(format!(
            "task {path} \"{}\" has open subtasks: {}; a task is done only when all its subtasks are, so mark those first",
            one_line(task.text()),
            open_children.join("; ")
        )));
    }
    task.checked = true;
    let text = task.text().to_owned();
    let parent_ready = path
        .parent()
        .and_then(|parent| document.task(&parent))
        .filter(|parent| !parent.checked && parent.children.iter().all(|child| child.checked))
        .map(|parent| parent.text().to_owned());
    Ok((text, parent_ready))
}

/// Whether `path` names a subtask (at any depth) of the task at `ancestor`.
fn is_below(path: &TaskPath, ancestor: &TaskPath) -> bool {
    path.depth() > ancestor.depth() && path.indices().starts_with(ancestor.indices())
}

/// Opens the task at `path` and every task above it (and the plan, if it
/// was finished); the task's text.
fn reopen_path(document: &mut PlanDocument, path: &TaskPath) -> String {
    let mut above = path.parent();
    while let Some(ancestor) = above {
        document
            .task_mut(&ancestor)
            .expect("resolve found a task")
            .checked = false;
        above = ancestor.parent();
    }
    let task = document.task_mut(path).expect("resolve found a task");
    task.checked = false;
    let reopened_text = task.text().to_owned();
    reopen(document);
    reopened_text
}

enum Found<'t, 'a> {
    One(&'t TaskAt<'a>),
    /// A tree path that names no task.
    NoPath,
    None,
    Several(Vec<&'t TaskAt<'a>>),
}

/// Whether `id` is written as a tree path: numbers from 1 joined by dots.
fn is_tree_path(id: &str) -> bool {
    id.split('.').all(|part| {
        !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()) && !part.starts_with('0')
    })
}

fn find_task<'t, 'a>(all: &'t [TaskAt<'a>], id: &str) -> Found<'t, 'a> {
    let exact_text = || all.iter().find(|at| at.task.text().trim() == id);
    if is_tree_path(id) {
        // A path is an exact id: never a part of some task's text. A task
        // whose whole text is the id is the only other reading.
        let path = id.parse::<TaskPath>().ok();
        return match all
            .iter()
            .find(|at| Some(&at.path) == path.as_ref())
            .or_else(exact_text)
        {
            Some(at) => Found::One(at),
            None => Found::NoPath,
        };
    }
    let exact: Vec<&TaskAt<'a>> = all
        .iter()
        .filter(|at| at.task.text().trim() == id)
        .collect();
    let chosen = if exact.is_empty() {
        let needle = id.to_lowercase();
        all.iter()
            .filter(|at| at.task.text().to_lowercase().contains(&needle))
            .collect()
    } else {
        exact
    };
    match chosen.as_slice() {
        [] => Found::None,
        [one] => Found::One(one),
        _ => Found::Several(chosen),
    }
}

/// Tasks as messages list them: `1 Parse; 1.1 Handle indentation`.
fn listing<'t, 'a: 't>(tasks: impl Iterator<Item = &'t TaskAt<'a>>) -> String {
    let listed: Vec<String> = tasks.map(TaskAt::listed).collect();
    if listed.is_empty() {
        "none; every task is done".to_owned()
    } else {
        listed.join("; ")
    }
}

/// Records the job as complete; refuses while a task is open.
pub(super) fn finish_job(document: &mut PlanDocument) -> Result<(), PlanEditError> {
    if document.tasks().len() == 0 {
        return Err(PlanEditError::NoTasksToFinish);
    }
    let open: Vec<_> = tasks_with_paths(document)
        .iter()
        .filter(|at| !at.task.checked)
        .map(TaskAt::task_ref)
        .collect();
    if !open.is_empty() {
        return Err(PlanEditError::TasksOpen { open });
    }
    let directive = format!("~~~ {COMPLETE} ~~~");
    // The direction the user wrote stays, with the directive under it.
    let direction = match document.direction_before_directive() {
        Some(before) => format!("{before}\n{directive}"),
        None => directive,
    };
    document.direction = Some(Spanned::detached(direction));
    Ok(())
}

/// The shape the parser gives a document: constraints present when any
/// exist, and `[]` when tasks follow a description.
pub(super) fn normalize(document: &mut PlanDocument) {
    let has_constraints = document.constraints.as_ref().is_some_and(|c| !c.is_empty());
    if !has_constraints {
        document.constraints =
            (document.tasks.is_some() && document.description.is_some()).then(Vec::new);
    }
}

/// The sections an edit writes anew. Text the parser ignored anywhere else
/// would be lost when the edited plan is stored, so the edit is refused.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Rewrites {
    /// The header (the overarching goal).
    pub header: bool,
    /// The description and the constraints (the detailed goal).
    pub detailed_goal: bool,
}

/// A document read from a store for an edit. Empty text is an empty plan;
/// text that does not parse is refused rather than overwritten, and so is
/// text the parser ignored (a title after `type:`, a constraint it rejects)
/// outside the sections the edit rewrites: an edit never stores less than
/// was there.
pub(super) fn read_for_edit(
    text: &str,
    config: &ParserConfig,
    clear_hint: &str,
    rewrites: Rewrites,
) -> Result<PlanDocument, PlanEditError> {
    let outcome = parse(text, config);
    let lines = LineIndex::new(text);
    let line_of = |offset: usize| lines.line_column(offset).0;
    if outcome.state == ParseState::Halted {
        let reason = outcome.halt_reason().map_or_else(String::new, |d| {
            format!(
                " (line {}: {}; {})",
                line_of(d.span.start),
                d.message,
                d.help
            )
        });
        return Err(PlanEditError::invalid(format!(
            "the stored text is not a plan document{reason}. It was left as it is: fix it by hand, or {clear_hint}"
        )));
    }
    let dropped: Vec<IgnoredText> = outcome
        .diagnostics
        .iter()
        .filter(|d| match d.code {
            Code::TitleIgnored => !rewrites.header,
            Code::ConstraintIgnored => !rewrites.detailed_goal,
            code => code.drops_text(),
        })
        .map(|d| {
            let ignored = text.get(d.span.start..d.span.end).unwrap_or_default();
            IgnoredText {
                line: line_of(d.span.start),
                text: one_line(ignored.trim()).into_owned(),
                message: d.message.clone(),
                help: d.help.clone(),
                keep_in: match d.code {
                    Code::TitleIgnored => PlanPart::Goal,
                    _ => PlanPart::DetailedGoal,
                },
            }
        })
        .collect();
    if !dropped.is_empty() {
        return Err(PlanEditError::WouldDrop { dropped });
    }
    Ok(outcome.document)
}
