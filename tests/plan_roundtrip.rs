//! Property tests of the plan parser and formatter.
//!
//! 1. Documents the grammar can express (random documents made expressible by
//!    `support::plan_model::sanitize`) survive `format` then `parse` unchanged,
//!    in every preset's syntax.
//! 2. Random line-structured texts never make the parser panic or give a span
//!    outside the text, and when they parse without losing text, formatting
//!    is idempotent.
//!
//! 3. An LF text and its CRLF version parse the same.
//!
//! Case counts are kept low enough for a debug `cargo test` in about ten
//! seconds; raise them with `PROPTEST_CASES=N` for a longer run (a release
//! build runs 200 000 cases of each in about a minute).

#[path = "support/plan_model.rs"]
mod plan_model;

use plan_model::{
    check_idempotent, check_roundtrip, check_spans, keeps_all_text, presets, same_content, sanitize,
};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use quire_grammar::plan::{
    Constraint, Header, ParseState, ParserConfig, PlanDocument, Task, format, parse,
};
use quire_grammar::span::{Span, Spanned};

/// `PROPTEST_CASES` when set, else `default`.
fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

// ----------------------------------------------------------- characters ---

/// Mostly plain ASCII, with the characters the grammar cares about and some
/// that are whitespace (not all ASCII), multi-byte, combining, a BOM or a
/// lone `\r`.
fn any_char() -> impl Strategy<Value = char> {
    prop_oneof![
        10 => proptest::char::range('a', 'z'),
        2 => proptest::char::range('A', 'Z'),
        4 => Just(' '),
        3 => select(vec!['-', '[', ']', '>', ':', '(', ')', '#', '!', 'x', '_', '.', '0', '9']),
        2 => select(vec![
            '\t', '\r', '\u{a0}', '\u{2028}', '\u{3000}', '\u{feff}', 'é', 'ß', '中', '😀',
            '\u{301}', '\u{7f}',
        ]),
    ]
}

fn text(max: usize) -> impl Strategy<Value = String> {
    vec(any_char(), 0..max).prop_map(String::from_iter)
}

/// Text for document values: may also hold the line endings and NULs that
/// `sanitize` has to remove.
fn raw_text(max: usize) -> impl Strategy<Value = String> {
    let raw_char = prop_oneof![40 => any_char(), 1 => select(vec!['\n', '\0'])];
    vec(raw_char, 0..max).prop_map(String::from_iter)
}

fn tricky_start() -> impl Strategy<Value = &'static str> {
    select(vec![
        "",
        "",
        "",
        "- ",
        "-",
        "- [x]: ",
        "- [ ] ",
        "[x]",
        "> ",
        "> K: ",
        "key: ",
        "- Never: ",
        "  - [ ]: ",
        "- task: ",
        " ",
        "\t",
        "title: ",
        "# ",
        "(x)",
        "\r",
    ])
}

/// Text that often starts like a grammar construct.
fn tricky_text(max: usize) -> impl Strategy<Value = String> {
    (tricky_start(), text(max)).prop_map(|(start, rest)| format!("{start}{rest}"))
}

fn tricky_raw_text(max: usize) -> impl Strategy<Value = String> {
    (tricky_start(), raw_text(max)).prop_map(|(start, rest)| format!("{start}{rest}"))
}

// ------------------------------------------------------------ documents ---

fn spanned(text: String) -> Spanned<String> {
    Spanned::detached(text)
}

fn header() -> impl Strategy<Value = Header> {
    let commit_type = prop_oneof![4 => "[a-z]{1,8}", 1 => raw_text(6)];
    let scope = prop::option::weighted(0.8, prop_oneof![4 => "[a-z/._-]{1,10}", 1 => raw_text(8)]);
    let title = prop::option::weighted(
        0.9,
        prop_oneof![
            6 => raw_text(40),
            1 => raw_text(200),
            1 => Just("x".repeat(120)),
            1 => Just("é".repeat(121)),
        ],
    );
    (commit_type, scope, any::<bool>(), title).prop_map(|(commit_type, scope, breaking, title)| {
        Header {
            commit_type: Some(spanned(commit_type)),
            scope: scope.map(spanned),
            breaking,
            title: title.map(spanned),
            span: Span::DETACHED,
        }
    })
}

fn constraint() -> impl Strategy<Value = Constraint> {
    let key = prop_oneof![4 => "[A-Z][a-z ]{0,8}", 1 => "[a-zA-Z0-9_]{1,8}", 1 => raw_text(8)];
    (key, tricky_raw_text(30)).prop_map(|(key, value)| Constraint::new(key, value))
}

