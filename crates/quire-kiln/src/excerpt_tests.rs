use proptest::prelude::*;

use super::*;

fn read(text: &str, selection: LineSelection) -> Excerpt<'_> {
    select_lines(text, selection, ExcerptLimits::default())
}

fn range(start: usize, end: Option<usize>) -> LineSelection {
    LineSelection::Range { start, end }
}

#[test]
fn lines_are_counted_as_a_reader_counts_them() {
    for (text, total) in [
        ("", 0),
        ("a", 1),
        ("a\n", 1),
        ("a\nb", 2),
        ("a\r\nb\r\n", 2),
        ("\n", 1),
        ("\n\n", 2),
    ] {
        assert_eq!(
            read(text, LineSelection::Whole).total_lines,
            total,
            "{text:?}"
        );
    }
}

#[test]
fn each_selection_returns_its_lines_with_their_endings() {
    let note = "one\ntwo\r\nthree\nfour";
    // (selection, content, start_line, end_line)
    let cases = [
        (LineSelection::Whole, note, 1, 4),
        (LineSelection::Head(2), "one\ntwo\r\n", 1, 2),
        (LineSelection::Head(9), note, 1, 4),
        (LineSelection::Tail(1), "four", 4, 4),
        (LineSelection::Tail(9), note, 1, 4),
        (range(2, Some(3)), "two\r\nthree\n", 2, 3),
        (range(3, None), "three\nfour", 3, 4),
        (range(4, Some(4)), "four", 4, 4),
    ];
    for (selection, content, start, end) in cases {
        let excerpt = read(note, selection);
        assert_eq!(
            (excerpt.content, excerpt.start_line, excerpt.end_line),
            (content, start, end),
            "{selection:?}"
        );
        assert_eq!(excerpt.lines_returned, end + 1 - start);
        assert_eq!((excerpt.clamped, excerpt.truncated), (None, None));
    }
}

#[test]
fn a_range_past_the_end_is_clamped_and_says_so() {
    let note = "a\nb\nc\n";
    let excerpt = read(note, range(2, Some(10)));
    assert_eq!((excerpt.content, excerpt.end_line), ("b\nc\n", 3));
    let clamped = excerpt.clamped.unwrap();
    assert_eq!(
        clamped.to_string(),
        "the note has 3 lines; the range ends at line 3, not 10"
    );

    let excerpt = read(note, range(7, Some(9)));
    assert_eq!((excerpt.content, excerpt.lines_returned), ("", 0));
    assert_eq!((excerpt.start_line, excerpt.end_line), (4, 3));
    assert_eq!(
        excerpt.clamped.unwrap().to_string(),
        "the note has 3 lines; start_line 7 is past its end (nothing returned)"
    );

    let empty = read("", LineSelection::Whole);
    assert_eq!(
        (empty.start_line, empty.end_line, empty.lines_returned),
        (1, 0, 0)
    );
}

#[test]
fn a_long_read_is_capped_with_the_range_to_read_on() {
    let note = "line\n".repeat(5_000);
    let excerpt = read(&note, LineSelection::Whole);
    assert_eq!((excerpt.lines_returned, excerpt.end_line), (2_000, 2_000));
    let truncated = excerpt.truncated.unwrap();
    assert_eq!(truncated.limit, Limit::Lines(2_000));
    assert_eq!(
        truncated.to_string(),
        "capped at 2000 lines; read on with start_line: 2001, end_line: 5000"
    );
    let next = read(
        &note,
        range(truncated.next_start_line, Some(truncated.asked_end)),
    );
    assert_eq!((next.start_line, next.end_line), (2_001, 4_000));
}

#[test]
fn the_byte_cap_keeps_whole_lines_or_cuts_one_at_a_character() {
    let limits = ExcerptLimits {
        max_lines: 100,
        max_bytes: 10,
    };
    let excerpt = select_lines("abcd\nefgh\nijkl\n", LineSelection::Whole, limits);
    assert_eq!((excerpt.content, excerpt.end_line), ("abcd\nefgh\n", 2));
    assert_eq!(excerpt.truncated.unwrap().next_start_line, 3);

    let long = format!("{}\nshort\n", "é".repeat(20));
    let excerpt = select_lines(&long, LineSelection::Whole, limits);
    assert_eq!(excerpt.content, "ééééé");
    let truncated = excerpt.truncated.unwrap();
    assert!(truncated.line_cut);
    assert_eq!(
        truncated.to_string(),
        "capped at 10 bytes; line 1 alone is longer and was cut"
    );
}

