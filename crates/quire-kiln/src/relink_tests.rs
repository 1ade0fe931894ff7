//! The link rewriter against every form of link, table-driven, and a
//! property: moving a note and moving it back restores every byte.

use proptest::prelude::*;

use super::*;

fn note(path: &str) -> NotePath {
    NotePath::parse_relative(path).unwrap()
}

/// The kiln's notes (and `attachments`) before and after `from` moves to `to`.
fn sets(notes: &[&str], attachments: &[&str], from: &str, to: &str) -> (NoteSet, NoteSet) {
    let mut before: NoteSet = notes.iter().map(|path| note(path)).collect();
    for attachment in attachments {
        before.insert_attachment((*attachment).to_owned());
    }
    let mut after = before.clone();
    after.remove(&note(from));
    after.insert(note(to));
    (before, after)
}

const NOTES: [&str; 7] = [
    "a/Old.md",
    "a/sib.md",
    "b/Other.md",
    "c/Linker.md",
    "x/Same.md",
    "y/Same.md",
    "Top.md",
];

/// `text`, in the note `source`, once `from` moves to `to`.
fn moved(source: &str, text: &str, from: &str, to: &str) -> Result<Option<Relinked>, RelinkError> {
    let (before, after) = sets(&NOTES, &["a/pic.png"], from, to);
    let (from, to) = (note(from), note(to));
    Move {
        from: &from,
        to: &to,
        before: &before,
        after: &after,
    }
    .relink(&note(source), text)
}

fn moved_text(source: &str, text: &str, from: &str, to: &str) -> String {
    match moved(source, text, from, to).unwrap() {
        Some(relinked) => relinked.text,
        None => text.to_owned(),
    }
}

#[test]
fn every_form_of_link_to_the_moved_note_is_rewritten_in_its_own_form() {
    let cases = [
        // Wikilinks: a name stays a name, its parts kept.
        ("[[Old]]", "[[New]]"),
        ("![[Old#Goals|the goals]]", "![[New#Goals|the goals]]"),
        ("[[ Old #^b1 | x ]]", "[[ New #^b1 | x ]]"),
        ("[[old]]", "[[New]]"),
        ("[[Old.md]]", "[[New.md]]"),
        // A path stays a path, a leading `/` kept.
        ("[[a/Old]]", "[[d/New]]"),
        ("[[a/Old.md#H]]", "[[d/New.md#H]]"),
        ("[[/a/Old]]", "[[/d/New]]"),
        ("[[../a/Old]]", "[[../d/New]]"),
        // In a table, the bar escaped.
        ("| [[Old\\|o]] |", "| [[New\\|o]] |"),
        // Markdown links, relative, by name, escaped, in `<>`, by reference.
        ("[o](../a/Old.md#H)", "[o](../d/New.md#H)"),
        ("[o](Old)", "[o](New)"),
        ("[o](<../a/Old.md>)", "[o](<../d/New.md>)"),
        ("![o](a/Old.md)", "![o](d/New.md)"),
        (
            "[o][r]\n\n[r]: ../a/Old.md \"t\"",
            "[o][r]\n\n[r]: ../d/New.md \"t\"",
        ),
        // Nothing else moves.
        ("[[Other]] [[Old", "[[Other]] [[Old"),
        ("`[[Old]]` %% [[Old]] %%", "`[[Old]]` %% [[Old]] %%"),
    ];
    for (text, expected) in cases {
        assert_eq!(
            moved_text("c/Linker.md", text, "a/Old.md", "d/New.md"),
            expected,
            "{text}"
        );
    }
    // Spaces in the new name: escaped in a Markdown destination, as is in
    // a wikilink and inside `<>`.
    let text = "[[Old]] [o](../a/Old.md) [p](<Old>)";
    assert_eq!(
        moved_text("c/Linker.md", text, "a/Old.md", "d/New plan.md"),
        "[[New plan]] [o](../d/New%20plan.md) [p](<New plan>)"
    );
}

#[test]
fn frontmatter_links_keep_their_quotes_and_the_rest_of_the_block() {
    let text = "---\nup: \"[[Old]]\"\nrel:\n  - '[[Old|o]]'\n  - \"[[Other]]\" # kept\nn: 1\n---\n[[Old]]\n";
    assert_eq!(
        moved_text("c/Linker.md", text, "a/Old.md", "d/It's.md"),
        "---\nup: \"[[It's]]\"\nrel:\n  - '[[It''s|o]]'\n  - \"[[Other]]\" # kept\nn: 1\n---\n[[It's]]\n"
    );
    // A broken block: the body's links are still rewritten, the block's
    // bytes kept.
    let text = "---\nup: [oops\n---\n[[Old]]\r\n";
    assert_eq!(
        moved_text("c/Linker.md", text, "a/Old.md", "d/New.md"),
        "---\nup: [oops\n---\n[[New]]\r\n"
    );
}

#[test]
fn a_name_that_becomes_ambiguous_becomes_the_shortest_path_that_is_not() {
    // Moved to a name two notes already have: the link needs its folder.
    assert_eq!(
        moved_text("c/Linker.md", "[[Old]] [o](Old)", "a/Old.md", "z/Same.md"),
        "[[z/Same]] [o](z/Same)"
    );
    // A name the new note takes over from another: that link is made to
    // keep leading where it led.
    assert_eq!(
        moved_text("c/Linker.md", "[[Other]] [[Top]]", "a/Old.md", "Other.md"),
        "[[b/Other]] [[Top]]"
    );
    // The lines rewritten are reported, each once, and the links counted.
    let relinked = moved(
        "c/Linker.md",
        "[[Old]]\n\n[[Old]] [o](Old)\n",
        "a/Old.md",
        "d/New.md",
    )
    .unwrap()
    .unwrap();
    assert_eq!(
        (relinked.lines.as_slice(), relinked.links),
        (&[1, 3][..], 3)
    );
}

