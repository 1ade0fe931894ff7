//! The files the CLI reads and rewrites, through the confined file layer:
//! opened without blocking, regular files only, read with a size limit, and
//! replaced atomically (owner, group and mode kept; through a symbolic link
//! to its target; hard-linked and read-only files refused), and only if
//! nothing changed the file since it was opened.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use quire_fs::{FileKind, FsError, Located, OpenFile, Workspace};

/// How long a rewrite waits for another quire process writing the same file.
const LOCK_TIMEOUT: Duration = Duration::from_secs(10);

/// A regular file named on the command line (resolved from the current
/// folder), open for reading.
pub(super) struct CliFile {
    located: Located,
    file: OpenFile,
}

impl CliFile {
    /// Opens the file `path` names: a regular file, or an error saying what
    /// it is instead.
    pub(super) fn open(path: &Path) -> anyhow::Result<CliFile> {
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
        let file = located.open().map_err(in_cli_words)?;
        Ok(CliFile { located, file })
    }

    /// The whole file, at most `limit` bytes.
    pub(super) fn read(&self, limit: u64) -> Result<Vec<u8>, FsError> {
        self.file.read(limit)
    }

    /// Replaces the file's content with `contents`, provided nothing changed
    /// it since it was opened (the layer checks right before the rename).
    pub(super) fn replace(&self, contents: &[u8]) -> anyhow::Result<()> {
        self.file.lock(LOCK_TIMEOUT)?;
        match self.located.replace(&self.file, contents) {
            Err(FsError::Changed { path }) => bail!(
                "{path} changed while quire was working on it; nothing was written. Run the command again"
            ),
            written => Ok(written?),
        }
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
