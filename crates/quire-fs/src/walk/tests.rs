//! The walk against the trees a hostile local user can build: links in,
//! out, dangling and looping, FIFOs, sockets and devices, unreadable and
//! non-UTF-8 names, folders swapped for links, and sheer size.

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::os::unix::net::UnixListener;
use std::path::PathBuf;
use std::thread;

use proptest::prelude::*;
use rustix::fs::{CWD, FileType, Mode};

use super::*;
use crate::tests::within_five_seconds;

struct Vault {
    _dir: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
    workspace: Workspace,
}

impl Vault {
    /// A root holding the given files (parents created), beside a folder
    /// outside it that holds `secret.md`.
    fn with(files: &[&str]) -> Vault {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        let outside = dir.path().join("outside");
        fs::create_dir_all(&root).unwrap();
        fs::create_dir_all(&outside).unwrap();
        fs::write(outside.join("secret.md"), "secret").unwrap();
        for file in files {
            let path = root.join(file);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, file.as_bytes()).unwrap();
        }
        let workspace = Workspace::new(&root).unwrap();
        Vault {
            _dir: dir,
            root,
            outside,
            workspace,
        }
    }

    fn link(&self, target: impl AsRef<std::path::Path>, name: &str) {
        symlink(target, self.root.join(name)).unwrap();
    }

    fn walk(&self, folder: &str, options: WalkOptions) -> Vec<String> {
        summarize(self.workspace.walk(folder, options).unwrap())
    }
}

/// Each entry in a line: a file's path (with ` -> target` through a link),
/// `path (Reason)` for a skipped one, `error: message`, `limit N`.
fn summarize(entries: impl IntoIterator<Item = WalkEntry>) -> Vec<String> {
    entries
        .into_iter()
        .map(|entry| match entry {
            WalkEntry::File(WalkedFile {
                path, target: None, ..
            }) => path,
            WalkEntry::File(WalkedFile {
                path,
                target: Some(target),
                ..
            }) => format!("{path} -> {target}"),
            WalkEntry::Skipped { path, reason } => format!("{path} ({reason:?})"),
            WalkEntry::Error(error) => format!("error: {error}"),
            WalkEntry::LimitReached { limit } => format!("limit {limit}"),
        })
        .collect()
}

#[test]
fn nested_folders_are_walked_in_name_order() {
    let vault = Vault::with(&["z.md", "a.md", "B.md", "b/d/e.md", "b/c.md"]);
    let all = vault.walk("", WalkOptions::new());
    assert_eq!(all, ["B.md", "a.md", "b/c.md", "b/d/e.md", "z.md"]);
    assert_eq!(vault.walk(".", WalkOptions::new()), all);
    for start in [
        "b",
        "./b/",
        "b/d/..",
        vault.root.join("b").to_str().unwrap(),
    ] {
        assert_eq!(
            vault.walk(start, WalkOptions::new()),
            ["b/c.md", "b/d/e.md"],
            "{start}"
        );
    }
    let Some(WalkEntry::File(file)) = vault
        .workspace
        .walk("b/d", WalkOptions::new())
        .unwrap()
        .next()
    else {
        panic!("no file");
    };
    assert_eq!(file.stat.size, "b/d/e.md".len() as u64);
    assert_eq!(file.stat.kind(), FileKind::Regular);
}

#[test]
fn the_start_must_be_a_folder_inside() {
    let vault = Vault::with(&["a.md"]);
    vault.link(&vault.outside, "out");
    let error = |folder: &str| {
        vault
            .workspace
            .walk(folder, WalkOptions::new())
            .unwrap_err()
    };
    assert!(matches!(error("missing"), FsError::NotFound { .. }));
    assert!(matches!(error("../outside"), FsError::Outside { .. }));
    assert!(matches!(error("out"), FsError::Outside { .. }));
    let not_a_folder = error("a.md");
    assert!(matches!(
        not_a_folder,
        FsError::NotAFolder {
            kind: FileKind::Regular,
            ..
        }
    ));
    assert_eq!(
        not_a_folder.to_string(),
        "`a.md` is a regular file, not a folder; give the path of a folder"
    );
}

#[test]
fn hidden_entries_are_skipped_unless_asked_for() {
    let vault = Vault::with(&[
        ".obsidian/app.md",
        ".hidden.md",
        "n/.trash/old.md",
        "n/a.md",
    ]);
    vault.link("n/a.md", ".alias.md");
    assert_eq!(vault.walk("", WalkOptions::new()), ["n/a.md"]);
    assert_eq!(
        vault.walk("", WalkOptions::new().skip_hidden(false)),
        [
            ".alias.md -> n/a.md",
            ".hidden.md",
            ".obsidian/app.md",
            "n/.trash/old.md",
            "n/a.md"
        ]
    );
    // A hidden folder may still be walked when asked for by name.
    assert_eq!(
        vault.walk(".obsidian", WalkOptions::new()),
        [".obsidian/app.md"]
    );
}

