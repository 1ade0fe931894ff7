use std::path::Path;
use std::time::{Duration, Instant};

use super::*;

/// A vault of `files` (path, bytes) in a new temporary folder.
fn vault(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, bytes) in files {
        let file = dir.path().join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, bytes).unwrap();
    }
    dir
}

fn later() -> Instant {
    Instant::now() + Duration::from_secs(60)
}

fn search_in(
    root: &Path,
    folder: &str,
    request: &TextSearchRequest,
) -> Result<TextSearch, KilnError> {
    let workspace = Workspace::new(root).unwrap();
    let folder = FolderPath::parse_relative(folder).unwrap();
    search_text(&workspace, &folder, request, later())
}

fn search(root: &Path, request: &TextSearchRequest) -> TextSearch {
    search_in(root, "", request).unwrap()
}

fn found(search: &TextSearch) -> Vec<(String, u64)> {
    search
        .matches
        .iter()
        .map(|m| (m.path.clone(), m.line_number))
        .collect()
}

fn owned(lines: &[&str]) -> Vec<String> {
    lines.iter().map(|line| (*line).to_owned()).collect()
}

#[test]
fn a_literal_query_matches_as_written_and_a_regex_as_a_pattern() {
    let dir = vault(&[("a.md", b"a.b\naxb\n(x)\n")]);
    let literal = search(dir.path(), &TextSearchRequest::new("a.b"));
    assert_eq!(found(&literal), [("a.md".to_owned(), 1)]);
    let regex = search(
        dir.path(),
        &TextSearchRequest {
            regex: true,
            ..TextSearchRequest::new("a.b")
        },
    );
    assert_eq!(regex.total_matches, 2);
    assert_eq!(
        search(dir.path(), &TextSearchRequest::new("(x)")).total_matches,
        1
    );
    let error = search_in(
        dir.path(),
        "",
        &TextSearchRequest {
            regex: true,
            ..TextSearchRequest::new("(x")
        },
    )
    .unwrap_err();
    assert!(error.is_invalid(), "{error}");
    assert!(
        error.to_string().contains("not a valid regular expression"),
        "{error}"
    );
    assert!(error.to_string().contains("regex: false"), "{error}");
}

#[test]
fn case_is_smart_unless_told() {
    let dir = vault(&[("a.md", b"Plan\nplan\nPLAN\n")]);
    let count = |query: &str, case| {
        search(
            dir.path(),
            &TextSearchRequest {
                case,
                ..TextSearchRequest::new(query)
            },
        )
        .total_matches
    };
    assert_eq!(count("plan", CaseMode::Smart), 3);
    assert_eq!(count("Plan", CaseMode::Smart), 1);
    assert_eq!(count("plan", CaseMode::Sensitive), 1);
    assert_eq!(count("Plan", CaseMode::Insensitive), 3);
    // The `S` of the class `\S` is no uppercase letter of the query.
    let regex = TextSearchRequest {
        regex: true,
        ..TextSearchRequest::new(r"p\San")
    };
    assert_eq!(search(dir.path(), &regex).total_matches, 3);
}

#[test]
fn bad_arguments_say_what_to_pass() {
    let dir = vault(&[("a.md", b"x\n")]);
    let cases = [
        (TextSearchRequest::new(""), "`query` is empty"),
        (
            TextSearchRequest::new("x".repeat(MAX_QUERY_CHARS + 1)),
            "over the limit of 1000",
        ),
        (TextSearchRequest::new("a\nb"), "line break"),
        (
            TextSearchRequest {
                context_lines: 11,
                ..TextSearchRequest::new("x")
            },
            "give 0 to 10",
        ),
        (
            TextSearchRequest {
                limit: 0,
                ..TextSearchRequest::new("x")
            },
            "give 1 to 1000",
        ),
        (
            TextSearchRequest {
                limit: 1001,
                ..TextSearchRequest::new("x")
            },
            "give 1 to 1000",
        ),
        (
            TextSearchRequest {
                regex: true,
                ..TextSearchRequest::new("a{1000}{1000}")
            },
            "not a valid regular expression",
        ),
    ];
    for (request, expected) in cases {
        let error = search_in(dir.path(), "", &request).unwrap_err();
        assert!(
            error.is_invalid() && error.to_string().contains(expected),
            "{error}"
        );
    }
    // At the limit is fine.
    let longest = TextSearchRequest::new("é".repeat(MAX_QUERY_CHARS));
    assert_eq!(search(dir.path(), &longest).total_matches, 0);
    let most = TextSearchRequest {
        context_lines: 10,
        limit: 1000,
        ..TextSearchRequest::new("x")
    };
    assert_eq!(search(dir.path(), &most).total_matches, 1);
}

