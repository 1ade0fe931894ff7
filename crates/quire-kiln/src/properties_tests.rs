use proptest::prelude::*;
use serde_json::json;

use super::*;
use quire_grammar::markdown::parse_note;

fn query(properties: Value) -> Result<PropertyQuery, PropertySearchError> {
    match properties {
        Value::Object(map) => PropertyQuery::new(&map),
        other => panic!("not an object: {other}"),
    }
}

/// Whether the note `text` matches `properties`.
fn finds(text: &str, properties: Value) -> bool {
    query(properties).unwrap().matches(&parse_note(text))
}

const NOTE: &str = "---\n\
    status: active\n\
    Status: Other\n\
    priority: 3\n\
    score: 2.5\n\
    ratio: 3.0\n\
    done: false\n\
    quoted: \"true\"\n\
    year: \"2024\"\n\
    created: 2024-01-05\n\
    due: 2024-01-05T10:30:00Z\n\
    authors: [Ann, Bob]\n\
    counts: [1, 2]\n\
    empty:\n\
    blank: ''\n\
    none: []\n\
    nested: {a: 1}\n\
    tags: [Project/Quire, '#Idea']\n\
    aliases: [Plan B, Σίσυφος]\n\
    ---\n\
    # Body #Inline/Deep text\n";

#[test]
fn the_frontmatter_parser_keeps_dates_as_the_text_written() {
    let facts = parse_note(NOTE);
    let values = &facts.frontmatter.as_ref().unwrap().values;
    assert_eq!(values["created"], "2024-01-05");
    assert_eq!(values["due"], "2024-01-05T10:30:00Z");
    assert_eq!(values["ratio"], json!(3.0));
}

#[test]
fn each_rule_in_a_table() {
    let table: &[(Value, bool)] = &[
        // Strings: exact, case included; key names exact.
        (json!({"status": "active"}), true),
        (json!({"status": "Active"}), false),
        (json!({"status": "activ"}), false),
        (json!({"Status": "Other"}), true),
        (json!({"STATUS": "active"}), false),
        (json!({"missing": "x"}), false),
        // AND across keys, OR within a list.
        (json!({"status": "active", "priority": 3}), true),
        (json!({"status": "active", "priority": 4}), false),
        (json!({"status": ["done", "active"]}), true),
        (json!({"status": ["done", "waiting"]}), false),
        // Numbers by value; a string writing the number out matches it.
        (json!({"priority": 3}), true),
        (json!({"priority": 3.0}), true),
        (json!({"ratio": 3}), true),
        (json!({"score": 2.5}), true),
        (json!({"score": 2}), false),
        (json!({"priority": "3"}), true),
        (json!({"priority": "3.0"}), true),
        (json!({"priority": "three"}), false),
        (json!({"year": 2024}), true),
        (json!({"year": "2024"}), true),
        // Booleans by value; "true"/"false" written out match them.
        (json!({"done": false}), true),
        (json!({"done": true}), false),
        (json!({"done": "false"}), true),
        (json!({"done": 0}), false),
        (json!({"quoted": true}), true),
        // Dates as the text written.
        (json!({"created": "2024-01-05"}), true),
        (json!({"created": "2024-1-5"}), false),
        (json!({"created": "2024-01"}), false),
        (json!({"due": "2024-01-05T10:30:00Z"}), true),
        (json!({"due": "2024-01-05"}), false),
        // A scalar finds a list property holding it.
        (json!({"authors": "Bob"}), true),
        (json!({"authors": "bob"}), false),
        (json!({"authors": ["Cy", "Ann"]}), true),
        (json!({"counts": 2}), true),
        (json!({"counts": "2"}), true),
        (json!({"counts": 3}), false),
        // null: present and empty.
        (json!({"empty": null}), true),
        (json!({"blank": null}), true),
        (json!({"none": null}), true),
        (json!({"status": null}), false),
        (json!({"missing": null}), false),
        (json!({"status": [null, "active"]}), true),
        // An object property matches no scalar.
        (json!({"nested": 1}), false),
        (json!({"nested": "a"}), false),
        // Tags: merged, without `#`, caseless, nested beneath their parent.
        (json!({"tags": "project"}), true),
        (json!({"tags": "#PROJECT"}), true),
        (json!({"tags": "project/quire"}), true),
        (json!({"tags": "project/quire/more"}), false),
        (json!({"tags": "proj"}), false),
        (json!({"tags": "quire"}), false),
        (json!({"tags": "idea"}), true),
        (json!({"tags": "inline"}), true),
        (json!({"tags": "inline/deep"}), true),
        (json!({"tag": "Idea"}), true),
        (json!({"tags": ["nothing", "idea"]}), true),
        (json!({"tags": "project/"}), true),
        // Aliases: caseless, whole.
        (json!({"aliases": "plan b"}), true),
        (json!({"alias": "PLAN B"}), true),
        (json!({"aliases": "plan"}), false),
        (json!({"aliases": "ΣΊΣΥΦΟΣ"}), true),
    ];
    for (properties, expected) in table {
        assert_eq!(
            finds(NOTE, properties.clone()),
            *expected,
            "{properties} should {}match",
            if *expected { "" } else { "not " }
        );
    }
}

