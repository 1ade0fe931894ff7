//! Reading the document a command works on, never more than a limit.
//!
//! A preset allows `max_input_length` characters; a character is at most 4
//! bytes in UTF-8, so a document of more than `4 * max_input_length + 3`
//! bytes (the 3 for a byte-order mark) is too long whatever it holds. At
//! most one byte more than that is read, from a file or from standard input,
//! so `quire check < /dev/zero` stops after 400 004 bytes; a text within the
//! byte limit is refused when it has more characters than the preset
//! allows. Both refusals come before parsing, as one line, with exit status
//! 1 (the document breaks a limit, as `plan::input_too_long` would say).

use std::io::{self, Read};
use std::path::Path;
use std::sync::Arc;

use quire_fs::FsError;
use quire_grammar::diagnostics::{Diagnostic, LineFeeds, Severity, escape_unprintable};
use quire_grammar::plan::{Code, ParserConfig, PlanDiagnostic};
use quire_grammar::span::Span;

use super::files::CliFile;
use super::output::io_words;

/// A document's text and the name to show for it in reports.
pub(super) struct Source {
    /// The file's name as given, or `<stdin>`, with control characters
    /// escaped: safe to print.
    pub name: String,
    /// The file it was read from, open (to rewrite it in place); `None`
    /// for standard input.
    pub file: Option<CliFile>,
    pub text: Arc<str>,
}

/// The document is longer than the preset allows: the command prints this
/// one line and exits with status 1 (with `--json`, the grammar's halting
/// diagnostic `plan::input_too_long`: [`TooLong::diagnostic`]).
#[derive(Debug, thiserror::Error)]
#[error("{what}: {HOW_TO_SHORTEN}")]
pub(super) struct TooLong {
    /// What is too long, and the limit.
    what: String,
}

/// What to do about a document that is too long.
const HOW_TO_SHORTEN: &str = "shorten the document, or split the plan into several changes";

impl TooLong {
    /// `name` has `count` characters, more than the `max_chars` the
    /// `preset` allows.
    pub(super) fn characters(name: &str, preset: &str, count: usize, max_chars: usize) -> TooLong {
        TooLong {
            what: format!("{name} has {count} characters; the {preset} preset allows {max_chars}"),
        }
    }

    /// The refusal as the plan grammar says it when it halts on a text
    /// over `max_input_length`: `plan::input_too_long`, an error at the
    /// start (the text was not read whole, so no later place is known).
    pub(super) fn diagnostic(&self) -> PlanDiagnostic {
        Diagnostic {
            code: Code::InputTooLong,
            severity: Severity::Error,
            message: self.what.clone(),
            label: "too long".to_owned(),
            help: HOW_TO_SHORTEN.to_owned(),
            span: Span::at(0),
            field: None,
        }
    }
}

/// How much a command may read, and the limit it enforces.
pub(super) struct Limit {
    /// The preset's name, for messages.
    preset: String,
    /// The preset's `max_input_length`, in characters.
    max_chars: usize,
    /// The most bytes read.
    max_bytes: u64,
}

/// The most bytes `check --git-message` reads: the editor's file can hold
/// a `git commit -v` diff below the scissors line, which git's cleanup drops
/// before the message is checked against the preset.
const GIT_MESSAGE_MAX_BYTES: u64 = 32 * 1024 * 1024;

impl Limit {
    /// The limit of a preset: `4 * max_input_length + 3` bytes.
    pub(super) fn of(preset: &str, config: &ParserConfig) -> Limit {
        let max_chars = config.max_input_length;
        let max_bytes = u64::try_from(max_chars)
            .unwrap_or(u64::MAX)
            .saturating_mul(4)
            .saturating_add(3);
        Limit {
            preset: preset.to_owned(),
            max_chars,
            max_bytes,
        }
    }

    /// A git commit message file: read up to [`GIT_MESSAGE_MAX_BYTES`] (at
    /// least the preset's byte limit); check the characters of the message
    /// after git's cleanup, with [`Limit::check_length`].
    pub(super) fn for_git_message(self) -> Limit {
        Limit {
            max_bytes: self.max_bytes.max(GIT_MESSAGE_MAX_BYTES),
            ..self
        }
    }

