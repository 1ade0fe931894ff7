//! Integration tests for `update_tracker_status`, one group per requirement
//! of `tracker-status.requirements.md` (R1-R11), plus concurrency.
//!
//! Every test builds its own workspace in a temporary folder laid out as
//! `<tmp>/vault` (the workspace root) and `<tmp>/outside` (a sibling folder
//! the tool must never reach), and uses only the crate's public API.
//! Every error and every response a test looks at is also checked for the
//! workspace's absolute path (R10.6).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;

use quire_fs::Workspace;
use quire_tracker::{
    Action, PLACEHOLDER_TOKENS, StatusUpdate, StatusUpdateReport, TrackerError, TrackerErrorKind,
    TrackerStatus, TrackerTools, WriteHook, check_resume_written, resume_link_target,
    transition_allowed,
};
use serde_json::json;
#[path = "support/mcp_call.rs"]
mod mcp_call;
use quire_cli::mcp::{QuireServer, Toolset};
use serde_json::Value;

// ---------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------

const TRACKER: &str = "trackers/acme.md";
const RESUME_DIR: &str = "apps/acme/resume";
const PDF: &str = "apps/acme/resume/resume.pdf";
const TEX: &str = "apps/acme/resume/resume.tex";
const PDF_BYTES: &[u8] = b"%PDF-1.7\n% a small but non-empty resume\n%%EOF\n";
const CLEAN_TEX: &str = "\\documentclass{article}\n\\begin{document}\n\\section{Experience}\n\\item Built the parser.\n\\end{document}\n";

const STATUSES: [&str; 7] = [
    "Reviewed",
    "Resume Written",
    "Applied",
    "Interview",
    "Offer",
    "Rejected",
    "Ghosted",
];

/// A tracker note with `status` and a wiki-link `resume_path`.
fn note(status: &str) -> String {
    note_with(status, &format!("resume_path: \"[[{PDF}]]\""))
}

/// A tracker note with `status` and the given `resume_path` line (or any
/// other line in its place).
fn note_with(status: &str, resume_line: &str) -> String {
    format!(
        "---\ncompany: Acme\nrole: Backend Engineer\nstatus: {status}\n{resume_line}\ntags:\n  - backend\n  - remote\n---\n# Acme\n\nApplied via the careers page.\n"
    )
}

fn request(tracker_path: &str, target: &str, dry_run: bool, force: bool) -> StatusUpdate {
    StatusUpdate {
        tracker_path: tracker_path.into(),
        target_status: target.into(),
        dry_run,
        force,
    }
}

type Outcome = Result<StatusUpdateReport, TrackerError>;

/// One workspace (`<tmp>/vault`) with a sibling folder outside it.
struct Ws {
    dir: tempfile::TempDir,
    root: PathBuf,
    outside: PathBuf,
    tools: TrackerTools,
}

impl Ws {
    fn empty() -> Ws {
        Ws::build(None)
    }

    fn with_writer(writer: WriteHook) -> Ws {
        Ws::build(Some(writer))
    }

    fn build(writer: Option<WriteHook>) -> Ws {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("vault");
        let outside = dir.path().join("outside");
        fs::create_dir_all(root.join("trackers")).unwrap();
        fs::create_dir_all(&outside).unwrap();
        let workspace = Workspace::new(&root).unwrap();
        let tools = match writer {
            Some(writer) => TrackerTools::new(workspace).with_write_hook(writer),
            None => TrackerTools::new(workspace),
        };
        Ws {
            dir,
            root,
            outside,
            tools,
        }
    }

    /// `trackers/acme.md` holding `note(status)`, and a finished resume.
    fn standard(status: &str) -> Ws {
        let ws = Ws::empty();
        ws.write(TRACKER, note(status));
        ws.good_resume();
        ws
    }

    fn good_resume(&self) {
        self.write(PDF, PDF_BYTES);
        self.write(TEX, CLEAN_TEX);
    }

    fn write(&self, relative: &str, contents: impl AsRef<[u8]>) {
        let path = self.root.join(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, contents).unwrap();
    }

    fn write_outside(&self, relative: &str, contents: impl AsRef<[u8]>) -> PathBuf {
        let path = self.outside.join(relative);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, contents).unwrap();
        path
    }

    fn read(&self, relative: &str) -> Vec<u8> {
        fs::read(self.root.join(relative)).unwrap()
    }

    fn tracker(&self) -> String {
        String::from_utf8(self.read(TRACKER)).unwrap()
    }

    fn root_str(&self) -> String {
        self.root.to_str().unwrap().to_owned()
    }

    fn call(&self, target: &str, dry_run: bool, force: bool) -> Outcome {
        self.tools
            .update_status(&request(TRACKER, target, dry_run, force))
    }

    fn call_path(&self, tracker_path: &str, target: &str) -> Outcome {
        self.tools
            .update_status(&request(tracker_path, target, false, false))
    }

    /// [`Ws::call`] as a client makes it, through the MCP layer: the
    /// response JSON of a call that must succeed, checked for leaked paths.
    fn wire(&self, target: &str, dry_run: bool, force: bool) -> Value {
        self.ok_json(self.call_json(json!({
            "tracker_path": TRACKER,
            "target_status": target,
            "dry_run": dry_run,
            "force": force,
        })))
    }

    /// The tool called as a client calls it: JSON arguments, through the
    /// MCP layer. `Ok` holds the response JSON, `Err` the error JSON.
    fn call_json(&self, arguments: Value) -> Result<Value, Value> {
        let server = QuireServer::new(self.tools.workspace().clone(), &[Toolset::Tracker]);
        mcp_call::call(server, "update_tracker_status", arguments)
    }

    /// The response JSON of a client's call that must succeed, checked for
    /// leaked paths.
    fn ok_json(&self, outcome: Result<Value, Value>) -> Value {
        let response = outcome.unwrap_or_else(|error| panic!("expected a response, got {error}"));
        self.assert_sanitized(&response.to_string());
        response
    }

    /// The error JSON of a client's call that must fail with `code` and
    /// may not be retried unchanged; returns its message.
    fn err_json(&self, outcome: Result<Value, Value>, code: &str) -> String {
        let error = match outcome {
            Ok(response) => panic!("expected {code}, got the response {response}"),
            Err(error) => error,
        };
        assert_eq!(error["code"], code, "{error}");
        assert_eq!(error["retryable"], false, "{error}");
        let message = error["message"].as_str().expect("a message").to_owned();
        self.assert_sanitized(&message);
        message
    }

    /// The response of a call that must succeed, checked for leaked paths.
    fn ok(&self, outcome: Outcome) -> StatusUpdateReport {
        match outcome {
            Ok(response) => {
                self.assert_sanitized(&format!("{response:?}"));
                response
            }
            Err(error) => panic!("expected a response, got the error {error}"),
        }
    }

    /// The error of a call that must fail with `kind`, checked for leaked
    /// paths and for the `retryable` flag: only a failure may be retryable
    /// (and a permission error, though a failure, is not).
    fn err(&self, outcome: Outcome, kind: TrackerErrorKind) -> TrackerError {
        let error = match outcome {
            Ok(response) => panic!("expected {kind:?}, got the response {response:?}"),
            Err(error) => error,
        };
        assert_eq!(error.kind(), kind, "{error}");
        let message = error.to_string();
        if kind != TrackerErrorKind::Failed || message.contains("permission denied") {
            assert!(!error.retryable(), "retryable of {error}");
        } else {
            assert!(error.retryable(), "retryable of {error}");
        }
        self.assert_sanitized(&message);
        error
    }

    /// R10.6: no absolute path of the workspace, no stack trace.
    fn assert_sanitized(&self, text: &str) {
        let roots = [
            self.root_str(),
            self.tools.workspace().root().to_string_lossy().into_owned(),
        ];
        for root in roots {
            assert!(
                !text.contains(&root),
                "{text:?} shows the absolute path {root:?}"
            );
        }
        for trace in ["panicked at", "stack backtrace", ".rs:"] {
            assert!(!text.contains(trace), "{text:?} looks like a stack trace");
        }
    }

    /// The file names in `folder` (relative to the root), sorted.
    fn names_in(&self, folder: &str) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(self.root.join(folder))
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// Every file, folder and link under the temporary folder (workspace
    /// and outside), by relative name, with a hash of its contents.
    fn snapshot(&self) -> BTreeMap<String, Node> {
        let mut nodes = BTreeMap::new();
        walk(self.dir.path(), self.dir.path(), &mut nodes);
        nodes
    }
}

/// One entry of a tree snapshot.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Node {
    Dir,
    File { len: usize, hash: u64, mode: u32 },
    Link(PathBuf),
}

fn walk(base: &Path, folder: &Path, nodes: &mut BTreeMap<String, Node>) {
    for entry in fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        let name = path
            .strip_prefix(base)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let metadata = fs::symlink_metadata(&path).unwrap();
        if metadata.file_type().is_symlink() {
            nodes.insert(name, Node::Link(fs::read_link(&path).unwrap()));
        } else if metadata.is_dir() {
            nodes.insert(name, Node::Dir);
            walk(base, &path, nodes);
        } else {
            let bytes = fs::read(&path).unwrap();
            let mut hasher = DefaultHasher::new();
            bytes.hash(&mut hasher);
            nodes.insert(
                name,
                Node::File {
                    len: bytes.len(),
                    hash: hasher.finish(),
                    mode: mode_of(&metadata),
                },
            );
        }
    }
}

#[cfg(unix)]
fn mode_of(metadata: &fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    metadata.permissions().mode() & 0o7777
}

#[cfg(not(unix))]
fn mode_of(metadata: &fs::Metadata) -> u32 {
    u32::from(metadata.permissions().readonly())
}

/// The names whose entries differ between two snapshots (changed, created
/// or deleted).
fn changed(before: &BTreeMap<String, Node>, after: &BTreeMap<String, Node>) -> Vec<String> {
    let names: BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    names
        .into_iter()
        .filter(|name| before.get(*name) != after.get(*name))
        .cloned()
        .collect()
}

/// The transition policy, written out independently of the crate.
fn policy_allows(from: &str, to: &str) -> bool {
    matches!(
        (from, to),
        ("Reviewed", "Resume Written") | ("Resume Written", "Applied")
    ) || to == "Rejected"
        || to == "Ghosted"
}

fn fail_disk_full(_path: &str, _contents: &[u8]) -> io::Result<()> {
    Err(io::Error::other("disk full"))
}

fn fail_naming_the_path(path: &str, _contents: &[u8]) -> io::Result<()> {
    Err(io::Error::new(
        io::ErrorKind::PermissionDenied,
        format!("cannot write {path}"),
    ))
}

// ---------------------------------------------------------------------------
// R1: tool input interface
// ---------------------------------------------------------------------------
#[test]
fn req01_tracker_path_and_target_status_are_required() {
    let ws = Ws::standard("Reviewed");
    let before = ws.snapshot();
    for (arguments, field) in [
        (json!({ "target_status": "Rejected" }), "tracker_path"),
        (json!({ "tracker_path": TRACKER }), "target_status"),
        (json!({ "dry_run": true, "force": true }), "tracker_path"),
    ] {
        let message = ws.err_json(ws.call_json(arguments.clone()), "VALIDATION_ERROR");
        assert!(message.contains(field), "{arguments}: {message}");
    }
    for arguments in [
        json!({}),
        json!({ "tracker_path": null, "target_status": "Rejected" }),
        json!({ "tracker_path": TRACKER, "target_status": null }),
    ] {
        ws.err_json(ws.call_json(arguments), "VALIDATION_ERROR");
    }
    assert_eq!(changed(&before, &ws.snapshot()), Vec::<String>::new());
}
#[test]
fn req01_dry_run_defaults_to_false() {
    let ws = Ws::standard("Reviewed");
    let response =
        ws.ok_json(ws.call_json(json!({ "tracker_path": TRACKER, "target_status": "Rejected" })));
    assert_eq!(response["dry_run"], false);
    assert_eq!(response["action"], "updated");
    assert_eq!(ws.tracker(), note("Rejected"), "omitting dry_run writes");
}
#[test]
fn req01_force_defaults_to_false() {
    let ws = Ws::standard("Applied");
    let response =
        ws.ok_json(ws.call_json(json!({ "tracker_path": TRACKER, "target_status": "Reviewed" })));
    assert_eq!(response["action"], "blocked");
    assert_eq!(response["success"], false);
    assert_eq!(response["warnings"], json!([]), "{response}");
    assert_eq!(
        ws.tracker(),
        note("Applied"),
        "omitting force does not force"
    );
}
#[test]
fn req01_explicit_flags_are_honoured() {
    let ws = Ws::standard("Applied");
    let response = ws.ok_json(ws.call_json(json!({
        "tracker_path": TRACKER, "target_status": "Reviewed", "dry_run": true, "force": true
    })));
    assert_eq!(response["action"], "would_update");
    assert_eq!(response["dry_run"], true);
    assert_eq!(ws.tracker(), note("Applied"));
}
#[test]
fn req01_unknown_properties_are_validation_errors() {
    let ws = Ws::standard("Reviewed");
    let before = ws.snapshot();
    for extra in ["extra", "Force", "dryRun", "status", "trackerPath"] {
        let mut arguments = json!({ "tracker_path": TRACKER, "target_status": "Rejected" });
        arguments[extra] = json!(true);
        let message = ws.err_json(ws.call_json(arguments), "VALIDATION_ERROR");
        assert!(message.contains(extra), "{extra}: {message}");
    }
    assert_eq!(changed(&before, &ws.snapshot()), Vec::<String>::new());
}

