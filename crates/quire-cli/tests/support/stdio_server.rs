//! A `quire serve` process over stdio driven with raw JSON-RPC lines: what
//! the protocol and approval tests that speak to the binary byte by byte
//! share.

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::jsonrpc_replies::{INITIALIZE, assert_initialized, error_of};

/// How long a reply may take before a test gives up on it.
pub(crate) const REPLY_TIMEOUT: Duration = Duration::from_secs(20);
/// How long the server may take to exit once stdin or stdout is closed.
pub(crate) const EXIT_DEADLINE: Duration = Duration::from_secs(3);

pub(crate) const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// A `quire serve` process with its stdout read line by line on a thread.
pub(crate) struct Server {
    pub(crate) child: Child,
    stdin: Option<ChildStdin>,
    replies: Receiver<String>,
    /// Set to make the reader thread close stdout after the next line.
    pub(crate) close_stdout: Arc<AtomicBool>,
    stderr: PathBuf,
    _folder: tempfile::TempDir,
}

impl Server {
    pub(crate) fn start(args: &[&str], root: &Path, path: Option<&Path>) -> Server {
        let folder = tempfile::tempdir().unwrap();
        let stderr = folder.path().join("stderr.log");
        let mut command = Command::new(env!("CARGO_BIN_EXE_quire"));
        command
            .arg("serve")
            .arg("--root")
            .arg(root)
            .args(args)
            .env("RUST_LOG", "info")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(fs::File::create(&stderr).unwrap());
        if let Some(path) = path {
            command.env("PATH", path);
        }
        let mut child = command.spawn().expect("quire runs");
        let stdout = child.stdout.take().unwrap();
        let (sender, replies) = channel();
        let close_stdout = Arc::new(AtomicBool::new(false));
        let closing = close_stdout.clone();
        thread::spawn(move || {
            let mut lines = BufReader::new(stdout);
            loop {
                let mut line = String::new();
                match lines.read_line(&mut line) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {
                        // Read before the line is handed over: the test sets
                        // it only after taking an earlier line.
                        let close = closing.load(Ordering::SeqCst);
                        if sender.send(line).is_err() || close {
                            return; // drops (closes) stdout
                        }
                    }
                }
            }
        });
        Server {
            stdin: child.stdin.take(),
            child,
            replies,
            close_stdout,
            stderr,
            _folder: folder,
        }
    }

    pub(crate) fn send(&mut self, line: &str) {
        self.send_bytes(line.as_bytes());
        self.send_bytes(b"\n");
    }

    pub(crate) fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// The next line on stdout, which must be one JSON value.
    pub(crate) fn reply(&self) -> Value {
        let line = match self.replies.recv_timeout(REPLY_TIMEOUT) {
            Ok(line) => line,
            Err(error) => panic!("no reply ({error:?}); stderr:\n{}", self.stderr()),
        };
        assert!(line.ends_with('\n'), "a reply is a whole line: {line:?}");
        serde_json::from_str(&line).unwrap_or_else(|error| panic!("{error}: {line:?}"))
    }

    /// Asserts that no line arrives within `wait`.
    pub(crate) fn no_reply_within(&self, wait: Duration) {
        match self.replies.recv_timeout(wait) {
            Err(RecvTimeoutError::Timeout) => {}
            other => panic!("unexpected output: {other:?}"),
        }
    }

    pub(crate) fn initialize(&mut self) {
        self.send(INITIALIZE);
        assert_initialized(&self.reply());
        self.send(INITIALIZED);
    }

    /// Asserts that the server still answers: a ping with `id`.
    pub(crate) fn still_serving(&mut self, id: i64) {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": "ping"}).to_string());
        assert_eq!(
            self.reply(),
            json!({"jsonrpc": "2.0", "id": id, "result": {}})
        );
        self.send(&json!({"jsonrpc": "2.0", "id": id + 1, "method": "tools/list"}).to_string());
        let reply = self.reply();
        assert_eq!(reply["id"], id + 1, "{reply}");
        assert!(reply["result"]["tools"].is_array(), "{reply}");
    }

    /// The error reply to the last message: `(code, id)`.
    pub(crate) fn error(&self) -> (i64, Value) {
        error_of(&self.reply())
    }

    pub(crate) fn stderr(&self) -> String {
        fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    pub(crate) fn close_stdin(&mut self) {
        drop(self.stdin.take());
    }

    /// Waits up to `deadline` for the process to exit; its exit code.
    pub(crate) fn exit_within(&mut self, deadline: Duration) -> Option<i32> {
        let start = Instant::now();
        while start.elapsed() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            thread::sleep(Duration::from_millis(20));
        }
        None
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
