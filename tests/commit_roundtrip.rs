//! Property tests of the commit grammar: any text parses, rebuilds byte for
//! byte and keeps every span on the text it covers
//! (`support::commit_model::check_message`); a well-formed message built
//! from parts parses back to exactly those parts.

use proptest::prelude::*;
use quire_grammar::commit::{FooterSeparator, MessageKind, parse_commit};

#[path = "support/commit_model.rs"]
mod commit_model;

use commit_model::check_parse;

/// Pieces the grammar cares about, so that arbitrary texts often come
/// close to messages: separators, parentheses, line endings, tokens.
fn grammar_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(": ".to_owned()),
        Just(" #".to_owned()),
        Just(":".to_owned()),
        Just("(".to_owned()),
        Just(")".to_owned()),
        Just("!".to_owned()),
        Just("\n".to_owned()),
        Just("\r\n".to_owned()),
        Just("\r".to_owned()),
        Just("\n\n".to_owned()),
        Just(" ".to_owned()),
        Just("\t".to_owned()),
        Just("-".to_owned()),
        Just("\u{feff}".to_owned()),
        Just("\u{a0}".to_owned()),
        Just("BREAKING CHANGE".to_owned()),
        Just("BREAKING-CHANGE".to_owned()),
        Just("Signed-off-by".to_owned()),
        Just("feat".to_owned()),
        Just("Merge branch ".to_owned()),
        Just("Revert \"".to_owned()),
        Just("fixup! ".to_owned()),
        Just("v1.2.3".to_owned()),
        Just("This reverts commit abcdef12.".to_owned()),
        "[a-zA-Zé日0-9_]{1,6}",
        any::<char>().prop_map(String::from),
    ]
}

fn near_message() -> impl Strategy<Value = String> {
    proptest::collection::vec(grammar_piece(), 0..40).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn any_string_round_trips(text in any::<String>()) {
        if let Err(failure) = check_parse(&text) {
            prop_assert!(false, "{failure}\ninput: {text:?}");
        }
    }

    #[test]
    fn near_messages_round_trip(text in near_message()) {
        if let Err(failure) = check_parse(&text) {
            prop_assert!(false, "{failure}\ninput: {text:?}");
        }
    }
}

/// A well-formed message's parts.
#[derive(Clone, Debug)]
struct Parts {
    commit_type: String,
    scope: Option<String>,
    bang: bool,
    description: String,
    /// Paragraphs of lines; no line starts like a footer.
    body: Vec<Vec<String>>,
    body_leading_blank: bool,
    /// Token, separator, value lines (the first not blank).
    footers: Vec<(String, FooterSeparator, Vec<String>)>,
    footers_leading_blank: bool,
    line_ending: &'static str,
    trailing_endings: usize,
}

impl Parts {
    fn text(&self) -> String {
        let eol = self.line_ending;
        let mut text = self.commit_type.clone();
        if let Some(scope) = &self.scope {
            text += &format!("({scope})");
        }
        if self.bang {
            text.push('!');
        }
        text += ": ";
        text += &self.description;
        if !self.body.is_empty() {
            text += eol;
            if self.body_leading_blank {
                text += eol;
            }
            let paragraphs: Vec<String> = self.body.iter().map(|lines| lines.join(eol)).collect();
            text += &paragraphs.join(&format!("{eol}{eol}"));
        }
        if !self.footers.is_empty() {
            text += eol;
            if self.footers_leading_blank {
                text += eol;
            }
            let footers: Vec<String> = self
                .footers
                .iter()
                .map(|(token, separator, lines)| {
                    format!("{token}{}{}", separator.as_str(), lines.join(eol))
                })
                .collect();
            text += &footers.join(eol);
        }
        for _ in 0..self.trailing_endings {
            text += eol;
        }
        text
    }

    fn body_text(&self) -> Option<String> {
        let eol = self.line_ending;
        (!self.body.is_empty()).then(|| {
            let paragraphs: Vec<String> = self.body.iter().map(|lines| lines.join(eol)).collect();
            paragraphs.join(&format!("{eol}{eol}"))
        })
    }
}

