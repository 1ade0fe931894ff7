//! Tricky notes for each fact, and the invariants over any text.

use proptest::prelude::*;

use super::*;

/// `f` of each of `items`, to compare the fields a test reads at once.
fn project<'a, T, R>(items: &'a [T], f: impl Fn(&'a T) -> R) -> Vec<R> {
    items.iter().map(f).collect()
}

fn tag_names(text: &str) -> Vec<String> {
    parse_note(text)
        .inline_tags
        .into_iter()
        .map(|tag| tag.name)
        .collect()
}

#[test]
fn tags_skip_code_html_comments_urls_and_numbers() {
    let note = "#a `#code` <span>#html</span> <!-- #c1 --> %% #c2 %% #123 #y2024\n\
                ```\n#fenced\n```\nsee https://x.org/#frag and a#b \\#esc #x/y-z_1\n";
    assert_eq!(tag_names(note), ["a", "y2024", "x/y-z_1"]);
    let html = "<span> #in </span> #out<br> #after <img src=x/> #img\n\nnext <b> #open\n\n#fresh\n";
    assert_eq!(tag_names(html), ["out", "after", "img", "fresh"]);
}

#[test]
fn heading_markers_are_not_tags_but_tags_in_headings_are() {
    let facts = parse_note("# Title #topic\n## Two\n");
    assert_eq!(tag_names("# Title #topic\n"), ["topic"]);
    assert_eq!(facts.headings.len(), 2);
    assert_eq!(facts.headings[0].text, "Title #topic");
}

#[test]
fn tags_merge_frontmatter_and_inline_caselessly() {
    let facts = parse_note(
        "---\ntags: \"#Draft, idea\"\naliases: [One, one, Two]\n---\n#draft #New #new\n",
    );
    assert_eq!(facts.tags, ["Draft", "idea", "New"]);
    assert_eq!(facts.aliases, ["One", "Two"]);
    // Obsidian 1.9 reads neither `tag` nor `alias` (issue 25): nothing is
    // read from them, and the note says why.
    let list = parse_note("---\ntag:\n  - '#x'\n  - y\nalias: Solo\n---\n");
    assert!(list.tags.is_empty() && list.aliases.is_empty());
    let issues: Vec<String> = list.issues.iter().map(ToString::to_string).collect();
    assert_eq!(
        issues,
        [
            "the property `tag` is not read (Obsidian 1.9 dropped it); rename it `tags`",
            "the property `alias` is not read (Obsidian 1.9 dropped it); rename it `aliases`"
        ]
    );
}

/// Issue 25: a tag never holds a space; emoji and other symbols are tag
/// characters, punctuation ends a tag.
#[test]
fn tags_are_obsidians_characters_and_never_hold_a_space() {
    let facts = parse_note("---\ntags: \"gamma delta, #eps\"\naliases: [Two words]\n---\n");
    assert_eq!(facts.tags, ["gamma", "delta", "eps"]);
    assert_eq!(facts.aliases, ["Two words"]);
    let listed = parse_note("---\ntags: [a b, c]\n---\n");
    assert_eq!(listed.tags, ["a", "b", "c"]);
    assert_eq!(
        tag_names("#tag🎉 #🏷️ #日本語 #a.b #it’s #x… #mixed-😀_1/2 #(no)\n"),
        ["tag🎉", "🏷️", "日本語", "a", "it", "x", "mixed-😀_1/2"]
    );
}

#[test]
fn wikilinks_in_every_form() {
    let note = "[[A]] [[B#Part]] [[C#^blk]] [[D|shown]] ![[img.png]] [[#Local]]\n";
    let links = parse_note(note).wikilinks;
    let read = project(&links, |l| {
        let parts = (l.target.as_str(), l.heading.as_deref(), l.block.as_deref());
        (parts, l.alias.as_deref(), l.kind)
    });
    use WikilinkKind::{Embed, Link};
    assert_eq!(
        read,
        [
            (("A", None, None), None, Link),
            (("B", Some("Part"), None), None, Link),
            (("C", None, Some("blk")), None, Link),
            (("D", None, None), Some("shown"), Link),
            (("img.png", None, None), None, Embed),
            (("", Some("Local"), None), None, Link),
        ]
    );
    assert_eq!(&note[links[4].span.range()], "![[img.png]]");
}

