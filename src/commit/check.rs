//! A message judged whole: the grammar reads it ([`parse_commit`]), the
//! lint rules judge the parts it found ([`LintRules::check`]).
//!
//! The lint rules read a [`LintMessage`] view rather than the AST, so that
//! they mean exactly what commitlint's rules of the same names mean; this
//! module is where the two meet. Two facts the rules need are commitlint's
//! own, not the grammar's, and are taken from the raw text here: whether
//! the second line is blank (`body-leading-blank`), and whether a message
//! is one commitlint ignores ([`IgnoredKind::detect`]), so a project moving
//! from commitlint gets the same verdicts.

use super::ast::{CommitMessage, CommitSummary};
use super::lint::{IgnoredKind, LintFinding, LintMessage, LintRules};
use super::parse::parse_commit;
use crate::span::{Span, Spanned};

/// A commit message, parsed and judged.
#[derive(Clone, Debug)]
pub struct CheckedCommit {
    /// The message as the grammar read it.
    pub message: CommitMessage,
    /// Set when the message is one git or a release tool writes (a merge, a
    /// revert, a `fixup!`, a release): the rules do not judge it.
    pub ignored: Option<IgnoredKind>,
    /// What the rules found, in the rules' order.
    pub findings: Vec<LintFinding>,
}

impl CheckedCommit {
    /// Whether the message passes: no finding is an error (warnings pass).
    pub fn is_valid(&self) -> bool {
        !LintRules::rejects(&self.findings)
    }

    /// The message's parts as `quire check --json` prints them
    /// ([`Verdict::to_json`](super::policy::Verdict::to_json)'s `commit`).
    pub fn summary(&self) -> CommitSummary<'_> {
        self.message.summary()
    }
}

/// Parses `text` (a message as git stores it: see
/// [`git_cleanup`](super::git_cleanup)) and judges it with `rules`.
///
/// ```
/// use quire_grammar::commit::check_commit;
/// use quire_grammar::commit::lint::LintRules;
///
/// let rules = LintRules::conventional();
/// let good = check_commit("fix(cli): keep the exit code\n\nSigned-off-by: A <a@b.c>\n", &rules);
/// assert!(good.is_valid() && good.findings.is_empty());
/// let bad = check_commit("Fixed the thing.", &rules);
/// let mut rules_failed: Vec<&str> = bad.findings.iter().map(|f| f.code.name()).collect();
/// rules_failed.sort();
/// assert_eq!(rules_failed, ["subject-empty", "subject-full-stop", "type-empty"]);
/// assert!(!bad.is_valid());
/// ```
pub fn check_commit(text: &str, rules: &LintRules) -> CheckedCommit {
    let message = parse_commit(text);
    let view = lint_view(&message, text);
    let findings = rules.check(&view);
    CheckedCommit {
        ignored: view.ignored,
        message,
        findings,
    }
}

/// The rules' view of `message`, which was parsed from `text`.
pub(crate) fn lint_view<'a>(message: &'a CommitMessage, text: &'a str) -> LintMessage<'a> {
    let header = &message.header;
    let conventional = message.conventional();
    let part = |spanned: &'a Spanned<String>| Spanned::new(spanned.value.as_str(), spanned.span);
    let footer = message
        .footer_span()
        .map(|span| Spanned::new(&text[span.range()], span));
    let (commit_type, scope, subject) = match conventional {
        Some(header) => (
            Some(part(&header.commit_type)),
            header.scope.as_ref().map(part),
            Some(part(&header.description)),
        ),
        None => match commitlint_header_parts(&header.text, header.span.start) {
            Some((commit_type, scope, subject)) => (Some(commit_type), scope, Some(subject)),
            None => (None, None, None),
        },
    };
    LintMessage {
        text,
        header: Spanned::new(header.text.as_str(), header.span),
        commit_type,
        scope,
        subject,
        body: message
            .body
            .as_ref()
            .map(|body| Spanned::new(body.text.as_str(), body.span)),
        body_leading_blank: second_line_is_blank(text),
        footer_leading_blank: footer
            .as_ref()
            .is_none_or(|footer| line_before_is_blank(text, footer.span)),
        footer,
        ignored: IgnoredKind::detect(text),
        header_problem: header
            .problem
            .as_ref()
            .map(|problem| Spanned::new(problem.message.clone(), problem.span)),
    }
}

/// A header's type, scope (if any) and subject.
type HeaderParts<'a> = (Spanned<&'a str>, Option<Spanned<&'a str>>, Spanned<&'a str>);