#[test]
fn the_filter_sees_file_names() {
    let vault = Vault::with(&[
        "a.md",
        "b.MD",
        "c.png",
        "md",
        "d.md.png",
        "f.md/g.md",
        "é.md",
    ]);
    assert_eq!(
        vault.walk("", WalkOptions::new().extension("md")),
        ["a.md", "b.MD", "f.md/g.md", "é.md"]
    );
    let starts_with_a = WalkOptions::new().file_filter(|name| name.starts_with('a'));
    assert_eq!(vault.walk("", starts_with_a), ["a.md"]);
}

#[test]
fn a_link_to_a_file_inside_is_listed_under_its_own_path() {
    let vault = Vault::with(&["notes/a.md", "archive/old.md"]);
    vault.link("a.md", "notes/relative.md");
    vault.link(vault.root.join("archive/old.md"), "notes/absolute.md");
    vault.link("a.md", "notes/picture.png");
    vault.link("relative.md", "notes/chain.md");
    assert_eq!(
        vault.walk("notes", WalkOptions::new().extension("md")),
        [
            "notes/a.md",
            "notes/absolute.md -> archive/old.md",
            "notes/chain.md -> notes/a.md",
            "notes/relative.md -> notes/a.md",
        ]
    );
}

#[test]
fn a_linked_folder_is_walked_once_under_its_real_path_first() {
    let vault = Vault::with(&["notes/a.md", "zeta/z.md", "archive/sub/old.md"]);
    // Sorts before the folder it names: the folder still shows as itself.
    vault.link("zeta", "alpha");
    // A second way to a folder inside the walk.
    vault.link("../zeta", "notes/again");
    // A folder outside the starting folder, walked under the link's path;
    // its subfolder is met again through a second link and not repeated.
    vault.link("../archive/sub", "notes/deeper");
    vault.link("../archive", "notes/more");
    assert_eq!(
        vault.walk("", WalkOptions::new()),
        [
            "archive/sub/old.md",
            "notes/a.md",
            "zeta/z.md",
            "alpha (Repeated)",
            "notes/again (Repeated)",
            "notes/deeper (Repeated)",
            "notes/more (Repeated)",
        ]
    );
    assert_eq!(
        vault.walk("notes", WalkOptions::new()),
        [
            "notes/a.md",
            "notes/again/z.md -> zeta/z.md",
            "notes/deeper/old.md -> archive/sub/old.md",
            "notes/more/sub (Repeated)",
        ]
    );
}

#[test]
fn link_loops_end() {
    let vault = Vault::with(&["loop/f.md"]);
    vault.link("..", "loop/a");
    vault.link("a", "loop/b");
    vault.link("c", "loop/c");
    vault.link(".", "loop/here");
    let entries = within_five_seconds({
        let workspace = vault.workspace.clone();
        move || summarize(workspace.walk("loop", WalkOptions::new()).unwrap())
    });
    assert_eq!(
        entries,
        [
            "loop/c (LinkLoop)",
            "loop/f.md",
            "loop/a/loop (Repeated)",
            "loop/b (Repeated)",
            "loop/here (Repeated)",
        ]
    );
}

#[test]
fn links_out_of_the_root_are_never_listed_or_followed() {
    let vault = Vault::with(&["a.md"]);
    vault.link(vault.outside.join("secret.md"), "absolute.md");
    vault.link("../outside/secret.md", "relative.md");
    vault.link("../outside", "folder");
    vault.link(&vault.outside, "folder-absolute");
    vault.link("/dev/null", "null.md");
    vault.link("/", "slash");
    vault.link("missing.md", "dangling.md");
    let entries = within_five_seconds({
        let workspace = vault.workspace.clone();
        move || {
            summarize(
                workspace
                    .walk("", WalkOptions::new().extension("md"))
                    .unwrap(),
            )
        }
    });
    assert_eq!(
        entries,
        [
            "a.md",
            "absolute.md (LinkOutside)",
            "dangling.md (LinkDangling)",
            "folder (LinkOutside)",
            "folder-absolute (LinkOutside)",
            "null.md (LinkOutside)",
            "relative.md (LinkOutside)",
            "slash (LinkOutside)",
        ]
    );
}

