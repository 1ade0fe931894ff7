//! `text_search` on the generated vault (checked against the manifest and
//! against a plain reading of every note with `std::fs`) and on small
//! hand-made vaults with the traps real ones hold: links in and out, link
//! loops, CRLF, Latin-1, minified one-line files, edits made between calls,
//! an index still being built.

#[path = "fixtures/vault.rs"]
mod vault;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use quire_fs::Workspace;
use quire_kiln::{
    CaseMode, FolderPath, KilnTools, SearchMatch, TextSearch, TextSearchRequest, TruncatedReason,
    search_text,
};
use unicode_normalization::UnicodeNormalization;

fn search(root: &Path, folder: &str, request: &TextSearchRequest) -> TextSearch {
    let workspace = Workspace::new(root).unwrap();
    let folder = FolderPath::parse_relative(folder).unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    search_text(&workspace, &folder, request, deadline).unwrap()
}

fn request(query: &str) -> TextSearchRequest {
    TextSearchRequest {
        limit: 1_000,
        answer_bytes: None,
        ..TextSearchRequest::new(query)
    }
}

/// Every note's lines, read plainly: NFC path -> lines (lossy, without
/// line endings). Hidden folders and links are left out, as the kiln does.
fn read_plainly(root: &Path, folder: &Path, notes: &mut BTreeMap<String, Vec<String>>) {
    for entry in std::fs::read_dir(folder).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        let kind = entry.file_type().unwrap();
        if name.starts_with('.') || kind.is_symlink() {
            continue;
        }
        if kind.is_dir() {
            read_plainly(root, &entry.path(), notes);
        } else if name.ends_with(".md") {
            let bytes = std::fs::read(entry.path()).unwrap();
            let text = String::from_utf8_lossy(&bytes);
            let lines = text
                .split_terminator('\n')
                .map(|line| line.strip_suffix('\r').unwrap_or(line).to_owned())
                .collect();
            let relative = entry
                .path()
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .nfc()
                .collect();
            notes.insert(relative, lines);
        }
    }
}

#[test]
fn the_answer_is_what_a_plain_reading_of_every_note_finds() {
    let (_dir, root, manifest) = vault::temporary(1_200);
    let mut notes = BTreeMap::new();
    read_plainly(&root, &root, &mut notes);
    assert_eq!(notes.keys().cloned().collect::<Vec<_>>(), manifest.notes);
    for (query, case, context) in [
        ("quickly", CaseMode::Smart, 2),
        ("Café", CaseMode::Sensitive, 1),
        ("中文笔记", CaseMode::Insensitive, 3),
        ("🚀", CaseMode::Smart, 0),
    ] {
        let answer = search(
            &root,
            "",
            &TextSearchRequest {
                case,
                context_lines: context,
                ..request(query)
            },
        );
        let folded = |line: &str| {
            if case == CaseMode::Sensitive {
                line.to_owned()
            } else {
                line.to_lowercase()
            }
        };
        let mut expected: Vec<SearchMatch> = Vec::new();
        for (path, lines) in &notes {
            let hits: Vec<usize> = (0..lines.len())
                .filter(|&n| folded(&lines[n]).contains(&folded(query)))
                .collect();
            for &n in &hits {
                let before = (n.saturating_sub(context)..n)
                    .rev()
                    .take_while(|m| !hits.contains(m))
                    .collect::<Vec<_>>();
                let after =
                    (n + 1..(n + 1 + context).min(lines.len())).take_while(|m| !hits.contains(m));
                expected.push(SearchMatch {
                    path: path.clone(),
                    line_number: n as u64 + 1,
                    line: lines[n].clone(),
                    before: before.into_iter().rev().map(|m| lines[m].clone()).collect(),
                    after: after.map(|m| lines[m].clone()).collect(),
                });
            }
        }
        assert!(expected.len() > 20, "{query}: {} matches", expected.len());
        assert_eq!(answer.total_matches, expected.len(), "{query}");
        assert_eq!(answer.files_searched, manifest.notes.len());
        let shown = expected.len().min(1_000);
        assert_eq!(answer.matches.len(), shown);
        for (found, wanted) in answer.matches.iter().zip(&expected) {
            assert_eq!(found, wanted, "{query}");
        }
        assert_eq!(answer.truncated, expected.len() > 1_000);
    }
}

