//! The `quire.toml` that adjusts `quire check`'s commit rules: the one
//! `--config` names, or the first found from the current folder upward
//! (as commitlint and cocogitto find theirs). This module finds and reads
//! the file; what its text means is the library's
//! (`quire_grammar::commit::policy`).

use std::path::{Path, PathBuf};

use anyhow::Context;
use quire_grammar::commit::config::find_config;

use super::files::CliFile;

/// The most of a `quire.toml` read: a configuration is a few lines.
const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// A `quire.toml`'s text, with where it was found (for messages).
pub(super) struct FoundConfig {
    /// The file, as given or found.
    pub(super) path: PathBuf,
    /// Its text.
    pub(super) text: String,
}

/// Reads the `quire.toml` at `path`.
pub(super) fn read(path: &Path) -> anyhow::Result<FoundConfig> {
    let bytes = CliFile::open(path)?
        .read(MAX_CONFIG_BYTES)
        .with_context(|| format!("cannot read the configuration {}", path.display()))?;
    let text = String::from_utf8(bytes).map_err(|_| {
        anyhow::anyhow!(
            "{} is not UTF-8 text; a quire.toml is TOML, which is UTF-8",
            path.display()
        )
    })?;
    Ok(FoundConfig {
        path: path.to_owned(),
        text,
    })
}

/// The first `quire.toml` from the current folder upward, read; `None`
/// when there is none.
pub(super) fn discover() -> anyhow::Result<Option<FoundConfig>> {
    let here = std::env::current_dir().context("cannot read the current folder")?;
    // `is_file` follows links, as reading the file then does.
    match find_config(&here, Path::is_file) {
        Some(path) => read(&path).map(Some),
        None => Ok(None),
    }
}
