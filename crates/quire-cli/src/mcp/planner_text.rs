//! The planner's results and refusals in the words an agent reads: what a
//! call did (`summary`), what to do next and with which tool (`guidance`),
//! and the refusals whose remedy is another tool. The planner reports these
//! as data; only here are they put into words and the tools named.

use std::fmt::Write;

use quire_grammar::diagnostics::one_line;
use quire_grammar::plan::{
    ALLOWED_CONSTRAINT_PREFIXES, ALLOWED_TYPES, MAX_TASK_DEPTH, ParserConfig,
};
use quire_planner::store::StoreKind;
use quire_planner::{
    Edit, IgnoredText, NextStep, PlanEditError, PlanPart, PlanReport, PlannerError, PreviousPlan,
    TaskRef,
};

/// `1 task`, `2 tasks`.
fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// What a call did; empty for a call that only reads the plan.
pub(super) fn summary(edit: Option<&Edit>) -> String {
    let Some(edit) = edit else {
        return String::new();
    };
    match edit {
        Edit::GoalSet => "The overarching goal is set.".to_owned(),
        Edit::DetailedGoalSet => "The detailed goal is set.".to_owned(),
        Edit::PlanSet => "The plan is set.".to_owned(),
        Edit::TaskMarked {
            task,
            completed,
            parent_ready,
        } => {
            let state = if *completed { "done" } else { "open" };
            let mut summary = format!("Task {} \"{}\" is {state}.", task.path, one_line(&task.text));
            if let Some(parent) = parent_ready {
                let _ = write!(
                    summary,
                    " All subtasks of \"{}\" are done: mark it with mark_task too.",
                    one_line(parent)
                );
            }
            summary
        }
        Edit::JobFinished {
            direction: Some(direction),
        } => format!(
            "The job is complete. The direction \"{}\" is kept, with `~~~ COMPLETE ~~~` under it.",
            one_line(direction)
        ),
        Edit::JobFinished { direction: None } => "The job is complete.".to_owned(),
        Edit::NewPlanStarted { previous } => match previous {
            PreviousPlan::None => "A new plan is started with this goal.".to_owned(),
            PreviousPlan::Kept => "A new plan is started with this goal in a new change (`jj new`); the previous plan stays the description of the change before it.".to_owned(),
            PreviousPlan::Replaced { stage } => format!(
                "A new plan is started with this goal. It replaced the previous plan ({}), whose text is in `previous_plan`.",
                match stage.number() {
                    Some(6) => "finished".to_owned(),
                    Some(stage) => format!("at stage {stage}, unfinished"),
                    None => "not a plan document".to_owned(),
                }
            ),
        },
    }
}

/// The guidance of a result: what to do next, after fixing what breaks the
/// plan's rules when something does.
pub(super) fn report_guidance(report: &PlanReport) -> String {
    let next = guidance(&report.next, report.store);
    if report.errors.is_empty() || matches!(report.next, NextStep::FixText { .. }) {
        return next;
    }
    format!(
        "First fix what breaks the plan's rules (see `errors`): the next edit is refused until it does, \
         so call the tool that sets that part again with a valid value.\n\n{next}"
    )
}

/// What to do next, and with which tool, for a model to follow: the
/// `guidance` of a planner tool's result for a plan in `store` whose next
/// step is `next` (before any advice to fix what breaks the plan's rules).
pub fn guidance(next: &NextStep, store: StoreKind) -> String {
    match next {
        NextStep::SetGoal => set_goal(),
        NextStep::Describe { kept_tasks } => describe(*kept_tasks),
        NextStep::Plan { constraints } => plan(*constraints),
        NextStep::Work {
            tasks,
            done,
            next,
            open,
        } => work(*tasks, *done, next, open),
        NextStep::Finish { tasks } => format!(
            "Stage 5: the plan is set: {}, {tasks} done.\n\n\
             Every task is done. Next: call `finish_job` to record the job as complete.",
            count(*tasks, "task")
        ),
        NextStep::Review { tasks } => format!(
            "Stage 6: the job is complete ({} done).\n\nNext: review the change with the user. \
             To start the next piece of work, {}. \
             To reopen a task instead, call `mark_task` with `completed: false`.",
            count(*tasks, "task"),
            fresh_start(store)
        ),
        NextStep::FixText { clear_hint } => format!(
            "The stored text is not a plan document (see `errors`); it is left as it is, and every tool that writes \
             refuses until it is fixed or cleared. Fix it by hand, or {clear_hint}; then call `gather_requirements` again."
        ),
    }
}

/// Stage 0: how to give the goal, with the types and the title's limit.
fn set_goal() -> String {
    format!(
        "Stage 0: no plan yet.\n\nNext: define the overarching goal with `set_overarching_goal`, \
         giving `goal` = {{type, scope, breaking, title}}:\n\
         - type: one of {}\n\
         - scope: lowercase letters, digits and hyphens, starting with a letter (e.g. `parser`)\n\
         - breaking: true if the change breaks existing users\n\
         - title: one line, at most {} characters, no surrounding spaces\n\
         Ask the user what they want to achieve if it is not clear yet.",
        ALLOWED_TYPES.join(", "),
        ParserConfig::COMMIT_MESSAGE.max_title_length
    )
}