#[test]
fn context_lines_lead_up_to_and_follow_each_match_without_repeating_matches() {
    let text: String = (1..=12).map(|n| format!("line {n}\n")).collect();
    let text = text
        .replace("line 5\n", "hit 5\n")
        .replace("line 6\n", "hit 6\n")
        .replace("line 9\n", "hit 9\n");
    let dir = vault(&[("a.md", text.as_bytes())]);
    let request = TextSearchRequest {
        context_lines: 2,
        ..TextSearchRequest::new("hit")
    };
    let result = search(dir.path(), &request);
    assert_eq!(
        found(&result).iter().map(|(_, n)| *n).collect::<Vec<_>>(),
        [5, 6, 9]
    );
    let [five, six, nine] = &result.matches[..] else {
        panic!()
    };
    assert_eq!(
        (five.before.clone(), five.after.clone()),
        (owned(&["line 3", "line 4"]), owned(&[]))
    );
    assert_eq!(
        (six.before.clone(), six.after.clone()),
        (owned(&[]), owned(&["line 7", "line 8"]))
    );
    assert_eq!(
        (nine.before.clone(), nine.after.clone()),
        (owned(&["line 7", "line 8"]), owned(&["line 10", "line 11"]))
    );
    assert_eq!(five.line, "hit 5");

    let one = search(
        dir.path(),
        &TextSearchRequest {
            context_lines: 1,
            ..TextSearchRequest::new("hit 9")
        },
    );
    assert_eq!(
        (one.matches[0].before.clone(), one.matches[0].after.clone()),
        (owned(&["line 8"]), owned(&["line 10"]))
    );
    let none = search(
        dir.path(),
        &TextSearchRequest {
            context_lines: 0,
            ..TextSearchRequest::new("hit")
        },
    );
    assert!(
        none.matches
            .iter()
            .all(|m| m.before.is_empty() && m.after.is_empty())
    );
    // At the edges of the note, what there is.
    let edges = vault(&[("e.md", b"first\nmid\nlast")]);
    let result = search(
        edges.path(),
        &TextSearchRequest {
            regex: true,
            ..TextSearchRequest::new("first|last")
        },
    );
    assert_eq!(
        (
            result.matches[0].before.len(),
            result.matches[0].after.clone()
        ),
        (0, owned(&["mid"]))
    );
    assert_eq!(
        (
            result.matches[1].before.clone(),
            result.matches[1].after.len()
        ),
        (owned(&["mid"]), 0)
    );
}

#[test]
fn crlf_lines_are_shown_without_the_carriage_return() {
    let dir = vault(&[("w.md", b"one\r\nthe end\r\nthree\r\n")]);
    let result = search(
        dir.path(),
        &TextSearchRequest {
            regex: true,
            ..TextSearchRequest::new("end$")
        },
    );
    assert_eq!(result.total_matches, 1);
    let hit = &result.matches[0];
    assert_eq!((hit.line.as_str(), hit.line_number), ("the end", 2));
    assert_eq!(
        (hit.before.clone(), hit.after.clone()),
        (owned(&["one"]), owned(&["three"]))
    );
    // A lone `\r` is not a line ending.
    let dir = vault(&[("r.md", b"a\rb\n")]);
    assert_eq!(
        search(dir.path(), &TextSearchRequest::new("b")).matches[0].line,
        "a\rb"
    );
}

#[test]
fn a_long_line_is_cut_around_the_match() {
    let mut line = "é".repeat(5_000);
    line.push_str("NEEDLE");
    line.push_str(&"x".repeat(5_000_000));
    let context = "ü".repeat(2_000);
    let text = format!("{context}\n{line}\n{context}\n");
    let dir = vault(&[("m.md", text.as_bytes())]);
    let result = search(dir.path(), &TextSearchRequest::new("NEEDLE"));
    let hit = &result.matches[0];
    assert!(hit.line.contains("NEEDLE"), "{}", &hit.line[..50]);
    assert!(hit.line.starts_with('…') && hit.line.ends_with('…'));
    assert_eq!(hit.line.chars().count(), MAX_LINE_CHARS + 2);
    assert_eq!(
        hit.line.chars().skip(1).take_while(|c| *c == 'é').count(),
        LEAD_CHARS
    );
    for context in hit.before.iter().chain(&hit.after) {
        assert_eq!(context.chars().count(), MAX_LINE_CHARS + 1);
        assert!(context.starts_with('ü') && context.ends_with('…'));
    }
    // A match near the start keeps the start, uncut there.
    let dir = vault(&[("s.md", format!("ab{}\n", "c".repeat(600)).as_bytes())]);
    let hit = &search(dir.path(), &TextSearchRequest::new("ab")).matches[0];
    assert!(hit.line.starts_with("abc") && hit.line.ends_with('…'));
    // A line of exactly the limit is whole.
    let dir = vault(&[("x.md", "y".repeat(MAX_LINE_CHARS).as_bytes())]);
    let hit = &search(dir.path(), &TextSearchRequest::new("y")).matches[0];
    assert_eq!(hit.line, "y".repeat(MAX_LINE_CHARS));
}

