//! The semantic index over a small vault on disk, end to end with the
//! test-only hashing embedder: built, saved in `.quire/`, loaded back, and
//! refreshed so that only a changed note is embedded again and a removed
//! one is forgotten; hidden folders never indexed; a damaged, foreign or
//! escaping index file never used.

#[path = "support/hashing_embedder.rs"]
mod hashing_embedder;

use std::fs;
use std::path::Path;

use hashing_embedder::HashingEmbedder;
use quire_embed::Embedder;
use quire_fs::{FsError, Workspace};
use quire_kiln::{
    ChunkOptions, INDEX_FOLDER, SemanticError, SemanticIndex, chunk_note, index_file_name, refresh,
};

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn vault() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "sailing.md",
        "# Sailing\nboats wind harbour\n## Knots\nbowline cleat hitch\n",
    );
    write(
        root,
        "garden/tomatoes.md",
        "---\ntitle: Tomatoes\n---\n# Care\nwater sun compost\n",
    );
    write(root, "bread.md", "Flour, water, salt and yeast.\n");
    // Hidden folders hold no notes the index reads.
    write(root, ".quire/planted.md", "# Planted\nboats wind harbour\n");
    write(root, ".trash/old.md", "# Old\nboats\n");
    write(root, ".obsidian/notes.md", "# Config\nboats\n");
    dir
}

fn chunk_total(workspace: &Workspace, paths: &[&str]) -> usize {
    paths
        .iter()
        .map(|path| {
            let text = workspace.read_to_string(path, 1 << 20).unwrap();
            chunk_note(path, &text, &ChunkOptions::default()).len()
        })
        .sum()
}

fn query(text: &str) -> Vec<f32> {
    HashingEmbedder::new().embed(&[text]).unwrap().remove(0)
}

fn top(index: &SemanticIndex, text: &str) -> Vec<String> {
    index
        .search(&query(text), 10, |_| true)
        .unwrap()
        .into_iter()
        .map(|hit| hit.path)
        .collect()
}

#[test]
fn built_saved_reloaded_and_refreshed_incrementally() {
    let dir = vault();
    let workspace = Workspace::new(dir.path()).unwrap();
    let options = ChunkOptions::default();
    let embedder = HashingEmbedder::new();

    let mut index = SemanticIndex::load(&workspace, embedder.id(), embedder.dimension()).unwrap();
    assert_eq!(index.note_count(), 0, "no file yet: an empty index");
    let report = refresh(&workspace, &embedder, &mut index, &options).unwrap();
    let notes = ["sailing.md", "garden/tomatoes.md", "bread.md"];
    assert_eq!(
        report.notes_seen, 3,
        "hidden folders are not walked: {report:?}"
    );
    assert_eq!(report.notes_embedded, 3);
    let chunks = chunk_total(&workspace, &notes);
    assert_eq!((report.chunks_embedded, embedder.count()), (chunks, chunks));
    let mut paths: Vec<_> = index.paths().collect();
    paths.sort();
    assert_eq!(paths, ["bread.md", "garden/tomatoes.md", "sailing.md"]);
    let hits = index
        .search(&query("bowline cleat hitch"), 3, |_| true)
        .unwrap();
    assert_eq!(hits[0].path, "sailing.md");
    assert_eq!(hits[0].heading_path, "# Sailing > ## Knots");
    assert_eq!(hits[0].snippet, "## Knots bowline cleat hitch");

    index.save(&workspace).unwrap();
    let file = dir
        .path()
        .join(INDEX_FOLDER)
        .join(index_file_name(embedder.id()));
    assert!(file.is_file());

    // Reloaded: the same index, and nothing embedded again.
    let again = HashingEmbedder::new();
    let mut loaded = SemanticIndex::load(&workspace, again.id(), again.dimension()).unwrap();
    assert_eq!(top(&loaded, "compost sun"), top(&index, "compost sun"));
    let report = refresh(&workspace, &again, &mut loaded, &options).unwrap();
    assert_eq!((report.notes_embedded, again.count()), (0, 0), "{report:?}");
    // Saving again replaces the file in place.
    loaded.save(&workspace).unwrap();

    // One note changed: only its chunks are embedded.
    write(
        dir.path(),
        "bread.md",
        "# Bread\nsourdough starter\n## Oven\nsteam crust\n",
    );
    let report = refresh(&workspace, &again, &mut loaded, &options).unwrap();
    assert_eq!(report.notes_embedded, 1, "{report:?}");
    assert_eq!(again.count(), 2, "the two chunks of bread.md, nothing else");
    assert_eq!(top(&loaded, "steam crust")[0], "bread.md");

    // One note removed: gone from results, and from the saved file.
    fs::remove_file(dir.path().join("sailing.md")).unwrap();
    let report = refresh(&workspace, &again, &mut loaded, &options).unwrap();
    assert_eq!((report.notes_removed, report.notes_embedded), (1, 0));
    assert!(!top(&loaded, "bowline cleat").contains(&"sailing.md".to_owned()));
    loaded.save(&workspace).unwrap();
    let reloaded = SemanticIndex::load(&workspace, again.id(), again.dimension()).unwrap();
    assert_eq!(reloaded.note_count(), 2);
    assert_eq!(reloaded.note_sha("sailing.md"), None);
    assert!(reloaded.note_sha("bread.md").is_some());
}

