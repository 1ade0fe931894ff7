//! The kiln's notes as resources, through `KilnTools`: every note once,
//! a page at a time, by a URI that reads it back whole; a forged cursor
//! and URIs that name no note are refused with what to pass.

use quire_fs::Workspace;
use quire_kiln::{KilnTools, RESOURCE_PAGE, note_path_of_uri};

#[test]
fn every_note_is_listed_once_and_read_back_by_its_uri() {
    let dir = tempfile::tempdir().unwrap();
    let count = RESOURCE_PAGE * 2 + 7;
    for n in 0..count {
        let folder = dir.path().join(format!("f{}", n % 3));
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(
            folder.join(format!("note {n} #x.md")),
            format!("text {n}\n"),
        )
        .unwrap();
    }
    let tools = KilnTools::new(Workspace::new(dir.path()).unwrap());
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let page = tools.list_resources(cursor.as_deref()).unwrap();
        pages += 1;
        assert!(page.notes.len() <= RESOURCE_PAGE);
        seen.extend(page.notes);
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert_eq!((pages, seen.len()), (3, count));
    let paths: Vec<&str> = seen.iter().map(|note| note.path.as_str()).collect();
    let mut sorted = paths.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(paths, sorted, "not sorted, or a note twice");
    for note in seen.iter().step_by(97) {
        assert_eq!(note_path_of_uri(&note.uri).unwrap(), note.path);
        let read = tools.read_resource(&note.uri).unwrap();
        let n = note
            .title
            .strip_prefix("note ")
            .unwrap()
            .strip_suffix(" #x")
            .unwrap();
        assert_eq!(read.text, format!("text {n}\n"));
        assert_eq!(read.uri, note.uri);
    }
    let forged = tools.list_resources(Some("p1.zz")).unwrap_err();
    assert!(forged.is_invalid(), "{forged}");
    let bad = tools
        .read_resource("kiln:///f0/..%2F..%2Fetc%2Fpasswd")
        .unwrap_err();
    assert!(bad.is_invalid(), "{bad}");
}
