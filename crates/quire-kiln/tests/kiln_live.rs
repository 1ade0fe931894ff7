//! The kiln's index kept fresh while the server runs: notes written, added,
//! moved and deleted by another program are seen by the next call (through
//! the file watcher, or by polling without one), links and backlinks follow
//! the notes, and what must never be indexed (links out of the root, FIFOs,
//! hidden folders) stays out when it appears later. `get_kiln_info`
//! reports it all without waiting.

#[allow(dead_code)]
#[path = "support/kiln_calls.rs"]
mod kiln_calls;

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::time::{Duration, Instant};

use kiln_calls::listed;
use quire_fs::Workspace;
use quire_kiln::{KilnInfoRequest, KilnTools, POLL_INTERVAL, ReadMetadataRequest};

fn tools(root: &Path, watch: bool) -> KilnTools {
    KilnTools::new(Workspace::new(root).unwrap()).with_watcher(watch)
}

fn backlinks(tools: &KilnTools, path: &str) -> Vec<String> {
    let request = ReadMetadataRequest {
        path: path.to_owned(),
    };
    tools.read_metadata(&request).unwrap().backlinks
}

/// Waits (up to 10 s) until `holds` is true of what `look` returns; the
/// watcher's events arrive on their own thread, a little later.
fn eventually<T: std::fmt::Debug>(look: impl Fn() -> T, holds: impl Fn(&T) -> bool) -> T {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let seen = look();
        if holds(&seen) {
            return seen;
        }
        assert!(Instant::now() < deadline, "still {seen:?} after 10 s");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn vault() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::write(root.join("Home.md"), "See [[Plan]] and [[Ideas]].\n").unwrap();
    fs::create_dir(root.join("work")).unwrap();
    fs::write(root.join("work/Plan.md"), "# Plan\nBack [[Home]].\n").unwrap();
    fs::write(root.join("work/Log.md"), "Nothing.\n").unwrap();
    dir
}

#[test]
fn notes_added_edited_moved_and_deleted_are_seen_by_the_next_call() {
    let dir = vault();
    let root = dir.path();
    let tools = tools(root, true);
    assert_eq!(listed(&tools), ["Home.md", "work/Log.md", "work/Plan.md"]);

    // A new note takes the link that led nowhere.
    fs::write(root.join("Ideas.md"), "Fresh.\n").unwrap();
    eventually(
        || listed(&tools),
        |notes| notes.contains(&"Ideas.md".to_owned()),
    );
    assert_eq!(backlinks(&tools, "Ideas"), ["Home.md"]);

    // An edit elsewhere changes the backlinks of a note not read.
    fs::write(root.join("Home.md"), "Only [[Plan]] now.\n").unwrap();
    eventually(|| backlinks(&tools, "Ideas"), Vec::is_empty);
    assert_eq!(backlinks(&tools, "work/Plan"), ["Home.md"]);

    // A folder renamed moves its notes; the link by name follows.
    fs::rename(root.join("work"), root.join("done")).unwrap();
    let notes = eventually(
        || listed(&tools),
        |notes| notes.contains(&"done/Plan.md".to_owned()),
    );
    assert_eq!(
        notes,
        ["Home.md", "Ideas.md", "done/Log.md", "done/Plan.md"]
    );
    assert_eq!(backlinks(&tools, "done/Plan"), ["Home.md"]);

    // Deleted notes go, with their links.
    fs::remove_file(root.join("Home.md")).unwrap();
    fs::remove_dir_all(root.join("done")).unwrap();
    eventually(|| listed(&tools), |notes| notes == &["Ideas.md".to_owned()]);
}

#[test]
fn what_appears_later_is_held_to_the_same_rules_as_at_the_build() {
    let dir = vault();
    let root = dir.path();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("Secret.md"), "secret [[Home]]\n").unwrap();
    let tools = tools(root, true);
    let before = listed(&tools);

    symlink(outside.path().join("Secret.md"), root.join("Leak.md")).unwrap();
    symlink(outside.path(), root.join("away")).unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        root.join("Pipe.md"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
    fs::create_dir(root.join(".obsidian")).unwrap();
    fs::write(root.join(".obsidian/Hidden.md"), "x\n").unwrap();
    fs::create_dir(root.join("inside")).unwrap();
    symlink(root.join("work/Log.md"), root.join("inside/Alias.md")).unwrap();
    // A marker written last: once it is seen, so were the others.
    fs::write(root.join("Marker.md"), "m\n").unwrap();

    let notes = eventually(
        || listed(&tools),
        |notes| notes.contains(&"Marker.md".to_owned()),
    );
    let mut expected = before.clone();
    expected.extend(["Marker.md".to_owned(), "inside/Alias.md".to_owned()]);
    expected.sort();
    // The folder event for `inside` may come before its link: wait for it.
    let notes = if notes == expected {
        notes
    } else {
        eventually(|| listed(&tools), |notes| notes == &expected)
    };
    assert_eq!(notes, expected);
    assert!(
        backlinks(&tools, "Home")
            .iter()
            .all(|path| !path.contains("Secret"))
    );
}

#[test]
fn without_a_watcher_the_root_is_polled() {
    let dir = vault();
    let root = dir.path();
    let tools = tools(root, false);
    assert_eq!(listed(&tools).len(), 3);
    fs::write(root.join("Later.md"), "x\n").unwrap();
    let started = Instant::now();
    eventually(
        || listed(&tools),
        |notes| notes.contains(&"Later.md".to_owned()),
    );
    assert!(started.elapsed() < POLL_INTERVAL * 3);
    let info = tools
        .get_kiln_info(&KilnInfoRequest { detailed: true })
        .unwrap();
    let details = info.index.unwrap();
    assert_eq!(details.watcher, "unavailable");
    assert_eq!(details.watcher_detail.as_deref(), Some("turned off"));
}

