//! Conformance table of the commit grammar (`grammar/commit.ebnf`): each
//! message with the kind, header, body and footers it must parse to, plus
//! insta snapshots of a few whole ASTs.
//!
//! Every case is also checked for the invariants every parse keeps: the
//! text rebuilds byte for byte, and every node's text is the text under its
//! span. Update the snapshots with `INSTA_UPDATE=always cargo test --test
//! commit_grammar`, then read every changed snapshot.

use quire_grammar::commit::{
    AutosquashMarker, CommitMessage, FooterSeparator, MessageKind, codes, parse_commit,
    parse_header,
};
use quire_grammar::span::Span;
use serde_json::json;

/// What a header must parse to.
#[derive(Clone, Debug)]
enum Head {
    /// Conventional: type, scope, `!`, description.
    Conv(&'static str, Option<&'static str>, bool, &'static str),
    /// Not conventional, for this reason.
    Problem(&'static str),
}

/// One row of the table.
#[derive(Clone, Debug)]
struct Case {
    name: &'static str,
    text: &'static str,
    kind: MessageKind,
    head: Head,
    breaking: bool,
    body: Option<&'static str>,
    body_blank: bool,
    footers: Vec<(&'static str, &'static str)>,
    footers_blank: bool,
}

fn conv(
    name: &'static str,
    text: &'static str,
    head: (&'static str, Option<&'static str>, bool, &'static str),
) -> Case {
    Case {
        name,
        text,
        kind: MessageKind::Conventional,
        head: Head::Conv(head.0, head.1, head.2, head.3),
        breaking: head.2,
        body: None,
        body_blank: true,
        footers: Vec::new(),
        footers_blank: true,
    }
}

fn other(name: &'static str, text: &'static str, kind: MessageKind, problem: &'static str) -> Case {
    Case {
        name,
        text,
        kind,
        head: Head::Problem(problem),
        breaking: false,
        body: None,
        body_blank: true,
        footers: Vec::new(),
        footers_blank: true,
    }
}

fn problem(name: &'static str, text: &'static str, code: &'static str) -> Case {
    other(name, text, MessageKind::Unconventional, code)
}

impl Case {
    fn body(mut self, body: &'static str) -> Self {
        self.body = Some(body);
        self
    }
    fn tight_body(mut self) -> Self {
        self.body_blank = false;
        self
    }
    fn footers(mut self, footers: &[(&'static str, &'static str)]) -> Self {
        self.footers = footers.to_vec();
        self
    }
    fn tight_footers(mut self) -> Self {
        self.footers_blank = false;
        self
    }
    fn breaking(mut self) -> Self {
        self.breaking = true;
        self
    }
}

const SHA: &str = "4134961d5aeccf89280864c11c7d0c1ceb1fe7ca";

fn cases() -> Vec<Case> {
    vec![
        // --- the specification's examples (conventionalcommits.org 1.0.0)
        conv(
            "spec-breaking-footer",
            "feat: allow provided config object to extend other configs\n\nBREAKING CHANGE: `extends` key in config file is now used for extending other config files",
            ("feat", None, false, "allow provided config object to extend other configs"),
        )
        .footers(&[("BREAKING CHANGE", "`extends` key in config file is now used for extending other config files")])
        .breaking(),
        conv(
            "spec-bang",
            "feat!: send an email to the customer when a product is shipped",
            ("feat", None, true, "send an email to the customer when a product is shipped"),
        ),
        conv(
            "spec-scope-bang",
            "feat(api)!: send an email to the customer when a product is shipped",
            ("feat", Some("api"), true, "send an email to the customer when a product is shipped"),
        ),
        conv(
            "spec-bang-and-footer",
            "chore!: drop support for Node 6\n\nBREAKING CHANGE: use JavaScript features not available in Node 6.",
            ("chore", None, true, "drop support for Node 6"),
        )
        .footers(&[("BREAKING CHANGE", "use JavaScript features not available in Node 6.")]),
        conv("spec-no-body", "docs: correct spelling of CHANGELOG", ("docs", None, false, "correct spelling of CHANGELOG")),
        conv("spec-scope", "feat(lang): add Polish language", ("feat", Some("lang"), false, "add Polish language")),
        conv(
            "spec-multi-paragraph-body-and-footers",
            "fix: prevent racing of requests\n\nIntroduce a request id and a reference to latest request. Dismiss\nincoming responses other than from latest request.\n\nRemove timeouts which were used to mitigate the racing issue but are\nobsolete now.\n\nReviewed-by: Z\nRefs: #123\n",
            ("fix", None, false, "prevent racing of requests"),
        )
        .body("Introduce a request id and a reference to latest request. Dismiss\nincoming responses other than from latest request.\n\nRemove timeouts which were used to mitigate the racing issue but are\nobsolete now.")
        .footers(&[("Reviewed-by", "Z"), ("Refs", "#123")]),
        conv(
            "spec-revert-type",
            "revert: let us never again speak of the noodle incident\n\nRefs: 676104e, a215868\n",
            ("revert", None, false, "let us never again speak of the noodle incident"),
        )
        .footers(&[("Refs", "676104e, a215868")]),
        // --- headers
        conv("scope-with-space", "feat(a b): x", ("feat", Some("a b"), false, "x")),
        conv("scope-with-open-paren", "feat(a(b): x", ("feat", Some("a(b"), false, "x")),
        conv("capital-type", "Feat: Capital letters are the lint's business", ("Feat", None, false, "Capital letters are the lint's business")),
        conv("description-keeps-trailing-blanks", "feat:   extra spaces  \t", ("feat", None, false, "extra spaces  \t")),
        conv("unicode", "fête(ça): unicode ✓ 💃🏽", ("fête", Some("ça"), false, "unicode ✓ 💃🏽")),
        conv("type-with-dash-and-underscore", "auto-merge_2: x", ("auto-merge_2", None, false, "x")),
        conv("description-with-colon", "fix(io): retry: three times", ("fix", Some("io"), false, "retry: three times")),
        conv("bom", "\u{feff}feat: x\n", ("feat", None, false, "x")),
        conv("header-cr-only", "feat: x\r", ("feat", None, false, "x")),
        conv("trailing-blank-lines", "feat: x\n\n\n", ("feat", None, false, "x")),
        problem("empty-scope", "feat(): x", codes::EMPTY_SCOPE),
        problem("two-scopes", "feat(a)(b): x", codes::AFTER_SCOPE),
        problem("space-after-scope", "feat(a) : x", codes::AFTER_SCOPE),
        problem("unclosed-scope", "feat(a: x", codes::UNCLOSED_SCOPE),
        problem("colon-nothing", "feat:", codes::EMPTY_DESCRIPTION),
        problem("colon-space-nothing", "feat: ", codes::EMPTY_DESCRIPTION),
        problem("colon-blanks-nothing", "feat(x)!:   \t", codes::EMPTY_DESCRIPTION),
        problem("no-space", "feat:x", codes::NO_SPACE),
        problem("tab-not-space", "feat:\tx", codes::NO_SPACE),
        problem("space-before-colon", "feat : x", codes::INVALID_TYPE),
        problem("space-before-scope", "fix (io): x", codes::INVALID_TYPE),
        problem("file-name-prefix", "Update README.md: x", codes::INVALID_TYPE),
        problem("wip-prefix", "[WIP] feat: x", codes::INVALID_TYPE),
        problem("slash-type", "net/http: fix", codes::INVALID_TYPE),
        problem("plain-sentence", "Add a parser", codes::NO_COLON),
        problem("one-word", "WIP", codes::NO_COLON),
        problem("no-type", ": x", codes::MISSING_TYPE),
        problem("scope-no-type", "(scope): x", codes::MISSING_TYPE),
        problem("bang-before-scope", "feat!(a): x", codes::AFTER_BREAKING),
        problem("empty", "", codes::EMPTY),
        problem("only-whitespace", "   \n\n  \t\n", codes::EMPTY),
        problem("leading-blank-line", "\nAdd a parser", codes::EMPTY)
            .body("Add a parser")
            .tight_body(),
        // --- bodies
        conv("body-without-blank", "fix: x\nbody without blank", ("fix", None, false, "x"))
            .body("body without blank")
            .tight_body(),
        conv(
            "body-with-colons",
            "fix: x\n\nThe fix: use a lock.\nAnother: line here.\n",
            ("fix", None, false, "x"),
        )
        .body("The fix: use a lock.\nAnother: line here."),
        conv(
            "note-in-middle-of-paragraph",
            "fix: x\n\nFirst line.\nNote: x\nlast line.",
            ("fix", None, false, "x"),
        )
        .body("First line.\nNote: x\nlast line."),
        conv(
            "footer-like-paragraph-then-prose",
            "fix: x\n\nNote: see below\n\nProse here.\n",
            ("fix", None, false, "x"),
        )
        .body("Note: see below\n\nProse here."),
        conv(
            "tested-paragraph-then-log-then-trailer",
            "refactor(revspec): use git describe\n\nTested: Ran the tests.\n\n    Summary [0.496s] 226 tests run\n\nSigned-off-by: Luke <luke@example.com>\n",
            ("refactor", Some("revspec"), false, "use git describe"),
        )
        .body("Tested: Ran the tests.\n\n    Summary [0.496s] 226 tests run")
        .footers(&[("Signed-off-by", "Luke <luke@example.com>")]),
        conv(
            "breaking-change-inside-prose",
            "feat: x\n\nThis has a\nBREAKING CHANGE: in the middle\nof prose.",
            ("feat", None, false, "x"),
        )
        .body("This has a\nBREAKING CHANGE: in the middle\nof prose."),
        conv(
            "breaking-change-paragraph-with-explanation",
            "feat: x\n\nIntro.\n\nBREAKING CHANGE: the config moved.\n\nMove your file.\n\nFixes #12\n",
            ("feat", None, false, "x"),
        )
        .body("Intro.")
        .footers(&[("BREAKING CHANGE", "the config moved.\n\nMove your file."), ("Fixes", "12")])
        .breaking(),
        conv("breaking-change-dash", "feat: x\n\nBREAKING-CHANGE: gone", ("feat", None, false, "x"))
            .footers(&[("BREAKING-CHANGE", "gone")])
            .breaking(),
        conv("breaking-change-lowercase-is-prose", "feat: x\n\nbreaking change: gone", ("feat", None, false, "x"))
            .body("breaking change: gone"),
        conv("breaking-change-lowercase-dash-is-a-plain-footer", "feat: x\n\nbreaking-change: gone", ("feat", None, false, "x"))
            .footers(&[("breaking-change", "gone")]),
        conv("code-block-body", "docs: x\n\n    indented code\n\tand a tab", ("docs", None, false, "x"))
            .body("    indented code\n\tand a tab"),
        conv("unicode-body", "docs: x\n\nÜnïcödé bödy — 日本語\n", ("docs", None, false, "x"))
            .body("Ünïcödé bödy — 日本語"),
        // --- footers
        conv(
            "multi-line-footer-value",
            "fix: x\n\nBREAKING CHANGE: line one\nline two\nSigned-off-by: A <a@example.com>",
            ("fix", None, false, "x"),
        )
        .footers(&[("BREAKING CHANGE", "line one\nline two"), ("Signed-off-by", "A <a@example.com>")])
        .breaking(),
        conv(
            "trailer-after-body-without-blank",
            "fix: x\n\nSome body text.\nSigned-off-by: A <a@example.com>\n",
            ("fix", None, false, "x"),
        )
        .body("Some body text.")
        .footers(&[("Signed-off-by", "A <a@example.com>")])
        .tight_footers(),
        conv(
            "reference-after-body-without-blank",
            "fix: x\n\n* refactor: a\r\n* refactor: b\r\nClose #236",
            ("fix", None, false, "x"),
        )
        .body("* refactor: a\r\n* refactor: b")
        .footers(&[("Close", "236")])
        .tight_footers(),
        conv(
            "trailer-continuation-lines",
            "fix: x\n\nText.\nSigned-off-by: A\n  continued\nCo-authored-by: B",
            ("fix", None, false, "x"),
        )
        .body("Text.")
        .footers(&[("Signed-off-by", "A\n  continued"), ("Co-authored-by", "B")])
        .tight_footers(),
        conv("footer-right-after-header", "fix: x\nSigned-off-by: A", ("fix", None, false, "x"))
            .footers(&[("Signed-off-by", "A")])
            .tight_footers(),
        conv("footers-only", "fix: x\n\nFixes #12\nRefs: #1\n", ("fix", None, false, "x"))
            .footers(&[("Fixes", "12"), ("Refs", "#1")]),
        conv("reference-list", "fix: x\n\nCloses #1, #2", ("fix", None, false, "x"))
            .footers(&[("Closes", "1, #2")]),
        conv("footer-extra-spaces", "fix: x\n\nRefs:   #1  ", ("fix", None, false, "x"))
            .footers(&[("Refs", "#1")]),
        conv("footer-without-space-is-prose", "fix: x\n\nRefs:#1", ("fix", None, false, "x"))
            .body("Refs:#1"),
        conv(
            "example-colon-paragraph-is-prose",
            "feat: x\n\nExample:\n\n```\necho x | cog verify --file -\n```\n\nCo-authored-by: Cursor <c@example.com>",
            ("feat", None, false, "x"),
        )
        .body("Example:\n\n```\necho x | cog verify --file -\n```")
        .footers(&[("Co-authored-by", "Cursor <c@example.com>")]),
        conv("url-paragraph-is-prose", "docs: x\n\nhttps://example.com/a", ("docs", None, false, "x"))
            .body("https://example.com/a"),
        conv("empty-footer-value-is-prose", "fix: x\n\nAcked-by: ", ("fix", None, false, "x"))
            .body("Acked-by:"),
        conv(
            "two-footer-paragraphs",
            "fix: x\n\nbody\n\nBREAKING CHANGE: y\n\nSigned-off-by: A",
            ("fix", None, false, "x"),
        )
        .body("body")
        .footers(&[("BREAKING CHANGE", "y"), ("Signed-off-by", "A")])
        .breaking(),
        conv(
            "squashed-commit-list-is-body",
            "feat: add check\n\ncoucou\n\nfeat: add check from latest tag option\n\ncoucou\n",
            ("feat", None, false, "add check"),
        )
        .body("coucou\n\nfeat: add check from latest tag option\n\ncoucou"),
        conv(
            "crlf",
            "feat(a): b\r\n\r\nbody line\r\nsecond\r\n\r\nSigned-off-by: A <a@b>\r\n",
            ("feat", Some("a"), false, "b"),
        )
        .body("body line\r\nsecond")
        .footers(&[("Signed-off-by", "A <a@b>")]),
        conv(
            "dependabot",
            "chore(deps): bump nanoid from 3.3.7 to 3.3.8 in /website (#432)\n\nBumps [nanoid](https://github.com/ai/nanoid) from 3.3.7 to 3.3.8.\r\n- [Release notes](https://github.com/ai/nanoid/releases)\r\n\r\n---\r\nupdated-dependencies:\r\n- dependency-name: nanoid\r\n  dependency-type: indirect\r\n...\r\n\r\nSigned-off-by: dependabot[bot] <support@github.com>\r\nCo-authored-by: dependabot[bot] <4@users.noreply.github.com>",
            ("chore", Some("deps"), false, "bump nanoid from 3.3.7 to 3.3.8 in /website (#432)"),
        )
        .body("Bumps [nanoid](https://github.com/ai/nanoid) from 3.3.7 to 3.3.8.\r\n- [Release notes](https://github.com/ai/nanoid/releases)\r\n\r\n---\r\nupdated-dependencies:\r\n- dependency-name: nanoid\r\n  dependency-type: indirect\r\n...")
        .footers(&[
            ("Signed-off-by", "dependabot[bot] <support@github.com>"),
            ("Co-authored-by", "dependabot[bot] <4@users.noreply.github.com>"),
        ]),
        conv(
            "github-squash",
            "feat: allow config path (#466)\n\n* feat: allow config path\n\n* docs: document `--config` flag\n\nCo-authored-by: B <b@example.com>",
            ("feat", None, false, "allow config path (#466)"),
        )
        .body("* feat: allow config path\n\n* docs: document `--config` flag")
        .footers(&[("Co-authored-by", "B <b@example.com>")]),
        conv("blank-line-with-cr-before-trailer", "feat: ssh\n\n\r\nCo-authored-by: P <p@example.com>", ("feat", None, false, "ssh"))
            .footers(&[("Co-authored-by", "P <p@example.com>")]),
        // --- messages git and release tools write
        other("merge-branch-into", "Merge branch 'main' into topic", MessageKind::Merge, codes::NO_COLON),
        other(
            "merge-pull-request",
            "Merge pull request #54 from a/b\n\nfeat(cli): show tag",
            MessageKind::Merge,
            codes::NO_COLON,
        )
        .body("feat(cli): show tag"),
        other("merge-tag", "Merge tag 'v1.0.0'", MessageKind::Merge, codes::NO_COLON),
        other("merge-remote-tracking", "Merge remote-tracking branch 'origin/main'", MessageKind::Merge, codes::NO_COLON),
        other("merge-x-into-y", "Merge origin/main into topic", MessageKind::Merge, codes::NO_COLON),
        other("merged-pr-azure", "Merged PR 123: Add x", MessageKind::Merge, codes::INVALID_TYPE),
        other(
            "revert",
            "Revert \"feat: x\"\n\nThis reverts commit 4134961d5aeccf89280864c11c7d0c1ceb1fe7ca.\n",
            MessageKind::Revert { reverted: Some(SHA.to_owned()) },
            codes::INVALID_TYPE,
        )
        .body("This reverts commit 4134961d5aeccf89280864c11c7d0c1ceb1fe7ca."),
        other("revert-without-body", "Revert \"feat: x\"", MessageKind::Revert { reverted: None }, codes::INVALID_TYPE),
        other(
            "reapply",
            "Reapply \"feat: x\"\n\nThis reverts commit abcdef1.",
            MessageKind::Reapply,
            codes::INVALID_TYPE,
        )
        .body("This reverts commit abcdef1."),
        other("fixup", "fixup! feat: x", MessageKind::Autosquash(AutosquashMarker::Fixup), codes::AFTER_BREAKING),
        other("squash", "squash! feat: x", MessageKind::Autosquash(AutosquashMarker::Squash), codes::AFTER_BREAKING),
        other(
            "amend",
            "amend! feat: x\n\nfeat: better x\n\nWith a body.",
            MessageKind::Autosquash(AutosquashMarker::Amend),
            codes::AFTER_BREAKING,
        )
        .body("feat: better x\n\nWith a body."),
        other("fixup-without-space-is-not-autosquash", "fixup!x", MessageKind::Unconventional, codes::AFTER_BREAKING),
        other("release-v", "v1.2.3", MessageKind::Release { version: "v1.2.3".to_owned() }, codes::NO_COLON),
        other("release-prerelease", "1.2.3-rc.1\n", MessageKind::Release { version: "1.2.3-rc.1".to_owned() }, codes::NO_COLON),
        conv("chore-release-is-conventional", "chore(release): 1.2.3", ("chore", Some("release"), false, "1.2.3")),
        problem("two-part-version-is-not-a-release", "1.2", codes::NO_COLON),
        other("automatic-merge", "Automatic merge from release/1.0 -> main", MessageKind::AutomaticMerge, codes::NO_COLON),
        other("auto-merged", "Auto-merged a into b", MessageKind::AutomaticMerge, codes::NO_COLON),
        conv(
            "revert-type-is-conventional",
            "revert: \"chore: x\"\n\nThis reverts commit 4134961d5aeccf89280864c11c7d0c1ceb1fe7ca.\n",
            ("revert", None, false, "\"chore: x\""),
        )
        .body("This reverts commit 4134961d5aeccf89280864c11c7d0c1ceb1fe7ca."),
        problem("merge-sentence-is-unconventional", "Merge two lists", codes::NO_COLON),
    ]
}

/// The checks every parse passes: the text rebuilds, every node's text is
/// the text under its span, and spans lie in order inside the text.
fn check_invariants(text: &str, message: &CommitMessage) {
    assert_eq!(message.to_text(), text, "to_text");
    let at = |span: Span| &text[span.range()];
    assert_eq!(at(message.header.span), message.header.text);
    if let Some(header) = message.conventional() {
        assert_eq!(at(header.commit_type.span), header.commit_type.value);
        if let Some(scope) = &header.scope {
            assert_eq!(at(scope.span), scope.value);
        }
        if let Some(bang) = header.breaking {
            assert_eq!(at(bang), "!");
        }
        assert_eq!(at(header.description.span), header.description.value);
    }
    if let Some(problem) = &message.header.problem {
        assert!(problem.span.end <= text.len() && problem.span.start <= problem.span.end);
        assert!(codes::ALL.contains(&problem.code), "{}", problem.code);
        assert!(!problem.message.is_empty() && !problem.help.is_empty());
    }
    let mut last_end = message.header.span.end;
    if let Some(body) = &message.body {
        assert_eq!(at(body.span), body.text);
        assert!(body.span.start >= last_end);
        last_end = body.span.end;
    }
    for footer in &message.footers {
        assert_eq!(at(footer.token.span), footer.token.value);
        assert_eq!(at(footer.value.span), footer.value.value);
        assert!(footer.span.start >= last_end, "footers in order");
        assert_eq!(footer.span.start, footer.token.span.start);
        assert_eq!(footer.span.end, footer.value.span.end);
        let separator = &text[footer.token.span.end..footer.token.span.end + 2];
        assert_eq!(separator, footer.separator.as_str());
        last_end = footer.span.end;
    }
}

#[test]
fn conformance_table() {
    let cases = cases();
    assert!(cases.len() >= 60, "{} cases", cases.len());
    let mut names = std::collections::BTreeSet::new();
    let mut failures = Vec::new();
    for case in &cases {
        assert!(names.insert(case.name), "duplicate case {}", case.name);
        let message = parse_commit(case.text);
        check_invariants(case.text, &message);
        let mut wrong = Vec::new();
        if message.kind != case.kind {
            wrong.push(format!("kind {:?}, expected {:?}", message.kind, case.kind));
        }
        match (&case.head, message.conventional(), &message.header.problem) {
            (Head::Conv(t, s, bang, d), Some(header), None) => {
                let got = (
                    header.commit_type.value.as_str(),
                    header.scope.as_ref().map(|s| s.value.as_str()),
                    header.breaking.is_some(),
                    header.description.value.as_str(),
                );
                if got != (*t, *s, *bang, *d) {
                    wrong.push(format!("header {got:?}, expected {:?}", (t, s, bang, d)));
                }
            }
            (Head::Problem(code), None, Some(problem)) if problem.code == *code => {}
            (expected, conventional, problem) => wrong.push(format!(
                "header {:?} / {:?}, expected {expected:?}",
                conventional.map(|c| &c.commit_type.value),
                problem.as_ref().map(|p| p.code)
            )),
        }
        if message.is_breaking() != case.breaking {
            wrong.push(format!("is_breaking {}", message.is_breaking()));
        }
        let body = message.body.as_ref().map(|b| b.text.as_str());
        if body != case.body {
            wrong.push(format!("body {body:?}, expected {:?}", case.body));
        }
        if let Some(b) = &message.body
            && b.leading_blank != case.body_blank
        {
            wrong.push(format!("body leading_blank {}", b.leading_blank));
        }
        let footers: Vec<(&str, &str)> = message
            .footers
            .iter()
            .map(|f| (f.token.value.as_str(), f.value.value.as_str()))
            .collect();
        if footers != case.footers {
            wrong.push(format!("footers {footers:?}, expected {:?}", case.footers));
        }
        if !message.footers.is_empty() && message.footers_leading_blank != case.footers_blank {
            wrong.push(format!(
                "footers_leading_blank {}",
                message.footers_leading_blank
            ));
        }
        if !wrong.is_empty() {
            failures.push(format!(
                "{}: {:?}\n    {}",
                case.name,
                case.text,
                wrong.join("\n    ")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases fail:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn every_problem_code_is_reachable_from_the_table() {
    let cases = cases();
    for code in codes::ALL {
        assert!(
            cases
                .iter()
                .any(|case| matches!(case.head, Head::Problem(c) if c == code)),
            "{code} has no case"
        );
    }
}

#[test]
fn parse_header_gives_the_header_parse_commit_gives() {
    for case in cases() {
        assert_eq!(
            parse_header(case.text),
            parse_commit(case.text).header,
            "{}",
            case.name
        );
    }
}

#[test]
fn separators_are_recorded() {
    let message = parse_commit("fix: x\n\nFixes #1\nRefs: 2");
    let separators: Vec<FooterSeparator> = message.footers.iter().map(|f| f.separator).collect();
    assert_eq!(
        separators,
        [FooterSeparator::SpaceHash, FooterSeparator::ColonSpace]
    );
}

#[test]
fn the_summary_is_the_clis_json_shape() {
    let message = parse_commit("feat(cli)!: add hook\n\nWhy.\n\nFixes #1\n");
    assert_eq!(
        serde_json::to_value(message.summary()).unwrap(),
        json!({
            "type": "feat", "scope": "cli", "breaking": true, "description": "add hook",
            "body": "Why.", "footers": [{"token": "Fixes", "value": "1"}]
        })
    );
    let plain = parse_commit("Merge branch 'x'\n\nSigned-off-by: A");
    assert_eq!(
        serde_json::to_value(plain.summary()).unwrap(),
        json!({
            "type": null, "scope": null, "breaking": false, "description": null,
            "body": null, "footers": [{"token": "Signed-off-by", "value": "A"}]
        })
    );
}

#[test]
fn header_problems_render_with_miette() {
    let text = "feat(a: add spans\n";
    let problem = parse_commit(text).header.problem.unwrap();
    let report = miette::Report::new(problem).with_source_code(text.to_owned());
    let mut shown = String::new();
    miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
        .render_report(&mut shown, report.as_ref())
        .unwrap();
    assert!(shown.contains("commit::header::unclosed-scope"), "{shown}");
    assert!(shown.contains("never closed"), "{shown}");
    assert!(shown.contains("help: close the scope"), "{shown}");
}

/// A whole AST as JSON, with every node's span and the text under it.
fn snapshot_of(text: &str) -> serde_json::Value {
    let message = parse_commit(text);
    let at = |span: Span| json!(format!("{span} {:?}", &text[span.range()]));
    let mut spans = serde_json::Map::new();
    spans.insert("header".into(), at(message.header.span));
    if let Some(header) = message.conventional() {
        spans.insert("type".into(), at(header.commit_type.span));
        if let Some(scope) = &header.scope {
            spans.insert("scope".into(), at(scope.span));
        }
        spans.insert("description".into(), at(header.description.span));
    }
    if let Some(problem) = &message.header.problem {
        spans.insert("problem".into(), at(problem.span));
    }
    if let Some(body) = &message.body {
        spans.insert("body".into(), at(body.span));
    }
    let footers: Vec<_> = message.footers.iter().map(|f| at(f.span)).collect();
    spans.insert("footers".into(), json!(footers));
    json!({ "text": text, "message": message, "spans": spans })
}

#[test]
fn ast_snapshots() {
    let examples = [
        (
            "body-and-footers",
            "fix(parser)!: prevent racing\n\nIntroduce a request id.\n\nBREAKING CHANGE: ids are required\nRefs: #123\n",
        ),
        (
            "crlf-trailers-without-blank",
            "docs: x\r\n\r\nSome text.\r\nSigned-off-by: A <a@example.com>\r\n",
        ),
        (
            "revert",
            "Revert \"feat: x\"\n\nThis reverts commit 4134961d5aeccf89280864c11c7d0c1ceb1fe7ca.\n",
        ),
        (
            "not-conventional",
            "Update README.md: fix typo\n\nCloses #4\n",
        ),
    ];
    for (name, text) in examples {
        insta::with_settings!({ snapshot_path => "../snapshots", prepend_module_to_snapshot => false, omit_expression => true }, {
            insta::assert_json_snapshot!(format!("commit__{name}"), snapshot_of(text));
        });
    }
}
