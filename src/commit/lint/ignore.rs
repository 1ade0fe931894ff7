//! The messages commitlint does not lint by default: merges, reverts,
//! autosquash commits, release commits, automatic merges
//! (`@commitlint/is-ignored`'s `wildcards`).
//!
//! Written out by hand, one function per commitlint pattern, because the
//! patterns lean on JavaScript's multi-line `^`/`$` and on `semver.valid`,
//! and keeping their exact reach (a `Merge branch` line anywhere in the
//! message counts, `chore(release): 1.2.3 [skip ci]` is a release) is the
//! point.

use std::fmt;

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
}

impl IgnoredKind {
    /// The kind's name as JSON output writes it: `merge`, `revert`,
    /// `reapply`, `autosquash`, `release`, `automatic-merge`.
    pub fn name(self) -> &'static str {
        match self {
            IgnoredKind::Merge => "merge",
            IgnoredKind::Revert => "revert",
            IgnoredKind::Reapply => "reapply",
            IgnoredKind::Autosquash => "autosquash",
            IgnoredKind::Release => "release",
            IgnoredKind::AutomaticMerge => "automatic-merge",
        }
    }

    /// Whether commitlint's default ignores skip `message` (the whole
    /// message, as git gives it), and as what.
    ///
    /// ```
    /// use quire::commit::lint::IgnoredKind;
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
        if message.starts_with("Revert ") || message.starts_with("revert ") {
            Some(IgnoredKind::Revert)
        } else if message.starts_with("Reapply ") || message.starts_with("reapply ") {
            Some(IgnoredKind::Reapply)
        } else if ["amend!", "fixup!", "squash!"]
            .iter()
            .any(|marker| message.starts_with(marker))
        {
            Some(IgnoredKind::Autosquash)
        } else if is_release(message) {
            Some(IgnoredKind::Release)
        } else if is_merged(first_line) || message.starts_with("Merge remote-tracking branch") {
            Some(IgnoredKind::Merge)
        } else if message.starts_with("Automatic merge")
            || first_line
                .strip_prefix("Auto-merged ")
                .is_some_and(|rest| rest.contains(" into "))
        {
            Some(IgnoredKind::AutomaticMerge)
        } else {
            None
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
fn is_merge_line(line: &str) -> bool {
    line.starts_with("Merge pull request")
        || line.starts_with("Merge branch ")
        || line.starts_with("Merge tag ")
        || line
            .strip_prefix("Merge ")
            .is_some_and(|rest| rest.contains(" into "))
}

/// `^(Merged (.*?)(in|into) (.*)|Merged PR (.*): (.*))` on the first line.
fn is_merged(first_line: &str) -> bool {
    first_line.strip_prefix("Merged ").is_some_and(|rest| {
        rest.contains("in ")
            || rest.contains("into ")
            || rest.strip_prefix("PR ").is_some_and(|pr| pr.contains(": "))
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
    is_semver(stripped.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}'))
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

/// node-semver's strict `valid`: `v?MAJOR.MINOR.PATCH(-pre)?(+build)?`,
/// numbers without leading zeros and at most 2^53 - 1, at most 256
/// characters.
fn is_semver(version: &str) -> bool {
    if version.len() > 256 {
        return false;
    }
    let version = version.strip_prefix('v').unwrap_or(version);
    let (version, build) = match version.split_once('+') {
        Some((version, build)) => (version, Some(build)),
        None => (version, None),
    };
    let (core, prerelease) = match version.split_once('-') {
        Some((core, prerelease)) => (core, Some(prerelease)),
        None => (version, None),
    };
    let numbers: Vec<&str> = core.split('.').collect();
    numbers.len() == 3
        && numbers
            .iter()
            .all(|n| is_numeric_identifier(n) && fits_safe_integer(n))
        && prerelease.is_none_or(|pre| pre.split('.').all(is_prerelease_identifier))
        && build.is_none_or(|build| {
            build.split('.').all(|id| {
                !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            })
        })
}

/// `0|[1-9]\d*`
fn is_numeric_identifier(text: &str) -> bool {
    !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'))
}

/// node-semver refuses a version number above `Number.MAX_SAFE_INTEGER`.
fn fits_safe_integer(digits: &str) -> bool {
    digits
        .parse::<u64>()
        .is_ok_and(|n| n <= 9_007_199_254_740_991)
}

/// A numeric identifier, or `\d*[a-zA-Z-][a-zA-Z0-9-]*`.
fn is_prerelease_identifier(id: &str) -> bool {
    is_numeric_identifier(id)
        || (!id.is_empty()
            && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            && id.chars().any(|c| c.is_ascii_alphabetic() || c == '-'))
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
}
