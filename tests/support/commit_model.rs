//! The invariants every commit-message parse keeps, checked against the
//! public API only.
//!
//! Shared by `tests/commit_roundtrip.rs` and the fuzz target
//! `fuzz/fuzz_targets/commit_parse.rs` (which includes it by path), so a
//! fuzz finding is also a `cargo test` case.

#![allow(dead_code)]

use quire_grammar::commit::{CommitMessage, codes, parse_commit};
use quire_grammar::span::Span;

/// Parses `text` and checks [`check_message`] on the result.
pub(crate) fn check_parse(text: &str) -> Result<CommitMessage, String> {
    let message = parse_commit(text);
    check_message(text, &message)?;
    Ok(message)
}

/// The invariants of a parse of `text`:
/// - `to_text` rebuilds `text` byte for byte;
/// - every span lies inside `text`, on character boundaries, and the text
///   under it is the node's text;
/// - the header, body and footers come in order without overlapping, and a
///   footer's separator is written between its token and value;
/// - the header has conventional parts or a problem with a known code,
///   never both;
/// - `is_breaking` is the header's `!` or a breaking footer.
pub(crate) fn check_message(text: &str, message: &CommitMessage) -> Result<(), String> {
    let rebuilt = message.to_text();
    if rebuilt != text {
        return Err(format!("to_text gave {rebuilt:?}"));
    }
    let under = |span: Span, what: &str| -> Result<&str, String> {
        if span.start > span.end || span.end > text.len() {
            return Err(format!("{what} span {span} outside the text"));
        }
        if !text.is_char_boundary(span.start) || !text.is_char_boundary(span.end) {
            return Err(format!("{what} span {span} not on character boundaries"));
        }
        Ok(&text[span.range()])
    };
    let same = |span: Span, value: &str, what: &str| -> Result<(), String> {
        let found = under(span, what)?;
        if found == value {
            Ok(())
        } else {
            Err(format!(
                "{what}: {value:?} but its span {span} holds {found:?}"
            ))
        }
    };
    let header = &message.header;
    same(header.span, &header.text, "header")?;
    if header.text.contains('\n') {
        return Err("the header holds a line feed".to_owned());
    }
    match (&header.conventional, &header.problem) {
        (Some(parts), None) => {
            same(parts.commit_type.span, &parts.commit_type.value, "type")?;
            if let Some(scope) = &parts.scope {
                same(scope.span, &scope.value, "scope")?;
            }
            if let Some(bang) = parts.breaking {
                same(bang, "!", "breaking")?;
            }
            same(
                parts.description.span,
                &parts.description.value,
                "description",
            )?;
            if parts.description.value.trim().is_empty() {
                return Err("a conventional header with a blank description".to_owned());
            }
        }
        (None, Some(problem)) => {
            under(problem.span, "problem")?;
            if !codes::ALL.contains(&problem.code) {
                return Err(format!("unknown problem code {}", problem.code));
            }
        }
        (parts, problem) => {
            return Err(format!("header parts {parts:?} with problem {problem:?}"));
        }
    }
    let mut end = header.span.end;
    if let Some(body) = &message.body {
        same(body.span, &body.text, "body")?;
        if body.span.start < end || body.text.trim().is_empty() {
            return Err(format!("body {:?} at {}", body.text, body.span));
        }
        end = body.span.end;
    }
    for footer in &message.footers {
        same(footer.token.span, &footer.token.value, "token")?;
        same(footer.value.span, &footer.value.value, "value")?;
        under(footer.span, "footer")?;
        if footer.span.start < end
            || footer.span.start != footer.token.span.start
            || footer.span.end != footer.value.span.end
        {
            return Err(format!("footer {footer:?} out of order (after {end})"));
        }
        let separator = footer.separator.as_str();
        if !text[footer.token.span.end..].starts_with(separator) {
            return Err(format!(
                "footer {:?} without its separator",
                footer.token.value
            ));
        }
        let breaking = matches!(
            footer.token.value.as_str(),
            "BREAKING CHANGE" | "BREAKING-CHANGE"
        );
        if footer.breaking != breaking || footer.value.value.trim().is_empty() {
            return Err(format!("footer {footer:?}"));
        }
        end = footer.span.end;
    }
    let expected_breaking = message.conventional().is_some_and(|h| h.breaking.is_some())
        || message.footers.iter().any(|f| f.breaking);
    if message.is_breaking() != expected_breaking {
        return Err("is_breaking disagrees with the header and footers".to_owned());
    }
    Ok(())
}