#[test]
fn a_wikilink_that_names_nothing_is_not_a_link() {
    let note = "[[ ]] [[#]] [[ | x]] [[#^]] [[# | y]] ![[ ]] [[#H]] [[#^b]]\n";
    let links = parse_note(note).wikilinks;
    let read = project(&links, |l| (l.heading.as_deref(), l.block.as_deref()));
    assert_eq!(read, [(Some("H"), None), (None, Some("b"))]);
}

#[test]
fn a_wikilink_in_a_table_escapes_its_bar() {
    let note = "| a | b |\n|---|---|\n| [[Note\\|alias]] | x |\n";
    let links = parse_note(note).wikilinks;
    assert_eq!(links.len(), 1, "{links:?}");
    assert_eq!(links[0].target, "Note");
    assert_eq!(links[0].alias.as_deref(), Some("alias"));
    assert_eq!(links[0].line, 3);
}

#[test]
fn wikilinks_in_code_or_comments_are_not_links() {
    let note = "`[[A]]` %% [[B]] %%\n```\n[[C]]\n```\n[[D]]\n";
    let links = parse_note(note).wikilinks;
    let targets = project(&links, |l| l.target.as_str());
    assert_eq!(targets, ["D"]);
}

#[test]
fn markdown_links_only_to_local_notes_and_attachments() {
    let note = "[a](other.md) [b](https://x.org/y.md) [c](mailto:a@b.md) [d](dir/My%20Note.md#Sec) [e](pic.png) \
                [f](Target) [g](Target#Sub) [h](Three%20laws%20of%20motion) [i](#Heading) [j](tel:123) [k](dir/) \
                [l](app.js) [m](Scan.PDF#page=2)\n";
    let links = parse_note(note).markdown_links;
    let targets = project(&links, |l| (l.target.as_str(), l.heading.as_deref()));
    // Issue 25: a name without `.md` is a note, as Obsidian reads it, and
    // an attachment of a format Obsidian accepts is a link; `app.js` is not.
    assert_eq!(
        targets[2..],
        [
            ("pic.png", None),
            ("Target", None),
            ("Target", Some("Sub")),
            ("Three laws of motion", None),
            ("Scan.PDF", Some("page=2")),
        ]
    );
    let links = &links[..2];
    assert_eq!(
        (links[0].target.as_str(), links[0].heading.as_deref()),
        ("other.md", None)
    );
    assert_eq!(links[1].target, "dir/My Note.md");
    assert_eq!(links[1].heading.as_deref(), Some("Sec"));
    assert_eq!(&note[links[0].span.range()], "[a](other.md)");
}

#[test]
fn headings_atx_and_setext() {
    let note = "Title\n=====\n\nSub\n---\n### Three ###\n";
    let facts = parse_note(note);
    let read = project(&facts.headings, |h| (h.level, h.text.as_str(), h.line));
    assert_eq!(read, [(1, "Title", 1), (2, "Sub", 4), (3, "Three", 6)]);
    assert_eq!(&note[facts.headings[0].span.range()], "Title\n=====\n");
}

/// Issue 25: a setext heading of several lines is one heading, its lines
/// joined by a space.
#[test]
fn a_setext_headings_lines_are_joined_by_a_space() {
    let note = "First line\nsecond  line\n===\n\nOne\\\ntwo\n---\n";
    let facts = parse_note(note);
    let texts = project(&facts.headings, |h| h.text.as_str());
    assert_eq!(texts, ["First line second  line", "One two"]);
}

#[test]
fn inline_code_in_a_heading_keeps_its_text_not_its_backticks() {
    let note = "# Run `cargo test` and `` `tick` `` or `` ` ``\n## `  `\n";
    let facts = parse_note(note);
    let texts = project(&facts.headings, |h| h.text.as_str());
    assert_eq!(texts, ["Run cargo test and `tick` or `", ""]);
}