#[test]
fn every_note_is_searched_and_nothing_hidden_or_outside_is() {
    let (_dir, root, manifest) = vault::temporary(1_200);
    let marker = search(&root, "", &request(manifest.code_only_marker));
    let readable: Vec<&String> = manifest
        .notes
        .iter()
        .filter(|note| !manifest.invalid_utf8.contains(note))
        .collect();
    assert_eq!(marker.total_matches, readable.len());
    assert_eq!(
        (marker.files_searched, marker.files_skipped),
        (manifest.notes.len(), 0)
    );
    assert_eq!(marker.truncated_reason, Some(TruncatedReason::Limit));
    let paths: Vec<&String> = marker.matches.iter().map(|m| &m.path).collect();
    assert_eq!(paths, readable[..1_000]);
    for query in [
        manifest.secret_marker,
        "Never listed",
        "In the trash",
        "refs/heads",
        "# State",
    ] {
        let answer = search(&root, "", &request(query));
        assert_eq!(
            answer.total_matches, 0,
            "{query} was found: {:?}",
            answer.matches
        );
    }
    // The NFD names come back NFC.
    for nfd in manifest.nfd_names.iter().take(5) {
        let stem = nfd.rsplit('/').next().unwrap().trim_end_matches(".md");
        let answer = search(&root, "", &request(&format!("# {stem}")));
        assert!(
            answer.matches.iter().any(|m| &m.path == nfd),
            "{nfd}: {:?}",
            answer.matches
        );
    }
    // Latin-1 notes are searched, shown lossily.
    let latin1 = search(
        &root,
        "",
        &TextSearchRequest {
            context_lines: 2,
            ..request("old editor")
        },
    );
    let paths: Vec<&String> = latin1.matches.iter().map(|m| &m.path).collect();
    assert_eq!(paths, manifest.invalid_utf8.iter().collect::<Vec<_>>());
    assert_eq!(latin1.matches[0].before, ["# Caf\u{FFFD}", ""]);
    // CRLF notes show no `\r`.
    let common = search(
        &root,
        "",
        &TextSearchRequest {
            context_lines: 10,
            ..request("the")
        },
    );
    assert!(
        common.matches.iter().all(|m| !m.line.contains('\r')
            && m.before.iter().chain(&m.after).all(|l| !l.contains('\r')))
    );
}

#[test]
fn a_folder_holds_the_search_to_its_notes() {
    let (_dir, root, manifest) = vault::temporary(400);
    for folder in ["日本語のノート", "archive/old projects", "projects"] {
        let answer = search(&root, folder, &request(manifest.code_only_marker));
        let inside: Vec<&String> = manifest
            .notes
            .iter()
            .filter(|note| {
                note.starts_with(&format!("{folder}/")) && !manifest.invalid_utf8.contains(note)
            })
            .collect();
        assert_eq!(
            answer.matches.iter().map(|m| &m.path).collect::<Vec<_>>(),
            inside,
            "{folder}"
        );
    }
}

fn vault_of(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let file = dir.path().join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, text).unwrap();
    }
    dir
}

