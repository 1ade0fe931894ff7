//! `move_note` (issue 28) on the generated 10,000-note vault
//! (`tests/fixtures/vault.rs`): the note with the most backlinks moved to
//! another folder and name, then back (two moves per iteration, each
//! rescanning the root, rewriting every linking note atomically and
//! bringing the index up to date), against the least any move must do in
//! the same run: the same notes read and replaced by hand with `std::fs`
//! (write a sibling, fsync, rename over it) and the note renamed there and
//! back, with no parsing, no locks and no confinement.
//!
//! ```text
//! cargo bench -p quire-kiln --bench kiln_move -- --warm-up-time 1 --measurement-time 20
//! ```

#[path = "../tests/fixtures/vault.rs"]
mod vault;

use std::hint::black_box;
use std::io::Write as _;
use std::path::Path;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use quire_fs::Workspace;
use quire_kiln::{KilnIndex, KilnTools, MoveNoteRequest};

/// Each of `notes` (root-relative) read and replaced atomically by hand,
/// and `from` renamed to `to` (then back, by the caller's next call).
fn rewrite_by_hand(root: &Path, notes: &[String], from: &str, to: &str) {
    for note in notes {
        let path = root.join(note);
        let bytes = std::fs::read(&path).unwrap();
        let staged = path.with_extension("md.staged");
        let mut file = std::fs::File::create(&staged).unwrap();
        file.write_all(&bytes).unwrap();
        file.sync_all().unwrap();
        std::fs::rename(&staged, &path).unwrap();
    }
    std::fs::create_dir_all(root.join(to).parent().unwrap()).unwrap();
    std::fs::rename(root.join(from), root.join(to)).unwrap();
}

fn kiln_move(c: &mut Criterion) {
    let (_dir, root, _manifest) = vault::temporary(10_000);
    let workspace = Workspace::new(&root).unwrap();
    let index = KilnIndex::build(&workspace).unwrap();
    let hub = index
        .notes()
        .max_by_key(|note| index.backlinks(&note.path).count())
        .unwrap();
    let from = hub.path.to_string();
    let linking: Vec<String> = index
        .backlinks(&hub.path)
        .filter_map(|path| index.get(path))
        .map(|note| note.on_disk.clone())
        .collect();
    let to = "moved/elsewhere/Moved hub.md".to_owned();
    eprintln!("moving {from}: {} notes link to it", linking.len());

    // As `quire serve` runs it: a watcher keeps the index fresh.
    let tools = KilnTools::new(Workspace::new(&root).unwrap()).with_budget(Duration::from_secs(60));
    let there = MoveNoteRequest {
        path: from.clone(),
        new_path: to.clone(),
        expected_sha256: None,
    };
    let back = MoveNoteRequest {
        path: to.clone(),
        new_path: from.clone(),
        expected_sha256: None,
    };
    let moved = tools.move_note(&there).unwrap();
    eprintln!(
        "{} links rewritten in {} notes",
        moved.links_changed,
        moved.relinked.len()
    );
    tools.move_note(&back).unwrap();

    let mut group = c.benchmark_group("kiln_move");
    group.sample_size(10);
    group.bench_function("move_note_there_and_back/10k", |b| {
        b.iter(|| {
            black_box(tools.move_note(&there).unwrap());
            black_box(tools.move_note(&back).unwrap());
        })
    });
    group.bench_function("rewrite_by_hand_there_and_back/10k", |b| {
        b.iter(|| {
            rewrite_by_hand(&root, &linking, &from, &to);
            rewrite_by_hand(&root, &linking, &to, &from);
        })
    });
    group.finish();
}

criterion_group!(benches, kiln_move);
criterion_main!(benches);
