//! Making folders and moving files to the trash against the tricks a
//! hostile local user can play: folders swapped for links out while folders
//! are made, files and dangling links where folders should be, read-only
//! parents, absurd depths, trash names taken, files replaced or moved by
//! someone else meanwhile.

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;

use super::*;

use super::tests::Sandbox;

/// The names in `folder`, sorted.
fn names(folder: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(folder)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Nothing appeared outside the root (it holds only the sandbox's secret).
fn outside_untouched(sandbox: &Sandbox) {
    assert_eq!(names(&sandbox.outside), ["secret.md"]);
}

fn umask() -> u32 {
    let status = fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find_map(|line| line.strip_prefix("Umask:"))
        .unwrap();
    u32::from_str_radix(line.trim(), 8).unwrap()
}

#[test]
fn missing_folders_are_made_with_the_umask_and_again_is_no_error() {
    let sandbox = Sandbox::new();
    let folder = sandbox.workspace.make_folders("notes/2026/q1/x").unwrap();
    assert_eq!(folder.real_path(), "notes/2026/q1/x");
    assert_eq!(folder.kind(), Some(FileKind::Folder));
    for path in ["notes/2026", "notes/2026/q1", "notes/2026/q1/x"] {
        let metadata = fs::symlink_metadata(sandbox.root.join(path)).unwrap();
        assert!(metadata.is_dir(), "{path}");
        assert_eq!(metadata.mode() & 0o7777, 0o777 & !umask(), "{path}");
    }
    // Existing folders, `.` and `..` inside the root, a trailing slash.
    for path in ["notes/2026/q1/x", "notes/2026/./q1/../q1/x/", "notes", "."] {
        sandbox.workspace.make_folders(path).unwrap();
    }
    // The folder is held: a note goes in without resolving again.
    let note = folder.open_child("n.md").unwrap();
    assert_eq!(note.real_path(), "notes/2026/q1/x/n.md");
    note.create(b"hello", 0o600).unwrap();
    assert_eq!(
        fs::read_to_string(sandbox.root.join("notes/2026/q1/x/n.md")).unwrap(),
        "hello"
    );
    for bad in ["", ".", "..", "a/b", "a\0b"] {
        assert!(
            matches!(folder.open_child(bad), Err(FsError::Invalid { .. })),
            "{bad:?}"
        );
    }
}

#[test]
fn links_inside_are_followed_and_links_out_are_refused_without_making_anything() {
    let sandbox = Sandbox::new();
    symlink("notes", sandbox.root.join("relative")).unwrap();
    symlink(sandbox.root.join("notes"), sandbox.root.join("absolute")).unwrap();
    symlink(&sandbox.outside, sandbox.root.join("shared")).unwrap();
    symlink("../../outside", sandbox.root.join("notes/up")).unwrap();
    assert_eq!(
        sandbox
            .workspace
            .make_folders("relative/x")
            .unwrap()
            .real_path(),
        "notes/x"
    );
    assert_eq!(
        sandbox
            .workspace
            .make_folders("absolute/y/z")
            .unwrap()
            .real_path(),
        "notes/y/z"
    );
    for path in [
        "shared/x",
        "shared",
        "notes/up/x/y",
        "../outside/x",
        "notes/../../outside/x",
        "/tmp/quire-never",
        "missing/../../x",
    ] {
        let error = sandbox.workspace.make_folders(path).unwrap_err();
        assert!(matches!(error, FsError::Outside { .. }), "{path}: {error}");
    }
    outside_untouched(&sandbox);
    assert!(!sandbox.root.join("missing").exists());
    assert!(!Path::new("/tmp/quire-never").exists());
}

#[test]
fn a_file_where_a_folder_should_be_is_named() {
    let sandbox = Sandbox::new();
    let fifo = sandbox.root.join("notes/pipe");
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
    )
    .unwrap();
    for (path, at, kind) in [
        ("notes/a.md/x/y", "notes/a.md", FileKind::Regular),
        ("notes/a.md", "notes/a.md", FileKind::Regular),
        ("notes/pipe/x", "notes/pipe", FileKind::Fifo),
    ] {
        let error = sandbox.workspace.make_folders(path).unwrap_err();
        assert_eq!(
            error,
            FsError::NotAFolder {
                path: at.to_owned(),
                kind
            },
            "{path}"
        );
        assert!(
            error.to_string().starts_with(&format!("`{at}` is ")),
            "{error}"
        );
    }
    assert_eq!(sandbox.names_in("notes"), ["a.md", "pipe"]);
}

#[test]
fn a_dangling_link_is_not_made_into_a_folder() {
    let sandbox = Sandbox::new();
    symlink("missing", sandbox.root.join("notes/dangling")).unwrap();
    symlink("a.md/x", sandbox.root.join("notes/into-file")).unwrap();
    symlink(sandbox.outside.join("gone"), sandbox.root.join("notes/out")).unwrap();
    for path in ["notes/dangling", "notes/dangling/x"] {
        assert_eq!(
            sandbox.workspace.make_folders(path).unwrap_err(),
            FsError::DanglingLink {
                path: "notes/dangling".to_owned()
            },
            "{path}"
        );
    }
    assert!(matches!(
        sandbox.workspace.make_folders("notes/into-file/y"),
        Err(FsError::NotAFolder {
            kind: FileKind::Regular,
            ..
        })
    ));
    assert!(matches!(
        sandbox.workspace.make_folders("notes/out/x"),
        Err(FsError::Outside { .. })
    ));
    assert!(!sandbox.root.join("notes/missing").exists());
    assert!(!sandbox.outside.join("gone").exists());
    // The file layer still refuses to create a note where the link is.
    assert!(matches!(
        sandbox
            .workspace
            .create_with_folders("notes/dangling/n.md", b"x", 0o644),
        Err(FsError::DanglingLink { .. })
    ));
}

#[test]
fn bad_names_and_absurd_depths_are_refused_before_anything_is_made() {
    let sandbox = Sandbox::new();
    assert_eq!(
        sandbox.workspace.make_folders("").unwrap_err(),
        FsError::Empty
    );
    assert!(matches!(
        sandbox.workspace.make_folders("new/a\0b"),
        Err(FsError::Invalid { .. })
    ));
    let deepest = vec!["d"; DEFAULT_MAX_DEPTH].join("/");
    sandbox.workspace.make_folders(&deepest).unwrap();
    let too_deep = format!("e/{deepest}");
    let error = sandbox.workspace.make_folders(&too_deep).unwrap_err();
    assert!(matches!(error, FsError::Invalid { .. }), "{error}");
    assert!(
        error.to_string().contains("more than 64 folders deep"),
        "{error}"
    );
    assert!(!sandbox.root.join("e").exists());
    // Deep through a link: refused at the 65th folder.
    symlink(&deepest, sandbox.root.join("deep")).unwrap();
    assert!(matches!(
        sandbox.workspace.make_folders("deep/more"),
        Err(FsError::Invalid { .. })
    ));
    let name = "n".repeat(256);
    let error = sandbox.workspace.make_folders(&name).unwrap_err();
    assert!(matches!(error, FsError::Io { .. }), "{error}");
    assert!(!error.to_string().contains("os error"), "{error}");
}

#[test]
fn concurrent_creators_of_the_same_folders_all_succeed() {
    let sandbox = Sandbox::new();
    for round in 0..20 {
        let path = format!("r{round}/a/b/c/d");
        let barrier = Arc::new(Barrier::new(6));
        let workers: Vec<_> = (0..6)
            .map(|_| {
                let (workspace, path, barrier) = (
                    sandbox.workspace.clone(),
                    path.clone(),
                    Arc::clone(&barrier),
                );
                thread::spawn(move || {
                    barrier.wait();
                    workspace
                        .make_folders(&path)
                        .map(|folder| folder.real_path().to_owned())
                })
            })
            .collect();
        for worker in workers {
            assert_eq!(worker.join().unwrap(), Ok(path.clone()));
        }
    }
}

/// Swaps `root/t` (a folder) with `root/t.link` (a link out) atomically,
/// over and over, until told to stop.
fn swap_with_a_link_out(sandbox: &Sandbox, stop: &Arc<AtomicBool>) -> thread::JoinHandle<()> {
    fs::create_dir(sandbox.root.join("t")).unwrap();
    symlink(&sandbox.outside, sandbox.root.join("t.link")).unwrap();
    let (root, stop) = (sandbox.root.clone(), Arc::clone(stop));
    thread::spawn(move || {
        // Until stopped, or until the test (failing) removed the sandbox.
        while !stop.load(Ordering::Relaxed)
            && rustix::fs::renameat_with(
                rustix::fs::CWD,
                root.join("t"),
                rustix::fs::CWD,
                root.join("t.link"),
                rustix::fs::RenameFlags::EXCHANGE,
            )
            .is_ok()
        {
            // Each state lasts a moment, so calls get through both ways.
            thread::sleep(std::time::Duration::from_micros(20));
        }
    })
}

#[test]
fn a_folder_swapped_for_a_link_out_while_folders_are_made_never_leaks_out() {
    let sandbox = Sandbox::new();
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = swap_with_a_link_out(&sandbox, &stop);
    let (mut made, mut refused) = (0, 0);
    for round in 0..2000 {
        match sandbox.workspace.make_folders(&format!("t/n{round}/deep")) {
            Ok(folder) => {
                made += 1;
                let real = folder.real_path();
                assert!(
                    real.starts_with("t/") || real.starts_with("t.link/"),
                    "{real}"
                );
            }
            // Seen as a link, then as a folder, over and over: retryable.
            Err(FsError::Outside { .. } | FsError::Changed { .. }) => refused += 1,
            Err(error) => panic!("unexpected: {error}"),
        }
        match sandbox
            .workspace
            .create_with_folders(&format!("t/f{round}/n.md"), b"x", 0o644)
        {
            Ok(_) | Err(FsError::Outside { .. } | FsError::Changed { .. }) => {}
            Err(error) => panic!("unexpected: {error}"),
        }
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    outside_untouched(&sandbox);
    eprintln!("{made} made, {refused} refused as outside or changing");
    assert!(made > 0, "the swapping never let a call through");
}

/// Runs `work` on a thread whose effective user is 65534 (Linux uids are
/// per thread), so permissions apply even when the tests run as root;
/// `None` (after saying so) when this process cannot switch.
fn as_another_user<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    thread::spawn(move || {
        if rustix::process::geteuid().is_root() {
            let nobody = rustix::process::Uid::from_raw(65534);
            if let Err(errno) = rustix::thread::set_thread_res_uid(None, nobody, None) {
                eprintln!("SKIPPED: cannot act as user 65534 on a thread: {errno}");
                return None;
            }
        }
        Some(work())
    })
    .join()
    .unwrap()
}

#[test]
fn a_read_only_parent_is_a_clear_permission_error() {
    let sandbox = Sandbox::new();
    fs::set_permissions(&sandbox.root, fs::Permissions::from_mode(0o755)).unwrap();
    fs::create_dir(sandbox.root.join("locked")).unwrap();
    fs::set_permissions(
        sandbox.root.join("locked"),
        fs::Permissions::from_mode(0o555),
    )
    .unwrap();
    let workspace = sandbox.workspace.clone();
    let result = as_another_user(move || {
        (
            workspace.make_folders("locked/new/deeper"),
            workspace.create_with_folders("locked/new/n.md", b"x", 0o644),
        )
    });
    let Some((folders, file)) = result else {
        return;
    };
    for error in [folders.unwrap_err(), file.unwrap_err()] {
        assert_eq!(
            error.to_string(),
            "cannot create the folder `locked/new`: permission denied"
        );
        assert!(matches!(
            error,
            FsError::Io {
                kind: IoKind::PermissionDenied,
                ..
            }
        ));
        assert!(!error.retryable());
    }
    assert!(sandbox.names_in("locked").is_empty());
}

#[test]
fn a_file_is_created_with_its_missing_folders() {
    let sandbox = Sandbox::new();
    let created = sandbox
        .workspace
        .create_with_folders("projects/2026/plan.md", b"# Plan\n", 0o640)
        .unwrap();
    assert_eq!(created.real_path(), "projects/2026/plan.md");
    assert_eq!(created.shown(), "projects/2026/plan.md");
    let path = sandbox.root.join("projects/2026/plan.md");
    assert_eq!(fs::read_to_string(&path).unwrap(), "# Plan\n");
    assert_eq!(
        fs::metadata(&path).unwrap().mode() & 0o777,
        0o640 & !umask()
    );
    sandbox
        .workspace
        .create_with_folders("top.md", b"top", 0o644)
        .unwrap();
    assert_eq!(
        fs::read_to_string(sandbox.root.join("top.md")).unwrap(),
        "top"
    );
    symlink("nowhere.md", sandbox.root.join("notes/link.md")).unwrap();
    for (path, expected) in [
        (
            "projects/2026/plan.md",
            FsError::AlreadyExists {
                path: "projects/2026/plan.md".into(),
            },
        ),
        (
            "notes/link.md",
            FsError::AlreadyExists {
                path: "notes/link.md".into(),
            },
        ),
        (
            "new/",
            FsError::TrailingSlash {
                path: "new/".into(),
            },
        ),
    ] {
        assert_eq!(
            sandbox
                .workspace
                .create_with_folders(path, b"x", 0o644)
                .unwrap_err(),
            expected,
            "{path}"
        );
    }
    for path in ["x/..", "x/.", ".", ".."] {
        let error = sandbox
            .workspace
            .create_with_folders(path, b"x", 0o644)
            .unwrap_err();
        assert!(matches!(error, FsError::Invalid { .. }), "{path}: {error}");
    }
    assert!(!sandbox.root.join("nowhere.md").exists());
    assert!(!sandbox.root.join("x").exists());
    assert_eq!(fs::read_to_string(&path).unwrap(), "# Plan\n");
}

#[test]
fn a_trashed_note_keeps_its_bytes_inode_and_links() {
    let sandbox = Sandbox::new();
    let original = sandbox.root.join("notes/a.md");
    fs::set_permissions(&original, fs::Permissions::from_mode(0o640)).unwrap();
    fs::hard_link(&original, sandbox.root.join("twin.md")).unwrap();
    let before = fs::metadata(&original).unwrap();
    assert_eq!(
        sandbox.workspace.trash("notes/a.md", ".trash").unwrap(),
        ".trash/a.md"
    );
    assert!(!original.exists());
    let after = fs::metadata(sandbox.root.join(".trash/a.md")).unwrap();
    assert_eq!((after.ino(), after.nlink()), (before.ino(), 2));
    assert_eq!(after.mode() & 0o7777, 0o640);
    assert_eq!(
        fs::read_to_string(sandbox.root.join("twin.md")).unwrap(),
        "inside\n"
    );
    // An existing trash folder, behind an in-root link, is used as is.
    fs::create_dir(sandbox.root.join("bin")).unwrap();
    symlink("bin", sandbox.root.join("bin-link")).unwrap();
    assert_eq!(
        sandbox.workspace.trash("twin.md", "bin-link").unwrap(),
        "bin/twin.md"
    );
}

#[test]
fn ten_notes_of_one_name_are_all_kept_in_the_trash() {
    let sandbox = Sandbox::new();
    let mut trashed = Vec::new();
    for round in 0..10 {
        let folder = format!("f{}", round % 3);
        let path = format!("{folder}/same.md");
        sandbox
            .workspace
            .create_with_folders(&path, format!("round {round}").as_bytes(), 0o644)
            .unwrap();
        trashed.push(sandbox.workspace.trash(&path, ".trash").unwrap());
    }
    let expected: Vec<String> = (0..10)
        .map(|number| match number {
            0 => ".trash/same.md".to_owned(),
            number => format!(".trash/same {number}.md"),
        })
        .collect();
    assert_eq!(trashed, expected);
    for (round, path) in trashed.iter().enumerate() {
        assert_eq!(
            fs::read_to_string(sandbox.root.join(path)).unwrap(),
            format!("round {round}")
        );
    }
}

#[test]
fn a_linked_note_is_trashed_as_the_link_itself() {
    let sandbox = Sandbox::new();
    fs::write(sandbox.outside.join("secret.md"), "secret\n").unwrap();
    symlink("a.md", sandbox.root.join("notes/alias.md")).unwrap();
    symlink(
        sandbox.outside.join("secret.md"),
        sandbox.root.join("out.md"),
    )
    .unwrap();
    assert_eq!(
        sandbox.workspace.trash("notes/alias.md", ".trash").unwrap(),
        ".trash/alias.md"
    );
    assert_eq!(
        sandbox.workspace.trash("out.md", ".trash").unwrap(),
        ".trash/out.md"
    );
    for (link, target) in [
        (".trash/alias.md", PathBuf::from("a.md")),
        (".trash/out.md", sandbox.outside.join("secret.md")),
    ] {
        assert_eq!(fs::read_link(sandbox.root.join(link)).unwrap(), target);
    }
    assert_eq!(
        fs::read_to_string(sandbox.root.join("notes/a.md")).unwrap(),
        "inside\n"
    );
    assert_eq!(names(&sandbox.outside), ["secret.md"]);
}

#[test]
fn what_cannot_be_trashed_stays_where_it_is() {
    let sandbox = Sandbox::new();
    symlink(&sandbox.outside, sandbox.root.join("shared")).unwrap();
    fs::write(sandbox.root.join("blocked"), "a file").unwrap();
    for (path, trash) in [
        ("notes/a.md", "shared"),
        ("notes/a.md", "shared/.trash"),
        ("notes/a.md", "../outside"),
    ] {
        let error = sandbox.workspace.trash(path, trash).unwrap_err();
        assert!(matches!(error, FsError::Outside { .. }), "{trash}: {error}");
    }
    assert!(matches!(
        sandbox.workspace.trash("notes/a.md", "blocked"),
        Err(FsError::NotAFolder { .. })
    ));
    for path in ["notes", "notes/a.md/", "notes/missing.md", "."] {
        let error = sandbox.workspace.trash(path, ".trash").unwrap_err();
        assert!(
            matches!(
                error,
                FsError::NotAFile { .. } | FsError::TrailingSlash { .. } | FsError::NotFound { .. }
            ),
            "{path}: {error}"
        );
    }
    outside_untouched(&sandbox);
    assert_eq!(
        fs::read_to_string(sandbox.root.join("notes/a.md")).unwrap(),
        "inside\n"
    );
}

#[test]
fn a_note_replaced_after_it_was_read_is_not_trashed() {
    let sandbox = Sandbox::new();
    let located = sandbox.workspace.locate("notes/a.md").unwrap();
    let file = located.open().unwrap();
    let trash = sandbox.workspace.make_folders(".trash").unwrap();
    fs::write(sandbox.root.join("notes/other.md"), "other\n").unwrap();
    fs::rename(
        sandbox.root.join("notes/other.md"),
        sandbox.root.join("notes/a.md"),
    )
    .unwrap();
    assert_eq!(
        located.move_into(file.stat(), &trash),
        Err(FsError::Changed {
            path: "notes/a.md".into()
        })
    );
    assert_eq!(
        fs::read_to_string(sandbox.root.join("notes/a.md")).unwrap(),
        "other\n"
    );
    assert!(sandbox.names_in(".trash").is_empty());
    // Removed meanwhile: changed too, nothing moved.
    let file = located.open().unwrap();
    fs::remove_file(sandbox.root.join("notes/a.md")).unwrap();
    assert!(matches!(
        located.move_into(file.stat(), &trash),
        Err(FsError::Changed { .. })
    ));
    assert!(sandbox.names_in(".trash").is_empty());
}

#[test]
fn of_concurrent_moves_of_one_note_exactly_one_succeeds() {
    let sandbox = Sandbox::new();
    for round in 0..20 {
        let path = format!("notes/r{round}.md");
        fs::write(sandbox.root.join(&path), format!("{round}")).unwrap();
        let barrier = Arc::new(Barrier::new(6));
        let workers: Vec<_> = (0..6)
            .map(|_| {
                let (workspace, path, barrier) = (
                    sandbox.workspace.clone(),
                    path.clone(),
                    Arc::clone(&barrier),
                );
                thread::spawn(move || {
                    let located = workspace.locate(&path).unwrap();
                    let file = located.open().unwrap();
                    let trash = workspace.make_folders(".trash").unwrap();
                    barrier.wait();
                    located.move_into(file.stat(), &trash)
                })
            })
            .collect();
        let results: Vec<_> = workers.into_iter().map(|w| w.join().unwrap()).collect();
        let moved: Vec<_> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
        assert_eq!(moved, [&format!(".trash/r{round}.md")], "{results:?}");
        for result in &results {
            assert!(
                matches!(result, Ok(_) | Err(FsError::Changed { .. })),
                "{result:?}"
            );
        }
    }
    assert_eq!(sandbox.names_in(".trash").len(), 20);
}

#[test]
fn a_trash_folder_swapped_for_a_link_out_never_receives_a_note() {
    let sandbox = Sandbox::new();
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = swap_with_a_link_out(&sandbox, &stop);
    for round in 0..300 {
        let path = format!("notes/n{round}.md");
        fs::write(sandbox.root.join(&path), "x").unwrap();
        match sandbox.workspace.trash(&path, "t/.trash") {
            Ok(trashed) => assert!(
                trashed.starts_with("t/.trash/") || trashed.starts_with("t.link/.trash/"),
                "{trashed}"
            ),
            Err(FsError::Outside { .. } | FsError::Changed { .. }) => {
                assert!(sandbox.root.join(&path).exists());
            }
            Err(error) => panic!("unexpected: {error}"),
        }
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    outside_untouched(&sandbox);
}

#[test]
fn a_renamed_note_keeps_its_inode_and_never_replaces_a_file() {
    let sandbox = Sandbox::new();
    let before = fs::metadata(sandbox.root.join("notes/a.md")).unwrap();
    fs::write(sandbox.root.join("taken.md"), "taken\n").unwrap();
    let located = sandbox.workspace.locate_entry("notes/a.md").unwrap();
    let file = located.open().unwrap();
    let root = sandbox.workspace.make_folders(".").unwrap();
    // Onto an existing file: refused, both files as they were.
    assert_eq!(
        located.rename_to(file.stat(), &root, "taken.md".as_ref()),
        Err(FsError::AlreadyExists {
            path: "taken.md".into()
        })
    );
    assert_eq!(
        fs::read_to_string(sandbox.root.join("taken.md")).unwrap(),
        "taken\n"
    );
    // Names that are not one file's name: refused before anything moves.
    for bad in ["", ".", "..", "a/b.md", "nul\0.md"] {
        assert!(
            matches!(
                located.rename_to(file.stat(), &root, bad.as_ref()),
                Err(FsError::Invalid { .. })
            ),
            "{bad:?}"
        );
    }
    let archive = sandbox.workspace.make_folders("archive/2026").unwrap();
    assert_eq!(
        located
            .rename_to(file.stat(), &archive, "b.md".as_ref())
            .unwrap(),
        "archive/2026/b.md"
    );
    assert!(!sandbox.root.join("notes/a.md").exists());
    let after = fs::metadata(sandbox.root.join("archive/2026/b.md")).unwrap();
    assert_eq!(after.ino(), before.ino());
    // The old entry is gone now: a second rename from it is refused as
    // changed, and nothing else moves.
    assert!(matches!(
        located.rename_to(file.stat(), &root, "c.md".as_ref()),
        Err(FsError::Changed { .. })
    ));
    outside_untouched(&sandbox);
}

#[test]
fn a_note_replaced_after_it_was_read_is_not_renamed() {
    let sandbox = Sandbox::new();
    let located = sandbox.workspace.locate_entry("notes/a.md").unwrap();
    let file = located.open().unwrap();
    fs::write(sandbox.root.join("notes/other.md"), "other\n").unwrap();
    fs::rename(
        sandbox.root.join("notes/other.md"),
        sandbox.root.join("notes/a.md"),
    )
    .unwrap();
    let root = sandbox.workspace.make_folders(".").unwrap();
    assert!(matches!(
        located.rename_to(file.stat(), &root, "b.md".as_ref()),
        Err(FsError::Changed { .. })
    ));
    assert_eq!(
        fs::read_to_string(sandbox.root.join("notes/a.md")).unwrap(),
        "other\n"
    );
    assert!(!sandbox.root.join("b.md").exists());
}
