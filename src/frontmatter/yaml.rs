//! Reading the YAML between the fences with serde-saphyr into JSON values,
//! and turning its errors into byte spans of the whole text.
//!
//! The options follow the YAML 1.2 core schema where serde-saphyr lets them
//! (`yes`/`on` and `1_000` are strings), keep serde-saphyr's alias, depth and
//! size budgets, and reject duplicate keys anywhere in the mapping.

use serde_json::{Map, Value};
use serde_saphyr::{
    DuplicateKeyPolicy, NonFiniteFloatPolicy, Options, SnippetMode, UserMessageFormatter,
};

use super::error::ParseError;
use super::parse::{Line, is_blank, line_number};
use crate::span::Span;

/// How the frontmatter's YAML is read.
fn options() -> Options {
    serde_saphyr::options! {
        // A line at the first column never continues a flow collection, so
        // every such line is a key, a `- ` item, a comment or an error.
        strict_indentation: true,
        duplicate_keys: DuplicateKeyPolicy::Error,
        // YAML 1.2 core schema: only true/false are booleans, `1_000` is text.
        strict_booleans: true,
        underscored_numbers_as_strings: true,
        // JSON has no infinity or NaN: `.inf`, `-.inf` and `.nan` read as
        // those strings instead of failing the whole block.
        non_finite_float_policy: NonFiniteFloatPolicy::AsString,
        with_snippet: false,
    }
}

/// Reads the YAML in `yaml` (a span of `text`; `lines` are its lines) as a
/// mapping. A block of only blank lines and comments is an empty mapping.
pub(crate) fn read_mapping(
    text: &str,
    yaml: Span,
    lines: &[Line],
) -> Result<Map<String, Value>, ParseError> {
    let source = &text[yaml.range()];
    let value: Value = serde_saphyr::from_str_with_options(source, options())
        .map_err(|error| invalid_yaml(text, yaml, &error))?;
    let content = content_span(text, lines);
    match (value, content) {
        (Value::Object(map), _) => Ok(map),
        (Value::Null, None) => Ok(Map::new()),
        (other, content) => Err(ParseError::NotAMapping {
            found: describe(&other),
            span: content.unwrap_or(yaml),
        }),
    }
}

/// Whether `value`, written plain as `key: value`, reads back as exactly that
/// string under serde-saphyr's most liberal typing (YAML 1.1 booleans,
/// underscored numbers and non-finite floats are not strings there).
pub(crate) fn plain_reads_back(value: &str) -> bool {
    let probe = format!("key: {value}\n");
    let options = serde_saphyr::options! {
        non_finite_float_policy: NonFiniteFloatPolicy::Reject,
        with_snippet: false,
    };
    match serde_saphyr::from_str_with_options::<Value>(&probe, options) {
        Ok(Value::Object(map)) => {
            map.len() == 1 && map.get("key").and_then(Value::as_str) == Some(value)
        }
        _ => false,
    }
}

fn describe(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a single string",
        Value::Array(_) => "a sequence (a list)",
        Value::Object(_) => "a mapping",
    }
}

/// From the first to the last line that is neither blank nor a comment.
fn content_span(text: &str, lines: &[Line]) -> Option<Span> {
    let is_content = |line: &&Line| {
        let content = line.text(text).trim_start_matches(is_blank);
        !content.is_empty() && !content.starts_with('#')
    };
    let first = lines.iter().find(is_content)?;
    let last = lines.iter().rev().find(is_content)?;
    Some(Span::new(first.content.start, last.content.end))
}

fn invalid_yaml(text: &str, yaml: Span, error: &serde_saphyr::Error) -> ParseError {
    let formatter = UserMessageFormatter;
    let lines_before = line_number(text, yaml.start) - 1;
    let message = error.render_with_options(serde_saphyr::render_options! {
        formatter: &formatter,
        snippets: SnippetMode::Off,
        line_offset: lines_before as u64,
    });
    ParseError::InvalidYaml {
        message,
        span: error_span(text, yaml, error),
    }
}

