//! Running a version-control command in the workspace: with a deadline, a
//! cap on what it may print, and its failure turned into a message a model
//! can act on.
//!
//! A command that does not finish within [`COMMAND_TIMEOUT`] is killed with
//! its whole process group, so a stuck `git` or `jj` (a lock held by another
//! program, a hook waiting for input) cannot hold a tool call for ever.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use super::StoreError;

/// How long a version-control command may run.
pub(crate) const COMMAND_TIMEOUT: Duration = Duration::from_secs(30);

/// The most a command may print on stdout (a plan, a change summary).
const MAX_STDOUT: usize = 4 * 1024 * 1024;
/// The most of a command's error text kept.
const MAX_STDERR: usize = 64 * 1024;

/// One command to run: program, arguments, environment additions.
pub(super) struct Invocation<'a> {
    pub program: &'static str,
    /// Options quire adds for safety (no pager, no monitor, ...), left out
    /// of messages.
    pub quiet_args: Vec<String>,
    /// The command's own arguments, shown in messages.
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    pub stdin: Option<&'a str>,
    pub install_hint: &'static str,
    /// Exit codes besides 0 that mean success (`git diff --no-index` exits
    /// 1 when the files differ).
    pub success_codes: Vec<i32>,
}

/// What a command printed, up to a size: the text (invalid UTF-8 replaced)
/// and how many bytes after it were left out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Capped {
    pub text: String,
    pub omitted: u64,
}

impl<'a> Invocation<'a> {
    pub(super) fn new(program: &'static str, install_hint: &'static str) -> Self {
        Invocation {
            program,
            quiet_args: Vec::new(),
            args: Vec::new(),
            env: Vec::new(),
            stdin: None,
            install_hint,
            success_codes: Vec::new(),
        }
    }

    /// Takes exit status `code` as success too.
    pub(super) fn success_code(mut self, code: i32) -> Self {
        self.success_codes.push(code);
        self
    }