/// Arguments that are not an object never reach the tool: MCP refuses
/// them as invalid params (`tests/protocol_stdio.rs`,
/// `tool_arguments_that_are_not_an_object_are_invalid_params`).
#[test]
fn req01_wrongly_typed_arguments_are_validation_errors() {
    let ws = Ws::standard("Reviewed");
    let before = ws.snapshot();
    for arguments in [
        json!({ "tracker_path": 5, "target_status": "Rejected" }),
        json!({ "tracker_path": TRACKER, "target_status": ["Rejected"] }),
        json!({ "tracker_path": TRACKER, "target_status": "Rejected", "dry_run": "false" }),
        json!({ "tracker_path": TRACKER, "target_status": "Rejected", "force": 1 }),
        json!({ "tracker_path": TRACKER, "target_status": "Rejected", "dry_run": null }),
    ] {
        ws.err_json(ws.call_json(arguments), "VALIDATION_ERROR");
    }
    assert_eq!(changed(&before, &ws.snapshot()), Vec::<String>::new());
}

static R1_WRITES: AtomicUsize = AtomicUsize::new(0);

fn counting_writer(_path: &str, _contents: &[u8]) -> io::Result<()> {
    R1_WRITES.fetch_add(1, Ordering::SeqCst);
    Ok(())
}

#[test]
fn req01_all_validation_happens_before_any_write() {
    let ws = Ws::with_writer(counting_writer);
    ws.good_resume();
    // (Arguments that do not decode never reach the tool: the MCP layer
    // refuses them first.)
    let invalid: Vec<(String, StatusUpdate)> = vec![
        (note("Reviewed"), request(TRACKER, "rejected", false, false)),
        (
            note("Reviewed"),
            request(TRACKER, "Rejected ", false, false),
        ),
        (note("Reviewed"), request(TRACKER, "Drafted", false, false)),
        (
            note("Reviewed"),
            request("../outside/acme.md", "Rejected", false, false),
        ),
        (note("Reviewed"), request("", "Rejected", false, false)),
        // Resume Written needs a usable resume_path: checked before writing.
        (
            note_with("Reviewed", "other: x"),
            request(TRACKER, "Resume Written", false, false),
        ),
        (
            note_with("Reviewed", "resume_path: \"[[ ]]\""),
            request(TRACKER, "Resume Written", false, true),
        ),
        (
            note_with("Reviewed", "resume_path: ../outside/resume/resume.pdf"),
            request(TRACKER, "Resume Written", false, false),
        ),
        (
            "---\nstatus: no frontmatter close\n".to_owned(),
            request(TRACKER, "Rejected", false, false),
        ),
    ];
    for (text, request) in invalid {
        ws.write(TRACKER, &text);
        let before = ws.snapshot();
        ws.err(ws.tools.update_status(&request), TrackerErrorKind::Invalid);
        assert_eq!(
            changed(&before, &ws.snapshot()),
            Vec::<String>::new(),
            "{request:?}"
        );
        assert_eq!(ws.tracker(), text, "{request:?}");
        assert_eq!(R1_WRITES.load(Ordering::SeqCst), 0, "{request:?} wrote");
    }
    // A folder is no tracker (FILE_NOT_FOUND), found before any write too.
    let before = ws.snapshot();
    ws.err(
        ws.call_path("trackers", "Rejected"),
        TrackerErrorKind::NotFound,
    );
    assert_eq!(changed(&before, &ws.snapshot()), Vec::<String>::new());
    assert_eq!(R1_WRITES.load(Ordering::SeqCst), 0);
    // The writer is wired in: a valid request goes through it exactly once.
    ws.write(TRACKER, note("Reviewed"));
    let response = ws.ok(ws.call("Rejected", false, false));
    assert_eq!(response.action, Action::Updated);
    assert_eq!(R1_WRITES.load(Ordering::SeqCst), 1);
    assert_eq!(ws.tracker(), note("Rejected"));
}

// ---------------------------------------------------------------------------
// R2: tracker file parsing and validation
// ---------------------------------------------------------------------------

#[test]
fn req02_missing_tracker_is_file_not_found() {
    let ws = Ws::standard("Reviewed");
    let before = ws.snapshot();
    for missing in [
        "trackers/missing.md",
        "nowhere/acme.md",
        "trackers/deeper/acme.md",
    ] {
        let error = ws.err(
            ws.call_path(missing, "Rejected"),
            TrackerErrorKind::NotFound,
        );
        assert!(!error.retryable());
    }
    // Dry runs check the file too.
    let error = ws
        .tools
        .update_status(&request("trackers/gone.md", "Applied", true, false));
    ws.err(error, TrackerErrorKind::NotFound);
    assert_eq!(changed(&before, &ws.snapshot()), Vec::<String>::new());
}

#[test]
fn req02_path_below_a_file_is_file_not_found() {
    let ws = Ws::standard("Reviewed");
    let before = ws.snapshot();
    ws.err(
        ws.call_path("trackers/acme.md/x", "Rejected"),
        TrackerErrorKind::NotFound,
    );
    ws.err(
        ws.call_path("trackers/acme.md/x.md", "Rejected"),
        TrackerErrorKind::NotFound,
    );
    assert_eq!(changed(&before, &ws.snapshot()), Vec::<String>::new());
}

/// A tracker holding `text` is refused with VALIDATION_ERROR and left as it was.
fn refused_unchanged(text: &str) -> TrackerError {
    let ws = Ws::empty();
    ws.write(TRACKER, text);
    let error = ws.err(ws.call("Rejected", false, false), TrackerErrorKind::Invalid);
    assert_eq!(ws.tracker(), text, "{text:?}");
    error
}

#[test]
fn req02_tracker_without_frontmatter_is_validation_error() {
    for text in [
        "# Acme\nstatus: Reviewed\n",
        "",
        "\n---\nstatus: Reviewed\n---\n",
        " ---\nstatus: Reviewed\n---\n",
    ] {
        refused_unchanged(text);
    }
}

#[test]
fn req02_malformed_yaml_is_validation_error() {
    for text in [
        "---\nstatus: [Reviewed\n---\n",
        "---\nstatus: Reviewed\n  bad: indentation\n---\n",
        "---\nstatus: \"Reviewed\n---\n",
        "---\ncompany: {a: 1\nstatus: Reviewed\n---\n",
        "---\nstatus: Reviewed\nstatus: Applied\n---\n",
        "---\n- Reviewed\n---\n",
        "---\nReviewed\n---\n",
        // A comment must be separated from a quoted value by whitespace.
        "---\nstatus: \"Reviewed\"# tight\n---\n",
    ] {
        refused_unchanged(text);
    }
}

#[test]
fn req02_unclosed_frontmatter_is_validation_error() {
    for text in [
        "---\nstatus: Reviewed\n",
        "---\nstatus: Reviewed\n# Body without a closing fence\n",
        "---\r\nstatus: Reviewed\r\n--\r\n",
        "---",
    ] {
        refused_unchanged(text);
    }
}

#[test]
fn req02_missing_status_is_validation_error() {
    for text in [
        "---\ncompany: Acme\n---\nstatus: Reviewed\n",
        "---\n---\n",
        "---\n# status: Reviewed\n---\n",
        "---\nmeta:\n  status: Reviewed\n---\n",
        "---\nStatus: Reviewed\n---\n",
    ] {
        let error = refused_unchanged(text);
        assert!(error.to_string().contains("status"), "{text:?}: {error}");
    }
}

#[test]
fn req02_non_string_status_is_validation_error() {
    for value in [
        "3",
        "3.5",
        "true",
        "null",
        "~",
        "",
        "[Reviewed]",
        "{now: Reviewed}",
        "\n  - Reviewed",
        "\n  now: Reviewed",
    ] {
        let text = format!("---\ncompany: Acme\nstatus: {value}\n---\nBody\n");
        let error = refused_unchanged(&text);
        assert!(error.to_string().contains("status"), "{value:?}: {error}");
    }
}

/// Issue 8: the design's "tracker path unreadable" is FILE_NOT_FOUND; a
/// folder was VALIDATION_ERROR. The message still says what is there and
/// what to give instead, in every mode.
#[test]
fn req02_a_folder_as_the_tracker_is_file_not_found() {
    let ws = Ws::standard("Reviewed");
    fs::create_dir(ws.root.join("trackers/archive.md")).unwrap();
    let before = ws.snapshot();
    let absolute = ws.root.join("trackers").to_str().unwrap().to_owned();
    for (path, shown) in [
        ("trackers", "trackers"),
        ("trackers/", "trackers/"),
        (".", "."),
        ("trackers/archive.md", "trackers/archive.md"),
        (absolute.as_str(), "trackers"),
    ] {
        for (dry_run, force) in [(false, false), (true, false), (false, true)] {
            let error = ws.err(
                ws.tools
                    .update_status(&request(path, "Rejected", dry_run, force)),
                TrackerErrorKind::NotFound,
            );
            assert_eq!(
                error.to_string(),
                format!("`{shown}` is a folder, not a regular file; give the path of a file"),
                "{path}"
            );
        }
    }
    assert_eq!(changed(&before, &ws.snapshot()), Vec::<String>::new());
}

/// Issue 8: a tracker this process may not read is FILE_NOT_FOUND (it was
/// VALIDATION_ERROR), saying "permission denied" and what to grant. Root
/// reads every file, so as root the binary runs as user 65534.
#[test]
fn req02_a_tracker_without_read_permission_is_file_not_found() {
    use std::os::unix::fs::PermissionsExt;
    let ws = Ws::standard("Reviewed");
    fs::set_permissions(ws.root.join(TRACKER), fs::Permissions::from_mode(0o000)).unwrap();
    // Also a folder on the way that may not be searched.
    ws.write("locked/acme.md", note("Reviewed"));
    fs::set_permissions(ws.root.join("locked"), fs::Permissions::from_mode(0o000)).unwrap();
    let before = ws.snapshot();
    for (path, action) in [(TRACKER, "open"), ("locked/acme.md", "look up")] {
        let Some((code, message)) = call_as_unprivileged(&ws, path) else {
            return;
        };
        assert_eq!(code, "FILE_NOT_FOUND", "{path}: {message}");
        assert_eq!(
            message,
            format!(
                "cannot {action} `{path}`: permission denied, so the tracker cannot be read. Give the user this server runs as read permission on the file and search (x) permission on every folder above it"
            )
        );
        ws.assert_sanitized(&message);
    }
    fs::set_permissions(ws.root.join("locked"), fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(changed(&before, &ws.snapshot()), Vec::<String>::new());
}

/// `update_tracker_status` of `path` to `Rejected` by a process that file
/// permissions apply to: this one when it is not root, else the binary run
/// as user 65534 (`None`, after saying so, when it cannot be). The error's
/// code and message.
fn call_as_unprivileged(ws: &Ws, path: &str) -> Option<(String, String)> {
    if rustix::process::geteuid().as_raw() != 0 {
        let error = ws
            .call_path(path, "Rejected")
            .expect_err("an unreadable tracker");
        // The code a client sees for it.
        let code = match error.kind() {
            TrackerErrorKind::NotFound => "FILE_NOT_FOUND",
            TrackerErrorKind::Invalid => "VALIDATION_ERROR",
            TrackerErrorKind::Failed => "INTERNAL_ERROR",
        };
        return Some((code.to_owned(), error.to_string()));
    }
    call_as_user_65534(ws, path)
}
fn call_as_user_65534(ws: &Ws, path: &str) -> Option<(String, String)> {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    // User 65534 must reach the workspace (the temporary folder is 0700).
    for folder in [ws.dir.path(), &ws.root, &ws.root.join("trackers")] {
        fs::set_permissions(folder, fs::Permissions::from_mode(0o755)).unwrap();
    }
    // So must it the binary: the build's folder may be private to this user
    // (a checkout in `mktemp -d`), so it runs a copy in a folder of its own.
    let holder = tempfile::tempdir().unwrap();
    fs::set_permissions(holder.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let binary = holder.path().join("quire");
    fs::copy(env!("CARGO_BIN_EXE_quire"), &binary).unwrap();
    fs::set_permissions(&binary, fs::Permissions::from_mode(0o755)).unwrap();
    let output = std::process::Command::new(&binary)
        .args(["call", "update_tracker_status", "--root"])
        .arg(&ws.root)
        .arg(json!({"tracker_path": path, "target_status": "Rejected"}).to_string())
        .uid(65534)
        .gid(65534)
        .output()
        .unwrap();
    let value: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&output.stderr)));
    let error = &value["error"];
    Some((
        error["code"].as_str().unwrap_or_default().to_owned(),
        error["message"].as_str().unwrap_or_default().to_owned(),
    ))
}

#[test]
fn req02_a_tracker_that_is_not_utf8_is_a_validation_error() {
    let ws = Ws::standard("Reviewed");
    // Not UTF-8.
    let bytes = b"---\nstatus: Reviewed\ncompany: \xff\xfe\n---\n";
    ws.write("trackers/binary.md", bytes);
    ws.err(
        ws.call_path("trackers/binary.md", "Rejected"),
        TrackerErrorKind::Invalid,
    );
    assert_eq!(ws.read("trackers/binary.md"), bytes);
}

