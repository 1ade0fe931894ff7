//! The kiln's errors as an agent reads them. The kiln says what is wrong
//! and what to do about it, in its own terms ("change the existing note
//! instead"); only the MCP layer knows its tools, so it adds the one that
//! does it.

use quire_kiln::{KilnError, WriteRefusal};

/// The message of `error` for an agent: the kiln's, with the tool that
/// does what it asks, where one does.
pub(super) fn agent_message(error: &KilnError) -> String {
    let message = error.to_string();
    match tool_to_use(error) {
        Some(tool) => format!("{message} (use {tool})"),
        None => message,
    }
}

/// The tool an agent calls to do what `error`'s message asks for.
fn tool_to_use(error: &KilnError) -> Option<&'static str> {
    match error {
        // No note is close: the agent must see which there are.
        KilnError::NotFound { suggestions, .. } if suggestions.is_empty() => Some("list_notes"),
        KilnError::Write(WriteRefusal::Exists { .. }) => Some("update_note"),
        KilnError::Write(WriteRefusal::Changed { .. }) => Some("read_note"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tool_that_does_what_the_kiln_asks_is_named() {
        let missing = KilnError::NotFound {
            path: "x.md".to_owned(),
            suggestions: Vec::new(),
        };
        assert_eq!(
            agent_message(&missing),
            "there is no note `x.md`, nor any with a similar path; list the notes to see those there \
             are (use list_notes)"
        );
        let exists = KilnError::Write(WriteRefusal::Exists {
            path: "Plan.md".to_owned(),
        });
        assert_eq!(
            agent_message(&exists),
            "`Plan.md` already exists; nothing was written. Change the existing note instead (use \
             update_note)"
        );
        let changed = KilnError::Write(WriteRefusal::Changed {
            path: "Plan.md".to_owned(),
            expected: "00".to_owned(),
        });
        assert!(
            agent_message(&changed).ends_with(
                "Read it again and make the change on what it holds now (use read_note)"
            ),
            "{}",
            agent_message(&changed)
        );
    }

    #[test]
    fn a_message_that_needs_no_tool_is_the_kilns() {
        let close = KilnError::NotFound {
            path: "plan.md".to_owned(),
            suggestions: vec!["Plan.md".to_owned()],
        };
        assert_eq!(agent_message(&close), close.to_string());
        let replaced = KilnError::Write(WriteRefusal::Replaced {
            path: "Plan.md".to_owned(),
        });
        assert_eq!(agent_message(&replaced), replaced.to_string());
    }
}
