//! `quire models distill`: the `static` embedder's table, distilled once
//! from the installed `minilm` model the way Model2Vec distils a sentence
//! transformer: every token of its WordPiece vocabulary goes through BERT
//! alone (as `[CLS] token [SEP]`), and the three outputs, mean-pooled, are
//! that token's row. A text's static vector is then the mean of its tokens'
//! rows (`super::static_table`): no model at query or indexing time.
//!
//! The result is a Model2Vec folder that `model2vec-rs` (and Python's
//! `model2vec`) loads: `model.safetensors` (tensor `embeddings`,
//! `[vocabulary, 384]` f32, plus `empty`, the vector of a text with no known
//! token: BERT over `[CLS] [SEP]`, what `minilm` gives an empty text,
//! centered like the rows), the
//! MiniLM `tokenizer.json` without its padding and truncation (a static
//! model pools every token), a `config.json` as Model2Vec writes it, and a
//! manifest ([`MANIFEST_FILE`]) naming the SHA-256 of the MiniLM weights it
//! came from and of the table, so a changed MiniLM makes the table stale and
//! a damaged table is noticed.
//!
//! Then two of Model2Vec's post-processing steps (`post_process`), which
//! the evaluation set (tests/semantic_eval_static.rs, 91 queries) showed to
//! matter: the mean row is subtracted from every row (the centering of
//! Model2Vec's PCA; the rotation that follows does not change a cosine), and
//! each row is weighted by its token's rarity (SIF, `1e-4 / (1e-4 + p)` with
//! `p` a Zipf frequency from the token's rank in the vocabulary, Model2Vec's
//! default), so that "the" and "##s" weigh little in a mean. Recall@5 / MRR@10
//! measured: raw rows 0.500 / 0.342, centered 0.571 / 0.395, SIF 0.648 /
//! 0.485, both 0.659 / 0.506 (kept). PCA's reduction to 256 dimensions, on
//! top, measured 0.698 / 0.522, but 0.665 at 192 or 320: within the noise of
//! 91 queries, and it would take a hand-written eigendecomposition, so the
//! table keeps MiniLM's 384 dimensions. A SIF coefficient of 1e-5 measured
//! 0.709 / 0.583, but tuning it on the evaluation set would overfit it:
//! Model2Vec's default is kept.
//!
//! The folder is written under a temporary name beside the final one and
//! renamed into place when complete, so a killed distillation leaves no
//! half table (at worst a `.tmp` folder, removed by the next run). This
//! works in the user's models folder, outside any kiln root, with plain
//! `std::fs` (`super::models` says why).
//!
//! It takes a minute or so: [`distill_static`] reports how far it has come
//! to a callback ([`DistillProgress`]), which the `quire` binary turns
//! into a progress bar; this crate draws nothing.

use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::time::Instant;

use candle_core::{Device, Tensor};
use sha2::{Digest, Sha256};

use super::models::{self, DISTILL_COMMAND, INSTALL_COMMAND, MANIFEST_FILE, MINILM_DIR};
use super::{EmbedError, MiniLm};

/// The version of the manifest's layout.
const MANIFEST_FORMAT: u32 = 1;

/// How the rows are made, recorded in the manifest and in the embedder's
/// id: BERT over `[CLS] token [SEP]`, mean-pooled, then centered and
/// SIF-weighted with coefficient 1e-4 (`post_process`). A new recipe
/// makes every table stale.
pub const RECIPE: &str = "mean-centered-sif1e-4";

/// Model2Vec's default SIF coefficient: a token's weight is
/// `SIF / (SIF + p)`, `p` its estimated frequency.
const SIF: f64 = 1e-4;

/// How many tokens go through BERT at once (sequences of 3: a batch of 512
/// is a few MB of activations).
const BATCH: usize = 512;

/// The Model2Vec `config.json` (what `model2vec` 0.4+ writes; `normalize`
/// is the one field `model2vec-rs` reads).
const CONFIG_JSON: &str = r#"{
  "model_type": "model2vec",
  "architectures": ["StaticModel"],
  "tokenizer_name": "sentence-transformers/all-MiniLM-L6-v2",
  "apply_pca": null,
  "apply_zipf": false,
  "hidden_dim": 384,
  "seq_length": 1000000,
  "normalize": true
}
"#;