#[test]
fn req02_other_fields_and_body_are_preserved() {
    let text = "---\n\
        title: \"Acme: Backend\"\n\
        company: Acme\n\
        status: Reviewed\n\
        resume_path: '[[apps/acme/resume/resume.pdf]]'\n\
        salary: 120000\n\
        remote: true\n\
        applied_on: 2026-02-05\n\
        tags: [backend, remote]\n\
        contacts:\n  - name: Ann\n    role: recruiter\n\
        notes: |\n  status: Reviewed in the notes\n  second line\n\
        empty:\n\
        ---\n\
        # Acme\n\n\
        status: Reviewed (body text, not frontmatter)\n\n\
        - [ ] follow up\n";
    let ws = Ws::empty();
    ws.good_resume();
    ws.write(TRACKER, text);
    let response = ws.ok(ws.call("Resume Written", false, false));
    assert_eq!(response.action, Action::Updated);
    let expected = text.replacen("status: Reviewed\n", "status: Resume Written\n", 1);
    assert_eq!(ws.tracker(), expected);
    // And back out to a terminal status: only the value changes again.
    ws.ok(ws.call("Ghosted", false, false));
    assert_eq!(
        ws.tracker(),
        text.replacen("status: Reviewed\n", "status: Ghosted\n", 1)
    );
}

// ---------------------------------------------------------------------------
// R3: allowed tracker status set
// ---------------------------------------------------------------------------

#[test]
fn req03_each_canonical_status_is_accepted() {
    for target in STATUSES {
        let ws = Ws::standard("Reviewed");
        let response = ws.ok(ws.call(target, false, true));
        assert_eq!(response.target_status, target);
        assert!(response.success, "{target}: {response:?}");
        let expected = if target == "Reviewed" {
            Action::Noop
        } else {
            Action::Updated
        };
        assert_eq!(response.action, expected, "{target}");
        assert_eq!(ws.tracker(), note(target));
        assert_eq!(TrackerStatus::from_exact(target).unwrap().as_str(), target);
    }
    assert_eq!(TrackerStatus::ALL.len(), 7);
    let all: Vec<&str> = TrackerStatus::ALL.iter().map(|s| s.as_str()).collect();
    assert_eq!(all, STATUSES);
}

#[test]
fn req03_status_outside_the_set_is_validation_error() {
    let ws = Ws::standard("Reviewed");
    let before = ws.snapshot();
    for target in [
        "Drafted",
        "",
        "Resume",
        "Written",
        "Accepted",
        "Closed",
        "Resume-Written",
        "ResumeWritten",
    ] {
        let error = ws.err(ws.call(target, false, true), TrackerErrorKind::Invalid);
        assert!(
            error.to_string().contains("target_status"),
            "{target:?}: {error}"
        );
    }
    assert_eq!(changed(&before, &ws.snapshot()), Vec::<String>::new());
}

#[test]
fn req03_status_matching_is_case_sensitive() {
    let ws = Ws::standard("Reviewed");
    let before = ws.snapshot();
    for target in [
        "reviewed",
        "REVIEWED",
        "rejected",
        "REJECTED",
        "resume written",
        "Resume written",
        "resume Written",
        "GHOSTED",
        "aPPLIED",
    ] {
        ws.err(ws.call(target, false, true), TrackerErrorKind::Invalid);
        ws.err(ws.call(target, true, false), TrackerErrorKind::Invalid);
    }
    assert_eq!(changed(&before, &ws.snapshot()), Vec::<String>::new());
}

#[test]
fn req03_surrounding_whitespace_is_rejected() {
    let ws = Ws::standard("Reviewed");
    let before = ws.snapshot();
    for target in [
        " Rejected",
        "Rejected ",
        " Rejected ",
        "\tRejected",
        "Rejected\n",
        "Rejected\r\n",
        "\u{a0}Rejected",
        "Rejected\u{3000}",
        "Resume  Written",
        "Resume\tWritten",
    ] {
        ws.err(ws.call(target, false, true), TrackerErrorKind::Invalid);
    }
    assert_eq!(changed(&before, &ws.snapshot()), Vec::<String>::new());
}

#[test]
fn req03_current_status_is_compared_exactly() {
    // A lower-case status in the file is not `Reviewed`: the forward step
    // from it is blocked, and setting `Reviewed` is a change, not a noop.
    let ws = Ws::standard("reviewed");
    let response = ws.ok(ws.call("Resume Written", false, false));
    assert_eq!(response.action, Action::Blocked);
    assert_eq!(ws.tracker(), note("reviewed"));
    let response = ws.ok(ws.call("Reviewed", false, true));
    assert_eq!(response.action, Action::Updated);
    assert_eq!(ws.tracker(), note("Reviewed"));
}

// ---------------------------------------------------------------------------
// R4: transition policy
// ---------------------------------------------------------------------------

#[test]
fn req04_same_status_is_noop() {
    for status in STATUSES {
        for (dry_run, force) in [(false, false), (true, false), (false, true), (true, true)] {
            let ws = Ws::standard(status);
            // Even a broken resume does not matter when nothing changes.
            fs::remove_file(ws.root.join(PDF)).unwrap();
            let before = ws.snapshot();
            let response = ws.ok(ws.call(status, dry_run, force));
            assert_eq!(response.action, Action::Noop, "{status}");
            assert!(response.success);
            assert_eq!(response.dry_run, dry_run);
            assert_eq!(response.previous_status, status);
            assert_eq!(response.error, None);
            assert!(response.warnings.is_empty());
            assert_eq!(changed(&before, &ws.snapshot()), Vec::<String>::new());
        }
    }
}

#[test]
fn req04_forward_transitions_are_allowed() {
    let ws = Ws::standard("Reviewed");
    let response = ws.ok(ws.call("Resume Written", false, false));
    assert_eq!(response.action, Action::Updated);
    assert!(response.success);
    assert_eq!(response.guardrail_check_passed, Some(true));
    assert!(response.warnings.is_empty());
    assert_eq!(ws.tracker(), note("Resume Written"));

    let response = ws.ok(ws.call("Applied", false, false));
    assert_eq!(response.action, Action::Updated);
    assert_eq!(response.previous_status, "Resume Written");
    assert_eq!(response.guardrail_check_passed, None);
    assert!(response.warnings.is_empty());
    assert_eq!(ws.tracker(), note("Applied"));
}

#[test]
fn req04_terminal_outcomes_are_allowed_from_every_status() {
    for from in STATUSES.iter().chain(&["Drafted", "Something else"]) {
        for to in ["Rejected", "Ghosted"] {
            if *from == to {
                continue;
            }
            // No resume at all: terminal outcomes need no guardrails.
            let ws = Ws::empty();
            ws.write(TRACKER, note(from));
            let response = ws.ok(ws.call(to, false, false));
            assert_eq!(response.action, Action::Updated, "{from} -> {to}");
            assert!(response.success);
            assert_eq!(response.guardrail_check_passed, None);
            assert_eq!(ws.tracker(), note(to));
        }
    }
}

#[test]
fn req04_every_other_pair_is_blocked_without_force() {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for from in STATUSES {
        for to in STATUSES {
            let case = format!("{from} -> {to}");
            let ws = Ws::standard(from);
            let before = ws.snapshot();
            let response = ws.ok(ws.call(to, false, false));
            assert_eq!(response.previous_status, from, "{case}");
            assert_eq!(response.target_status, to, "{case}");
            assert!(!response.dry_run, "{case}");
            assert!(
                response.warnings.is_empty(),
                "{case}: {:?}",
                response.warnings
            );
            if from == to {
                assert_eq!(response.action, Action::Noop, "{case}");
                assert!(response.success, "{case}");
                assert_eq!(changed(&before, &ws.snapshot()), Vec::<String>::new());
            } else if policy_allows(from, to) {
                assert_eq!(response.action, Action::Updated, "{case}");
                assert!(response.success, "{case}");
                assert_eq!(response.error, None, "{case}");
                let guardrails = (to == "Resume Written").then_some(true);
                assert_eq!(response.guardrail_check_passed, guardrails, "{case}");
                assert_eq!(ws.tracker(), note(to), "{case}");
                assert_eq!(
                    changed(&before, &ws.snapshot()),
                    vec![format!("vault/{TRACKER}")]
                );
            } else {
                assert_eq!(response.action, Action::Blocked, "{case}");
                assert!(!response.success, "{case}");
                let error = response
                    .error
                    .as_deref()
                    .unwrap_or_else(|| panic!("{case}: no error"));
                assert!(
                    error.contains(from) && error.contains(to),
                    "{case}: {error}"
                );
                assert_eq!(response.guardrail_check_passed, None, "{case}");
                assert_eq!(ws.tracker(), note(from), "{case}");
                assert_eq!(
                    changed(&before, &ws.snapshot()),
                    Vec::<String>::new(),
                    "{case}"
                );
            }
            if from != to {
                let target = TrackerStatus::from_exact(to).unwrap();
                assert_eq!(
                    transition_allowed(from, target),
                    policy_allows(from, to),
                    "{case}"
                );
            }
            *counts.entry(format!("{:?}", response.action)).or_insert(0) += 1;
        }
    }
    let expected: BTreeMap<String, usize> = [("Blocked", 28), ("Noop", 7), ("Updated", 14)]
        .into_iter()
        .map(|(action, count)| (action.to_owned(), count))
        .collect();
    assert_eq!(counts, expected);
}

#[test]
fn req04_force_updates_blocked_pairs_with_a_warning() {
    for from in STATUSES {
        for to in STATUSES {
            if from == to {
                continue;
            }
            let case = format!("{from} -> {to} (force)");
            let ws = Ws::standard(from);
            let response = ws.ok(ws.call(to, false, true));
            assert_eq!(response.action, Action::Updated, "{case}");
            assert!(response.success, "{case}");
            assert_eq!(response.error, None, "{case}");
            assert_eq!(ws.tracker(), note(to), "{case}");
            if policy_allows(from, to) {
                assert!(
                    response.warnings.is_empty(),
                    "{case}: {:?}",
                    response.warnings
                );
            } else {
                assert_eq!(
                    response.warnings.len(),
                    1,
                    "{case}: {:?}",
                    response.warnings
                );
                let warning = &response.warnings[0];
                assert!(warning.contains("force"), "{case}: {warning}");
                assert!(
                    warning.contains(from) && warning.contains(to),
                    "{case}: {warning}"
                );
            }
            let guardrails = (to == "Resume Written").then_some(true);
            assert_eq!(response.guardrail_check_passed, guardrails, "{case}");
        }
    }
}

#[test]
fn req04_non_canonical_current_status_is_reported() {
    let ws = Ws::standard("Drafted");
    let response = ws.ok(ws.call("Applied", false, false));
    assert_eq!(response.action, Action::Blocked);
    assert_eq!(response.previous_status, "Drafted");
    let response = ws.ok(ws.call("Rejected", false, false));
    assert_eq!(response.action, Action::Updated);
    assert!(
        response.warnings.iter().any(|w| w.contains("Drafted")),
        "{:?}",
        response.warnings
    );
    assert_eq!(ws.tracker(), note("Rejected"));
}

// ---------------------------------------------------------------------------
// R5: Resume Written guardrails
// ---------------------------------------------------------------------------

/// Moves `Reviewed -> Resume Written` (write mode, no force) and expects a
/// guardrail block whose reason contains every fragment.
fn assert_guardrail_block(ws: &Ws, fragments: &[&str]) -> StatusUpdateReport {
    let before = ws.snapshot();
    let response = ws.ok(ws.call("Resume Written", false, false));
    assert_eq!(response.action, Action::Blocked, "{response:?}");
    assert!(!response.success);
    assert_eq!(response.guardrail_check_passed, Some(false));
    let error = response
        .error
        .clone()
        .expect("a blocked response has a reason");
    for fragment in fragments {
        assert!(
            error.contains(fragment),
            "{error:?} does not mention {fragment:?}"
        );
    }
    assert_eq!(changed(&before, &ws.snapshot()), Vec::<String>::new());
    assert_eq!(ws.tracker(), note("Reviewed"));
    response
}

#[test]
fn req05_missing_pdf_blocks() {
    let ws = Ws::standard("Reviewed");
    fs::remove_file(ws.root.join(PDF)).unwrap();
    assert_guardrail_block(&ws, &["resume.pdf", "missing", PDF]);
}

#[test]
fn req05_empty_pdf_blocks() {
    let ws = Ws::standard("Reviewed");
    ws.write(PDF, b"");
    assert_guardrail_block(&ws, &["resume.pdf", "empty", PDF]);
}

#[test]
fn req05_pdf_that_is_a_folder_blocks() {
    let ws = Ws::standard("Reviewed");
    fs::remove_file(ws.root.join(PDF)).unwrap();
    fs::create_dir(ws.root.join(PDF)).unwrap();
    assert_guardrail_block(&ws, &["resume.pdf"]);
}

#[test]
fn req05_missing_tex_blocks() {
    let ws = Ws::standard("Reviewed");
    fs::remove_file(ws.root.join(TEX)).unwrap();
    assert_guardrail_block(&ws, &["resume.tex", "missing", TEX]);
}