    /// The refusal of a document longer than the byte limit.
    fn too_many_bytes(&self, name: &str) -> TooLong {
        TooLong {
            what: format!(
                "{name} is longer than {} bytes, so it has more than the {} characters the {} preset allows",
                self.max_bytes, self.max_chars, self.preset
            ),
        }
    }

    /// Refuses `text` when it has more characters than the preset allows.
    pub(super) fn check_length(&self, name: &str, text: &str) -> Result<(), TooLong> {
        if text.len() <= self.max_chars {
            return Ok(());
        }
        let count = text.chars().count();
        if count <= self.max_chars {
            return Ok(());
        }
        Err(TooLong::characters(
            name,
            &self.preset,
            count,
            self.max_chars,
        ))
    }
}

/// Reads `file` (standard input for `None` or `-`) as UTF-8 text of at most
/// `limit.max_bytes` bytes. The character count is not checked here: see
/// [`read`].
pub(super) fn read_bytes_limited(file: Option<&Path>, limit: &Limit) -> anyhow::Result<Source> {
    let (name, file, bytes) = match file {
        Some(path) if path.as_os_str() != "-" => {
            let name =
                escape_unprintable(&path.display().to_string(), LineFeeds::Escape).into_owned();
            // Through the confined file layer: a regular file only, opened
            // without blocking, read no further than the limit.
            let file = CliFile::open(path)?;
            let bytes = match file.read(limit.max_bytes) {
                Ok(bytes) => bytes,
                Err(FsError::TooLarge { .. }) => return Err(limit.too_many_bytes(&name).into()),
                Err(error) => return Err(error.into()),
            };
            (name, Some(file), bytes)
        }
        _ => {
            let bytes = read_at_most(io::stdin().lock(), limit.max_bytes).map_err(|error| {
                anyhow::anyhow!("cannot read standard input: {}", io_words(&error))
            })?;
            ("<stdin>".to_owned(), None, bytes)
        }
    };
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > limit.max_bytes {
        return Err(limit.too_many_bytes(&name).into());
    }
    let text = match String::from_utf8(bytes) {
        Ok(text) => text,
        Err(error) => {
            let offset = error.utf8_error().valid_up_to();
            anyhow::bail!(
                "{name} is not UTF-8 text (invalid byte at offset {offset}); plan documents must be UTF-8"
            )
        }
    };
    Ok(Source {
        name,
        file,
        text: text.into(),
    })
}

/// Reads `file` (standard input for `None` or `-`) and refuses it, before
/// anything parses it, when it is longer than `limit` allows.
pub(super) fn read(file: Option<&Path>, limit: &Limit) -> anyhow::Result<Source> {
    let source = read_bytes_limited(file, limit)?;
    limit.check_length(&source.name, &source.text)?;
    Ok(source)
}

/// At most `max_bytes + 1` bytes of `reader`.
fn read_at_most(reader: impl Read, max_bytes: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader
        .take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_byte_limit_follows_the_preset() {
        let limit = Limit::of("commit-message", &ParserConfig::COMMIT_MESSAGE);
        assert_eq!((limit.max_chars, limit.max_bytes), (100_000, 400_003));
        let strict = Limit::of("strict", &ParserConfig::STRICT);
        assert_eq!(strict.max_bytes, 40_003);
        assert_eq!(strict.for_git_message().max_bytes, GIT_MESSAGE_MAX_BYTES);
    }

    #[test]
    fn reading_stops_one_byte_past_the_limit() {
        let endless = io::repeat(b'a');
        assert_eq!(read_at_most(endless, 10).unwrap().len(), 11);
        assert_eq!(read_at_most(&b"abc"[..], 10).unwrap(), b"abc");
    }

    #[test]
    fn characters_are_counted_not_bytes() {
        let limit = Limit::of(
            "strict",
            &ParserConfig {
                max_input_length: 3,
                ..ParserConfig::STRICT
            },
        );
        assert!(limit.check_length("x", "ééé").is_ok());
        let error = limit.check_length("x", "éééé").unwrap_err();
        assert_eq!(
            error.to_string(),
            "x has 4 characters; the strict preset allows 3: shorten the document, or split the plan into several changes"
        );
    }
}
