//! The typed AST of a commit message: header, body, footers, and the layout
//! between them that makes the message rebuildable byte for byte.
//!
//! Every node keeps the byte span it was read from, and every text field is
//! exactly the text under its span (`&text[span.range()]`), CRLF included.
//! Spans are not part of the JSON shape ([`Spanned`] serializes as its
//! value); [`CommitMessage::summary`] gives the flat JSON view the CLI
//! prints.

use std::borrow::Cow;

use serde::{Serialize, Serializer};

use super::problem::HeaderProblem;
use crate::span::{Span, Spanned};

/// A commit message, as [`parse_commit`](super::parse_commit) reads it.
///
/// The fields are the message's parts; what lies between them (line
/// endings, blank lines, the separators of footers) is kept privately, so
/// [`CommitMessage::to_text`] gives back the parsed text exactly.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CommitMessage {
    /// What kind of message this is (conventional, a merge, a revert, ...),
    /// decided from the header.
    pub kind: MessageKind,
    /// The first line.
    pub header: Header,
    /// The free paragraphs between the header and the footers.
    pub body: Option<Body>,
    /// The trailing footer block (git trailers included), in order.
    pub footers: Vec<Footer>,
    /// Whether a blank line comes before the footer block.
    pub footers_leading_blank: bool,
    /// The text between the nodes, in order (see [`Layout`]).
    #[serde(skip)]
    pub(super) layout: Vec<Layout>,
}

/// One piece of a message's text, in order: either the text of a node
/// (looked up in the message when the text is rebuilt) or text between
/// nodes, kept as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Layout {
    /// Text between nodes: a byte-order mark, line endings, blank lines, a
    /// footer's separator and the blanks after it, ws after a value.
    Text(Cow<'static, str>),
    /// The header's text.
    Header,
    /// The body's text.
    Body,
    /// The token of the footer with this index.
    FooterToken(usize),
    /// The value of the footer with this index.
    FooterValue(usize),
}

impl CommitMessage {
    /// The message's text, rebuilt from its nodes and the layout between
    /// them: for a parsed message, byte for byte the text it was parsed
    /// from.
    pub fn to_text(&self) -> String {
        let mut text = String::with_capacity(self.text_len());
        for piece in &self.layout {
            text.push_str(self.piece_text(piece));
        }
        text
    }

    /// The length in bytes of [`Self::to_text`].
    fn text_len(&self) -> usize {
        self.layout
            .iter()
            .map(|piece| self.piece_text(piece).len())
            .sum()
    }

    fn piece_text<'s>(&'s self, piece: &'s Layout) -> &'s str {
        match piece {
            Layout::Text(text) => text,
            Layout::Header => &self.header.text,
            Layout::Body => self.body.as_ref().map_or("", |body| body.text.as_str()),
            Layout::FooterToken(index) => self
                .footers
                .get(*index)
                .map_or("", |footer| footer.token.value.as_str()),
            Layout::FooterValue(index) => self
                .footers
                .get(*index)
                .map_or("", |footer| footer.value.value.as_str()),
        }
    }

    /// Whether the commit is a breaking change: a `!` before the header's
    /// colon, or a `BREAKING CHANGE` / `BREAKING-CHANGE` footer.
    pub fn is_breaking(&self) -> bool {
        self.header
            .conventional
            .as_ref()
            .is_some_and(|header| header.breaking.is_some())
            || self.footers.iter().any(|footer| footer.breaking)
    }

    /// The header's conventional parts, when it is a conventional header.
    pub fn conventional(&self) -> Option<&ConventionalHeader> {
        self.header.conventional.as_ref()
    }

    /// The span of the footer block: from the first footer's token to the
    /// last footer's value.
    pub fn footer_span(&self) -> Option<Span> {
        let first = self.footers.first()?;
        let last = self.footers.last()?;
        Some(Span::new(first.span.start, last.span.end))
    }

    /// The flat view the CLI prints with `--json`: `{"type", "scope",
    /// "breaking", "description", "body", "footers": [{"token", "value"}]}`.
    pub fn summary(&self) -> CommitSummary<'_> {
        let conventional = self.conventional();
        CommitSummary {
            commit_type: conventional.map(|header| header.commit_type.value.as_str()),
            scope: conventional
                .and_then(|header| header.scope.as_ref())
                .map(|scope| scope.value.as_str()),
            breaking: self.is_breaking(),
            description: conventional.map(|header| header.description.value.as_str()),
            body: self.body.as_ref().map(|body| body.text.as_str()),
            footers: self
                .footers
                .iter()
                .map(|footer| FooterSummary {
                    token: &footer.token.value,
                    value: &footer.value.value,
                })
                .collect(),
        }
    }
}