#[test]
fn req05_each_placeholder_token_blocks_and_is_named() {
    assert!(PLACEHOLDER_TOKENS.len() >= 3);
    for required in ["PROJECT-AI-", "PROJECT-BE-", "WORK-BULLET-POINT-"] {
        assert!(PLACEHOLDER_TOKENS.contains(&required), "{required}");
    }
    for token in PLACEHOLDER_TOKENS {
        for tex in [
            format!("{token}1"),
            format!(
                "\\documentclass{{article}}\n\\begin{{document}}\n\\item {token}3 goes here\n\\end{{document}}\n"
            ),
            format!("% last line without newline: {token}"),
        ] {
            let ws = Ws::standard("Reviewed");
            ws.write(TEX, &tex);
            assert_guardrail_block(&ws, &["resume.tex", TEX, token]);
        }
    }
}

#[test]
fn req05_every_placeholder_left_is_reported() {
    let ws = Ws::standard("Reviewed");
    ws.write(
        TEX,
        "\\item PROJECT-AI-1\n\\item PROJECT-BE-2\n\\item WORK-BULLET-POINT-3\n",
    );
    assert_guardrail_block(&ws, &["PROJECT-AI-", "PROJECT-BE-", "WORK-BULLET-POINT-"]);
}

/// Issue 8: the original project's own template writes
/// `PROJECT-BULLET-POINT-1`, which none of the three listed tokens matches,
/// and its scanner flags any `BULLET-POINT`. Such a `resume.tex` passed; it
/// is blocked, and the reason names each placeholder as written with its
/// 1-based line, in both modes.
#[test]
fn req05_any_bullet_point_placeholder_blocks_naming_it_and_its_line() {
    let ws = Ws::standard("Reviewed");
    ws.write(
        TEX,
        "\\documentclass{article}\n\\begin{document}\n\\section{Projects}\n\\begin{itemize}\n  \\item PROJECT-BULLET-POINT-1\n  \\item PROJECT-BULLET-POINT-2\n\\end{itemize}\n\\end{document}\n",
    );
    let reason = format!(
        "resume.tex ({TEX}) still contains template placeholders: `PROJECT-BULLET-POINT-1` (line 5), `PROJECT-BULLET-POINT-2` (line 6); replace them with real content"
    );
    for dry_run in [true, false] {
        let before = ws.snapshot();
        let response = ws.ok(ws.call("Resume Written", dry_run, false));
        assert_eq!(response.action, Action::Blocked, "dry_run={dry_run}");
        assert_eq!(response.guardrail_check_passed, Some(false));
        assert_eq!(response.error.as_deref(), Some(reason.as_str()));
        assert_eq!(changed(&before, &ws.snapshot()), Vec::<String>::new());
    }
    assert!(PLACEHOLDER_TOKENS.contains(&"BULLET-POINT"));
    // One placeholder holding two tokens is named once, at its line.
    ws.write(TEX, "clean\n\\item WORK-BULLET-POINT-4 and PROJECT-AI-2\n");
    let response = ws.ok(ws.call("Resume Written", false, false));
    assert_eq!(
        response.error.as_deref(),
        Some(
            format!("resume.tex ({TEX}) still contains template placeholders: `WORK-BULLET-POINT-4` (line 2), `PROJECT-AI-2` (line 2); replace them with real content")
                .as_str()
        )
    );
    assert_eq!(ws.tracker(), note("Reviewed"));
}

#[test]
fn req05_every_failed_check_is_reported() {
    let ws = Ws::standard("Reviewed");
    fs::remove_file(ws.root.join(PDF)).unwrap();
    fs::remove_file(ws.root.join(TEX)).unwrap();
    assert_guardrail_block(&ws, &["resume.pdf", "resume.tex"]);

    let ws = Ws::standard("Reviewed");
    ws.write(PDF, b"");
    ws.write(TEX, "WORK-BULLET-POINT-1\n");
    assert_guardrail_block(&ws, &["empty", "WORK-BULLET-POINT-"]);
}

#[test]
fn req05_all_checks_passing_updates() {
    let ws = Ws::standard("Reviewed");
    // Near misses of the tokens are not placeholders (they are
    // case-sensitive, and `BULLET-POINT` needs its hyphen).
    ws.write(
        TEX,
        "PROJECT-AI and PROJECT BE- and a bullet-point and BULLET POINT and PROJECT_AI_1\n",
    );
    let before = ws.snapshot();
    let response = ws.ok(ws.call("Resume Written", false, false));
    assert_eq!(response.action, Action::Updated);
    assert!(response.success);
    assert_eq!(response.guardrail_check_passed, Some(true));
    assert_eq!(response.error, None);
    assert_eq!(ws.tracker(), note("Resume Written"));
    assert_eq!(
        changed(&before, &ws.snapshot()),
        vec![format!("vault/{TRACKER}")]
    );
}

#[test]
fn req05_guardrails_apply_only_to_resume_written() {
    for to in ["Rejected", "Ghosted"] {
        let ws = Ws::empty();
        ws.write(TRACKER, note_with("Reviewed", "other: no resume_path"));
        let response = ws.ok(ws.call(to, false, false));
        assert_eq!(response.action, Action::Updated);
        assert_eq!(response.guardrail_check_passed, None);
    }
    let ws = Ws::empty();
    ws.write(TRACKER, note("Resume Written"));
    let response = ws.ok(ws.call("Applied", false, false));
    assert_eq!(response.action, Action::Updated);
    assert_eq!(response.guardrail_check_passed, None);
}

#[test]
fn req05_force_does_not_bypass_guardrails() {
    type Break = fn(&Ws);
    let breaks: [(&str, Break); 4] = [
        ("resume.pdf", |ws| {
            fs::remove_file(ws.root.join(PDF)).unwrap()
        }),
        ("empty", |ws| ws.write(PDF, b"")),
        ("resume.tex", |ws| {
            fs::remove_file(ws.root.join(TEX)).unwrap()
        }),
        ("PROJECT-BE-", |ws| ws.write(TEX, "PROJECT-BE-7\n")),
    ];
    for from in STATUSES {
        if from == "Resume Written" {
            continue;
        }
        for (fragment, break_resume) in breaks {
            for dry_run in [false, true] {
                let ws = Ws::standard(from);
                break_resume(&ws);
                let before = ws.snapshot();
                let response = ws.ok(ws.call("Resume Written", dry_run, true));
                let case =
                    format!("{from} -> Resume Written, force, {fragment}, dry_run={dry_run}");
                assert_eq!(response.action, Action::Blocked, "{case}");
                assert!(!response.success, "{case}");
                assert_eq!(response.guardrail_check_passed, Some(false), "{case}");
                let error = response.error.unwrap();
                assert!(error.contains(fragment), "{case}: {error}");
                assert_eq!(
                    changed(&before, &ws.snapshot()),
                    Vec::<String>::new(),
                    "{case}"
                );
            }
        }
    }
}

#[test]
fn req05_check_resume_written_is_usable_directly() {
    let ws = Ws::standard("Reviewed");
    let workspace = ws.tools.workspace();
    assert!(check_resume_written(workspace, PDF).unwrap().passed());
    ws.write(TEX, "PROJECT-AI-9");
    let report = check_resume_written(workspace, &format!("[[{PDF}]]")).unwrap();
    assert!(!report.passed());
    assert_eq!(report.failures.len(), 1, "{:?}", report.failures);
    assert!(report.failures[0].contains("PROJECT-AI-"));
}

// ---------------------------------------------------------------------------
// R6: artifact path resolution
// ---------------------------------------------------------------------------

/// A `Reviewed` tracker whose resume line is `resume_line`, with a finished
/// resume at `PDF`; moving it to `Resume Written` must pass the guardrails.
fn assert_resume_line_resolves(resume_line: &str) {
    let ws = Ws::empty();
    ws.good_resume();
    ws.write(TRACKER, note_with("Reviewed", resume_line));
    let response = ws.ok(ws.call("Resume Written", false, false));
    assert_eq!(
        response.action,
        Action::Updated,
        "{resume_line}: {response:?}"
    );
    assert_eq!(response.guardrail_check_passed, Some(true), "{resume_line}");
    assert_eq!(ws.tracker(), note_with("Resume Written", resume_line));
    // Remove the PDF: the same line now resolves to a missing file.
    let ws = Ws::empty();
    ws.write(TEX, CLEAN_TEX);
    ws.write(TRACKER, note_with("Reviewed", resume_line));
    let response = ws.ok(ws.call("Resume Written", false, false));
    assert_eq!(response.action, Action::Blocked, "{resume_line}");
    let error = response.error.unwrap();
    assert!(
        error.contains("resume.pdf is missing"),
        "{resume_line}: {error}"
    );
}

#[test]
fn req06_wiki_link_resolves() {
    assert_resume_line_resolves(&format!("resume_path: \"[[{PDF}]]\""));
    assert_resume_line_resolves(&format!("resume_path: '[[{PDF}]]'"));
}

#[test]
fn req06_wiki_link_with_alias_resolves() {
    assert_resume_line_resolves(&format!("resume_path: \"[[{PDF}|My résumé]]\""));
    assert_resume_line_resolves(&format!("resume_path: \"[[{PDF}#Page 1|CV]]\""));
    assert_resume_line_resolves(&format!("resume_path: \"![[{PDF}]]\""));
}

#[test]
fn req06_plain_path_resolves() {
    assert_resume_line_resolves(&format!("resume_path: {PDF}"));
    assert_resume_line_resolves(&format!("resume_path: \"{PDF}\""));
    assert_resume_line_resolves(&format!("resume_path: ./{PDF}"));
    assert_resume_line_resolves(&format!("resume_path: {RESUME_DIR}/../resume/resume.pdf"));
}

#[test]
fn req06_folder_path_checks_the_pdf_inside_it() {
    assert_resume_line_resolves(&format!("resume_path: {RESUME_DIR}"));
    assert_resume_line_resolves(&format!("resume_path: \"[[{RESUME_DIR}/]]\""));
}

#[test]
fn req06_tex_is_derived_from_the_pdf_folder() {
    // A PDF with another name: resume.tex is still looked for beside it.
    let ws = Ws::empty();
    ws.write("apps/acme/out/cv.pdf", PDF_BYTES);
    ws.write("apps/acme/out/resume.tex", CLEAN_TEX);
    ws.write("apps/acme/resume.tex", "PROJECT-AI-1"); // the parent folder's is ignored
    ws.write(
        TRACKER,
        note_with("Reviewed", "resume_path: \"[[apps/acme/out/cv.pdf]]\""),
    );
    let response = ws.ok(ws.call("Resume Written", true, false));
    assert_eq!(response.action, Action::WouldUpdate, "{response:?}");

    // The tex of another folder does not count.
    let ws = Ws::empty();
    ws.write(PDF, PDF_BYTES);
    ws.write("apps/acme/resume.tex", CLEAN_TEX);
    ws.write("trackers/resume.tex", CLEAN_TEX);
    ws.write(TRACKER, note("Reviewed"));
    let response = ws.ok(ws.call("Resume Written", true, false));
    assert_eq!(response.action, Action::Blocked);
    assert!(response.error.unwrap().contains(TEX));
}

#[test]
fn req06_resume_link_target_parses_both_formats() {
    assert_eq!(resume_link_target(&format!("[[{PDF}]]")), Some(PDF));
    assert_eq!(resume_link_target(&format!("[[{PDF}|Alias]]")), Some(PDF));
    assert_eq!(resume_link_target(PDF), Some(PDF));
    assert_eq!(resume_link_target(&format!("  {PDF} ")), Some(PDF));
    for unparsable in [
        "", "   ", "[[]]", "[[ ]]", "[[a.pdf", "a]]b", "[[a]]]]", "a\nb",
    ] {
        assert_eq!(resume_link_target(unparsable), None, "{unparsable:?}");
    }
}

#[test]
fn req06_missing_resume_path_is_validation_error() {
    for dry_run in [false, true] {
        let ws = Ws::empty();
        ws.good_resume();
        ws.write(TRACKER, note_with("Reviewed", "resume: elsewhere"));
        let before = ws.snapshot();
        let error = ws.err(
            ws.call("Resume Written", dry_run, false),
            TrackerErrorKind::Invalid,
        );
        assert!(error.to_string().contains("resume_path"), "{error}");
        // force does not skip it either
        ws.err(
            ws.call("Resume Written", dry_run, true),
            TrackerErrorKind::Invalid,
        );
        assert_eq!(changed(&before, &ws.snapshot()), Vec::<String>::new());
    }
}

#[test]
fn req06_unparsable_resume_path_is_validation_error() {
    for value in [
        "\"\"",
        "\"   \"",
        "\"[[]]\"",
        "\"[[ ]]\"",
        "\"[[apps/acme/resume/resume.pdf\"",
        "\"[[a]] and [[b]]\"",
        "42",
        "true",
        "",
        "[a, b]",
        "\n  - apps/acme/resume/resume.pdf",
        "{path: apps/acme/resume/resume.pdf}",
    ] {
        let ws = Ws::empty();
        ws.good_resume();
        let text = note_with("Reviewed", &format!("resume_path: {value}"));
        ws.write(TRACKER, &text);
        let before = ws.snapshot();
        let error = ws.err(
            ws.call("Resume Written", false, false),
            TrackerErrorKind::Invalid,
        );
        assert!(
            error.to_string().contains("resume_path"),
            "{value:?}: {error}"
        );
        assert_eq!(
            changed(&before, &ws.snapshot()),
            Vec::<String>::new(),
            "{value:?}"
        );
    }
}

