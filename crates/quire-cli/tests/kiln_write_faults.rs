//! A kiln write that fails half-way leaves the note as it was (issue 11: "a
//! failed write (injected) leaving the note intact"), through the `quire`
//! binary.
//!
//! The failure is injected with the file-size limit (`RLIMIT_FSIZE`): the
//! binary runs under `ulimit -f` with `SIGXFSZ` ignored, so writing more
//! than the limit fails with `EFBIG` in the middle of staging the new
//! text. Permissions cannot inject a failure when the tests run as root, and
//! the limit needs no special file system. A small write under the same
//! limit succeeds, and the large one without it, so the limit is what
//! failed.

use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::{Command, Output};

use serde_json::{Value, json};

/// `ulimit -f` is in 512-byte blocks in POSIX shells (1024 in bash outside
/// POSIX mode): a limit of 4 or 8 KiB either way.
const LIMIT_BLOCKS: &str = "8";
/// Far over the limit whatever its unit.
const LARGE: usize = 64 * 1024;

/// `quire call --tools kiln --writes allow TOOL ARGUMENTS` on `root`, under
/// the file-size limit when `limited`.
fn call(root: &Path, tool: &str, arguments: &Value, limited: bool) -> Output {
    let quire = env!("CARGO_BIN_EXE_quire");
    let root = root.to_str().unwrap();
    let arguments = arguments.to_string();
    let args = [
        quire, "call", "--root", root, "--tools", "kiln", "--writes", "allow", tool, &arguments,
    ];
    let mut command = if limited {
        // An ignored signal stays ignored across exec, so the write gets
        // EFBIG instead of the process being killed by SIGXFSZ.
        let mut command = Command::new("/bin/sh");
        command
            .arg("-c")
            .arg(format!(
                "trap '' XFSZ; ulimit -f {LIMIT_BLOCKS} || exit 99; exec \"$@\""
            ))
            .arg("sh")
            .args(args);
        command
    } else {
        let mut command = Command::new(quire);
        command.args(&args[1..]);
        command
    };
    command.env("NO_COLOR", "1").output().unwrap()
}

