//! A Task Manager answering with a line that never ends (a chunk-size
//! line, a chunk extension, header lines) cannot make a call hold more
//! memory than its caps. This test is alone in its binary, so the
//! process's peak memory (`VmHWM` in /proc/self/status) is its own.

#![cfg(target_os = "linux")]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::thread;
use std::time::{Duration, Instant};

use quire_nova::{ExecutionPatch, HttpClient, HttpConfig, NovaError, TaskManagerClient};

/// How much the process's peak memory may pass what it held before the
/// calls. The caps are 4 MiB of a success body and 64 KiB of an error
/// body; ureq 2 took 87 MB in 5 s reading a chunk-size line.
const GROWTH_BOUND: u64 = 32 * 1024 * 1024;

/// A `kB` line of /proc/self/status, in bytes.
fn status_bytes(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status
        .lines()
        .find_map(|line| line.strip_prefix(field))
        .unwrap_or_else(|| panic!("no {field} in /proc/self/status"));
    let kilobytes: u64 = line.trim().trim_end_matches("kB").trim().parse().unwrap();
    kilobytes * 1024
}

/// Reads a request's head and body off `stream`.
fn read_request(stream: &mut TcpStream) {
    let mut head = Vec::new();
    let mut byte = [0];
    while !head.ends_with(b"\r\n\r\n") {
        if stream.read(&mut byte).unwrap_or(0) == 0 {
            return;
        }
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head).to_ascii_lowercase();
    let length: usize = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .map_or(0, |length| length.trim().parse().unwrap());
    let mut body = vec![0; length];
    let _ = stream.read_exact(&mut body);
}

/// A Task Manager on 127.0.0.1 that answers one request with `start`, then
/// `repeat` again and again until the client hangs up (or 20 s pass).
fn flooding_server(start: &'static str, repeat: Vec<u8>) -> HttpConfig {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    thread::spawn(move || {
        let Ok((mut stream, _)) = listener.accept() else {
            return;
        };
        read_request(&mut stream);
        if stream.write_all(start.as_bytes()).is_err() {
            return;
        }
        let until = Instant::now() + Duration::from_secs(20);
        while Instant::now() < until && stream.write_all(&repeat).is_ok() {}
    });
    HttpConfig {
        host: "127.0.0.1".to_owned(),
        port,
        timeout: Duration::from_secs(5),
    }
}

#[test]
fn answers_that_never_end_a_line_leave_the_memory_as_it_was() {
    const CHUNKED: &str = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
    let floods: [(&str, &'static str, Vec<u8>); 3] = [
        ("a chunk-size line", CHUNKED, vec![b'f'; 64 * 1024]),
        (
            "a chunk extension",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;",
            vec![b'x'; 64 * 1024],
        ),
        (
            "header lines",
            "HTTP/1.1 200 OK\r\n",
            format!("X-Filler: {}\r\n", "y".repeat(1000))
                .repeat(64)
                .into_bytes(),
        ),
    ];
    let before = status_bytes("VmRSS:");
    for (what, start, repeat) in floods {
        let config = flooding_server(start, repeat);
        let client = HttpClient::new(&config).unwrap();
        let started = Instant::now();
        let patch = ExecutionPatch {
            session_id: Some("s-1".to_owned()),
            worktree_path: None,
        };
        let error = client.update_execution("e-1", &patch).unwrap_err();
        let waited = started.elapsed();
        let peak = status_bytes("VmHWM:");
        assert!(
            peak.saturating_sub(before) < GROWTH_BOUND,
            "{what}: the peak memory grew from {before} to {peak} bytes in {waited:?} ({error})"
        );
        assert!(
            matches!(error, NovaError::InvalidResponse(_)),
            "{what}: {error:?}"
        );
        assert!(waited < Duration::from_secs(2), "{what}: {waited:?}");
    }
}