/// Issue 8: an unparsable `resume_path` was repeated raw in the error
/// (`[[/home/user/private/resume.pdf`); absolute paths in it are shortened
/// as for a parseable one: `.../name` outside the workspace, relative
/// inside it.
#[test]
fn req06_an_unparsable_resume_path_is_shown_without_its_absolute_path() {
    let ws = Ws::empty();
    ws.good_resume();
    let inside = ws.root.join(PDF).to_str().unwrap().to_owned();
    for (value, shown) in [
        (
            "\"[[/home/user/private/resume.pdf\"".to_owned(),
            "[[.../resume.pdf".to_owned(),
        ),
        (
            "\"[[/home/user/private/cv.pdf|My CV\"".to_owned(),
            "[[.../cv.pdf|My CV".to_owned(),
        ),
        (
            "'[[C:\\Users\\ann\\resume.pdf'".to_owned(),
            "[[.../resume.pdf".to_owned(),
        ),
        (format!("\"[[{inside}\""), format!("[[{PDF}")),
    ] {
        ws.write(
            TRACKER,
            note_with("Reviewed", &format!("resume_path: {value}")),
        );
        for dry_run in [true, false] {
            let error = ws.err(
                ws.call("Resume Written", dry_run, false),
                TrackerErrorKind::Invalid,
            );
            assert_eq!(
                error.to_string(),
                format!(
                    "the tracker's `resume_path` (`{shown}`) is not a path or a wiki-link; write it as `[[folder/resume/resume.pdf]]` or `folder/resume/resume.pdf`"
                ),
                "{value}"
            );
            for private in ["/home/user", "Users\\ann", "private"] {
                assert!(!error.to_string().contains(private), "{error}");
            }
        }
    }
    assert_eq!(
        ws.tracker(),
        note_with("Reviewed", &format!("resume_path: \"[[{inside}\""))
    );
}

#[test]
fn req06_resume_path_outside_the_workspace_is_validation_error() {
    let ws = Ws::empty();
    // A complete, clean resume exists outside: it must not be used.
    let outside_pdf = ws.write_outside("resume/resume.pdf", PDF_BYTES);
    ws.write_outside("resume/resume.tex", CLEAN_TEX);
    let absolute = outside_pdf.to_str().unwrap().to_owned();
    for value in [
        "../outside/resume/resume.pdf".to_owned(),
        "\"[[../outside/resume/resume.pdf]]\"".to_owned(),
        "apps/../../outside/resume/resume.pdf".to_owned(),
        "../outside/resume".to_owned(),
        format!("\"{absolute}\""),
        format!("\"[[{absolute}]]\""),
        "/etc/resume.pdf".to_owned(),
    ] {
        ws.write(
            TRACKER,
            note_with("Reviewed", &format!("resume_path: {value}")),
        );
        let before = ws.snapshot();
        let error = ws.err(
            ws.call("Resume Written", false, false),
            TrackerErrorKind::Invalid,
        );
        assert!(error.to_string().contains("outside"), "{value}: {error}");
        ws.err(
            ws.call("Resume Written", true, true),
            TrackerErrorKind::Invalid,
        );
        assert_eq!(
            changed(&before, &ws.snapshot()),
            Vec::<String>::new(),
            "{value}"
        );
    }
}

#[cfg(unix)]
#[test]
fn req06_resume_folder_symlinked_outside_is_validation_error() {
    use std::os::unix::fs::symlink;
    let ws = Ws::empty();
    ws.write_outside("resume/resume.pdf", PDF_BYTES);
    ws.write_outside("resume/resume.tex", CLEAN_TEX);
    fs::create_dir_all(ws.root.join("apps/acme")).unwrap();
    symlink(ws.outside.join("resume"), ws.root.join(RESUME_DIR)).unwrap();
    ws.write(TRACKER, note("Reviewed"));
    let before = ws.snapshot();
    ws.err(
        ws.call("Resume Written", false, false),
        TrackerErrorKind::Invalid,
    );
    assert_eq!(changed(&before, &ws.snapshot()), Vec::<String>::new());

    // Only the PDF is a link out.
    let ws = Ws::standard("Reviewed");
    let outside_pdf = ws.write_outside("cv.pdf", PDF_BYTES);
    fs::remove_file(ws.root.join(PDF)).unwrap();
    symlink(outside_pdf, ws.root.join(PDF)).unwrap();
    ws.err(
        ws.call("Resume Written", false, false),
        TrackerErrorKind::Invalid,
    );
    assert_eq!(ws.tracker(), note("Reviewed"));
}

#[test]
fn req06_resolution_is_deterministic() {
    let one = Ws::standard("Reviewed");
    let two = Ws::standard("Reviewed");
    fs::remove_file(one.root.join(TEX)).unwrap();
    fs::remove_file(two.root.join(TEX)).unwrap();
    let first = one.ok(one.call("Resume Written", true, false));
    for _ in 0..5 {
        assert_eq!(one.ok(one.call("Resume Written", true, false)), first);
        assert_eq!(two.ok(two.call("Resume Written", true, false)), first);
    }
    let write = one.ok(one.call("Resume Written", false, false));
    assert_eq!(write.error, first.error);
}

// ---------------------------------------------------------------------------
// R7: file write semantics, byte for byte
// ---------------------------------------------------------------------------

/// Writes `input` as the tracker (with a finished resume at `PDF`), moves it
/// to `target`, and checks the file is exactly `expected` and that nothing
/// else in the workspace changed.
fn assert_rewrite(input: &str, target: &str, expected: &str) {
    let ws = Ws::empty();
    ws.good_resume();
    ws.write(TRACKER, input);
    let before = ws.snapshot();
    let response = ws.ok(ws.call(target, false, false));
    assert_eq!(response.action, Action::Updated, "{input:?}: {response:?}");
    assert_eq!(response.target_status, target);
    let after = String::from_utf8(ws.read(TRACKER)).unwrap();
    assert_eq!(after, expected, "rewriting {input:?} to {target:?}");
    assert_eq!(
        changed(&before, &ws.snapshot()),
        vec![format!("vault/{TRACKER}")]
    );
    assert_eq!(ws.names_in("trackers"), ["acme.md"]);
}

#[test]
fn req07_only_status_bytes_change() {
    let input = note("Reviewed");
    for target in ["Resume Written", "Rejected", "Ghosted"] {
        assert_rewrite(&input, target, &note(target));
    }
}

/// Issue 8: a status written as a block scalar, with a tag, or over several
/// lines is readable, yet it was a top-level VALIDATION_ERROR even in a dry
/// run. It is rewritten in place: the old value (its tag, block header and
/// lines) becomes `status: <new>` on the key's line, comments stay, every
/// other byte stays; a dry run predicts it. Both say so in a warning.
#[test]
fn req07_block_tagged_and_multi_line_statuses_are_rewritten_in_place() {
    for (written, rewritten) in [
        (">-\n  Reviewed", "Resume Written"),
        ("|-\n  Reviewed", "Resume Written"),
        (
            ">- # from the board\n  Reviewed\n # kept",
            "Resume Written # from the board\n # kept",
        ),
        ("!!str Reviewed # tagged", "Resume Written # tagged"),
        ("!!str 'Reviewed'", "Resume Written"),
        ("!!str \"Reviewed\" # c", "Resume Written # c"),
        ("!!str >-\n  Reviewed", "Resume Written"),
        ("! Reviewed", "Resume Written"),
        // `note` writes `status: ` before it: that blank stays, at the end.
        ("\n  Reviewed", "Resume Written "),
        (
            "# board column\n  Reviewed",
            "Resume Written # board column",
        ),
        ("\"Revi\\\n  ewed\"", "Resume Written"),
    ] {
        let input = note(written);
        let ws = Ws::empty();
        ws.good_resume();
        ws.write(TRACKER, &input);
        let before = ws.snapshot();
        let response = ws.ok(ws.call("Resume Written", true, false));
        assert_eq!(
            response.action,
            Action::WouldUpdate,
            "{written:?}: {response:?}"
        );
        assert_eq!(response.previous_status, "Reviewed", "{written:?}");
        assert_eq!(response.guardrail_check_passed, Some(true));
        assert_eq!(response.warnings.len(), 1, "{written:?}: {response:?}");
        assert!(
            response.warnings[0].contains("would be written `status: Resume Written`"),
            "{}",
            response.warnings[0]
        );
        assert_eq!(changed(&before, &ws.snapshot()), Vec::<String>::new());

        let response = ws.ok(ws.call("Resume Written", false, false));
        assert_eq!(response.action, Action::Updated, "{written:?}");
        assert!(response.warnings[0].contains("is now written `status: Resume Written`"));
        assert_eq!(ws.tracker(), note(rewritten), "{written:?}");
        assert_eq!(
            changed(&before, &ws.snapshot()),
            vec![format!("vault/{TRACKER}")]
        );
        // From now on a plain status, changed like any other.
        let response = ws.ok(ws.call("Applied", false, false));
        assert_eq!(response.warnings, Vec::<String>::new());
        assert_eq!(
            ws.tracker(),
            note(&rewritten.replacen("Resume Written", "Applied", 1))
        );
    }
    // A plain scalar over two lines (YAML joins them with a space).
    assert_rewrite(
        "---\nstatus: Resume\n  Written # c\n  # after\nnext: x\n---\n",
        "Applied",
        "---\nstatus: Applied # c\n  # after\nnext: x\n---\n",
    );
    // CRLF, and a block at the end of the frontmatter.
    assert_rewrite(
        "---\r\ncompany: Acme\r\nstatus: !!str >- # c\r\n  Resume Written\r\n---\r\nBody\r\n",
        "Applied",
        "---\r\ncompany: Acme\r\nstatus: Applied # c\r\n---\r\nBody\r\n",
    );
}

/// Issue 8: a readable status that cannot be rewritten in place (an anchor
/// another value may use, a comment between the key and its value) is a
/// write precondition: a `blocked` result saying why and what to do, in
/// both modes, never a top-level error, and the file is left alone.
#[test]
fn req07_a_status_that_cannot_be_rewritten_in_place_is_blocked() {
    for (written, reason) in [
        (
            "&board Reviewed\nprevious: *board",
            "it carries an anchor (`&name`) that other values may use",
        ),
        (
            "# one\n  # two\n  Reviewed",
            "a comment line stands between its key and its value",
        ),
    ] {
        let ws = Ws::standard("Reviewed");
        ws.write(TRACKER, note(written));
        let before = ws.snapshot();
        for dry_run in [true, false] {
            let response = ws.ok(ws.call("Rejected", dry_run, false));
            assert_eq!(response.action, Action::Blocked, "{written:?}");
            assert!(!response.success);
            assert_eq!(response.previous_status, "Reviewed");
            assert_eq!(
                response.error.as_deref(),
                Some(
                    format!("the status of `{TRACKER}` cannot be rewritten in place: {reason}; write it on one line as `status: Reviewed` and try again")
                        .as_str()
                )
            );
        }
        assert_eq!(changed(&before, &ws.snapshot()), Vec::<String>::new());
    }
}

#[test]
fn req07_crlf_file_keeps_its_line_endings() {
    assert_rewrite(
        "---\r\ncompany: Acme\r\nstatus: Reviewed\r\nresume_path: \"[[apps/acme/resume/resume.pdf]]\"\r\n---\r\n# Acme\r\n\r\nNotes.\r\n",
        "Resume Written",
        "---\r\ncompany: Acme\r\nstatus: Resume Written\r\nresume_path: \"[[apps/acme/resume/resume.pdf]]\"\r\n---\r\n# Acme\r\n\r\nNotes.\r\n",
    );
    assert_rewrite(
        "---\r\nstatus: Resume Written\r\n---\r\nBody\r\n",
        "Applied",
        "---\r\nstatus: Applied\r\n---\r\nBody\r\n",
    );
}

#[test]
fn req07_comments_are_kept() {
    assert_rewrite(
        "---\n# Tracker for Acme\ncompany: Acme # the employer\n# the board column:\nstatus: Reviewed # set by the board\n# end of fields\n---\nBody # not a comment\n",
        "Ghosted",
        "---\n# Tracker for Acme\ncompany: Acme # the employer\n# the board column:\nstatus: Ghosted # set by the board\n# end of fields\n---\nBody # not a comment\n",
    );
}

#[test]
fn req07_trailing_comment_on_status_line_is_kept() {
    assert_rewrite(
        "---\nstatus: Reviewed # keep me\nresume_path: apps/acme/resume/resume.pdf\n---\n",
        "Resume Written",
        "---\nstatus: Resume Written # keep me\nresume_path: apps/acme/resume/resume.pdf\n---\n",
    );
    assert_rewrite(
        "---\nstatus: Resume Written      #aligned\r\n---\r\n",
        "Applied",
        "---\nstatus: Applied      #aligned\r\n---\r\n",
    );
}