#[test]
fn nested_tasks() {
    let note = "- [ ] top\n  - [x] done\n    - [X]  deep  \n- not a task\n";
    let tasks = parse_note(note).tasks;
    let read = project(&tasks, |t| (t.checked, t.text.as_str(), t.line));
    assert_eq!(
        read,
        [(false, "top", 1), (true, "done", 2), (true, "deep", 3)]
    );
    for task in &tasks {
        assert_eq!(&note[task.span.range()], task.text);
    }
}

#[test]
fn block_ids_end_their_line() {
    let note = "A paragraph ^p1\nnot^this\n- item ^item-2  \nmid ^x text\n";
    let blocks = parse_note(note).block_ids;
    let ids = project(&blocks, |b| (b.id.as_str(), b.line));
    assert_eq!(ids, [("p1", 1), ("item-2", 3)]);
}

#[test]
fn word_count_as_obsidian_counts() {
    assert_eq!(
        parse_note("---\ntitle: not counted\n---\nHello, world!").word_count,
        2
    );
    assert_eq!(parse_note("1,000.50 and well-known don't").word_count, 4);
    assert_eq!(parse_note("日本語 text 😀 🎉").word_count, 4);
    assert_eq!(
        parse_note("# Head\n`code` [[Link|shown]] %% hidden words %%").word_count,
        3
    );
}

#[test]
fn crlf_and_bom() {
    let note = "\u{feff}---\r\ntags: [a]\r\n---\r\n# H\r\n- [ ] t ^id\r\n#b\r\n";
    let facts = parse_note(note);
    assert!(facts.issues.is_empty());
    assert_eq!(facts.headings[0].text, "H");
    assert_eq!(facts.tasks[0].text, "t ^id");
    assert_eq!(facts.block_ids[0].id, "id");
    assert_eq!(facts.tags, ["a", "b"]);
    assert_eq!(facts.line_count, 6);
}

#[test]
fn empty_and_frontmatter_only_notes() {
    assert_eq!(parse_note(""), NoteFacts::default());
    let facts = parse_note("---\ntags: x\n---\n");
    assert!(facts.frontmatter.is_some());
    assert_eq!(
        (facts.tags.as_slice(), facts.word_count, facts.line_count),
        (&["x".to_owned()][..], 0, 3)
    );
}

#[test]
fn broken_frontmatter_keeps_the_rest() {
    let facts = parse_note("---\ntitle: [oops\ntags: x\n---\n# Kept [[Link]] #t\n");
    assert!(matches!(facts.issues[..], [NoteIssue::Frontmatter(_)]));
    assert!(facts.frontmatter.is_none());
    assert_eq!(facts.headings[0].line, 5);
    assert_eq!(facts.wikilinks[0].target, "Link");
    assert_eq!(facts.tags, ["t"]);
    let unclosed = parse_note("---\ntitle: x\n#later\n");
    assert_eq!(unclosed.issues.len(), 1);
    assert_eq!(unclosed.tags, ["later"]);
}

#[test]
fn large_hostile_inputs_complete() {
    for unit in ["[[", "#", "%%", "![[a|", "- [ ] ", "> ", "^a ", "`"] {
        let note = unit.repeat(100_000);
        let facts = parse_note(&note);
        assert_eq!(facts.line_count, 1, "{unit}");
        assert!(
            facts.wikilinks.is_empty() && facts.inline_tags.is_empty(),
            "{unit}"
        );
    }
}

fn assert_spans(text: &str) {
    let facts = parse_note(text);
    let mut spans = Vec::new();
    spans.extend(facts.headings.iter().map(|h| h.span));
    spans.extend(facts.wikilinks.iter().map(|l| l.span));
    spans.extend(facts.markdown_links.iter().map(|l| l.span));
    for span in spans {
        assert!(text.get(span.range()).is_some(), "{span:?} in {text:?}");
    }
    for tag in &facts.inline_tags {
        assert_eq!(&text[tag.span.range()], format!("#{}", tag.name));
    }
    for task in &facts.tasks {
        assert_eq!(&text[task.span.range()], task.text);
    }
    for block in &facts.block_ids {
        assert_eq!(&text[block.span.range()], format!("^{}", block.id));
    }
    for link in &facts.wikilinks {
        assert!(text[link.span.range()].ends_with("]]"));
    }
}

