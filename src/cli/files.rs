//! The files the CLI reads and rewrites, through the confined file layer:
//! opened without blocking, regular files only, read with a size limit, and
//! replaced atomically (owner, group and mode kept; through a symbolic link
//! to its target; hard-linked files refused).

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use quire::fs::{FileKind, FsError, Located, OpenFile, Workspace};

/// How long a rewrite waits for another quire process writing the same file.
const LOCK_TIMEOUT: Duration = Duration::from_secs(10);

/// A file named on the command line, resolved from the current folder.
pub struct CliFile {
    located: Located,
}

impl CliFile {
    pub fn locate(path: &Path) -> anyhow::Result<CliFile> {
        let shown = path.display().to_string();
        let absolute: PathBuf =
            std::path::absolute(path).with_context(|| format!("cannot resolve {shown}"))?;
        let Some(absolute) = absolute.to_str() else {
            bail!(
                "{shown}: the path is not valid UTF-8; rename the file or pass it on standard input"
            );
        };
        let workspace = Workspace::filesystem().context("cannot open the file system root")?;
        let located = workspace
            .locate_shown(absolute, &shown)
            .map_err(in_cli_words)?;
        Ok(CliFile { located })
    }

    /// The file, opened for reading (a regular file, or an error saying what
    /// it is instead).
    pub fn open(&self) -> anyhow::Result<OpenFile> {
        self.located.open().map_err(in_cli_words)
    }

    /// Replaces the file's content with `contents`, provided it still holds
    /// exactly `expected` (the text the new content was computed from).
    pub fn replace(&self, expected: &[u8], contents: &[u8], limit: u64) -> anyhow::Result<()> {
        let file = self.located.open()?;
        file.lock(LOCK_TIMEOUT)?;
        if !self.located.is_current(&file)? || file.read(limit)? != expected {
            bail!(
                "{} changed while quire was working on it; nothing was written. Run the command again",
                self.located.shown()
            );
        }
        self.located.replace(&file, contents)?;
        Ok(())
    }
}

/// The layer's errors as the CLI says them: about a file the user named,
/// not about a workspace.
fn in_cli_words(error: FsError) -> anyhow::Error {
    match error {
        FsError::NotFound { path } => anyhow::anyhow!("cannot read {path}: not found"),
        FsError::NotAFile {
            path,
            kind: FileKind::Folder,
        } => anyhow::anyhow!("cannot read {path}: it is a folder, not a file"),
        FsError::NotAFile { path, kind } => anyhow::anyhow!(
            "cannot read {path}: it is {}, not a regular file; to read from a pipe or a device, give `-` and redirect standard input",
            kind.described()
        ),
        error => error.into(),
    }
}
