//! `find_links` end to end through [`KilnTools`] on a hand-made vault: each
//! kind (broken, ambiguous, orphans, neighbours) with its lines, CRLF notes,
//! a broken frontmatter, links in the frontmatter, attachments, ambiguous
//! names, pages followed with a cursor, and each bad argument.

use std::path::Path;

use quire_fs::Workspace;
use quire_kiln::{
    Direction, FindLinksRequest, FoundLink, FoundLinks, KilnError, KilnTools, LinkQuery,
    MAX_LINKS_LIMIT, MAX_NEIGHBOUR_DEPTH,
};

fn write(root: &Path, path: &str, bytes: impl AsRef<[u8]>) {
    let file = root.join(path);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(file, bytes).unwrap();
}

/// The vault: a project with a plan linking out, two notes named `Plan`,
/// attachments, a CRLF note, a broken frontmatter, links in frontmatter,
/// and notes nothing links to.
fn vault() -> (tempfile::TempDir, KilnTools) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for (path, text) in [
        (
            "Home.md",
            "# Home\n[[Plan]] and [[projects/Tasks]]\n![[chart.png]] ![[missing.png]]\n[[#Home]]\n",
        ),
        (
            "projects/Plan.md",
            "---\nup: \"[[Home]]\"\nrelated: [\"[[Nowhere]]\", \"[[Tasks]]\"]\n---\n# Plan\n[[Tasks#Next]] [text](Gone.md)\n[scan](files/scan.pdf)\n",
        ),
        ("projects/Tasks.md", "- [ ] ship [[Done]]\n- [ ] [[Plan]]\n"),
        ("archive/Plan.md", "old plan, links to [[Home|home]]\n"),
        ("Done.md", "done\n"),
        (
            "daily/crlf.md",
            "---\r\nup: \"[[Lost]]\"\r\n---\r\nline two\r\n[[Home]] [[Missing]]\r\n",
        ),
        (
            "broken.md",
            "---\nup: [\"[[Home]]\"\n---\nBody [[Vanished]]\n",
        ),
        ("lonely.md", "links to itself: [[lonely]]\n"),
        (".obsidian/hidden.md", "[[lonely]] [[Ghost]]\n"),
    ] {
        write(root, path, text);
    }
    write(root, "chart.png", b"\x89PNG");
    write(root, "files/scan.pdf", b"%PDF");
    let tools = KilnTools::new(Workspace::new(root).unwrap());
    (dir, tools)
}

fn find(tools: &KilnTools, request: &FindLinksRequest) -> FoundLinks {
    tools
        .find_links(request)
        .unwrap_or_else(|error| panic!("{request:?}: {error}"))
}

/// (note, line, target) of each link.
fn places(found: &FoundLinks) -> Vec<(&str, usize, &str)> {
    found
        .links
        .iter()
        .map(|link| (link.note.as_str(), link.line, link.target.as_str()))
        .collect()
}

#[test]
fn broken_links_come_with_their_note_line_and_target() {
    let (_dir, tools) = vault();
    let broken = find(&tools, &FindLinksRequest::new(LinkQuery::Broken));
    // The existing attachments (chart.png, files/scan.pdf), a link to the
    // note's own heading and the hidden folder's links are not listed; the
    // broken frontmatter's links are not read, its body's are.
    assert_eq!(
        places(&broken),
        [
            ("Home.md", 3, "missing.png"),
            ("broken.md", 4, "Vanished"),
            ("daily/crlf.md", 2, "Lost"),
            ("daily/crlf.md", 5, "Missing"),
            ("projects/Plan.md", 3, "Nowhere"),
            ("projects/Plan.md", 6, "Gone.md"),
        ]
    );
    assert_eq!((broken.total, broken.next_cursor.as_deref()), (6, None));
    let embed = &broken.links[0];
    assert!(embed.embed && embed.property.is_none());
    // A link in the frontmatter names its property, at its key's line.
    let in_frontmatter = &broken.links[4];
    assert_eq!(in_frontmatter.property.as_deref(), Some("related"));
    assert_eq!(broken.links[2].property.as_deref(), Some("up"));
    assert!(
        broken
            .links
            .iter()
            .all(|link| link.chosen.is_none() && link.candidates.is_none())
    );
    // Beneath a folder: the links written there.
    let daily = find(
        &tools,
        &FindLinksRequest {
            folder: Some("daily".into()),
            ..FindLinksRequest::new(LinkQuery::Broken)
        },
    );
    assert_eq!(
        places(&daily),
        [
            ("daily/crlf.md", 2, "Lost"),
            ("daily/crlf.md", 5, "Missing")
        ]
    );
}

#[test]
fn a_link_to_an_attachment_is_broken_once_the_file_is_gone() {
    let (dir, tools) = vault();
    std::fs::remove_file(dir.path().join("chart.png")).unwrap();
    let broken = find(&tools, &FindLinksRequest::new(LinkQuery::Broken));
    assert_eq!(
        places(&broken)[..2],
        [("Home.md", 3, "chart.png"), ("Home.md", 3, "missing.png")]
    );
}

