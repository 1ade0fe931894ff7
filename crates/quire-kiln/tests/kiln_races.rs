//! The kiln's read tools while another program swaps a folder of the vault
//! for a symbolic link out of it, over and over (the real folder waits
//! inside the root as `notes.real`, a name the tools may list): no call
//! ever returns a byte of what lies outside or panics, and once the
//! swapping stops the index, kept fresh by its watcher, settles on the
//! vault as it is.

use std::fs;
use std::os::unix::fs::symlink;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use quire_fs::Workspace;
use quire_kiln::{
    KilnTools, ListNotesRequest, PropertySearchRequest, ReadMetadataRequest, ReadNoteRequest,
    TextSearchRequest,
};

const SECRET: &str = "SECRET-OUTSIDE";

#[test]
fn swapping_a_folder_for_a_link_out_never_shows_what_is_outside() {
    let vault = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let root = vault.path().to_path_buf();
    fs::create_dir(root.join("notes")).unwrap();
    fs::create_dir(outside.path().join("notes")).unwrap();
    for name in ["a", "b", "c"] {
        fs::write(
            root.join(format!("notes/{name}.md")),
            format!("---\nstatus: inside\n---\nnote {name} inside [[{name}]]\n"),
        )
        .unwrap();
        fs::write(
            outside.path().join(format!("notes/{name}.md")),
            format!("---\nstatus: {SECRET}\n---\n{SECRET} {name}\n"),
        )
        .unwrap();
    }
    fs::write(root.join("Home.md"), "[[a]] [[b]]\n").unwrap();

    let tools = Arc::new(KilnTools::new(Workspace::new(&root).unwrap()));
    tools.start_indexing();
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (root, away, stop) = (
            root.clone(),
            outside.path().join("notes"),
            Arc::clone(&stop),
        );
        thread::spawn(move || {
            let mut swaps = 0u32;
            while !stop.load(Ordering::SeqCst) {
                fs::rename(root.join("notes"), root.join("notes.real")).unwrap();
                symlink(&away, root.join("notes")).unwrap();
                thread::yield_now();
                fs::remove_file(root.join("notes")).unwrap();
                fs::rename(root.join("notes.real"), root.join("notes")).unwrap();
                swaps += 1;
            }
            swaps
        })
    };

    let callers: Vec<_> = (0..2)
        .map(|caller| {
            let tools = Arc::clone(&tools);
            thread::spawn(move || {
                let started = Instant::now();
                let mut calls = 0u32;
                while started.elapsed() < Duration::from_millis(1500) {
                    let name = ["a", "b", "c"][(calls as usize + caller) % 3];
                    let shown = match calls % 6 {
                        0 => format!(
                            "{:?}",
                            tools.read_note(&ReadNoteRequest {
                                path: format!("notes/{name}"),
                                start_line: None,
                                end_line: None,
                                head: None,
                                tail: None,
                            })
                        ),
                        1 => format!(
                            "{:?}",
                            tools.read_metadata(&ReadMetadataRequest {
                                path: format!("notes/{name}"),
                            })
                        ),
                        2 => format!(
                            "{:?}",
                            tools.list_notes(&ListNotesRequest {
                                folder: None,
                                recursive: true,
                                include_frontmatter: true,
                                limit: 100,
                                cursor: None,
                            })
                        ),
                        // The query is the secret: what was found must be nothing.
                        3 => match tools.text_search(&TextSearchRequest::new(SECRET)) {
                            Ok(found) => format!("{} {:?}", found.total_matches, found.matches)
                                .replace("0 []", ""),
                            Err(error) => error.to_string(),
                        },
                        4 => {
                            let request = PropertySearchRequest::new(
                                serde_json::json!({"status": SECRET})
                                    .as_object()
                                    .unwrap()
                                    .clone(),
                            );
                            match tools.property_search(&request) {
                                Ok(found) => format!("{:?}", found.notes).replace("[]", ""),
                                Err(error) => error.to_string(),
                            }
                        }
                        _ => format!(
                            "{:?}",
                            tools.read_resource(&format!("kiln:///notes/{name}.md"))
                        ),
                    };
                    assert!(
                        !shown.contains(SECRET),
                        "call {calls} showed what is outside: {shown}"
                    );
                    if calls % 6 == 3 || calls % 6 == 4 {
                        assert!(!shown.contains("notes"), "found outside: {shown}");
                    }
                    calls += 1;
                }
                calls
            })
        })
        .collect();
    let calls: u32 = callers
        .into_iter()
        .map(|caller| caller.join().unwrap())
        .sum();
    stop.store(true, Ordering::SeqCst);
    let swaps = swapper.join().unwrap();
    assert!(calls > 30 && swaps > 20, "{calls} calls, {swaps} swaps");

    // Once the swapping stops, the index settles on the vault as it is.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let list = tools
            .list_notes(&ListNotesRequest {
                folder: None,
                recursive: true,
                include_frontmatter: false,
                limit: 100,
                cursor: None,
            })
            .unwrap();
        let paths: Vec<String> = list.notes.into_iter().map(|note| note.path).collect();
        if paths == ["Home.md", "notes/a.md", "notes/b.md", "notes/c.md"] {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the index did not settle: {paths:?}"
        );
        thread::sleep(Duration::from_millis(20));
    }
}
