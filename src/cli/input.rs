//! Reading the document a command works on.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, bail};

/// The largest file read.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// A document's text and the name to show for it in reports.
pub struct Source {
    pub name: String,
    pub path: Option<PathBuf>,
    pub text: Arc<str>,
}

/// Reads `file` (standard input for `None` or `-`) as UTF-8 text.
pub fn read(file: Option<&Path>) -> anyhow::Result<Source> {
    let (name, path, bytes) = match file {
        None => ("<stdin>".to_owned(), None, read_stdin()?),
        Some(path) if path.as_os_str() == "-" => ("<stdin>".to_owned(), None, read_stdin()?),
        Some(path) => {
            let bytes = super::files::CliFile::locate(path)?
                .open()?
                .read(MAX_FILE_BYTES)?;
            (path.display().to_string(), Some(path.to_owned()), bytes)
        }
    };
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) => {
            let offset = error.utf8_error().valid_up_to();
            bail!(
                "{name} is not UTF-8 text (invalid byte at offset {offset}); plan documents must be UTF-8"
            )
        }
    };
    Ok(Source {
        name,
        path,
        text: text.into(),
    })
}

fn read_stdin() -> anyhow::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .read_to_end(&mut bytes)
        .context("cannot read standard input")?;
    Ok(bytes)
}
