//! Everything the commands write.
//!
//! Standard output goes through [`stdout`]: when its reader has gone (`quire
//! parse --json | head -c 10`), the command stops printing and ends quietly
//! with status 0, as any Unix tool does, instead of panicking on the broken
//! pipe. Standard error goes through [`stderr`], which never fails: a closed
//! stderr loses the message but not the exit status.
//!
//! User text never reaches a terminal raw: the parse outline and every
//! message escape control characters (`quire_grammar::diagnostics::escape_unprintable`)
//! wherever they are written, as do rendered reports; JSON escapes them as
//! `\u` escapes ([`json`]). Only the formatted document of `quire fmt` is
//! written byte for byte, unless standard output is a terminal ([`document`]).

use std::io::{self, IsTerminal, Write};

use quire_grammar::diagnostics::{LineFeeds, escape_unprintable, is_unprintable};

/// Standard output was closed by its reader: the command ends quietly with
/// status 0.
#[derive(Debug, thiserror::Error)]
#[error("standard output was closed")]
pub(super) struct Closed;

/// An I/O error in words: the library's words for what the system
/// reported ([`quire_fs::describe`]), or the message of an error that quire
/// or a library made rather than the system; never `(os error N)`.
pub(super) fn io_words(error: &io::Error) -> String {
    match error.get_ref() {
        Some(made) if error.raw_os_error().is_none() => without_os_error_codes(&made.to_string()),
        _ => quire_fs::describe(error),
    }
}

/// `text` without the ` (os error N)` that Rust appends to system errors.
pub(super) fn without_os_error_codes(text: &str) -> String {
    const MARK: &str = " (os error ";
    let mut rest = text;
    let mut kept = String::with_capacity(text.len());
    while let Some(at) = rest.find(MARK) {
        let after = &rest[at + MARK.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && after[digits..].starts_with(')') {
            kept.push_str(&rest[..at]);
            rest = &after[digits + 1..];
        } else {
            kept.push_str(&rest[..at + MARK.len()]);
            rest = after;
        }
    }
    kept.push_str(rest);
    kept
}

/// Writes `text` to standard output as it is.
pub(super) fn stdout(text: &str) -> anyhow::Result<()> {
    let mut out = io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => Err(Closed.into()),
        Err(error) => Err(anyhow::anyhow!(
            "cannot write to standard output: {}",
            io_words(&error)
        )),
    }
}

/// `value` as pretty JSON and a line feed, on standard output.
pub(super) fn stdout_json(value: &serde_json::Value) -> anyhow::Result<()> {
    stdout(&(json(value) + "\n"))
}

/// A document (`quire fmt`'s output) on standard output: byte for byte into
/// a pipe or a file, its control characters escaped on a terminal, where
/// they would act rather than show.
pub(super) fn document(text: &str) -> anyhow::Result<()> {
    if io::stdout().is_terminal() {
        stdout(&escape_unprintable(text, LineFeeds::Keep))
    } else {
        stdout(text)
    }
}

/// `value` as pretty JSON in which every character that would steer a
/// terminal is a `\u` escape. serde_json escapes the C0 controls itself;
/// DEL, the C1 controls, the line separators and the bidirectional controls
/// are valid raw in JSON, so they are escaped here. They can only occur
/// inside strings, where the escape means the same character: the value
/// read back is the same.
pub(super) fn json(value: &serde_json::Value) -> String {
    let text = serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string());
    escape_json(text)
}

/// `value` as JSON on one line, escaped as [`json`] escapes it: one record
/// of a stream (`quire check --range --json` prints a commit a line).
pub(super) fn json_line(value: &serde_json::Value) -> String {
    escape_json(value.to_string())
}

/// JSON text with every character that would steer a terminal as a `\u`
/// escape (see [`json`]).
fn escape_json(text: String) -> String {
    if !text.chars().any(is_unprintable) {
        return text;
    }
    let mut escaped = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if is_unprintable(c) {
            escaped.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            escaped.push(c);
        }
    }
    escaped
}

/// Writes `text` (already safe to show) and a line feed to standard error,
/// ignoring a closed stderr.
pub(super) fn stderr(text: &str) {
    let mut err = io::stderr().lock();
    let _ = writeln!(err, "{text}");
}

/// Writes a message that may hold user text to standard error, its control
/// characters escaped.
pub(super) fn message(text: &str) {
    stderr(&escape_unprintable(text, LineFeeds::Keep));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_escapes_what_serde_json_leaves_raw_and_reads_back_the_same() {
        let value = serde_json::json!({
            "title": "a\u{1b}[2J b\u{7f} c\u{9b}31m d\u{2028}e \u{202e}f é\t"
        });
        let text = json(&value);
        assert!(!text.chars().any(is_unprintable), "{text:?}");
        assert!(text.contains(r"\u001b[2J b\u007f c\u009b31m d\u2028e \u202ef é\t"));
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back, value);
    }

    #[test]
    fn os_errors_are_described_in_words() {
        let error = io::Error::from_raw_os_error(21);
        assert_eq!(io_words(&error), "it is a folder, not a file");
        let error = io::Error::from_raw_os_error(2);
        assert_eq!(io_words(&error), "not found");
        let custom = io::Error::other("the root is not a folder");
        assert_eq!(io_words(&custom), "the root is not a folder");
        let bare = io::Error::from(io::ErrorKind::BrokenPipe);
        assert_eq!(io_words(&bare), "broken pipe");
        for code in 1..140 {
            let words = io_words(&io::Error::from_raw_os_error(code));
            assert!(!words.contains("os error"), "{code}: {words}");
        }
        assert_eq!(
            without_os_error_codes("a: Is a directory (os error 21); b (os error x)"),
            "a: Is a directory; b (os error x)"
        );
    }
}
