//! The messages commitlint does not lint by default: merges, reverts,
//! autosquash commits, release commits, automatic merges
//! (`@commitlint/is-ignored`'s `wildcards`).
//!
//! One function per commitlint pattern, each written on the commit
//! grammar's own literals and predicates (`super::super::kind`, the one
//! list of messages git and release tools write), with commitlint's
//! differences from the grammar spelled out where they are: commitlint
//! matches a `Merge branch` line anywhere in the message, takes lowercase
//! `reapply ` and markers without a space (`fixup!x`), strips `chore:` and
//! `[skip ci]` around a release version, and reads `Merged ...` loosely.
//! Keeping those differences is the point: `--preset conventional` gives
//! commitlint's verdicts.

use std::fmt;

use crate::commit::MessageKind;
use crate::commit::kind;

/// Why a message is not linted: it was written by git or a release tool,
/// not by hand. A message with a kind gets no findings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IgnoredKind {
    /// `Merge branch ...`, `Merge pull request ...`, `Merge tag ...`,
    /// `Merge x into y`, `Merged in ...` (Bitbucket), `Merged PR 1: ...`
    /// (Azure DevOps), `Merge remote-tracking branch ...`.
    Merge,
    /// `Revert "..."` (git revert), `revert ...`.
    Revert,
    /// `Reapply "..."` (git revert of a revert).
    Reapply,
    /// `fixup!`, `squash!`, `amend!` (git commit --fixup / --squash).
    Autosquash,
    /// A header that is a version number: `1.2.3`, `v2.0.0-rc.1`,
    /// `chore(release): 1.2.3 [skip ci]`.
    Release,
    /// `Automatic merge ...`, `Auto-merged x into y`.
    AutomaticMerge,
    /// A header one of `quire.toml`'s `ignores` patterns matches.
    Configured,
}

impl IgnoredKind {
    /// The kind's name as JSON output writes it: `merge`, `revert`,
    /// `reapply`, `autosquash`, `release`, `automatic-merge`, `ignores`.
    pub fn name(self) -> &'static str {
        match self {
            IgnoredKind::Merge => "merge",
            IgnoredKind::Revert => "revert",
            IgnoredKind::Reapply => "reapply",
            IgnoredKind::Autosquash => "autosquash",
            IgnoredKind::Release => "release",
            IgnoredKind::AutomaticMerge => "automatic-merge",
            IgnoredKind::Configured => "ignores",
        }
    }

    /// Whether commitlint's default ignores skip `message` (the whole
    /// message, as git gives it), and as what.
    ///
    /// ```
    /// use quire_grammar::commit::lint::IgnoredKind;
    ///
    /// assert_eq!(IgnoredKind::detect("Merge branch 'main' into topic\n"), Some(IgnoredKind::Merge));
    /// assert_eq!(IgnoredKind::detect("chore(release): v1.4.0 [skip ci]"), Some(IgnoredKind::Release));
    /// assert_eq!(IgnoredKind::detect("fixup! feat: add parser"), Some(IgnoredKind::Autosquash));
    /// assert_eq!(IgnoredKind::detect("revert: undo the parser"), None); // a conventional type
    /// ```
    pub fn detect(message: &str) -> Option<IgnoredKind> {
        if js_lines(message).any(is_merge_line) {
            return Some(IgnoredKind::Merge);
        }
        let first_line = js_lines(message).next().unwrap_or("");
        // The grammar's predicates read a header line; a prefix without a
        // line ending starts the message exactly when it starts its first
        // line, so they take the whole message as commitlint does.
        if kind::is_revert(message) {
            Some(IgnoredKind::Revert)
        } else if message.starts_with(kind::REAPPLY) || message.starts_with("reapply ") {
            // Difference: commitlint's `^(R|r)eapply ` also takes the
            // lowercase word, which git never writes.
            Some(IgnoredKind::Reapply)
        } else if kind::autosquash_prefix(message).is_some() {
            // Difference: commitlint's `^(amend|fixup|squash)!` needs no
            // space after the marker (`fixup!x`), which the grammar (as
            // `git rebase --autosquash`) does.
            Some(IgnoredKind::Autosquash)
        } else if is_release(message) {
            Some(IgnoredKind::Release)
        } else if is_merged(first_line) || message.starts_with(kind::MERGE_REMOTE_TRACKING_BRANCH) {
            Some(IgnoredKind::Merge)
        } else if kind::is_automatic_merge(first_line) {
            Some(IgnoredKind::AutomaticMerge)
        } else {
            None
        }
    }

    /// The ignore that the grammar's `kind` of message falls under, under
    /// the same name: every kind git or a release tool writes
    /// ([`MessageKind::is_generated`]) has one, a conventional or
    /// unconventional message none. For reporting a kind as `--preset
    /// conventional` reports what it ignores.
    ///
    /// ```
    /// use quire_grammar::commit::lint::IgnoredKind;
    /// use quire_grammar::commit::message_kind;
    ///
    /// let kind = message_kind("Auto-merged develop into main");
    /// assert_eq!(IgnoredKind::of_kind(&kind).map(IgnoredKind::name), Some("automatic-merge"));
    /// assert_eq!(IgnoredKind::of_kind(&message_kind("fix: x")), None);
    /// ```
    pub fn of_kind(kind: &MessageKind) -> Option<IgnoredKind> {
        match kind {
            MessageKind::Merge => Some(IgnoredKind::Merge),
            MessageKind::Revert { .. } => Some(IgnoredKind::Revert),
            MessageKind::Reapply => Some(IgnoredKind::Reapply),
            MessageKind::Autosquash(_) => Some(IgnoredKind::Autosquash),
            MessageKind::Release { .. } => Some(IgnoredKind::Release),
            MessageKind::AutomaticMerge => Some(IgnoredKind::AutomaticMerge),
            MessageKind::Conventional | MessageKind::Unconventional => None,
        }
    }
}

