//! The cold build of the kiln's index over the generated 10,000-note vault
//! (`tests/fixtures/vault.rs`), against the least any index must do in the
//! same run: walking the same folders with `std::fs` and reading every
//! note's bytes, with no parsing and no confinement.
//!
//! ```text
//! cargo bench --bench kiln_index -- --warm-up-time 1 --measurement-time 20
//! ```
//!
//! The target (issue 10): under 1 s on this 2-core machine.

#[path = "../tests/fixtures/vault.rs"]
mod vault;

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use quire::fs::Workspace;
use quire::kiln::KilnIndex;

/// The bytes of every `.md` file beneath `folder`, hidden folders and links
/// skipped: the floor.
fn read_all(folder: &Path) -> usize {
    let mut total = 0;
    for entry in std::fs::read_dir(folder).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            total += read_all(&entry.path());
        } else if kind.is_file() && name.to_string_lossy().ends_with(".md") {
            total += std::fs::read(entry.path()).unwrap().len();
        }
    }
    total
}

fn kiln_index(c: &mut Criterion) {
    let (_dir, root, manifest) = vault::temporary(10_000);
    let workspace = Workspace::new(&root).unwrap();
    assert_eq!(
        KilnIndex::build(&workspace).unwrap().len(),
        manifest.notes.len()
    );
    assert_eq!(read_all(&root) as u64, manifest.total_size);

    let mut group = c.benchmark_group("kiln_index");
    group.sample_size(10);
    group.bench_function("build/10k", |b| {
        b.iter(|| KilnIndex::build(black_box(&workspace)).unwrap())
    });
    group.bench_function("read_all_std_fs/10k", |b| {
        b.iter(|| read_all(black_box(&root)))
    });
    group.finish();
}

criterion_group!(benches, kiln_index);
criterion_main!(benches);
