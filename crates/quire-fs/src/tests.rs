//! The confined file layer against the tricks a hostile local user can play:
//! links in and out, FIFOs and devices, huge files, read-only and
//! hard-linked files, files changed or replaced during a write, leftovers.

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, SystemTime};

use super::*;

/// A root with `notes/a.md` inside, and beside it a folder outside the
/// root holding `secret.md`. Shared with `write_tests.rs`.
pub(super) struct Sandbox {
    _dir: tempfile::TempDir,
    pub(super) root: PathBuf,
    pub(super) outside: PathBuf,
    pub(super) workspace: Workspace,
}

impl Sandbox {
    pub(super) fn new() -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        let outside = dir.path().join("outside");
        fs::create_dir_all(root.join("notes")).unwrap();
        fs::create_dir_all(&outside).unwrap();
        fs::write(root.join("notes/a.md"), "inside\n").unwrap();
        fs::write(outside.join("secret.md"), "secret\n").unwrap();
        let workspace = Workspace::new(&root).unwrap();
        Sandbox {
            _dir: dir,
            root,
            outside,
            workspace,
        }
    }

    /// The names in the folder `folder` of the root, sorted.
    pub(super) fn names_in(&self, folder: &str) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(self.root.join(folder))
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    fn replace(&self, path: &str, contents: &str) -> Result<(), FsError> {
        let located = self.workspace.locate(path)?;
        let file = located.open()?;
        file.lock(Duration::from_secs(1))?;
        located.replace(&file, contents.as_bytes())
    }
}

/// Runs `work` on a thread and fails the test if it has not finished within
/// five seconds (a regression to a blocking open would otherwise hang).
pub(super) fn within_five_seconds<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (sender, receiver) = mpsc::channel();
    thread::spawn(move || {
        let _ = sender.send(work());
    });
    receiver
        .recv_timeout(Duration::from_secs(5))
        .expect("the call blocked")
}

#[test]
fn relative_and_absolute_paths_inside_resolve() {
    let sandbox = Sandbox::new();
    for path in [
        "notes/a.md".to_owned(),
        "./notes/./a.md".to_owned(),
        "notes/../notes/a.md".to_owned(),
        sandbox.root.join("notes/a.md").to_str().unwrap().to_owned(),
    ] {
        let located = sandbox.workspace.locate(&path).unwrap();
        assert_eq!(located.real_path(), "notes/a.md", "{path}");
        assert_eq!(located.open().unwrap().read(100).unwrap(), b"inside\n");
    }
}

#[test]
fn escapes_are_refused_and_never_show_the_machine_path() {
    let sandbox = Sandbox::new();
    let outside = sandbox.outside.join("secret.md");
    for path in [
        "../outside/secret.md",
        "notes/../../outside/secret.md",
        "missing/../../x",
        "/etc/passwd",
        outside.to_str().unwrap(),
    ] {
        let error = sandbox.workspace.locate(path).unwrap_err();
        assert!(matches!(error, FsError::Outside { .. }), "{path}: {error}");
        let text = error.to_string();
        assert!(!text.contains(sandbox.outside.to_str().unwrap()), "{text}");
    }
    assert_eq!(sandbox.workspace.locate("").unwrap_err(), FsError::Empty);
    assert!(matches!(
        sandbox.workspace.locate("a\0b"),
        Err(FsError::Invalid { .. })
    ));
}

#[test]
fn links_are_followed_while_they_stay_inside() {
    let sandbox = Sandbox::new();
    symlink("a.md", sandbox.root.join("notes/relative.md")).unwrap();
    symlink(
        sandbox.root.join("notes/a.md"),
        sandbox.root.join("notes/absolute.md"),
    )
    .unwrap();
    symlink("notes", sandbox.root.join("folder-link")).unwrap();
    symlink("../notes/relative.md", sandbox.root.join("notes/chain.md")).unwrap();
    for path in [
        "notes/relative.md",
        "notes/absolute.md",
        "folder-link/a.md",
        "notes/chain.md",
    ] {
        let located = sandbox.workspace.locate(path).unwrap();
        assert_eq!(located.real_path(), "notes/a.md", "{path}");
        assert_eq!(located.shown(), path);
        assert_eq!(located.open().unwrap().read(100).unwrap(), b"inside\n");
    }
    // Without following the final link, the entry is the link itself.
    let entry = sandbox.workspace.locate_entry("notes/relative.md").unwrap();
    assert_eq!(entry.kind(), Some(FileKind::Symlink));
}