fn result(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|error| {
        panic!(
            "stdout is not JSON ({error}): {}\nstderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// The call failed as a tool error (exit 1), with an error about `path`
/// over the file-size limit; returns its message.
fn too_large_error(output: &Output, path: &str) -> String {
    assert_ne!(
        output.status.code(),
        Some(99),
        "the shell could not set the limit"
    );
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let error = &result(output)["error"];
    // As for a full disk: the same call fails again until something changes.
    assert_eq!(error["code"], "VALIDATION_ERROR", "{error}");
    assert_eq!(error["retryable"], false, "{error}");
    let message = error["message"].as_str().unwrap().to_owned();
    for part in [
        &format!("cannot write `{path}`"),
        "too large",
        "the file was left as it was",
        "ulimit -f",
    ] {
        assert!(message.contains(part), "{part:?} missing from: {message}");
    }
    assert!(!message.contains("os error"), "{message}");
    message
}

/// Every entry beneath `root` (relative paths, sorted).
fn tree(root: &Path) -> Vec<String> {
    fn walk(root: &Path, folder: &Path, out: &mut Vec<String>) {
        for entry in fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            let relative = path
                .strip_prefix(root)
                .unwrap()
                .to_str()
                .unwrap()
                .to_owned();
            if fs::symlink_metadata(&path).unwrap().is_dir() {
                out.push(format!("{relative}/"));
                walk(root, &path, out);
            } else {
                out.push(relative);
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}

const NOTE: &str = "---\nstatus: draft # kept\n---\n# Note\n\nThe text before.\n";

#[test]
fn an_update_over_the_limit_fails_and_leaves_the_note_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir(root.join("notes")).unwrap();
    let note = root.join("notes/Note.md");
    fs::write(&note, NOTE).unwrap();
    fs::set_permissions(&note, fs::Permissions::from_mode(0o640)).unwrap();
    let inode = fs::metadata(&note).unwrap().ino();

    for arguments in [
        json!({"path": "notes/Note", "content": "x".repeat(LARGE)}),
        json!({"path": "notes/Note.md", "frontmatter": {"big": "y".repeat(LARGE)}}),
        json!({"path": "notes/Note", "content": "z\n".repeat(LARGE / 2), "frontmatter": {"a": 1}}),
    ] {
        let output = call(root, "update_note", &arguments, true);
        too_large_error(&output, "notes/Note.md");
        assert_eq!(fs::read(&note).unwrap(), NOTE.as_bytes(), "{arguments}");
        let metadata = fs::metadata(&note).unwrap();
        assert_eq!(metadata.mode() & 0o7777, 0o640);
        assert_eq!(metadata.ino(), inode, "the note was not replaced");
        assert_eq!(tree(root), ["notes/", "notes/Note.md"], "no temporary file");
    }

    // Under the same limit a small update succeeds: the limit is what failed.
    let small = call(
        root,
        "update_note",
        &json!({"path": "notes/Note", "content": "Small.\n"}),
        true,
    );
    assert_eq!(small.status.code(), Some(0), "{small:?}");
    assert_eq!(result(&small)["updated"], json!(["content"]));
    let small_text = "---\nstatus: draft # kept\n---\nSmall.\n";
    assert_eq!(fs::read_to_string(&note).unwrap(), small_text);
    assert_eq!(fs::metadata(&note).unwrap().mode() & 0o7777, 0o640);

    // And without it, the large update is written.
    let large = "x".repeat(LARGE);
    let unlimited = call(
        root,
        "update_note",
        &json!({"path": "notes/Note", "content": large}),
        false,
    );
    assert_eq!(unlimited.status.code(), Some(0), "{unlimited:?}");
    assert_eq!(
        fs::read_to_string(&note).unwrap(),
        format!("---\nstatus: draft # kept\n---\n{large}")
    );
    assert_eq!(tree(root), ["notes/", "notes/Note.md"]);
}

#[test]
fn a_create_over_the_limit_leaves_no_note_and_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir(root.join("notes")).unwrap();
    fs::write(root.join("notes/Other.md"), "other\n").unwrap();

    let output = call(
        root,
        "create_note",
        &json!({"path": "notes/Big", "content": "x".repeat(LARGE)}),
        true,
    );
    too_large_error(&output, "notes/Big.md");
    assert_eq!(tree(root), ["notes/", "notes/Other.md"]);
    assert_eq!(fs::read(root.join("notes/Other.md")).unwrap(), b"other\n");

    // Into folders that do not exist yet: no note, no temporary file. The
    // folders made on the way stay, as `mkdir -p` leaves them (the file
    // layer's documented `make_folders` behaviour); they hold nothing.
    let output = call(
        root,
        "create_note",
        &json!({"path": "new/deeper/Big", "content": "x".repeat(LARGE),
                "frontmatter": {"status": "draft"}}),
        true,
    );
    too_large_error(&output, "new/deeper/Big.md");
    assert_eq!(
        tree(root),
        ["new/", "new/deeper/", "notes/", "notes/Other.md"]
    );

    // A small note under the same limit is created: the limit is what failed.
    let small = call(
        root,
        "create_note",
        &json!({"path": "new/deeper/Small", "content": "Small.\n"}),
        true,
    );
    assert_eq!(small.status.code(), Some(0), "{small:?}");
    assert_eq!(result(&small)["path"], "new/deeper/Small.md");
    assert_eq!(
        fs::read(root.join("new/deeper/Small.md")).unwrap(),
        b"Small.\n"
    );
    // The large one, retried without the limit, is created too: nothing
    // the failed call left stands in its way.
    let unlimited = call(
        root,
        "create_note",
        &json!({"path": "notes/Big", "content": "x".repeat(LARGE)}),
        false,
    );
    assert_eq!(unlimited.status.code(), Some(0), "{unlimited:?}");
    assert_eq!(
        fs::metadata(root.join("notes/Big.md")).unwrap().len(),
        LARGE as u64
    );
}
