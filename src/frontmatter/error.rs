//! Why a frontmatter block could not be read or edited: the error types, their
//! diagnostic codes, and their conversion to [`Diagnostic`]s.
//!
//! Every message says what was wrong and what to do instead, and names lines
//! (1-based) rather than byte offsets; the span of each error points at the
//! exact bytes so a renderer can underline them.

use std::fmt;

use super::document::ValueLayout;
use crate::diagnostics::{Diagnostic, DiagnosticCode, Severity, diagnostic_codes};
use crate::span::Span;

/// A finding about a frontmatter block.
pub type FrontmatterDiagnostic = Diagnostic<Code>;

diagnostic_codes! {
    /// Every reason [`parse`](super::parse) or [`set_scalar`](super::set_scalar)
    /// fails. Printed as `frontmatter::<snake_case>`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    #[non_exhaustive]
    pub enum Code {
        // Reading:
        /// [`ParseError::Unclosed`]: an opening `---` with no closing one.
        Unclosed => "frontmatter::unclosed",
        /// [`ParseError::InvalidYaml`]: the block is not YAML.
        InvalidYaml => "frontmatter::invalid_yaml",
        /// [`ParseError::LimitExceeded`]: the YAML is too large or too deep to read.
        LimitExceeded => "frontmatter::limit_exceeded",
        /// [`ParseError::NotAMapping`]: the YAML is not a mapping of keys to values.
        NotAMapping => "frontmatter::not_a_mapping",
        /// [`ParseError::DuplicateKey`]: a top-level key written twice.
        DuplicateKey => "frontmatter::duplicate_key",
        /// [`ParseError::UnsupportedSyntax`]: valid YAML whose keys cannot be
        /// located line by line.
        UnsupportedSyntax => "frontmatter::unsupported_syntax",
        // Editing:
        /// [`EditError::NoFrontmatter`]: the text has no frontmatter block to edit.
        NoFrontmatter => "frontmatter::no_frontmatter",
        /// [`EditError::MissingKey`]: no top-level key has the name given.
        MissingKey => "frontmatter::missing_key",
        /// [`EditError::NotAScalar`]: the value is not a single-line scalar.
        NotAScalar => "frontmatter::not_a_scalar",
        /// [`EditError::NotReplaceable`]: the value is written in a way that cannot
        /// be replaced in place.
        NotReplaceable => "frontmatter::not_replaceable",
        /// [`EditError::EditNotVerified`]: the edited text did not read back as intended.
        EditNotVerified => "frontmatter::edit_not_verified",
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a text's frontmatter could not be read.
///
/// A text without frontmatter is not an error: [`parse`](super::parse) returns
/// a [`Document`](super::Document) whose `frontmatter` is `None`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseError {
    /// The first line is `---` but no later line closes the block.
    #[error(
        "the frontmatter block opened by the `---` on line {line} is never closed: add a line \
         containing only `---` after the last YAML line (or, if the file has no frontmatter, \
         do not start it with a `---` line)"
    )]
    Unclosed {
        /// The opening fence line.
        span: Span,
        /// The 1-based line of the opening fence, named in the message.
        line: usize,
    },

    /// serde-saphyr rejected the YAML between the fences.
    #[error(
        "the frontmatter is not valid YAML: {message}; fix the YAML there (quote a value that \
         contains `: ` or ` #`, or starts with a character such as `[`, `{{`, `&`, `*`, `!`, `|`, \
         `>`, `@` or `%`)"
    )]
    InvalidYaml {
        /// What serde-saphyr said, with the place as a line and column of the whole file.
        message: String,
        /// Where serde-saphyr located the problem (the whole YAML when it gave no place).
        span: Span,
    },

    /// The YAML is too large or too complex to read: it breaks one of the
    /// limits that keep a hostile note from using up memory or time (nesting
    /// depth, number of values, aliases, anchors, merge keys, text size).
    #[error(
        "the frontmatter is too large or too complex to read: by line {line} it {limit}; {advice}"
    )]
    LimitExceeded {
        /// What the frontmatter does past the limit, after "it": "nests lists
        /// and mappings more than 64 levels deep".
        limit: String,
        /// What to do instead.
        advice: &'static str,
        /// Where the limit was reached.
        span: Span,
        /// The 1-based line where the limit was reached, named in the message.
        line: usize,
    },

    /// The YAML is valid but is not a mapping of keys to values.
    #[error(
        "the frontmatter must be a YAML mapping of `key: value` lines, but it is {found}; \
         write each field as `key: value` on its own line, starting at the first column"
    )]
    NotAMapping {
        /// What the YAML is instead: "a sequence", "a string", "a number", ...
        found: &'static str,
        /// The whole YAML content between the fences.
        span: Span,
    },

    /// The same top-level key is written twice.
    #[error(
        "the key `{key}` appears twice in the frontmatter (lines {first_line} and {line}): \
         YAML keys must be unique, so remove or rename one of them"
    )]
    DuplicateKey {
        /// The key that appears twice.
        key: String,
        /// The second occurrence of the key.
        span: Span,
        /// The 1-based line of the second occurrence, named in the message.
        line: usize,
        /// The first occurrence.
        first: Span,
        /// The 1-based line of the first occurrence.
        first_line: usize,
    },

    /// Valid YAML whose top-level keys quire cannot locate line by line (see
    /// `grammar/frontmatter.ebnf` for what is supported).
    #[error(
        "line {line} of the frontmatter is not a top-level entry quire can locate: {reason}; \
         write top-level entries as `key: value` with the key at the first column (a plain, \
         'single-quoted' or \"double-quoted\" key on one line)"
    )]
    UnsupportedSyntax {
        /// Why the line cannot be located, in words.
        reason: String,
        /// The line that cannot be located.
        span: Span,
        /// Its 1-based line number, named in the message.
        line: usize,
    },
}

