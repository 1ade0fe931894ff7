//! Which embedder a server uses: the one asked for (`--embedder`), or the
//! best one installed. The choice is made at once, from which files are
//! there (cheap); the model itself is loaded later, on the indexing thread.
//!
//! The `http` embedder is in every build; the in-process ones (`minilm`,
//! `static`) need the `semantic` feature: without it, choosing one is
//! possible (a configuration may name it) but loading it says what the
//! build lacks, and no installed model is chosen by itself.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::models::{INSTALL_COMMAND, minilm_installed, static_distilled};
use super::{EmbedError, Embedder, HttpEmbedder, HttpEmbedderConfig};

/// Whether this build runs models in process (the `semantic` feature).
const IN_PROCESS: bool = cfg!(feature = "semantic");

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
    /// run when neither is, or when this build runs no model in process.
    pub fn best_installed(models_dir: Option<&Path>) -> Result<EmbedderChoice, String> {
        let mut installed = EmbedderChoice::installed(models_dir)?;
        Ok(installed.remove(0))
    }

    /// Every embedder installed in `models_dir`, best first: `minilm` when
    /// its files are there, `static` when its table was distilled (at least
    /// one); what to run when neither is, or when this build runs no model
    /// in process. A server keeps an index for each and answers from the
    /// best complete one.
    pub fn installed(models_dir: Option<&Path>) -> Result<Vec<EmbedderChoice>, String> {
        if !IN_PROCESS {
            return Err(
                "this build has no in-process embedder (the `semantic` feature): rebuild it with `--features semantic`, or use `--embedder http --embedder-url URL --embedder-model NAME` for an embeddings server such as Ollama"
                    .to_owned(),
            );
        }
        let Some(models_dir) = models_dir else {
            return Err(format!(
                "no models folder is known (set QUIRE_MODELS_DIR, or HOME); install the `minilm` embedder with `{INSTALL_COMMAND} --models-dir DIR` and pass `--models-dir DIR`, or use `--embedder http --embedder-url URL --embedder-model NAME`"
            ));
        };
        let mut installed = Vec::new();
        if minilm_installed(&super::minilm_dir(models_dir)) {
            installed.push(EmbedderChoice::MiniLm {
                models_dir: models_dir.to_owned(),
            });
        }
        if static_distilled(&super::static_dir(models_dir)) {
            installed.push(EmbedderChoice::Static {
                models_dir: models_dir.to_owned(),
            });
        }
        if !installed.is_empty() {
            return Ok(installed);
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

    /// Loads it (reads the model, or asks the server for one vector). An
    /// in-process model in a build without the `semantic` feature is
    /// [`EmbedError::NotBuilt`].
    pub fn load(&self) -> Result<Arc<dyn Embedder>, EmbedError> {
        Ok(match self {
            #[cfg(feature = "semantic")]
            EmbedderChoice::MiniLm { models_dir } => {
                Arc::new(super::MiniLm::load(&super::minilm_dir(models_dir))?)
            }
            #[cfg(feature = "semantic")]
            EmbedderChoice::Static { models_dir } => {
                Arc::new(super::StaticEmbedder::load(&super::static_dir(models_dir))?)
            }
            #[cfg(not(feature = "semantic"))]
            EmbedderChoice::MiniLm { .. } | EmbedderChoice::Static { .. } => {
                return Err(EmbedError::NotBuilt {
                    embedder: self.name().to_owned(),
                });
            }
            EmbedderChoice::Http(config) => Arc::new(HttpEmbedder::connect(config.clone())?),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::{MINILM_REQUIRED_FILES, STATIC_REQUIRED_FILES};
    use crate::{minilm_dir, static_dir};

    fn touch(dir: &Path, names: &[&str]) {
        std::fs::create_dir_all(dir).unwrap();
        for name in names {
            std::fs::write(dir.join(name), b"x").unwrap();
        }
    }

    #[test]
    #[cfg(feature = "semantic")]
    fn minilm_is_preferred_then_static_then_none_with_what_to_run() {
        let models = tempfile::tempdir().unwrap();
        let error = EmbedderChoice::best_installed(Some(models.path())).unwrap_err();
        assert!(error.contains("run `quire models install`"), "{error}");
        assert!(error.contains("--embedder http"), "{error}");
        let error = EmbedderChoice::best_installed(None).unwrap_err();
        assert!(error.contains("no models folder is known"), "{error}");

        touch(&static_dir(models.path()), &STATIC_REQUIRED_FILES);
        let choice = EmbedderChoice::best_installed(Some(models.path())).unwrap();
        assert_eq!(choice.name(), "static");
        // A broken table is chosen, then refused when loaded, with why.
        let error = choice.load().unwrap_err();
        assert!(matches!(error, EmbedError::Load { .. }), "{error}");

        touch(&minilm_dir(models.path()), &MINILM_REQUIRED_FILES);
        let every: Vec<&str> = EmbedderChoice::installed(Some(models.path()))
            .unwrap()
            .iter()
            .map(EmbedderChoice::name)
            .collect();
        assert_eq!(every, ["minilm", "static"]);
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

    /// Without the `semantic` feature an installed model is not chosen by
    /// itself, and one named is refused when loaded, saying why.
    #[test]
    #[cfg(not(feature = "semantic"))]
    fn without_semantic_no_model_runs_in_process_and_it_says_so() {
        let models = tempfile::tempdir().unwrap();
        touch(&minilm_dir(models.path()), &MINILM_REQUIRED_FILES);
        touch(&static_dir(models.path()), &STATIC_REQUIRED_FILES);
        let error = EmbedderChoice::best_installed(Some(models.path())).unwrap_err();
        assert!(
            error.contains("no in-process embedder (the `semantic` feature)")
                && error.contains("--embedder http"),
            "{error}"
        );
        for choice in [
            EmbedderChoice::MiniLm {
                models_dir: models.path().to_owned(),
            },
            EmbedderChoice::Static {
                models_dir: models.path().to_owned(),
            },
        ] {
            let error = choice.load().unwrap_err();
            assert_eq!(
                error,
                EmbedError::NotBuilt {
                    embedder: choice.name().to_owned()
                }
            );
            assert!(error.to_string().contains("`semantic` feature"), "{error}");
        }
    }
}