#[test]
fn a_note_that_is_not_utf8_is_searched_and_shown_lossily() {
    let dir = vault(&[("latin1.md", b"# Caf\xe9\nCaf\xe9 au lait\n")]);
    let result = search(dir.path(), &TextSearchRequest::new("au lait"));
    assert_eq!(result.matches[0].line, "Caf\u{FFFD} au lait");
    assert_eq!(result.matches[0].before, owned(&["# Caf\u{FFFD}"]));
}

#[test]
fn matches_come_in_path_order_and_stop_at_the_limit() {
    let dir = vault(&[
        ("b.md", b"hit\nhit\n"),
        ("a/b.md", b"hit\n"),
        ("a.md", b"x\nhit\n"),
        ("a-b.md", b"hit\n"),
    ]);
    let all = search(dir.path(), &TextSearchRequest::new("hit"));
    let expected = [
        ("a-b.md", 1),
        ("a.md", 2),
        ("a/b.md", 1),
        ("b.md", 1),
        ("b.md", 2),
    ];
    assert_eq!(found(&all), expected.map(|(p, n)| (p.to_owned(), n)));
    assert_eq!(
        (
            all.total_matches,
            all.files_searched,
            all.truncated,
            all.truncated_reason
        ),
        (5, 4, false, None)
    );
    let some = search(
        dir.path(),
        &TextSearchRequest {
            limit: 3,
            ..TextSearchRequest::new("hit")
        },
    );
    assert_eq!(found(&some), found(&all)[..3]);
    assert_eq!(
        (some.total_matches, some.truncated, some.truncated_reason),
        (5, true, Some(TruncatedReason::Limit))
    );
    let exact = search(
        dir.path(),
        &TextSearchRequest {
            limit: 5,
            ..TextSearchRequest::new("hit")
        },
    );
    assert!(!exact.truncated);
}

#[test]
fn the_first_matches_are_kept_whichever_thread_searches_first() {
    // Many notes with uneven numbers of matches: the parallel search must
    // return exactly the first `limit` of the full answer.
    let files: Vec<(String, Vec<u8>)> = (0..300)
        .map(|n| {
            let hits = (n * 7) % 5;
            let text: String = (0..hits).map(|h| format!("pad\nhit {n} {h}\n")).collect();
            (format!("f{n:03}.md"), text.into_bytes())
        })
        .collect();
    let borrowed: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    let dir = vault(&borrowed);
    let all = search(
        dir.path(),
        &TextSearchRequest {
            limit: 1000,
            answer_bytes: None,
            ..TextSearchRequest::new("hit")
        },
    );
    assert!(!all.truncated);
    for limit in [1, 7, 50, 333] {
        let some = search(
            dir.path(),
            &TextSearchRequest {
                limit,
                answer_bytes: None,
                ..TextSearchRequest::new("hit")
            },
        );
        assert_eq!(some.matches, all.matches[..limit], "limit {limit}");
        assert_eq!(some.total_matches, all.total_matches);
        assert_eq!(some.files_searched, 300);
    }
}

#[test]
fn hidden_folders_links_out_and_other_files_are_never_searched() {
    let outside = vault(&[("secret.md", b"needle outside\n")]);
    let dir = vault(&[
        ("in.md", b"needle in\n"),
        (".obsidian/h.md", b"needle hidden\n"),
        (".trash/t.md", b"needle trash\n"),
        (".git/g.md", b"needle git\n"),
        (".quire/q.md", b"needle quire\n"),
        ("notes.txt", b"needle text\n"),
        ("sub/.hidden.md", b"needle dot file\n"),
    ]);
    std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret.md"),
        dir.path().join("secret.md"),
    )
    .unwrap();
    std::os::unix::fs::symlink(dir.path().join("in.md"), dir.path().join("alias.md")).unwrap();
    let result = search(dir.path(), &TextSearchRequest::new("needle"));
    assert_eq!(
        found(&result),
        [("alias.md".to_owned(), 1), ("in.md".to_owned(), 1)]
    );
    assert_eq!((result.files_searched, result.files_skipped), (2, 0));
    let error = search_in(dir.path(), "out", &TextSearchRequest::new("needle")).unwrap_err();
    assert!(
        error.is_invalid() && error.to_string().contains("outside"),
        "{error}"
    );
}

