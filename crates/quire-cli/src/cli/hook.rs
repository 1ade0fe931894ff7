//! `quire hook prepare-commit-msg` and `quire hook post-commit`: the plan
//! kept in the git directory becomes the commit message, and is cleared once
//! a commit carries it.

use std::path::Path;

use anyhow::Context;
use quire_grammar::commit::git_cleanup as cleanup;
use quire_grammar::plan::{ParserConfig, parse};
use quire_planner::LOCK_TIMEOUT;
use quire_planner::store::{GitStore, PlanStore};

use super::Outcome;
use super::files::CliFile;
use super::output;

/// The largest commit message file read: it may hold the whole diff
/// (`git commit -v`).
const MAX_MESSAGE_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// The git store of the current folder and the plan it holds; `None` outside
/// a git repository or when no plan is stored.
fn stored_plan() -> anyhow::Result<Option<(GitStore, String)>> {
    let here = std::env::current_dir().context("cannot read the current folder")?;
    let Some(store) = GitStore::discover(&here)? else {
        return Ok(None);
    };
    let plan = store.load()?;
    Ok((!plan.trim().is_empty()).then_some((store, plan)))
}

/// Fills the commit message file with the stored plan when git is about to
/// open the editor on a fresh message (no `-m`/`-F`, not a merge, squash or
/// amend). Leaves the file alone when there is no plan.
pub(super) fn prepare_commit_msg(file: &Path, source: Option<&str>) -> anyhow::Result<Outcome> {
    if !matches!(source, None | Some("") | Some("template")) {
        return Ok(Outcome::Success);
    }
    let Some((_, plan)) = stored_plan()? else {
        return Ok(Outcome::Success);
    };
    let message_file = CliFile::open(file)?;
    let existing = message_file.read(MAX_MESSAGE_FILE_BYTES)?;
    let mut message = format!("{}\n", plan.trim_end()).into_bytes();
    message.extend_from_slice(&existing);
    message_file.replace(&message)?;
    Ok(Outcome::Success)
}

/// After a commit: when the commit's message is the stored plan (after git's
/// cleanup) and the plan is finished (it has tasks and none is open), the
/// plan is done with: remove it so the next commit starts fresh. An
/// unfinished plan stays for the next commit, which the prepare-commit-msg
/// hook offers it to again. Says on stderr, in one line, which it did.
pub(super) fn post_commit() -> anyhow::Result<Outcome> {
    let Some((store, plan)) = stored_plan()? else {
        return Ok(Outcome::Success);
    };
    let committed = cleanup(&store.last_commit_message()?);
    let carried = |plan: &str| cleanup(plan) == committed;
    let line = if !carried(&plan) {
        "quire: the plan is kept: this commit's message is not the plan".to_owned()
    } else {
        match Progress::of(&plan) {
            Progress::Finished => {
                let removed = store.remove_plan_if(LOCK_TIMEOUT, |now| {
                    carried(now) && Progress::of(now) == Progress::Finished
                })?;
                if removed {
                    "quire: the plan is finished and committed, so it was cleared; the next commit starts a new plan"
                        .to_owned()
                } else {
                    "quire: the plan is kept: it changed while the commit was made".to_owned()
                }
            }
            unfinished => format!(
                "quire: the plan is kept for the next commit: {}",
                unfinished.described()
            ),
        }
    };
    output::message(&line);
    Ok(Outcome::Success)
}

/// How far a stored plan is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Progress {
    /// It has tasks and every one is done (`finish_job` may or may not
    /// have recorded it).
    Finished,
    /// `open` of `total` tasks are not done.
    Open { open: usize, total: usize },
    /// It has no tasks yet.
    NoTasks,
    /// It does not read as a plan document.
    Unreadable,
}

impl Progress {
    fn of(plan: &str) -> Progress {
        let outcome = parse(plan, &ParserConfig::COMMIT_MESSAGE);
        if !outcome.is_parsed() {
            return Progress::Unreadable;
        }
        let total = outcome.document.tasks_depth_first().count();
        let open = outcome
            .document
            .tasks_depth_first()
            .filter(|(_, task)| !task.checked)
            .count();
        match (total, open) {
            (0, _) => Progress::NoTasks,
            (_, 0) => Progress::Finished,
            (total, open) => Progress::Open { open, total },
        }
    }

    fn described(self) -> String {
        match self {
            Progress::Finished => "every task is done".to_owned(),
            Progress::Open { open, total } => {
                let tasks = if total == 1 { "task" } else { "tasks" };
                let verb = if open == 1 { "is" } else { "are" };
                format!("{open} of {total} {tasks} {verb} still open")
            }
            Progress::NoTasks => "it has no tasks yet".to_owned(),
            Progress::Unreadable => {
                "it does not read as a plan document (`quire check .git/QUIRE_PLAN` says why)"
                    .to_owned()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_counts_open_tasks() {
        let header = "feat(hook): Keep plans\n\nWhy.\n\n";
        assert_eq!(Progress::of("feat(hook): Keep plans\n"), Progress::NoTasks);
        assert_eq!(
            Progress::of(&format!("{header}- [x]: One\n  - [ ]: Two\n")),
            Progress::Open { open: 1, total: 2 }
        );
        assert_eq!(
            Progress::of(&format!("{header}- [x]: One\n  - [x]: Two\n")),
            Progress::Finished
        );
        assert_eq!(
            Progress::of(&format!("{header}- [x]: One\n\n~~~ COMPLETE ~~~\n")),
            Progress::Finished
        );
        assert_eq!(Progress::of("WIP\n"), Progress::Unreadable);
        assert_eq!(
            Progress::Open { open: 1, total: 1 }.described(),
            "1 of 1 task is still open"
        );
        assert_eq!(
            Progress::Open { open: 2, total: 3 }.described(),
            "2 of 3 tasks are still open"
        );
    }
}
