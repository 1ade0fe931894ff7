//! The generated vault of `tests/fixtures/vault.rs` is what its manifest
//! says: the kiln's tests and benches check their answers against the
//! manifest, so the manifest itself is checked here against the files.

#[path = "fixtures/vault.rs"]
mod vault;

use std::collections::BTreeSet;
use std::path::Path;

use unicode_normalization::UnicodeNormalization;

/// Every file beneath `root`, root-relative and NFC, not following links.
fn files(root: &Path, folder: &Path, found: &mut BTreeSet<String>) {
    for entry in std::fs::read_dir(folder).unwrap() {
        let entry = entry.unwrap();
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            files(root, &entry.path(), found);
        } else if kind.is_file() {
            let relative = entry
                .path()
                .strip_prefix(root)
                .unwrap()
                .to_str()
                .unwrap()
                .nfc()
                .collect();
            found.insert(relative);
        }
    }
}

/// Where `note` (as the manifest names it) is on disk beneath `root`.
fn on_disk(root: &Path, manifest: &vault::Manifest, note: &str) -> std::path::PathBuf {
    if manifest.nfd_names.iter().any(|nfd| nfd == note) {
        root.join(note.nfd().collect::<String>())
    } else {
        root.join(note)
    }
}

#[test]
fn the_manifest_lists_exactly_the_visible_notes_on_disk() {
    let (_dir, root, manifest) = vault::temporary(600);

    let mut found = BTreeSet::new();
    files(&root, &root, &mut found);
    let hidden: BTreeSet<String> = manifest.hidden.iter().cloned().collect();
    let visible: Vec<String> = found.difference(&hidden).cloned().collect();
    assert_eq!(visible, manifest.notes);
    assert!(hidden.is_subset(&found));
    assert!(
        found.iter().all(|path| !path.starts_with("Linked out")),
        "the link out is not walked"
    );

    let sizes: u64 = manifest
        .notes
        .iter()
        .map(|note| {
            std::fs::metadata(on_disk(&root, &manifest, note))
                .unwrap()
                .len()
        })
        .sum();
    assert_eq!(sizes, manifest.total_size);
}

#[test]
fn the_hostile_parts_are_there() {
    let (_dir, root, manifest) = vault::temporary(1_000);

    for nfd in &manifest.nfd_names {
        let decomposed: String = nfd.nfd().collect();
        assert_ne!(&decomposed, nfd);
        assert!(
            root.join(&decomposed).is_file(),
            "{decomposed:?} is written NFD"
        );
    }
    assert!(!manifest.nfd_names.is_empty());
    for broken in &manifest.broken_yaml {
        let text = std::fs::read_to_string(on_disk(&root, &manifest, broken)).unwrap();
        assert!(text.starts_with("---\ntitle: [unclosed"), "{broken}");
    }
    assert!(!manifest.broken_yaml.is_empty());
    for latin1 in &manifest.invalid_utf8 {
        let bytes = std::fs::read(on_disk(&root, &manifest, latin1)).unwrap();
        assert!(std::str::from_utf8(&bytes).is_err(), "{latin1}");
    }
    assert!(!manifest.invalid_utf8.is_empty());
    assert_eq!(manifest.duplicate_stems, ["index"]);
    let secret = std::fs::read_to_string(root.join(&manifest.link_out).join("Secret.md")).unwrap();
    assert!(
        secret.contains(manifest.secret_marker),
        "the link out reaches the secret"
    );
    assert_eq!(
        std::fs::canonicalize(root.join(&manifest.link_out).join("Secret.md")).unwrap(),
        std::fs::canonicalize(&manifest.outside_secret).unwrap()
    );
    let tagged: usize = manifest.tag_counts.values().sum();
    assert!(
        tagged >= manifest.notes.len() / 2,
        "most notes carry frontmatter tags"
    );
    let crlf = manifest
        .notes
        .iter()
        .filter(|note| {
            std::fs::read(on_disk(&root, &manifest, note))
                .unwrap()
                .windows(2)
                .any(|w| w == b"\r\n")
        })
        .count();
    assert!(crlf > 0, "some notes have CRLF line endings");
}

#[test]
fn the_same_spec_writes_the_same_vault_and_another_seed_another() {
    let write = |spec: &vault::VaultSpec| {
        let dir = tempfile::tempdir().unwrap();
        let manifest = vault::generate(dir.path(), spec).unwrap();
        let contents: Vec<Vec<u8>> = manifest
            .notes
            .iter()
            .map(|note| std::fs::read(on_disk(dir.path(), &manifest, note)).unwrap())
            .collect();
        (manifest.notes, contents)
    };
    let spec = vault::VaultSpec::with_notes(200);
    assert_eq!(write(&spec), write(&spec));
    let other = write(&vault::VaultSpec {
        seed: 7,
        ..spec.clone()
    });
    assert_eq!(other.0.len(), 200);
    assert_ne!(other, write(&spec));
}
