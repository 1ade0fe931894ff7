use super::*;

fn note(path: &str) -> NotePath {
    NotePath::parse_relative(path).unwrap()
}

fn kiln() -> NoteSet {
    [
        "index",
        "Projects/Plan",
        "archive/plan",
        "archive/2023/plan",
        "people/alice",
        "team/alice",
        "daily/2024-01-01",
        "daily/v1.2",
        "My Note",
        "日本語/メモ",
        "caf\u{e9}",
        "a/b/deep",
        "x/b/deep",
        "Case/Exact",
        "case/exact",
    ]
    .into_iter()
    .map(note)
    .collect()
}

fn resolved(path: &str) -> Resolution {
    Resolution::Resolved(note(path))
}

fn ambiguous(candidates: &[&str]) -> Resolution {
    Resolution::Ambiguous {
        chosen: note(candidates[0]),
        candidates: candidates.iter().map(|path| note(path)).collect(),
        match_count: candidates.len(),
    }
}

#[test]
fn link_targets_resolve_as_obsidian_does() {
    let notes = kiln();
    let source = note("daily/2024-01-01");
    let cases = [
        // Bare names: the stem anywhere, ignoring case; `.md` optional.
        ("index", resolved("index")),
        ("INDEX", resolved("index")),
        ("index.md", resolved("index")),
        ("Index.MD", resolved("index")),
        ("v1.2", resolved("daily/v1.2")),
        (" index ", resolved("index")),
        // Same stem in several folders: the shortest path, flagged.
        (
            "plan",
            ambiguous(&["archive/plan", "Projects/Plan", "archive/2023/plan"]),
        ),
        ("alice", ambiguous(&["team/alice", "people/alice"])),
        // Headings, block ids and aliases are cut off first.
        ("index#Goals", resolved("index")),
        ("index#^block-1", resolved("index")),
        ("index#Goals#Sub", resolved("index")),
        ("index|the index", resolved("index")),
        ("people/alice#^x|Alice", resolved("people/alice")),
        ("#Heading", resolved("daily/2024-01-01")),
        ("#^block", resolved("daily/2024-01-01")),
        // Paths from the root, `.md` optional, case ignored.
        ("people/alice", resolved("people/alice")),
        ("people/alice.md", resolved("people/alice")),
        ("PROJECTS/plan", resolved("Projects/Plan")),
        ("/people/alice", resolved("people/alice")),
        ("people//./alice", resolved("people/alice")),
        // Exact case wins over other cases without ambiguity.
        ("Case/Exact", resolved("Case/Exact")),
        ("case/exact", resolved("case/exact")),
        ("CASE/EXACT", ambiguous(&["Case/Exact.md", "case/exact.md"])),
        // The end of a path, when no path from the root matches.
        ("2023/plan", resolved("archive/2023/plan")),
        ("b/deep", ambiguous(&["a/b/deep", "x/b/deep"])),
        // Relative to the source note's folder.
        ("./v1.2", resolved("daily/v1.2")),
        ("../index", resolved("index")),
        ("../people/alice.md", resolved("people/alice")),
        ("../../index", Resolution::Unresolved),
        ("./plan", Resolution::Unresolved),
        ("../b/deep", Resolution::Unresolved),
        // Spaces and Unicode, NFD target for an NFC name.
        ("My Note", resolved("My Note")),
        ("my note#Part", resolved("My Note")),
        ("メモ", resolved("日本語/メモ")),
        ("日本語/メモ", resolved("日本語/メモ")),
        ("cafe\u{301}", resolved("caf\u{e9}")),
        ("CAFE\u{301}", resolved("caf\u{e9}")),
        // Nothing, or not a note.
        ("missing", Resolution::Unresolved),
        ("image.png", Resolution::Unresolved),
        ("people/", Resolution::Unresolved),
        ("a\0b", Resolution::Unresolved),
        ("..", Resolution::Unresolved),
        ("/", Resolution::Unresolved),
    ];
    for (target, expected) in cases {
        assert_eq!(resolve(target, &source, &notes), expected, "{target:?}");
    }
}

#[test]
fn relative_links_from_a_note_at_the_root() {
    let notes = kiln();
    let source = note("index");
    assert_eq!(resolve("./My Note", &source, &notes), resolved("My Note"));
    assert_eq!(resolve("../index", &source, &notes), Resolution::Unresolved);
}

#[test]
fn a_resolution_says_where_it_goes() {
    let unresolved = Resolution::Unresolved;
    assert_eq!(unresolved.path(), None);
    assert!(!unresolved.is_ambiguous());
    let ambiguous = ambiguous(&["a/x", "b/x"]);
    assert_eq!(ambiguous.path(), Some(&note("a/x")));
    assert!(ambiguous.is_ambiguous());
}

#[test]
fn hostile_targets_resolve_cheaply() {
    let notes: NoteSet = (0..10_000)
        .map(|i| note(&format!("f{}/n{i}", i % 50)))
        .collect();
    let source = note("f0/n0");
    let long = format!("{}x", "../".repeat(100_000));
    assert_eq!(resolve(&long, &source, &notes), Resolution::Unresolved);
    let deep = "a/".repeat(100_000);
    assert_eq!(resolve(&deep, &source, &notes), Resolution::Unresolved);
    let hashes = "#".repeat(100_000);
    assert_eq!(resolve(&hashes, &source, &notes), resolved("f0/n0"));
    assert_eq!(resolve("N4242", &source, &notes), resolved("f42/n4242"));
}