impl fmt::Display for IgnoredKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The lines of `text` as a JavaScript multi-line `^`...`$` sees them:
/// ended by `\n`, `\r`, U+2028 or U+2029.
fn js_lines(text: &str) -> impl Iterator<Item = &str> {
    text.split(['\n', '\r', '\u{2028}', '\u{2029}'])
}

/// `^((Merge pull request)|(Merge (.*?) into (.*?)|(Merge branch (.*?)))(?:\r?\n)*$)`
/// and `^(Merge tag (.*?))(?:\r?\n)*$`, both multi-line: a line of the
/// message that starts so.
///
/// Differences from the grammar's merge header: any line counts, not just
/// the first; commitlint knows three of the grammar's merge prefixes (not
/// `Merge branches`, `Merge tags`, `Merge commit(s)`), wants no space after
/// `Merge pull request`, and its `(.*?)` lets either side of ` into ` be
/// empty.
fn is_merge_line(line: &str) -> bool {
    line.starts_with(kind::MERGE_PULL_REQUEST.trim_end())
        || line.starts_with(kind::MERGE_BRANCH)
        || line.starts_with(kind::MERGE_TAG)
        || line
            .strip_prefix(kind::MERGE)
            .and_then(kind::merge_into_sides)
            .is_some()
}

/// `^(Merged (.*?)(in|into) (.*)|Merged PR (.*): (.*))` on the first line.
///
/// Azure DevOps' `Merged PR <n>: ` as the grammar reads it; difference:
/// Bitbucket's `in `/`into ` may be anywhere after `Merged ` (even inside a
/// word, `Merged within`), where the grammar wants the words.
fn is_merged(first_line: &str) -> bool {
    first_line.strip_prefix(kind::MERGED).is_some_and(|rest| {
        rest.contains("in ") || rest.contains("into ") || kind::is_merged_pr(rest)
    })
}

/// commitlint's `isSemver`: the first line (up to `\n`), without a
/// `chore:`/`chore(scope):` prefix and one `[skip ci]`-like and one
/// `(skip ci)`-like marker, trimmed, is a version `semver.valid` takes.
fn is_release(message: &str) -> bool {
    let first_line = message.split('\n').next().unwrap_or("");
    let mut stripped = strip_chore_prefix(first_line).to_owned();
    for (open, close) in [('[', ']'), ('(', ')')] {
        if let Some(without) = strip_skip_marker(&stripped, open, close) {
            stripped = without;
        }
    }
    // JavaScript's `trim` (a byte-order mark included); the grammar's
    // Rust `trim` in `release_version` then finds nothing more to remove.
    let version = stripped.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    kind::release_version(version).is_some_and(within_node_semver_limits)
}

