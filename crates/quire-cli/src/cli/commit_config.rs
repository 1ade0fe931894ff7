//! The `quire.toml` that adjusts `quire check`'s commit rules: the one
//! `--config` names, or the first found from the current folder upward
//! (as commitlint and cocogitto find theirs). The library reads the text
//! ([`CommitConfig::parse`]); this module finds and reads the file.

use std::path::{Path, PathBuf};

use anyhow::Context;
use quire_grammar::commit::Preset;
use quire_grammar::commit::config::{CommitConfig, find_config};
use quire_grammar::commit::lint::LintRules;

use super::files::CliFile;

/// The most of a `quire.toml` read: a configuration is a few lines.
const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// A `quire.toml`, read, with where it was found (for messages).
pub(super) struct FoundConfig {
    path: PathBuf,
    config: CommitConfig,
}

impl FoundConfig {
    /// The check the file names.
    pub(super) fn preset(&self) -> Preset {
        self.config.preset()
    }

    /// The `conventional` rules as the file adjusts them.
    pub(super) fn rules(&self) -> anyhow::Result<LintRules> {
        self.config
            .lint_rules()
            .map_err(|error| anyhow::anyhow!("{}: {error}", self.path.display()))
    }
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
    let config = CommitConfig::parse(&text)
        .map_err(|error| anyhow::anyhow!("{}: {error}", path.display()))?;
    Ok(FoundConfig {
        path: path.to_owned(),
        config,
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