#[test]
fn thousands_of_matches_list_the_first_few_and_count_all() {
    let notes: NoteSet = (0..5_000)
        .map(|i| note(&format!("f{i:04}/index")))
        .collect();
    let source = note("f0000/index");
    let Resolution::Ambiguous {
        chosen,
        candidates,
        match_count,
    } = resolve("Index", &source, &notes)
    else {
        panic!("expected an ambiguous link");
    };
    assert_eq!(chosen, note("f0000/index"));
    assert_eq!(candidates.len(), MAX_CANDIDATES);
    assert_eq!(candidates[MAX_CANDIDATES - 1], note("f0015/index"));
    assert_eq!(match_count, 5_000);
}

/// A link by path, relative path, and bare name (ambiguous: the shortest path wins), or to nothing.
#[test]
fn a_link_resolves_as_obsidian_resolves_it() {
    let note = |path| NotePath::parse_relative(path).unwrap();
    let notes: NoteSet = [note("Plan"), note("archive/plan"), note("daily/today")]
        .into_iter()
        .collect();
    let source = note("daily/today");

    assert_eq!(
        resolve("archive/Plan#Goals", &source, &notes),
        Resolution::Resolved(note("archive/plan"))
    );
    assert_eq!(
        resolve("../Plan.md", &source, &notes),
        Resolution::Resolved(note("Plan"))
    );
    let bare = resolve("plan", &source, &notes);
    assert_eq!(bare.path(), Some(&note("Plan")));
    assert!(bare.is_ambiguous());
    assert_eq!(resolve("missing", &source, &notes), Resolution::Unresolved);
}

/// Issue 25: of several notes with a bare name, the one in the linking
/// note's own folder (a note's link to its own name is to itself), then the
/// shortest path counted in UTF-16 code units as Obsidian counts it.
#[test]
fn the_own_folder_comes_first_then_the_shortest_path_in_utf16() {
    let notes: NoteSet = [
        "Hotkeys",
        "en/Hotkeys",
        "de/Hotkeys",
        "日本語/x",
        "abcdefgh/x",
    ]
    .into_iter()
    .map(note)
    .collect();
    let chosen = |target: &str, from: &str| {
        resolve(target, &note(from), &notes)
            .path()
            .map(ToString::to_string)
    };
    assert_eq!(
        chosen("Hotkeys", "de/Intro").as_deref(),
        Some("de/Hotkeys.md")
    );
    assert_eq!(
        chosen("hotkeys#Custom", "en/Hotkeys").as_deref(),
        Some("en/Hotkeys.md")
    );
    assert_eq!(chosen("Hotkeys", "fr/Intro").as_deref(), Some("Hotkeys.md"));
    assert_eq!(chosen("Hotkeys", "Index").as_deref(), Some("Hotkeys.md"));
    // 8 UTF-16 units against 13 (in bytes, 14 against 13).
    assert_eq!(chosen("x", "Index").as_deref(), Some("日本語/x.md"));
    assert!(resolve("Hotkeys", &note("de/Intro"), &notes).is_ambiguous());
}

#[test]
fn a_link_to_an_attachment_that_exists_resolves_to_its_file() {
    let mut notes = kiln();
    for path in [
        "img/diagram.png",
        "Projects/diagram.png",
        "docs/Scan.pdf",
        "v1.2",
    ] {
        notes.insert_attachment(path.to_owned());
    }
    // `v1.2` has no accepted extension: it is never an attachment.
    notes.insert(note("img/diagram.png"));
    let attachment = |path: &str| Resolution::Attachment(path.to_owned());
    let cases = [
        // Own folder first, then the shortest path.
        (
            "diagram.png",
            "Projects/Plan",
            attachment("Projects/diagram.png"),
        ),
        ("diagram.png", "index", attachment("img/diagram.png")),
        ("DIAGRAM.PNG", "index", attachment("img/diagram.png")),
        (
            "img/diagram.png",
            "Projects/Plan",
            attachment("img/diagram.png"),
        ),
        ("/docs/scan.PDF", "index", attachment("docs/Scan.pdf")),
        ("Scan.pdf#page=3", "index", attachment("docs/Scan.pdf")),
        (
            "../img/diagram.png",
            "Projects/Plan",
            attachment("img/diagram.png"),
        ),
        (
            "./diagram.png",
            "Projects/Plan",
            attachment("Projects/diagram.png"),
        ),
        // A missing file is no link; a note named so still is.
        ("missing.png", "index", Resolution::Unresolved),
        ("./Scan.pdf", "index", Resolution::Unresolved),
        ("v1.2", "index", resolved("daily/v1.2")),
        ("img/diagram.png.md", "index", resolved("img/diagram.png")),
    ];
    for (target, source, expected) in cases {
        assert_eq!(
            resolve(target, &note(source), &notes),
            expected,
            "{target} from {source}"
        );
    }
    assert!(notes.remove_attachment("img/diagram.png"));
    assert_eq!(
        resolve("img/diagram.png", &note("index"), &notes),
        resolved("img/diagram.png"),
        "a removed attachment is gone, and img/diagram.png is read as a note's name",
    );
}