fn task(depth: u32) -> impl Strategy<Value = Task> {
    let leaf = (any::<bool>(), tricky_raw_text(24)).prop_map(|(c, t)| Task::new(c, t, Vec::new()));
    leaf.prop_recursive(depth, 48, 4, |inner| {
        (any::<bool>(), tricky_raw_text(24), vec(inner, 0..4))
            .prop_map(|(checked, text, children)| Task::new(checked, text, children))
    })
}

/// A chain of tasks nested up to 7 deep (deeper than any preset allows),
/// each level with a sibling before the next one.
fn deep_tasks() -> impl Strategy<Value = Vec<Task>> {
    vec(
        (any::<bool>(), tricky_raw_text(12), tricky_raw_text(12)),
        1..8,
    )
    .prop_map(|levels| {
        levels
            .into_iter()
            .rev()
            .fold(Vec::new(), |deeper, (checked, sibling, text)| {
                vec![
                    Task::new(!checked, sibling, Vec::new()),
                    Task::new(checked, text, deeper),
                ]
            })
    })
}

fn tasks() -> impl Strategy<Value = Vec<Task>> {
    let many = (900usize..1100).prop_map(|n| {
        (0..n)
            .map(|i| Task::new(i % 3 == 0, format!("Task {i}"), Vec::new()))
            .collect()
    });
    prop_oneof![
        8 => vec(task(6), 0..6),
        3 => deep_tasks(),
        1 => vec(task(0), 40..60),
        1 => many,
    ]
}

fn multiline(max_lines: usize) -> impl Strategy<Value = String> {
    vec(tricky_raw_text(40), 1..max_lines).prop_map(|lines| lines.join("\n"))
}

fn document() -> impl Strategy<Value = PlanDocument> {
    (
        prop::option::weighted(0.95, header()),
        prop::option::weighted(0.7, multiline(6)),
        prop::option::weighted(0.6, vec(constraint(), 0..5)),
        prop::option::weighted(0.8, tasks()),
        prop::option::weighted(0.6, multiline(5)),
    )
        .prop_map(
            |(header, description, constraints, tasks, direction)| PlanDocument {
                header,
                description: description.map(spanned),
                constraints,
                tasks,
                direction: direction.map(spanned),
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(1000)))]

    /// `parse(format(doc))` has the content of `doc` (`same_content`; the
    /// spans differ) for every expressible document, in every preset's
    /// syntax.
    #[test]
    fn expressible_documents_survive_format_then_parse(raw in document()) {
        for (preset, config) in presets() {
            let doc = sanitize(raw.clone(), &config);
            if let Err(failure) = check_roundtrip(&doc, &config) {
                return Err(TestCaseError::fail(format!("{preset}: {failure}")));
            }
        }
    }
}

// ---------------------------------------------------------- line texts ---

fn indent() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => (0usize..11).prop_map(|n| " ".repeat(n)),
        1 => vec(select(vec![' ', '\t', '\u{a0}', '\u{3000}']), 0..6).prop_map(String::from_iter),
    ]
}

fn header_line() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => ("[a-z]{1,6}", "[a-z/é]{1,6}", select(vec!["", "!"]), select(vec![": ", ":", ":  ", ": \t"]), text(30))
            .prop_map(|(t, s, bang, colon, title)| format!("{t}({s}){bang}{colon}{title}")),
        1 => ("[a-z]{1,6}", select(vec![":", ": ", "!:", " :"]), text(12)).prop_map(|(t, colon, rest)| format!("{t}{colon}{rest}")),
        2 => text(30).prop_map(|title| format!("# {title}")),
        2 => text(30).prop_map(|title| format!("title: {title}")),
        1 => text(20),
    ]
}

fn constraint_line() -> impl Strategy<Value = String> {
    let marker = select(vec!["- ", "- ", "> ", "> ", "", "-", ">", "  - "]);
    let key = prop_oneof!["[A-Z][a-z ]{0,6}", "[a-z_0-9]{1,6}", text(6)];
    let sep = select(vec![": ", ": ", ":", " : ", ":  "]);
    (marker, key, sep, tricky_text(20)).prop_map(|(m, k, s, v)| format!("{m}{k}{s}{v}"))
}

fn task_line() -> impl Strategy<Value = String> {
    let marker = select(vec![
        "- [x]: ", "- [ ]: ", "- [ ]: ", "- [x] ", "- [ ] ", "- task: ", "- task: ", "[x]: ",
        "- [X]: ", "-", "- [ ]:", "- [x]", "- [", "- task:",
    ]);
    let suffix = select(vec!["", "", " (x)", " ( )", "(x)", " ( ) "]);
    (indent(), marker, tricky_text(20), suffix).prop_map(|(i, m, t, s)| format!("{i}{m}{t}{s}"))
}