/// [`CommitMessage::summary`]: the message's parts as the CLI's JSON shows
/// them. `type`, `scope` and `description` are `null` when the header is
/// not conventional.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CommitSummary<'a> {
    /// The header's type.
    #[serde(rename = "type")]
    pub commit_type: Option<&'a str>,
    /// The header's scope.
    pub scope: Option<&'a str>,
    /// [`CommitMessage::is_breaking`].
    pub breaking: bool,
    /// The header's description.
    pub description: Option<&'a str>,
    /// The body's text.
    pub body: Option<&'a str>,
    /// Every footer's token and value.
    pub footers: Vec<FooterSummary<'a>>,
}

/// One footer in a [`CommitSummary`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FooterSummary<'a> {
    /// The footer's token (`Signed-off-by`, `BREAKING CHANGE`).
    pub token: &'a str,
    /// The footer's value.
    pub value: &'a str,
}

/// What kind of message a commit message is, decided from its header
/// (`grammar/commit.ebnf`, section kinds). Everything but `Conventional`
/// and `Unconventional` is a message git or a release tool writes, which
/// commitlint ignores by default.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageKind {
    /// The header is a conventional header (`type(scope)!: description`).
    Conventional,
    /// A merge commit's message (`Merge branch 'x'`, `Merge pull request
    /// #1 from ...`, `Merge x into y`).
    Merge,
    /// A revert git wrote (`Revert "feat: x"`).
    Revert {
        /// The reverted commit, from the body's `This reverts commit
        /// <hash>.`
        reverted: Option<String>,
    },
    /// A revert of a revert git wrote (`Reapply "feat: x"`).
    Reapply,
    /// An autosquash commit (`fixup! `, `squash! `, `amend! `).
    Autosquash(AutosquashMarker),
    /// A release commit whose header is a version (`v1.2.3`, `1.2.3`).
    Release {
        /// The version as written (`v1.2.3`).
        version: String,
    },
    /// A merge a tool made on its own (`Automatic merge ...`,
    /// `Auto-merged x into y`).
    AutomaticMerge,
    /// None of the above: a header that is not conventional.
    Unconventional,
}

impl MessageKind {
    /// Whether the message is one git or a release tool writes, which
    /// commitlint ignores by default.
    pub fn is_generated(&self) -> bool {
        !matches!(
            self,
            MessageKind::Conventional | MessageKind::Unconventional
        )
    }
}

/// The marker of an autosquash commit, which `git rebase --autosquash`
/// reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AutosquashMarker {
    /// `fixup! `: fold into the named commit, dropping this message.
    Fixup,
    /// `squash! `: fold into the named commit, keeping both messages.
    Squash,
    /// `amend! `: fold into the named commit, replacing its message.
    Amend,
}

/// The first line of a message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Header {
    /// The line, without its line ending.
    #[serde(skip)]
    pub span: Span,
    /// The line's text.
    pub text: String,
    /// Its parts, when it is a conventional header.
    pub conventional: Option<ConventionalHeader>,
    /// Why it is not a conventional header, when it is not.
    pub problem: Option<HeaderProblem>,
}

/// A conventional header's parts: `type(scope)!: description`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ConventionalHeader {
    /// The type (`feat`).
    #[serde(rename = "type")]
    pub commit_type: Spanned<String>,
    /// The scope inside the parentheses, when there is one.
    pub scope: Option<Spanned<String>>,
    /// The span of the `!` before the colon, when the header marks a
    /// breaking change.
    #[serde(serialize_with = "is_some")]
    pub breaking: Option<Span>,
    /// The description after `: `, without surrounding whitespace.
    pub description: Spanned<String>,
}

fn is_some<S: Serializer>(span: &Option<Span>, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_bool(span.is_some())
}

/// The free paragraphs between the header and the footers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Body {
    /// From the first line of its first paragraph to the end of its last
    /// (without whitespace at the end).
    #[serde(skip)]
    pub span: Span,
    /// The text as written, line endings and blank lines between paragraphs
    /// included.
    pub text: String,
    /// Whether a blank line separates it from the header.
    pub leading_blank: bool,
}

/// One footer: `Token: value` or `Token #value`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Footer {
    /// From the token to the end of the value.
    #[serde(skip)]
    pub span: Span,
    /// The token (`Signed-off-by`, `BREAKING CHANGE`).
    pub token: Spanned<String>,
    /// Which separator follows the token.
    pub separator: FooterSeparator,
    /// The value, from its first non-blank character after the separator
    /// to the end of its last line (it may span several lines).
    pub value: Spanned<String>,
    /// Whether the token is `BREAKING CHANGE` or `BREAKING-CHANGE`.
    pub breaking: bool,
}

/// The separator between a footer's token and its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FooterSeparator {
    /// `: ` (`Signed-off-by: A <a@example.com>`).
    ColonSpace,
    /// ` #` (`Fixes #12`).
    SpaceHash,
}

impl FooterSeparator {
    /// The separator as written.
    pub fn as_str(self) -> &'static str {
        match self {
            FooterSeparator::ColonSpace => ": ",
            FooterSeparator::SpaceHash => " #",
        }
    }
}
