//! Pathological inputs, for every preset: huge, deep, blank, binary-ish,
//! multi-byte and oddly line-ended texts. Each must parse without panicking,
//! to the expected state, with every span inside the text; a halted outcome
//! carries exactly one error, and whatever was parsed formats and re-parses
//! without panicking. (No timing assertions: speed is measured by the benches.)

#[path = "support/plan_model.rs"]
mod plan_model;

use plan_model::{check_idempotent, check_spans, keeps_all_text};
use quire_grammar::plan::{
    Code, ParseOutcome, ParseState, ParserConfig, PlanDocument, Preset, format, parse,
};
use quire_grammar::span::Span;

/// What a preset should make of an input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    /// Parsed, with no diagnostic at all.
    Clean,
    /// Parsed, with at least one warning of this code (and no error).
    Warns(Code),
    /// Halted with this error.
    Halts(Code),
}

use Expect::{Clean, Halts, Warns};

/// Parses `text`, checks the invariants every outcome has and the expected
/// state, and formats whatever was parsed.
fn run(text: &str, preset: Preset, expect: Expect) -> ParseOutcome {
    let config = preset.config();
    run_with(text, &config, &format!("{preset}"), expect)
}

fn run_with(text: &str, config: &ParserConfig, name: &str, expect: Expect) -> ParseOutcome {
    let outcome = parse(text, config);
    let shown = shorten(text);
    if let Err(failure) = check_spans(text, &outcome) {
        panic!("{name}, {shown}: {failure}");
    }
    let codes: Vec<Code> = outcome.diagnostics.iter().map(|d| d.code).collect();
    match expect {
        Clean => assert!(
            outcome.state == ParseState::Parsed && codes.is_empty(),
            "{name}, {shown}: expected a clean parse, got {:?} {codes:?}",
            outcome.state
        ),
        Warns(code) => assert!(
            outcome.state == ParseState::Parsed && codes.contains(&code),
            "{name}, {shown}: expected a parse warning {code:?}, got {:?} {codes:?}",
            outcome.state
        ),
        Halts(code) => {
            let errors: Vec<_> = outcome
                .diagnostics
                .iter()
                .filter(|d| d.is_error())
                .collect();
            // The first error is why it halted; reading on may find more.
            assert!(
                outcome.state == ParseState::Halted && errors[0].code == code,
                "{name}, {shown}: expected a halt at {code:?}, got {:?} {codes:?}",
                outcome.state
            );
            let span = errors[0].span;
            assert!(span.end <= text.len() && text.get(span.range()).is_some());
        }
    }
    // Whatever was parsed, even before a halt, formats and parses again.
    let formatted = format(&outcome.document, config);
    let again = parse(&formatted, config);
    if let Err(failure) = check_spans(&formatted, &again) {
        panic!("{name}, {shown}: re-parse of the formatted text: {failure}");
    }
    if keeps_all_text(&outcome)
        && let Err(failure) = check_idempotent(&outcome, config)
    {
        panic!("{name}, {shown}: {}", shorten(&failure));
    }
    outcome
}

/// Runs `text` with every preset, in the order of [`Preset::ALL`]
/// (commit-message, markdown-tasks, yaml-like, strict).
fn run_all(text: &str, expect: [Expect; 4]) -> [ParseOutcome; 4] {
    let mut outcomes = Preset::ALL
        .iter()
        .zip(expect)
        .map(|(&preset, expect)| run(text, preset, expect));
    std::array::from_fn(|_| outcomes.next().unwrap())
}

fn shorten(text: &str) -> String {
    let shown: String = text.chars().take(80).collect();
    if shown.len() < text.len() {
        format!("{shown:?}... ({} bytes)", text.len())
    } else {
        format!("{shown:?}")
    }
}

/// A valid header in `preset`'s syntax.
fn header(preset: Preset) -> &'static str {
    match preset {
        Preset::CommitMessage | Preset::Strict => "feat(core): Plan",
        Preset::MarkdownTasks => "# Plan",
        Preset::YamlLike => "title: Plan",
    }
}

/// A task line in `preset`'s syntax.
fn task(preset: Preset, depth: usize, text: &str) -> String {
    let config = preset.config();
    let indent = " ".repeat(depth * config.indent_size);
    match preset {
        Preset::CommitMessage | Preset::Strict => format!("{indent}- [ ]: {text}"),
        Preset::MarkdownTasks => format!("{indent}- [ ] {text}"),
        Preset::YamlLike => format!("{indent}- task: {text} ( )"),
    }
}

