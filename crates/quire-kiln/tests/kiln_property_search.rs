//! `property_search` end to end through [`KilnTools`]: on a hand-made vault
//! (each rule, each hostile file, each bad argument) and on the generated
//! vault, whose answers are checked against its manifest and against what the
//! generator wrote (the note's number in its name says which frontmatter it
//! got).

#[path = "fixtures/vault.rs"]
mod vault;

use std::collections::BTreeSet;
use std::path::Path;

use quire_fs::Workspace;
use quire_kiln::{KilnTools, PropertySearch, PropertySearchRequest, ReadMetadataRequest};
use serde_json::{Value, json};

/// The request a call's JSON `arguments` make (the MCP layer decodes them
/// the same way: absent or null is the default).
fn request(arguments: Value) -> PropertySearchRequest {
    let field = |name: &str| arguments.get(name).filter(|value| !value.is_null());
    let text = |name: &str| field(name).map(|value| value.as_str().unwrap().to_owned());
    let properties = field("properties").and_then(Value::as_object).cloned();
    PropertySearchRequest {
        folder: text("folder"),
        limit: field("limit").map_or(PropertySearchRequest::DEFAULT_LIMIT, |limit| {
            usize::try_from(limit.as_u64().unwrap()).unwrap()
        }),
        cursor: text("cursor"),
        ..PropertySearchRequest::new(properties.unwrap())
    }
}

fn search(tools: &KilnTools, arguments: Value) -> PropertySearch {
    tools
        .property_search(&request(arguments.clone()))
        .unwrap_or_else(|error| panic!("{arguments}: {error}"))
}

fn paths(found: &PropertySearch) -> Vec<&str> {
    found.notes.iter().map(|note| note.path.as_str()).collect()
}

/// Every page of a search, `limit` at a time.
fn every_page(tools: &KilnTools, properties: Value, limit: usize) -> Vec<String> {
    let mut found = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let page = search(
            tools,
            json!({"properties": properties, "limit": limit, "cursor": cursor}),
        );
        assert!(page.notes.len() <= limit);
        found.extend(page.notes.iter().map(|note| note.path.clone()));
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => return found,
        }
    }
}

fn write(root: &Path, path: &str, bytes: impl AsRef<[u8]>) {
    let file = root.join(path);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(file, bytes).unwrap();
}

/// A small vault with a note for each rule and each hostile file.
fn hand_made() -> (tempfile::TempDir, KilnTools) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("vault");
    for (path, text) in [
        (
            "projects/Plan.md",
            "---\nstatus: active\npriority: 3\ntags: [project/quire, Idea]\ncreated: 2024-01-05\n---\n# Plan #inline\n",
        ),
        (
            "projects/Draft.md",
            "---\nstatus: draft\npriority: 3.0\ntags: \"#project, reading\"\ndone: true\n---\n",
        ),
        (
            "projects/old/Shelved.md",
            "---\nstatus: [active, waiting]\npriority: \"3\"\ntags: project\nreviewer:\n---\n",
        ),
        (
            "daily/2024-01-05.md",
            "---\ncreated: \"2024-01-05\"\naliases: [Friday, Vendredi]\n---\nA day #log/daily\n",
        ),
        ("daily/crlf.md", "---\r\nstatus: active\r\n---\r\nText\r\n"),
        ("daily/bom.md", "\u{feff}---\nstatus: active\n---\n"),
        (
            "broken.md",
            "---\nstatus: [active\ntags: project\n---\nBody #project\n",
        ),
        ("plain.md", "No frontmatter, only #idea and `#notatag`\n"),
        (".obsidian/hidden.md", "---\nstatus: active\n---\n"),
        (".trash/gone.md", "---\nstatus: active\n---\n"),
        // NFD on disk, as macOS writes it.
        ("Cafe\u{301}.md", "---\nstatus: active\n---\n"),
    ] {
        write(&root, path, text);
    }
    write(&root, "latin1.md", b"---\nstatus: active\n---\nCaf\xe9\n");
    let outside = dir.path().join("outside");
    write(&outside, "Secret.md", "---\nstatus: active\n---\nSECRET\n");
    std::os::unix::fs::symlink(&outside, root.join("out")).unwrap();
    std::os::unix::fs::symlink(outside.join("Secret.md"), root.join("secret-link.md")).unwrap();
    let tools = KilnTools::new(Workspace::new(&root).unwrap());
    (dir, tools)
}