    pub(super) fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Arguments that go before [`Invocation::args`] and are not shown in
    /// messages.
    pub(super) fn quiet_args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.quiet_args.extend(args.into_iter().map(Into::into));
        self
    }

    pub(super) fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    pub(super) fn stdin(mut self, text: &'a str) -> Self {
        self.stdin = Some(text);
        self
    }

    /// The command as messages show it: without the quiet arguments.
    pub(super) fn shown(&self) -> String {
        format!("{} {}", self.program, self.args.join(" "))
    }

    /// Runs it in `root` and returns its stdout. A non-zero exit becomes
    /// `CommandFailed` with the command's own error text, the workspace's
    /// absolute path replaced by `.`.
    pub(super) fn run(self, root: &Path) -> Result<String, StoreError> {
        self.run_with_timeout(root, COMMAND_TIMEOUT)
    }

    pub(super) fn run_with_timeout(
        self,
        root: &Path,
        timeout: Duration,
    ) -> Result<String, StoreError> {
        let shown = self.shown();
        let stdout = self.run_bytes_with_timeout(root, timeout)?;
        String::from_utf8(stdout).map_err(|_| StoreError::CommandFailed {
            command: shown,
            detail: "its output is not UTF-8 text".into(),
        })
    }

    /// Runs it in `root` and returns its stdout as bytes, for output that
    /// may name files whose names are not UTF-8 (`git diff -z`).
    pub(super) fn run_bytes(self, root: &Path) -> Result<Vec<u8>, StoreError> {
        self.run_bytes_with_timeout(root, COMMAND_TIMEOUT)
    }

    fn run_bytes_with_timeout(self, root: &Path, timeout: Duration) -> Result<Vec<u8>, StoreError> {
        let shown = self.shown();
        let stdout = self.execute(root, timeout, MAX_STDOUT)?;
        if stdout.total > stdout.bytes.len() as u64 {
            return Err(StoreError::CommandFailed {
                command: shown,
                detail: format!(
                    "it printed more than {} MiB, more than any plan or change summary",
                    MAX_STDOUT / (1024 * 1024)
                ),
            });
        }
        Ok(stdout.bytes)
    }

    /// Runs it in `root` and keeps the first `cap` bytes of its stdout as
    /// text, cut at the end of a line (or character) and with invalid UTF-8
    /// replaced; the rest is read, counted and dropped. For output that is
    /// shown, not parsed: a diff.
    pub(super) fn run_capped(self, root: &Path, cap: usize) -> Result<Capped, StoreError> {
        let stdout = self.execute(root, COMMAND_TIMEOUT, cap)?;
        let mut kept = stdout.bytes;
        if stdout.total > kept.len() as u64 {
            // Whole lines only, unless one line is longer than the cap; then
            // not part of a character either.
            match kept.iter().rposition(|&byte| byte == b'\n') {
                Some(end) => kept.truncate(end + 1),
                None => kept.truncate(without_partial_character(&kept)),
            }
        }
        Ok(Capped {
            omitted: stdout.total - kept.len() as u64,
            text: String::from_utf8_lossy(&kept).into_owned(),
        })
    }

    /// The command, set up to run in `root`: its own process group, stdout
    /// and stderr piped, stdin piped only when there is input.
    fn command(&self, root: &Path) -> Command {
        let mut command = Command::new(self.program);
        command
            .args(&self.quiet_args)
            .args(&self.args)
            .envs(self.env.iter().map(|(key, value)| (key, value)))
            .current_dir(root)
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            // Its own process group, so a timeout can end its children too.
            command.process_group(0);
        }
        command
    }

    /// Starts the command; a missing program says how to install it.
    fn spawn_child(&self, root: &Path) -> Result<Child, StoreError> {
        self.command(root)
            .spawn()
            .map_err(|error| match error.kind() {
                std::io::ErrorKind::NotFound => StoreError::ProgramMissing {
                    program: self.program,
                    hint: self.install_hint,
                },
                _ => StoreError::CommandFailed {
                    command: self.shown(),
                    detail: quire_fs::describe(&error),
                },
            })
    }

    /// Starts the command in `root` with its stdout to be read as it comes
    /// ([`CommandStream`]), for output too large to hold at once (a long
    /// history). No deadline: the reader sets the pace, and dropping the
    /// stream ends the command.
    pub(super) fn stream(self, root: &Path) -> Result<CommandStream, StoreError> {
        let mut child = self.spawn_child(root)?;
        let stdout = child.stdout.take();
        let stderr = collect(child.stderr.take(), MAX_STDERR);
        Ok(CommandStream {
            shown: self.shown(),
            root: root.to_owned(),
            child: Some(child),
            stdout,
            stderr,
        })
    }

    /// Runs the command and collects its stdout, keeping at most `cap`
    /// bytes (and counting all of them).
    fn execute(self, root: &Path, timeout: Duration, cap: usize) -> Result<Collected, StoreError> {
        let shown = self.shown();
        let failed = |detail: String| StoreError::CommandFailed {
            command: shown.clone(),
            detail,
        };
        let mut child = self.spawn_child(root)?;
        // Input and output move on their own threads: a command that does
        // not read its input, or fills a pipe, cannot block this one.
        if let (Some(text), Some(mut input)) = (self.stdin, child.stdin.take()) {
            let text = text.to_owned();
            thread::spawn(move || {
                let _ = input.write_all(text.as_bytes());
            });
        }
        let stdout = collect(child.stdout.take(), cap);
        let stderr = collect(child.stderr.take(), MAX_STDERR);
        let status = match wait(&mut child, timeout) {
            Some(status) => status,
            None => {
                kill(&mut child);
                return Err(failed(format!(
                    "it did not finish within {} s and was stopped; check that no other program holds the repository (a lock, an editor, a hook waiting for input) and try again",
                    timeout.as_secs()
                )));
            }
        };
        // A child the command left running may hold the pipes open; what was
        // printed until shortly after the exit is what counts.
        let grace = Duration::from_secs(2);
        let stdout = stdout.recv_timeout(grace).unwrap_or_default();
        let stderr = stderr.recv_timeout(grace).unwrap_or_default();
        let succeeded = status.success()
            || status
                .code()
                .is_some_and(|code| self.success_codes.contains(&code));
        if !succeeded {
            let stderr = String::from_utf8_lossy(&stderr.bytes);
            return Err(failed(sanitize(&stderr, root)));
        }
        Ok(stdout)
    }
}

/// The length of `bytes` without the start of a UTF-8 character cut off at
/// its end.
fn without_partial_character(bytes: &[u8]) -> usize {
    // The last character starts at the last byte that is not a continuation
    // byte (`10xxxxxx`), at most 3 bytes from the end.
    let start = bytes
        .iter()
        .rev()
        .take(4)
        .position(|&byte| byte & 0b1100_0000 != 0b1000_0000)
        .map(|from_end| bytes.len() - 1 - from_end);
    match start {
        Some(start) => match std::str::from_utf8(&bytes[start..]) {
            Err(error) if error.error_len().is_none() => start,
            _ => bytes.len(),
        },
        None => bytes.len(),
    }
}