#[test]
fn req07_single_quoted_status_stays_single_quoted() {
    assert_rewrite(
        "---\nstatus: 'Reviewed'\nresume_path: '[[apps/acme/resume/resume.pdf]]'\n---\nBody\n",
        "Resume Written",
        "---\nstatus: 'Resume Written'\nresume_path: '[[apps/acme/resume/resume.pdf]]'\n---\nBody\n",
    );
    assert_rewrite(
        "---\nstatus: 'Resume Written' # q\n---\n",
        "Applied",
        "---\nstatus: 'Applied' # q\n---\n",
    );
}

#[test]
fn req07_double_quoted_status_stays_double_quoted() {
    assert_rewrite(
        "---\nstatus: \"Reviewed\"\nresume_path: \"[[apps/acme/resume/resume.pdf]]\"\n---\nBody\n",
        "Resume Written",
        "---\nstatus: \"Resume Written\"\nresume_path: \"[[apps/acme/resume/resume.pdf]]\"\n---\nBody\n",
    );
    assert_rewrite(
        "---\r\nstatus: \"Interview\" # q\r\n---\r\n",
        "Rejected",
        "---\r\nstatus: \"Rejected\" # q\r\n---\r\n",
    );
}

#[test]
fn req07_body_with_fence_lines_is_kept() {
    let input =
        "---\nstatus: Reviewed\n---\nIntro\n\n---\nstatus: Reviewed\n---\n\n***\n---\n...\n";
    assert_rewrite(
        input,
        "Rejected",
        "---\nstatus: Rejected\n---\nIntro\n\n---\nstatus: Reviewed\n---\n\n***\n---\n...\n",
    );
    // A `...` closing fence.
    assert_rewrite(
        "---\nstatus: Reviewed\n...\n---\nbody\n",
        "Ghosted",
        "---\nstatus: Ghosted\n...\n---\nbody\n",
    );
}

#[test]
fn req07_trailing_whitespace_is_kept() {
    assert_rewrite(
        "---   \ncompany: Acme  \nstatus: Reviewed \t \nnote: x\t\n---  \nBody   \n\n\n  \n",
        "Rejected",
        "---   \ncompany: Acme  \nstatus: Rejected \t \nnote: x\t\n---  \nBody   \n\n\n  \n",
    );
}

#[test]
fn req07_byte_order_mark_is_kept() {
    assert_rewrite(
        "\u{feff}---\nstatus: Reviewed\n---\nBody\n",
        "Rejected",
        "\u{feff}---\nstatus: Rejected\n---\nBody\n",
    );
    assert_rewrite(
        "\u{feff}---\r\nstatus: 'Resume Written' # bom + crlf\r\n---\r\nBody\r\n",
        "Applied",
        "\u{feff}---\r\nstatus: 'Applied' # bom + crlf\r\n---\r\nBody\r\n",
    );
}

#[test]
fn req07_non_ascii_text_is_kept() {
    assert_rewrite(
        "---\ncompany: Société Générale\ncity: Zürich — 東京 🚀\nstatus: Reviewed # état: revu\nnotes: \"naïve café\"\n---\n# Société ☕\nRésumé envoyé — 日本語.\n",
        "Ghosted",
        "---\ncompany: Société Générale\ncity: Zürich — 東京 🚀\nstatus: Ghosted # état: revu\nnotes: \"naïve café\"\n---\n# Société ☕\nRésumé envoyé — 日本語.\n",
    );
}

#[test]
fn req07_text_ends_are_kept() {
    assert_rewrite(
        "---\nstatus: Reviewed\n---\nBody without newline",
        "Rejected",
        "---\nstatus: Rejected\n---\nBody without newline",
    );
    assert_rewrite(
        "---\nstatus: Reviewed\n---",
        "Rejected",
        "---\nstatus: Rejected\n---",
    );
    assert_rewrite(
        "---\nstatus: Reviewed\n---\n",
        "Rejected",
        "---\nstatus: Rejected\n---\n",
    );
}

#[test]
fn req07_only_the_top_level_status_changes() {
    assert_rewrite(
        "---\nmeta:\n  status: Reviewed\nstatus: Reviewed\nhistory:\n  - status: Reviewed\nnotes: |\n  status: Reviewed\nold_status: Reviewed\n---\nstatus: Reviewed\n",
        "Rejected",
        "---\nmeta:\n  status: Reviewed\nstatus: Rejected\nhistory:\n  - status: Reviewed\nnotes: |\n  status: Reviewed\nold_status: Reviewed\n---\nstatus: Reviewed\n",
    );
}

#[cfg(unix)]
#[test]
fn req07_file_permissions_are_kept() {
    use std::os::unix::fs::PermissionsExt;
    for mode in [0o640, 0o600, 0o644, 0o664] {
        let ws = Ws::standard("Reviewed");
        let path = ws.root.join(TRACKER);
        fs::set_permissions(&path, fs::Permissions::from_mode(mode)).unwrap();
        ws.ok(ws.call("Resume Written", false, false));
        assert_eq!(ws.tracker(), note("Resume Written"));
        let after = fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
        assert_eq!(after, mode, "{mode:o} became {after:o}");
    }
}

#[test]
fn req07_failed_write_is_internal_error_and_keeps_the_original() {
    // A full disk may clear up; a permission error will not.
    for (writer, retryable) in [
        (fail_disk_full as WriteHook, true),
        (fail_naming_the_path, false),
    ] {
        let ws = Ws::with_writer(writer);
        ws.write(TRACKER, note("Reviewed"));
        ws.good_resume();
        let before = ws.snapshot();
        let error = ws.err(
            ws.call("Resume Written", false, false),
            TrackerErrorKind::Failed,
        );
        assert_eq!(error.retryable(), retryable, "{error}");
        assert!(error.to_string().contains(TRACKER), "{error}");
        assert_eq!(ws.tracker(), note("Reviewed"));
        assert_eq!(ws.names_in("trackers"), ["acme.md"]);
        assert_eq!(changed(&before, &ws.snapshot()), Vec::<String>::new());
        {
            let json = quire_cli::mcp::ToolError::from(error).to_json();
            assert_eq!(json["error"]["code"], "INTERNAL_ERROR");
            assert_eq!(json["error"]["retryable"], retryable);
        }
        // A dry run never reaches the writer.
        let response = ws.ok(ws.call("Resume Written", true, false));
        assert_eq!(response.action, Action::WouldUpdate);
        // Neither does a noop or a blocked change.
        assert_eq!(
            ws.ok(ws.call("Reviewed", false, false)).action,
            Action::Noop
        );
        assert_eq!(
            ws.ok(ws.call("Offer", false, false)).action,
            Action::Blocked
        );
    }
}

#[test]
fn req07_successful_write_leaves_no_stray_files() {
    let ws = Ws::standard("Reviewed");
    ws.write("trackers/other.md", note("Applied"));
    let before = ws.snapshot();
    for target in ["Resume Written", "Applied", "Rejected", "Ghosted"] {
        ws.ok(ws.call(target, false, false));
        assert_eq!(
            ws.names_in("trackers"),
            ["acme.md", "other.md"],
            "after {target}"
        );
    }
    let after = ws.snapshot();
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>()
    );
    assert_eq!(changed(&before, &after), vec![format!("vault/{TRACKER}")]);
    assert_eq!(ws.names_in(""), ["apps", "trackers"]);
}

#[cfg(unix)]
#[test]
fn req07_predictable_temp_names_are_not_followed() {
    use std::os::unix::fs::symlink;
    let ws = Ws::standard("Reviewed");
    let victim = ws.write_outside("victim.txt", "do not touch\n");
    let traps = [
        "acme.md.tmp",
        ".acme.md.tmp",
        "acme.md~",
        ".acme.md.swp",
        "acme.tmp",
        ".quire.tmp",
        ".quire-acme.md.tmp",
        "acme.md.new",
    ];
    for trap in traps {
        symlink(&victim, ws.root.join("trackers").join(trap)).unwrap();
    }
    let before = ws.snapshot();
    ws.ok(ws.call("Resume Written", false, false));
    assert_eq!(ws.tracker(), note("Resume Written"));
    assert_eq!(fs::read_to_string(&victim).unwrap(), "do not touch\n");
    assert_eq!(
        changed(&before, &ws.snapshot()),
        vec![format!("vault/{TRACKER}")]
    );
}

// ---------------------------------------------------------------------------
// R8: dry run
// ---------------------------------------------------------------------------

#[test]
fn req08_dry_run_reports_would_update_without_writing() {
    for (from, to, force, guardrails) in [
        ("Reviewed", "Resume Written", false, Some(true)),
        ("Resume Written", "Applied", false, None),
        ("Offer", "Rejected", false, None),
        ("Applied", "Reviewed", true, None),
        ("Applied", "Resume Written", true, Some(true)),
    ] {
        let ws = Ws::standard(from);
        let before = ws.snapshot();
        let response = ws.ok(ws.call(to, true, force));
        let case = format!("{from} -> {to}");
        assert_eq!(response.action, Action::WouldUpdate, "{case}");
        assert!(response.success, "{case}");
        assert!(response.dry_run, "{case}");
        assert_eq!(response.guardrail_check_passed, guardrails, "{case}");
        assert_eq!(response.warnings.is_empty(), !force, "{case}");
        assert_eq!(
            changed(&before, &ws.snapshot()),
            Vec::<String>::new(),
            "{case}"
        );
    }
}

#[test]
fn req08_blocked_dry_runs_carry_guardrail_reasons() {
    let ws = Ws::standard("Reviewed");
    fs::remove_file(ws.root.join(PDF)).unwrap();
    ws.write(TEX, "\\item WORK-BULLET-POINT-1\n");
    let before = ws.snapshot();
    let response = ws.ok(ws.call("Resume Written", true, false));
    assert_eq!(response.action, Action::Blocked);
    assert!(!response.success);
    assert!(response.dry_run);
    assert_eq!(response.guardrail_check_passed, Some(false));
    let error = response.error.unwrap();
    for fragment in ["resume.pdf", "missing", "resume.tex", "WORK-BULLET-POINT-"] {
        assert!(error.contains(fragment), "{error:?} lacks {fragment:?}");
    }
    assert_eq!(changed(&before, &ws.snapshot()), Vec::<String>::new());
}

#[test]
fn req08_blocked_dry_runs_carry_policy_reasons() {
    let ws = Ws::standard("Interview");
    let before = ws.snapshot();
    let response = ws.ok(ws.call("Applied", true, false));
    assert_eq!(response.action, Action::Blocked);
    assert!(!response.success);
    assert!(response.dry_run);
    assert_eq!(response.guardrail_check_passed, None);
    let error = response.error.unwrap();
    assert!(
        error.contains("Interview") && error.contains("Applied"),
        "{error}"
    );
    assert_eq!(changed(&before, &ws.snapshot()), Vec::<String>::new());
}

#[test]
fn req08_dry_run_runs_every_check_of_a_write() {
    // Errors: the same as in write mode.
    let ws = Ws::standard("Reviewed");
    ws.err(
        ws.call("resume written", true, false),
        TrackerErrorKind::Invalid,
    );
    ws.err(
        ws.tools
            .update_status(&request("trackers/none.md", "Applied", true, false)),
        TrackerErrorKind::NotFound,
    );
    ws.write(TRACKER, "---\nstatus: [Reviewed\n---\n");
    ws.err(ws.call("Rejected", true, false), TrackerErrorKind::Invalid);
    // A status that cannot be rewritten in place: blocked in both modes.
    ws.write(TRACKER, "---\nstatus: &a Reviewed\n---\n");
    let write = ws.ok(ws.call("Rejected", false, false));
    let dry = ws.ok(ws.call("Rejected", true, false));
    assert_eq!(write.action, Action::Blocked);
    assert_eq!((dry.action, dry.error), (write.action, write.error));
}