/// An ambiguous link: note, line, target, the note chosen, how many match.
type Ambiguity<'a> = (&'a str, usize, &'a str, Option<&'a str>, Option<usize>);

#[test]
fn ambiguous_links_name_the_note_chosen_and_how_many_match() {
    let (_dir, tools) = vault();
    let ambiguous = find(&tools, &FindLinksRequest::new(LinkQuery::Ambiguous));
    let shown: Vec<Ambiguity> = ambiguous
        .links
        .iter()
        .map(|link: &FoundLink| {
            (
                link.note.as_str(),
                link.line,
                link.target.as_str(),
                link.chosen.as_deref(),
                link.candidates,
            )
        })
        .collect();
    // From the root the shorter path wins; from `projects/` the note in
    // the linking note's own folder does. Either way two notes match.
    assert_eq!(
        shown,
        [
            ("Home.md", 2, "Plan", Some("archive/Plan.md"), Some(2)),
            (
                "projects/Tasks.md",
                2,
                "Plan",
                Some("projects/Plan.md"),
                Some(2)
            ),
        ]
    );
    // Once one of them is gone, nothing is ambiguous.
    let (dir, tools) = vault();
    std::fs::remove_file(dir.path().join("archive/Plan.md")).unwrap();
    assert_eq!(
        find(&tools, &FindLinksRequest::new(LinkQuery::Ambiguous)).total,
        0
    );
}

#[test]
fn orphans_are_the_notes_no_other_note_links_to() {
    let (_dir, tools) = vault();
    let orphans = find(&tools, &FindLinksRequest::new(LinkQuery::Orphans));
    let paths: Vec<&str> = orphans.notes.iter().map(|n| n.path.as_str()).collect();
    // `lonely` links to itself and is linked from a hidden folder only;
    // `Home` is linked from a property of `projects/Plan.md`.
    assert_eq!(paths, ["broken.md", "daily/crlf.md", "lonely.md"]);
    assert!(
        orphans
            .notes
            .iter()
            .all(|n| n.distance.is_none() && n.direction.is_none())
    );
    let in_archive = find(
        &tools,
        &FindLinksRequest {
            folder: Some("archive".into()),
            ..FindLinksRequest::new(LinkQuery::Orphans)
        },
    );
    assert_eq!(in_archive.total, 0);
}

/// (path, distance, direction) of each neighbour.
fn around(tools: &KilnTools, path: &str, depth: usize) -> Vec<(String, usize, Direction)> {
    let found = find(
        tools,
        &FindLinksRequest {
            depth: Some(depth),
            ..FindLinksRequest::neighbours(path)
        },
    );
    assert_eq!(found.total, found.notes.len());
    found
        .notes
        .iter()
        .map(|n| (n.path.clone(), n.distance.unwrap(), n.direction.unwrap()))
        .collect()
}

#[test]
fn neighbours_go_out_and_in_to_the_depth_asked() {
    let (_dir, tools) = vault();
    let one = |path: &str, distance, direction| (path.to_owned(), distance, direction);
    // Plan links to Home (a property) and to Tasks, which links back.
    assert_eq!(
        around(&tools, "projects/Plan.md", 1),
        [
            one("Home.md", 1, Direction::Out),
            one("projects/Tasks.md", 1, Direction::Both),
        ]
    );
    // Two links away: what Home and Tasks link to. Home links back to
    // Plan through Tasks, two links in: one link out is shorter.
    assert_eq!(
        around(&tools, "projects/Plan.md", 2),
        [
            one("Home.md", 1, Direction::Out),
            one("projects/Tasks.md", 1, Direction::Both),
            one("Done.md", 2, Direction::Out),
            one("archive/Plan.md", 2, Direction::Out),
        ]
    );
    assert_eq!(
        around(&tools, "Done", 1),
        [one("projects/Tasks.md", 1, Direction::In)]
    );
    assert_eq!(
        around(&tools, "Done", MAX_NEIGHBOUR_DEPTH).last(),
        Some(&one("daily/crlf.md", 3, Direction::In))
    );
    // A note nothing links to and that links nowhere has none.
    assert!(around(&tools, "[[lonely]]", 3).is_empty());
    // The note is named as the other tools name it.
    let named = find(&tools, &FindLinksRequest::neighbours("[[Tasks#Next]]"));
    assert_eq!(named.note.as_deref(), Some("projects/Tasks.md"));
    let error = tools
        .find_links(&FindLinksRequest::neighbours("Plan"))
        .unwrap_err();
    assert!(error.to_string().contains("names 2 notes"), "{error}");
    let error = tools
        .find_links(&FindLinksRequest::neighbours("Plans"))
        .unwrap_err();
    assert!(error.is_not_found(), "{error}");
    // Beneath a folder: only the neighbours there.
    let in_projects = find(
        &tools,
        &FindLinksRequest {
            folder: Some("projects".into()),
            depth: Some(2),
            ..FindLinksRequest::neighbours("Home")
        },
    );
    let paths: Vec<&str> = in_projects.notes.iter().map(|n| n.path.as_str()).collect();
    assert_eq!(paths, ["projects/Plan.md", "projects/Tasks.md"]);
}