/// The static folder's manifest: where the table came from and how.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Manifest {
    /// [`MANIFEST_FORMAT`].
    pub(crate) format: u32,
    /// The source model's folder name ([`MINILM_DIR`]).
    pub(crate) source: String,
    /// The SHA-256 of the source's `model.safetensors`.
    pub(crate) source_sha256: String,
    /// [`RECIPE`].
    pub(crate) recipe: String,
    /// The SHA-256 of this folder's `model.safetensors`.
    pub(crate) table_sha256: String,
    /// Rows of the table.
    pub(crate) vocabulary: usize,
    /// Columns of the table.
    pub(crate) dimension: usize,
}

impl Manifest {
    /// The manifest in `dir`, `None` when it is missing or unreadable.
    pub(crate) fn read(dir: &Path) -> Option<Manifest> {
        let bytes = fs::read(dir.join(MANIFEST_FILE)).ok()?;
        serde_json::from_slice(&bytes).ok()
    }
}

/// A distillation's failure.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DistillError {
    /// The `minilm` model is not installed in the models folder.
    #[error(
        "the minilm model, which the static table is distilled from, is not installed in {models_dir}: run `{install}` first, then `{distill}` again"
    )]
    MiniLmMissing {
        /// The models folder.
        models_dir: PathBuf,
        /// The exact install command for that folder.
        install: String,
        /// The exact distill command for that folder.
        distill: String,
    },
    /// The `minilm` model is there but does not load or run.
    #[error("cannot distill from the minilm model: {0}")]
    MiniLm(String),
    /// Reading or writing the models folder failed.
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

/// What [`distill_static`] did.
#[derive(Clone, Debug, PartialEq)]
pub struct DistillReport {
    /// The static folder.
    pub dir: PathBuf,
    /// `true` when a fresh table was already there and nothing was done.
    pub already_fresh: bool,
    /// Tokens run through the model (0 when already fresh).
    pub tokens: usize,
    /// Seconds the distillation took (0 when already fresh).
    pub seconds: f64,
}

/// How far a distillation has come: reported before the first batch of
/// tokens goes through the model and after each one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DistillProgress {
    /// Tokens run through the model so far.
    pub done: usize,
    /// Tokens to run through it: the whole vocabulary.
    pub total: usize,
}

/// The exact `quire models <verb>` command for `models_dir`: plain when it
/// is the default folder, else with `--models-dir`.
fn command_for(verb_command: &str, models_dir: &Path) -> String {
    if models::default_models_dir().as_deref() == Some(models_dir) {
        verb_command.to_owned()
    } else {
        format!("{verb_command} --models-dir {}", models_dir.display())
    }
}

