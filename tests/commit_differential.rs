//! quire's commit grammar against git-conventional (the model crate) on a
//! corpus of real commit messages: `tests/data/commit-messages.cocogitto.jsonl`,
//! 631 messages of cocogitto's history (a project that checks Conventional
//! Commits itself).
//!
//! For every message both accept, type, scope, breaking, description and
//! footers (token, value) must agree; every message where they do not, or
//! that only git-conventional accepts, is listed in [`DISAGREEMENTS`] with
//! the reason quire is right, and every listed message must still disagree
//! (so the list stays exact). Run with `--nocapture` for the counts.

use std::collections::BTreeMap;

use quire_grammar::commit::parse_commit;
use serde::Deserialize;

const CORPUS: &str = include_str!("data/commit-messages.cocogitto.jsonl");

#[derive(Deserialize)]
struct Row {
    id: String,
    message: String,
}

/// Every message of the corpus where quire and git-conventional disagree:
/// (corpus id, why quire is right).
const DISAGREEMENTS: &[(&str, &str)] = &[
    (
        "94bbd56a3f",
        "`Example:` ends its line: no `: ` separator and no value, so it is prose, not a footer \
         (CC-8 asks for `:<space>` and a value); git-conventional takes `:` alone and makes the \
         code block after the blank line its value",
    ),
    (
        "9a499990c6",
        "the `Tested: ...` paragraph is followed by an indented log paragraph, so it is body: \
         footers are the trailing paragraphs (where git looks for trailers); git-conventional \
         starts the footers at the first paragraph that looks like one and gives `Tested` the \
         log as its value",
    ),
    (
        "5670cd81a4",
        "a GitHub squash message: the first `Co-authored-by` sits in the middle of the list of \
         squashed commits, which goes on after it, so it is body; the footers are the final \
         paragraph's two `Co-authored-by` trailers. git-conventional makes the rest of the list \
         (`* style: ...`, `---------`) the value of the first one",
    ),
    (
        "f8b5da6434",
        "`Close #236` is a trailer written right after the list without a blank line (rule (c) \
         of footer-block: a `#` reference, as git reads a trailer at the end of the last \
         paragraph); git-conventional reads footers only after a blank line and leaves it in \
         the body. commitlint's footer-leading-blank warns about the missing blank line",
    ),
    (
        "53f5a91b00",
        "`feat: add check from latest tag option` is a paragraph of a squashed message followed \
         by more prose (`coucou`), so it is body; git-conventional reads it as a footer whose \
         token is `feat`",
    ),
];

/// What both parsers say about a message, in the same terms.
#[derive(Debug, PartialEq, Eq)]
struct Reading {
    commit_type: String,
    scope: Option<String>,
    breaking: bool,
    description: String,
    footers: Vec<(String, String)>,
}

fn quire_reading(text: &str) -> Option<Reading> {
    let message = parse_commit(text);
    let header = message.conventional()?;
    Some(Reading {
        commit_type: header.commit_type.value.clone(),
        scope: header.scope.as_ref().map(|scope| scope.value.clone()),
        breaking: message.is_breaking(),
        description: header.description.value.clone(),
        footers: message
            .footers
            .iter()
            .map(|f| (f.token.value.clone(), f.value.value.clone()))
            .collect(),
    })
}

fn git_conventional_reading(text: &str) -> Option<Reading> {
    let commit = git_conventional::Commit::parse(text).ok()?;
    Some(Reading {
        commit_type: commit.type_().as_str().to_owned(),
        scope: commit.scope().map(|scope| scope.as_str().to_owned()),
        breaking: commit.breaking(),
        description: commit.description().to_owned(),
        footers: commit
            .footers()
            .iter()
            .map(|f| (f.token().as_str().to_owned(), f.value().to_owned()))
            .collect(),
    })
}

#[test]
fn quire_agrees_with_git_conventional_except_where_listed() {
    let rows: Vec<Row> = CORPUS
        .lines()
        .map(|line| serde_json::from_str(line).expect("a corpus line"))
        .collect();
    assert_eq!(rows.len(), 631);
    let listed: BTreeMap<&str, &str> = DISAGREEMENTS.iter().copied().collect();
    assert_eq!(listed.len(), DISAGREEMENTS.len(), "an id is listed twice");
    let (mut both, mut only_quire, mut only_git_conventional, mut neither) = (0, 0, 0, 0);
    let mut unexplained = Vec::new();
    let mut disagreeing = Vec::new();
    for row in &rows {
        // Every message rebuilds, whatever it is.
        assert_eq!(
            parse_commit(&row.message).to_text(),
            row.message,
            "{}",
            row.id
        );
        let (ours, theirs) = (
            quire_reading(&row.message),
            git_conventional_reading(&row.message),
        );
        let disagree = match (&ours, &theirs) {
            (Some(ours), Some(theirs)) => {
                both += 1;
                ours != theirs
            }
            (Some(_), None) => {
                only_quire += 1;
                true
            }
            (None, Some(_)) => {
                only_git_conventional += 1;
                true
            }
            (None, None) => {
                neither += 1;
                false
            }
        };
        if disagree {
            disagreeing.push(row.id.as_str());
            if !listed.contains_key(row.id.as_str()) {
                unexplained.push(format!(
                    "{}: {:?}\n  quire:            {ours:?}\n  git-conventional: {theirs:?}",
                    row.id, row.message
                ));
            }
        }
    }
    println!(
        "{} messages: accepted by both {both} (agreeing on {}), only quire {only_quire}, only git-conventional {only_git_conventional}, neither {neither}",
        rows.len(),
        both - disagreeing.len() + only_quire + only_git_conventional
    );
    assert!(
        unexplained.is_empty(),
        "{} disagreements not listed in DISAGREEMENTS:\n{}",
        unexplained.len(),
        unexplained.join("\n")
    );
    let stale: Vec<&&str> = listed
        .keys()
        .filter(|id| !disagreeing.contains(id))
        .collect();
    assert!(stale.is_empty(), "listed but agreeing now: {stale:?}");
}
