use std::path::Path;

use super::*;
use crate::error::MAX_SHOWN_CHARS;

const ROOT: &str = "/home/me/vault";

fn root() -> &'static Path {
    Path::new(ROOT)
}

#[test]
fn arguments_normalize_to_one_path() {
    let cases = [
        ("plan", "plan.md"),
        ("plan.md", "plan.md"),
        ("Plan.MD", "Plan.MD"),
        ("v1.2", "v1.2.md"),
        ("./plan", "plan.md"),
        ("a//b", "a/b.md"),
        ("a/./b", "a/b.md"),
        ("a/../b.md", "b.md"),
        ("a/b/../../c", "c.md"),
        (".obsidian/../plan", "plan.md"),
        ("cafe\u{301}/cre\u{300}me", "caf\u{e9}/cr\u{e8}me.md"),
        ("caf\u{e9}", "caf\u{e9}.md"),
        (
            "notes with spaces/日本語 ✨",
            "notes with spaces/日本語 ✨.md",
        ),
        ("C:notes", "C:notes.md"),
        (" plan.md", " plan.md"),
        ("/home/me/vault/a/b", "a/b.md"),
        ("/home/me/vault//a/./b", "a/b.md"),
        ("/home/me/other/../vault/a", "a.md"),
        ("/home/me/vault/x/../a", "a.md"),
        ("/home/me/vault/../vault/a", "a.md"),
    ];
    for (arg, expected) in cases {
        let parsed = NotePath::parse(arg, root());
        assert_eq!(
            parsed.as_ref().map(NotePath::as_str),
            Ok(expected),
            "{arg:?}"
        );
    }
}

#[test]
fn nfd_and_nfc_spellings_are_one_note() {
    let nfd = NotePath::parse_relative("Ame\u{301}lie").unwrap();
    let nfc = NotePath::parse_relative("Am\u{e9}lie").unwrap();
    assert_eq!(nfd, nfc);
    let root_nfd = Path::new("/Users/Ame\u{301}lie/vault");
    assert_eq!(
        NotePath::parse("/Users/Am\u{e9}lie/vault/a", root_nfd)
            .unwrap()
            .as_str(),
        "a.md"
    );
}

/// Which variant a refusal is, by name, so one table covers them all.
fn variant(error: &PathError) -> &'static str {
    match error {
        PathError::Empty => "Empty",
        PathError::NulByte { .. } => "NulByte",
        PathError::Backslash { .. } => "Backslash",
        PathError::DrivePrefix { .. } => "DrivePrefix",
        PathError::OutsideRoot { .. } => "OutsideRoot",
        PathError::EscapesRoot { .. } => "EscapesRoot",
        PathError::Hidden { .. } => "Hidden",
        PathError::NotANote { .. } => "NotANote",
        PathError::TrailingWhitespace { .. } => "TrailingWhitespace",
        PathError::PathTooLong { .. } => "PathTooLong",
        PathError::SegmentTooLong { .. } => "SegmentTooLong",
    }
}

#[test]
fn refusals_name_the_problem_and_what_to_write() {
    let long_name = "n".repeat(253);
    let long_path = format!("{}/end", vec!["d".repeat(200); 21].join("/"));
    let huge = "a/".repeat(MAX_PATH_BYTES * 3);
    let cases: Vec<(&str, &str, &str)> = vec![
        ("", "Empty", "give the note's path"),
        ("a\0b", "NulByte", "NUL byte"),
        ("notes\\a.md", "Backslash", "as in `notes/a.md`"),
        ("\\\\server\\share\\a", "Backslash", "with `/`"),
        ("C:\\notes\\a.md", "DrivePrefix", "Windows drive `C:`"),
        ("c:/notes/a.md", "DrivePrefix", "`c:`"),
        ("D:", "DrivePrefix", "relative to the kiln root"),
        ("./C:/a", "DrivePrefix", "`C:`"),
        ("/home/me/vault/C:/a", "DrivePrefix", "`C:`"),
        ("/etc/passwd", "OutsideRoot", "write `etc/passwd`"),
        ("/home/me/vaultx/a", "OutsideRoot", "outside the kiln"),
        (
            "/home/me/vault/../secrets",
            "OutsideRoot",
            "relative to the kiln root",
        ),
        ("//a", "OutsideRoot", "write `a`"),
        ("..", "EscapesRoot", "climbs above"),
        ("../secrets", "EscapesRoot", "inside the kiln"),
        ("a/../../b", "EscapesRoot", "`..`"),
        (".obsidian/app.json", "Hidden", "`.obsidian`"),
        ("a/.git/config", "Hidden", "`.git`"),
        (".trash/old", "Hidden", "`.trash`"),
        (".quire/state", "Hidden", "`.quire`"),
        ("notes/.draft", "Hidden", "`.draft`"),
        (".md", "Hidden", "hidden name"),
        ("/home/me/vault/.git/x", "Hidden", "`.git`"),
        ("notes/", "NotANote", "names a folder"),
        ("notes/.", "NotANote", "names a folder"),
        ("notes/a/..", "NotANote", "names a folder"),
        (".", "NotANote", "names a folder"),
        ("./", "NotANote", "names a folder"),
        ("/home/me/vault", "NotANote", "names a folder"),
        ("/home/me/vault/", "NotANote", "names a folder"),
        ("notes/a.md ", "TrailingWhitespace", "as in `notes/a.md`"),
        ("a.MD\n", "TrailingWhitespace", "as in `a.MD`"),
        ("b ", "TrailingWhitespace", "as in `b`"),
        ("notes/plan\t", "TrailingWhitespace", "as in `notes/plan`"),
        (&long_name, "SegmentTooLong", "256 bytes"),
        (&long_path, "PathTooLong", "4096 bytes"),
        (&huge, "PathTooLong", "give a shorter path"),
    ];
    for (arg, expected, says) in cases {
        let error = NotePath::parse(arg, root()).expect_err(arg);
        assert_eq!(variant(&error), expected, "{arg:?}: {error}");
        let message = error.to_string();
        assert!(message.contains(says), "{arg:?}: {message}");
        assert!(
            !message.contains('\0') && !message.contains('\n'),
            "{message}"
        );
        assert!(
            message.chars().count() < 2 * MAX_SHOWN_CHARS + 400,
            "{message}"
        );
    }
}

