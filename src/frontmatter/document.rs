//! What a parsed frontmatter is: the document split at its block, the block's
//! top-level entries, and how each value is written.

use std::fmt;

use crate::span::{Span, Spanned};

/// A text split at its frontmatter.
#[derive(Clone, Debug, PartialEq)]
pub struct Document {
    /// The UTF-8 byte-order mark the text starts with, if any (always `0..3`).
    pub bom: Option<Span>,
    /// The frontmatter block, if the text starts with one.
    pub frontmatter: Option<Frontmatter>,
    /// Everything after the block (after the byte-order mark when there is no
    /// block). Empty when the closing fence ends the text.
    pub body: Span,
}

/// A frontmatter block and what it holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Frontmatter {
    /// The whole block: from the opening `---` through the closing fence's
    /// line ending (if it has one).
    pub span: Span,
    /// The opening fence line, without its line ending.
    pub open: Span,
    /// The YAML lines between the fences, with their line endings. Empty for
    /// `---\n---\n`.
    pub yaml: Span,
    /// The closing fence line (`---` or `...`), without its line ending.
    pub close: Span,
    /// The top-level keys, in the order they are written.
    pub entries: Vec<Entry>,
    /// The YAML mapping as read by serde-saphyr. An empty block, or one with
    /// only comments, is an empty mapping.
    pub values: serde_json::Map<String, serde_json::Value>,
}

impl Frontmatter {
    /// The value of the top-level key `key`.
    pub fn get(&self, key: &str) -> Option<&serde_json::Value> {
        self.values.get(key)
    }

    /// Where the top-level key `key` and its value are written.
    pub fn entry(&self, key: &str) -> Option<&Entry> {
        self.entries.iter().find(|entry| entry.key.value == key)
    }
}

/// One top-level `key: value` entry, located in the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The key as YAML reads it (`'it''s'` reads as `it's`); the span covers
    /// the key as written, quotes included.
    pub key: Spanned<String>,
    /// The value as written. For a scalar on the key's line: exactly the
    /// scalar, quotes included, without a trailing comment or whitespace.
    /// For a value that goes on below the key's line (block scalar, nested
    /// collection, multi-line scalar): every line of it, up to the end of its
    /// last line that is neither empty (a line of only blanks counts: in a
    /// block scalar its blanks may be content) nor a comment at the first
    /// column. For
    /// an [`Empty`](ValueLayout::Empty) value: an empty span right after the
    /// colon.
    pub value: Span,
    /// How the value is written.
    pub layout: ValueLayout,
}

/// How a top-level value is written. Only the first four are single-line
/// scalars that [`set_scalar`](super::set_scalar) rewrites.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ValueLayout {
    /// Nothing after the colon but perhaps a comment (a null value): `key:`.
    Empty,
    /// A plain scalar on the key's line: `key: value`.
    Plain,
    /// `key: 'value'`, on the key's line.
    SingleQuoted,
    /// `key: "value"`, on the key's line.
    DoubleQuoted,
    /// A literal or folded block scalar: `key: |` or `key: >-`.
    BlockScalar,
    /// A flow sequence or mapping: `key: [a, b]` or `key: {a: 1}`.
    FlowCollection,
    /// A block mapping or sequence on the lines below the key.
    BlockCollection,
    /// A plain or quoted scalar that continues on the lines below the key.
    MultilineScalar,
    /// An alias: `key: *name`.
    Alias,
    /// A value with an anchor: `key: &name value`.
    Anchored,
    /// A value with a tag: `key: !!str value`.
    Tagged,
}

impl ValueLayout {
    /// Whether [`set_scalar`](super::set_scalar) can rewrite a value written this way.
    pub fn is_single_line_scalar(self) -> bool {
        matches!(
            self,
            ValueLayout::Empty
                | ValueLayout::Plain
                | ValueLayout::SingleQuoted
                | ValueLayout::DoubleQuoted
        )
    }

    /// A short phrase for messages: "a block scalar (`|` or `>`)".
    pub fn describe(self) -> &'static str {
        match self {
            ValueLayout::Empty => "empty",
            ValueLayout::Plain => "a plain scalar",
            ValueLayout::SingleQuoted => "a single-quoted scalar",
            ValueLayout::DoubleQuoted => "a double-quoted scalar",
            ValueLayout::BlockScalar => "a block scalar (`|` or `>`)",
            ValueLayout::FlowCollection => "a flow collection (`[...]` or `{...}`)",
            ValueLayout::BlockCollection => "a nested mapping or sequence",
            ValueLayout::MultilineScalar => "a scalar that spans several lines",
            ValueLayout::Alias => "an alias (`*name`)",
            ValueLayout::Anchored => "a value with an anchor (`&name`)",
            ValueLayout::Tagged => "a value with a tag (`!tag`)",
        }
    }
}

impl fmt::Display for ValueLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}
