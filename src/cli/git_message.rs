//! Git's view of a commit message file, for `quire check --git-message`.
//!
//! git runs the commit-msg hook on the file the editor saved, before its own
//! cleanup, so the hook must apply the same cleanup to see the message that
//! will be committed.

/// The scissors line: it and everything below it are not part of the message.
const SCISSORS: &str = "------------------------ >8 ------------------------";

/// git's default (`strip`) cleanup: drop `#` comment lines and everything
/// from the scissors line on, strip trailing whitespace, collapse runs of
/// blank lines, drop leading and trailing blank lines, end with one newline.
pub(super) fn cleanup(text: &str) -> String {
    let mut lines: Vec<&str> = Vec::new();
    for line in text.lines() {
        if line.starts_with('#') && line.contains(SCISSORS) {
            break;
        }
        if line.starts_with('#') {
            continue;
        }
        let line = line.trim_end();
        let previous_blank = lines.last().is_none_or(|last| last.is_empty());
        if line.is_empty() && previous_blank {
            continue;
        }
        lines.push(line);
    }
    while lines.last().is_some_and(|last| last.is_empty()) {
        lines.pop();
    }
    if lines.is_empty() {
        return String::new();
    }
    let mut message = lines.join("\n");
    message.push('\n');
    message
}

/// Messages git writes itself (merges, reverts, autosquash markers) are not
/// plan documents; the hook lets them through.
pub(super) fn is_generated_by_git(message: &str) -> bool {
    ["Merge ", "Revert \"", "fixup! ", "squash! ", "amend! "]
        .iter()
        .any(|prefix| message.starts_with(prefix))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleanup_matches_git_strip_mode() {
        let edited = "\n\nfeat(cli): Add hook   \n\n\n\nWhy it matters.\t\n# Please enter the commit message\n#\n\n# ------------------------ >8 ------------------------\ndiff --git a/x b/x\n";
        assert_eq!(cleanup(edited), "feat(cli): Add hook\n\nWhy it matters.\n");
        assert_eq!(cleanup("# only comments\n"), "");
        assert_eq!(cleanup("a\r\n\r\nb\r\n"), "a\n\nb\n");
    }

    #[test]
    fn generated_messages_are_recognized() {
        assert!(is_generated_by_git("Merge branch 'main' into topic\n"));
        assert!(is_generated_by_git("fixup! feat(x): y\n"));
        assert!(!is_generated_by_git("feat(merge): Merge two lists\n"));
    }
}