/// A constraint line in `preset`'s syntax.
fn constraint(preset: Preset) -> &'static str {
    match preset {
        Preset::CommitMessage | Preset::Strict => "- Never: skip tests",
        Preset::MarkdownTasks => "> Never: skip tests",
        Preset::YamlLike => "never: skip tests",
    }
}

fn over_limit(text: &str, preset: Preset) -> bool {
    text.chars().count() > preset.config().max_input_length
}

/// `expect`, or the input-length halt when `text` is over `preset`'s limit.
fn unless_too_long(text: &str, preset: Preset, expect: Expect) -> Expect {
    if over_limit(text, preset) {
        Halts(Code::InputTooLong)
    } else {
        expect
    }
}

const LIMIT: usize = 100_000;

// ---------------------------------------------------------------- tests ---

#[test]
fn a_hundred_thousand_dashes() {
    let dashes = "-".repeat(LIMIT);
    let [commit, .., strict] = run_all(
        &dashes,
        [
            Halts(Code::InvalidHeader),
            Halts(Code::InvalidHeader),
            Halts(Code::InvalidHeader),
            Halts(Code::InputTooLong),
        ],
    );
    // The label is at the first character the header rule cannot take.
    assert_eq!(commit.halt_reason().unwrap().span, Span::new(0, 1));
    assert_eq!(strict.halt_reason().unwrap().span, Span::new(10_000, LIMIT));

    for preset in Preset::ALL {
        // A line of dashes is description text, not a task.
        let head = format!("{}\n\n", header(preset));
        let text = format!("{head}{}", "-".repeat(LIMIT - head.len()));
        let expect = unless_too_long(&text, preset, Clean);
        let outcome = run(&text, preset, expect);
        if expect == Clean {
            assert_eq!(
                outcome.document.description().unwrap().len(),
                LIMIT - head.len()
            );
        }
        // Lines holding one dash are empty tasks.
        let lines = "-\n".repeat((LIMIT - head.len()) / 2);
        let text = format!("{head}{lines}");
        let expect = unless_too_long(&text, preset, Halts(Code::EmptyTask));
        run(&text, preset, expect);
    }
}

#[test]
fn a_hundred_thousand_blank_lines() {
    for blank in ["\n", "\r\n", " \n", "\t\r\n", "\r"] {
        let text = blank.repeat(LIMIT / blank.len());
        // Blank text is the empty document, however long.
        for outcome in run_all(&text, [Clean; 4]) {
            assert!(outcome.document.is_empty());
        }
    }
    for preset in Preset::ALL {
        let head = format!("{}\n", header(preset));
        let text = format!("{head}{}", "\n".repeat(LIMIT - head.len()));
        let expect = unless_too_long(&text, preset, Clean);
        let outcome = run(&text, preset, expect);
        if expect == Clean {
            assert!(outcome.document.header.is_some());
            assert!(outcome.document.description.is_none());
        }
        // A text that starts with a blank line halts, however long: that is
        // checked before the length.
        let text = "\n".repeat(LIMIT).replace("\n\n\n\n", "\n\n\nx");
        run(&text, preset, Halts(Code::LeadingBlankLine));
    }
}

