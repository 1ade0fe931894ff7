//! Cost of `update_tracker_status`, in process and over MCP stdio, against
//! the file-system floor and the transport's own cost.
//!
//! - `in_process/update_dry_run`: [`TrackerTools::update_status`] with
//!   `dry_run: true` on a realistic tracker (12 frontmatter keys, ~2.5 KB of
//!   body): every check, no write.
//! - `in_process/update_write`: a real update, alternating `Rejected` and
//!   `Ghosted` (terminal statuses, so the policy allows each move without
//!   `force` and every iteration writes).
//! - `baseline/read_write_file`: `fs::read` + `fs::write` of the same bytes,
//!   the least any tool that edits the file in place must do, without any
//!   durability. Not free: on ext4, truncating a file and writing it again
//!   makes the kernel write the data out at close (`auto_da_alloc`), and the
//!   next truncation waits for that write.
//! - `baseline/read_file`: `fs::read` alone, the floor for the dry run, which
//!   reads but never writes.
//! - `baseline/atomic_replace`: the textbook atomic replace of the same bytes
//!   with the `tempfile` crate: named temporary file, fsync, rename, folder
//!   fsync (the floor for the real update).
//! - `fs/replace`: the same through quire's confined file layer: resolve
//!   beneath the root, open without blocking, lock, check, stage (unnamed
//!   file), keep owner and mode, verify, link, rename, fsync.
//! - `mcp_stdio/round_trip`: one `tools/call` of `update_tracker_status`
//!   (dry run) to a `quire serve` child process over stdio, response read.
//! - `mcp_stdio/ping`: one `ping` request round trip to the same process (the
//!   transport baseline: pipes, JSON-RPC framing, the server's event loop).
//!
//! The workspace is a temporary folder under Cargo's `CARGO_TARGET_TMPDIR`, so
//! the files live on the same file system as the project (not a `tmpfs`
//! `/tmp`, where fsync would cost nothing).
//!
//! # The `quire` binary
//!
//! The `mcp_stdio` benchmarks run the binary Cargo built for this very
//! invocation: Cargo builds a package's binaries before its benchmarks and
//! passes the path as `CARGO_BIN_EXE_quire` (the bench is marked
//! `required-features = ["cli"]` so the binary always exists when it does).
//! `cargo bench` therefore runs the optimized binary (`target/release/quire`,
//! bench profile) and `cargo test --benches` the debug one; nothing has to be
//! built by hand. Set `QUIRE_BIN=/path/to/quire` to measure another build. A
//! missing binary is a setup panic that says which path was tried.
//!
//! ```text
//! cargo bench --bench tracker
//! cargo test --benches          # each benchmark once, as CI does
//! ```

#[path = "support/quire_binary.rs"]
mod quire_binary;
use quire_binary::quire_binary;

use std::fs;
use std::hint::black_box;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};
use quire_fs::Workspace;
use quire_tracker::{Action, StatusUpdate, TrackerTools};

const DRY_RUN_PATH: &str = "trackers/dry-run.md";
const WRITE_PATH: &str = "trackers/write.md";
const BASELINE_PATH: &str = "trackers/baseline.md";

/// A tracker note as people keep them: 12 frontmatter keys (comments, a
/// quoted value, a flow list) and a ~2.5 KB markdown body (~2.9 KB in all).
fn realistic_tracker(status: &str) -> String {
    let mut text = format!(
        "---\n\
         company: Acme Robotics # series B, ~200 people\n\
         role: Senior Backend Engineer\n\
         location: Berlin (hybrid)\n\
         status: {status}\n\
         source: referral\n\
         contact: \"Dana Schmidt <dana@acme.example>\"\n\
         salary_range: 85k-105k EUR\n\
         applied: 2025-03-14\n\
         resume_path: \"[[resumes/acme-backend/resume.pdf]]\"\n\
         tags: [backend, rust, distributed-systems]\n\
         priority: high\n\
         updated: 2025-03-21\n\
         ---\n\
         # Acme Robotics: Senior Backend Engineer\n\n"
    );
    let sections = [
        (
            "Role",
            "The team owns the fleet-control service that schedules work across \
             a few thousand warehouse robots. The stack is Rust on the hot path, \
             Postgres for state, and Kafka between services.",
        ),
        (
            "Why it fits",
            "Three years of scheduling and queueing work, the on-call load is \
             shared across eight engineers, and the interview loop is public. \
             The hiring manager wrote the scheduler's design document.",
        ),
        (
            "Interview notes",
            "First call went well: they asked about back-pressure, idempotent \
             consumers and how to roll out a schema change without downtime. \
             Follow-up is a take-home exercise, then a systems design round.",
        ),
        (
            "Open questions",
            "Ask about the on-call rotation, the budget for conferences, how \
             promotions work, and whether the hybrid policy is written down.",
        ),
    ];
    for (heading, paragraph) in sections {
        text.push_str(&format!("## {heading}\n\n"));
        for round in 0..3 {
            text.push_str(paragraph);
            text.push_str(&format!(" (note {round})\n\n"));
        }
    }
    text.push_str("## Checklist\n\n");
    for (index, item) in [
        "Tailor the resume to the scheduling work",
        "Write the cover letter",
        "Prepare the take-home environment",
        "Read the fleet-control design document",
        "Send the thank-you note",
    ]
    .iter()
    .enumerate()
    {
        let mark = if index < 2 { 'x' } else { ' ' };
        text.push_str(&format!("- [{mark}] {item}\n"));
    }
    text
}

