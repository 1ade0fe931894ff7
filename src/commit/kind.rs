//! The messages git and release tools write: merges, reverts, autosquash
//! markers, version-only release headers (`grammar/commit.ebnf`, section
//! kinds).
//!
//! Recognized from the header alone, with commitlint's default ignores
//! (@commitlint/is-ignored) as the reference, plus git's own `Reapply`.
//! Plain prefix tests rather than winnow rules: each kind is a literal
//! prefix and at most one more literal (`into`) or a version number.
//!
//! The literals and predicates here are the one list of such messages:
//! [`message_kind`] and [`parse_commit`](super::parse_commit) decide a
//! message's [`MessageKind`] with them, and commitlint's ignores
//! ([`IgnoredKind::detect`](super::lint::IgnoredKind::detect)) are written
//! on top of them, with their differences spelled out there.

use super::ast::{AutosquashMarker, MessageKind};
use super::parse::parse_header;

/// The kind of the message `text`: what [`parse_commit`](super::parse_commit)
/// gives as [`CommitMessage::kind`](super::CommitMessage::kind), read from
/// the header line (and, for a revert, the `This reverts commit` line)
/// without parsing the body and footers. For a check that only needs to
/// know whether git or a release tool wrote a message
/// ([`MessageKind::is_generated`]).
///
/// ```
/// use quire_grammar::commit::{message_kind, AutosquashMarker, MessageKind};
///
/// assert_eq!(message_kind("Merge branch 'main' into topic\n"), MessageKind::Merge);
/// assert_eq!(message_kind("fixup! feat: add x"), MessageKind::Autosquash(AutosquashMarker::Fixup));
/// assert_eq!(message_kind("v1.2.3\n"), MessageKind::Release { version: "v1.2.3".to_owned() });
/// assert_eq!(message_kind("feat(merge): Merge two lists\n"), MessageKind::Conventional);
/// assert_eq!(message_kind("Merge two lists\n"), MessageKind::Unconventional);
/// assert!(!message_kind("Update the docs").is_generated());
/// ```
// commit.ebnf: kinds
pub fn message_kind(text: &str) -> MessageKind {
    let header = parse_header(text);
    if header.conventional.is_some() {
        return MessageKind::Conventional;
    }
    // The header's span ends before its line ending (carriage returns
    // included): the rest starts after the next line feed, as in
    // `parse_commit`.
    let rest = text
        .get(header.span.end..)
        .and_then(|after| memchr::memchr(b'\n', after.as_bytes()).map(|at| &after[at + 1..]))
        .unwrap_or("");
    generated_kind(&header.text, rest)
}

/// The kind of a message whose header line is `header` and whose body
/// (everything after the header) is `rest`, when the header is not a
/// conventional header.
// commit.ebnf: kinds (all but Conventional)
pub(super) fn generated_kind(header: &str, rest: &str) -> MessageKind {
    if is_merge(header) {
        MessageKind::Merge
    } else if is_automatic_merge(header) {
        MessageKind::AutomaticMerge
    } else if is_revert(header) {
        MessageKind::Revert {
            reverted: reverted_commit(rest).map(str::to_owned),
        }
    } else if is_reapply(header) {
        MessageKind::Reapply
    } else if let Some(marker) = autosquash_marker(header) {
        MessageKind::Autosquash(marker)
    } else if let Some(version) = release_version(header) {
        MessageKind::Release {
            version: version.to_owned(),
        }
    } else {
        MessageKind::Unconventional
    }
}

/// What every merge header starts with.
pub(super) const MERGE: &str = "Merge ";
/// git fmt-merge-msg's merge of one branch.
pub(super) const MERGE_BRANCH: &str = "Merge branch ";
/// git fmt-merge-msg's merge of one tag.
pub(super) const MERGE_TAG: &str = "Merge tag ";
/// git fmt-merge-msg's merge of a remote's branch (`git pull`).
pub(super) const MERGE_REMOTE_TRACKING_BRANCH: &str = "Merge remote-tracking branch";
/// GitHub's merge of a pull request.
pub(super) const MERGE_PULL_REQUEST: &str = "Merge pull request ";
/// What Azure DevOps' and Bitbucket's merge headers start with.
pub(super) const MERGED: &str = "Merged ";