#[test]
fn tasks_nested_ever_deeper() {
    for preset in Preset::ALL {
        let config = preset.config();
        let mut text = format!("{}\n\n", header(preset));
        let mut depth = 0;
        while text.len() < LIMIT - 1000 {
            text.push_str(&task(preset, depth, "t"));
            text.push('\n');
            depth += 1;
        }
        if over_limit(&text, preset) {
            run(&text, preset, Halts(Code::InputTooLong));
            // A shorter one fits even the strict limit.
            text.truncate(
                text.match_indices('\n')
                    .map(|(i, _)| i + 1)
                    .take_while(|&end| end < config.max_input_length)
                    .last()
                    .unwrap(),
            );
        }
        let outcome = run(&text, preset, Halts(Code::NestingTooDeep));
        // The chain of tasks up to the deepest allowed level is kept.
        let depths: Vec<usize> = outcome
            .document
            .tasks_depth_first()
            .map(|(depth, _)| depth)
            .collect();
        assert_eq!(
            depths,
            (0..=config.max_nesting_depth).collect::<Vec<_>>(),
            "{preset}"
        );

        // One more space per level nests just as deep, by tree depth.
        let mut text = format!("{}\n\n", header(preset));
        for width in 0..200 {
            text.push_str(&" ".repeat(width));
            text.push_str(task(preset, 0, "t").as_str());
            text.push('\n');
        }
        let expect = unless_too_long(&text, preset, Halts(Code::NestingTooDeep));
        let outcome = run(&text, preset, expect);
        if expect == Halts(Code::NestingTooDeep) {
            assert_eq!(
                outcome.document.tasks_depth_first().count(),
                config.max_nesting_depth + 1
            );
        }
    }

    // `- [ ]: ` lines without text, nested ever deeper, are empty tasks in
    // the checkbox syntaxes and description text in the YAML-like one.
    let mut lines = String::new();
    for depth in 0..300 {
        lines.push_str(&" ".repeat(depth));
        lines.push_str("- [ ]: \n");
    }
    for preset in Preset::ALL {
        let text = format!("{}\n\n{lines}", header(preset));
        let expect = match preset {
            Preset::Strict => Halts(Code::InputTooLong),
            Preset::YamlLike => Clean,
            Preset::CommitMessage | Preset::MarkdownTasks => Halts(Code::EmptyTask),
        };
        run(&text, preset, expect);
    }
}

#[test]
fn a_hundred_thousand_character_title() {
    for preset in Preset::ALL {
        for unit in ["a", "é", "😀"] {
            let head = header(preset).replace("Plan", "");
            let title = unit.repeat(LIMIT - head.len());
            let text = format!("{head}{title}");
            assert_eq!(text.chars().count(), LIMIT);
            if preset == Preset::Strict {
                run(&text, preset, Halts(Code::InputTooLong));
                continue;
            }
            let outcome = run(&text, preset, Halts(Code::TitleTooLong));
            // The header is kept, without its title; the error is at the title.
            let header = outcome.document.header().unwrap();
            assert_eq!(header.title(), None);
            let reason = outcome.halt_reason().unwrap();
            assert_eq!(reason.span, Span::new(head.len(), text.len()));
        }
        // A title of exactly the limit is fine, in characters not bytes.
        let head = header(preset).replace("Plan", "");
        let max = preset.config().max_title_length;
        let text = format!("{head}{}", "é".repeat(max));
        run(&text, preset, Clean);
        let text = format!("{head}{}", "é".repeat(max + 1));
        run(&text, preset, Halts(Code::TitleTooLong));
    }
}

#[test]
fn a_description_of_fifty_thousand_lines() {
    for preset in Preset::ALL {
        for ending in ["\n", "\r\n"] {
            let lines = vec!["d"; 50_000].join(ending);
            let text = format!("{}{ending}{ending}{lines}", header(preset));
            // Fifty thousand lines do not fit in 100 000 characters...
            run(&text, preset, Halts(Code::InputTooLong));
            // ...but parse with a higher limit.
            let roomy = ParserConfig {
                max_input_length: 1_000_000,
                ..preset.config()
            };
            let outcome = run_with(&text, &roomy, &format!("roomy {preset}"), Clean);
            let description = outcome.document.description.unwrap();
            assert_eq!(description.lines().count(), 50_000);
            assert_eq!(description.span.end, text.len());
            // A blank line and more text after them halts at that text.
            let text = format!("{text}{ending}{ending}more");
            let outcome = run_with(
                &text,
                &roomy,
                &format!("roomy {preset}"),
                Halts(Code::BlankLineInDescription),
            );
            let reason = outcome.halt_reason().unwrap();
            assert_eq!(&text[reason.span.range()], "more");
        }
    }
}

#[test]
fn a_thousand_and_a_thousand_and_one_tasks() {
    for preset in Preset::ALL {
        let config = preset.config();
        for count in [
            999,
            1000,
            1001,
            config.max_task_count,
            config.max_task_count + 1,
        ] {
            let tasks: Vec<String> = (0..count)
                .map(|i| task(preset, i % 3, &format!("t{i}")))
                .collect();
            let text = format!(
                "{}\n\nWhy.\n{}\n{}\n\nGo on from here",
                header(preset),
                constraint(preset),
                tasks.join("\n")
            );
            let expect = if count > config.max_task_count {
                Halts(Code::TooManyTasks)
            } else {
                Clean
            };
            let expect = unless_too_long(&text, preset, expect);
            let outcome = run(&text, preset, expect);
            if expect == Halts(Code::InputTooLong) {
                assert!(outcome.document.is_empty());
                continue;
            }
            let kept = outcome.document.tasks_depth_first().count();
            assert_eq!(kept, count.min(config.max_task_count), "{preset} {count}");
            if let Halts(_) = expect {
                // The error points at the first task over the limit.
                let reason = outcome.halt_reason().unwrap();
                assert_eq!(
                    text[reason.span.range()],
                    tasks[config.max_task_count],
                    "{preset}"
                );
                assert!(outcome.document.direction.is_none());
            } else {
                assert_eq!(outcome.document.direction(), Some("Go on from here"));
            }
        }
    }
}

