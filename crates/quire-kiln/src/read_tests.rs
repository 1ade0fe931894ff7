use std::path::Path;

use super::*;

fn kiln(root: &Path) -> KilnReader {
    KilnReader::new(Workspace::new(root).unwrap())
}

impl KilnReader {
    /// The lines of a note, as a read finds them before the kiln's index is
    /// built: a note not at its own path by walking the root.
    fn read_note(&self, request: &ReadNoteRequest) -> Result<NoteRead, KilnError> {
        self.read_note_finding(request, |path| self.find_by_walking(path))
    }
}

fn whole(path: &str) -> ReadNoteRequest {
    ReadNoteRequest {
        path: path.to_owned(),
        start_line: None,
        end_line: None,
        head: None,
        tail: None,
    }
}

#[test]
fn a_note_is_read_whole_or_in_part_with_its_digest() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("projects")).unwrap();
    std::fs::write(dir.path().join("projects/abc.md"), "abc").unwrap();
    let read = kiln(dir.path()).read_note(&whole("projects/abc")).unwrap();
    assert_eq!(
        (read.path.as_str(), read.content.as_str()),
        ("projects/abc.md", "abc")
    );
    assert_eq!(
        read.sha256,
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    std::fs::write(dir.path().join("projects/lines.md"), "1\n2\n3\n4\n").unwrap();
    let request = ReadNoteRequest {
        start_line: Some(3),
        end_line: Some(9),
        ..whole("./projects/lines.md")
    };
    let read = kiln(dir.path()).read_note(&request).unwrap();
    assert_eq!(
        (read.content.as_str(), read.start_line, read.end_line),
        ("3\n4\n", 3, 4)
    );
    assert_eq!(
        read.clamped.as_deref(),
        Some("the note has 4 lines; the range ends at line 4, not 9")
    );
}

#[test]
fn a_long_note_is_capped_with_where_to_read_on() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("long.md"), "x\n".repeat(10)).unwrap();
    let reader = kiln(dir.path()).with_limits(ExcerptLimits {
        max_lines: 4,
        max_bytes: 1024,
    });
    let read = reader.read_note(&whole("long")).unwrap();
    assert_eq!((read.lines_returned, read.next_start_line), (4, Some(5)));
    assert_eq!(
        read.truncated.as_deref(),
        Some("capped at 4 lines; read on with start_line: 5, end_line: 10")
    );
}

#[test]
fn a_missing_note_names_the_closest_ones() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("areas")).unwrap();
    std::fs::write(dir.path().join("areas/Budget.md"), "").unwrap();
    std::fs::write(dir.path().join("Garden.md"), "").unwrap();
    let error = kiln(dir.path()).read_note(&whole("budget")).unwrap_err();
    assert!(error.is_not_found() && !error.is_invalid());
    assert_eq!(
        error.to_string(),
        "there is no note `budget.md`; did you mean `areas/Budget.md`?"
    );
    let empty = tempfile::tempdir().unwrap();
    assert_eq!(
        kiln(empty.path())
            .read_note(&whole("x"))
            .unwrap_err()
            .to_string(),
        "there is no note `x.md`, nor any with a similar path; list the notes to see those there are"
    );
}

#[test]
fn a_note_named_nfd_on_disk_is_read_by_its_nfc_path() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("Cafe\u{301}.md"), "crème").unwrap();
    let read = kiln(dir.path()).read_note(&whole("Caf\u{e9}")).unwrap();
    assert_eq!(
        (read.path.as_str(), read.content.as_str()),
        ("Caf\u{e9}.md", "crème")
    );
    let read = kiln(dir.path())
        .read_note(&whole("Cafe\u{301}.md"))
        .unwrap();
    assert_eq!(read.content, "crème");
}