/// A running command whose stdout is read as it comes ([`std::io::Read`]);
/// [`CommandStream::finish`] then says whether it succeeded. Dropped
/// before that, it ends the command and its process group.
pub struct CommandStream {
    /// The command as messages show it.
    shown: String,
    /// Where it runs, left out of its error text.
    root: std::path::PathBuf,
    child: Option<Child>,
    stdout: Option<std::process::ChildStdout>,
    stderr: mpsc::Receiver<Collected>,
}

impl CommandStream {
    /// Waits for the command to end, once its stdout has been read to the
    /// end (or is no longer wanted), and returns its failure, if any, with
    /// its own error text as [`StoreError::CommandFailed`].
    pub fn finish(mut self) -> Result<(), StoreError> {
        // Closed first: a command still writing ends on the broken pipe
        // instead of waiting for a reader that has stopped.
        self.stdout = None;
        let Some(mut child) = self.child.take() else {
            return Ok(());
        };
        let status = child.wait().map_err(|error| StoreError::CommandFailed {
            command: self.shown.clone(),
            detail: quire_fs::describe(&error),
        })?;
        if status.success() {
            return Ok(());
        }
        let stderr = self
            .stderr
            .recv_timeout(Duration::from_secs(2))
            .unwrap_or_default();
        Err(StoreError::CommandFailed {
            command: self.shown.clone(),
            detail: sanitize(&String::from_utf8_lossy(&stderr.bytes), &self.root),
        })
    }
}

impl Read for CommandStream {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        match &mut self.stdout {
            Some(stdout) => stdout.read(buffer),
            None => Ok(0),
        }
    }
}

impl Drop for CommandStream {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            kill(&mut child);
        }
    }
}

/// What a pipe delivered, up to a cap.
#[derive(Default)]
struct Collected {
    bytes: Vec<u8>,
    /// Every byte delivered, kept or not.
    total: u64,
}

/// Reads `pipe` to its end on a thread, keeping at most `cap` bytes (and
/// draining the rest, so the writer never blocks on a full pipe).
fn collect(pipe: Option<impl Read + Send + 'static>, cap: usize) -> mpsc::Receiver<Collected> {
    let (sender, receiver) = mpsc::channel();
    thread::spawn(move || {
        let mut collected = Collected::default();
        if let Some(mut pipe) = pipe {
            let mut chunk = [0u8; 8192];
            loop {
                match pipe.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(read) => {
                        let room = cap.saturating_sub(collected.bytes.len());
                        collected.bytes.extend_from_slice(&chunk[..read.min(room)]);
                        collected.total += read as u64;
                    }
                    Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
        }
        let _ = sender.send(collected);
    });
    receiver
}

/// The child's exit status, or `None` when it is still running at the deadline.
fn wait(child: &mut Child, timeout: Duration) -> Option<ExitStatus> {
    let deadline = Instant::now() + timeout;
    let mut pause = Duration::from_millis(1);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) => {}
            Err(_) => return child.wait().ok(),
        }
        let now = Instant::now();
        if now >= deadline {
            return None;
        }
        thread::sleep(pause.min(deadline - now));
        pause = (pause * 2).min(Duration::from_millis(20));
    }
}