/// The prefixes of the merge messages git (fmt-merge-msg) and the forges
/// write.
const MERGE_PREFIXES: [&str; 8] = [
    MERGE_BRANCH,
    "Merge branches ",
    MERGE_TAG,
    "Merge tags ",
    MERGE_REMOTE_TRACKING_BRANCH,
    "Merge commit ",
    "Merge commits ",
    MERGE_PULL_REQUEST,
];

// commit.ebnf: Merge
fn is_merge(header: &str) -> bool {
    if MERGE_PREFIXES
        .iter()
        .any(|prefix| header.starts_with(prefix))
    {
        return true;
    }
    if let Some(rest) = header.strip_prefix(MERGE) {
        // `Merge <a> into <b>`, with something on both sides.
        return merge_into_sides(rest).is_some_and(|(a, b)| !a.is_empty() && !b.is_empty());
    }
    if let Some(rest) = header.strip_prefix(MERGED) {
        // Azure DevOps: `Merged PR 123: title`; Bitbucket: `Merged in x
        // (pull request #1)`, `Merged x into y`.
        if rest.starts_with(MERGED_PR) {
            return is_merged_pr(rest);
        }
        return rest.starts_with("in ") || rest.contains(" in ") || rest.contains(" into ");
    }
    false
}

/// `<a> into <b>` after `Merge `: the text on either side of the first
/// ` into `, either side possibly empty.
pub(super) fn merge_into_sides(rest: &str) -> Option<(&str, &str)> {
    rest.split_once(" into ")
}

/// What follows `Merged ` in Azure DevOps' merge header.
const MERGED_PR: &str = "PR ";

/// Whether `rest`, what follows `Merged `, is Azure DevOps' `PR <n>:
/// <title>`.
pub(super) fn is_merged_pr(rest: &str) -> bool {
    rest.strip_prefix(MERGED_PR)
        .is_some_and(|pr| pr.contains(": "))
}

// commit.ebnf: AutomaticMerge
pub(super) fn is_automatic_merge(header: &str) -> bool {
    header.starts_with("Automatic merge")
        || header
            .strip_prefix("Auto-merged ")
            .is_some_and(|rest| rest.contains(" into "))
}

/// `git revert`'s header (`Revert "<subject>"`), and commitlint's lowercase
/// `revert `.
// commit.ebnf: Revert
pub(super) fn is_revert(header: &str) -> bool {
    header.starts_with("Revert ") || header.starts_with("revert ")
}

/// The header `git revert` writes when reverting a revert: `Reapply
/// "<subject>"`.
pub(super) const REAPPLY: &str = "Reapply ";

// commit.ebnf: Reapply
fn is_reapply(header: &str) -> bool {
    header.starts_with(REAPPLY)
}

/// The autosquash markers `git commit --fixup`/`--squash` write, as `git
/// rebase --autosquash` reads them.
const AUTOSQUASH_MARKERS: [(&str, AutosquashMarker); 3] = [
    ("fixup!", AutosquashMarker::Fixup),
    ("squash!", AutosquashMarker::Squash),
    ("amend!", AutosquashMarker::Amend),
];

/// The autosquash marker `text` starts with, and the text after it (the
/// marker alone: no space needed after it).
pub(super) fn autosquash_prefix(text: &str) -> Option<(AutosquashMarker, &str)> {
    AUTOSQUASH_MARKERS
        .iter()
        .find_map(|&(prefix, marker)| text.strip_prefix(prefix).map(|rest| (marker, rest)))
}

// commit.ebnf: Autosquash
fn autosquash_marker(header: &str) -> Option<AutosquashMarker> {
    let (marker, rest) = autosquash_prefix(header)?;
    (rest.is_empty() || rest.starts_with(' ')).then_some(marker)
}

/// The hash in the first line of `body` that reads `This reverts commit
/// <hash>.` (or `<hash>, reversing` for a merge), as `git revert` writes.
// commit.ebnf: Revert
pub(super) fn reverted_commit(body: &str) -> Option<&str> {
    const INTRO: &str = "This reverts commit ";
    body.lines().find_map(|line| {
        let rest = line.trim_start().strip_prefix(INTRO)?;
        let hex = rest.len()
            - rest
                .trim_start_matches(|c: char| c.is_ascii_hexdigit())
                .len();
        let (hash, after) = rest.split_at(hex);
        let ends_well = after.starts_with('.') || after.starts_with(',');
        ((4..=64).contains(&hex) && ends_well).then_some(hash)
    })
}