/// `^chore(\([^)]+\))?:` removed.
fn strip_chore_prefix(line: &str) -> &str {
    let Some(rest) = line.strip_prefix("chore") else {
        return line;
    };
    if let Some(after) = rest.strip_prefix(':') {
        return after;
    }
    if let Some(scope) = rest.strip_prefix('(')
        && let Some(close) = scope.find(')')
        && close > 0
        && let Some(after) = scope[close + 1..].strip_prefix(':')
    {
        return after;
    }
    line
}

/// The first `[(skip|ci)(-|\s)(ci|skip)]` (ignoring case), with the given
/// brackets, removed; `None` when there is none.
fn strip_skip_marker(text: &str, open: char, close: char) -> Option<String> {
    text.char_indices()
        .filter(|&(_, c)| c == open)
        .find_map(|(at, _)| {
            let inner = &text[at + 1..];
            let first = ["skip", "ci"]
                .into_iter()
                .find(|word| starts_with_ignoring_case(inner, word))?;
            let mut rest = inner[first.len()..].chars();
            let separator = rest.next().filter(|&c| c == '-' || c.is_whitespace())?;
            let rest = rest.as_str();
            let second = ["ci", "skip"]
                .into_iter()
                .find(|word| starts_with_ignoring_case(rest, word))?;
            rest[second.len()..].strip_prefix(close)?;
            let end = at + 1 + first.len() + separator.len_utf8() + second.len() + close.len_utf8();
            Some(format!("{}{}", &text[..at], &text[end..]))
        })
}

fn starts_with_ignoring_case(text: &str, word: &str) -> bool {
    text.get(..word.len())
        .is_some_and(|start| start.eq_ignore_ascii_case(word))
}