#[test]
fn a_broken_frontmatter_has_no_properties_but_keeps_its_inline_tags() {
    let broken = "---\nstatus: [active\ntags: project\n---\nText #idea\n";
    assert!(parse_note(broken).frontmatter.is_none());
    assert!(!finds(broken, json!({"status": "[active"})));
    assert!(!finds(broken, json!({"status": null})));
    assert!(!finds(broken, json!({"tags": "project"})));
    assert!(finds(broken, json!({"tags": "idea"})));
    let plain = "No frontmatter #idea\n";
    assert!(finds(plain, json!({"tags": "idea"})));
    assert!(!finds(plain, json!({"tags": null})));
}

#[test]
fn tags_from_every_frontmatter_shape_are_found() {
    for text in [
        "---\ntags: [a, b]\n---\n",
        "---\ntags: b\n---\n",
        "---\ntags: \"a, #b\"\n---\n",
        "---\ntags: 'a #B'\n---\n",
        "---\ntags:\n  - b/c\n---\n",
        "b\n\n#b/c\n",
    ] {
        assert!(finds(text, json!({"tags": "b"})), "{text:?}");
    }
    // Obsidian 1.9 reads no `tag` key (issue 25).
    assert!(!finds("---\ntag: '#B'\n---\n", json!({"tags": "b"})));
}

#[test]
fn null_on_tags_asks_about_the_key_as_written() {
    assert!(finds(
        "---\ntags: []\n---\n#inline\n",
        json!({"tags": null})
    ));
    assert!(!finds("---\ntags: []\n---\n", json!({"tag": null})));
    assert!(finds("---\ntag:\n---\n", json!({"tag": null})));
}

#[test]
fn numbers_as_tags_and_aliases_are_their_text() {
    let note = "---\ntags: [2024, true]\naliases: [7]\n---\n";
    assert!(finds(note, json!({"tags": 2024})));
    assert!(finds(note, json!({"tags": "2024"})));
    assert!(finds(note, json!({"tags": true})));
    assert!(finds(note, json!({"aliases": 7})));
}

#[test]
fn large_integers_compare_exactly() {
    let note = "---\nid: 9007199254740993\nneg: -5\n---\n";
    assert!(finds(note, json!({"id": 9_007_199_254_740_993_u64})));
    assert!(!finds(note, json!({"id": 9_007_199_254_740_992_u64})));
    assert!(finds(note, json!({"neg": -5})));
    assert!(finds(note, json!({"neg": -5.0})));
    assert!(!finds(note, json!({"neg": 5})));
}

#[test]
fn words_that_parse_as_floats_are_not_numbers() {
    for word in ["inf", "NaN", "infinity", "", " ", "1_000", "0x10"] {
        assert_eq!(number_written(word), None, "{word:?}");
    }
    assert_eq!(number_written("1e3"), Some(1000.0));
    assert_eq!(number_written("-2.5"), Some(-2.5));
    assert!(!finds("---\nn: .nan\n---\n", json!({"n": "NaN"})));
}

