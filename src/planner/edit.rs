//! The workflow's edits of a plan document, as pure functions. Each checks
//! its input and says precisely what is wrong; none touches a store.

use crate::diagnostics::one_line;
use crate::plan::{
    ALLOWED_TYPES, Code, Header, MAX_TASK_DEPTH, ParseState, ParserConfig, PlanDocument, Task,
    parse,
};
use crate::span::Spanned;
use crate::tool_error::ToolError;

use super::stage::{COMPLETE, TaskAt, tasks_with_paths};

/// The overarching goal: the header's parts.
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
#[cfg_attr(feature = "mcp", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Goal {
    /// The kind of change.
    #[serde(rename = "type")]
    #[cfg_attr(feature = "mcp", schemars(schema_with = "type_schema"))]
    pub commit_type: String,
    /// What the change is about: lowercase letters, digits and hyphens, starting with a letter.
    pub scope: String,
    /// Whether the change breaks existing users (`!` in the header).
    #[serde(default)]
    pub breaking: bool,
    /// One line, at most 120 characters, no surrounding whitespace.
    pub title: String,
}

#[cfg(feature = "mcp")]
fn type_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "type": "string", "enum": ALLOWED_TYPES, "description": "The kind of change." })
}

/// Sets the header. The validator checks the parts afterwards; a title or
/// scope that cannot be written on one header line is refused here.
pub fn set_goal(document: &mut PlanDocument, goal: &Goal) -> Result<(), ToolError> {
    for (name, value) in [
        ("type", &goal.commit_type),
        ("scope", &goal.scope),
        ("title", &goal.title),
    ] {
        if value.contains(['\n', '\r']) {
            return Err(ToolError::validation(format!(
                "goal.{name} must be one line"
            )));
        }
    }
    if goal.title.trim().is_empty() {
        return Err(ToolError::validation(
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
pub fn set_detailed_goal(
    document: &mut PlanDocument,
    text: &str,
    config: &ParserConfig,
) -> Result<(), ToolError> {
    let text = text.trim_matches(['\n', '\r']);
    if text.trim().is_empty() {
        return Err(ToolError::validation(
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
        return Err(ToolError::validation(format!(
            "description line {line}: {}; {hint}",
            problem.message
        )));
    }
    let parsed = outcome.document;
    if parsed.tasks.is_some() || parsed.direction.is_some() {
        return Err(ToolError::validation(
            "the description may end in constraint lines (`- Never: ...`) but holds no tasks or other text after them; set tasks with set_plan",
        ));
    }
    let Some(description) = parsed.description else {
        return Err(ToolError::validation(
            "the text has constraint lines but no description before them; start with a paragraph saying why, what and how",
        ));
    };
    document.description = Some(description);
    // The text is the whole detailed goal: its constraints replace the old ones.
    document.constraints = parsed.constraints.filter(|c| !c.is_empty());
    Ok(())
}

/// Replaces the tasks. A plan that changes is not finished any more.
pub fn set_plan(
    document: &mut PlanDocument,
    plan: Vec<Task>,
    config: &ParserConfig,
) -> Result<(), ToolError> {
    if plan.is_empty() {
        return Err(ToolError::validation(
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
        let text = &task.text.value;
        // Quoted in messages on one line, control characters escaped.
        let shown = one_line(text);
        if text.trim().is_empty() {
            return Err(ToolError::validation(format!(
                "task {count} has no text; every task says what to do"
            )));
        }
        if text.trim() != text && !text.contains(['\n', '\r']) {
            return Err(ToolError::validation(format!(
                "task {count} (\"{shown}\") starts or ends with whitespace; write it without (git would strip it from a commit message)"
            )));
        }
        if task.checked && task.children.iter().any(|child| !child.checked) {
            return Err(ToolError::validation(format!(
                "task {count} (\"{shown}\") is marked done but has open subtasks; a task is done only when all its subtasks are"
            )));
        }
        if text.contains(['\n', '\r']) {
            return Err(ToolError::validation(format!(
                "task {count} (\"{}\") spans several lines; a task is one line",
                one_line(text.lines().next().unwrap_or_default())
            )));
        }
        if depth > MAX_TASK_DEPTH {
            return Err(ToolError::validation(format!(
                "task \"{shown}\" is a subtask {depth} levels down; the limit is {MAX_TASK_DEPTH} levels of subtasks below the top-level tasks: flatten the plan"
            )));
        }
    }
    if count > config.max_task_count {
        return Err(ToolError::validation(format!(
            "the plan has {count} tasks; the limit is {}: merge small tasks",
            config.max_task_count
        )));
    }
    document.tasks = candidate.tasks;
    if document.directive() == Some(COMPLETE) {
        document.direction = None;
    }
    Ok(())
}

/// What [`mark_task`] did.
pub struct Marked {
    pub path: String,
    pub text: String,
    /// Set when marking completed the last open subtask of a parent.
    pub parent_ready: Option<String>,
}

/// Marks the task `task_id` names (an exact text match wins, else a unique
/// case-insensitive substring) as completed or open.
pub fn mark_task(
    document: &mut PlanDocument,
    task_id: &str,
    completed: bool,
) -> Result<Marked, ToolError> {
    let Some(tasks) = document.tasks.as_deref().filter(|tasks| !tasks.is_empty()) else {
        return Err(ToolError::validation(
            "the plan has no tasks yet; set them with set_plan",
        ));
    };
    if task_id.trim().is_empty() {
        return Err(ToolError::validation(
            "task_id is empty; give the task's text or a unique part of it",
        ));
    }
    let all = tasks_with_paths(tasks);
    let exact: Vec<&_> = all
        .iter()
        .filter(|at| at.task.text.value == task_id)
        .collect();
    let needle = task_id.to_lowercase();
    let chosen: Vec<&_> = if exact.is_empty() {
        all.iter()
            .filter(|at| at.task.text.value.to_lowercase().contains(&needle))
            .collect()
    } else {
        exact
    };
    let path = match chosen.as_slice() {
        [one] => one.path.clone(),
        [] => {
            let open: Vec<String> = all
                .iter()
                .filter(|at| !at.task.checked)
                .map(TaskAt::listed)
                .collect();
            let listing = if open.is_empty() {
                "none; every task is done".to_owned()
            } else {
                open.join("; ")
            };
            return Err(ToolError::validation(format!(
                "no task matches \"{}\". Open tasks: {listing}",
                one_line(task_id)
            )));
        }
        several => {
            let candidates: Vec<String> = several
                .iter()
                .map(|at| format!("{} \"{}\"", at.path, at.quoted()))
                .collect();
            return Err(ToolError::validation(format!(
                "\"{}\" matches {} tasks: {}; nothing was changed. Give the full text of one of them",
                one_line(task_id),
                several.len(),
                candidates.join(", ")
            )));
        }
    };
    let indices: Vec<usize> = path
        .split('.')
        .filter_map(|part| part.parse::<usize>().ok())
        .map(|n| n - 1)
        .collect();
    let tasks = document.tasks.as_mut().expect("checked above");
    let text;
    let mut parent_ready = None;
    if completed {
        let task = task_at_mut(tasks, &indices);
        let open_children: Vec<String> = tasks_with_paths(&task.children)
            .iter()
            .filter(|at| !at.task.checked)
            .map(|at| format!("{path}.{}", at.listed()))
            .collect();
        if !open_children.is_empty() {
            return Err(ToolError::validation(format!(
                "task {path} \"{}\" has open subtasks: {}; a task is done only when all its subtasks are, so mark those first",
                one_line(&task.text.value),
                open_children.join("; ")
            )));
        }
        task.checked = true;
        text = task.text.value.clone();
        if let Some((_, parent_indices)) = indices.split_last()
            && !parent_indices.is_empty()
        {
            let parent = task_at_mut(tasks, parent_indices);
            if !parent.checked && parent.children.iter().all(|child| child.checked) {
                parent_ready = Some(parent.text.value.clone());
            }
        }
    } else {
        // Reopening a task reopens every task above it.
        let mut level: &mut Vec<Task> = tasks;
        let mut reopened_text = String::new();
        for (depth, &index) in indices.iter().enumerate() {
            let task = &mut level[index];
            task.checked = false;
            if depth + 1 == indices.len() {
                reopened_text = task.text.value.clone();
            }
            level = &mut task.children;
        }
        text = reopened_text;
        if document.directive() == Some(COMPLETE) {
            document.direction = None;
        }
    }
    Ok(Marked {
        path,
        text,
        parent_ready,
    })
}

fn task_at_mut<'a>(tasks: &'a mut [Task], indices: &[usize]) -> &'a mut Task {
    let (first, rest) = indices.split_first().expect("a task path is never empty");
    let mut task = &mut tasks[*first];
    for &index in rest {
        task = &mut task.children[index];
    }
    task
}

/// Records the job as complete; refuses while a task is open.
pub fn finish_job(document: &mut PlanDocument) -> Result<(), ToolError> {
    let Some(tasks) = document.tasks.as_deref().filter(|tasks| !tasks.is_empty()) else {
        return Err(ToolError::validation(
            "the plan has no tasks; set them with set_plan, do them, then finish",
        ));
    };
    let open: Vec<String> = tasks_with_paths(tasks)
        .iter()
        .filter(|at| !at.task.checked)
        .map(TaskAt::listed)
        .collect();
    if !open.is_empty() {
        return Err(ToolError::validation(format!(
            "{} task(s) are still open: {}; finish them and mark them with mark_task first",
            open.len(),
            open.join("; ")
        )));
    }
    document.direction = Some(Spanned::detached(format!("~~~ {COMPLETE} ~~~")));
    Ok(())
}

/// The shape the parser gives a document: constraints present when any
/// exist, and `[]` when tasks follow a description.
pub fn normalize(document: &mut PlanDocument) {
    let has_constraints = document.constraints.as_ref().is_some_and(|c| !c.is_empty());
    if !has_constraints {
        document.constraints =
            (document.tasks.is_some() && document.description.is_some()).then(Vec::new);
    }
}

/// A document read from a store. Empty text is an empty plan; text that does
/// not parse is refused rather than overwritten.
pub fn read_document(
    text: &str,
    config: &ParserConfig,
    clear_hint: &str,
) -> Result<PlanDocument, ToolError> {
    let outcome = parse(text, config);
    if outcome.state == ParseState::Halted {
        let reason = outcome.halt_reason().map_or_else(String::new, |d| {
            let line = text[..d.span.start.min(text.len())].matches('\n').count() + 1;
            format!(" (line {line}: {}; {})", d.message, d.help)
        });
        return Err(ToolError::validation(format!(
            "the stored text is not a plan document{reason}. It was left as it is: fix it by hand, or {clear_hint}"
        )));
    }
    Ok(outcome.document)
}