#[test]
fn pages_follow_one_another_with_a_cursor() {
    let (_dir, tools) = vault();
    for kind in [
        LinkQuery::Broken,
        LinkQuery::Orphans,
        LinkQuery::Ambiguous,
        LinkQuery::Neighbours,
    ] {
        let whole_request = FindLinksRequest {
            path: (kind == LinkQuery::Neighbours).then(|| "Home".to_owned()),
            depth: (kind == LinkQuery::Neighbours).then_some(3),
            ..FindLinksRequest::new(kind)
        };
        let whole = find(&tools, &whole_request);
        assert!(whole.total >= 2, "{kind:?}");
        for limit in [1, 2, 3] {
            let mut links = Vec::new();
            let mut notes = Vec::new();
            let mut cursor = None;
            loop {
                let page = find(
                    &tools,
                    &FindLinksRequest {
                        limit,
                        cursor: cursor.clone(),
                        ..whole_request.clone()
                    },
                );
                assert_eq!(page.total, whole.total);
                assert!(page.links.len() + page.notes.len() <= limit);
                links.extend(page.links);
                notes.extend(page.notes);
                cursor = page.next_cursor;
                if cursor.is_none() {
                    break;
                }
            }
            assert_eq!((&links, &notes), (&whole.links, &whole.notes), "{kind:?}");
        }
    }
    let error = tools
        .find_links(&FindLinksRequest {
            cursor: Some("p1.zz".into()),
            ..FindLinksRequest::new(LinkQuery::Broken)
        })
        .unwrap_err();
    assert!(error.is_invalid(), "{error}");
    assert!(error.to_string().contains("leave it out"), "{error}");
}

#[test]
fn bad_arguments_say_what_to_pass() {
    let (_dir, tools) = vault();
    let cases: Vec<(FindLinksRequest, &str)> = vec![
        (
            FindLinksRequest {
                limit: 0,
                ..FindLinksRequest::new(LinkQuery::Broken)
            },
            "`limit` is 0; give 1 to 1000",
        ),
        (
            FindLinksRequest {
                limit: MAX_LINKS_LIMIT + 1,
                ..FindLinksRequest::new(LinkQuery::Orphans)
            },
            "`limit` is 1001",
        ),
        (
            FindLinksRequest::new(LinkQuery::Neighbours),
            "`neighbours` needs `path`",
        ),
        (
            FindLinksRequest {
                depth: Some(0),
                ..FindLinksRequest::neighbours("Home")
            },
            "`depth` is 0; give 1",
        ),
        (
            FindLinksRequest {
                depth: Some(4),
                ..FindLinksRequest::neighbours("Home")
            },
            "`depth` is 4; give 1 (the notes linked from and to the note) to 3",
        ),
        (
            FindLinksRequest {
                path: Some("Home".into()),
                ..FindLinksRequest::new(LinkQuery::Broken)
            },
            "`path` is only for `neighbours`; leave it out for `broken`",
        ),
        (
            FindLinksRequest {
                depth: Some(2),
                ..FindLinksRequest::new(LinkQuery::Orphans)
            },
            "`depth` is only for `neighbours`; leave it out for `orphans`",
        ),
        (
            FindLinksRequest {
                folder: Some("../up".into()),
                ..FindLinksRequest::new(LinkQuery::Broken)
            },
            "climbs above",
        ),
        (
            FindLinksRequest {
                folder: Some(".obsidian".into()),
                ..FindLinksRequest::new(LinkQuery::Broken)
            },
            "hidden",
        ),
    ];
    for (request, expected) in cases {
        let error = tools.find_links(&request).unwrap_err();
        assert!(error.is_invalid(), "{request:?}: {error:?}");
        assert!(error.to_string().contains(expected), "{request:?}: {error}");
    }
    let missing = tools
        .find_links(&FindLinksRequest {
            folder: Some("nowhere".into()),
            ..FindLinksRequest::new(LinkQuery::Orphans)
        })
        .unwrap_err();
    assert!(missing.is_not_found(), "{missing:?}");
}

#[test]
fn a_bad_request_is_refused_without_waiting_for_the_index() {
    let dir = tempfile::tempdir().unwrap();
    let tools =
        KilnTools::new(Workspace::new(dir.path()).unwrap()).with_budget(std::time::Duration::ZERO);
    let error = tools
        .find_links(&FindLinksRequest::new(LinkQuery::Neighbours))
        .unwrap_err();
    assert!(matches!(error, KilnError::Links(_)), "{error:?}");
}

#[test]
fn an_edit_is_seen_by_the_next_question() {
    let (dir, tools) = vault();
    assert_eq!(
        find(&tools, &FindLinksRequest::new(LinkQuery::Broken)).total,
        6
    );
    write(dir.path(), "Nowhere.md", "now here\n");
    write(dir.path(), "Missing.md", "found\n");
    // The watcher (or the next rescan) tells the index.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let total = find(&tools, &FindLinksRequest::new(LinkQuery::Broken)).total;
        if total == 4 {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "still {total}");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}
