//! The confined walk and the kiln's note paths together, on the generated
//! vault: every note the manifest lists is found once, under its NFC path;
//! nothing hidden and nothing outside is; the link out is reported.

#[path = "fixtures/vault.rs"]
mod vault;

use quire_fs::{SkipReason, WalkEntry, WalkOptions, Workspace};
use quire_kiln::{NotePath, is_hidden};

#[test]
fn the_walk_finds_the_manifests_notes_and_nothing_else() {
    let (_dir, root, manifest) = vault::temporary(2_000);

    let workspace = Workspace::new(&root).unwrap();
    let walk = workspace
        .walk("", WalkOptions::new().extension("md"))
        .unwrap();
    let mut notes = Vec::new();
    let mut skipped = Vec::new();
    for entry in walk {
        match entry {
            WalkEntry::File(file) => {
                assert!(!is_hidden(&file.path), "{}", file.path);
                let note = NotePath::parse_relative(&file.path).unwrap();
                notes.push(note.as_str().to_owned());
            }
            WalkEntry::Skipped { path, reason } => skipped.push((path, reason)),
            other => panic!("unexpected {other:?}"),
        }
    }
    notes.sort();
    assert_eq!(notes, manifest.notes);
    assert_eq!(
        skipped,
        [(manifest.link_out.clone(), SkipReason::LinkOutside)]
    );
}