#[test]
fn without_a_root_every_absolute_path_is_outside() {
    for arg in ["/a", "/home/me/vault/a", "/"] {
        let error = NotePath::parse_relative(arg).unwrap_err();
        assert_eq!(variant(&error), "OutsideRoot", "{arg:?}");
    }
    let error = NotePath::parse("/a", Path::new("relative/root")).unwrap_err();
    assert_eq!(variant(&error), "OutsideRoot");
}

#[test]
fn the_filesystem_root_contains_every_absolute_path() {
    let note = NotePath::parse("/etc/notes/a", Path::new("/")).unwrap();
    assert_eq!(note.as_str(), "etc/notes/a.md");
}

#[test]
fn a_name_at_the_limit_is_accepted_with_its_extension() {
    let name = "n".repeat(MAX_SEGMENT_BYTES - 3);
    assert_eq!(
        NotePath::parse_relative(&name).unwrap().file_name().len(),
        255
    );
    let error = NotePath::parse_relative(&format!("{name}x")).unwrap_err();
    assert!(
        matches!(error, PathError::SegmentTooLong { length: 256, .. }),
        "{error}"
    );
}

#[test]
fn hostile_arguments_are_quoted_escaped_and_clipped() {
    let arg = format!("/\u{1b}[2J{}", "é".repeat(5000));
    let message = NotePath::parse(&arg, root()).unwrap_err().to_string();
    assert!(!message.contains('\u{1b}'), "{message}");
    assert!(message.contains("\\u{1b}[2J"), "{message}");
    assert!(message.contains('…'));
}

#[test]
fn note_parts() {
    let note = NotePath::parse_relative("projects/2024/Plan.MD").unwrap();
    assert_eq!(note.file_name(), "Plan.MD");
    assert_eq!(note.stem(), "Plan");
    assert_eq!(note.folder().as_str(), "projects/2024");
    assert_eq!(note.to_string(), "projects/2024/Plan.MD");
    let top = NotePath::parse_relative("index").unwrap();
    assert_eq!(top.file_name(), "index.md");
    assert!(top.folder().is_root());
    assert_eq!(serde_json::to_string(&top).unwrap(), "\"index.md\"");
}

#[test]
fn folder_arguments() {
    let cases = [
        ("", ""),
        (".", ""),
        ("./", ""),
        ("a/..", ""),
        ("/home/me/vault", ""),
        ("/home/me/vault/", ""),
        ("projects", "projects"),
        ("projects/", "projects"),
        ("projects//2024/", "projects/2024"),
        ("plan.md", "plan.md"),
        ("cafe\u{301}", "caf\u{e9}"),
    ];
    for (arg, expected) in cases {
        let parsed = FolderPath::parse(arg, root());
        assert_eq!(
            parsed.as_ref().map(FolderPath::as_str),
            Ok(expected),
            "{arg:?}"
        );
    }
    for (arg, expected) in [
        ("..", "EscapesRoot"),
        ("/", "OutsideRoot"),
        (".obsidian", "Hidden"),
        ("a\\b", "Backslash"),
        ("C:/", "DrivePrefix"),
        ("a\0", "NulByte"),
    ] {
        let error = FolderPath::parse(arg, root()).unwrap_err();
        assert_eq!(variant(&error), expected, "{arg:?}");
    }
    assert_eq!(FolderPath::root(), FolderPath::parse_relative("").unwrap());
}

#[test]
fn folders_contain_notes_by_whole_names() {
    let note = |path| NotePath::parse_relative(path).unwrap();
    let folder = |path| FolderPath::parse_relative(path).unwrap();
    assert!(folder("").contains(&note("a")));
    assert!(folder("").contains_directly(&note("a")));
    assert!(!folder("").contains_directly(&note("a/b")));
    assert!(folder("a").contains(&note("a/b/c")));
    assert!(!folder("a").contains_directly(&note("a/b/c")));
    assert!(folder("a/b").contains_directly(&note("a/b/c")));
    assert!(!folder("a").contains(&note("ab/c")));
    assert!(!folder("a").contains(&note("a")));
}

#[test]
fn hidden_paths() {
    for hidden in [".obsidian", ".git/HEAD", "a/.trash/b.md", ".quire", "a/.b"] {
        assert!(is_hidden(hidden), "{hidden}");
    }
    for visible in ["", ".", "./a", "../a", "a/b.md", "a.b/c", "a/b."] {
        assert!(!is_hidden(visible), "{visible}");
    }
}