fn any_line() -> impl Strategy<Value = String> {
    prop_oneof![
        1 => header_line(),
        3 => Just(String::new()),
        1 => select(vec![" ", "\t", "  \t ", "\u{a0}"]).prop_map(str::to_owned),
        3 => tricky_text(40),
        3 => constraint_line(),
        5 => task_line(),
        2 => text(5),
    ]
}

fn line_ending() -> impl Strategy<Value = &'static str> {
    prop_oneof![6 => Just("\n"), 3 => Just("\r\n"), 1 => Just("\r")]
}

/// A first line that is usually a header, then random lines with random
/// line endings.
fn line_text() -> impl Strategy<Value = String> {
    let first = prop_oneof![5 => header_line(), 1 => any_line()];
    let rest = vec((line_ending(), any_line()), 0..30);
    let last = prop_oneof![Just(""), line_ending()];
    (first, rest, last).prop_map(|(first, rest, last)| {
        let mut text = first;
        for (ending, line) in rest {
            text.push_str(ending);
            text.push_str(&line);
        }
        text.push_str(last);
        text
    })
}

/// Which preset's syntax a structured text is written in.
#[derive(Clone, Copy, Debug)]
enum Syntax {
    Commit,
    Markdown,
    Yaml,
}

fn plain_words(max: usize) -> impl Strategy<Value = String> {
    prop_oneof![
        3 => proptest::string::string_regex(&format!("[A-Za-z][a-z é中😀]{{0,{max}}}")).unwrap(),
        1 => tricky_text(max),
    ]
}

fn header_in(syntax: Syntax) -> BoxedStrategy<String> {
    match syntax {
        Syntax::Commit => prop_oneof![
            4 => ("[a-z]{1,6}", "[a-z/]{1,6}", select(vec!["", "!"]), plain_words(30))
                .prop_map(|(t, s, bang, title)| format!("{t}({s}){bang}: {title}")),
            1 => header_line(),
        ]
        .boxed(),
        Syntax::Markdown => plain_words(30).prop_map(|t| format!("# {t}")).boxed(),
        Syntax::Yaml => plain_words(30).prop_map(|t| format!("title: {t}")).boxed(),
    }
}

fn constraint_in(syntax: Syntax) -> BoxedStrategy<String> {
    match syntax {
        Syntax::Commit => ("[A-Z][a-z ]{0,6}", "[a-z][a-z :é]{0,12}")
            .prop_map(|(k, v)| format!("- {k}: {v}"))
            .boxed(),
        Syntax::Markdown => (plain_words(8), plain_words(12))
            .prop_map(|(k, v)| format!("> {}: {v}", k.replace(':', "")))
            .boxed(),
        Syntax::Yaml => ("[a-z_0-9]{1,8}", plain_words(12))
            .prop_map(|(k, v)| format!("{k}: {v}"))
            .boxed(),
    }
}

fn task_in(syntax: Syntax) -> BoxedStrategy<String> {
    let indent_size = match syntax {
        Syntax::Yaml => 4,
        Syntax::Commit | Syntax::Markdown => 2,
    };
    let indent = prop_oneof![
        16 => (0usize..5).prop_map(move |depth| " ".repeat(depth * indent_size)),
        1 => Just(" ".repeat(5 * indent_size)),
        1 => indent(),
    ];
    (indent, any::<bool>(), plain_words(16))
        .prop_map(move |(indent, checked, text)| {
            let mark = if checked { 'x' } else { ' ' };
            match syntax {
                Syntax::Commit => format!("{indent}- [{mark}]: {text}"),
                Syntax::Markdown => format!("{indent}- [{mark}] {text}"),
                Syntax::Yaml => format!("{indent}- task: {text} ({mark})"),
            }
        })
        .boxed()
}

/// Mostly blank lines, sometimes whitespace-only ones.
fn blank() -> impl Strategy<Value = String> {
    prop_oneof![6 => Just(String::new()), 1 => select(vec![" ", "\t", "  "]).prop_map(str::to_owned)]
}

fn maybe_blank(line: BoxedStrategy<String>) -> impl Strategy<Value = Vec<String>> {
    (prop::option::weighted(0.2, blank()), line)
        .prop_map(|(blank, line)| blank.into_iter().chain([line]).collect())
}

