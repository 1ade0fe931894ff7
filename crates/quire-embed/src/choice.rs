//! Which embedder a server uses: the one asked for (`--embedder`), or the
//! best one installed. The choice is made at once, from which files are
//! there (cheap); the model itself is loaded later, on the indexing thread.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::models::{INSTALL_COMMAND, minilm_dir, static_dir};
use super::{EmbedError, Embedder, HttpEmbedder, HttpEmbedderConfig, MiniLm, StaticEmbedder};

/// An embedder to load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EmbedderChoice {
    /// all-MiniLM-L6-v2 in `models_dir`.
    MiniLm {
        /// The models folder.
        models_dir: PathBuf,
    },
    /// The static table distilled from MiniLM in `models_dir`.
    Static {
        /// The models folder.
        models_dir: PathBuf,
    },
    /// An OpenAI-compatible server.
    Http(HttpEmbedderConfig),
}

impl EmbedderChoice {
    /// The best embedder installed in `models_dir`: `minilm` when its
    /// files are there, else `static` when its table was distilled; what to
    /// run when neither is.
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
        if static_distilled(&static_dir(models_dir)) {
            return Ok(EmbedderChoice::Static {
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
            EmbedderChoice::Static { .. } => "static",
            EmbedderChoice::Http(_) => "http",
        }
    }

    /// Loads it (reads the model, or asks the server for one vector).
    pub fn load(&self) -> Result<Arc<dyn Embedder>, EmbedError> {
        Ok(match self {
            EmbedderChoice::MiniLm { models_dir } => {
                Arc::new(MiniLm::load(&minilm_dir(models_dir))?)
            }
            EmbedderChoice::Static { models_dir } => {
                Arc::new(StaticEmbedder::load(&static_dir(models_dir))?)
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

/// Whether `dir` holds every file of a distilled static table (checked
/// against its manifest when loaded).
fn static_distilled(dir: &Path) -> bool {
    super::static_table::REQUIRED_FILES
        .iter()
        .all(|name| dir.join(name).is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(dir: &Path, names: &[&str]) {
        std::fs::create_dir_all(dir).unwrap();
        for name in names {
            std::fs::write(dir.join(name), b"x").unwrap();
        }
    }

    #[test]
    fn minilm_is_preferred_then_static_then_none_with_what_to_run() {
        let models = tempfile::tempdir().unwrap();
        let error = EmbedderChoice::best_installed(Some(models.path())).unwrap_err();
        assert!(error.contains("run `quire models install`"), "{error}");
        assert!(error.contains("--embedder http"), "{error}");
        let error = EmbedderChoice::best_installed(None).unwrap_err();
        assert!(error.contains("no models folder is known"), "{error}");

        touch(
            &static_dir(models.path()),
            &super::super::static_table::REQUIRED_FILES,
        );
        let choice = EmbedderChoice::best_installed(Some(models.path())).unwrap();
        assert_eq!(choice.name(), "static");
        // A broken table is chosen, then refused when loaded, with why.
        let error = choice.load().unwrap_err();
        assert!(matches!(error, EmbedError::Load { .. }), "{error}");

        touch(
            &minilm_dir(models.path()),
            &super::super::minilm::REQUIRED_FILES,
        );
        let choice = EmbedderChoice::best_installed(Some(models.path())).unwrap();
        assert_eq!(
            choice,
            EmbedderChoice::MiniLm {
                models_dir: models.path().to_owned()
            }
        );
        // A missing file makes the model not installed.
        std::fs::remove_file(minilm_dir(models.path()).join("model.safetensors")).unwrap();
        assert_eq!(
            EmbedderChoice::best_installed(Some(models.path()))
                .unwrap()
                .name(),
            "static"
        );
    }
}
