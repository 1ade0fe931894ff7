//! Asking the person at the terminal to approve a write, for `quire call
//! --writes ask`.
//!
//! The question goes to the controlling terminal (`/dev/tty`), not to
//! stdin and stdout: stdin may hold the call's arguments and stdout the
//! result, and a call from a script with no terminal must not wait for an
//! answer no one can give (it is refused before the call instead).

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::sync::Arc;

use quire_cli::mcp::{ApprovalChoice, AskUser};

/// The terminal to ask on, when this process has one.
pub(super) fn terminal() -> Option<AskUser> {
    // Opened once to learn whether there is a terminal; each question
    // opens it again, so nothing is held between calls.
    File::options()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .ok()?;
    Some(Arc::new(|question: &str| ask_on_terminal(question)))
}

fn ask_on_terminal(question: &str) -> Option<ApprovalChoice> {
    let mut terminal = File::options()
        .read(true)
        .write(true)
        .open("/dev/tty")
        .ok()?;
    write!(terminal, "{question}\nApply this change? [y/N] ").ok()?;
    terminal.flush().ok()?;
    let mut answer = String::new();
    BufReader::new(terminal).read_line(&mut answer).ok()?;
    if answer.is_empty() {
        // End of input: nobody answered.
        return None;
    }
    Some(choice(&answer))
}

/// The choice a typed answer makes: yes approves, anything else denies.
fn choice(answer: &str) -> ApprovalChoice {
    match answer.trim().to_lowercase().as_str() {
        "y" | "yes" => ApprovalChoice::Once,
        _ => ApprovalChoice::Deny,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_yes_approves() {
        for yes in ["y", "Y\n", " yes \n", "YES"] {
            assert_eq!(choice(yes), ApprovalChoice::Once, "{yes:?}");
        }
        for no in ["", "\n", "n", "no", "yess", "ok", "y y"] {
            assert_eq!(choice(no), ApprovalChoice::Deny, "{no:?}");
        }
    }
}