/// Stage 1: how to describe the change, with the constraint prefixes.
fn describe(kept_tasks: Option<usize>) -> String {
    let kept = match kept_tasks {
        Some(tasks) => format!(
            " The plan has no description yet, though it has {}; they are kept.",
            count(tasks, "task")
        ),
        None => String::new(),
    };
    format!(
        "Stage 1: the overarching goal is set.{kept}\n\nNext: describe the change with `set_detailed_goal`: \
         why it is needed, what it changes (targets) and how (approach), as one paragraph (no blank lines). \
         To record what must not be done, end it with constraint lines such as `- Never: skip the tests` \
         (prefixes: {}; the value starts with a lowercase letter). To change the goal itself, call \
         `set_overarching_goal` again.",
        ALLOWED_CONSTRAINT_PREFIXES.join(", ")
    )
}

/// Stages 2/3 and 4: how to give the tasks, with the nesting limit.
fn plan(constraints: bool) -> String {
    let step = if constraints {
        "Stage 4: the goal is described, with constraints."
    } else {
        "Stage 2/3: the goal is described."
    };
    format!(
        "{step}\n\nNext: break the work into tasks with `set_plan`: `plan` is a list of \
         [checked, text, children] tuples, e.g. [[false, \"Parse task lines\", [[false, \"Handle indentation\", []]]]]: \
         top-level tasks and up to {MAX_TASK_DEPTH} levels of subtasks, each a concrete one-line step that can be checked off. \
         To change the description or the constraints, call `set_detailed_goal` again with the whole text: \
         the paragraph and every constraint line to keep."
    )
}

/// Stage 5: the task to do now and every open task.
fn work(tasks: usize, done: usize, next: &TaskRef, open: &[TaskRef]) -> String {
    let mut text = format!(
        "Stage 5: the plan is set: {}, {done} done.\n\n",
        count(tasks, "task")
    );
    let _ = write!(
        text,
        "Next: work on task {} \"{}\". When a task is done, call `mark_task` with its path as listed \
         (`task_id: \"{}\"`) or its text (`completed: false` reopens it). A parent task is done only when all its subtasks are, so \
         mark it after them. When every task is done, call `finish_job`. To change the plan, call \
         `set_plan` again.\n\nOpen tasks:",
        next.path,
        one_line(&next.text),
        next.path
    );
    for task in open {
        let _ = write!(text, "\n- {task}");
    }
    text
}

/// How to start the next plan in `store` once this one is finished.
fn fresh_start(store: StoreKind) -> &'static str {
    match store {
        StoreKind::Jj => {
            "call `set_overarching_goal` with `start_new: true` (it runs `jj new`, so this plan stays the description of its change), or run `jj new` yourself"
        }
        StoreKind::Git => {
            "commit (the prepare-commit-msg hook offers this plan as the message and the post-commit hook clears it), or call `set_overarching_goal` with `start_new: true` to replace it"
        }
        StoreKind::File => {
            "call `set_overarching_goal` with `start_new: true` (it replaces the plan file's text), or move the plan file away first to keep it"
        }
    }
}

/// A planner error as a tool reports it: a refusal whose remedy is another
/// tool names that tool; every other error says what the planner says.
pub(super) fn error_message(error: &PlannerError) -> String {
    match error {
        PlannerError::Edit(refusal) => refusal_message(refusal),
        other => other.to_string(),
    }
}

fn refusal_message(refusal: &PlanEditError) -> String {
    match refusal {
        PlanEditError::Finished { store } => format!(
            "the plan is finished (stage 6), so its goal is not changed; nothing was stored. \
             To start the next plan, {}",
            fresh_start(*store)
        ),
        PlanEditError::TasksInDescription => "the description may end in constraint lines (`- Never: ...`) but holds no tasks or other text after them; set tasks with set_plan".to_owned(),
        PlanEditError::NoTasksToMark => "the plan has no tasks yet; set them with set_plan".to_owned(),
        PlanEditError::NoTasksToFinish => {
            "the plan has no tasks; set them with set_plan, do them, then finish".to_owned()
        }
        PlanEditError::TasksOpen { open } => {
            let listed: Vec<String> = open.iter().map(TaskRef::to_string).collect();
            let (count, them) = match listed.len() {
                1 => ("1 task is".to_owned(), "it"),
                n => (format!("{n} tasks are"), "them"),
            };
            format!(
                "{count} still open: {}; finish {them} and mark {them} with mark_task first",
                listed.join("; ")
            )
        }
        PlanEditError::WouldDrop { dropped } => {
            let dropped: Vec<String> = dropped.iter().map(dropped_text).collect();
            format!(
                "the stored plan holds text the plan grammar ignores, which this edit would drop: {}. Nothing was stored. \
                 Keep the text as the help says, or fix the stored plan by hand",
                dropped.join("; ")
            )
        }
        other => other.to_string(),
    }
}

/// `line 4: "- Never: Skip": message (help; the tool that keeps it)`.
fn dropped_text(ignored: &IgnoredText) -> String {
    let keep = match ignored.keep_in {
        PlanPart::Goal => {
            "to keep it, call set_overarching_goal with it as the title (a title needs a scope)"
        }
        PlanPart::DetailedGoal => {
            "to keep it, call set_detailed_goal with the whole description and this constraint rewritten"
        }
    };
    format!(
        "line {}: \"{}\": {} ({}; {keep})",
        ignored.line, ignored.text, ignored.message, ignored.help
    )
}