/// The version a release header is, as written (`v1.2.3`), when the
/// header, without surrounding whitespace, is one.
// commit.ebnf: Release
pub(super) fn release_version(header: &str) -> Option<&str> {
    let version = header.trim();
    let bare = version
        .strip_prefix('v')
        .or_else(|| version.strip_prefix('V'))
        .unwrap_or(version);
    is_semver(bare).then_some(version)
}

/// Whether `text` is a Semantic Versioning 2.0.0 version:
/// `MAJOR.MINOR.PATCH`, numbers without leading zeros, then an optional
/// `-pre.release` and `+build.metadata` of dot-separated identifiers
/// (`[0-9A-Za-z-]+`, numeric pre-release identifiers without leading
/// zeros).
pub(super) fn is_semver(text: &str) -> bool {
    let (version, build) = match text.split_once('+') {
        Some((version, build)) => (version, Some(build)),
        None => (text, None),
    };
    let (core, pre) = match version.split_once('-') {
        Some((core, pre)) => (core, Some(pre)),
        None => (version, None),
    };
    let mut numbers = core.split('.');
    let core_ok = (0..3).all(|_| numbers.next().is_some_and(is_numeric_identifier))
        && numbers.next().is_none();
    let pre_ok = pre.is_none_or(|pre| {
        pre.split('.').all(|identifier| {
            is_identifier(identifier)
                && (!identifier.bytes().all(|b| b.is_ascii_digit())
                    || is_numeric_identifier(identifier))
        })
    });
    let build_ok = build.is_none_or(|build| build.split('.').all(is_identifier));
    core_ok && pre_ok && build_ok
}

/// `0`, or digits not starting with `0`.
fn is_numeric_identifier(text: &str) -> bool {
    !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'))
}

