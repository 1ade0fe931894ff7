//! Byte spans into the parsed text, and values that carry one.
//!
//! Every AST node records where it came from as a half-open byte range of the
//! original input (CRLF and all). Line and column numbers are computed only
//! when a diagnostic is rendered ([`crate::diagnostics::LineIndex`]).

use std::fmt;
use std::ops::{Deref, Range};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A half-open byte range `start..end` into the parsed text.
///
/// A node that was built by hand or deserialized from JSON has no place in any
/// text; it carries [`Span::DETACHED`] (`0..0`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    /// Byte offset of the first byte, on a char boundary.
    pub start: usize,
    /// Byte offset just past the last byte (exclusive), on a char boundary.
    pub end: usize,
}

impl Span {
    /// The span of a node that did not come from parsed text.
    pub const DETACHED: Span = Span { start: 0, end: 0 };

    /// The bytes `start..end`; `start <= end` is the caller's to keep.
    pub const fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }

    /// An empty span at `offset`, for "something is missing here" labels.
    pub const fn at(offset: usize) -> Self {
        Span {
            start: offset,
            end: offset,
        }
    }

    /// The length in bytes (not characters).
    pub const fn len(&self) -> usize {
        self.end - self.start
    }

    /// Whether the span covers no bytes: a point where something is missing, or
    /// a detached node.
    pub const fn is_empty(&self) -> bool {
        self.start == self.end
    }

    /// The span as a range, for slicing the text it points into: `&text[span.range()]`.
    pub const fn range(&self) -> Range<usize> {
        self.start..self.end
    }
}

impl From<Range<usize>> for Span {
    fn from(range: Range<usize>) -> Self {
        Span::new(range.start, range.end)
    }
}

impl From<Span> for miette::SourceSpan {
    fn from(span: Span) -> Self {
        (span.start, span.len()).into()
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

/// A value and the span it was read from.
///
/// Serializes as the bare value, so the JSON shape of a document is the same
/// whether or not it came from text; deserializes with a detached span.
///
/// `==` compares the span as well as the value: the same words written
/// elsewhere are a different node. To compare what was written, compare
/// `value`, or whole nodes with `same_content`
/// ([`PlanDocument::same_content`](crate::plan::PlanDocument::same_content)).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Spanned<T> {
    /// The value itself.
    pub value: T,
    /// Where it was written in the parsed text.
    pub span: Span,
}

impl<T> Spanned<T> {
    /// A value at `span`.
    pub const fn new(value: T, span: Span) -> Self {
        Spanned { value, span }
    }

    /// A value that did not come from parsed text.
    pub const fn detached(value: T) -> Self {
        Spanned {
            value,
            span: Span::DETACHED,
        }
    }
}

impl<T> Deref for Spanned<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T> From<T> for Spanned<T> {
    fn from(value: T) -> Self {
        Spanned::detached(value)
    }
}

impl From<&str> for Spanned<String> {
    fn from(value: &str) -> Self {
        Spanned::detached(value.to_owned())
    }
}

impl<T: Serialize> Serialize for Spanned<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.value.serialize(serializer)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Spanned<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        T::deserialize(deserializer).map(Spanned::detached)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spanned_serializes_as_its_value() {
        let title = Spanned::new("Add parser".to_owned(), Span::new(10, 20));
        assert_eq!(serde_json::to_string(&title).unwrap(), "\"Add parser\"");
        let back: Spanned<String> = serde_json::from_str("\"Add parser\"").unwrap();
        assert_eq!(back.value, "Add parser");
        assert_eq!(back.span, Span::DETACHED);
    }

    #[test]
    fn span_converts_to_miette_offset_and_length() {
        let source: miette::SourceSpan = Span::new(4, 9).into();
        assert_eq!(source.offset(), 4);
        assert_eq!(source.len(), 5);
    }
}