#[test]
fn links_inside_are_followed_once_and_loops_end() {
    let dir = vault_of(&[("real/a.md", "needle\n")]);
    std::os::unix::fs::symlink("real", dir.path().join("linked")).unwrap();
    std::os::unix::fs::symlink("..", dir.path().join("real/up")).unwrap();
    std::os::unix::fs::symlink("loop.md", dir.path().join("loop.md")).unwrap();
    let answer = search(dir.path(), "", &request("needle"));
    let paths: Vec<&str> = answer.matches.iter().map(|m| m.path.as_str()).collect();
    assert_eq!(paths, ["real/a.md"]);
    assert_eq!(answer.files_skipped, 1, "{:?}", answer.skipped);
    assert!(
        answer.skipped[0].reason.contains("loops"),
        "{:?}",
        answer.skipped
    );
    // Through the link's own path when asked.
    let linked = search(dir.path(), "linked", &request("needle"));
    assert_eq!(linked.matches[0].path, "linked/a.md");
}

#[test]
fn a_minified_one_line_note_cannot_blow_up_the_answer() {
    let line = format!(
        "{}needle{}",
        "{\"k\":1},".repeat(600_000),
        "x".repeat(4_000_000)
    );
    let dir = vault_of(&[("min.md", &line), ("small.md", "needle\n")]);
    let answer = search(dir.path(), "", &request("needle"));
    assert_eq!(answer.total_matches, 2);
    // The answer as a client receives it stays small: tested in quire-cli
    // (`mcp/kiln_types/search.rs`), where it is made JSON.
    assert!(answer.matches[0].line.contains("needle"));
}

#[test]
fn unicode_case_folds_and_anchors_see_crlf_lines() {
    let dir = vault_of(&[("u.md", "CAFÉ au lait\r\ncafé noir\r\nΣίσυφος\r\n")]);
    let insensitive = search(
        dir.path(),
        "",
        &TextSearchRequest {
            case: CaseMode::Insensitive,
            ..request("café")
        },
    );
    assert_eq!(insensitive.total_matches, 2);
    assert_eq!(search(dir.path(), "", &request("σίσυφος")).total_matches, 1);
    let anchored = search(
        dir.path(),
        "",
        &TextSearchRequest {
            regex: true,
            ..request(r"^caf\w+ noir$")
        },
    );
    assert_eq!(anchored.matches[0].line, "café noir");
}

#[test]
fn the_tool_sees_edits_at_once_and_answers_while_the_index_builds() {
    let dir = tempfile::tempdir().unwrap();
    for n in 0..1_500 {
        std::fs::write(
            dir.path().join(format!("n{n:04}.md")),
            format!("# {n}\n[[n{}]] #t\n", n + 1),
        )
        .unwrap();
    }
    std::fs::write(dir.path().join("plan.md"), "old text\n").unwrap();
    let tools = KilnTools::new(Workspace::new(dir.path()).unwrap());
    tools.start_indexing();
    let first = tools.text_search(&request("old text")).unwrap();
    assert_eq!(first.matches[0].path, "plan.md");
    std::fs::write(dir.path().join("plan.md"), "new text\n").unwrap();
    assert_eq!(
        tools
            .text_search(&request("old text"))
            .unwrap()
            .total_matches,
        0
    );
    assert_eq!(
        tools
            .text_search(&request("new text"))
            .unwrap()
            .total_matches,
        1
    );

    let folder = |folder: &str| TextSearchRequest {
        folder: Some(folder.to_owned()),
        ..request("x")
    };
    for (bad, expected) in [
        ("../x", "climbs above"),
        (".obsidian", "hidden"),
        ("C:\\x", "drive"),
    ] {
        let error = tools.text_search(&folder(bad)).unwrap_err();
        assert!(
            error.is_invalid() && error.to_string().contains(expected),
            "{error}"
        );
    }
    assert!(
        tools
            .text_search(&folder("nowhere"))
            .unwrap_err()
            .is_not_found()
    );

    // Out of time: what was found, and why it is short.
    let hurried = tools
        .with_budget(Duration::ZERO)
        .text_search(&request("#"))
        .unwrap();
    assert_eq!(hurried.truncated_reason, Some(TruncatedReason::Time));
    assert!(hurried.files_searched < 1_501);
}