#[test]
fn an_index_from_another_embedder_or_damaged_is_rebuilt() {
    let dir = vault();
    let workspace = Workspace::new(dir.path()).unwrap();
    let embedder = HashingEmbedder::new();
    let mut index = SemanticIndex::new(embedder.id(), embedder.dimension());
    refresh(&workspace, &embedder, &mut index, &ChunkOptions::default()).unwrap();
    index.save(&workspace).unwrap();

    // Same id, other dimension: typed, and load_or_new starts afresh.
    let error = SemanticIndex::load(&workspace, embedder.id(), 384).unwrap_err();
    assert!(
        matches!(
            error,
            SemanticError::OtherEmbedder {
                found_dimension: 64,
                wanted_dimension: 384,
                ..
            }
        ),
        "{error}"
    );
    assert!(error.to_string().contains("rebuilt"), "{error}");
    let (fresh, why) = SemanticIndex::load_or_new(&workspace, embedder.id(), 384);
    assert_eq!((fresh.note_count(), fresh.dimension()), (0, 384));
    assert!(why.is_some());

    // A refresh with another embedder than the index's is refused.
    let mut other = SemanticIndex::new("another", 64);
    let error = refresh(&workspace, &embedder, &mut other, &ChunkOptions::default()).unwrap_err();
    assert!(
        matches!(error, SemanticError::OtherEmbedder { .. }),
        "{error}"
    );

    // Truncated on disk: a typed error naming the file, never a panic.
    let file = dir
        .path()
        .join(INDEX_FOLDER)
        .join(index_file_name(embedder.id()));
    let bytes = fs::read(&file).unwrap();
    fs::write(&file, &bytes[..bytes.len() / 2]).unwrap();
    let error = SemanticIndex::load(&workspace, embedder.id(), 64).unwrap_err();
    assert!(matches!(error, SemanticError::Corrupt { .. }), "{error}");
    assert!(
        error
            .to_string()
            .contains(".quire/semantic-test-hashing-64.idx"),
        "{error}"
    );
    let (fresh, why) = SemanticIndex::load_or_new(&workspace, embedder.id(), 64);
    assert_eq!(fresh.note_count(), 0);
    assert!(matches!(why, Some(SemanticError::Corrupt { .. })));
}

#[test]
fn the_index_folder_never_leads_out_of_the_root() {
    let outside = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.md", "# A\nwords\n");
    std::os::unix::fs::symlink(outside.path(), dir.path().join(INDEX_FOLDER)).unwrap();
    let workspace = Workspace::new(dir.path()).unwrap();
    let embedder = HashingEmbedder::new();
    let mut index = SemanticIndex::new(embedder.id(), embedder.dimension());
    refresh(&workspace, &embedder, &mut index, &ChunkOptions::default()).unwrap();
    let error = index.save(&workspace).unwrap_err();
    assert!(
        matches!(error, SemanticError::Fs(FsError::Outside { .. })),
        "{error}"
    );
    assert_eq!(
        fs::read_dir(outside.path()).unwrap().count(),
        0,
        "nothing written outside"
    );
    // Nor is an index planted outside read through the link.
    let planted = outside.path().join(index_file_name(embedder.id()));
    fs::write(&planted, index.to_bytes()).unwrap();
    let error = SemanticIndex::load(&workspace, embedder.id(), 64).unwrap_err();
    assert!(
        matches!(error, SemanticError::Fs(FsError::Outside { .. })),
        "{error}"
    );
}

#[test]
fn hostile_notes_are_skipped_and_reported_never_indexed() {
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.md", "# Secret\nboats\n");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "good.md", "# Good\nboats\n");
    fs::write(root.join("latin1.md"), b"# Caf\xe9\nboats\n").unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.md"), root.join("link.md")).unwrap();
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        root.join("pipe.md"),
        rustix::fs::Mode::from_raw_mode(0o644),
    )
    .unwrap();
    let workspace = Workspace::new(root).unwrap();
    let embedder = HashingEmbedder::new();
    let mut index = SemanticIndex::new(embedder.id(), embedder.dimension());
    let report = refresh(&workspace, &embedder, &mut index, &ChunkOptions::default()).unwrap();
    let paths: Vec<_> = index.paths().collect();
    assert_eq!(paths, ["good.md"], "{report:?}");
    let skipped = report.skipped.join("\n");
    for name in ["latin1.md", "link.md", "pipe.md"] {
        assert!(skipped.contains(name), "{name} not reported: {skipped}");
    }
}