impl ParseError {
    /// The diagnostic code of this error.
    pub fn code(&self) -> Code {
        match self {
            ParseError::Unclosed { .. } => Code::Unclosed,
            ParseError::InvalidYaml { .. } => Code::InvalidYaml,
            ParseError::LimitExceeded { .. } => Code::LimitExceeded,
            ParseError::NotAMapping { .. } => Code::NotAMapping,
            ParseError::DuplicateKey { .. } => Code::DuplicateKey,
            ParseError::UnsupportedSyntax { .. } => Code::UnsupportedSyntax,
        }
    }

    /// The bytes the error is about.
    pub fn span(&self) -> Span {
        match self {
            ParseError::Unclosed { span, .. }
            | ParseError::InvalidYaml { span, .. }
            | ParseError::LimitExceeded { span, .. }
            | ParseError::NotAMapping { span, .. }
            | ParseError::DuplicateKey { span, .. }
            | ParseError::UnsupportedSyntax { span, .. } => *span,
        }
    }

    fn label(&self) -> String {
        match self {
            ParseError::Unclosed { .. } => "this block is never closed".into(),
            ParseError::InvalidYaml { .. } => "invalid YAML here".into(),
            ParseError::LimitExceeded { .. } => "the limit is reached here".into(),
            ParseError::NotAMapping { found, .. } => format!("this YAML is {found}"),
            ParseError::DuplicateKey { first_line, .. } => {
                format!("already set on line {first_line}")
            }
            ParseError::UnsupportedSyntax { .. } => "not a `key: value` line".into(),
        }
    }

    fn help(&self) -> &'static str {
        match self {
            ParseError::Unclosed { .. } => {
                "add a line containing only `---` after the last YAML line"
            }
            ParseError::InvalidYaml { .. } => {
                "fix the YAML at the marked place; quote values that contain `: ` or ` #`"
            }
            ParseError::LimitExceeded { advice, .. } => advice,
            ParseError::NotAMapping { .. } => "write the frontmatter as `key: value` lines",
            ParseError::DuplicateKey { .. } => "remove or rename one of the two keys",
            ParseError::UnsupportedSyntax { .. } => {
                "start each top-level entry at the first column with `key: value`"
            }
        }
    }

    /// This error as a diagnostic with a code, a label at its span and a help line.
    pub fn to_diagnostic(&self) -> FrontmatterDiagnostic {
        Diagnostic {
            code: self.code(),
            severity: Severity::Error,
            message: self.to_string(),
            label: self.label(),
            help: self.help().into(),
            span: self.span(),
            field: None,
        }
    }
}

/// Why [`set_scalar`](super::set_scalar) or
/// [`replace_scalar`](super::replace_scalar) did not produce a text. The
/// input text is never changed: the caller still holds it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EditError {
    /// The frontmatter could not be read, so it cannot be edited safely.
    #[error(transparent)]
    Parse(#[from] ParseError),

    /// The text does not start with a frontmatter block.
    #[error(
        "the text has no frontmatter (its first line is not `---`), so it has no key `{key}` \
         to set: add a frontmatter block (`---`, `{key}: value`, `---`) at the top first"
    )]
    NoFrontmatter {
        /// The key the caller asked to set.
        key: String,
    },

    /// No top-level key has this name.
    #[error(
        "the frontmatter has no top-level key `{shown}` (its keys are: {available}); set_scalar \
         only changes an existing key, so check the spelling or add the key first",
        shown = shown_key(key)
    )]
    MissingKey {
        /// The key the caller asked to set.
        key: String,
        /// The keys it does have, each in backticks, comma-separated, in file
        /// order (`none` when empty).
        available: String,
        /// The whole YAML content.
        span: Span,
    },

    /// The key's value is not a single-line scalar.
    #[error(
        "the value of `{key}` is {}, not a single-line scalar: set_scalar only rewrites a \
         plain, 'single-quoted' or \"double-quoted\" value written on the key's line; change \
         this value by hand", .layout.describe()
    )]
    NotAScalar {
        /// The key the caller asked to set.
        key: String,
        /// How the value is written instead (block, multi-line, a collection, ...).
        layout: ValueLayout,
        /// The value's span.
        span: Span,
    },

    /// The key's value is written in a way
    /// [`replace_scalar`](super::replace_scalar) does not replace.
    #[error(
        "the value of `{key}` cannot be replaced in place: {reason}; write it on the key's \
         line as `{key}: value`"
    )]
    NotReplaceable {
        /// The key the caller asked to set.
        key: String,
        /// How the value is written.
        layout: ValueLayout,
        /// Why, in words: "it carries an anchor (`&name`) that other values may use".
        reason: &'static str,
        /// The value's span.
        span: Span,
    },

    /// The edited text did not read back as intended; it was discarded.
    #[error(
        "setting `{key}` was abandoned because the edited text did not read back as intended \
         ({reason}); the text was not changed. This is a bug in quire: please report it with \
         the frontmatter and the new value"
    )]
    EditNotVerified {
        /// The key the caller asked to set.
        key: String,
        /// What read back differently, in words.
        reason: String,
        /// The value that was to be replaced.
        span: Span,
    },
}

