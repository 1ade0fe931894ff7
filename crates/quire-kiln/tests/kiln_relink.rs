//! The index kept up to date note by note (`sync_file` then `relink`, as
//! the live index does for each change seen on disk) against the index
//! built afresh from the same files: after any sequence of notes written,
//! rewritten and deleted, every note's links, where they lead, whether they
//! are ambiguous, and every backlink are the same.

use std::fs;

use proptest::prelude::*;
use quire_fs::Workspace;
use quire_kiln::{KilnIndex, NotePath};

/// Where notes may be: stems shared across folders and cases, so links
/// are ambiguous, shadowed and freed as notes come and go.
const NOTES: [&str; 7] = [
    "a.md",
    "x/a.md",
    "y/A.md",
    "x/b.md",
    "y/deep/b.md",
    "c.md",
    "x/c d.md",
];

/// What a link may name: bare stems, paths, relative paths, headings,
/// aliases, an extension, one that never resolves.
const TARGETS: [&str; 14] = [
    "a",
    "A",
    "b",
    "x/a",
    "y/a",
    "../a",
    "./b",
    "c.md",
    "deep/b",
    "c d",
    "a#Heading",
    "b|alias",
    "Nowhere",
    "x/c d",
];

/// One link: its target as written, the note it leads to, whether it is
/// ambiguous.
type Link = (String, Option<String>, bool);

/// Every note with its links and its backlinks.
fn links_of(index: &KilnIndex) -> Vec<(String, Vec<Link>, Vec<String>)> {
    index
        .notes()
        .map(|note| {
            let links = note
                .links
                .iter()
                .map(|link| {
                    (
                        link.target.clone(),
                        link.path.as_ref().map(ToString::to_string),
                        link.ambiguous,
                    )
                })
                .collect();
            let backlinks = index
                .backlinks(&note.path)
                .map(ToString::to_string)
                .collect();
            (note.path.to_string(), links, backlinks)
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn updating_note_by_note_gives_the_index_a_fresh_build_gives(
        steps in prop::collection::vec(
            (0..NOTES.len(), prop::option::weighted(0.75, prop::collection::vec(0..TARGETS.len(), 0..4))),
            1..14,
        )
    ) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let workspace = Workspace::new(root).unwrap();
        let mut index = KilnIndex::build(&workspace).unwrap();
        for (step, (note, links)) in steps.into_iter().enumerate() {
            let path = NOTES[note];
            match links {
                Some(links) => {
                    let text: String = links
                        .iter()
                        .map(|&target| format!("[[{}]] ", TARGETS[target]))
                        .chain([format!("step {step}\n")])
                        .collect();
                    let file = root.join(path);
                    fs::create_dir_all(file.parent().unwrap()).unwrap();
                    fs::write(&file, text).unwrap();
                }
                None => {
                    let _ = fs::remove_file(root.join(path));
                }
            }
            index.sync_file(&workspace, path);
            index.relink();
            let fresh = KilnIndex::build(&workspace).unwrap();
            prop_assert_eq!(links_of(&index), links_of(&fresh), "after step {} ({})", step, path);
            let stem = NotePath::parse_relative(path).unwrap();
            prop_assert_eq!(index.get(&stem).is_some(), fresh.get(&stem).is_some());
        }
    }
}
