//! Which embedder a server uses: the one asked for (`--embedder`), or the
//! best one installed. The choice is made at once, from which files are
//! there (cheap); the model itself is loaded later, on the indexing thread.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::models::{INSTALL_COMMAND, minilm_dir};
use super::{EmbedError, Embedder, HttpEmbedder, HttpEmbedderConfig, MiniLm};

/// An embedder to load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EmbedderChoice {
    /// all-MiniLM-L6-v2 in `models_dir`.
    MiniLm {
        /// The models folder.
        models_dir: PathBuf,
    },
    /// An OpenAI-compatible server.
    Http(HttpEmbedderConfig),
}

impl EmbedderChoice {
    /// The best embedder installed in `models_dir`: `minilm` when its
    /// files are there; `None` with what to run when none is.
    pub fn best_installed(models_dir: Option<&Path>) -> Result<EmbedderChoice, String> {
        let Some(models_dir) = models_dir else {
            return Err(format!(
                "no models folder is known (set QUIRE_MODELS_DIR, or HOME); install the `minilm` embedder with `{INSTALL_COMMAND} --models-dir DIR` and pass `--models-dir DIR`, or use `--embedder http --embedder-url URL --embedder-model NAME`"
            ));
        };
        if minilm_installed(&minilm_dir(models_dir)) {
            return Ok(EmbedderChoice::MiniLm {
                models_dir: models_dir.to_owned(),
            });
        }
        Err(format!(
            "no embedder is installed in {}; run `{INSTALL_COMMAND}` (90 MB, once; then start quire again), or use `--embedder http --embedder-url URL --embedder-model NAME` for an embeddings server such as Ollama",
            models_dir.display()
        ))
    }

    /// Its name, as `--embedder` spells it.
    pub fn name(&self) -> &'static str {
        match self {
            EmbedderChoice::MiniLm { .. } => "minilm",
            EmbedderChoice::Http(_) => "http",
        }
    }

    /// Loads it (reads the model, or asks the server for one vector).
    pub fn load(&self) -> Result<Arc<dyn Embedder>, EmbedError> {
        Ok(match self {
            EmbedderChoice::MiniLm { models_dir } => {
                Arc::new(MiniLm::load(&minilm_dir(models_dir))?)
            }
            EmbedderChoice::Http(config) => Arc::new(HttpEmbedder::connect(config.clone())?),
        })
    }
}

/// Whether `dir` holds every file MiniLM loads (their checksums are
/// checked by `quire models install`, not on every start).
fn minilm_installed(dir: &Path) -> bool {
    super::minilm::REQUIRED_FILES
        .iter()
        .all(|name| dir.join(name).is_file())
}