#[test]
fn each_rule_on_a_hand_made_vault() {
    let (_dir, tools) = hand_made();
    let cases: Vec<(Value, Vec<&str>)> = vec![
        // Hidden folders, links out, broken YAML and non-UTF-8 never match;
        // CRLF, a BOM and an NFD name do (shown NFC).
        (
            json!({"status": "active"}),
            vec![
                "Café.md",
                "daily/bom.md",
                "daily/crlf.md",
                "projects/Plan.md",
                "projects/old/Shelved.md",
            ],
        ),
        (
            json!({"status": ["draft", "waiting"]}),
            vec!["projects/Draft.md", "projects/old/Shelved.md"],
        ),
        (json!({"status": "Active"}), vec![]),
        (json!({"Status": "active"}), vec![]),
        // Numbers by value, and a number written as a string.
        (
            json!({"priority": 3}),
            vec![
                "projects/Draft.md",
                "projects/Plan.md",
                "projects/old/Shelved.md",
            ],
        ),
        (
            json!({"priority": "3"}),
            vec![
                "projects/Draft.md",
                "projects/Plan.md",
                "projects/old/Shelved.md",
            ],
        ),
        (json!({"done": true}), vec!["projects/Draft.md"]),
        (json!({"done": "true"}), vec!["projects/Draft.md"]),
        // Dates as written, typed or quoted.
        (
            json!({"created": "2024-01-05"}),
            vec!["daily/2024-01-05.md", "projects/Plan.md"],
        ),
        (json!({"created": "2024-1-5"}), vec![]),
        // AND across keys.
        (
            json!({"status": "active", "priority": 3}),
            vec!["projects/Plan.md", "projects/old/Shelved.md"],
        ),
        (
            json!({"status": "active", "created": "2024-01-05"}),
            vec!["projects/Plan.md"],
        ),
        // Tags: frontmatter in every shape and inline, caseless, nested;
        // a broken note keeps its inline tags; code holds none.
        (
            json!({"tags": "#Project"}),
            vec![
                "broken.md",
                "projects/Draft.md",
                "projects/Plan.md",
                "projects/old/Shelved.md",
            ],
        ),
        (json!({"tags": "project/quire"}), vec!["projects/Plan.md"]),
        (
            json!({"tag": ["idea", "log"]}),
            vec!["daily/2024-01-05.md", "plain.md", "projects/Plan.md"],
        ),
        (json!({"tags": "INLINE"}), vec!["projects/Plan.md"]),
        (json!({"tags": "notatag"}), vec![]),
        (json!({"aliases": "vendredi"}), vec!["daily/2024-01-05.md"]),
        // null: the key is there and empty.
        (json!({"reviewer": null}), vec!["projects/old/Shelved.md"]),
        (json!({"nothing": null}), vec![]),
    ];
    for (properties, expected) in &cases {
        let arguments = json!({"properties": properties});
        let found = search(&tools, arguments.clone());
        assert_eq!(paths(&found), *expected, "{arguments}");
        assert_eq!(found.total, expected.len(), "{arguments}");
    }
    let beneath = search(
        &tools,
        json!({"properties": {"status": "active"}, "folder": "projects/"}),
    );
    assert_eq!(
        paths(&beneath),
        ["projects/Plan.md", "projects/old/Shelved.md"]
    );
    // Each note comes with its whole frontmatter; a broken one with none.
    let plan = &search(&tools, json!({"properties": {"tags": "inline"}})).notes[0];
    assert_eq!(plan.frontmatter["created"], "2024-01-05");
    assert_eq!(plan.frontmatter["tags"], json!(["project/quire", "Idea"]));
    let broken = search(&tools, json!({"properties": {"tags": "project"}}));
    assert!(broken.notes[0].frontmatter.is_empty());
}