#[test]
fn the_moved_note_keeps_its_own_links_leading_where_they_led() {
    let text = "[[#Goals]] [[Old#Goals]] [s](./sib.md) ![[./pic.png]] [[sib]] [[Top]]";
    assert_eq!(
        moved_text("a/Old.md", text, "a/Old.md", "d/New.md"),
        "[[#Goals]] [[New#Goals]] [s](../a/sib.md) ![[../a/pic.png]] [[sib]] [[Top]]"
    );
}

#[test]
fn a_link_that_cannot_lead_there_refuses_the_move() {
    // A wikilink cannot hold `#`: the move is refused, naming the line.
    let error = moved("c/Linker.md", "x\n[[Old]]\n", "a/Old.md", "d/C#.md").unwrap_err();
    assert_eq!((error.note.as_str(), error.line), ("c/Linker.md", 2));
    assert!(error.to_string().contains("nothing was moved"), "{error}");
    // Nor can a Markdown link (the index reads a `#` there, escaped or
    // not, as the start of a heading).
    assert!(moved("c/Linker.md", "[o](Old)", "a/Old.md", "d/C#.md").is_err());
}

#[test]
fn a_path_to_a_note_moved_to_the_root_becomes_its_name() {
    assert_eq!(
        moved_text("c/Linker.md", "[[a/Old.md#^b]]", "a/Old.md", "New.md"),
        "[[New.md#^b]]"
    );
}

#[test]
fn unchanged_notes_are_left_alone() {
    assert_eq!(
        moved("c/Linker.md", "[[Other]] no links", "a/Old.md", "d/New.md"),
        Ok(None)
    );
    assert_eq!(moved("c/Linker.md", "", "a/Old.md", "d/New.md"), Ok(None));
}

/// One link to `Old` in one of the forms a note may hold.
fn link_form() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("[[Old]]".to_owned()),
        Just("![[Old#Heading|alias]]".to_owned()),
        Just("[[a/Old.md#^b]]".to_owned()),
        Just("[[../a/Old]]".to_owned()),
        Just("[t](../a/Old.md#H)".to_owned()),
        Just("[t](<Old>)".to_owned()),
        Just("[[Other]]".to_owned()),
        Just("`[[Old]]`".to_owned()),
    ]
}

proptest! {
    /// Moving a note and moving it back restores every byte of a note that
    /// links to it, whatever the forms, separators and line endings.
    #[test]
    fn moving_there_and_back_restores_every_byte(
        links in proptest::collection::vec((link_form(), "[ a-z\\n]{0,6}", any::<bool>()), 0..8),
        new_name in "[A-Za-z][A-Za-z ]{0,10}[a-z]",
        // Not the root: a path link to a note there is its name alone, and
        // a name moved back stays a name (see the case below).
        new_folder in prop_oneof![Just("d/"), Just("a/"), Just("d/e/")],
    ) {
        let mut text = String::new();
        for (link, between, crlf) in &links {
            text.push_str(link);
            text.push_str(between);
            text.push_str(if *crlf { "\r\n" } else { "\n" });
        }
        let new_path = format!("{new_folder}{}.md", new_name.trim());
        prop_assume!(!NOTES.iter().any(|held| held.eq_ignore_ascii_case(&new_path)));
        prop_assume!(!["other", "same", "top", "sib", "linker", "old"]
            .contains(&new_name.trim().to_lowercase().as_str()));
        let there = moved_text("c/Linker.md", &text, "a/Old.md", &new_path);
        let back = {
            let mut notes: Vec<&str> = NOTES.iter().copied().filter(|n| *n != "a/Old.md").collect();
            notes.push(&new_path);
            let (before, after) = sets(&notes, &["a/pic.png"], &new_path, "a/Old.md");
            let (from, to) = (note(&new_path), note("a/Old.md"));
            Move { from: &from, to: &to, before: &before, after: &after }
                .relink(&note("c/Linker.md"), &there)
                .unwrap()
                .map_or(there.clone(), |relinked| relinked.text)
        };
        prop_assert_eq!(back, text);
    }
}

/// Found by the `move_relink` fuzz target: a rewrite can change how the
/// text around a link reads. `[t]( [[New plan]]x)` is a wikilink after
/// text (a Markdown link's destination holds no space); written as
/// `[[Old]]`, the whole becomes the Markdown link `[t]([[Old]]x)`, and the
/// wikilink is gone. The re-read catches it and the move is refused.
#[test]
fn a_rewrite_that_would_change_how_the_text_reads_refuses_the_move() {
    let notes = ["d/New plan.md", "c/Linker.md"];
    let (before, after) = sets(&notes, &[], "d/New plan.md", "a/Old.md");
    let (from, to) = (note("d/New plan.md"), note("a/Old.md"));
    let moved = Move {
        from: &from,
        to: &to,
        before: &before,
        after: &after,
    };
    let error = moved
        .relink(&note("c/Linker.md"), "x\n[t]( [[New plan]]x)\n")
        .unwrap_err();
    assert_eq!((error.line, error.leads_to.as_str()), (2, "a/Old.md"));
    // Without the parenthesis before it, the same link is rewritten.
    let relinked = moved
        .relink(&note("c/Linker.md"), "x\n[t] [[New plan]]x)\n")
        .unwrap()
        .unwrap();
    assert_eq!(relinked.text, "x\n[t] [[Old]]x)\n");
}