#[test]
fn a_folder_narrows_the_search_and_nfd_names_are_found_by_their_nfc_path() {
    let dir = vault(&[
        ("Cafe\u{301}/Re\u{301}sume\u{301}.md", b"needle nfd\n"),
        ("p/a.md", b"needle p\n"),
        ("p/q/b.md", b"needle q\n"),
        ("pp/c.md", b"needle pp\n"),
    ]);
    let p = search_in(dir.path(), "p", &TextSearchRequest::new("needle")).unwrap();
    assert_eq!(
        found(&p),
        [("p/a.md".to_owned(), 1), ("p/q/b.md".to_owned(), 1)]
    );
    let cafe = search_in(dir.path(), "Caf\u{e9}", &TextSearchRequest::new("needle")).unwrap();
    assert_eq!(
        found(&cafe),
        [("Caf\u{e9}/R\u{e9}sum\u{e9}.md".to_owned(), 1)]
    );
    let all = search(dir.path(), &TextSearchRequest::new("needle"));
    assert_eq!(all.matches[0].path, "Caf\u{e9}/R\u{e9}sum\u{e9}.md");
    let missing = search_in(dir.path(), "nowhere", &TextSearchRequest::new("needle")).unwrap_err();
    assert!(missing.is_not_found(), "{missing}");
    let file = search_in(dir.path(), "p/a.md", &TextSearchRequest::new("needle")).unwrap_err();
    assert!(
        file.is_invalid() && file.to_string().contains("not a folder"),
        "{file}"
    );
}

#[test]
fn a_note_over_the_size_limit_or_a_fifo_is_skipped_and_counted() {
    let dir = vault(&[("small.md", b"needle\n")]);
    let big = std::fs::File::create(dir.path().join("big.md")).unwrap();
    std::io::Write::write_all(&mut &big, b"needle\n").unwrap();
    big.set_len(MAX_NOTE_BYTES + 1).unwrap();
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        dir.path().join("pipe.md"),
        rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
    )
    .unwrap();
    let result = search(dir.path(), &TextSearchRequest::new("needle"));
    assert_eq!(found(&result), [("small.md".to_owned(), 1)]);
    assert_eq!((result.files_searched, result.files_skipped), (1, 2));
    let reasons: Vec<(&str, &str)> = result
        .skipped
        .iter()
        .map(|s| (s.path.as_str(), s.reason.as_str()))
        .collect();
    assert_eq!(reasons.len(), 2);
    assert!(
        reasons
            .iter()
            .any(|(p, r)| *p == "big.md" && r.contains("16 MiB")),
        "{reasons:?}"
    );
    assert!(
        reasons
            .iter()
            .any(|(p, r)| *p == "pipe.md" && r.contains("FIFO")),
        "{reasons:?}"
    );
}

#[test]
fn a_passed_deadline_returns_what_was_found_and_says_so() {
    let dir = vault(&[("a.md", b"needle\n"), ("b.md", b"needle\n")]);
    let workspace = Workspace::new(dir.path()).unwrap();
    let result = search_text(
        &workspace,
        &FolderPath::root(),
        &TextSearchRequest::new("needle"),
        Instant::now(),
    )
    .unwrap();
    assert!(result.truncated);
    assert_eq!(result.truncated_reason, Some(TruncatedReason::Time));
    assert!(result.matches.len() <= 2 && result.files_searched <= 2);
}

/// Every page of `request`, following each `next_cursor`.
fn pages(root: &Path, request: &TextSearchRequest) -> Vec<TextSearch> {
    let mut answers = Vec::new();
    let mut cursor = None;
    loop {
        let answer = search(
            root,
            &TextSearchRequest {
                cursor: cursor.clone(),
                ..request.clone()
            },
        );
        cursor = answer.next_cursor.clone();
        answers.push(answer);
        if cursor.is_none() {
            return answers;
        }
        assert!(answers.len() < 10_000, "the cursor does not advance");
    }
}