/// The operators (issue 28) on the hand-made vault: CRLF, a BOM and an NFD
/// name are read; broken YAML, non-UTF-8 and hidden notes hold no property.
#[test]
fn each_operator_on_a_hand_made_vault() {
    let (_dir, tools) = hand_made();
    let cases: Vec<(Value, Vec<&str>)> = vec![
        (
            json!({"created": {"before": "2024-01-06"}}),
            vec!["daily/2024-01-05.md", "projects/Plan.md"],
        ),
        (json!({"created": {"after": "2024-01-05"}}), vec![]),
        (
            json!({"priority": {"after": 2.5, "before": "4"}}),
            vec![
                "projects/Draft.md",
                "projects/Plan.md",
                "projects/old/Shelved.md",
            ],
        ),
        (json!({"created": {"before": 3000}}), vec![]),
        (
            json!({"status": {"not": ["active", "draft"], "exists": true}}),
            vec![],
        ),
        (
            json!({"status": {"not": "draft", "exists": true}}),
            vec![
                "Café.md",
                "daily/bom.md",
                "daily/crlf.md",
                "projects/Plan.md",
                "projects/old/Shelved.md",
            ],
        ),
        // Without `exists`, `not` keeps the notes without the key: the
        // broken one, the unreadable one, the plain one.
        (
            json!({"status": {"not": ["active", "draft"]}}),
            vec!["broken.md", "daily/2024-01-05.md", "latin1.md", "plain.md"],
        ),
        (
            json!({"reviewer": {"exists": true}}),
            vec!["projects/old/Shelved.md"],
        ),
        (
            json!({"tags": {"exists": false}}),
            vec!["Café.md", "daily/bom.md", "daily/crlf.md", "latin1.md"],
        ),
        (
            json!({"aliases": {"exists": true}, "tags": {"not": "idea"}}),
            vec!["daily/2024-01-05.md"],
        ),
        (
            json!({"status": ["draft", {"not": "active", "exists": true}]}),
            vec!["projects/Draft.md"],
        ),
    ];
    for (properties, expected) in &cases {
        let arguments = json!({"properties": properties});
        let found = search(&tools, arguments.clone());
        assert_eq!(paths(&found), *expected, "{arguments}");
        assert_eq!(found.total, expected.len(), "{arguments}");
    }
    // Paged like equality.
    let negated = json!({"status": {"not": "draft", "exists": true}});
    for limit in [1, 2, 3] {
        assert_eq!(
            every_page(&tools, negated.clone(), limit).len(),
            5,
            "{limit}"
        );
    }
    // Refused before the index is asked.
    let error = tools
        .property_search(&request(
            json!({"properties": {"created": {"before": "yesterday"}}}),
        ))
        .unwrap_err();
    assert!(error.is_invalid(), "{error}");
    assert!(
        error.to_string().contains("give a date written YYYY-MM-DD"),
        "{error}"
    );
}

#[test]
fn pages_follow_one_another_and_a_forged_cursor_is_refused() {
    let (_dir, tools) = hand_made();
    let all = search(&tools, json!({"properties": {"status": "active"}}));
    assert!(all.next_cursor.is_none());
    for limit in [1, 2, 4, 5] {
        assert_eq!(
            every_page(&tools, json!({"status": "active"}), limit),
            paths(&all),
            "limit {limit}"
        );
    }
    let first = search(
        &tools,
        json!({"properties": {"status": "active"}, "limit": 2}),
    );
    assert_eq!(first.total, 5);
    assert_eq!(paths(&first), ["Café.md", "daily/bom.md"]);
    let cursor = first.next_cursor.unwrap();
    // The cursor resumes after the last path shown (`daily/2024-01-05.md`
    // sorts before it), whatever the search.
    let after = search(
        &tools,
        json!({"properties": {"created": "2024-01-05"}, "cursor": cursor}),
    );
    assert_eq!(paths(&after), ["projects/Plan.md"]);
    let after = search(
        &tools,
        json!({"properties": {"tags": "idea"}, "cursor": cursor}),
    );
    assert_eq!(paths(&after), ["plain.md", "projects/Plan.md"]);
    let error = tools
        .property_search(&request(
            json!({"properties": {"status": "active"}, "cursor": "p1.zz"}),
        ))
        .unwrap_err();
    assert!(error.is_invalid());
    assert!(
        error.to_string().contains("not one this search returned"),
        "{error}"
    );
}