#[test]
fn links_that_lead_out_are_refused() {
    let sandbox = Sandbox::new();
    symlink(
        sandbox.outside.join("secret.md"),
        sandbox.root.join("notes/out.md"),
    )
    .unwrap();
    symlink("../../outside/secret.md", sandbox.root.join("notes/up.md")).unwrap();
    symlink(&sandbox.outside, sandbox.root.join("shared")).unwrap();
    symlink("out.md", sandbox.root.join("notes/via.md")).unwrap();
    // A dangling link out: following it would create a file outside.
    symlink(
        sandbox.outside.join("new.md"),
        sandbox.root.join("notes/dangling.md"),
    )
    .unwrap();
    for path in [
        "notes/out.md",
        "notes/up.md",
        "shared/secret.md",
        "notes/via.md",
        "notes/dangling.md",
    ] {
        let error = sandbox.workspace.locate(path).unwrap_err();
        assert_eq!(
            error,
            FsError::Outside {
                path: path.into(),
                how: " (through a symbolic link)"
            }
        );
    }
    assert!(!sandbox.outside.join("new.md").exists());
}

#[test]
fn link_loops_end() {
    let sandbox = Sandbox::new();
    symlink("b.md", sandbox.root.join("notes/a-loop.md")).unwrap();
    symlink("a-loop.md", sandbox.root.join("notes/b.md")).unwrap();
    assert!(matches!(
        sandbox.workspace.locate("notes/a-loop.md"),
        Err(FsError::TooManyLinks { .. })
    ));
}

#[test]
fn missing_files_and_files_used_as_folders_are_not_found() {
    let sandbox = Sandbox::new();
    let missing = sandbox.workspace.locate("notes/missing.md").unwrap();
    assert!(!missing.exists());
    assert!(matches!(missing.open(), Err(FsError::NotFound { .. })));
    for path in ["missing/a.md", "notes/a.md/x"] {
        assert!(
            matches!(
                sandbox.workspace.locate(path),
                Err(FsError::NotFound { .. })
            ),
            "{path}"
        );
    }
}

#[test]
fn a_trailing_slash_names_a_folder() {
    let sandbox = Sandbox::new();
    let located = sandbox.workspace.locate("notes/a.md/").unwrap();
    assert!(matches!(located.open(), Err(FsError::TrailingSlash { .. })));
    let error = sandbox.replace("notes/a.md/", "x").unwrap_err();
    assert!(matches!(error, FsError::TrailingSlash { .. }), "{error}");
    assert_eq!(
        fs::read_to_string(sandbox.root.join("notes/a.md")).unwrap(),
        "inside\n"
    );
}

#[test]
fn folders_fifos_and_devices_are_refused_without_blocking() {
    let sandbox = Sandbox::new();
    let fifo = sandbox.root.join("notes/pipe.md");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
    symlink("/dev/zero", sandbox.root.join("notes/zero.md")).unwrap();
    let workspace = sandbox.workspace.clone();
    let outcomes = within_five_seconds(move || {
        ["notes", "notes/pipe.md"].map(|path| workspace.read(path, 1024))
    });
    assert!(matches!(
        outcomes[0],
        Err(FsError::NotAFile {
            kind: FileKind::Folder,
            ..
        })
    ));
    assert!(matches!(
        outcomes[1],
        Err(FsError::NotAFile {
            kind: FileKind::Fifo,
            ..
        })
    ));
    // A link to a device leads out of the root; on the whole file system
    // (the CLI's root), the device itself is refused.
    assert!(matches!(
        sandbox.workspace.read("notes/zero.md", 1024),
        Err(FsError::Outside { .. })
    ));
    let everything = Workspace::filesystem().unwrap();
    let error = within_five_seconds(move || everything.read("/dev/zero", 1024)).unwrap_err();
    assert!(
        matches!(
            error,
            FsError::NotAFile {
                kind: FileKind::CharDevice,
                ..
            }
        ),
        "{error}"
    );
}

