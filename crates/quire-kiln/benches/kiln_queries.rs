//! Warm queries on the generated 10,000-note vault (`tests/fixtures/vault.rs`)
//! through [`KilnTools`], the index already built: `read_metadata` of one
//! note, a `list_notes` page (the first and a deep one, by cursor) and
//! `property_search` (a selective and a broad query). Beside them, in the
//! same run, the floors they are measured against: visiting every indexed
//! note, and cloning one note's frontmatter.
//!
//! ```text
//! cargo bench --bench kiln_queries -- --warm-up-time 1 --measurement-time 5
//! ```
//!
//! The target (issue 10): each query under 10 ms.

#[path = "../tests/fixtures/vault.rs"]
mod vault;

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use quire_fs::Workspace;
use quire_kiln::{
    KilnIndex, KilnTools, ListNotesRequest, PropertySearchRequest, ReadMetadataRequest,
};
use serde_json::json;

fn list(cursor: Option<String>, limit: usize) -> ListNotesRequest {
    ListNotesRequest {
        folder: None,
        recursive: true,
        include_frontmatter: false,
        limit,
        cursor,
    }
}

fn search(properties: serde_json::Value) -> PropertySearchRequest {
    PropertySearchRequest::new(properties.as_object().unwrap().clone())
}

fn kiln_queries(c: &mut Criterion) {
    let (_dir, root, manifest) = vault::temporary(10_000);
    let workspace = Workspace::new(&root).unwrap();
    let tools = KilnTools::new(workspace.clone());
    let note = ReadMetadataRequest {
        path: manifest.notes[manifest.notes.len() / 2].clone(),
    };
    // The first call waits for the index: afterwards every call is warm.
    assert!(!tools.read_metadata(&note).unwrap().frontmatter.is_empty());

    // A cursor 9,000 notes in, for the deep page.
    let mut deep = None;
    for _ in 0..9 {
        deep = tools.list_notes(&list(deep, 1_000)).unwrap().next_cursor;
    }
    let first_page = list(None, 200);
    let deep_page = list(deep, 200);
    assert_eq!(tools.list_notes(&deep_page).unwrap().notes.len(), 200);

    // Selective: one date and one priority, a handful of notes. Broad: two
    // tags, nested ones included, over half the vault.
    let selective = search(json!({"created": "2026-03-03", "priority": 3}));
    let broad = search(json!({"tags": ["project", "idea"]}));
    let found = tools.property_search(&selective).unwrap().total;
    assert!((1..100).contains(&found), "{found}");
    let found = tools.property_search(&broad).unwrap().total;
    assert!(found > 5_000, "{found}");

    // The floors, on an index of the same vault.
    let index = KilnIndex::build(&workspace).unwrap();
    let one = index
        .notes()
        .nth(index.len() / 2)
        .and_then(|note| note.facts.frontmatter.as_ref())
        .unwrap();

    let mut group = c.benchmark_group("kiln_queries");
    group.bench_function("read_metadata/one", |b| {
        b.iter(|| tools.read_metadata(black_box(&note)).unwrap())
    });
    group.bench_function("list_notes/first_page_200", |b| {
        b.iter(|| tools.list_notes(black_box(&first_page)).unwrap())
    });
    group.bench_function("list_notes/deep_page_200", |b| {
        b.iter(|| tools.list_notes(black_box(&deep_page)).unwrap())
    });
    group.bench_function("property_search/selective", |b| {
        b.iter(|| tools.property_search(black_box(&selective)).unwrap())
    });
    group.bench_function("property_search/broad", |b| {
        b.iter(|| tools.property_search(black_box(&broad)).unwrap())
    });
    group.bench_function("floor/visit_every_note", |b| {
        b.iter(|| {
            black_box(&index)
                .notes()
                .filter(|note| note.facts.frontmatter.is_some())
                .count()
        })
    });
    group.bench_function("floor/clone_one_frontmatter", |b| {
        b.iter(|| black_box(one).values.clone())
    });
    group.finish();
}

criterion_group!(benches, kiln_queries);
criterion_main!(benches);
