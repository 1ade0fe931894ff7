//! The grammar crate's dependency claims, kept true: `quire-grammar` is
//! text in, no files, no async, no MCP, so a build for the commit hook
//! alone compiles a small tree. `cargo tree` says what the crate depends
//! on (normal dependencies, as a user's build compiles them); this test
//! fails when a change makes the tree larger than the budget or brings in a
//! crate that belongs to the binary or the file layer.

use std::collections::BTreeSet;
use std::process::Command;

/// The most crates `cargo tree -p quire-grammar -e normal` may list with
/// the default features, quire-grammar itself included.
const BUDGET: usize = 25;

/// Crates the grammar must never depend on, with any feature: the command
/// line's (clap, anyhow), async and MCP (tokio, rmcp, schemars), files
/// (rustix, quire-fs) and test helpers (tempfile).
const FORBIDDEN: [&str; 8] = [
    "clap", "anyhow", "tempfile", "tokio", "rmcp", "schemars", "rustix", "quire-fs",
];

/// Every crate (`name vX.Y.Z`) in the grammar's normal dependency tree,
/// with `features` given to `cargo tree`.
fn dependency_tree(features: &[&str]) -> BTreeSet<String> {
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    let output = Command::new(env!("CARGO"))
        .args(["tree", "--manifest-path", manifest, "-p", "quire-grammar"])
        .args(["-e", "normal", "--prefix", "none", "--offline"])
        .args(features)
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let listing = String::from_utf8(output.stdout).expect("cargo tree prints UTF-8");
    listing
        .lines()
        .filter_map(|line| {
            // `serde v1.0.228`, `serde_derive v1.0.228 (proc-macro)`,
            // `quire-grammar v0.1.0 (/path)`, each maybe ending `(*)`
            // when listed before: the name and version say which crate.
            let mut words = line.split_whitespace();
            Some(format!("{} {}", words.next()?, words.next()?))
        })
        .collect()
}

fn crate_names(tree: &BTreeSet<String>) -> BTreeSet<&str> {
    tree.iter()
        .filter_map(|package| package.split(' ').next())
        .collect()
}

#[test]
fn the_grammar_depends_on_at_most_its_budget_of_crates() {
    let tree = dependency_tree(&[]);
    assert!(
        crate_names(&tree).contains("quire-grammar"),
        "the listing is not the grammar's: {tree:#?}"
    );
    assert!(
        tree.len() <= BUDGET,
        "quire-grammar depends on {} crates (itself included), more than its budget of {BUDGET}: {tree:#?}",
        tree.len()
    );
}

#[test]
fn the_grammar_depends_on_nothing_of_the_binary_or_the_file_layer() {
    for features in [&[][..], &["--all-features"][..]] {
        let tree = dependency_tree(features);
        let names = crate_names(&tree);
        let found: Vec<&str> = FORBIDDEN
            .into_iter()
            .filter(|forbidden| names.contains(forbidden))
            .collect();
        assert!(
            found.is_empty(),
            "quire-grammar ({features:?}) depends on {found:?}, which belong to the binary, the file layer or the tests: {tree:#?}"
        );
    }
}
