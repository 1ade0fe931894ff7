//! The kiln's index of the generated vault, checked against the vault's
//! manifest: every note once, the hostile ones with their problems, links as
//! written and resolved, backlinks, and nothing mined from code or comments.

#[path = "fixtures/vault.rs"]
mod vault;

use quire_fs::Workspace;
use quire_grammar::markdown::Wikilink;
use quire_kiln::{KilnIndex, NotePath};

fn build(notes: usize) -> (tempfile::TempDir, vault::Manifest, KilnIndex) {
    let (dir, root, manifest) = vault::temporary(notes);
    let index = KilnIndex::build(&Workspace::new(&root).unwrap()).unwrap();
    (dir, manifest, index)
}

/// A wikilink as written between its brackets.
fn written(link: &Wikilink) -> String {
    let mut text = link.target.clone();
    if let Some(heading) = &link.heading {
        text.push('#');
        text.push_str(heading);
    }
    if let Some(block) = &link.block {
        text.push_str("#^");
        text.push_str(block);
    }
    if let Some(alias) = &link.alias {
        text.push('|');
        text.push_str(alias);
    }
    text
}

#[test]
fn every_note_is_indexed_once_with_its_problems() {
    let (_dir, manifest, index) = build(1_200);
    let paths: Vec<&str> = index.notes().map(|note| note.path.as_str()).collect();
    assert_eq!(paths, manifest.notes);
    for note in index.notes() {
        let broken = manifest.broken_yaml.contains(&note.path.to_string());
        let latin1 = manifest.invalid_utf8.contains(&note.path.to_string());
        assert_eq!(
            note.problems.is_empty(),
            !broken && !latin1,
            "{}: {:?}",
            note.path,
            note.problems
        );
        if latin1 {
            assert!(
                note.problems[0].contains("not UTF-8"),
                "{:?}",
                note.problems
            );
        }
        if broken {
            assert!(note.facts.frontmatter.is_none());
            assert!(
                note.facts.word_count > 0,
                "the rest of a broken note is read"
            );
        }
        assert_eq!(
            note.stat.size,
            std::fs::metadata(_dir.path().join("vault").join(&note.on_disk))
                .unwrap()
                .len()
        );
    }
    assert!(
        index
            .skipped()
            .iter()
            .any(|skipped| skipped.starts_with(&manifest.link_out))
    );
}

#[test]
fn links_are_read_as_written_and_resolved_with_backlinks() {
    let (_dir, manifest, index) = build(1_200);
    let mut checked = 0;
    for note in index.notes() {
        let Some(expected) = manifest.wikilinks.get(note.path.as_str()) else {
            continue;
        };
        if manifest.invalid_utf8.contains(&note.path.to_string()) {
            continue;
        }
        let found: Vec<String> = note.facts.wikilinks.iter().map(written).collect();
        assert_eq!(&found, expected, "{}", note.path);
        assert_eq!(
            note.links.len(),
            note.facts.wikilinks.len() + note.facts.markdown_links.len()
        );
        for link in &note.links {
            let target = link
                .path
                .as_ref()
                .unwrap_or_else(|| panic!("{}: {} does not resolve", note.path, link.target));
            assert_eq!(
                link.ambiguous,
                link.target == "Index",
                "{}: {}",
                note.path,
                link.target
            );
            if target != &note.path {
                assert!(index.backlinks(target).any(|source| source == &note.path));
            }
            checked += 1;
        }
    }
    assert!(checked > 1_000, "{checked} links checked");
    // Every backlink is a link of its source.
    for note in index.notes() {
        for source in index.backlinks(&note.path) {
            let source = index.get(source).unwrap();
            assert!(
                source
                    .links
                    .iter()
                    .any(|link| link.path.as_ref() == Some(&note.path))
            );
        }
    }
}

#[test]
fn nothing_is_mined_from_code_or_comments_and_nothing_from_outside() {
    let (_dir, manifest, index) = build(600);
    for note in index.notes() {
        assert!(
            !note
                .facts
                .tags
                .iter()
                .any(|tag| tag == "codetag" || tag == "commenttag"),
            "{}: {:?}",
            note.path,
            note.facts.tags
        );
        assert!(
            !note
                .facts
                .wikilinks
                .iter()
                .any(|link| link.target == "CodeLink"),
            "{}",
            note.path
        );
    }
    let secret = NotePath::parse_relative(&format!("{}/Secret.md", manifest.link_out)).unwrap();
    assert!(index.get(&secret).is_none());
    let tagged = index
        .notes()
        .filter(|note| {
            note.facts
                .tags
                .iter()
                .any(|tag| tag.eq_ignore_ascii_case("project"))
        })
        .count();
    assert!(tagged >= manifest.tag_counts["project"], "{tagged}");
}
