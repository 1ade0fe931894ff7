//! `quire hook prepare-commit-msg` and `quire hook post-commit`: the plan
//! kept in the git directory becomes the commit message, and is cleared once
//! a commit carries it.

use std::path::Path;

use anyhow::Context;
use quire::planner::LOCK_TIMEOUT;
use quire::planner::store::{GitStore, PlanStore};

use super::Outcome;
use super::files::CliFile;
use super::git_message::cleanup;

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
pub fn prepare_commit_msg(file: &Path, source: Option<&str>) -> anyhow::Result<Outcome> {
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
/// cleanup), the plan is done with; remove it so the next commit starts fresh.
pub fn post_commit() -> anyhow::Result<Outcome> {
    let Some((store, _)) = stored_plan()? else {
        return Ok(Outcome::Success);
    };
    let message = store.last_commit_message()?;
    let committed = cleanup(&message);
    store.remove_plan_if(LOCK_TIMEOUT, |plan| cleanup(plan) == committed)?;
    Ok(Outcome::Success)
}
