//! `quire hook prepare-commit-msg`: offers the plan kept in the git
//! directory as the commit message, so the plan becomes the commit.

use std::path::Path;

use anyhow::Context;
use quire::planner::store::{GitStore, PlanStore};

use super::Outcome;

/// Fills the commit message file with the stored plan when git is about to
/// open the editor on a fresh message (no `-m`/`-F`, not a merge, squash or
/// amend). Leaves the file alone when there is no plan.
pub fn prepare_commit_msg(file: &Path, source: Option<&str>) -> anyhow::Result<Outcome> {
    if !matches!(source, None | Some("") | Some("template")) {
        return Ok(Outcome::Success);
    }
    let here = std::env::current_dir().context("cannot read the current folder")?;
    let Some(store) = GitStore::discover(&here).map_err(|error| anyhow::anyhow!("{error}"))? else {
        return Ok(Outcome::Success);
    };
    let plan = store.load().map_err(|error| anyhow::anyhow!("{error}"))?;
    if plan.trim().is_empty() {
        return Ok(Outcome::Success);
    }
    let existing =
        std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    let message = format!("{}\n{existing}", plan.trim_end());
    quire::atomic_file::replace(file, message.as_bytes())
        .with_context(|| format!("cannot write {}", file.display()))?;
    Ok(Outcome::Success)
}