#[test]
fn bad_arguments_say_what_to_pass() {
    let (_dir, tools) = hand_made();
    let too_many: serde_json::Map<String, Value> =
        (0..40).map(|n| (format!("k{n}"), json!(1))).collect();
    for (arguments, expected) in [
        (
            json!({"properties": {}}),
            "`properties` is empty; name at least one property",
        ),
        (
            json!({"properties": too_many}),
            "names 40 keys; give at most 32",
        ),
        (json!({"properties": {"s": []}}), "is an empty list"),
        (
            json!({"properties": {"s": {"a": 1}}}),
            "`properties.s` holds an object",
        ),
        (
            json!({"properties": {"s": [[1]]}}),
            "a list inside the list",
        ),
        (json!({"properties": {"tags": "#"}}), "names no tag"),
        (
            json!({"properties": {"s": 1}, "limit": 0}),
            "`limit` is 0; give 1 to 1000",
        ),
        (
            json!({"properties": {"s": 1}, "limit": 1001}),
            "`limit` is 1001",
        ),
        (
            json!({"properties": {"s": 1}, "folder": "../x"}),
            "climbs above the kiln root",
        ),
        (
            json!({"properties": {"s": 1}, "folder": ".obsidian"}),
            "hidden",
        ),
        (
            json!({"properties": {"s": 1}, "folder": "/etc"}),
            "outside the kiln",
        ),
        (json!({"properties": {"s": 1}, "folder": "a\0b"}), "NUL"),
    ] {
        let error = tools
            .property_search(&request(arguments.clone()))
            .unwrap_err();
        assert!(error.is_invalid(), "{arguments}: {error}");
        assert!(error.to_string().contains(expected), "{arguments}: {error}");
    }
}

/// A folder that is not there is an error naming it (as `text_search`
/// answers), not an empty success that reads as "no such notes" (issue 25).
#[test]
fn a_missing_folder_is_not_found() {
    let (_dir, tools) = hand_made();
    let error = tools
        .property_search(&request(
            json!({"properties": {"status": "active"}, "folder": "nowhere"}),
        ))
        .unwrap_err();
    assert!(
        error.is_not_found() && error.to_string().contains("nowhere"),
        "{error}"
    );
}

/// The generator's number of a note (its stem ends with it), or for the
/// eight `Index` notes, the number its folder says (one per folder, from
/// `0, 9, ..., 63`).
fn number_of(path: &str) -> usize {
    let stem = path.rsplit('/').next().unwrap().trim_end_matches(".md");
    if stem == "Index" {
        let folders = [
            "",
            "projects",
            "projects/quire",
            "areas/health",
            "daily/2026",
            "people",
            "日本語のノート",
            "archive/old projects",
        ];
        let folder = path.rsplit_once('/').map_or("", |(folder, _)| folder);
        let position = folders.iter().position(|f| *f == folder).unwrap();
        return (0..8).map(|n| n * 9).find(|n| n % 8 == position).unwrap();
    }
    stem.rsplit(' ').next().unwrap().parse().unwrap()
}

/// Whether the generator wrote a valid frontmatter for note `number`.
fn has_frontmatter(number: usize) -> bool {
    number % 10 != 9 && number % 211 != 5 && number % 997 != 13
}