proptest! {
    #[test]
    fn any_text_gives_facts_with_true_spans(text in any::<String>()) {
        assert_spans(&text);
    }

    #[test]
    fn markdown_like_text_gives_facts_with_true_spans(
        text in "([-#\\[\\]!|^%`*_ \\n\\r\\\\a1é日😀]|---\\n|\\[\\[|- \\[x\\] ){0,60}"
    ) {
        assert_spans(&text);
    }
}

#[test]
fn property_values_that_are_wikilinks_are_links() {
    let text = "---\nup: \"[[Plan#Goals|the plan]]\"\nrelated:\n  - \"[[A]]\"\n  - \"see [[B]]\"\n  - \"![[C]]\"\n  - 3\nnote: \"[[ ]]\"\nnested: {x: \"[[D]]\"}\n---\nBody [[E]]\n";
    let facts = parse_note(text);
    let links: Vec<(&str, &str, usize)> = facts
        .property_links
        .iter()
        .map(|link| (link.key.as_str(), link.target.as_str(), link.line))
        .collect();
    assert_eq!(links, [("up", "Plan", 2), ("related", "A", 3)]);
    assert_eq!(
        &text[facts.property_links[0].span.range()],
        "\"[[Plan#Goals|the plan]]\""
    );
    // Body links are still body links, and property links are not counted
    // among them.
    assert_eq!(facts.wikilinks.len(), 1);
    // Broken frontmatter has no property links.
    assert!(parse_note("---\nup: [[[x\n---\n").property_links.is_empty());
}

#[test]
fn attachments_are_the_formats_obsidian_accepts() {
    for attachment in [
        "diagram.png",
        "a/b/Scan.PDF",
        "clip.webm",
        "board.canvas",
        "x.3gp",
    ] {
        assert!(is_attachment_name(attachment), "{attachment}");
    }
    for other in [
        "Plan",
        "Plan.md",
        "v1.2 release",
        ".png",
        "dir/.png",
        "notes/2024.01",
        "script.js",
        "data.csv",
        "png",
    ] {
        assert!(!is_attachment_name(other), "{other}");
    }
}

#[test]
fn each_link_says_where_its_target_is_written() {
    // Wikilinks and embeds, with heading, block and alias parts, padded,
    // and in a table (the bar escaped).
    let note = "[[A]] ![[ b/B.md #H|x]] [[C#^blk]] [[#Own]]\n\n| t |\n|---|\n| [[D\\|d]] |\n";
    let facts = parse_note(note);
    let targets: Vec<Option<&str>> = facts
        .wikilinks
        .iter()
        .map(|link| wikilink_target_span(note, link.span).map(|span| &note[span.range()]))
        .collect();
    assert_eq!(
        targets,
        [Some("A"), Some("b/B.md"), Some("C"), None, Some("D")]
    );
    // Markdown links: inline (with a `](` in the text, a title, `<>`, a
    // fragment, nested parentheses), images, and reference links whose
    // destination is in their definition.
    let note = "[a](x%20y.md#S) [b\\](c](e.md \"t\") [c](d) ![p](<my pic.png>) [f](g(1).md)\n\
                [r][ref] [Ref] [s][]\n\n[ref]: <r r.md>\n[s]:\n  s.md#Top 'x'\n";
    let facts = parse_note(note);
    let written: Vec<Option<&str>> = facts
        .markdown_links
        .iter()
        .map(|link| link.destination.map(|span| &note[span.range()]))
        .collect();
    let targets = project(&facts.markdown_links, |l| l.target.as_str());
    assert_eq!(
        targets,
        [
            "x y.md",
            "e.md",
            "d",
            "my pic.png",
            "g(1).md",
            "r r.md",
            "r r.md",
            "s.md"
        ]
    );
    assert_eq!(
        written,
        [
            Some("x%20y.md"),
            Some("e.md"),
            Some("d"),
            Some("my pic.png"),
            Some("g(1).md"),
            Some("r r.md"),
            Some("r r.md"),
            Some("s.md"),
        ]
    );
}