/// Differences of node-semver's strict `valid` from the grammar's Semantic
/// Versioning 2.0.0 release version: only a lowercase `v` before it, at
/// most 256 characters, and version numbers at most 2^53 - 1
/// (`Number.MAX_SAFE_INTEGER`).
fn within_node_semver_limits(version: &str) -> bool {
    if version.len() > 256 || version.starts_with('V') {
        return false;
    }
    let bare = version.strip_prefix('v').unwrap_or(version);
    // The core `MAJOR.MINOR.PATCH`: up to the pre-release's `-` or the
    // build's `+`, whichever comes first.
    let core = bare.split(['-', '+']).next().unwrap_or("");
    core.split('.').all(|number| {
        number
            .parse::<u64>()
            .is_ok_and(|n| n <= 9_007_199_254_740_991)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commitlints_own_examples() {
        use IgnoredKind::*;
        let ignored: [(&str, IgnoredKind); 22] = [
            ("Merge branch 'iss53'", Merge),
            ("Merge branch 'x'\r\n # some comment", Merge),
            ("Merge pull request #369", Merge),
            ("Merge pull request #12 from a/b\n\nfeat: x", Merge),
            ("Merge tag '1.1.1'\r\n\r\n", Merge),
            ("Merge 'a' into 'b'", Merge),
            ("feat: x\n\nMerge branch 'y'", Merge), // any line, as commitlint's `m` flag
            (
                "Revert \"docs: add\"\n\nThis reverts commit 1e69d54.",
                Revert,
            ),
            ("revert \"docs: add\"", Revert),
            ("Reapply \"feat: x\"", Reapply),
            ("amend! initial commit", Autosquash),
            ("squash! initial commit", Autosquash),
            ("v0.0.1", Release),
            (" v3.0.0", Release),
            ("0.0.1-some-crazy-tag.999", Release),
            ("chore(release): 2.3.3-beta.1 [skip ci]", Release),
            ("2.3.3-beta.1 (ci-skip)", Release),
            (
                "1.0.0\n\nSigned-off-by: Developer <example@example.com>",
                Release,
            ),
            ("Merged in feature/sync (pull request #8)", Merge),
            ("Merged PR 123: Add a thing", Merge),
            ("Automatic merge", AutomaticMerge),
            ("Auto-merged develop into master", AutomaticMerge),
        ];
        for (message, kind) in ignored {
            assert_eq!(IgnoredKind::detect(message), Some(kind), "{message:?}");
        }
        for message in [
            "",
            "initial commit",
            "revert: undo",
            "fix: merge branch handling",
            "1.0",
            "01.0.0",
            "1.0.0-01",
            "chore(): 1.0.0",
            "Merged",
            "Auto-merged develop",
            "Merge into main",
        ] {
            assert_eq!(IgnoredKind::detect(message), None, "{message:?}");
        }
    }

    /// Where commitlint's reach differs from the grammar's kinds, each
    /// difference the comments in `detect` name, both sides pinned.
    #[test]
    fn differences_from_the_grammars_kinds_are_commitlints() {
        use crate::commit::message_kind;
        let differences: [(&str, Option<IgnoredKind>, MessageKind); 10] = [
            (
                "fixup!x",
                Some(IgnoredKind::Autosquash),
                MessageKind::Unconventional,
            ),
            (
                "reapply \"x\"",
                Some(IgnoredKind::Reapply),
                MessageKind::Unconventional,
            ),
            (
                "feat: x\n\nMerge branch 'y'",
                Some(IgnoredKind::Merge),
                MessageKind::Conventional,
            ),
            (
                "Merge  into x",
                Some(IgnoredKind::Merge),
                MessageKind::Unconventional,
            ),
            (
                "Merge pull requests",
                Some(IgnoredKind::Merge),
                MessageKind::Unconventional,
            ),
            (
                "Merged within a day",
                Some(IgnoredKind::Merge),
                MessageKind::Unconventional,
            ),
            ("Merge branches 'a' and 'b'", None, MessageKind::Merge),
            ("Merge commit 'abc'", None, MessageKind::Merge),
            (
                "V1.2.3",
                None,
                MessageKind::Release {
                    version: "V1.2.3".to_owned(),
                },
            ),
            (
                "9007199254740992.0.0",
                None,
                MessageKind::Release {
                    version: "9007199254740992.0.0".to_owned(),
                },
            ),
        ];
        for (message, ignored, grammar) in differences {
            assert_eq!(IgnoredKind::detect(message), ignored, "{message:?}");
            assert_eq!(message_kind(message), grammar, "{message:?}");
        }
        assert_eq!(
            IgnoredKind::detect("chore(release): 1.2.3"),
            Some(IgnoredKind::Release)
        );
        assert_eq!(
            message_kind("chore(release): 1.2.3"),
            MessageKind::Conventional
        );
    }

    #[test]
    fn every_generated_kind_has_its_ignore_and_no_other_kind_has_one() {
        use crate::commit::AutosquashMarker;
        let kinds = [
            (MessageKind::Merge, Some("merge")),
            (MessageKind::Revert { reverted: None }, Some("revert")),
            (MessageKind::Reapply, Some("reapply")),
            (
                MessageKind::Autosquash(AutosquashMarker::Amend),
                Some("autosquash"),
            ),
            (
                MessageKind::Release {
                    version: "1.0.0".to_owned(),
                },
                Some("release"),
            ),
            (MessageKind::AutomaticMerge, Some("automatic-merge")),
            (MessageKind::Conventional, None),
            (MessageKind::Unconventional, None),
        ];
        for (kind, name) in kinds {
            assert_eq!(
                IgnoredKind::of_kind(&kind).map(IgnoredKind::name),
                name,
                "{kind:?}"
            );
            assert_eq!(kind.is_generated(), name.is_some(), "{kind:?}");
        }
    }

    #[test]
    fn version_numbers_past_javascripts_safe_integers_are_no_release() {
        assert_eq!(
            IgnoredKind::detect("9007199254740991.0.0"),
            Some(IgnoredKind::Release)
        );
        assert_eq!(IgnoredKind::detect("1.9007199254740992.0-rc.1"), None);
        assert_eq!(
            IgnoredKind::detect(&format!("1.0.0-{}", "a".repeat(251))),
            None
        );
        assert_eq!(
            IgnoredKind::detect(&format!("1.0.0-{}", "a".repeat(250))),
            Some(IgnoredKind::Release)
        );
    }
}