/// Distils the `static` table from the `minilm` model in `models_dir` into
/// [`models::static_dir`]`(models_dir)`, unless a fresh one is there
/// (made by this [`RECIPE`] from the same MiniLM weights, and intact).
/// `progress` hears how far it has come while the tokens go through the
/// model (not at all when a fresh table is there).
///
/// ```no_run
/// use quire_embed::{default_models_dir, distill::distill_static};
///
/// let models = default_models_dir().expect("a models folder");
/// let report = distill_static(&models, |progress| {
///     eprint!("\r{}/{} tokens", progress.done, progress.total);
/// })?;
/// println!("{} in {:.0} s", report.dir.display(), report.seconds);
/// # Ok::<(), quire_embed::distill::DistillError>(())
/// ```
pub fn distill_static(
    models_dir: &Path,
    progress: impl FnMut(DistillProgress),
) -> Result<DistillReport, DistillError> {
    let source_dir = models::minilm_dir(models_dir);
    let dir = models::static_dir(models_dir);
    let missing = || DistillError::MiniLmMissing {
        models_dir: models_dir.to_owned(),
        install: command_for(INSTALL_COMMAND, models_dir),
        distill: command_for(DISTILL_COMMAND, models_dir),
    };
    let source_weights = source_dir.join("model.safetensors");
    if !source_weights.is_file() {
        return Err(missing());
    }
    // Fresh is checked before BERT is loaded, so a second run returns at once.
    let source_sha256 = file_sha256(&source_weights)?;
    let fresh = |dir: PathBuf| DistillReport {
        dir,
        already_fresh: true,
        tokens: 0,
        seconds: 0.0,
    };
    if is_fresh(&dir, &source_sha256) {
        return Ok(fresh(dir));
    }
    // One distillation at a time per models folder: one started meanwhile
    // waits here, then finds the table fresh (they would otherwise share
    // the temporary folder). Released when `_lock` is dropped.
    let _lock = lock_models_dir(models_dir)?;
    if is_fresh(&dir, &source_sha256) {
        return Ok(fresh(dir));
    }
    let minilm = match MiniLm::load(&source_dir) {
        Ok(minilm) => minilm,
        Err(EmbedError::NotInstalled { .. }) => return Err(missing()),
        Err(error) => return Err(DistillError::MiniLm(error.to_string())),
    };

    let started = Instant::now();
    let tokenizer = minilm.tokenizer();
    let vocabulary = tokenizer.get_vocab_size(true);
    let special = |token: &str| {
        tokenizer.token_to_id(token).ok_or_else(|| {
            DistillError::MiniLm(format!(
                "its tokenizer has no {token} token; reinstall it with `{INSTALL_COMMAND}`"
            ))
        })
    };
    let (cls, sep) = (special("[CLS]")?, special("[SEP]")?);
    let mut table = token_table(&minilm, vocabulary, cls, sep, progress)?;
    let mut empty = minilm
        .mean_pooled(&[&[cls, sep]])
        .map_err(|error| DistillError::MiniLm(error.to_string()))?
        .remove(0);
    let dimension = empty.len();
    post_process(&mut table, &mut empty);

    let tokenizer_json = static_tokenizer_json(&source_dir)?;
    write_folder(models_dir, &dir, |temporary| {
        let table_path = temporary.join("model.safetensors");
        save_table(&table_path, table, vocabulary, empty)?;
        let manifest = Manifest {
            format: MANIFEST_FORMAT,
            source: MINILM_DIR.to_owned(),
            source_sha256: source_sha256.clone(),
            recipe: RECIPE.to_owned(),
            table_sha256: file_sha256(&table_path)?,
            vocabulary,
            dimension,
        };
        write(&temporary.join("tokenizer.json"), tokenizer_json.as_bytes())?;
        write(&temporary.join("config.json"), CONFIG_JSON.as_bytes())?;
        let manifest = serde_json::to_vec_pretty(&manifest).expect("a manifest serializes");
        write(&temporary.join(MANIFEST_FILE), &manifest)
    })?;
    Ok(DistillReport {
        dir,
        already_fresh: false,
        tokens: vocabulary,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Whether `dir` holds a table of this recipe, from the MiniLM weights with
/// SHA-256 `source_sha256`, whose `model.safetensors` is the one its
/// manifest names.
fn is_fresh(dir: &Path, source_sha256: &str) -> bool {
    let Some(manifest) = Manifest::read(dir) else {
        return false;
    };
    manifest.format == MANIFEST_FORMAT
        && manifest.recipe == RECIPE
        && manifest.source_sha256 == source_sha256
        && ["tokenizer.json", "config.json"]
            .iter()
            .all(|name| dir.join(name).is_file())
        && file_sha256(&dir.join("model.safetensors")).ok() == Some(manifest.table_sha256)
}

/// Every token of the vocabulary through BERT as `[CLS] token [SEP]`,
/// mean-pooled: `vocabulary` rows, row-major. `progress` hears of each
/// batch.
fn token_table(
    minilm: &MiniLm,
    vocabulary: usize,
    cls: u32,
    sep: u32,
    mut progress: impl FnMut(DistillProgress),
) -> Result<Vec<f32>, DistillError> {
    let mut done = DistillProgress {
        done: 0,
        total: vocabulary,
    };
    progress(done);
    let mut table = Vec::new();
    let ids: Vec<u32> = (0..vocabulary as u32).collect();
    for chunk in ids.chunks(BATCH) {
        let sequences: Vec<[u32; 3]> = chunk.iter().map(|&id| [cls, id, sep]).collect();
        let batch: Vec<&[u32]> = sequences.iter().map(|sequence| &sequence[..]).collect();
        let rows = minilm
            .mean_pooled(&batch)
            .map_err(|error| DistillError::MiniLm(error.to_string()))?;
        rows.into_iter().for_each(|row| table.extend(row));
        done.done += chunk.len();
        progress(done);
    }
    Ok(table)
}

/// Model2Vec's post-processing, minus PCA's rotation and reduction: the
/// mean row is subtracted from every row and from `empty` (the vector of a
/// text without tokens, which is not weighted), and row `i` is multiplied by
/// `SIF / (SIF + p(i))`, where `p(i)` is the Zipf frequency of rank `i`
/// (proportional to `1 / (i + 2)`, summing to 1): WordPiece vocabularies
/// list frequent tokens first, so early rows weigh less in a mean.
fn post_process(table: &mut [f32], empty: &mut [f32]) {
    let dimension = empty.len();
    if dimension == 0 {
        return;
    }
    let rows = table.len() / dimension;
    let mut mean = vec![0f64; dimension];
    for row in table.chunks_exact(dimension) {
        mean.iter_mut()
            .zip(row)
            .for_each(|(m, &x)| *m += f64::from(x));
    }
    mean.iter_mut().for_each(|m| *m /= rows.max(1) as f64);
    let zipf_total: f64 = (0..rows).map(|rank| 1.0 / (rank as f64 + 2.0)).sum();
    for (rank, row) in table.chunks_exact_mut(dimension).enumerate() {
        let frequency = 1.0 / (rank as f64 + 2.0) / zipf_total;
        let weight = SIF / (SIF + frequency);
        for (x, m) in row.iter_mut().zip(&mean) {
            *x = ((f64::from(*x) - m) * weight) as f32;
        }
    }
    for (x, m) in empty.iter_mut().zip(&mean) {
        *x = (f64::from(*x) - m) as f32;
    }
}

/// MiniLM's `tokenizer.json` with padding and truncation off: it pads every
/// text to 128 tokens, and a static model would average the padding in.
fn static_tokenizer_json(source_dir: &Path) -> Result<String, DistillError> {
    let path = source_dir.join("tokenizer.json");
    let bytes = fs::read(&path).map_err(|error| DistillError::Io {
        action: "cannot read",
        path: path.clone(),
        error,
    })?;
    let mut json: serde_json::Value = serde_json::from_slice(&bytes).map_err(|error| {
        DistillError::MiniLm(format!(
            "{} is not JSON ({error}); reinstall it with `{INSTALL_COMMAND}`",
            path.display()
        ))
    })?;
    let Some(object) = json.as_object_mut() else {
        return Err(DistillError::MiniLm(format!(
            "{} is not a tokenizer; reinstall it with `{INSTALL_COMMAND}`",
            path.display()
        )));
    };
    object.insert("padding".to_owned(), serde_json::Value::Null);
    object.insert("truncation".to_owned(), serde_json::Value::Null);
    Ok(serde_json::to_string(&json).expect("JSON serializes"))
}

/// Writes the table and the empty text's vector as safetensors.
fn save_table(
    path: &Path,
    table: Vec<f32>,
    vocabulary: usize,
    empty: Vec<f32>,
) -> Result<(), DistillError> {
    let dimension = empty.len();
    let to_io = |error: candle_core::Error| DistillError::Io {
        action: "cannot write",
        path: path.to_owned(),
        error: io::Error::other(error.to_string()),
    };
    let embeddings =
        Tensor::from_vec(table, (vocabulary, dimension), &Device::Cpu).map_err(to_io)?;
    let empty = Tensor::from_vec(empty, dimension, &Device::Cpu).map_err(to_io)?;
    candle_core::safetensors::save(
        &std::collections::HashMap::from([("embeddings", embeddings), ("empty", empty)]),
        path,
    )
    .map_err(to_io)
}

/// Fills a temporary folder beside `dir` with `fill`, then puts it in
/// `dir`'s place (an older `dir` is moved aside first and removed after).
fn write_folder(
    models_dir: &Path,
    dir: &Path,
    fill: impl FnOnce(&Path) -> Result<(), DistillError>,
) -> Result<(), DistillError> {
    let name = models::STATIC_DIR;
    let temporary = models_dir.join(format!(".{name}.tmp"));
    let old = models_dir.join(format!(".{name}.old"));
    for leftover in [&temporary, &old] {
        remove_dir(leftover)?;
    }
    fs::create_dir_all(&temporary).map_err(|error| DistillError::Io {
        action: "cannot create the folder",
        path: temporary.clone(),
        error,
    })?;
    if let Err(error) = fill(&temporary) {
        let _ = fs::remove_dir_all(&temporary);
        return Err(error);
    }
    let rename = |from: &Path, to: &Path| {
        fs::rename(from, to).map_err(|error| DistillError::Io {
            action: "cannot rename into place",
            path: to.to_owned(),
            error,
        })
    };
    if dir.exists() {
        rename(dir, &old)?;
    }
    rename(&temporary, dir)?;
    remove_dir(&old)
}

/// An exclusive lock on `models_dir`'s distillation (an advisory lock on
/// a file beside the table, held until the file is dropped).
fn lock_models_dir(models_dir: &Path) -> Result<fs::File, DistillError> {
    let path = models_dir.join(format!(".{}.lock", models::STATIC_DIR));
    let to_io = |error| DistillError::Io {
        action: "cannot lock",
        path: path.clone(),
        error,
    };
    let file = fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(to_io)?;
    file.lock().map_err(to_io)?;
    Ok(file)
}

fn remove_dir(dir: &Path) -> Result<(), DistillError> {
    match fs::remove_dir_all(dir) {
        Err(error) if error.kind() != io::ErrorKind::NotFound => Err(DistillError::Io {
            action: "cannot remove",
            path: dir.to_owned(),
            error,
        }),
        _ => Ok(()),
    }
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), DistillError> {
    fs::write(path, bytes).map_err(|error| DistillError::Io {
        action: "cannot write",
        path: path.to_owned(),
        error,
    })
}

/// The SHA-256 of the file at `path`, lowercase hex.
pub(crate) fn file_sha256(path: &Path) -> Result<String, DistillError> {
    let io_error = |error| DistillError::Io {
        action: "cannot read",
        path: path.to_owned(),
        error,
    };
    let mut file = fs::File::open(path).map_err(io_error)?;
    sha256_of(&mut file).map_err(io_error)
}

/// The SHA-256 of everything `reader` yields, lowercase hex.
fn sha256_of(reader: &mut dyn Read) -> io::Result<String> {
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
    }
    Ok(hasher
        .finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The CLI prints an error and its sources joined by `: `: the I/O
    /// error is the source, so the message must not repeat it. (The
    /// install's errors, in the quire binary, are checked there.)
    #[test]
    fn an_io_error_is_said_once_along_the_chain() {
        let denied = || io::Error::new(io::ErrorKind::PermissionDenied, "denied");
        let path = || PathBuf::from("/models/x");
        let errors: [Box<dyn std::error::Error>; 1] = [Box::new(DistillError::Io {
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
    fn without_minilm_it_says_to_install_it_first_in_that_folder() {
        let models_dir = tempfile::tempdir().unwrap();
        let mut heard = Vec::new();
        let error = distill_static(models_dir.path(), |progress| heard.push(progress)).unwrap_err();
        let message = error.to_string();
        assert!(
            matches!(error, DistillError::MiniLmMissing { .. }),
            "{message}"
        );
        let install = format!(
            "run `quire models install --models-dir {}` first",
            models_dir.path().display()
        );
        assert!(message.contains(&install), "{message}");
        assert!(!models::static_dir(models_dir.path()).exists());
        assert!(heard.is_empty(), "nothing was distilled: {heard:?}");
    }

    #[test]
    fn post_processing_centers_and_weighs_rare_tokens_more() {
        // Three rows of two columns; the mean row is [2, 20].
        let mut table = vec![1.0, 10.0, 2.0, 20.0, 3.0, 30.0];
        let mut empty = vec![2.0, 21.0];
        post_process(&mut table, &mut empty);
        assert_eq!(empty, [0.0, 1.0], "centered, not weighted");
        // Zipf frequencies of ranks 0, 1, 2: 1/2, 1/3, 1/4 over their sum.
        let total = 1.0 / 2.0 + 1.0 / 3.0 + 1.0 / 4.0;
        let weight = |rank: f64| SIF / (SIF + 1.0 / (rank + 2.0) / total);
        let expected = [
            -weight(0.0),
            -10.0 * weight(0.0),
            0.0,
            0.0,
            weight(2.0),
            10.0 * weight(2.0),
        ];
        for (got, want) in table.iter().zip(expected) {
            assert!((f64::from(*got) - want).abs() < 1e-9, "{table:?}");
        }
        assert!(weight(2.0) > weight(0.0));
        // Nothing to do on nothing.
        post_process(&mut [], &mut []);
    }

    #[test]
    fn a_failed_fill_leaves_neither_a_table_nor_a_temporary_folder() {
        let models_dir = tempfile::tempdir().unwrap();
        let dir = models::static_dir(models_dir.path());
        let error = write_folder(models_dir.path(), &dir, |temporary| {
            write(&temporary.join("config.json"), b"{}")?;
            Err(DistillError::MiniLm("killed".to_owned()))
        })
        .unwrap_err();
        assert!(error.to_string().contains("killed"));
        assert_eq!(fs::read_dir(models_dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_new_folder_replaces_the_old_one_whole() {
        let models_dir = tempfile::tempdir().unwrap();
        let dir = models::static_dir(models_dir.path());
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("stale"), b"old").unwrap();
        // A leftover of a killed run is cleared, not mixed in.
        let leftover = models_dir
            .path()
            .join(format!(".{}.tmp", models::STATIC_DIR));
        fs::create_dir_all(&leftover).unwrap();
        fs::write(leftover.join("half"), b"half").unwrap();
        write_folder(models_dir.path(), &dir, |temporary| {
            write(&temporary.join("new"), b"new")
        })
        .unwrap();
        let names: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(names, ["new"]);
        assert_eq!(fs::read_dir(models_dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn sha256_is_the_known_digest_in_lowercase_hex() {
        assert_eq!(
            sha256_of(&mut &b"abc"[..]).unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn a_table_is_fresh_only_with_its_source_recipe_and_intact_file() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path();
        for name in ["tokenizer.json", "config.json", "model.safetensors"] {
            fs::write(dir.join(name), name).unwrap();
        }
        let manifest = Manifest {
            format: MANIFEST_FORMAT,
            source: MINILM_DIR.to_owned(),
            source_sha256: "aa".to_owned(),
            recipe: RECIPE.to_owned(),
            table_sha256: file_sha256(&dir.join("model.safetensors")).unwrap(),
            vocabulary: 1,
            dimension: 1,
        };
        let write_manifest = |manifest: &Manifest| {
            fs::write(
                dir.join(MANIFEST_FILE),
                serde_json::to_vec(manifest).unwrap(),
            )
            .unwrap()
        };
        write_manifest(&manifest);
        assert!(is_fresh(dir, "aa"));
        assert!(!is_fresh(dir, "bb"), "another MiniLM");
        write_manifest(&Manifest {
            recipe: "other".to_owned(),
            ..manifest.clone()
        });
        assert!(!is_fresh(dir, "aa"), "another recipe");
        write_manifest(&manifest);
        fs::write(dir.join("model.safetensors"), "damaged").unwrap();
        assert!(!is_fresh(dir, "aa"), "a damaged table");
        fs::write(dir.join(MANIFEST_FILE), "{").unwrap();
        assert!(!is_fresh(dir, "aa"), "an unreadable manifest");
    }
}
