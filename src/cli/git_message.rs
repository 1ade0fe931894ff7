//! Git's view of a commit message file, for `quire check --git-message`.
//!
//! git runs the commit-msg hook on the file the editor saved, before its own
//! cleanup, so the hook must apply the same cleanup to see the message that
//! will be committed.

/// git's default (`strip`) cleanup: the library's, where the commit
/// grammar lives.
pub(super) use quire::commit::git_cleanup as cleanup;

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
    fn generated_messages_are_recognized() {
        assert!(is_generated_by_git("Merge branch 'main' into topic\n"));
        assert!(is_generated_by_git("fixup! feat(x): y\n"));
        assert!(!is_generated_by_git("feat(merge): Merge two lists\n"));
    }
}