#[test]
fn kiln_info_counts_notes_words_links_and_problems() {
    let dir = vault();
    let root = dir.path();
    fs::write(
        root.join("Broken.md"),
        "---\ntitle: [x\n---\nfour words are here\n",
    )
    .unwrap();
    fs::write(root.join("Bytes.md"), b"\xff\xfe not text\n").unwrap();
    fs::create_dir(root.join("other")).unwrap();
    fs::write(root.join("other/Plan.md"), "Another plan.\n").unwrap();
    fs::write(
        root.join("Pics.md"),
        "![[diagram.png]] [[Nowhere]] ![[missing.png]]\n",
    )
    .unwrap();
    fs::write(root.join("diagram.png"), b"\x89PNG").unwrap();
    let tools = tools(root, true);

    // Once built (list_notes waits for it), the totals are the notes'.
    let count = listed(&tools).len();
    let info = tools
        .get_kiln_info(&KilnInfoRequest { detailed: true })
        .unwrap();
    assert_eq!((info.state, info.note_count), ("ready", count));
    assert_eq!(info.root_uri, "kiln:///");
    let size: u64 = [
        "Home.md",
        "work/Plan.md",
        "work/Log.md",
        "Broken.md",
        "Bytes.md",
        "other/Plan.md",
        "Pics.md",
    ]
    .iter()
    .map(|path| fs::metadata(root.join(path)).unwrap().len())
    .sum();
    assert_eq!(info.total_size, size);
    assert!(info.total_words >= 4 + 4 + 1 + 2);
    let details = info.index.unwrap();
    assert_eq!(details.notes_indexed, count);
    assert_eq!(details.notes_with_problems, 2, "{details:?}");
    // [[Ideas]], [[Nowhere]] and the missing picture; not the one there.
    assert_eq!(details.broken_links, 3, "{details:?}");
    // [[Plan]] from Home: work/Plan.md and other/Plan.md.
    assert_eq!(details.ambiguous_links, 1, "{details:?}");
    assert_eq!(details.watcher, "watching");
    assert!(details.last_scan.unwrap().ends_with('Z'));

    let brief = tools.get_kiln_info(&KilnInfoRequest::default()).unwrap();
    assert!(brief.index.is_none());
    assert_eq!(brief.note_count, count);
}

#[test]
fn kiln_info_answers_while_the_index_is_built() {
    // A vault large enough that the build is still under way when asked.
    let dir = tempfile::tempdir().unwrap();
    for n in 0..3_000 {
        fs::write(
            dir.path().join(format!("n{n}.md")),
            format!("note {n} [[n{}]]\n", n + 1),
        )
        .unwrap();
    }
    let tools = tools(dir.path(), true);
    tools.start_indexing();
    let info = tools
        .get_kiln_info(&KilnInfoRequest { detailed: true })
        .unwrap();
    if info.state == "building" {
        assert_eq!(info.note_count, 0);
        assert!(info.index.unwrap().notes_indexed <= 3_000);
    } else {
        assert_eq!(info.note_count, 3_000);
    }
    let done = eventually(
        || tools.get_kiln_info(&KilnInfoRequest::default()).unwrap(),
        |info| info.state == "ready",
    );
    assert_eq!(done.note_count, 3_000);
}

#[test]
fn a_link_to_an_attachment_follows_the_file_as_it_comes_and_goes() {
    let dir = vault();
    let root = dir.path();
    fs::create_dir(root.join("img")).unwrap();
    fs::write(root.join("Pics.md"), "![[chart.png]] [[report.pdf]]\n").unwrap();
    fs::write(root.join("img/chart.png"), b"\x89PNG").unwrap();
    for watch in [true, false] {
        let tools = tools(root, watch);
        let links = |tools: &KilnTools| {
            let request = ReadMetadataRequest {
                path: "Pics.md".to_owned(),
            };
            let metadata = tools.read_metadata(&request).unwrap();
            metadata
                .links
                .iter()
                .map(|link| link.path.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(links(&tools), [Some("img/chart.png".to_owned()), None]);
        fs::write(root.join("report.pdf"), b"%PDF").unwrap();
        eventually(
            || links(&tools),
            |now| now[1].as_deref() == Some("report.pdf"),
        );
        fs::remove_file(root.join("report.pdf")).unwrap();
        eventually(|| links(&tools), |now| now[1].is_none());
    }
}

/// An attachment is a regular file beneath the root: a FIFO, a folder or a
/// link out of the root named like a picture is never one (its link stays
/// broken), and the FIFO is never opened (the index would hang).
#[test]
fn only_regular_files_inside_the_root_are_attachments() {
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("secret.png"), b"\x89PNG").unwrap();
    let dir = vault();
    let root = dir.path();
    let fifo = root.join("pipe.png");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    fs::create_dir(root.join("folder.png")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.png"), root.join("out.png")).unwrap();
    fs::write(root.join("real.png"), b"\x89PNG").unwrap();
    fs::write(
        root.join("Pics.md"),
        "![[pipe.png]] ![[folder.png]] ![[out.png]] ![[real.png]]\n",
    )
    .unwrap();
    for watch in [true, false] {
        let tools = tools(root, watch);
        let request = ReadMetadataRequest {
            path: "Pics.md".to_owned(),
        };
        let links: Vec<Option<String>> = tools
            .read_metadata(&request)
            .unwrap()
            .links
            .into_iter()
            .map(|link| link.path)
            .collect();
        assert_eq!(links, [None, None, None, Some("real.png".to_owned())]);
    }
}