#[test]
fn reads_stop_at_the_limit() {
    let sandbox = Sandbox::new();
    // Three GiB, sparse: refused from its size, nothing read.
    let huge = fs::File::create(sandbox.root.join("notes/huge.md")).unwrap();
    huge.set_len(3 << 30).unwrap();
    let error = sandbox
        .workspace
        .read("notes/huge.md", 4 << 20)
        .unwrap_err();
    assert!(matches!(error, FsError::TooLarge { .. }), "{error}");
    assert_eq!(
        sandbox.workspace.read("notes/a.md", 7).unwrap(),
        b"inside\n"
    );
    assert!(matches!(
        sandbox.workspace.read("notes/a.md", 6),
        Err(FsError::TooLarge { .. })
    ));
    fs::write(sandbox.root.join("notes/latin1.md"), b"caf\xe9").unwrap();
    assert_eq!(
        sandbox.workspace.read_to_string("notes/latin1.md", 100),
        Err(FsError::NotUtf8 {
            path: "notes/latin1.md".into(),
            offset: 3
        })
    );
}

#[test]
fn a_replace_keeps_mode_and_owner_and_leaves_nothing_behind() {
    let sandbox = Sandbox::new();
    let path = sandbox.root.join("notes/a.md");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
    let is_root = rustix::process::geteuid().as_raw() == 0;
    if is_root {
        std::os::unix::fs::chown(&path, Some(65534), Some(65534)).unwrap();
    }
    sandbox.replace("notes/a.md", "new\n").unwrap();
    let metadata = fs::metadata(&path).unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), "new\n");
    assert_eq!(metadata.mode() & 0o7777, 0o640);
    if is_root {
        assert_eq!((metadata.uid(), metadata.gid()), (65534, 65534));
    }
    assert_eq!(sandbox.names_in("notes"), ["a.md"]);
}

#[test]
fn a_replace_writes_through_a_link_to_its_target() {
    let sandbox = Sandbox::new();
    symlink("a.md", sandbox.root.join("notes/link.md")).unwrap();
    sandbox.replace("notes/link.md", "through\n").unwrap();
    let link = sandbox.root.join("notes/link.md");
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        fs::read_to_string(sandbox.root.join("notes/a.md")).unwrap(),
        "through\n"
    );
}

#[test]
fn read_only_and_hard_linked_files_are_not_replaced() {
    let sandbox = Sandbox::new();
    let path = sandbox.root.join("notes/a.md");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o444)).unwrap();
    let error = sandbox.replace("notes/a.md", "new\n").unwrap_err();
    assert_eq!(
        error.to_string(),
        "`notes/a.md` is read-only (mode 0444); nothing was changed. Make it writable (chmod u+w) if it should change"
    );
    assert!(error.is_write_precondition() && !error.retryable());
    fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();

    fs::hard_link(&path, sandbox.root.join("notes/twin.md")).unwrap();
    let error = sandbox.replace("notes/a.md", "new\n").unwrap_err();
    assert!(
        matches!(error, FsError::HardLinked { links: 2, .. }),
        "{error}"
    );
    assert_eq!(fs::read_to_string(&path).unwrap(), "inside\n");
    assert_eq!(sandbox.names_in("notes"), ["a.md", "twin.md"]);
}

#[test]
fn a_file_changed_or_replaced_meanwhile_is_not_overwritten() {
    let sandbox = Sandbox::new();
    let path = sandbox.root.join("notes/a.md");
    // Changed in place by a program that takes no lock.
    let located = sandbox.workspace.locate("notes/a.md").unwrap();
    let file = located.open().unwrap();
    thread::sleep(Duration::from_millis(20));
    fs::write(&path, "edited by hand\n").unwrap();
    assert!(matches!(
        located.replace(&file, b"stale\n"),
        Err(FsError::Changed { .. })
    ));
    assert_eq!(fs::read_to_string(&path).unwrap(), "edited by hand\n");
    // Replaced by another file.
    let file = located.open().unwrap();
    fs::write(sandbox.root.join("notes/other.md"), "other\n").unwrap();
    fs::rename(sandbox.root.join("notes/other.md"), &path).unwrap();
    assert!(!located.is_current(&file).unwrap());
    assert!(matches!(
        located.replace(&file, b"stale\n"),
        Err(FsError::Changed { .. })
    ));
    assert_eq!(fs::read_to_string(&path).unwrap(), "other\n");
    assert_eq!(sandbox.names_in("notes"), ["a.md"]);
}

#[test]
fn a_failure_before_the_rename_leaves_the_original() {
    let sandbox = Sandbox::new();
    let located = sandbox.workspace.locate("notes/a.md").unwrap();
    let file = located.open().unwrap();
    let error = located
        .replace_checked(&file, b"new\n", || Err(std::io::Error::other("disk full")))
        .unwrap_err();
    assert!(error.retryable(), "{error}");
    assert_eq!(
        fs::read_to_string(sandbox.root.join("notes/a.md")).unwrap(),
        "inside\n"
    );
    assert_eq!(sandbox.names_in("notes"), ["a.md"]);
}

