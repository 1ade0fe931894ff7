//! `--embedder` and its companions: which embedder `semantic_search` and
//! `quire index` use.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use quire_kiln::EmbedderSource;

/// The embedders `--embedder` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum EmbedderName {
    /// all-MiniLM-L6-v2 run in this process (`quire models install`).
    Minilm,
    /// The static table distilled from it (`quire models distill`): far
    /// faster, less exact.
    Static,
    /// An OpenAI-compatible `/v1/embeddings` server (`--embedder-url`,
    /// `--embedder-model`).
    Http,
    /// No semantic search.
    None,
}

/// Which embedder semantic search uses.
#[derive(Debug, Args, Default)]
pub(crate) struct EmbedderArgs {
    /// The embedder of semantic_search: `minilm`, `static`, `http` or
    /// `none` (default: every one installed, `minilm` and the `static`
    /// table, each with its own index; a search is answered by the best
    /// complete one, so the fast static tier answers while MiniLM embeds).
    #[arg(long, value_enum, value_name = "NAME")]
    embedder: Option<EmbedderName>,
    /// With --embedder http: the server's base URL, such as
    /// http://127.0.0.1:11434 for Ollama (`/v1/embeddings` is added), or
    /// the full endpoint.
    #[arg(long, value_name = "URL")]
    embedder_url: Option<String>,
    /// With --embedder http: the model the server should use, such as
    /// nomic-embed-text. The API key, if the server wants one, is read from
    /// QUIRE_EMBEDDER_API_KEY.
    #[arg(long, value_name = "NAME")]
    embedder_model: Option<String>,
    /// The folder of the installed models (default: $QUIRE_MODELS_DIR, else
    /// $XDG_CACHE_HOME/quire/models, else ~/.cache/quire/models).
    #[arg(long, value_name = "DIR")]
    models_dir: Option<PathBuf>,
}

/// Where an API key for `--embedder http` is read from (never from the
/// command line, which other users can see).
const API_KEY_ENV: &str = "QUIRE_EMBEDDER_API_KEY";

impl EmbedderArgs {
    /// Whether any of the flags was given on the command line.
    pub(crate) fn given(&self) -> bool {
        self.embedder.is_some()
            || self.embedder_url.is_some()
            || self.embedder_model.is_some()
            || self.models_dir.is_some()
    }

    /// Whether `--embedder-url` or `--embedder-model` is given without
    /// `--embedder http`: a usage error, said at once.
    pub(crate) fn check(&self) -> anyhow::Result<()> {
        let http = self.embedder == Some(EmbedderName::Http);
        if !http && (self.embedder_url.is_some() || self.embedder_model.is_some()) {
            anyhow::bail!(
                "--embedder-url and --embedder-model go with `--embedder http`; add it, or leave them out"
            );
        }
        if http && (self.embedder_url.is_none() || self.embedder_model.is_none()) {
            anyhow::bail!(
                "--embedder http needs --embedder-url URL and --embedder-model NAME (for Ollama: --embedder-url http://127.0.0.1:11434 --embedder-model nomic-embed-text)"
            );
        }
        let in_process = match self.embedder {
            Some(EmbedderName::Minilm) => Some("minilm"),
            Some(EmbedderName::Static) => Some("static"),
            _ => None,
        };
        if let Some(name) = in_process
            && !cfg!(feature = "semantic")
        {
            anyhow::bail!(
                "`--embedder {name}` runs a model in this process, and this quire was built without them (the `semantic` feature); rebuild it with `--features semantic`, or use `--embedder http`"
            );
        }
        Ok(())
    }

    /// The embedders installed after the best one, which a server keeps
    /// as faster tiers ([`quire_kiln::KilnOptions::fallback_embedders`]):
    /// none when `--embedder` names one.
    pub(crate) fn fallbacks(&self) -> Vec<EmbedderSource> {
        use quire_embed::{EmbedderChoice, default_models_dir};
        if self.embedder.is_some() {
            return Vec::new();
        }
        let models_dir = self.models_dir.clone().or_else(default_models_dir);
        EmbedderChoice::installed(models_dir.as_deref())
            .map(|installed| installed.into_iter().skip(1).map(source_of).collect())
            .unwrap_or_default()
    }

    /// The embedder asked for, or the best installed; what the server
    /// says when there is none (or when this build runs no model in
    /// process and none was asked for).
    pub(crate) fn source(&self) -> anyhow::Result<EmbedderSource> {
        use quire_embed::{EmbedderChoice, HttpEmbedderConfig, default_models_dir};
        self.check()?;
        let models_dir = self.models_dir.clone().or_else(default_models_dir);
        let choice = match self.embedder {
            Some(EmbedderName::None) => {
                return Ok(EmbedderSource::Unavailable(
                    "the server was started with `--embedder none`; restart it with `--embedder minilm` (after `quire models install`) to search by meaning, or use text_search".to_owned(),
                ));
            }
            Some(EmbedderName::Http) => {
                let mut config = HttpEmbedderConfig::new(
                    self.embedder_url.as_deref().unwrap_or_default(),
                    self.embedder_model.as_deref().unwrap_or_default(),
                );
                config.api_key = std::env::var(API_KEY_ENV)
                    .ok()
                    .filter(|key| !key.is_empty());
                EmbedderChoice::Http(config)
            }
            Some(name @ (EmbedderName::Minilm | EmbedderName::Static)) => match models_dir {
                Some(models_dir) if name == EmbedderName::Minilm => {
                    EmbedderChoice::MiniLm { models_dir }
                }
                Some(models_dir) => EmbedderChoice::Static { models_dir },
                None => match EmbedderChoice::best_installed(None) {
                    Ok(choice) => choice,
                    Err(why) => return Ok(EmbedderSource::Unavailable(why)),
                },
            },
            None => match EmbedderChoice::best_installed(models_dir.as_deref()) {
                Ok(choice) => choice,
                Err(why) => return Ok(EmbedderSource::Unavailable(why)),
            },
        };
        Ok(source_of(choice))
    }
}

/// The source that loads `choice` on the indexing thread.
fn source_of(choice: quire_embed::EmbedderChoice) -> EmbedderSource {
    EmbedderSource::Load {
        name: choice.name().to_owned(),
        load: std::sync::Arc::new(move || choice.load()),
    }
}