#[test]
fn bad_queries_say_what_to_write() {
    let many: Map<String, Value> = (0..=MAX_PROPERTY_KEYS)
        .map(|n| (format!("k{n}"), json!(1)))
        .collect();
    let cases: Vec<(Value, &str)> = vec![
        (json!({}), "{\"properties\": {\"status\": \"active\"}}"),
        (Value::Object(many), "give at most 32"),
        (json!({"": 1}), "has an empty key"),
        (json!({"s": []}), "`properties.s` is an empty list"),
        (json!({"s": {"a": 1}}), "`properties.s` holds an object"),
        (json!({"s": [1, [2]]}), "holds a list inside the list"),
        (json!({"s": [1, {"a": 1}]}), "holds an object"),
        (
            json!({"s": vec![1; MAX_WANTED_VALUES + 1]}),
            "lists 257 values; give at most 256",
        ),
        (
            json!({"tags": "#"}),
            "names no tag; give the tag itself, such as `project`",
        ),
        (json!({"tags": ["a", "  "]}), "names no tag"),
        (
            json!({"aliases": " "}),
            "names no alias; give the alias itself",
        ),
        (json!({"k\u{1b}[2J": {}}), "`properties.k\\u{1b}[2J`"),
    ];
    for (properties, expected) in cases {
        let error = query(properties.clone()).unwrap_err();
        assert!(
            error.to_string().contains(expected),
            "{properties}: {error}"
        );
    }
    // A list of exactly the most values is fine.
    assert!(query(json!({"s": vec![1; MAX_WANTED_VALUES]})).is_ok());
}

#[test]
fn tag_matching_is_caseless_and_by_whole_segments() {
    for (tag, wanted, expected) in [
        ("Project", "project", true),
        ("project/quire", "project", true),
        ("project-x", "project", false),
        ("projects", "project", false),
        ("a/b/c", "a/b", true),
        ("a", "a/b", false),
        ("ÉTÉ/x", "été", true),
        ("日本/語", "日本", true),
    ] {
        assert_eq!(tag_matches(tag, wanted), expected, "{tag} ~ {wanted}");
    }
}

/// A scalar JSON value, as a property or a wanted value holds one.
fn scalar() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1e6f64..1e6).prop_map(Value::from),
        "[a-zA-Z0-9 ._-]{0,12}".prop_map(Value::String),
    ]
}

proptest! {
    /// A note holding a value is found by it, alone or among other values,
    /// and whether it is a list item or the whole value.
    #[test]
    fn a_value_finds_itself(value in scalar(), other in scalar()) {
        let wanted = wanted("k", Field::Property, &value).unwrap();
        prop_assert!(value_matches(&wanted, &value));
        prop_assert!(value_matches(&wanted, &json!([other, value])));
    }

    /// A list of wanted values finds exactly what one of them finds.
    #[test]
    fn a_list_is_the_or_of_its_values(a in scalar(), b in scalar(), held in scalar()) {
        let property = |wanted: &Value| {
            let properties = json!({ "k": wanted });
            query(properties).unwrap().criteria[0].wanted.clone()
        };
        let either = property(&json!([a.clone(), b.clone()]));
        let one = |w: &[Wanted]| w.iter().any(|w| value_matches(w, &held));
        prop_assert_eq!(one(&either), one(&property(&a)) || one(&property(&b)));
    }

    /// Matching is symmetric where both sides are scalars: a value `a`
    /// found by `b` finds `b`.
    #[test]
    fn scalar_matching_is_symmetric(a in scalar(), b in scalar()) {
        let by = |wanted: &Value, held: &Value| {
            value_matches(&super::wanted("k", Field::Property, wanted).unwrap(), held)
        };
        prop_assert_eq!(by(&a, &b), by(&b, &a));
    }

    /// Every ancestor of a tag, in any case, with or without `#`, finds it.
    #[test]
    fn a_tag_is_found_by_each_of_its_ancestors(
        segments in proptest::collection::vec("[a-zA-Z0-9_éÉ日]{1,6}", 1..4),
        cut in 1usize..4,
        hash in any::<bool>(),
        upper in any::<bool>(),
    ) {
        let tag = segments.join("/");
        let ancestor = segments[..cut.min(segments.len())].join("/");
        let ancestor = if upper { ancestor.to_uppercase() } else { ancestor };
        let wanted = if hash { format!("#{ancestor}") } else { ancestor };
        let note = format!("---\ntags: ['{tag}']\n---\n");
        let found = finds(&note, json!({ "tags": wanted }));
        prop_assert!(found, "{} not found in {}", wanted, note);
    }
}

/// Notes for the operators: dates, numbers, lists, a missing key.
const DATED: &str = "---\n\
    status: active\n\
    due: 2026-11-30\n\
    start: 2026-01-05T10:30:00Z\n\
    spent: 4.5\n\
    count: '12'\n\
    days: [2026-03-01, 2026-12-24]\n\
    label: soon\n\
    empty:\n\
    tags: [project]\n\
    ---\n\
    Body #later\n";

