//! What a panic looks like: one clean line on stderr and exit status 70.
//!
//! quire should never panic; if it does, the default hook would print the
//! panic's source location (a path of the machine that built quire) and, with
//! `RUST_BACKTRACE`, a backtrace full of registry paths. The hook installed
//! here prints one line instead: that quire hit a bug, the panic's message
//! (first line, escaped, paths left out) and what to do. `RUST_BACKTRACE=1`
//! adds Rust's own report after it, for whoever debugs quire.
//!
//! A panic on the main thread ends the command with [`INTERNAL_ERROR`]
//! ([`guard`]). A panic on another thread only prints the line: the MCP
//! server turns a tool that panicked into an `INTERNAL_ERROR` tool result
//! and keeps serving.

use std::panic::{self, AssertUnwindSafe, PanicHookInfo};
use std::process::ExitCode;

use quire_grammar::diagnostics::one_line;

use super::output;

/// The exit status of a command that panicked (`EX_SOFTWARE` of sysexits.h:
/// an internal software error).
pub(crate) const INTERNAL_ERROR: u8 = 70;

/// The longest panic message shown, in characters.
const MAX_MESSAGE_CHARS: usize = 300;

/// Installs the hook for every thread of the process.
pub(crate) fn install() {
    let rust_report = panic::take_hook();
    panic::set_hook(Box::new(move |info: &PanicHookInfo<'_>| {
        let main_thread = std::thread::current().name() == Some("main");
        output::stderr(&line(payload_text(info), main_thread));
        if std::env::var_os("RUST_BACKTRACE").is_some_and(|value| value != "0") {
            rust_report(info);
        }
    }));
}

/// Runs `command`; a panic in it ends in [`INTERNAL_ERROR`] (the hook has
/// printed the line already).
pub(crate) fn guard(command: impl FnOnce() -> ExitCode) -> ExitCode {
    panic::catch_unwind(AssertUnwindSafe(command))
        .unwrap_or_else(|_| ExitCode::from(INTERNAL_ERROR))
}

fn payload_text<'a>(info: &'a PanicHookInfo<'_>) -> Option<&'a str> {
    let payload = info.payload();
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
}

/// The one line printed for a panic with `message`.
pub(crate) fn line(message: Option<&str>, main_thread: bool) -> String {
    let what = message.map(clean).filter(|text| !text.is_empty());
    let what = what.map_or_else(String::new, |text| format!(": {text}"));
    if main_thread {
        format!(
            "error: quire stopped on an internal error{what}. This is a bug in quire (exit status {INTERNAL_ERROR}); please report it with the command that caused it"
        )
    } else {
        format!(
            "error: internal error in a quire worker thread{what}. The request it served failed; this is a bug in quire, please report it with the request that caused it"
        )
    }
}

/// The panic message as shown: its first line, without paths, control
/// characters escaped, at most [`MAX_MESSAGE_CHARS`] characters.
fn clean(message: &str) -> String {
    let first_line = message.lines().next().unwrap_or_default();
    let words: Vec<String> = first_line
        .split(' ')
        .map(|word| {
            let bare = word.trim_start_matches(['(', '[', '`', '\'', '"']);
            let is_path = bare.starts_with('/')
                || bare.starts_with("~/")
                || bare.starts_with("\\\\")
                || bare.get(1..3) == Some(":\\")
                || bare.contains("/src/")
                || bare.contains(".rs:");
            if is_path {
                "<path>".to_owned()
            } else {
                one_line(word).into_owned()
            }
        })
        .collect();
    let text = words.join(" ");
    match text.char_indices().nth(MAX_MESSAGE_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_names_the_bug_and_the_exit_status_without_paths() {
        let line = line(
            Some(
                "Formatting argument out of range at /root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/miette-7.6.0/src/handlers/graphical.rs:1159:22\nsecond line",
            ),
            true,
        );
        assert_eq!(
            line,
            "error: quire stopped on an internal error: Formatting argument out of range at <path>. This is a bug in quire (exit status 70); please report it with the command that caused it"
        );
        assert!(!line.contains('\n'));
    }

    #[test]
    fn worker_threads_do_not_claim_the_process_stopped() {
        let line = line(Some("index out of bounds"), false);
        assert!(
            line.starts_with(
                "error: internal error in a quire worker thread: index out of bounds."
            )
        );
        assert!(!line.contains("exit status"));
    }

    #[test]
    fn messages_are_escaped_shortened_and_optional() {
        let line = line(Some(&format!("bad \u{1b}[2J {}", "x".repeat(1000))), true);
        assert!(line.contains("bad \\u{1b}[2J xxx"));
        assert!(line.contains("…. This is a bug"));
        assert!(line.len() < 500, "{}", line.len());
        let without = super::line(None, true);
        assert!(without.starts_with("error: quire stopped on an internal error. This is a bug"));
        for path in ["C:\\Users\\me\\quire", "src/plan/parse.rs:12:3", "(/tmp/x)"] {
            assert_eq!(clean(path), "<path>", "{path}");
        }
    }

    #[test]
    fn a_panic_in_the_command_gives_the_internal_error_status() {
        // The default test hook prints the panic; the hook is not installed
        // here, as it would be for every test in the process.
        let status = guard(|| panic!("on purpose"));
        assert_eq!(status, ExitCode::from(INTERNAL_ERROR));
        assert_eq!(guard(|| ExitCode::from(1)), ExitCode::from(1));
    }
}