/// The parts commitlint's header pattern (`^(\w*)(?:\((.*)\))?!?: (.*)$`,
/// of conventional-changelog-conventionalcommits) reads from a header the
/// grammar does not take: `feat: ` (an empty subject), `feat(): add` (an
/// empty scope). The rules then judge the parts as commitlint does, and a
/// type that is there is not reported missing. `at` is the header's offset
/// in the message.
fn commitlint_header_parts(header: &str, at: usize) -> Option<HeaderParts<'_>> {
    let spanned = |start: usize, end: usize| {
        Spanned::new(&header[start..end], Span::new(at + start, at + end))
    };
    let type_end = header
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(header.len());
    let commit_type = spanned(0, type_end);
    // After the type, or after the scope's `)`: `!: ` or `: `, then the
    // subject. Where the subject starts, if it fits.
    let subject_after = |from: usize| {
        let rest = &header[from..];
        let rest_at = if rest.starts_with('!') {
            from + 1
        } else {
            from
        };
        header[rest_at..].starts_with(": ").then_some(rest_at + 2)
    };
    let rest = &header[type_end..];
    if rest.starts_with('(') {
        // `(.*)` is greedy: the last `)` that a separator follows.
        let closing = rest
            .match_indices(')')
            .map(|(offset, _)| type_end + offset)
            .rev()
            .find(|&close| subject_after(close + 1).is_some());
        if let Some(close) = closing {
            let subject = subject_after(close + 1)?;
            return Some((
                commit_type,
                Some(spanned(type_end + 1, close)),
                spanned(subject, header.len()),
            ));
        }
    }
    let subject = subject_after(type_end)?;
    Some((commit_type, None, spanned(subject, header.len())))
}

/// commitlint's `body-leading-blank` test: a message of one line, or whose
/// second line is empty (a line of blanks is not).
fn second_line_is_blank(text: &str) -> bool {
    let mut lines = text.split('\n');
    lines.next();
    lines
        .next()
        .is_none_or(|line| line.trim_end_matches('\r').is_empty())
}

/// Whether the line before the one starting at `span` is empty.
fn line_before_is_blank(text: &str, span: Span) -> bool {
    let Some(before) = text[..span.start].strip_suffix('\n') else {
        return false;
    };
    let before = before.strip_suffix('\r').unwrap_or(before);
    before.ends_with('\n')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_the_grammar_refuses_are_read_as_commitlint_reads_them() {
        let parts = |header: &'static str| {
            commitlint_header_parts(header, 0)
                .map(|(t, scope, subject)| (t.value, scope.map(|scope| scope.value), subject.value))
        };
        assert_eq!(parts("feat: "), Some(("feat", None, "")));
        assert_eq!(parts("feat(): add"), Some(("feat", Some(""), "add")));
        assert_eq!(parts("feat(a)(b)!: x"), Some(("feat", Some("a)(b"), "x")));
        assert_eq!(parts("feat(a): b): c"), Some(("feat", Some("a): b"), "c")));
        assert_eq!(parts(": x"), Some(("", None, "x")));
        assert_eq!(parts("feat:x"), None);
        assert_eq!(parts("feat (a): x"), None);
        assert_eq!(parts("Fixed the thing."), None);
        let (_, scope, subject) = commitlint_header_parts("fix(): y", 10).unwrap();
        assert_eq!(
            (scope.unwrap().span, subject.span),
            (Span::new(14, 14), Span::new(17, 18))
        );
    }

    #[test]
    fn blank_lines_are_read_from_the_raw_text() {
        assert!(second_line_is_blank("feat: x"));
        assert!(second_line_is_blank("feat: x\n"));
        assert!(second_line_is_blank("feat: x\n\nbody"));
        assert!(second_line_is_blank("feat: x\r\n\r\nbody"));
        assert!(!second_line_is_blank("feat: x\nbody"));
        assert!(!second_line_is_blank("feat: x\n \nbody"));
        let text = "feat: x\n\nbody\n\nRefs: #1\n";
        let at = text.find("Refs").unwrap();
        assert!(line_before_is_blank(text, Span::new(at, text.len())));
        let text = "feat: x\n\nbody\nRefs: #1\n";
        let at = text.find("Refs").unwrap();
        assert!(!line_before_is_blank(text, Span::new(at, text.len())));
        let text = "feat: x\r\n\r\nRefs: #1\r\n";
        let at = text.find("Refs").unwrap();
        assert!(line_before_is_blank(text, Span::new(at, text.len())));
    }

    #[test]
    fn messages_git_writes_are_ignored_not_judged() {
        let rules = LintRules::conventional();
        let merge = check_commit("Merge branch 'main' into topic\n", &rules);
        assert_eq!(merge.ignored, Some(IgnoredKind::Merge));
        assert!(merge.is_valid() && merge.findings.is_empty());
    }
}
