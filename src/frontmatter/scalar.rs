//! YAML scalars on one line: decoding quoted keys, and writing a new value in
//! the style it needs (plain, single- or double-quoted).

use std::fmt::Write as _;

use super::document::ValueLayout;
use super::yaml;

/// The text of a single-quoted scalar (quotes included) as YAML reads it.
pub(crate) fn decode_single(quoted: &str) -> String {
    let inner = quoted
        .strip_prefix('\'')
        .and_then(|rest| rest.strip_suffix('\''))
        .unwrap_or(quoted);
    inner.replace("''", "'")
}

/// The text of a double-quoted scalar (quotes included) as YAML reads it, or
/// `None` if it uses an escape YAML does not define.
// frontmatter.ebnf: double-quoted-key, escape
pub(crate) fn decode_double(quoted: &str) -> Option<String> {
    let inner = quoted.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let decoded = match chars.next()? {
            '0' => '\0',
            'a' => '\u{07}',
            'b' => '\u{08}',
            't' | '\t' => '\t',
            'n' => '\n',
            'v' => '\u{0B}',
            'f' => '\u{0C}',
            'r' => '\r',
            'e' => '\u{1B}',
            ' ' => ' ',
            '"' => '"',
            '/' => '/',
            '\\' => '\\',
            'N' => '\u{85}',
            '_' => '\u{A0}',
            'L' => '\u{2028}',
            'P' => '\u{2029}',
            'x' => hex(&mut chars, 2)?,
            'u' => hex(&mut chars, 4)?,
            'U' => hex(&mut chars, 8)?,
            _ => return None,
        };
        out.push(decoded);
    }
    Some(out)
}

fn hex(chars: &mut std::str::Chars<'_>, digits: usize) -> Option<char> {
    let mut code = 0u32;
    for _ in 0..digits {
        code = code * 16 + chars.next()?.to_digit(16)?;
    }
    char::from_u32(code)
}

/// `value` written as a YAML scalar on one line, in the style of the value it
/// replaces: single-quoted stays single-quoted, double-quoted stays
/// double-quoted, and a plain (or empty) value stays plain when YAML reads it
/// back as the same string, else it is double-quoted. A value that a
/// single-quoted scalar cannot hold on one line (a line break or another
/// control character) is double-quoted with escapes.
pub(crate) fn render(value: &str, old: ValueLayout) -> String {
    match old {
        ValueLayout::SingleQuoted => single_quoted(value).unwrap_or_else(|| double_quoted(value)),
        ValueLayout::DoubleQuoted => double_quoted(value),
        _ if plain_is_safe(value) => value.to_owned(),
        _ => double_quoted(value),
    }
}

/// YAML's printable characters (`c-printable`).
fn is_printable(c: char) -> bool {
    matches!(c,
        '\t' | '\n' | '\r' | '\u{20}'..='\u{7E}' | '\u{85}'
        | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// Characters that break a line in YAML.
fn is_break(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// Characters written as they are inside a quoted scalar on one line.
fn is_literal(c: char) -> bool {
    is_printable(c) && !is_break(c) && c != '\u{FEFF}'
}

// frontmatter.ebnf: single-quoted (on one line, and only with characters
// that need no escape: a value that has others is double-quoted)
fn single_quoted(value: &str) -> Option<String> {
    if !value.chars().all(is_literal) {
        return None;
    }
    Some(format!("'{}'", value.replace('\'', "''")))
}

// frontmatter.ebnf: double-quoted, escape (each character a line would not
// hold as it is, escaped)
fn double_quoted(value: &str) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\0' => out.push_str("\\0"),
            '\u{07}' => out.push_str("\\a"),
            '\u{08}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{0B}' => out.push_str("\\v"),
            '\u{0C}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            '\u{1B}' => out.push_str("\\e"),
            '\u{85}' => out.push_str("\\N"),
            '\u{2028}' => out.push_str("\\L"),
            '\u{2029}' => out.push_str("\\P"),
            c if is_literal(c) => out.push(c),
            c if u32::from(c) <= 0xFF => {
                let _ = write!(out, "\\x{:02X}", u32::from(c));
            }
            c if u32::from(c) <= 0xFFFF => {
                let _ = write!(out, "\\u{:04X}", u32::from(c));
            }
            c => {
                let _ = write!(out, "\\U{:08X}", u32::from(c));
            }
        }
    }
    out.push('"');
    out
}

/// Words that some YAML reader takes for a boolean or null (YAML 1.1 and 1.2,
/// compared without case).
const SPECIAL_WORDS: &[&str] = &[
    "y", "yes", "n", "no", "true", "false", "on", "off", "null", "=", "<<",
];

