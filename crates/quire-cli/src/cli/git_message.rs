//! Git's view of a commit message file, for `quire check --git-message`.
//!
//! git runs the commit-msg hook on the file the editor saved, before its own
//! cleanup, so the hook must apply the same cleanup to see the message that
//! will be committed. Which messages git (or a release tool) wrote is the
//! commit grammar's to say: `quire_grammar::commit::message_kind`.

/// git's default (`strip`) cleanup: the library's, where the commit
/// grammar lives.
pub(super) use quire_grammar::commit::git_cleanup as cleanup;
