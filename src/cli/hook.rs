//! `quire hook prepare-commit-msg` and `quire hook post-commit`: the plan
//! kept in the git directory becomes the commit message, and is cleared once
//! a commit carries it.

use std::path::Path;

use anyhow::Context;
use quire::planner::store::{GitStore, PLAN_FILE_NAME, PlanStore};

use super::Outcome;
use super::git_message::cleanup;

/// The git store of the current folder and the plan it holds; `None` outside
/// a git repository or when no plan is stored.
fn stored_plan() -> anyhow::Result<Option<(GitStore, String)>> {
    let here = std::env::current_dir().context("cannot read the current folder")?;
    let Some(store) = GitStore::discover(&here).map_err(|error| anyhow::anyhow!("{error}"))? else {
        return Ok(None);
    };
    let plan = store.load().map_err(|error| anyhow::anyhow!("{error}"))?;
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
    let existing =
        std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    let message = format!("{}\n{existing}", plan.trim_end());
    quire::atomic_file::replace(file, message.as_bytes())
        .with_context(|| format!("cannot write {}", file.display()))?;
    Ok(Outcome::Success)
}

/// After a commit: when the commit's message is the stored plan (after git's
/// cleanup), the plan is done with; remove it so the next commit starts fresh.
pub fn post_commit() -> anyhow::Result<Outcome> {
    let Some((store, plan)) = stored_plan()? else {
        return Ok(Outcome::Success);
    };
    let output = std::process::Command::new("git")
        .args(["log", "-1", "--format=%B"])
        .output()
        .context("cannot run git log")?;
    let message = String::from_utf8_lossy(&output.stdout);
    if output.status.success() && cleanup(&message) == cleanup(&plan) {
        std::fs::remove_file(store.plan_path())
            .with_context(|| format!("cannot remove {PLAN_FILE_NAME}"))?;
    }
    Ok(Outcome::Success)
}