/// One or more of `[0-9A-Za-z-]`.
fn is_identifier(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn semver_follows_the_specification() {
        for good in [
            "1.2.3",
            "0.0.0",
            "10.20.30",
            "1.0.0-alpha",
            "1.0.0-alpha.1",
            "1.0.0-0.3.7",
            "1.0.0-x.7.z.92",
            "1.0.0+20130313144700",
            "1.0.0-beta+exp.sha.5114f85",
            "1.0.0-x-y-z.--",
        ] {
            assert!(is_semver(good), "{good}");
        }
        for bad in [
            "1",
            "1.2",
            "1.2.3.4",
            "01.2.3",
            "1.02.3",
            "1.2.03",
            "1.2.3-",
            "1.2.3+",
            "1.2.3-01",
            "1.2.3-a..b",
            "1.2.3-é",
            "a.b.c",
            "",
            "1.2.3 ",
        ] {
            assert!(!is_semver(bad), "{bad}");
        }
    }

    #[test]
    fn release_headers_may_have_a_v_and_surrounding_whitespace() {
        assert_eq!(release_version("v1.2.3"), Some("v1.2.3"));
        assert_eq!(release_version(" 1.2.3 "), Some("1.2.3"));
        assert_eq!(release_version("V2.0.0-rc.1"), Some("V2.0.0-rc.1"));
        assert_eq!(release_version("version 1.2.3"), None);
        assert_eq!(release_version("vv1.2.3"), None);
    }

    #[test]
    fn reverted_commit_is_read_from_gits_line() {
        let sha = "4134961d5aeccf89280864c11c7d0c1ceb1fe7ca";
        assert_eq!(
            reverted_commit(&format!("\nThis reverts commit {sha}.\n")),
            Some(sha)
        );
        assert_eq!(
            reverted_commit(&format!(
                "This reverts commit {sha}, reversing\nchanges made to abc."
            )),
            Some(sha)
        );
        assert_eq!(reverted_commit("This reverts commit xyz."), None);
        assert_eq!(reverted_commit("This reverts commit abc."), None);
        assert_eq!(reverted_commit("This reverts commit abcd"), None);
    }

    #[test]
    fn merge_forms() {
        for merge in [
            "Merge branch 'main' into topic",
            "Merge branch 'x'",
            "Merge branches 'a' and 'b'",
            "Merge tag 'v1.0'",
            "Merge remote-tracking branch 'origin/main'",
            "Merge commit 'abc123'",
            "Merge pull request #54 from a/b",
            "Merge origin/main into topic",
            "Merged PR 123: Add x",
            "Merged in feature/x (pull request #3)",
        ] {
            assert!(is_merge(merge), "{merge}");
        }
        for not_merge in ["Merge two lists", "Merge", "Merge  into ", "Merged"] {
            assert!(!is_merge(not_merge), "{not_merge}");
        }
    }

    #[test]
    fn autosquash_needs_a_space_or_the_end_after_its_marker() {
        assert_eq!(autosquash_marker("fixup!"), Some(AutosquashMarker::Fixup));
        assert_eq!(
            autosquash_marker("amend! feat: x"),
            Some(AutosquashMarker::Amend)
        );
        assert_eq!(autosquash_marker("squash!x"), None);
        assert_eq!(
            autosquash_prefix("squash!x"),
            Some((AutosquashMarker::Squash, "x"))
        );
        assert_eq!(autosquash_prefix("fixup x"), None);
    }

    /// Messages of every kind, with the line endings and byte-order mark
    /// that move where the header ends.
    const KIND_SAMPLES: [&str; 14] = [
        "Merge branch 'main' into topic\n",
        "Merged PR 12: Add x\r\n\r\nbody",
        "Automatic merge from a -> b",
        "Revert \"feat: x\"\r\n\r\nThis reverts commit 0123abcd.\r\n",
        "Revert \"feat: x\"\n\nThis reverts commit 0123abcd.",
        "\u{feff}revert x\n\nThis reverts commit 0123abcd, reversing",
        "Reapply \"feat: x\"\n",
        "fixup!\n",
        " v1.2.3 \r\n",
        "1.2.3-rc.1",
        "feat(cli)!: add x\n\nBREAKING CHANGE: y",
        "Merge two lists\n",
        "",
        "\n\nThis reverts commit 0123abcd.",
    ];

    #[test]
    fn message_kind_is_the_kind_parse_commit_gives() {
        for text in KIND_SAMPLES {
            assert_eq!(
                message_kind(text),
                super::super::parse_commit(text).kind,
                "{text:?}"
            );
        }
        assert_eq!(
            message_kind(KIND_SAMPLES[3]),
            MessageKind::Revert {
                reverted: Some("0123abcd".to_owned())
            }
        );
    }

    /// Pieces of headers and bodies of every kind, and the line endings
    /// and marks that move where a header ends.
    const PIECES: [&str; 29] = [
        "Merge ",
        "branch ",
        " into ",
        "Merged ",
        "PR 1: ",
        "Revert ",
        "revert ",
        "Reapply ",
        "fixup!",
        "squash!",
        "amend!",
        " ",
        "v1.2.3",
        "1.0.0-rc.1",
        "feat",
        "(x)",
        "!",
        ": ",
        "x",
        "\n",
        "\r\n",
        "\r",
        "\u{feff}",
        "This reverts commit ",
        "0123abcd",
        ".",
        ",",
        "Automatic merge",
        "Auto-merged ",
    ];

    proptest::proptest! {
        #[test]
        fn message_kind_agrees_with_parse_commit_on_any_text(
            bom in proptest::bool::ANY,
            header in proptest::sample::select(&[
                "Merge branch 'x'", "Merge two lists", "Revert \"feat: x\"", "revert x",
                "Reapply \"x\"", "fixup!", "squash!x", "v1.2.3", "feat(x): y", "Update",
                "Automatic merge", "",
            ][..]),
            ending in proptest::sample::select(&["\n", "\r\n", "\r\r\n", "\r", ""][..]),
            body in proptest::collection::vec(
                proptest::sample::select(&["This reverts commit 0123abcd.", "x", "\n", "\r\n", "  "][..]),
                0..6,
            ),
            noise in proptest::collection::vec(proptest::sample::select(&PIECES[..]), 0..12),
        ) {
            let bom = if bom { "\u{feff}" } else { "" };
            for text in [
                format!("{bom}{header}{ending}{}", body.concat()),
                noise.concat(),
            ] {
                proptest::prop_assert_eq!(
                    message_kind(&text),
                    super::super::parse_commit(&text).kind,
                    "{:?}",
                    text
                );
            }
        }
    }
}