/// Words of prose: never a footer line (no `:` or `#`), never blank.
fn prose_line() -> impl Strategy<Value = String> {
    "[a-zA-Zé0-9,.]{1,8}( [a-zA-Z日0-9,.()!]{1,8}){0,5}"
}

fn footer() -> impl Strategy<Value = (String, FooterSeparator, Vec<String>)> {
    let token = prop_oneof![
        Just("BREAKING CHANGE".to_owned()),
        Just("BREAKING-CHANGE".to_owned()),
        "[A-Za-z0-9_é]{1,8}(-[A-Za-z0-9_]{1,6}){0,3}",
    ];
    let separator = prop_oneof![
        Just(FooterSeparator::ColonSpace),
        Just(FooterSeparator::SpaceHash)
    ];
    let value = (
        "[a-zA-Z0-9<@>.#é][a-zA-Z0-9<@>.# é]{0,12}[a-zA-Z0-9<@>.#é]|[a-zA-Z0-9]",
        proptest::collection::vec(prose_line().prop_map(|line| format!("  {line}")), 0..2),
    )
        .prop_map(|(first, more)| std::iter::once(first).chain(more).collect());
    (token, separator, value)
}

fn parts() -> impl Strategy<Value = Parts> {
    (
        "[a-zA-Z0-9_é-]{1,8}",
        proptest::option::of("[a-z (:é!#-]{1,6}"),
        any::<bool>(),
        "[a-zA-Z0-9é(#:!.,][a-zA-Z0-9 é(#:!.,)]{0,30}",
        proptest::collection::vec(proptest::collection::vec(prose_line(), 1..4), 0..3),
        any::<bool>(),
        proptest::collection::vec(footer(), 0..4),
        any::<bool>(),
        prop_oneof![Just("\n"), Just("\r\n")],
        0usize..3,
    )
        .prop_map(
            |(
                commit_type,
                scope,
                bang,
                description,
                body,
                body_leading_blank,
                footers,
                footers_leading_blank,
                line_ending,
                trailing_endings,
            )| Parts {
                commit_type,
                scope,
                bang,
                description,
                // Footers after a body need their blank line: without it,
                // `Word: value` at the end of prose stays prose (rule (c)).
                footers_leading_blank: footers_leading_blank || !body.is_empty(),
                body,
                body_leading_blank,
                footers,
                line_ending,
                trailing_endings,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn well_formed_messages_parse_to_their_parts(parts in parts()) {
        let text = parts.text();
        let message = match check_parse(&text) {
            Ok(message) => message,
            Err(failure) => return Err(TestCaseError::fail(format!("{failure}\ninput: {text:?}"))),
        };
        prop_assert_eq!(&message.kind, &MessageKind::Conventional, "{:?}", text);
        let header = message.conventional().unwrap();
        prop_assert_eq!(&header.commit_type.value, &parts.commit_type);
        prop_assert_eq!(header.scope.as_ref().map(|s| &s.value), parts.scope.as_ref());
        prop_assert_eq!(header.breaking.is_some(), parts.bang);
        prop_assert_eq!(&header.description.value, &parts.description);
        prop_assert_eq!(message.body.as_ref().map(|b| b.text.clone()), parts.body_text(), "{:?}", text);
        if let Some(body) = &message.body {
            prop_assert_eq!(body.leading_blank, parts.body_leading_blank);
        }
        let expected: Vec<(String, FooterSeparator, String)> = parts
            .footers
            .iter()
            .map(|(token, separator, lines)| (token.clone(), *separator, lines.join(parts.line_ending)))
            .collect();
        let found: Vec<(String, FooterSeparator, String)> = message
            .footers
            .iter()
            .map(|f| (f.token.value.clone(), f.separator, f.value.value.clone()))
            .collect();
        prop_assert_eq!(found, expected, "{:?}", text);
        if !parts.footers.is_empty() {
            prop_assert_eq!(message.footers_leading_blank, parts.footers_leading_blank);
        }
        let breaking = parts.bang
            || parts.footers.iter().any(|(token, _, _)| token == "BREAKING CHANGE" || token == "BREAKING-CHANGE");
        prop_assert_eq!(message.is_breaking(), breaking);
        prop_assert_eq!(parse_commit(&text).to_text(), text);
    }
}