#[test]
fn stale_temporary_files_of_ours_are_swept_on_the_next_write() {
    let sandbox = Sandbox::new();
    let old = SystemTime::now() - Duration::from_secs(3600);
    for name in [".quire-0123456789abcdef.tmp", ".quire-dead.tmp"] {
        let file = fs::File::create(sandbox.root.join("notes").join(name)).unwrap();
        file.set_modified(old).unwrap();
    }
    // A fresh one may belong to a write in progress; not ours: left alone.
    fs::write(sandbox.root.join("notes/.quire-fresh.tmp"), "x").unwrap();
    let foreign = fs::File::create(sandbox.root.join("notes/.other.tmp")).unwrap();
    foreign.set_modified(old).unwrap();
    sandbox.replace("notes/a.md", "new\n").unwrap();
    assert_eq!(
        sandbox.names_in("notes"),
        [".other.tmp", ".quire-fresh.tmp", "a.md"]
    );
}

#[test]
fn create_makes_a_new_file_and_never_clobbers() {
    let sandbox = Sandbox::new();
    let located = sandbox.workspace.locate("notes/PLAN.md").unwrap();
    assert!(!located.exists());
    located.create(b"plan\n", 0o644).unwrap();
    assert_eq!(
        fs::read_to_string(sandbox.root.join("notes/PLAN.md")).unwrap(),
        "plan\n"
    );
    // Something appeared after the entry was resolved.
    let again = sandbox.workspace.locate("notes/b.md").unwrap();
    fs::write(sandbox.root.join("notes/b.md"), "theirs\n").unwrap();
    assert!(matches!(
        again.create(b"ours\n", 0o644),
        Err(FsError::AlreadyExists { .. })
    ));
    assert_eq!(
        fs::read_to_string(sandbox.root.join("notes/b.md")).unwrap(),
        "theirs\n"
    );
    assert_eq!(sandbox.names_in("notes"), ["PLAN.md", "a.md", "b.md"]);
}

#[test]
fn a_dangling_link_inside_is_created_through() {
    let sandbox = Sandbox::new();
    symlink("target.md", sandbox.root.join("notes/link.md")).unwrap();
    let located = sandbox.workspace.locate("notes/link.md").unwrap();
    assert_eq!(located.real_path(), "notes/target.md");
    located.create(b"made\n", 0o644).unwrap();
    assert_eq!(
        fs::read_to_string(sandbox.root.join("notes/target.md")).unwrap(),
        "made\n"
    );
}

#[test]
fn a_held_workspace_survives_its_root_being_swapped() {
    let sandbox = Sandbox::new();
    let moved = sandbox.outside.join("moved-root");
    fs::rename(&sandbox.root, &moved).unwrap();
    symlink(&sandbox.outside, &sandbox.root).unwrap();
    // Still the original folder, wherever it now is: never the impostor.
    assert_eq!(
        sandbox.workspace.read("notes/a.md", 100).unwrap(),
        b"inside\n"
    );
    assert!(matches!(
        sandbox.workspace.read("secret.md", 100),
        Err(FsError::NotFound { .. })
    ));
}

#[test]
fn folder_locks_exclude_each_other() {
    let sandbox = Sandbox::new();
    let located = sandbox.workspace.locate("notes/PLAN.md").unwrap();
    let held = located.lock_folder(Duration::from_millis(10)).unwrap();
    let error = located.lock_folder(Duration::from_millis(30)).unwrap_err();
    assert!(matches!(error, FsError::Busy { .. }), "{error}");
    assert!(error.retryable());
    drop(held);
    located.lock_folder(Duration::from_millis(10)).unwrap();
    // No lock file anywhere.
    assert_eq!(sandbox.names_in("notes"), ["a.md"]);
}

#[test]
fn absolute_paths_of_the_workspace_are_shown_relative() {
    let sandbox = Sandbox::new();
    let path = sandbox.root.join("notes/missing.md");
    let located = sandbox.workspace.locate(path.to_str().unwrap()).unwrap();
    assert_eq!(located.shown(), "notes/missing.md");
    assert_eq!(
        sandbox
            .workspace
            .display(Path::new("/somewhere/else/file.md")),
        "file.md"
    );
}