#[test]
fn arguments_make_one_selection_or_say_what_to_change() {
    use SelectionError::*;
    let cases = [
        (
            (None, None, Some(3), Some(3)),
            Err(Conflicting {
                given: "`head` and `tail`",
            }),
        ),
        (
            (Some(1), None, Some(3), None),
            Err(Conflicting {
                given: "`head` and a line range",
            }),
        ),
        (
            (None, Some(4), None, Some(1)),
            Err(Conflicting {
                given: "`tail` and a line range",
            }),
        ),
        (
            (Some(0), None, None, None),
            Err(Zero {
                argument: "start_line",
            }),
        ),
        ((None, None, None, Some(0)), Err(Zero { argument: "tail" })),
        (
            (Some(9), Some(3), None, None),
            Err(Reversed { start: 9, end: 3 }),
        ),
        ((None, Some(3), None, None), Ok(range(1, Some(3)))),
        ((None, None, Some(2), None), Ok(LineSelection::Head(2))),
    ];
    for ((start, end, head, tail), expected) in cases {
        assert_eq!(
            LineSelection::from_arguments(start, end, head, tail),
            expected
        );
    }
    assert_eq!(
        Reversed { start: 9, end: 3 }.to_string(),
        "`start_line` (9) is after `end_line` (3); give `start_line` ≤ `end_line`, e.g. `start_line: 3, end_line: 9`"
    );
}

fn selections() -> impl Strategy<Value = LineSelection> {
    prop_oneof![
        Just(LineSelection::Whole),
        (0..12usize).prop_map(LineSelection::Head),
        (0..12usize).prop_map(LineSelection::Tail),
        (0..12usize, proptest::option::of(0..12usize)).prop_map(|(start, end)| range(start, end)),
    ]
}

proptest! {
    /// Any selection of any text, within any limits, returns exactly the
    /// lines a plain split gives for the range it reports, without panicking.
    #[test]
    fn an_excerpt_is_the_lines_it_says_it_is(
        text in "[ab\\r\\né]{0,40}",
        selection in selections(),
        max_lines in 0..8usize,
        max_bytes in 0..30usize,
    ) {
        let excerpt = select_lines(&text, selection, ExcerptLimits { max_lines, max_bytes });
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        prop_assert_eq!(excerpt.total_lines, lines.len());
        prop_assert_eq!(excerpt.lines_returned, excerpt.end_line + 1 - excerpt.start_line);
        let whole: String = lines[excerpt.start_line - 1..excerpt.end_line].concat();
        match excerpt.truncated {
            Some(truncated) if truncated.line_cut => {
                prop_assert!(whole.starts_with(excerpt.content));
                prop_assert!(!excerpt.content.is_empty());
            }
            _ => prop_assert_eq!(excerpt.content, whole.as_str()),
        }
    }
}

/// The whole note, a range open at its end, and a reversed range refused.
#[test]
fn the_line_arguments_make_one_selection() {
    assert_eq!(
        LineSelection::from_arguments(None, None, None, None),
        Ok(LineSelection::Whole)
    );
    assert_eq!(
        LineSelection::from_arguments(Some(3), None, None, None),
        Ok(LineSelection::Range {
            start: 3,
            end: None
        })
    );
    assert_eq!(
        LineSelection::from_arguments(Some(5), Some(2), None, None),
        Err(SelectionError::Reversed { start: 5, end: 2 })
    );
}

/// A tail of a CRLF note: its lines as written, numbered from 1.
#[test]
fn the_last_lines_are_selected_as_written() {
    let note = "# Title\r\nfirst\r\nsecond\r\n";
    let excerpt = select_lines(note, LineSelection::Tail(2), ExcerptLimits::default());
    assert_eq!(excerpt.content, "first\r\nsecond\r\n");
    assert_eq!(
        (excerpt.start_line, excerpt.end_line, excerpt.total_lines),
        (2, 3, 3)
    );
}