#[test]
fn each_operator_in_a_table() {
    let table: &[(Value, bool)] = &[
        // not: none of the values; a missing key matches.
        (json!({"status": {"not": "done"}}), true),
        (json!({"status": {"not": "active"}}), false),
        (json!({"status": {"not": ["done", "active"]}}), false),
        (json!({"missing": {"not": "done"}}), true),
        (json!({"spent": {"not": "4.5"}}), false),
        (json!({"tags": {"not": "#PROJECT"}}), false),
        (json!({"tags": {"not": "archive"}}), true),
        (json!({"empty": {"not": null}}), false),
        (json!({"status": {"not": null}}), true),
        // exists: present whatever the value, empty included.
        (json!({"status": {"exists": true}}), true),
        (json!({"empty": {"exists": true}}), true),
        (json!({"missing": {"exists": true}}), false),
        (json!({"missing": {"exists": false}}), true),
        (json!({"tags": {"exists": true}}), true),
        (json!({"aliases": {"exists": false}}), true),
        // before/after: dates as dates, strictly.
        (json!({"due": {"before": "2026-12-01"}}), true),
        (json!({"due": {"before": "2026-11-30"}}), false),
        (json!({"due": {"after": "2026-11-29"}}), true),
        (json!({"due": {"after": "2026-11-30"}}), false),
        (
            json!({"due": {"after": "2026-01-01", "before": "2026-12-31"}}),
            true,
        ),
        (
            json!({"due": {"after": "2026-12-01", "before": "2026-12-31"}}),
            false,
        ),
        // A date and time compares by its date.
        (json!({"start": {"before": "2026-01-06"}}), true),
        (json!({"start": {"after": "2026-01-05"}}), false),
        // Numbers as numbers, "12" as 12, not as text ("12" < "4.5").
        (json!({"spent": {"after": 4}}), true),
        (json!({"spent": {"before": "10"}}), true),
        (json!({"count": {"after": 4.5}}), true),
        (json!({"count": {"before": 12}}), false),
        // A mismatch of kinds, or a word, is no match.
        (json!({"due": {"before": 3_000_000}}), false),
        (json!({"spent": {"before": "2030-01-01"}}), false),
        (json!({"label": {"before": "2030-01-01"}}), false),
        (json!({"label": {"after": 0}}), false),
        (json!({"missing": {"before": "2030-01-01"}}), false),
        (json!({"empty": {"after": 0}}), false),
        // A list property: any item.
        (json!({"days": {"before": "2026-04-01"}}), true),
        (json!({"days": {"after": "2026-12-01"}}), true),
        (json!({"days": {"after": "2026-12-25"}}), false),
        // Mixed with equality: AND across keys, OR within a list.
        (
            json!({"status": "active", "due": {"before": "2026-12-01"}}),
            true,
        ),
        (
            json!({"status": "done", "due": {"before": "2026-12-01"}}),
            false,
        ),
        (json!({"status": ["done", {"exists": true}]}), true),
        (json!({"status": ["done", {"not": "active"}]}), false),
    ];
    for (properties, expected) in table {
        assert_eq!(
            finds(DATED, properties.clone()),
            *expected,
            "{properties} should {}match",
            if *expected { "" } else { "not " }
        );
    }
}

#[test]
fn operators_on_a_crlf_note_and_on_a_broken_frontmatter() {
    let crlf = "---\r\ndue: 2026-01-05\r\nstatus: done\r\n---\r\nText\r\n";
    assert!(finds(crlf, json!({"due": {"before": "2026-01-06"}})));
    assert!(finds(
        crlf,
        json!({"status": {"not": "active", "exists": true}})
    ));
    // Broken: no properties, so `not` and `exists: false` hold, the rest not.
    let broken = "---\ndue: [2026-01-05\n---\nText #idea\n";
    assert!(finds(broken, json!({"due": {"not": "x"}})));
    assert!(finds(broken, json!({"due": {"exists": false}})));
    assert!(!finds(broken, json!({"due": {"before": "2030-01-01"}})));
    assert!(!finds(broken, json!({"due": {"not": "x", "exists": true}})));
    assert!(finds(broken, json!({"tags": {"exists": true}})));
}