/// A document in one preset's syntax, section by section, with a few random
/// lines inserted anywhere and random line endings.
fn structured_text() -> impl Strategy<Value = String> {
    select(vec![Syntax::Commit, Syntax::Markdown, Syntax::Yaml]).prop_flat_map(|syntax| {
        let description = vec(plain_words(30), 0..4);
        let constraints = vec(maybe_blank(constraint_in(syntax)), 0..4);
        let tasks = vec(maybe_blank(task_in(syntax)), 0..14);
        let direction = vec(prop_oneof![text(5), plain_words(20), blank()], 0..4);
        let noise = vec((any::<prop::sample::Index>(), any_line()), 0..3);
        let ending = prop_oneof![12 => Just("\n"), 4 => Just("\r\n"), 1 => Just("\r")];
        let endings = vec(ending, 1..4);
        let last = prop_oneof![Just(""), line_ending()];
        (
            header_in(syntax),
            description,
            prop::option::of(blank()),
            constraints,
            tasks,
            direction,
            noise,
            (endings, last),
        )
            .prop_map(
                |(
                    header,
                    description,
                    gap,
                    constraints,
                    tasks,
                    direction,
                    noise,
                    (endings, last),
                )| {
                    let mut lines = vec![header, String::new()];
                    lines.extend(description);
                    lines.extend(gap);
                    lines.extend(constraints.into_iter().flatten());
                    lines.extend(tasks.into_iter().flatten());
                    if !direction.is_empty() {
                        lines.push(String::new());
                        lines.extend(direction);
                    }
                    for (at, line) in noise {
                        lines.insert(at.index(lines.len() + 1), line);
                    }
                    let mut text = String::new();
                    for (i, line) in lines.iter().enumerate() {
                        if i > 0 {
                            text.push_str(endings[i % endings.len()]);
                        }
                        text.push_str(line);
                    }
                    text.push_str(last);
                    text
                },
            )
    })
}

/// Unstructured line mixes find the halts; structured ones get deep into
/// documents that parse.
fn any_text() -> impl Strategy<Value = String> {
    let with_nul = (line_text(), any::<prop::sample::Index>()).prop_map(|(mut text, at)| {
        let at = (0..=at.index(text.len() + 1))
            .rev()
            .find(|&i| text.is_char_boundary(i));
        text.insert(at.unwrap_or(0), '\0');
        text
    });
    prop_oneof![6 => line_text(), 12 => structured_text(), 1 => with_nul]
}

fn check_text(text: &str) -> Result<(), TestCaseError> {
    for (preset, config) in presets() {
        let outcome = parse(text, &config);
        check_spans(text, &outcome)
            .map_err(|failure| TestCaseError::fail(format!("{preset}: {failure}")))?;
        if keeps_all_text(&outcome) {
            check_idempotent(&outcome, &config)
                .map_err(|failure| TestCaseError::fail(format!("{preset}: {failure}")))?;
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(3000)))]

    /// No panic, valid spans, one error per halt, and format idempotence for
    /// texts that parse without losing text.
    #[test]
    fn line_texts_parse_to_valid_spans_and_format_idempotently(text in any_text()) {
        check_text(&text)?;
    }

}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(1000)))]

    /// `same_content` ignores spans: a parsed document has the same content
    /// as the one parsed from its formatted text, and as the one parsed
    /// from that text written with CRLF line endings, whose spans after the
    /// first line differ (so `==` tells those two apart); and it agrees
    /// with comparing the JSON shapes.
    #[test]
    fn a_document_has_the_same_content_as_its_formatted_text(text in structured_text()) {
        for (preset, config) in presets() {
            let outcome = parse(&text, &config);
            if !outcome.is_parsed() || !keeps_all_text(&outcome) {
                continue;
            }
            let formatted = format(&outcome.document, &config);
            let crlf = formatted.replace('\n', "\r\n");
            if crlf.chars().count() > config.max_input_length {
                continue;
            }
            let (lf, crlf_parsed) = (parse(&formatted, &config), parse(&crlf, &config));
            for again in [&lf, &crlf_parsed] {
                prop_assert!(
                    same_content(&again.document, &outcome.document) == Ok(true),
                    "{}: {:?} and {:?}", preset, text, formatted
                );
            }
            if formatted.matches('\n').count() > 1 {
                prop_assert_ne!(&lf.document, &crlf_parsed.document, "{}: {:?}", preset, formatted);
            }
        }
    }

    /// LF text and its CRLF version give the same outcome.
    #[test]
    fn crlf_reads_as_lf(text in any_text()) {
        let lf = text.replace('\r', "");
        let crlf = lf.replace('\n', "\r\n");
        for (preset, config) in presets() {
            let (a, b) = (parse(&lf, &config), parse(&crlf, &config));
            prop_assert_eq!(
                serde_json::to_value(&a).unwrap(),
                serde_json::to_value(&b).unwrap(),
                "{}: {:?}", preset, lf
            );
            let codes = |o: &quire_grammar::plan::ParseOutcome| o.diagnostics.iter().map(|d| d.code).collect::<Vec<_>>();
            prop_assert_eq!(codes(&a), codes(&b), "{}: {:?}", preset, lf);
        }
    }
}