#[test]
fn fifos_sockets_and_devices_are_reported_never_opened() {
    let vault = Vault::with(&["a.md"]);
    rustix::fs::mkfifoat(CWD, vault.root.join("pipe.md"), Mode::from(0o644)).unwrap();
    rustix::fs::mkfifoat(CWD, vault.root.join("pipe"), Mode::from(0o644)).unwrap();
    vault.link("pipe.md", "pipe-link.md");
    let _socket = UnixListener::bind(vault.root.join("socket.md")).unwrap();
    let device = rustix::fs::mknodat(
        CWD,
        vault.root.join("zero.md"),
        FileType::CharacterDevice,
        Mode::from(0o644),
        rustix::fs::makedev(1, 5),
    );
    let workspace = vault.workspace.clone();
    let entries = within_five_seconds(move || {
        summarize(
            workspace
                .walk("", WalkOptions::new().extension("md"))
                .unwrap(),
        )
    });
    let mut expected = vec![
        "a.md",
        "pipe-link.md (Special(Fifo))",
        "pipe.md (Special(Fifo))",
        "socket.md (Special(Socket))",
    ];
    // Creating a device needs CAP_MKNOD, which a container may lack.
    if device.is_ok() {
        expected.push("zero.md (Special(CharDevice))");
    }
    assert_eq!(entries, expected);
    // Unfiltered, the FIFO without the extension is reported too.
    assert!(
        vault
            .walk("", WalkOptions::new())
            .contains(&"pipe (Special(Fifo))".to_owned())
    );
}

#[test]
fn an_unreadable_folder_is_an_error_entry_and_the_walk_goes_on() {
    let vault = Vault::with(&["a.md", "locked/secret.md", "listed/hidden.md", "z.md"]);
    let mode = |folder: &str, mode: u32| {
        fs::set_permissions(vault.root.join(folder), fs::Permissions::from_mode(mode)).unwrap();
    };
    mode("locked", 0o000);
    // Names may be read, but not looked up.
    mode("listed", 0o644);
    let entries = vault.walk("", WalkOptions::new());
    mode("locked", 0o755);
    mode("listed", 0o755);
    if rustix::process::geteuid().is_root() {
        // Root reads and searches any folder, so as root (as the tests run
        // in CI) the walk just lists them; run as another user to see the
        // errors.
        assert_eq!(
            entries,
            ["a.md", "listed/hidden.md", "locked/secret.md", "z.md"]
        );
        return;
    }
    assert_eq!(
        entries,
        [
            "a.md",
            "error: cannot look inside `listed`: permission denied",
            "error: cannot open the folder `locked`: permission denied",
            "z.md"
        ]
    );
}

#[test]
fn non_utf8_names_are_skipped_by_a_lossy_name() {
    let vault = Vault::with(&["a.md"]);
    let name = |bytes: &[u8]| vault.root.join(OsStr::from_bytes(bytes));
    fs::write(name(b"\xff.md"), "x").unwrap();
    fs::write(name(b"\xfe.png"), "x").unwrap();
    fs::create_dir(name(b"dir\xfd")).unwrap();
    fs::write(name(b"dir\xfd/inner.md"), "x").unwrap();
    // A link into that folder has a UTF-8 name, so it is listed; only its
    // target shows lossily.
    symlink(
        OsStr::from_bytes(b"dir\xfd/inner.md"),
        vault.root.join("into.md"),
    )
    .unwrap();
    assert_eq!(
        vault.walk("", WalkOptions::new().extension("md")),
        [
            "a.md",
            "dir\u{FFFD} (NotUtf8)",
            "into.md -> dir\u{FFFD}/inner.md",
            "\u{FFFD}.md (NotUtf8)"
        ]
    );
}

#[test]
fn max_entries_stops_the_walk_and_says_so() {
    let files: Vec<String> = (0..10).map(|n| format!("{n}.md")).collect();
    let vault = Vault::with(&files.iter().map(String::as_str).collect::<Vec<_>>());
    let first_three = vault.walk("", WalkOptions::new().max_entries(3));
    assert_eq!(first_three, ["0.md", "1.md", "2.md", "limit 3"]);
    let all = vault.walk("", WalkOptions::new().max_entries(10));
    assert_eq!(all, files);
    assert_eq!(
        vault.walk("", WalkOptions::new().max_entries(0)),
        ["limit 0"]
    );
}

#[test]
fn max_depth_reports_the_folders_it_does_not_enter() {
    let vault = Vault::with(&["top.md", "a/one.md", "a/b/two.md", "a/b/c/three.md"]);
    vault.link("a/b", "link");
    assert_eq!(
        vault.walk("", WalkOptions::new().max_depth(0)),
        ["a (TooDeep)", "link (TooDeep)", "top.md"]
    );
    assert_eq!(
        vault.walk("", WalkOptions::new().max_depth(2)),
        [
            "a/b/c (TooDeep)",
            "a/b/two.md",
            "a/one.md",
            "top.md",
            "link (Repeated)"
        ]
    );
}