fn request(path: &str, target: &str, dry_run: bool) -> StatusUpdate {
    StatusUpdate {
        tracker_path: path.to_owned(),
        target_status: target.to_owned(),
        dry_run,
        force: false,
    }
}

/// A `quire serve` child process after the MCP initialize handshake, with one
/// JSON-RPC message per line each way.
struct StdioServer {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
    message: Vec<u8>,
    line: String,
}

impl StdioServer {
    fn spawn(binary: &Path, root: &Path) -> StdioServer {
        let mut child = Command::new(binary)
            .args(["serve", "--tools", "tracker", "--root"])
            .arg(root)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|error| panic!("cannot run {}: {error}", binary.display()));
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        let mut server = StdioServer {
            child,
            stdin,
            stdout,
            next_id: 1,
            message: Vec::with_capacity(512),
            line: String::with_capacity(2048),
        };
        let initialize = server.request(
            "initialize",
            r#"{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"quire-bench","version":"0"}}"#,
        );
        let response: serde_json::Value = serde_json::from_str(initialize).unwrap();
        assert_eq!(
            response["result"]["serverInfo"]["name"], "quire",
            "unexpected initialize response: {initialize}"
        );
        server.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        server
    }

    fn send(&mut self, message: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin
            .write_all(message)
            .and_then(|()| stdin.write_all(b"\n"))
            .expect("the server reads its stdin");
    }

    /// Sends one request and returns its response line (the server sends
    /// nothing unprompted, so the next line is the response).
    fn request(&mut self, method: &str, params: &str) -> &str {
        let id = self.next_id;
        self.next_id += 1;
        self.message.clear();
        write!(
            self.message,
            r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#
        )
        .unwrap();
        self.message.push(b'\n');
        // One write, so the request leaves in one pipe write.
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin
            .write_all(&self.message)
            .expect("the server reads its stdin");
        self.line.clear();
        let read = self
            .stdout
            .read_line(&mut self.line)
            .expect("the server's stdout is readable");
        assert!(read > 0, "the server closed stdout after `{method}`");
        &self.line
    }
}