// ------------------------------------------------------ fixed examples ---

#[test]
fn formatted_examples_roundtrip_in_every_preset() {
    let doc = PlanDocument {
        header: Some(Header {
            commit_type: Some(spanned("feat".into())),
            scope: Some(spanned("parser".into())),
            breaking: true,
            title: Some(spanned("Add tasks".into())),
            span: Span::DETACHED,
        }),
        description: Some(spanned("Why: é中😀\n  indented".into())),
        constraints: Some(vec![Constraint::new("Never", "skip tests")]),
        tasks: Some(vec![Task::new(
            false,
            "Parse",
            vec![Task::new(
                true,
                "Lex",
                vec![Task::new(false, "Scan", vec![])],
            )],
        )]),
        direction: Some(spanned("Continue\n\n- [ ]: later".into())),
    };
    for (preset, config) in presets() {
        let doc = sanitize(doc.clone(), &config);
        assert_eq!(check_roundtrip(&doc, &config), Ok(true), "{preset}");
    }
}

#[test]
fn the_empty_document_roundtrips() {
    for (_, config) in presets() {
        assert_eq!(format(&PlanDocument::default(), &config), "");
        let outcome = parse("", &config);
        assert_eq!(outcome.state, ParseState::Parsed);
        assert!(outcome.document.is_empty());
    }
}

/// Sanity check of the generator: it does produce documents with every
/// section, so the round-trip property is not vacuous.
#[test]
fn sanitized_documents_keep_their_sections() {
    let config = ParserConfig::COMMIT_MESSAGE;
    let doc = sanitize(
        PlanDocument {
            header: None,
            description: Some(spanned("- [x]: looks like a task\n\nsecond".into())),
            constraints: Some(vec![Constraint::new("never", "Do it")]),
            tasks: Some(vec![Task::new(false, "  ", vec![])]),
            direction: Some(spanned("abc".into())),
        },
        &config,
    );
    let json = serde_json::to_value(&doc).unwrap();
    assert_eq!(
        json,
        serde_json::json!({
            "header": {"type": "feat", "breaking": false},
            "description": "~- [x]: looks like a task\nsecond",
            "constraints": [["Never", "vDo it"]],
            "tasks": [[false, "  t", []]],
            "direction": "~abc",
        })
    );
    assert_eq!(check_roundtrip(&doc, &config), Ok(true));
}

/// Carriage returns at the end of a line (`a\r\r\n`, or a last line `a\r`)
/// belong to the line ending, so no value ends in one and formatting keeps
/// every value.
#[test]
fn carriage_returns_before_a_line_ending_are_part_of_it() {
    let config = ParserConfig::COMMIT_MESSAGE;
    let outcome = parse("fix(io): Retry\r", &config);
    assert_eq!(outcome.state, ParseState::Parsed);
    assert!(outcome.diagnostics.is_empty());
    assert_eq!(check_idempotent(&outcome, &config), Ok(()));
}

/// Whitespace-only lines are blank lines, and an indented constraint is read
/// (and skipped with a warning), so neither can start a direction that the
/// formatter would write back as tasks or constraints.
#[test]
fn whitespace_lines_and_indented_constraints_do_not_become_the_direction() {
    let config = ParserConfig::COMMIT_MESSAGE;
    let outcome = parse("f(s): t\n\n- [ ]: a\n \n- [ ]: b", &config);
    assert_eq!(outcome.state, ParseState::Parsed);
    assert_eq!(outcome.document.tasks().len(), 2);
    assert_eq!(outcome.document.direction(), None);
    assert_eq!(check_idempotent(&outcome, &config), Ok(()));

    let outcome = parse("f(s): t\n\n- [ ]: a\n \n- [ ]:", &config);
    assert_eq!(
        outcome.halt_reason().map(|d| d.code),
        Some(quire_grammar::plan::Code::EmptyTask)
    );

    let outcome = parse("f(s): t\n\n- A: b\n - C: d", &config);
    assert_eq!(outcome.state, ParseState::Parsed);
    assert_eq!(outcome.document.direction, None);
    assert!(
        !keeps_all_text(&outcome),
        "the indented constraint is reported"
    );
}