#[test]
fn the_generated_vault_answers_as_its_manifest_says() {
    let (_dir, root, manifest) = vault::temporary(1_200);
    let tools = KilnTools::new(Workspace::new(&root).unwrap());
    let never: BTreeSet<&String> = manifest
        .broken_yaml
        .iter()
        .chain(&manifest.invalid_utf8)
        .collect();

    // Each status as many times as the generator wrote it.
    for (status, count) in &manifest.status_counts {
        let found = every_page(&tools, json!({"status": status}), 97);
        assert_eq!(found.len(), *count, "status {status}");
        assert!(found.iter().all(|path| !never.contains(path)));
        assert!(found.windows(2).all(|pair| pair[0] < pair[1]), "sorted");
    }
    let any_status: Vec<&String> = manifest.status_counts.keys().collect();
    let all = search(
        &tools,
        json!({"properties": {"status": any_status}, "limit": 1000}),
    );
    assert_eq!(all.total, manifest.status_counts.values().sum::<usize>());

    // Dates as written: `created: 2026-MM-DD` from the note's number.
    let expected: Vec<&str> = manifest
        .notes
        .iter()
        .filter(|path| {
            let n = number_of(path);
            has_frontmatter(n) && n % 12 == 2 && n % 28 == 2
        })
        .map(String::as_str)
        .collect();
    assert!(!expected.is_empty());
    let found = search(&tools, json!({"properties": {"created": "2026-03-03"}}));
    assert_eq!(paths(&found), expected);

    // Numbers, OR'd, one written as a string, AND'd with a status.
    let expected: Vec<&str> = manifest
        .notes
        .iter()
        .filter(|path| {
            let n = number_of(path);
            has_frontmatter(n) && matches!(n % 5, 0 | 4)
        })
        .map(String::as_str)
        .collect();
    assert_eq!(
        every_page(&tools, json!({"priority": [0, "4"]}), 500),
        expected
    );
    let active = every_page(&tools, json!({"status": "active"}), 1000);
    let both = every_page(
        &tools,
        json!({"status": "active", "priority": [0, "4"]}),
        1000,
    );
    let intersection: Vec<&String> = active
        .iter()
        .filter(|path| expected.contains(&path.as_str()))
        .collect();
    assert_eq!(both.iter().collect::<Vec<_>>(), intersection);

    // Tags: at least every note with the frontmatter tag (inline ones add
    // more), each one holding it as read_metadata says, and nothing from code
    // or comments.
    for (tag, count) in &manifest.tag_counts {
        let found = every_page(&tools, json!({"tags": tag}), 1000);
        assert!(found.len() >= *count, "{tag}: {} < {count}", found.len());
        for path in found.iter().step_by(25) {
            let tags = tools
                .read_metadata(&ReadMetadataRequest { path: path.clone() })
                .unwrap()
                .tags;
            assert!(
                tags.iter().any(|held| {
                    let held = held.to_lowercase();
                    held == *tag || held.starts_with(&format!("{tag}/"))
                }),
                "{path}: {tags:?} for {tag}"
            );
        }
    }
    let project = every_page(&tools, json!({"tags": "project"}), 1000);
    let nested = every_page(&tools, json!({"tags": "#PROJECT/quire"}), 1000);
    assert!(nested.iter().all(|path| project.contains(path)));
    assert!(project.len() > nested.len());
    for hidden in ["codetag", "commenttag"] {
        assert_eq!(
            search(&tools, json!({"properties": {"tags": hidden}})).total,
            0
        );
    }

    // An NFD name is found, shown NFC, by its title.
    let nfd = &manifest.nfd_names[0];
    let stem = nfd.rsplit('/').next().unwrap().trim_end_matches(".md");
    let found = search(&tools, json!({"properties": {"title": stem}}));
    assert_eq!(paths(&found), [nfd.as_str()]);

    // An alias, ignoring case.
    let aliased = manifest
        .notes
        .iter()
        .find(|path| {
            let n = number_of(path);
            n > 100 && n.is_multiple_of(5) && has_frontmatter(n)
        })
        .unwrap();
    let stem = aliased.rsplit('/').next().unwrap().trim_end_matches(".md");
    let found = search(
        &tools,
        json!({"properties": {"aliases": format!("{} ALIAS", stem.to_uppercase())}}),
    );
    assert_eq!(paths(&found), [aliased.as_str()]);

    // A folder holds what the whole search holds beneath it.
    let done = every_page(&tools, json!({"status": "done"}), 1000);
    let in_projects = search(
        &tools,
        json!({"properties": {"status": "done"}, "folder": "projects", "limit": 1000}),
    );
    let beneath: Vec<&str> = done
        .iter()
        .filter(|path| path.starts_with("projects/"))
        .map(String::as_str)
        .collect();
    assert_eq!(paths(&in_projects), beneath);

    // Nothing from outside the vault.
    let everything = every_page(&tools, json!({"status": any_status}), 1000);
    assert!(
        everything
            .iter()
            .all(|path| !path.starts_with(&manifest.link_out))
    );
}