#[test]
fn nul_bytes() {
    let halt = [Halts(Code::NulByte); 4];
    for outcome in run_all("\0", halt) {
        assert_eq!(outcome.halt_reason().unwrap().span, Span::new(0, 1));
        assert!(outcome.document.is_empty());
    }
    run_all(
        &"\0".repeat(LIMIT),
        [
            Halts(Code::NulByte),
            Halts(Code::NulByte),
            Halts(Code::NulByte),
            Halts(Code::InputTooLong),
        ],
    );
    for preset in Preset::ALL {
        let text = format!("{}\n\nWhy é.\n{}\0", header(preset), task(preset, 0, "t"));
        let outcome = run(&text, preset, Halts(Code::NulByte));
        let span = outcome.halt_reason().unwrap().span;
        assert_eq!(span, Span::new(text.len() - 1, text.len()));
        // The NUL check comes before the header is read.
        assert!(outcome.document.is_empty());
        run(
            &format!("é\0{}", header(preset)),
            preset,
            Halts(Code::NulByte),
        );
        run(
            &format!("\n\0{}", header(preset)),
            preset,
            Halts(Code::LeadingBlankLine),
        );
        run(
            &format!("\r\n\0{}", header(preset)),
            preset,
            Halts(Code::LeadingBlankLine),
        );
    }
}

#[test]
fn lone_carriage_returns() {
    for text in ["\r", "\r\r\r", "\r \r\n\r"] {
        for outcome in run_all(text, [Clean; 4]) {
            assert!(outcome.document.is_empty());
        }
    }
    for preset in Preset::ALL {
        let head = header(preset);
        // A lone `\r` is not a line ending: it stays in the line.
        let outcome = run(&format!("{head}\r\rmore"), preset, Clean);
        let header = outcome.document.header().unwrap();
        assert_eq!(header.title(), Some("Plan\r\rmore"));
        // Carriage returns at the end of a line belong to its line ending,
        // so a line holding only `\r` is blank.
        run(&format!("{head}\n\r\nWhy."), preset, Clean);
        run(
            &format!("{head}\n\rWhy."),
            preset,
            Halts(Code::MissingBlankLine),
        );
        run(&format!("{head}\n\r"), preset, Clean);
        // `\r\r\n` is one line ending.
        let text = format!("{head}\n\nWhy.\r\r\nMore.\r");
        let outcome = run(&text, preset, Clean);
        assert_eq!(outcome.document.description(), Some("Why.\nMore."));
        // Tasks separated by lone `\r` are one task.
        let text = format!(
            "{head}\n\n{}\r{}",
            task(preset, 0, "a"),
            task(preset, 0, "b")
        );
        let outcome = run(&text, preset, Clean);
        assert_eq!(outcome.document.tasks_depth_first().count(), 1);
        // A task list split by a line holding only `\r`: still one list.
        let text = format!(
            "{head}\n\n{}\n\r\n{}",
            task(preset, 0, "a"),
            task(preset, 0, "b")
        );
        let outcome = run(&text, preset, Clean);
        assert_eq!(outcome.document.tasks_depth_first().count(), 2);
    }
}

#[test]
fn mixed_crlf_and_lf_read_as_lf() {
    for preset in Preset::ALL {
        let lines = [
            header(preset).to_owned(),
            String::new(),
            "Why this plan.".to_owned(),
            "And more why.".to_owned(),
            constraint(preset).to_owned(),
            String::new(),
            task(preset, 0, "a"),
            task(preset, 1, "b"),
            String::new(),
            task(preset, 0, "c"),
            String::new(),
            "Go on".to_owned(),
            "then stop".to_owned(),
        ];
        let lf = lines.join("\n");
        let expected = serde_json::to_value(run(&lf, preset, Clean)).unwrap();
        for pattern in [[true, false], [false, true], [true, true]] {
            let mut mixed = String::new();
            for (i, line) in lines.iter().enumerate() {
                if i > 0 {
                    mixed.push_str(if pattern[i % 2] { "\r\n" } else { "\n" });
                }
                mixed.push_str(line);
            }
            for trailing in ["", "\n", "\r\n"] {
                let text = format!("{mixed}{trailing}");
                let outcome = run(&text, preset, Clean);
                assert_eq!(
                    serde_json::to_value(&outcome).unwrap(),
                    expected,
                    "{preset}: {text:?}"
                );
            }
        }
    }
}

