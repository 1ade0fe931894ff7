//! Progress bars on stderr, drawn only when stderr is a terminal: a long
//! download, distillation or indexing shows how far it has come to a
//! person watching, and writes nothing into a log or a pipe.

use std::io::{self, IsTerminal};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Whether stderr is a terminal (someone may be watching).
pub(crate) fn stderr_is_terminal() -> bool {
    io::stderr().is_terminal()
}

/// A bar of `length` steps (a spinner when the length is unknown) showing
/// `message`, drawn with `template` (indicatif's syntax; the default bar
/// if it does not parse), on stderr when it is a terminal and nowhere
/// otherwise.
pub(crate) fn bar(length: Option<u64>, message: &'static str, template: &str) -> ProgressBar {
    let target = if stderr_is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::hidden()
    };
    let bar = ProgressBar::with_draw_target(length, target);
    let style = ProgressStyle::with_template(template).unwrap_or_else(|_| match length {
        Some(_) => ProgressStyle::default_bar(),
        None => ProgressStyle::default_spinner(),
    });
    bar.set_style(style);
    bar.set_message(message);
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bar_off_a_terminal_draws_nothing_and_counts() {
        let bar = bar(Some(10), "working", "{msg} {wide_bar} {pos}/{len}");
        bar.inc(3);
        assert_eq!((bar.position(), bar.length()), (3, Some(10)));
        if !stderr_is_terminal() {
            assert!(bar.is_hidden());
        }
        let spinner = bar_without_length();
        assert_eq!(spinner.length(), None);
    }

    fn bar_without_length() -> ProgressBar {
        bar(None, "waiting", "{msg} {spinner}")
    }
}