#[test]
fn hostile_paths_and_files_are_refused_without_reading_them() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.md"), "SECRET").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::os::unix::fs::symlink(outside.path().join("secret.md"), root.join("out.md")).unwrap();
    std::os::unix::fs::symlink(outside.path(), root.join("elsewhere")).unwrap();
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        root.join("pipe.md"),
        rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
    )
    .unwrap();
    std::fs::create_dir(root.join("folder.md")).unwrap();
    std::fs::write(root.join("latin1.md"), b"caf\xe9").unwrap();
    let big = std::fs::File::create(root.join("big.md")).unwrap();
    big.set_len(MAX_NOTE_BYTES + 1).unwrap();
    std::fs::create_dir(root.join(".obsidian")).unwrap();
    std::fs::write(root.join(".obsidian/x.md"), "hidden").unwrap();

    let reader = kiln(root);
    for (path, invalid, expected) in [
        ("out", true, "outside the workspace"),
        ("elsewhere/secret", true, "outside the workspace"),
        ("../secret", true, "climbs above the kiln root"),
        ("pipe", true, "not a regular file"),
        ("folder", true, "not a regular file"),
        ("latin1", true, "not UTF-8 text (invalid byte at offset 3)"),
        ("big", true, "larger than the limit"),
        (".obsidian/x", true, "hidden"),
        ("a\0b", true, "NUL"),
    ] {
        let error = reader.read_note(&whole(path)).unwrap_err();
        let message = error.to_string();
        assert!(message.contains(expected), "{path:?}: {message}");
        assert_eq!(error.is_invalid(), invalid, "{path:?}: {message}");
        assert!(
            !message.contains("SECRET") && !message.contains(&*root.to_string_lossy()),
            "{message}"
        );
    }
}

#[test]
fn conflicting_line_arguments_are_refused_before_the_file_is_touched() {
    let dir = tempfile::tempdir().unwrap();
    let request = ReadNoteRequest {
        head: Some(2),
        tail: Some(2),
        ..whole("missing")
    };
    let error = kiln(dir.path()).read_note(&request).unwrap_err();
    assert!(matches!(error, KilnError::Selection(_)), "{error}");
    assert!(error.is_invalid());
}

/// The kiln's errors say what is wrong and what to do without naming a
/// tool: the kiln is a library, and the MCP layer (quire-cli) names the
/// tool an agent should call when it maps the error.
#[test]
fn no_error_names_a_tool() {
    use crate::listing::ListError;
    use crate::page::CursorError;
    use crate::properties::PropertySearchError;
    use crate::search::SearchError;
    use crate::semantic_search::SemanticSearchError;
    use crate::write::WriteRefusal;

    const TOOLS: [&str; 10] = [
        "read_note",
        "read_metadata",
        "list_notes",
        "get_kiln_info",
        "text_search",
        "property_search",
        "semantic_search",
        "create_note",
        "update_note",
        "delete_note",
    ];
    let path = "a.md".to_owned();
    let errors = [
        KilnError::NotFound {
            path: path.clone(),
            suggestions: Vec::new(),
        },
        KilnError::NotFound {
            path: path.clone(),
            suggestions: vec!["A.md".to_owned()],
        },
        KilnError::List(ListError::Cursor(CursorError)),
        KilnError::List(ListError::Limit(0)),
        KilnError::Properties(PropertySearchError::Cursor),
        KilnError::Properties(PropertySearchError::NoProperties),
        KilnError::Search(SearchError::EmptyQuery),
        KilnError::SemanticSearch(SemanticSearchError::MinScoreHybrid),
        KilnError::Write(WriteRefusal::Exists { path: path.clone() }),
        KilnError::Write(WriteRefusal::Changed {
            path: path.clone(),
            expected: "00".to_owned(),
        }),
        KilnError::Write(WriteRefusal::Replaced { path: path.clone() }),
        KilnError::Write(WriteRefusal::LinkedNote { path }),
        KilnError::IndexBuilding {
            elapsed: std::time::Duration::from_secs(1),
        },
    ];
    for error in errors {
        let message = error.to_string();
        for tool in TOOLS {
            assert!(!message.contains(tool), "{message}");
        }
    }
}