#[test]
fn multi_byte_utf8_everywhere() {
    for preset in Preset::ALL {
        let config = preset.config();
        let head = match preset {
            Preset::CommitMessage | Preset::Strict => "feat(中文/é)!: 😀 Ünïcödé ✓",
            Preset::MarkdownTasks => "# 😀 Ünïcödé ✓",
            Preset::YamlLike => "title: 😀 Ünïcödé ✓",
        };
        let text = format!(
            "{head}\n\nΔ description 中文 e\u{301}\n👩‍👩‍👧 family\n{}\n{}\n{}\n{}\n\n→ direction 🚀\n第二行",
            match preset {
                Preset::CommitMessage | Preset::Strict => "- Never: use ünïcödé 😀",
                Preset::MarkdownTasks => "> Ñever: ünïcödé 😀",
                Preset::YamlLike => "never: ünïcödé 😀",
            },
            task(preset, 0, "タスク 😀"),
            task(preset, 1, "é\u{301}"),
            task(preset, 2, "🚀🚀"),
        );
        let outcome = run(&text, preset, Clean);
        assert_eq!(outcome.document.tasks_depth_first().count(), 3, "{preset}");
        assert_eq!(outcome.document.direction(), Some("→ direction 🚀\n第二行"));
        // Whitespace that is not ASCII indents, as one character each.
        for space in ["\u{3000}", "\u{a0}", "\u{2003}"] {
            let text = format!(
                "{}\n\n{}\n{space}{}",
                header(preset),
                task(preset, 0, "a"),
                task(preset, 0, "b")
            );
            let outcome = run(&text, preset, Warns(Code::IrregularIndent));
            let first = outcome.document.tasks().next().unwrap();
            assert_eq!(first.children().len(), 1, "{preset} {space:?}");
        }
        // The input limit counts characters, so an error span starts on a
        // character boundary far past the limit in bytes.
        let limit = config.max_input_length;
        let text = "é".repeat(limit + 1);
        let outcome = run(&text, preset, Halts(Code::InputTooLong));
        assert_eq!(
            outcome.halt_reason().unwrap().span,
            Span::new(2 * limit, 2 * limit + 2)
        );
        run(&"é".repeat(limit), preset, Halts(Code::InvalidHeader));
    }
}

#[test]
fn two_hundred_thousand_characters() {
    let plain = "a".repeat(2 * LIMIT);
    let outcomes = run_all(&plain, [Halts(Code::InputTooLong); 4]);
    for (outcome, preset) in outcomes.iter().zip(Preset::ALL) {
        let limit = preset.config().max_input_length;
        assert_eq!(
            outcome.halt_reason().unwrap().span,
            Span::new(limit, 2 * LIMIT)
        );
        assert!(outcome.document.is_empty());
    }
    for preset in Preset::ALL {
        // A well-formed plan over the limit halts before anything is read.
        let mut text = format!("{}\n\nWhy.\n", header(preset));
        let mut i = 0;
        while text.len() <= 2 * LIMIT {
            text.push_str(&task(preset, i % 2, &format!("task {i}")));
            text.push('\n');
            i += 1;
        }
        let outcome = run(&text, preset, Halts(Code::InputTooLong));
        assert!(outcome.document.is_empty());
        // One character over the limit is enough.
        let limit = preset.config().max_input_length;
        let text = format!("{}\n\n{}", header(preset), "d".repeat(limit));
        run(&text, preset, Halts(Code::InputTooLong));
        let text: String = text.chars().take(limit).collect();
        run(&text, preset, Clean);
    }
}