#[test]
fn bad_operators_say_what_to_write() {
    let cases: Vec<(Value, &str)> = vec![
        (
            json!({"s": {"is": 1}}),
            "`properties.s` holds an object with `is`, which is no operator; give a value, or an \
             object of the operators `not`, `exists`, `before` and `after`",
        ),
        (
            json!({"s": {"not": 1, "below": 2}}),
            "with `below`, which is no operator",
        ),
        (
            json!({"s": {}}),
            "`properties.s` holds an object without an operator",
        ),
        (json!({"s": [1, {}]}), "holds an object without an operator"),
        (
            json!({"due": {"before": "soon"}}),
            "`properties.due.before` is `\"soon\"`; give a date written YYYY-MM-DD, such as \
             \"2026-12-01\", or a number",
        ),
        (
            json!({"due": {"after": "2026-02-30"}}),
            "`properties.due.after` is",
        ),
        (
            json!({"due": {"after": "2026-1-5"}}),
            "give a date written YYYY-MM-DD",
        ),
        (
            json!({"due": {"after": true}}),
            "`properties.due.after` is `true`",
        ),
        (json!({"due": {"after": null}}), "give a date written"),
        (
            json!({"due": {"after": ["2026-01-01"]}}),
            "give a date written",
        ),
        (
            json!({"s": {"exists": "yes"}}),
            "`properties.s.exists` is `\"yes\"`; give true (the note has the property) or false",
        ),
        (
            json!({"s": {"not": {"a": 1}}}),
            "`properties.s.not` is an object; give a string",
        ),
        (
            json!({"s": {"not": [[1]]}}),
            "`properties.s.not` is `[[1]]`",
        ),
        (
            json!({"s": {"not": []}}),
            "`properties.s.not` is an empty list",
        ),
        (json!({"tags": {"not": "#"}}), "names no tag"),
        (
            json!({"tags": {"before": 3}}),
            "`properties.tags.before` compares dates and numbers, but `tags` holds names",
        ),
        (
            json!({"aliases": {"after": "2026-01-01"}}),
            "`aliases` holds names",
        ),
    ];
    for (properties, expected) in cases {
        let error = query(properties.clone()).unwrap_err();
        assert!(
            error.to_string().contains(expected),
            "{properties}: {error}"
        );
    }
    for name in PROPERTY_OPERATORS {
        let error = query(json!({"s": {"x": 1}})).unwrap_err();
        assert!(error.to_string().contains(&format!("`{name}`")), "{error}");
    }
}

#[test]
fn dates_are_days_of_the_calendar_written_in_full() {
    for (text, day) in [
        ("2026-12-01", Some((2026, 12, 1))),
        ("2024-02-29", Some((2024, 2, 29))),
        ("2026-02-29", None),
        ("2026-13-01", None),
        ("2026-1-05", None),
        ("26-01-05", None),
        ("2026/01/05", None),
        ("2026-01-05T00:00", None),
        ("２０２６-01-05", None),
        ("", None),
    ] {
        assert_eq!(
            date_written(text),
            day.and_then(|(y, m, d)| NaiveDate::from_ymd_opt(y, m, d)),
            "{text:?}"
        );
    }
    assert!(date_held("2026-01-05T10:30:00Z").is_some());
    assert!(date_held("2026-01-05 10:30").is_some());
    assert!(date_held("2026-01-05x").is_none());
    assert!(date_held("é2026-01-0").is_none());
}

proptest! {
    /// `not` finds exactly the notes the value does not.
    #[test]
    fn not_is_the_complement_of_equality(wanted in scalar(), held in scalar()) {
        let note = format!("---\nk: {}\n---\n", serde_json::to_string(&held).unwrap());
        let equal = finds(&note, json!({ "k": wanted }));
        prop_assert_eq!(finds(&note, json!({ "k": { "not": wanted } })), !equal);
    }

    /// Of two different numbers, one is before the other and never both.
    #[test]
    fn before_and_after_order_numbers(a in -1e6f64..1e6, b in -1e6f64..1e6) {
        let note = format!("---\nk: {a}\n---\n");
        let before = finds(&note, json!({"k": {"before": b}}));
        let after = finds(&note, json!({"k": {"after": b}}));
        prop_assert_eq!(before, a < b);
        prop_assert_eq!(after, a > b);
    }
}