/// The span serde-saphyr's error points at, as offsets of the whole text:
/// its byte range when it has one, else the character at its line and column
/// (empty at the end of a line). The whole YAML when it has no location.
fn error_span(text: &str, yaml: Span, error: &serde_saphyr::Error) -> Span {
    let source = &text[yaml.range()];
    let Some(location) = error.location() else {
        return yaml;
    };
    let span = location.span();
    let start = match span.byte_offset() {
        Some(offset) => usize::try_from(offset).unwrap_or(usize::MAX),
        None => offset_of(source, location.line(), location.column()),
    };
    let start = floor_char_boundary(source, start);
    let length = span
        .byte_len()
        .and_then(|length| usize::try_from(length).ok())
        .filter(|&length| length > 0 && span.byte_offset().is_some())
        .unwrap_or_else(|| {
            source[start..]
                .chars()
                .next()
                .filter(|&c| c != '\n' && c != '\r')
                .map_or(0, char::len_utf8)
        });
    let end = floor_char_boundary(source, start.saturating_add(length));
    Span::new(yaml.start + start, yaml.start + end)
}

/// The byte offset in `source` of a 1-based line and character column,
/// clamped to the end of that line (or of `source`).
fn offset_of(source: &str, line: u64, column: u64) -> usize {
    let mut line_start = 0;
    for _ in 1..line.max(1) {
        match source[line_start..].find('\n') {
            Some(newline) => line_start += newline + 1,
            None => return source.len(),
        }
    }
    let line_text = &source[line_start..];
    let line_end = line_text.find('\n').unwrap_or(line_text.len());
    let column = usize::try_from(column.max(1) - 1).unwrap_or(usize::MAX);
    let within = line_text[..line_end]
        .char_indices()
        .nth(column)
        .map_or(line_end, |(index, _)| index);
    line_start + within
}

fn floor_char_boundary(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frontmatter::Code;
    use crate::frontmatter::parse::split;

    fn read(text: &str) -> Result<Map<String, Value>, ParseError> {
        let block = split(text).unwrap().block.unwrap();
        read_mapping(text, block.yaml, &block.lines)
    }

    #[test]
    fn reads_the_yaml_1_2_core_schema() {
        let map = read("---\na: yes\nb: 1_000\nc: 0x1F\nd: true\ne: ~\nf: .inf\n---\n").unwrap();
        assert_eq!(
            Value::Object(map),
            serde_json::json!({"a": "yes", "b": "1_000", "c": 31, "d": true, "e": null, "f": ".inf"})
        );
    }

    #[test]
    fn syntax_errors_have_a_message_and_a_span_in_the_file() {
        let text = "---\na: 1\nb: [1, 2\n---\n";
        let error = read(text).unwrap_err();
        assert_eq!(error.code(), Code::InvalidYaml);
        let message = error.to_string();
        assert!(message.contains("line 3"), "{message}");
        assert!(error.span().start >= 9 && error.span().end <= text.len() - 4);
    }

    #[test]
    fn errors_with_byte_ranges_point_at_the_bytes() {
        let text = "---\nouter:\n  k: 1\n  k: 2\n---\n";
        let error = read(text).unwrap_err();
        assert_eq!(error.code(), Code::InvalidYaml);
        assert_eq!(&text[error.span().range()], "k");
        assert_eq!(error.span().start, 20);
        assert!(error.to_string().contains("line 4"), "{error}");
    }

    #[test]
    fn non_mappings_are_rejected() {
        for (text, found) in [
            ("---\n- a\n- b\n---\n", "a sequence (a list)"),
            ("---\njust text\n---\n", "a single string"),
            ("---\n# c\n42\n---\n", "a number"),
            ("---\n~\n---\n", "null"),
        ] {
            match read(text).unwrap_err() {
                ParseError::NotAMapping { found: f, span } => {
                    assert_eq!(f, found);
                    assert!(!span.is_empty());
                }
                other => panic!("{text:?}: {other}"),
            }
        }
        assert!(read("---\n\n# only a comment\n---\n").unwrap().is_empty());
    }

    #[test]
    fn plain_probe_rejects_values_that_are_not_strings() {
        assert!(plain_reads_back("hello world"));
        assert!(plain_reads_back("C#"));
        for value in [
            "yes", "1_000", "12", ".inf", "null", "~", "a: b", "x # y", "[a]", "",
        ] {
            assert!(!plain_reads_back(value), "{value:?}");
        }
    }

    #[test]
    fn offsets_of_lines_and_columns() {
        assert_eq!(offset_of("ab\ncd", 2, 2), 4);
        assert_eq!(offset_of("ab\ncd", 2, 9), 5);
        assert_eq!(offset_of("ab\ncd", 9, 1), 5);
        assert_eq!(offset_of("éa\n", 1, 2), 2);
        assert_eq!(offset_of("", 0, 0), 0);
    }
}
