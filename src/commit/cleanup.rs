//! git's cleanup of a commit message file, for a commit-msg hook.
//!
//! git runs the commit-msg hook on the file the editor saved, before its
//! own cleanup, so a hook must apply the same cleanup to see the message
//! that will be committed. [`parse_commit`](super::parse_commit) takes the
//! message as git stores it, after this.
//!
//! Hand-written: it is git's `strbuf_stripspace` and scissors rule
//! (wt-status.c, `wt_status_locate_end`), a few lines no crate offers.

/// The scissors line below a `#`: it and everything below it are not part
/// of the message (`git commit -v` puts the diff there).
const SCISSORS: &str = "# ------------------------ >8 ------------------------";

/// git's default (`strip`) cleanup of a commit message file: everything
/// from the scissors line on is cut, `#` comment lines are dropped,
/// trailing whitespace (space, tab, carriage return) is stripped from every
/// line, runs of blank lines collapse to one, leading and trailing blank
/// lines are dropped, and the message ends with one newline (an empty
/// message stays empty).
///
/// ```
/// use quire_grammar::commit::git_cleanup;
///
/// let edited = "feat(cli): add hook   \n\n\n# Please enter the commit message\nWhy.\n";
/// assert_eq!(git_cleanup(edited), "feat(cli): add hook\n\nWhy.\n");
/// ```
pub fn git_cleanup(text: &str) -> String {
    let mut message = String::with_capacity(text.len());
    // Whether a blank line is pending: written only before a later
    // non-blank line, so runs collapse and trailing blanks vanish.
    let mut blank_pending = false;
    for line in text.split('\n') {
        let content = line.trim_end_matches([' ', '\t', '\r']);
        if content == SCISSORS {
            break;
        }
        if line.starts_with('#') {
            continue;
        }
        if content.is_empty() {
            blank_pending = !message.is_empty();
            continue;
        }
        if blank_pending {
            message.push('\n');
            blank_pending = false;
        }
        message.push_str(content);
        message.push('\n');
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleanup_matches_git_strip_mode() {
        let edited = "\n\nfeat(cli): Add hook   \n\n\n\nWhy it matters.\t\n# Please enter the commit message\n#\n\n# ------------------------ >8 ------------------------\ndiff --git a/x b/x\n";
        assert_eq!(
            git_cleanup(edited),
            "feat(cli): Add hook\n\nWhy it matters.\n"
        );
        assert_eq!(git_cleanup("# only comments\n"), "");
        assert_eq!(git_cleanup(""), "");
        assert_eq!(git_cleanup("a\r\n\r\nb\r\n"), "a\n\nb\n");
        assert_eq!(git_cleanup("a\n \t \nb"), "a\n\nb\n");
    }

    #[test]
    fn only_the_exact_scissors_line_cuts() {
        let cut = format!("a\n{SCISSORS}\nb\n");
        assert_eq!(git_cleanup(&cut), "a\n");
        let at_start = format!("{SCISSORS}\nb\n");
        assert_eq!(git_cleanup(&at_start), "");
        // A comment that mentions scissors is only a comment.
        let mention = "a\n# ---- >8 ---- not the line\nb\n";
        assert_eq!(git_cleanup(mention), "a\nb\n");
    }

    #[test]
    fn a_comment_is_a_hash_in_the_first_column() {
        assert_eq!(git_cleanup("a\n #not a comment\n"), "a\n #not a comment\n");
    }
}