#[test]
fn tabs_as_indentation() {
    for preset in Preset::ALL {
        let config = preset.config();
        let head = header(preset);
        // Each tab is one character of indentation: irregular, but it nests.
        let text = format!(
            "{head}\n\n{}\n\t{}\n\t\t{}\n\t{}",
            task(preset, 0, "a"),
            task(preset, 0, "b"),
            task(preset, 0, "c"),
            task(preset, 0, "d"),
        );
        let outcome = run(&text, preset, Warns(Code::IrregularIndent));
        let walked: Vec<(usize, &str)> = outcome
            .document
            .tasks_depth_first()
            .map(|(depth, task)| (depth, task.text.as_str()))
            .collect();
        assert_eq!(walked, [(0, "a"), (1, "b"), (2, "c"), (1, "d")], "{preset}");
        let warnings = outcome
            .diagnostics
            .iter()
            .filter(|d| d.code == Code::IrregularIndent)
            .count();
        assert_eq!(warnings, 3);
        // The formatter rewrites the indentation with spaces.
        let formatted = format(&outcome.document, &config);
        assert!(!formatted.contains('\t'), "{formatted:?}");
        run(&formatted, preset, Clean);

        // Tabs past the deepest level.
        let width = config.max_nesting_depth * config.indent_size + 1;
        let text = format!(
            "{head}\n\n{}\n{}{}",
            task(preset, 0, "a"),
            "\t".repeat(width),
            task(preset, 0, "b")
        );
        let outcome = run(&text, preset, Halts(Code::NestingTooDeep));
        assert_eq!(outcome.document.tasks_depth_first().count(), 1);

        // A tab before the header, and tab-only lines.
        run(&format!("\t{head}"), preset, Halts(Code::InvalidHeader));
        // A tab-only line is a blank line.
        run(&format!("{head}\n\t\nWhy."), preset, Clean);
        run(
            &format!("{head}\n\nWhy.\n\t\nmore"),
            preset,
            Halts(Code::BlankLineInDescription),
        );
        // Tabs inside a task's text are kept.
        let text = format!("{head}\n\n{}", task(preset, 0, "a\tb\t"));
        let outcome = run(&text, preset, Clean);
        let first = outcome.document.tasks().next().unwrap();
        assert_eq!(first.text(), "a\tb\t");
    }
}

#[test]
fn a_leading_byte_order_mark_is_skipped() {
    for preset in Preset::ALL {
        // Spans still count the mark's three bytes.
        let text = format!("\u{feff}{}\n\nWhy.", header(preset));
        let outcome = run(&text, preset, Clean);
        assert_eq!(outcome.document.header.unwrap().span.start, 3);
        // A mark and nothing else is an empty document.
        let outcome = run("\u{feff}", preset, Clean);
        assert!(outcome.document.is_empty());
        // Anywhere else it is just a character.
        let text = format!("{}\u{feff}\n\n\u{feff}Why.", header(preset));
        run(&text, preset, Clean);
    }
}

#[test]
fn many_lines_that_warn() {
    for preset in [Preset::CommitMessage, Preset::MarkdownTasks] {
        let bad = match preset {
            Preset::MarkdownTasks => "> Key:value: x",
            _ => "- never: Do",
        };
        let lines = vec![bad; 5_000].join("\n");
        let text = format!("{}\n\n{lines}\n{}", header(preset), task(preset, 0, "a"));
        let outcome = run(&text, preset, Warns(Code::ConstraintIgnored));
        assert!(outcome.diagnostics.len() >= 5_000);
    }
}

#[test]
fn an_empty_or_odd_document_formats_without_panicking() {
    for preset in Preset::ALL {
        let config = preset.config();
        assert_eq!(format(&PlanDocument::default(), &config), "");
        // Sections with nothing in them.
        let odd = PlanDocument {
            constraints: Some(Vec::new()),
            tasks: Some(Vec::new()),
            ..PlanDocument::default()
        };
        let text = format(&odd, &config);
        assert_eq!(text, "");
    }
}

/// Known limitation: a text of exactly `max_input_length` characters parses,
/// but the formatter adds a final newline (and blank lines between sections),
/// so formatting the result gives a text over the limit, which halts.
#[test]
#[ignore = "known limitation: formatting a text at the input limit can exceed the limit"]
fn a_text_at_the_limit_formats_to_a_text_that_parses() {
    let config = ParserConfig::COMMIT_MESSAGE;
    let head = "feat(core): Plan\n\n";
    let text = format!("{head}{}", "d".repeat(LIMIT - head.len()));
    assert_eq!(parse(&text, &config).state, ParseState::Parsed);
    let formatted = format(&parse(&text, &config).document, &config);
    assert_eq!(parse(&formatted, &config).state, ParseState::Parsed);
}