/// Ends the child and every process in its group.
fn kill(child: &mut Child) {
    #[cfg(unix)]
    if let Some(group) = rustix::process::Pid::from_raw(child.id() as i32) {
        let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// A command's error text, trimmed and shortened, without the workspace's
/// absolute path.
fn sanitize(stderr: &str, root: &Path) -> String {
    let mut text = stderr.trim().to_owned();
    for root in [root.to_path_buf(), root.canonicalize().unwrap_or_default()] {
        let root = root.to_string_lossy();
        if !root.is_empty() && root != "/" {
            text = text.replace(root.as_ref(), ".");
        }
    }
    if text.is_empty() {
        return "it exited with an error and printed nothing".to_owned();
    }
    const LIMIT: usize = 600;
    match text.char_indices().nth(LIMIT) {
        Some((cut, _)) => format!("{} ...", &text[..cut]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_lose_the_workspace_path() {
        let root = Path::new("/home/someone/project");
        assert_eq!(
            sanitize("Error: /home/someone/project/.jj is broken\n", root),
            "Error: ./.jj is broken"
        );
        assert_eq!(
            sanitize("  ", root),
            "it exited with an error and printed nothing"
        );
    }

    #[test]
    fn a_missing_program_says_how_to_install_it() {
        let error = Invocation::new("quire-no-such-program", "install it")
            .run(Path::new("."))
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "`quire-no-such-program` is not installed or not on PATH; install it"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_command_that_hangs_is_stopped_at_its_deadline() {
        let started = Instant::now();
        let error = Invocation::new("sh", "")
            .args(["-c", "sleep 30 & sleep 30"])
            .run_with_timeout(Path::new("."), Duration::from_millis(200))
            .unwrap_err();
        assert!(started.elapsed() < Duration::from_secs(10));
        assert!(
            error.to_string().contains("did not finish within"),
            "{error}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn input_a_command_does_not_read_cannot_block() {
        // 1 MiB of input to a command that never reads it, then exits.
        let input = "x".repeat(1024 * 1024);
        let output = Invocation::new("sh", "")
            .args(["-c", "echo done"])
            .stdin(&input)
            .run(Path::new("."))
            .unwrap();
        assert_eq!(output, "done\n");
    }

    #[cfg(unix)]
    #[test]
    fn capped_output_keeps_whole_lines_and_counts_the_rest() {
        let run = |script: &str, cap: usize| {
            Invocation::new("sh", "")
                .args(["-c", script])
                .run_capped(Path::new("."), cap)
                .unwrap()
        };
        let all = run("printf 'a\\nbb\\nccc\\n'", 64);
        assert_eq!((all.text.as_str(), all.omitted), ("a\nbb\nccc\n", 0));
        let cut = run("printf 'a\\nbb\\nccc\\n'", 6);
        assert_eq!((cut.text.as_str(), cut.omitted), ("a\nbb\n", 4));
        // One line longer than the cap: cut inside it, never inside a character.
        let long = run("printf 'ab\\303\\251cd'", 3);
        assert_eq!((long.text.as_str(), long.omitted), ("ab", 4));
        // Shown, not parsed: bytes that are not UTF-8 are replaced.
        let latin1 = run("printf 'caf\\351\\n'", 64);
        assert_eq!(latin1.text, "caf\u{FFFD}\n");
        // 6 MB is read to its end and counted, well past the cap.
        let endless = run("head -c 6000000 /dev/zero | tr '\\0' 'x'", 10);
        assert_eq!((endless.text.len() as u64 + endless.omitted), 6_000_000);
    }

    #[cfg(unix)]
    #[test]
    fn a_declared_exit_code_is_success() {
        let failing = || Invocation::new("sh", "").args(["-c", "echo diff; exit 1"]);
        assert!(failing().run(Path::new(".")).is_err());
        let output = failing()
            .success_code(1)
            .run_capped(Path::new("."), 64)
            .unwrap();
        assert_eq!(output.text, "diff\n");
        assert!(
            Invocation::new("sh", "")
                .args(["-c", "exit 2"])
                .success_code(1)
                .run(Path::new("."))
                .is_err()
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_stream_delivers_everything_and_then_the_exit_status() {
        let mut stream = Invocation::new("sh", "")
            .args(["-c", "head -c 6000000 /dev/zero | tr '\\0' 'x'"])
            .stream(Path::new("."))
            .unwrap();
        let mut read = Vec::new();
        stream.read_to_end(&mut read).unwrap();
        assert_eq!(read.len(), 6_000_000, "more than `run` would keep");
        stream.finish().unwrap();

        let mut failing = Invocation::new("sh", "")
            .args([
                "-c",
                "echo partial; echo 'fatal: bad revision' >&2; exit 128",
            ])
            .stream(Path::new("."))
            .unwrap();
        let mut read = String::new();
        failing.read_to_string(&mut read).unwrap();
        assert_eq!(read, "partial\n");
        let error = failing.finish().unwrap_err();
        assert_eq!(
            error.to_string(),
            "`sh -c echo partial; echo 'fatal: bad revision' >&2; exit 128` failed: fatal: bad revision"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_stream_dropped_early_ends_its_command() {
        let folder = std::env::temp_dir().join(format!("quire-stream-{}", std::process::id()));
        std::fs::create_dir_all(&folder).unwrap();
        let mut stream = Invocation::new("sh", "")
            .args(["-c", "echo $$ > pid; exec yes"])
            .stream(&folder)
            .unwrap();
        let mut some = [0u8; 1024];
        stream.read_exact(&mut some).unwrap();
        let pid: i32 = std::fs::read_to_string(folder.join("pid"))
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        drop(stream);
        let proc_entry = format!("/proc/{pid}");
        assert!(
            !Path::new(&proc_entry).exists(),
            "the command still runs after its stream was dropped"
        );
        std::fs::remove_dir_all(&folder).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn endless_output_is_capped() {
        let error = Invocation::new("sh", "")
            .args(["-c", "head -c 6000000 /dev/zero"])
            .run(Path::new("."))
            .unwrap_err();
        assert!(error.to_string().contains("more than 4 MiB"), "{error}");
    }
}