#[test]
fn a_folder_swapped_for_a_link_out_between_walks_is_not_followed() {
    let vault = Vault::with(&["sub/a.md"]);
    assert_eq!(vault.walk("", WalkOptions::new()), ["sub/a.md"]);
    fs::rename(vault.root.join("sub"), vault.outside.join("sub")).unwrap();
    vault.link(&vault.outside, "sub");
    assert_eq!(vault.walk("", WalkOptions::new()), ["sub (LinkOutside)"]);
}

#[test]
fn a_folder_swapped_mid_walk_is_read_through_the_handle_held() {
    let vault = Vault::with(&["a/1.md", "a/2.md", "b/3.md"]);
    let mut walk = vault.workspace.walk("", WalkOptions::new()).unwrap();
    assert_eq!(summarize(walk.by_ref().take(1)), ["a/1.md"]);
    // `a` is open: moving it away and putting a link out in its place
    // changes nothing for the rest of it. `b` is not open yet: it is seen
    // as the link it has become.
    fs::rename(vault.root.join("a"), vault.root.join("moved")).unwrap();
    vault.link("../outside", "a");
    fs::rename(vault.root.join("b"), vault.root.join("moved-b")).unwrap();
    vault.link(&vault.outside, "b");
    assert_eq!(summarize(walk), ["a/2.md", "b (LinkOutside)"]);
}

#[test]
fn a_folder_flipping_to_a_link_out_never_leaks_the_outside() {
    let vault = Vault::with(&["sub/a.md"]);
    vault.link(&vault.outside, "out");
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flipper = {
        let (root, stop) = (vault.root.clone(), Arc::clone(&stop));
        thread::spawn(move || {
            let rename = |from: &str, to: &str| fs::rename(root.join(from), root.join(to));
            // Stops on its own if the test failed and the vault is gone.
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let flipped = rename("sub", "parked")
                    .and_then(|()| rename("out", "sub"))
                    .and_then(|()| rename("sub", "out"))
                    .and_then(|()| rename("parked", "sub"));
                if flipped.is_err() {
                    break;
                }
            }
        })
    };
    let secret = fs::metadata(vault.outside.join("secret.md")).unwrap();
    for _ in 0..300 {
        for entry in vault.workspace.walk("", WalkOptions::new()).unwrap() {
            if let WalkEntry::File(file) = &entry {
                assert_ne!(file.stat.ino, std::os::unix::fs::MetadataExt::ino(&secret));
            }
            let line = summarize([entry]).remove(0);
            assert!(!line.contains("secret"), "{line}");
        }
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    flipper.join().unwrap();
    // Every flip succeeded (none broke off): `sub` is the folder again.
    assert!(vault.root.join("sub/a.md").exists());
}

#[test]
fn a_walk_can_move_to_another_thread() {
    fn sendable<T: Send + 'static>(_: &T) {}
    let vault = Vault::with(&["a.md"]);
    let walk = vault
        .workspace
        .walk("", WalkOptions::new().extension("md"))
        .unwrap();
    sendable(&walk);
    assert_eq!(
        summarize(
            thread::spawn(move || walk.collect::<Vec<_>>())
                .join()
                .unwrap()
        ),
        ["a.md"]
    );
}

#[test]
fn ten_thousand_files_are_all_listed_in_order() {
    let vault = Vault::with(&[]);
    let mut expected = Vec::new();
    for folder in 0..100 {
        fs::create_dir(vault.root.join(format!("f{folder:03}"))).unwrap();
        for file in 0..100 {
            let path = format!("f{folder:03}/n{file:03}.md");
            fs::write(vault.root.join(&path), "").unwrap();
            expected.push(path);
        }
    }
    assert_eq!(vault.walk("", WalkOptions::new().extension("md")), expected);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Whatever the tree, every file is listed once, folder by folder in
    /// byte order of the names, and nothing else is.
    #[test]
    fn every_file_is_listed_once_in_order(
        files in prop::collection::btree_set(
            prop::collection::vec("[a-c]{1,2}", 1..4).prop_map(|parts| parts.join("/")),
            0..20,
        )
    ) {
        // A path that is a prefix folder of another cannot also be a file.
        let files: Vec<&String> = files
            .iter()
            .filter(|file| !files.iter().any(|other| other.starts_with(&format!("{file}/"))))
            .collect();
        let vault = Vault::with(&files.iter().map(|file| file.as_str()).collect::<Vec<_>>());
        let mut expected: Vec<&str> = files.iter().map(|file| file.as_str()).collect();
        expected.sort_by(|a, b| a.split('/').cmp(b.split('/')));
        prop_assert_eq!(vault.walk("", WalkOptions::new()), expected);
    }
}
