//! The models folder: where the embedders' model files are expected.
//!
//! The `minilm` model (all-MiniLM-L6-v2) is in [`minilm_dir`], put there
//! by `quire models install` (the quire binary downloads and verifies it);
//! the `static` table distilled from it is in [`static_dir`], put there by
//! `quire models distill` (`crate::distill`, with the `semantic` feature).
//! The loaders read them from there, and [`crate::EmbedderChoice`] looks
//! there for the best one installed.
//!
//! The models folder is the user's cache, outside any kiln root, so the
//! code that reads and writes it uses plain `std::fs`: the confined file
//! layer (`quire_fs::Workspace`) guards the files *beneath a vault root*,
//! which these are not.

use std::path::{Path, PathBuf};

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

/// The static folder's manifest: the SHA-256 of the MiniLM weights the
/// table came from and of the table itself.
pub const MANIFEST_FILE: &str = "quire-static.json";

/// The files the `minilm` embedder reads from [`minilm_dir`].
pub(crate) const MINILM_REQUIRED_FILES: [&str; 4] = [
    "model.safetensors",
    "tokenizer.json",
    "config.json",
    "sentence_bert_config.json",
];

/// The files the `static` embedder reads from [`static_dir`].
pub(crate) const STATIC_REQUIRED_FILES: [&str; 4] = [
    "model.safetensors",
    "tokenizer.json",
    "config.json",
    MANIFEST_FILE,
];

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

/// Whether `dir` holds every file the `minilm` embedder loads (their
/// checksums are checked by `quire models install`, not on every start).
pub(crate) fn minilm_installed(dir: &Path) -> bool {
    MINILM_REQUIRED_FILES
        .iter()
        .all(|name| dir.join(name).is_file())
}

/// Whether `dir` holds every file of a distilled static table (checked
/// against its manifest when loaded).
pub(crate) fn static_distilled(dir: &Path) -> bool {
    STATIC_REQUIRED_FILES
        .iter()
        .all(|name| dir.join(name).is_file())
}