impl Drop for StdioServer {
    /// Closing stdin ends the server; kill it if it does not exit promptly.
    fn drop(&mut self) {
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn tracker(c: &mut Criterion) {
    let scratch = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let root = scratch.path();
    fs::create_dir(root.join("trackers")).unwrap();
    let note = realistic_tracker("Rejected");
    let body_len = note.len() - note.find("\n---\n").unwrap() - 5;
    assert!(
        (2000..=6000).contains(&body_len),
        "the tracker body is {body_len} bytes"
    );
    for path in [DRY_RUN_PATH, WRITE_PATH, BASELINE_PATH] {
        fs::write(root.join(path), &note).unwrap();
    }

    let tools = TrackerTools::new(Workspace::new(root).unwrap());
    let dry_run = request(DRY_RUN_PATH, "Ghosted", true);
    let dry = tools.update_status(&dry_run).unwrap();
    assert_eq!(dry.action, Action::WouldUpdate, "{dry:?}");
    assert!(dry.warnings.is_empty(), "{dry:?}");
    let writes = [
        request(WRITE_PATH, "Ghosted", false),
        request(WRITE_PATH, "Rejected", false),
    ];
    // The first write proves the edit changes only the status.
    assert_eq!(
        tools.update_status(&writes[0]).unwrap().action,
        Action::Updated
    );
    assert_eq!(
        fs::read_to_string(root.join(WRITE_PATH)).unwrap(),
        realistic_tracker("Ghosted")
    );
    tools.update_status(&writes[1]).unwrap();

    let mut server = StdioServer::spawn(&quire_binary("tracker"), root);
    let call_params = format!(
        r#"{{"name":"update_tracker_status","arguments":{{"tracker_path":"{DRY_RUN_PATH}","target_status":"Ghosted","dry_run":true}}}}"#
    );
    let check_call = |line: &str| {
        let response: serde_json::Value = serde_json::from_str(line).unwrap();
        let result = &response["result"];
        assert_eq!(result["isError"], false, "{line}");
        assert_eq!(
            result["structuredContent"]["action"], "would_update",
            "{line}"
        );
    };
    check_call(server.request("tools/call", &call_params));
    let ping_id = server.next_id;
    assert_eq!(
        server.request("ping", "{}"),
        format!("{{\"jsonrpc\":\"2.0\",\"id\":{ping_id},\"result\":{{}}}}\n")
    );

    let mut group = c.benchmark_group("tracker");
    group
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));

    group.bench_function("in_process/update_dry_run", |b| {
        b.iter(|| tools.update_status(black_box(&dry_run)).unwrap())
    });
    let baseline = root.join(BASELINE_PATH);
    group.bench_function("baseline/read_file", |b| {
        b.iter(|| fs::read(black_box(&baseline)).unwrap())
    });
    group.bench_function("baseline/read_write_file", |b| {
        b.iter(|| {
            let bytes = fs::read(black_box(&baseline)).unwrap();
            fs::write(&baseline, &bytes).unwrap();
        })
    });

    // Each iteration fsyncs twice (the file, then its folder): milliseconds
    // on a real disk, so fewer, flat samples.
    group.sample_size(20).sampling_mode(SamplingMode::Flat);
    // The note says `Rejected` now; `writes[turn % 2]` always changes it.
    let mut turn = 0usize;
    group.bench_function("in_process/update_write", |b| {
        b.iter(|| {
            let response = tools.update_status(&writes[turn % 2]).unwrap();
            turn += 1;
            assert_eq!(response.action, Action::Updated);
            response
        })
    });
    let bytes = note.as_bytes();
    group.bench_function("baseline/atomic_replace", |b| {
        b.iter(|| textbook_atomic_replace(&baseline, black_box(bytes)))
    });
    let workspace = tools.workspace().clone();
    group.bench_function("fs/replace", |b| {
        b.iter(|| {
            let located = workspace.locate(BASELINE_PATH).unwrap();
            let file = located.open().unwrap();
            file.lock(Duration::from_secs(1)).unwrap();
            located.replace(&file, black_box(bytes)).unwrap();
        })
    });
    group.sample_size(100).sampling_mode(SamplingMode::Auto);

    group.bench_function("mcp_stdio/round_trip", |b| {
        b.iter(|| {
            let line = server.request("tools/call", &call_params);
            assert!(line.contains(r#""action":"would_update""#), "{line}");
        })
    });
    group.bench_function("mcp_stdio/ping", |b| {
        b.iter(|| {
            let line = server.request("ping", "{}");
            assert!(line.ends_with("\"result\":{}}\n"), "{line}");
        })
    });
    group.finish();

    // The server still answers correctly after the run, and the files are
    // intact.
    check_call(server.request("tools/call", &call_params));
    drop(server);
    assert_eq!(fs::read_to_string(root.join(DRY_RUN_PATH)).unwrap(), note);
    assert_eq!(fs::read_to_string(&baseline).unwrap(), note);
}

/// Temporary file beside `path`, written and flushed, renamed over it, and
/// the folder flushed.
fn textbook_atomic_replace(path: &Path, bytes: &[u8]) {
    let folder = path.parent().unwrap();
    let mut temp = tempfile::NamedTempFile::new_in(folder).unwrap();
    temp.write_all(bytes).unwrap();
    temp.as_file().sync_all().unwrap();
    temp.persist(path).unwrap();
    fs::File::open(folder).unwrap().sync_all().unwrap();
}

criterion_group!(benches, tracker);
criterion_main!(benches);
