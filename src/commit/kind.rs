//! The messages git and release tools write: merges, reverts, autosquash
//! markers, version-only release headers (`grammar/commit.ebnf`, section
//! kinds).
//!
//! Recognized from the header alone, with commitlint's default ignores
//! (@commitlint/is-ignored) as the reference, plus git's own `Reapply`.
//! Plain prefix tests rather than winnow rules: each kind is a literal
//! prefix and at most one more literal (`into`) or a version number.

use super::ast::{AutosquashMarker, MessageKind};

/// The kind of a message whose header line is `header` and whose body
/// (everything after the header) is `rest`, when the header is not a
/// conventional header.
// commit.ebnf: kinds (all but Conventional)
pub(super) fn generated_kind(header: &str, rest: &str) -> MessageKind {
    if is_merge(header) {
        MessageKind::Merge
    } else if is_automatic_merge(header) {
        MessageKind::AutomaticMerge
    } else if header.starts_with("Revert ") || header.starts_with("revert ") {
        MessageKind::Revert {
            reverted: reverted_commit(rest).map(str::to_owned),
        }
    } else if header.starts_with("Reapply ") {
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

/// The prefixes of the merge messages git (fmt-merge-msg) and the forges
/// write.
const MERGE_PREFIXES: [&str; 8] = [
    "Merge branch ",
    "Merge branches ",
    "Merge tag ",
    "Merge tags ",
    "Merge remote-tracking branch",
    "Merge commit ",
    "Merge commits ",
    "Merge pull request ",
];

// commit.ebnf: Merge
fn is_merge(header: &str) -> bool {
    if MERGE_PREFIXES
        .iter()
        .any(|prefix| header.starts_with(prefix))
    {
        return true;
    }
    if let Some(rest) = header.strip_prefix("Merge ") {
        // `Merge <a> into <b>`, with something on both sides.
        return rest
            .find(" into ")
            .is_some_and(|at| at > 0 && at + " into ".len() < rest.len());
    }
    if let Some(rest) = header.strip_prefix("Merged ") {
        // Azure DevOps: `Merged PR 123: title`; Bitbucket: `Merged in x
        // (pull request #1)`, `Merged x into y`.
        if let Some(pr) = rest.strip_prefix("PR ") {
            return pr.contains(": ");
        }
        return rest.starts_with("in ") || rest.contains(" in ") || rest.contains(" into ");
    }
    false
}

// commit.ebnf: AutomaticMerge
fn is_automatic_merge(header: &str) -> bool {
    header.starts_with("Automatic merge")
        || header
            .strip_prefix("Auto-merged ")
            .is_some_and(|rest| rest.contains(" into "))
}

// commit.ebnf: Autosquash
fn autosquash_marker(header: &str) -> Option<AutosquashMarker> {
    let (marker, rest) = if let Some(rest) = header.strip_prefix("fixup!") {
        (AutosquashMarker::Fixup, rest)
    } else if let Some(rest) = header.strip_prefix("squash!") {
        (AutosquashMarker::Squash, rest)
    } else if let Some(rest) = header.strip_prefix("amend!") {
        (AutosquashMarker::Amend, rest)
    } else {
        return None;
    };
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
}
