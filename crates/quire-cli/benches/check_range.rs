//! Cost of `quire check --range` over a long history, against the cost of
//! `git log` printing the same messages.
//!
//! - `check_range/quire`: `quire check --range HEAD` over a repository of
//!   [`COMMITS`] synthetic commits: one `git log` run, every message parsed
//!   and checked, a report rendered for each invalid one (1 in 100), and the
//!   summary.
//! - `check_range/git_log`: `git log --format=%B HEAD` alone on the same
//!   repository, the floor: reading the history costs at least this.
//!
//! The goal (issue 14): `quire` under 2x `git_log`.
//!
//! The repository is built once per run with `git fast-import` (a second
//! or so), in a temporary folder under Cargo's `CARGO_TARGET_TMPDIR`. Its
//! messages are what real histories hold: Conventional Commits headers with
//! and without scope, bodies of one or two paragraphs, trailers
//! (`Signed-off-by`, `Co-authored-by`, `Refs`), merges' and reverts'
//! messages, and 1% of headers without a type.
//!
//! # The `quire` binary
//!
//! As in `benches/tracker.rs`: the binary Cargo built for this invocation
//! (`CARGO_BIN_EXE_quire`; optimized under `cargo bench`), or
//! `QUIRE_BIN=/path/to/quire` to measure another build.
//!
//! ```text
//! cargo bench --no-default-features --features cli --bench check_range -- --warm-up-time 1 --measurement-time 10
//! cargo test --benches          # each benchmark once, as CI does
//! ```

#[path = "support/quire_binary.rs"]
mod quire_binary;
use quire_binary::quire_binary;

use std::hint::black_box;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};

/// The commits of the synthetic history.
const COMMITS: usize = 10_000;

/// git in `repo`, without the machine's configuration.
fn git(repo: &Path) -> Command {
    let mut command = Command::new("git");
    command
        .current_dir(repo)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "Bench")
        .env("GIT_AUTHOR_EMAIL", "bench@example.com")
        .env("GIT_COMMITTER_NAME", "Bench")
        .env("GIT_COMMITTER_EMAIL", "bench@example.com");
    command
}

/// The message of synthetic commit `index`.
fn message(index: usize) -> String {
    const TYPES: [&str; 8] = [
        "feat", "fix", "docs", "refactor", "test", "perf", "chore", "ci",
    ];
    const SCOPES: [&str; 5] = ["parser", "cli", "store", "kiln", "mcp"];
    let kind = TYPES[index % TYPES.len()];
    let scope = SCOPES[index % SCOPES.len()];
    match index % 100 {
        0 => format!("bad message without type {index}\n"),
        1 => format!("Merge branch 'topic-{index}'\n"),
        2 => format!(
            "Revert \"{kind}({scope}): Change {index}\"\n\nThis reverts commit 0123456789abcdef0123456789abcdef01234567.\n"
        ),
        n if n % 3 == 0 => format!("{kind}({scope}): change number {index}\n"),
        n if n % 3 == 1 => format!(
            "{kind}({scope}): handle case {index}\n\n\
             The old code assumed every input was valid; this one checks\n\
             each value before using it and reports what was wrong.\n\n\
             Signed-off-by: Bench <bench@example.com>\n"
        ),
        _ => format!(
            "{kind}: improve thing {index}\n\n\
             First paragraph of the body, explaining the change at some\n\
             length so that the message is as long as real ones are.\n\n\
             Second paragraph with more detail.\n\n\
             Refs: #{index}\n\
             Co-authored-by: Someone Else <else@example.com>\n"
        ),
    }
}

/// Builds the repository: [`COMMITS`] commits on `main`, each with an
/// empty tree, through one `git fast-import`.
fn build_repository(root: &Path) {
    let status = git(root)
        .args(["init", "-q", "-b", "main"])
        .status()
        .expect("git runs");
    assert!(status.success(), "git init failed");
    let mut stream = Vec::with_capacity(COMMITS * 200);
    for index in 0..COMMITS {
        let message = message(index);
        let time = 1_700_000_000 + index;
        writeln!(stream, "commit refs/heads/main").unwrap();
        writeln!(stream, "mark :{}", index + 1).unwrap();
        writeln!(stream, "committer Bench <bench@example.com> {time} +0000").unwrap();
        writeln!(stream, "data {}", message.len()).unwrap();
        stream.extend_from_slice(message.as_bytes());
        if index > 0 {
            writeln!(stream, "from :{index}").unwrap();
        }
        writeln!(stream).unwrap();
    }
    let mut child = git(root)
        .args(["fast-import", "--quiet"])
        .stdin(Stdio::piped())
        .spawn()
        .expect("git fast-import runs");
    child.stdin.take().unwrap().write_all(&stream).unwrap();
    assert!(child.wait().unwrap().success(), "git fast-import failed");
    let status = git(root).args(["checkout", "-q", "main"]).status().unwrap();
    assert!(status.success());
}

fn check_range(c: &mut Criterion) {
    let temporary = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let root = temporary.path();
    build_repository(root);
    let quire = quire_binary("check_range");

    // Once, outside the measurement: the run checks every commit and fails
    // on the 1% without a type.
    let output = Command::new(&quire)
        .args(["check", "--range", "HEAD"])
        .current_dir(root)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdout(Stdio::null())
        .output()
        .unwrap();
    let summary = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{summary}");
    // How many fail depends on the rules (the plan grammar knows fewer
    // types than Conventional Commits); every commit is read either way.
    let last = summary.lines().last().unwrap_or("");
    let expected = format!("checked {},{:03} commits: ", COMMITS / 1000, COMMITS % 1000);
    assert!(last.starts_with(&expected), "{last}");
    eprintln!("check_range: quire says: {last}");

    let mut group = c.benchmark_group("check_range");
    group.sample_size(10).sampling_mode(SamplingMode::Flat);
    group.bench_function("quire", |b| {
        b.iter(|| {
            let status = Command::new(&quire)
                .args(["check", "--range", "HEAD"])
                .current_dir(root)
                .env("GIT_CONFIG_GLOBAL", "/dev/null")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .unwrap();
            assert_eq!(status.code(), Some(1));
        });
    });
    group.bench_function("git_log", |b| {
        b.iter(|| {
            // Read, as quire reads it (git may skip work for /dev/null).
            let output = git(root)
                .args(["log", "--format=%B", "HEAD"])
                .output()
                .unwrap();
            assert!(output.status.success());
            black_box(output.stdout.len());
        });
    });
    group.finish();
}

criterion_group!(benches, check_range);
criterion_main!(benches);
