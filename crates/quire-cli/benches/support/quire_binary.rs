//! The `quire` binary a bench runs as a process: `QUIRE_BIN`, else the one
//! Cargo built for the bench (`CARGO_BIN_EXE_quire`).

use std::path::PathBuf;

/// The binary to measure, for the bench named `bench`; fails with what to
/// do when it is missing.
pub(crate) fn quire_binary(bench: &str) -> PathBuf {
    let (path, origin) = match std::env::var_os("QUIRE_BIN") {
        Some(path) => (PathBuf::from(path), "QUIRE_BIN"),
        None => (
            PathBuf::from(env!("CARGO_BIN_EXE_quire")),
            "CARGO_BIN_EXE_quire (built by Cargo for this bench)",
        ),
    };
    assert!(
        path.is_file(),
        "the quire binary is missing at {} (from {origin}); build it with \
         `cargo build --release --bin quire`, run through `cargo bench --bench {bench}` \
         (which builds it), or point QUIRE_BIN at one",
        path.display()
    );
    path
}