#[test]
fn req08_dry_run_predicts_the_write_for_every_pair() {
    for from in STATUSES {
        for to in STATUSES {
            for force in [false, true] {
                for pdf_missing in [false, true] {
                    let case = format!("{from} -> {to} force={force} pdf_missing={pdf_missing}");
                    let dry = Ws::standard(from);
                    let wet = Ws::standard(from);
                    if pdf_missing {
                        fs::remove_file(dry.root.join(PDF)).unwrap();
                        fs::remove_file(wet.root.join(PDF)).unwrap();
                    }
                    let before = dry.snapshot();
                    let predicted = dry.ok(dry.call(to, true, force));
                    assert_eq!(
                        changed(&before, &dry.snapshot()),
                        Vec::<String>::new(),
                        "{case}"
                    );
                    let actual = wet.ok(wet.call(to, false, force));
                    assert!(predicted.dry_run && !actual.dry_run, "{case}");
                    let expected_action = match actual.action {
                        Action::Updated => Action::WouldUpdate,
                        other => other,
                    };
                    assert_eq!(predicted.action, expected_action, "{case}");
                    let mut predicted = predicted;
                    predicted.dry_run = false;
                    predicted.action = actual.action;
                    assert_eq!(predicted, actual, "{case}");
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// R9: structured response format
// ---------------------------------------------------------------------------

#[test]
fn req09_updated_response_fields() {
    let ws = Ws::standard("Reviewed");
    let response = ws.wire("Resume Written", false, false);
    assert_eq!(
        response,
        json!({
            "tracker_path": "trackers/acme.md",
            "previous_status": "Reviewed",
            "target_status": "Resume Written",
            "action": "updated",
            "success": true,
            "dry_run": false,
            "guardrail_check_passed": true,
            "warnings": []
        })
    );
    let response = ws.wire("Applied", false, false);
    assert_eq!(
        response,
        json!({
            "tracker_path": "trackers/acme.md",
            "previous_status": "Resume Written",
            "target_status": "Applied",
            "action": "updated",
            "success": true,
            "dry_run": false,
            "warnings": []
        })
    );
}

#[test]
fn req09_would_update_response_fields() {
    let ws = Ws::standard("Reviewed");
    let response = ws.wire("Resume Written", true, false);
    assert_eq!(
        response,
        json!({
            "tracker_path": "trackers/acme.md",
            "previous_status": "Reviewed",
            "target_status": "Resume Written",
            "action": "would_update",
            "success": true,
            "dry_run": true,
            "guardrail_check_passed": true,
            "warnings": []
        })
    );
}

#[test]
fn req09_noop_response_fields() {
    let ws = Ws::standard("Applied");
    let response = ws.wire("Applied", false, false);
    assert_eq!(
        response,
        json!({
            "tracker_path": "trackers/acme.md",
            "previous_status": "Applied",
            "target_status": "Applied",
            "action": "noop",
            "success": true,
            "dry_run": false,
            "warnings": []
        })
    );
}

#[test]
fn req09_blocked_by_policy_response_fields() {
    let ws = Ws::standard("Applied");
    let response = ws.wire("Reviewed", false, false);
    assert_eq!(
        response,
        json!({
            "tracker_path": "trackers/acme.md",
            "previous_status": "Applied",
            "target_status": "Reviewed",
            "action": "blocked",
            "success": false,
            "dry_run": false,
            "warnings": [],
            "error": "transition `Applied` -> `Reviewed` is not allowed: the policy allows Reviewed -> Resume Written -> Applied, and Rejected or Ghosted from any status; pass force=true to override"
        })
    );
}

#[test]
fn req09_blocked_by_guardrail_response_fields() {
    let ws = Ws::standard("Reviewed");
    fs::remove_file(ws.root.join(PDF)).unwrap();
    let response = ws.wire("Resume Written", false, false);
    assert_eq!(
        response,
        json!({
            "tracker_path": "trackers/acme.md",
            "previous_status": "Reviewed",
            "target_status": "Resume Written",
            "action": "blocked",
            "success": false,
            "dry_run": false,
            "guardrail_check_passed": false,
            "warnings": [],
            "error": "resume.pdf is missing (apps/acme/resume/resume.pdf)"
        })
    );
}

#[test]
fn req09_forced_response_carries_warnings() {
    let ws = Ws::standard("Offer");
    let value = ws.wire("Interview", false, true);
    let object = value.as_object().unwrap();
    let keys: BTreeSet<&str> = object.keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        BTreeSet::from([
            "tracker_path",
            "previous_status",
            "target_status",
            "action",
            "success",
            "dry_run",
            "warnings"
        ])
    );
    assert_eq!(value["action"], "updated");
    assert_eq!(value["warnings"].as_array().unwrap().len(), 1);
    assert!(value["warnings"][0].as_str().unwrap().contains("force"));
}

/// Issue 8: the design and the original echo `tracker_path` as given; it
/// was the path after resolution (`./` and `//` collapsed, links followed).
/// Every result shape echoes it: updated, would_update, noop, blocked by the
/// policy, by the guardrails, by a write precondition.
#[cfg(unix)]
#[test]
fn req09_tracker_path_is_echoed_as_given() {
    use std::os::unix::fs::PermissionsExt;
    let ws = Ws::standard("Reviewed");
    std::os::unix::fs::symlink("acme.md", ws.root.join("trackers/link.md")).unwrap();
    for given in [
        "./trackers/acme.md",
        "trackers//acme.md",
        "trackers/./acme.md",
        "trackers/../trackers/acme.md",
        "trackers/link.md",
    ] {
        for (target, dry_run, action) in [
            ("Resume Written", true, Action::WouldUpdate),
            ("Reviewed", false, Action::Noop),
            ("Offer", false, Action::Blocked),
        ] {
            let response = ws.ok(ws
                .tools
                .update_status(&request(given, target, dry_run, false)));
            assert_eq!(response.action, action, "{given} -> {target}");
            assert_eq!(response.tracker_path, given, "{given} -> {target}");
        }
    }
    // Blocked by the guardrails, then by a read-only file, then updated.
    fs::remove_file(ws.root.join(PDF)).unwrap();
    let response = ws.ok(ws.call_path("./trackers//link.md", "Resume Written"));
    assert_eq!(response.action, Action::Blocked);
    assert_eq!(response.tracker_path, "./trackers//link.md");
    ws.good_resume();
    fs::set_permissions(ws.root.join(TRACKER), fs::Permissions::from_mode(0o444)).unwrap();
    let response = ws.ok(ws.call_path("trackers//link.md", "Rejected"));
    assert_eq!(response.action, Action::Blocked);
    assert_eq!(response.tracker_path, "trackers//link.md");
    assert!(
        response
            .error
            .unwrap()
            .starts_with("`trackers//link.md` is read-only"),
        "the message names the path as given too"
    );
    fs::set_permissions(ws.root.join(TRACKER), fs::Permissions::from_mode(0o644)).unwrap();
    let response = ws.ok(ws.call_path("./trackers/link.md", "Rejected"));
    assert_eq!(response.action, Action::Updated);
    assert_eq!(response.tracker_path, "./trackers/link.md");
    assert_eq!(ws.tracker(), note("Rejected"));
    assert!(
        fs::symlink_metadata(ws.root.join("trackers/link.md"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    // As JSON, through the MCP layer.
    {
        let value = ws.ok_json(ws.call_json(
            json!({ "tracker_path": "trackers//acme.md", "target_status": "Rejected" }),
        ));
        assert_eq!(value["tracker_path"], "trackers//acme.md");
    }
}

/// Issue 8: a path with control characters is echoed as given in
/// `tracker_path` (JSON escapes it), and messages that name it show the
/// characters escaped, never raw.
#[cfg(unix)]
#[test]
fn req09_control_characters_in_the_path_are_escaped_in_messages() {
    use std::os::unix::fs::PermissionsExt;
    let ws = Ws::empty();
    let name = "trackers/\u{1b}[2Jx\n.md";
    ws.write(name, note("Reviewed"));
    let response = ws.ok(ws.call_path(name, "Rejected"));
    assert_eq!(response.action, Action::Updated);
    assert_eq!(response.tracker_path, name);
    // As JSON, through the MCP layer (a call that changes nothing now).
    let json = ws
        .ok_json(ws.call_json(json!({ "tracker_path": name, "target_status": "Rejected" })))
        .to_string();
    assert!(
        json.contains(r#""tracker_path":"trackers/\u001b[2Jx\n.md""#),
        "{json}"
    );
    // A message naming it: a read-only file (blocked) and a missing one.
    fs::set_permissions(ws.root.join(name), fs::Permissions::from_mode(0o444)).unwrap();
    let response = ws.ok(ws.call_path(name, "Ghosted"));
    assert_eq!(response.action, Action::Blocked);
    assert_eq!(response.tracker_path, name);
    let reason = response.error.unwrap();
    assert!(
        reason.starts_with("`trackers/\\u{1b}[2Jx\\n.md` is read-only"),
        "{reason}"
    );
    let missing = ws.err(
        ws.call_path("trackers/\u{7}gone\r.md", "Rejected"),
        TrackerErrorKind::NotFound,
    );
    assert_eq!(
        missing.to_string(),
        "`trackers/\\u{7}gone\\r.md` does not exist in the workspace"
    );
    for message in [&reason, &missing.to_string()] {
        assert!(!message.chars().any(char::is_control), "{message:?}");
    }
}

// ---------------------------------------------------------------------------
// R10: error handling
// ---------------------------------------------------------------------------
#[test]
fn req10_top_level_errors_have_the_spec_shape() {
    let ws = Ws::standard("Reviewed");
    let cases = [
        (
            ws.call_json(json!({ "tracker_path": TRACKER, "target_status": "Nope" })),
            "VALIDATION_ERROR",
        ),
        (
            ws.call_json(
                json!({ "tracker_path": "trackers/missing.md", "target_status": "Rejected" }),
            ),
            "FILE_NOT_FOUND",
        ),
    ];
    for (outcome, code) in cases {
        let error = outcome.expect_err("an error");
        let object = error.as_object().unwrap();
        let keys: BTreeSet<&str> = object.keys().map(String::as_str).collect();
        assert_eq!(keys, BTreeSet::from(["code", "message", "retryable"]));
        assert_eq!(error["code"], code);
        assert_eq!(error["retryable"], false);
        assert!(!error["message"].as_str().unwrap().is_empty());
    }
    // The internal error proper (a failing write, which only the write
    // hook of an in-process `TrackerTools` can stage).
    let ws = Ws::with_writer(fail_disk_full);
    ws.write(TRACKER, note("Reviewed"));
    let error = ws.err(ws.call("Rejected", false, false), TrackerErrorKind::Failed);
    let message = error.to_string();
    assert_eq!(
        quire_cli::mcp::ToolError::from(error).to_json(),
        json!({ "error": { "code": "INTERNAL_ERROR", "message": message, "retryable": true } })
    );
}

#[test]
fn req10_guardrail_violations_are_blocked_responses_not_errors() {
    let ws = Ws::standard("Reviewed");
    ws.write(PDF, b"");
    let outcome = ws.call("Resume Written", false, false);
    let response = outcome.expect("a guardrail failure is a normal result");
    assert_eq!(response.action, Action::Blocked);
    assert!(!response.success);
    assert!(response.error.is_some());
}

#[test]
fn req10_error_messages_do_not_show_the_workspace_path() {
    let ws = Ws::standard("Reviewed");
    ws.write("trackers/bad.md", "---\nstatus: [x\n---\n");
    ws.write("trackers/nofm.md", "status: Reviewed\n");
    ws.write("trackers/nostatus.md", "---\na: 1\n---\n");
    ws.write("trackers/numeric.md", "---\nstatus: 3\n---\n");
    ws.write("trackers/noresume.md", note_with("Reviewed", "x: 1"));
    ws.write(
        "trackers/outresume.md",
        note_with("Reviewed", "resume_path: ../outside/r.pdf"),
    );
    ws.write("trackers/binary.md", b"\xff\xfe---");
    ws.write("trackers/anchored.md", "---\nstatus: &s Reviewed\n---\n");
    // Each call goes through `Ws::err`, which checks the message.
    for (path, target, code) in [
        (TRACKER, "Nope", TrackerErrorKind::Invalid),
        (TRACKER, " Applied", TrackerErrorKind::Invalid),
        (
            "trackers/missing.md",
            "Rejected",
            TrackerErrorKind::NotFound,
        ),
        (
            "missing/deeper/x.md",
            "Rejected",
            TrackerErrorKind::NotFound,
        ),
        ("../outside/x.md", "Rejected", TrackerErrorKind::Invalid),
        (
            "../../../../etc/passwd",
            "Rejected",
            TrackerErrorKind::Invalid,
        ),
        ("", "Rejected", TrackerErrorKind::Invalid),
        ("trackers", "Rejected", TrackerErrorKind::NotFound),
        ("trackers/bad.md", "Rejected", TrackerErrorKind::Invalid),
        ("trackers/nofm.md", "Rejected", TrackerErrorKind::Invalid),
        (
            "trackers/nostatus.md",
            "Rejected",
            TrackerErrorKind::Invalid,
        ),
        ("trackers/numeric.md", "Rejected", TrackerErrorKind::Invalid),
        (
            "trackers/noresume.md",
            "Resume Written",
            TrackerErrorKind::Invalid,
        ),
        (
            "trackers/outresume.md",
            "Resume Written",
            TrackerErrorKind::Invalid,
        ),
        ("trackers/binary.md", "Rejected", TrackerErrorKind::Invalid),
    ] {
        ws.err(ws.call_path(path, target), code);
    }
    ws.err_json(
        ws.call_json(json!({"tracker_path": TRACKER, "target_status": "Applied", "x": 1})),
        "VALIDATION_ERROR",
    );
    // Blocked reasons too.
    let response = ws.ok(ws.call_path("trackers/anchored.md", "Rejected"));
    assert_eq!(response.action, Action::Blocked);
    fs::remove_file(ws.root.join(TEX)).unwrap();
    ws.write(PDF, b"");
    let response = ws.ok(ws.call("Resume Written", false, false));
    assert_eq!(response.action, Action::Blocked);
    // And a writer error that names the absolute path.
    let ws = Ws::with_writer(fail_naming_the_path);
    ws.write(TRACKER, note("Reviewed"));
    ws.err(ws.call("Rejected", false, false), TrackerErrorKind::Failed);
}

#[test]
fn req10_absolute_tracker_paths_are_not_echoed() {
    let ws = Ws::standard("Reviewed");
    let root = ws.root_str();
    // An absolute path inside the workspace works; the response echoes it as
    // given (the caller sent it: it reveals nothing), messages never do.
    let given = format!("{root}/{TRACKER}");
    let response = ws.call_path(&given, "Offer").expect("a blocked response");
    assert_eq!(response.tracker_path, given);
    assert_eq!(response.action, Action::Blocked);
    ws.assert_sanitized(response.error.as_deref().unwrap());
    let response = ws.call_path(&given, "Rejected").expect("an update");
    assert_eq!(response.tracker_path, given);
    assert_eq!(response.action, Action::Updated);
    // Errors about absolute paths must not repeat the workspace's location.
    ws.err(
        ws.call_path(&format!("{root}/trackers/missing.md"), "Rejected"),
        TrackerErrorKind::NotFound,
    );
    ws.err(
        ws.call_path(&format!("{root}/../outside/x.md"), "Rejected"),
        TrackerErrorKind::Invalid,
    );
    ws.err(
        ws.call_path(&format!("{root}/trackers"), "Rejected"),
        TrackerErrorKind::NotFound,
    );
}

#[test]
fn req10_guardrail_reasons_do_not_show_absolute_paths() {
    // A tracker whose resume_path is an absolute path inside the workspace.
    let ws = Ws::empty();
    let absolute_pdf = ws.root.join(PDF);
    ws.write(TEX, CLEAN_TEX);
    ws.write(
        TRACKER,
        note_with(
            "Reviewed",
            &format!("resume_path: \"[[{}]]\"", absolute_pdf.display()),
        ),
    );
    // `ok` checks the blocked reason for the workspace path.
    let response = ws.ok(ws.call("Resume Written", false, false));
    assert_eq!(response.action, Action::Blocked);
}

#[cfg(unix)]
#[test]
fn req10_symlink_escapes_are_validation_errors() {
    use std::os::unix::fs::symlink;
    let ws = Ws::standard("Reviewed");
    let secret = ws.write_outside("secret.md", note("Reviewed"));
    ws.write_outside("notes/acme.md", note("Reviewed"));
    // A tracker that is a link to a file outside.
    symlink(&secret, ws.root.join("trackers/link.md")).unwrap();
    // A folder that is a link to a folder outside.
    symlink(ws.outside.join("notes"), ws.root.join("shared")).unwrap();
    // A link to a link that goes outside.
    symlink(
        ws.root.join("trackers/link.md"),
        ws.root.join("trackers/link2.md"),
    )
    .unwrap();
    let before = ws.snapshot();
    for path in ["trackers/link.md", "shared/acme.md", "trackers/link2.md"] {
        for (target, dry_run, force) in [
            ("Rejected", false, false),
            ("Offer", false, true),
            ("Ghosted", true, false),
        ] {
            let error = ws.err(
                ws.tools
                    .update_status(&request(path, target, dry_run, force)),
                TrackerErrorKind::Invalid,
            );
            assert!(error.to_string().contains("outside"), "{path}: {error}");
            assert!(
                !error.to_string().contains(ws.outside.to_str().unwrap()),
                "{error}"
            );
        }
    }
    assert_eq!(changed(&before, &ws.snapshot()), Vec::<String>::new());
    assert_eq!(fs::read_to_string(&secret).unwrap(), note("Reviewed"));
}

#[test]
fn req10_dot_dot_and_absolute_escapes_are_validation_errors() {
    let ws = Ws::standard("Reviewed");
    let outside = ws.write_outside("acme.md", note("Reviewed"));
    let before = ws.snapshot();
    for path in [
        "../outside/acme.md".to_owned(),
        "trackers/../../outside/acme.md".to_owned(),
        outside.to_str().unwrap().to_owned(),
    ] {
        ws.err(ws.call_path(&path, "Rejected"), TrackerErrorKind::Invalid);
    }
    assert_eq!(changed(&before, &ws.snapshot()), Vec::<String>::new());
}

// ---------------------------------------------------------------------------
// R11: system boundaries
// ---------------------------------------------------------------------------

/// A workspace with a database, other trackers, the resume, and other notes.
fn busy_workspace(writer: Option<WriteHook>) -> Ws {
    let ws = Ws::build(writer);
    ws.write(TRACKER, note("Reviewed"));
    ws.good_resume();
    ws.write("jobs.db", b"SQLite format 3\0 pretend database pages");
    ws.write("data/jobs.db", b"SQLite format 3\0 another one");
    ws.write("trackers/globex.md", note("Applied"));
    ws.write("trackers/initech.md", note("Resume Written"));
    ws.write("apps/acme/resume/resume.aux", "aux");
    ws.write("apps/acme/resume/resume.log", "log");
    ws.write("apps/acme/jd.md", "# Job description\n");
    ws.write(".obsidian/workspace.json", "{}");
    ws.write_outside("unrelated.txt", "outside");
    ws
}

#[test]
fn req11_successful_update_changes_only_the_tracker() {
    for (from, to) in [
        ("Reviewed", "Resume Written"),
        ("Reviewed", "Rejected"),
        ("Reviewed", "Offer"),
    ] {
        let ws = busy_workspace(None);
        ws.write(TRACKER, note(from));
        let before = ws.snapshot();
        let response = ws.ok(ws.call(to, false, true));
        assert_eq!(response.action, Action::Updated);
        let after = ws.snapshot();
        assert_eq!(
            changed(&before, &after),
            vec![format!("vault/{TRACKER}")],
            "{from} -> {to}"
        );
        assert_eq!(
            before.keys().collect::<Vec<_>>(),
            after.keys().collect::<Vec<_>>(),
            "a file was created or deleted"
        );
    }
}

#[test]
fn req11_blocked_failed_and_invalid_calls_change_nothing() {
    // Blocked by policy, blocked by guardrail, dry runs, noop, invalid.
    let ws = busy_workspace(None);
    let before = ws.snapshot();
    let calls: Vec<(&str, bool, bool)> = vec![
        ("Offer", false, false),
        ("Reviewed", false, false),
        ("Resume Written", true, false),
        ("Rejected", true, true),
        ("rejected", false, false),
    ];
    for (target, dry_run, force) in calls {
        let _ = ws.call(target, dry_run, force);
        assert_eq!(
            changed(&before, &ws.snapshot()),
            Vec::<String>::new(),
            "{target}"
        );
    }
    ws.write(TEX, "PROJECT-AI-1\n");
    let before = ws.snapshot();
    assert_eq!(
        ws.ok(ws.call("Resume Written", false, true)).action,
        Action::Blocked
    );
    let _ = ws.call_path("trackers/missing.md", "Rejected");
    let _ = ws.call_path("jobs.db", "Rejected");
    assert_eq!(changed(&before, &ws.snapshot()), Vec::<String>::new());

    // A failed write.
    let ws = busy_workspace(Some(fail_disk_full));
    let before = ws.snapshot();
    ws.err(
        ws.call("Resume Written", false, false),
        TrackerErrorKind::Failed,
    );
    assert_eq!(changed(&before, &ws.snapshot()), Vec::<String>::new());
}

#[test]
fn req11_tracker_files_are_never_created_or_deleted() {
    let ws = busy_workspace(None);
    ws.err(
        ws.call_path("trackers/new.md", "Reviewed"),
        TrackerErrorKind::NotFound,
    );
    assert!(!ws.root.join("trackers/new.md").exists());
    ws.ok(ws.call("Rejected", false, false));
    assert!(ws.root.join(TRACKER).is_file());
    assert_eq!(
        ws.names_in("trackers"),
        ["acme.md", "globex.md", "initech.md"]
    );
}

#[test]
fn req11_a_database_named_as_tracker_is_not_rewritten() {
    let ws = busy_workspace(None);
    let before = ws.snapshot();
    ws.err(
        ws.call_path("jobs.db", "Rejected"),
        TrackerErrorKind::Invalid,
    );
    ws.err(
        ws.call_path("data/jobs.db", "Rejected"),
        TrackerErrorKind::Invalid,
    );
    assert_eq!(changed(&before, &ws.snapshot()), Vec::<String>::new());
}

// ---------------------------------------------------------------------------
// Concurrency
// ---------------------------------------------------------------------------

#[test]
fn concurrent_updates_of_one_tracker_never_corrupt_it() {
    for _round in 0..10 {
        let ws = Arc::new(Ws::standard("Reviewed"));
        let original = note("Reviewed");
        let barrier = Arc::new(Barrier::new(8));
        let handles: Vec<_> = (0..8)
            .map(|i| {
                let ws = Arc::clone(&ws);
                let barrier = Arc::clone(&barrier);
                thread::spawn(move || {
                    let target = if i % 2 == 0 { "Rejected" } else { "Ghosted" };
                    barrier.wait();
                    ws.tools
                        .update_status(&request(TRACKER, target, false, false))
                        .unwrap()
                })
            })
            .collect();
        for handle in handles {
            let response = handle.join().unwrap();
            assert!(response.success, "{response:?}");
            assert!(
                matches!(response.action, Action::Updated | Action::Noop),
                "{response:?}"
            );
        }
        let after = ws.tracker();
        let finals = [
            original.replacen("status: Reviewed", "status: Rejected", 1),
            original.replacen("status: Reviewed", "status: Ghosted", 1),
        ];
        assert!(finals.contains(&after), "corrupted tracker: {after:?}");
        assert_eq!(ws.names_in("trackers"), ["acme.md"]);
        // It parses: a dry run reads it back.
        let response = ws.ok(ws.call("Rejected", true, false));
        assert!(["Rejected", "Ghosted"].contains(&response.previous_status.as_str()));
    }
}

#[test]
fn concurrent_updates_of_two_trackers_both_land() {
    for _round in 0..10 {
        let ws = Arc::new(Ws::standard("Reviewed"));
        ws.write("trackers/globex.md", note("Resume Written"));
        let barrier = Arc::new(Barrier::new(2));
        let jobs = [
            (TRACKER, "Resume Written"),
            ("trackers/globex.md", "Applied"),
        ];
        let handles: Vec<_> = jobs
            .into_iter()
            .map(|(path, target)| {
                let ws = Arc::clone(&ws);
                let barrier = Arc::clone(&barrier);
                thread::spawn(move || {
                    barrier.wait();
                    ws.tools
                        .update_status(&request(path, target, false, false))
                        .unwrap()
                })
            })
            .collect();
        for handle in handles {
            assert_eq!(handle.join().unwrap().action, Action::Updated);
        }
        assert_eq!(ws.tracker(), note("Resume Written"));
        assert_eq!(ws.read("trackers/globex.md"), note("Applied").as_bytes());
        assert_eq!(ws.names_in("trackers"), ["acme.md", "globex.md"]);
    }
}

#[test]
fn concurrent_toolsets_over_one_workspace_never_corrupt_it() {
    // Two independent toolsets (no shared lock): the atomic rename still
    // means every reader sees a whole file, old or new.
    let ws = Ws::standard("Reviewed");
    let other = Arc::new(TrackerTools::new(Workspace::new(&ws.root).unwrap()));
    let ws = Arc::new(ws);
    let original = note("Reviewed");
    let allowed: Vec<String> = ["Reviewed", "Rejected", "Ghosted"]
        .iter()
        .map(|status| original.replacen("status: Reviewed", &format!("status: {status}"), 1))
        .collect();
    let barrier = Arc::new(Barrier::new(5));
    let mut writers = Vec::new();
    for i in 0..4 {
        let ws = Arc::clone(&ws);
        let other = Arc::clone(&other);
        let barrier = Arc::clone(&barrier);
        writers.push(thread::spawn(move || {
            barrier.wait();
            for round in 0..25 {
                let target = if (i + round) % 2 == 0 {
                    "Rejected"
                } else {
                    "Ghosted"
                };
                let tools = if i % 2 == 0 { &ws.tools } else { &*other };
                let response = tools
                    .update_status(&request(TRACKER, target, false, false))
                    .unwrap();
                assert!(response.success);
            }
        }));
    }
    let reader = {
        let ws = Arc::clone(&ws);
        let barrier = Arc::clone(&barrier);
        let allowed = allowed.clone();
        thread::spawn(move || {
            barrier.wait();
            for _ in 0..200 {
                let seen = fs::read_to_string(ws.root.join(TRACKER)).unwrap();
                assert!(allowed.contains(&seen), "a reader saw {seen:?}");
            }
        })
    };
    for writer in writers {
        writer.join().unwrap();
    }
    reader.join().unwrap();
    assert!(allowed[1..].contains(&ws.tracker()));
    assert_eq!(ws.names_in("trackers"), ["acme.md"]);
}

#[test]
fn req06_an_unquoted_wiki_link_is_read_as_the_link() {
    // `resume_path: [[x]]` without quotes is YAML for a list in a list.
    let folder = tempfile::tempdir().unwrap();
    let root = folder.path();
    std::fs::create_dir_all(root.join("trackers")).unwrap();
    std::fs::create_dir_all(root.join("apps/acme/resume")).unwrap();
    std::fs::write(root.join("apps/acme/resume/resume.pdf"), "%PDF-1.4").unwrap();
    std::fs::write(root.join("apps/acme/resume/resume.tex"), "done").unwrap();
    std::fs::write(
        root.join("trackers/acme.md"),
        "---\nstatus: Reviewed\nresume_path: [[apps/acme/resume/resume.pdf]]\n---\n",
    )
    .unwrap();
    let tools = TrackerTools::new(Workspace::new(root).unwrap());
    let response = tools
        .update_status(&request("trackers/acme.md", "Resume Written", false, false))
        .unwrap();
    assert_eq!(response.guardrail_check_passed, Some(true));
    assert_eq!(response.action, Action::Updated);
}