/// Whether `value` can be written as a plain scalar after `key: ` and read
/// back, by serde-saphyr and by YAML 1.1 readers alike, as the same string.
/// Deliberately cautious: a value that might need quotes gets them.
fn plain_is_safe(value: &str) -> bool {
    let Some(first) = value.chars().next() else {
        return false;
    };
    let last = value.chars().next_back().unwrap_or(first);
    let starts_badly = "-?:,[]{}#&*!|>'\"%@`.+~".contains(first) || first.is_ascii_digit();
    if starts_badly || first.is_whitespace() || last.is_whitespace() {
        return false;
    }
    let mut previous_space = false;
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        let bad = match c {
            ':' => chars.peek().is_none_or(|next| next.is_whitespace()),
            '#' => previous_space,
            '\t' => true,
            c => !is_literal(c),
        };
        if bad {
            return false;
        }
        previous_space = c.is_whitespace();
    }
    let special = SPECIAL_WORDS
        .iter()
        .any(|word| value.eq_ignore_ascii_case(word));
    !special && yaml::plain_reads_back(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_quoted_keys() {
        assert_eq!(decode_single("'it''s'"), "it's");
        assert_eq!(decode_single("''"), "");
        assert_eq!(
            decode_double(r#""a\tb\"\\\x41\u00e9\U0001F600\/""#).as_deref(),
            Some("a\tb\"\\Aé😀/")
        );
        assert_eq!(decode_double(r#""\q""#), None);
        assert_eq!(decode_double(r#""\ud800""#), None);
        assert_eq!(decode_double(r#""\x4""#), None);
    }

    #[test]
    fn plain_values_stay_plain_when_safe() {
        for value in [
            "done",
            "in progress",
            "C#",
            "a:b",
            "it's",
            "naïve café",
            "x, y",
            "日本語",
        ] {
            assert_eq!(render(value, ValueLayout::Plain), value, "{value:?}");
            assert_eq!(render(value, ValueLayout::Empty), value, "{value:?}");
        }
    }

    #[test]
    fn values_that_need_quotes_get_double_quotes() {
        for (value, written) in [
            ("", r#""""#),
            ("a: b", r#""a: b""#),
            ("a:", r#""a:""#),
            ("x # y", r#""x # y""#),
            ("- item", r#""- item""#),
            ("[x]", r#""[x]""#),
            ("{x}", r#""{x}""#),
            ("&a", r#""&a""#),
            ("*a", r#""*a""#),
            ("!t", r#""!t""#),
            ("|", r#""|""#),
            ("'q'", r#""'q'""#),
            ("\"q\"", r#""\"q\"""#),
            ("%x", r#""%x""#),
            ("@x", r#""@x""#),
            ("`x", r#""`x""#),
            ("42", r#""42""#),
            ("3.5", r#""3.5""#),
            ("1e3", r#""1e3""#),
            (".inf", r#"".inf""#),
            ("true", r#""true""#),
            ("Yes", r#""Yes""#),
            ("off", r#""off""#),
            ("null", r#""null""#),
            ("~", r#""~""#),
            (" lead", r#"" lead""#),
            ("trail ", r#""trail ""#),
            ("tab\there", r#""tab\there""#),
            ("two\nlines", r#""two\nlines""#),
            ("back\\slash: x", r#""back\\slash: x""#),
            ("bell\u{7}", r#""bell\a""#),
            ("del\u{7F}", r#""del\x7F""#),
            ("bom\u{FEFF}", r#""bom\uFEFF""#),
            ("nel\u{85}", r#""nel\N""#),
        ] {
            assert_eq!(render(value, ValueLayout::Plain), written, "{value:?}");
        }
    }

    #[test]
    fn quoted_values_keep_their_style() {
        assert_eq!(render("it's", ValueLayout::SingleQuoted), "'it''s'");
        assert_eq!(render("42", ValueLayout::SingleQuoted), "'42'");
        assert_eq!(render("a\tb", ValueLayout::SingleQuoted), "'a\tb'");
        assert_eq!(render("a\nb", ValueLayout::SingleQuoted), r#""a\nb""#);
        assert_eq!(render("plain", ValueLayout::DoubleQuoted), r#""plain""#);
        assert_eq!(
            render("say \"hi\"", ValueLayout::DoubleQuoted),
            r#""say \"hi\"""#
        );
        assert_eq!(render("ü", ValueLayout::DoubleQuoted), "\"ü\"");
    }

    #[test]
    fn double_quoted_output_decodes_back() {
        for value in [
            "",
            "a\"b\\c",
            "\0\u{1}\u{1F}\u{7F}\u{9F}\u{FFFE}",
            "\u{2028}\u{2029}x",
            "😀",
        ] {
            assert_eq!(decode_double(&double_quoted(value)).as_deref(), Some(value));
        }
    }
}