#[test]
fn cursors_page_through_every_match_once_in_order() {
    let files: Vec<(String, Vec<u8>)> = (0..120)
        .map(|n| {
            let hits = (n * 7) % 5;
            let text: String = (0..hits)
                .map(|h| format!("pad {n}\nhit {n} {h}\n"))
                .collect();
            (format!("f{n:03}.md"), text.into_bytes())
        })
        .collect();
    let borrowed: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    let dir = vault(&borrowed);
    let all = search(
        dir.path(),
        &TextSearchRequest {
            limit: 1000,
            answer_bytes: None,
            ..TextSearchRequest::new("hit")
        },
    );
    assert_eq!((all.truncated, all.next_cursor.as_deref()), (false, None));
    assert_eq!(all.notes_matched, 96);
    for (limit, answer_bytes) in [(1, None), (7, None), (100, Some(300)), (1000, Some(2_000))] {
        let request = TextSearchRequest {
            limit,
            answer_bytes,
            ..TextSearchRequest::new("hit")
        };
        let answers = pages(dir.path(), &request);
        let paged: Vec<SearchMatch> = answers.iter().flat_map(|a| a.matches.clone()).collect();
        assert_eq!(paged, all.matches, "limit {limit}, budget {answer_bytes:?}");
        for answer in &answers {
            assert_eq!(answer.total_matches, all.total_matches);
            assert_eq!(answer.notes_matched, all.notes_matched);
            assert!(!answer.matches.is_empty());
            let reason = answer.next_cursor.as_ref().map(|_| answer.truncated_reason);
            let expected = match answer_bytes {
                None => Some(TruncatedReason::Limit),
                Some(_) => Some(TruncatedReason::Size),
            };
            assert!(reason.is_none() || reason == Some(expected), "{reason:?}");
        }
        let last = answers.last().unwrap();
        assert_eq!((last.truncated, last.truncated_reason), (false, None));
    }
}

#[test]
fn the_answer_budget_stops_before_the_match_that_would_pass_it() {
    let long = "x".repeat(400);
    let text: String = (0..100).map(|n| format!("hit {n} {long}\n")).collect();
    let dir = vault(&[("a.md", text.as_bytes())]);
    let answer = search(
        dir.path(),
        &TextSearchRequest {
            context_lines: 0,
            answer_bytes: Some(4_000),
            ..TextSearchRequest::new("hit")
        },
    );
    // Each match costs about 460 bytes: eight fit in 4,000.
    assert_eq!(answer.matches.len(), 8);
    assert_eq!(answer.truncated_reason, Some(TruncatedReason::Size));
    assert_eq!(answer.total_matches, 100);
    // A single match over the budget is shown all the same.
    let tiny = search(
        dir.path(),
        &TextSearchRequest {
            answer_bytes: Some(10),
            ..TextSearchRequest::new("hit 5")
        },
    );
    assert_eq!(tiny.matches.len(), 1);
    assert!(tiny.truncated);
}

#[test]
fn a_cursor_resumes_after_a_deleted_note_and_a_foreign_cursor_is_refused() {
    let dir = vault(&[
        ("a.md", b"hit\nhit\n"),
        ("b.md", b"hit\n"),
        ("c.md", b"hit\n"),
    ]);
    let first = search(
        dir.path(),
        &TextSearchRequest {
            limit: 3,
            ..TextSearchRequest::new("hit")
        },
    );
    assert_eq!(
        found(&first),
        [("a.md".into(), 1), ("a.md".into(), 2), ("b.md".into(), 1)]
    );
    std::fs::remove_file(dir.path().join("b.md")).unwrap();
    let next = search(
        dir.path(),
        &TextSearchRequest {
            cursor: first.next_cursor.clone(),
            ..TextSearchRequest::new("hit")
        },
    );
    assert_eq!(found(&next), [("c.md".into(), 1)]);
    assert_eq!(next.total_matches, 3);
    for cursor in ["p1.61", "s1.zz.1", "s1.61.x", "s1.61", "", "s1.ff.1"] {
        let error = search_in(
            dir.path(),
            "",
            &TextSearchRequest {
                cursor: Some(cursor.into()),
                ..TextSearchRequest::new("hit")
            },
        )
        .unwrap_err();
        assert!(error.is_invalid(), "{cursor}: {error}");
        assert!(error.to_string().contains("next_cursor"), "{error}");
    }
}

#[test]
fn json_lengths_count_escapes() {
    assert_eq!(json_len("plain é"), "plain é".len());
    assert_eq!(json_len("a\"b\\c\nd\te"), 13);
    assert_eq!(json_len("\u{1}"), 6);
}