impl EditError {
    /// The diagnostic code of this error, the one of the parse error for
    /// [`EditError::Parse`].
    pub fn code(&self) -> Code {
        match self {
            EditError::Parse(error) => error.code(),
            EditError::NoFrontmatter { .. } => Code::NoFrontmatter,
            EditError::MissingKey { .. } => Code::MissingKey,
            EditError::NotAScalar { .. } => Code::NotAScalar,
            EditError::NotReplaceable { .. } => Code::NotReplaceable,
            EditError::EditNotVerified { .. } => Code::EditNotVerified,
        }
    }

    /// The bytes the error is about (an empty span at 0 when there is no frontmatter).
    pub fn span(&self) -> Span {
        match self {
            EditError::Parse(error) => error.span(),
            EditError::NoFrontmatter { .. } => Span::at(0),
            EditError::MissingKey { span, .. }
            | EditError::NotAScalar { span, .. }
            | EditError::NotReplaceable { span, .. }
            | EditError::EditNotVerified { span, .. } => *span,
        }
    }

    /// This error as a diagnostic with a code, a label at its span and a help line.
    pub fn to_diagnostic(&self) -> FrontmatterDiagnostic {
        let (label, help): (String, &str) = match self {
            EditError::Parse(error) => return error.to_diagnostic(),
            EditError::NoFrontmatter { .. } => (
                "expected a `---` line here".into(),
                "add a frontmatter block at the top of the text",
            ),
            EditError::MissingKey { key, .. } => (
                format!("no key `{key}` in here"),
                "check the key's spelling; set_scalar does not add keys",
            ),
            EditError::NotAScalar { layout, .. } => (
                format!("this is {}", layout.describe()),
                "edit this value by hand",
            ),
            EditError::NotReplaceable { reason, .. } => (
                (*reason).to_owned(),
                "write the value on the key's line as `key: value`",
            ),
            EditError::EditNotVerified { .. } => (
                "this value was not changed".into(),
                "report this to the quire maintainers",
            ),
        };
        Diagnostic {
            code: self.code(),
            severity: Severity::Error,
            message: self.to_string(),
            label,
            help: help.into(),
            span: self.span(),
            field: None,
        }
    }
}

/// A key as messages show it, inside backticks: on one line, with
/// unprintable characters escaped, and a backtick (which would end the
/// quote) shown as `'`. The caller's key is text from outside, and must not
/// read as part of the message.
pub(crate) fn shown_key(key: &str) -> String {
    crate::diagnostics::one_line(&key.replace('`', "'")).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_its_own_name() {
        crate::diagnostics::assert_codes_are_distinct(&Code::ALL, "frontmatter");
        assert_eq!(Code::ALL.len(), 11);
    }

    #[test]
    fn codes_are_namespaced() {
        assert_eq!(Code::Unclosed.as_str(), "frontmatter::unclosed");
        assert_eq!(Code::InvalidYaml.to_string(), "frontmatter::invalid_yaml");
        assert_eq!(Code::NotAMapping.as_str(), "frontmatter::not_a_mapping");
    }

    #[test]
    fn diagnostics_carry_code_span_and_help() {
        let error = ParseError::Unclosed {
            span: Span::new(0, 3),
            line: 1,
        };
        let diagnostic = error.to_diagnostic();
        assert_eq!(diagnostic.code, Code::Unclosed);
        assert_eq!(diagnostic.span, Span::new(0, 3));
        assert!(diagnostic.is_error());
        assert!(diagnostic.message.contains("never closed"));
        assert!(!diagnostic.help.is_empty());

        let edit = EditError::from(error.clone());
        assert_eq!(edit.code(), Code::Unclosed);
        assert_eq!(edit.to_diagnostic(), diagnostic);
    }
}
