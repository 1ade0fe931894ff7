//! The invariants of the frontmatter grammar that the fuzz targets,
//! `tests/frontmatter_robustness.rs` and the property tests in
//! `src/frontmatter/proptests.rs` check, written against the public API only
//! (and the standard library and serde_json), so each can include this file
//! by path (the library reaches its own API as `quire` by
//! `extern crate self as quire` in its tests).
//!
//! - [`check_parse`]: whatever `parse` returns for a text is sound. A
//!   document's spans are ranges of the text on char boundaries, in order,
//!   and hold what the API says they hold: the fences are fence lines, no
//!   line between them is one, each key span reads as its key, each value
//!   span reads as its value (checked by reading the bytes again in a probe
//!   document). An error's span is a range of the text and its message is
//!   written for people (no Rust `Debug` text).
//! - [`check_set_scalar`]: `set_scalar` refuses exactly what it must refuse,
//!   with the right code, and otherwise changes only the value's bytes: the
//!   result reads back with the new value, every other value unchanged, every
//!   byte before and after the value as it was, and setting it again changes
//!   nothing.
//! - [`check_replace_scalar`] ([`check_replace`] on a decoded input):
//!   `replace_scalar` refuses with the code of the reason (a parse error, no
//!   frontmatter, a missing key), and a value it cannot replace with
//!   `not_replaceable`, for the entry's layout and span and a reason the text
//!   bears out (a list or a mapping always; an anchor on the key's line, a
//!   comment or block header below it, ...); it replaces a one-line scalar
//!   exactly as `set_scalar` does, never replaces a list, a mapping or an
//!   anchored value, and replaces anything else as [`check_replaced`] says:
//!   the result passes `check_parse`, reads the key as exactly the new value
//!   and every other value as before, keeps every byte before the key's
//!   colon and after the old value's region (the key's line or the value,
//!   whichever ends later), the byte-order mark and the body; the new value
//!   is one plain or double-quoted line right after the colon, and what
//!   follows it in the region is pieces of the old region holding every
//!   comment it held, in order, and nothing else but blanks and line
//!   breaks; replacing or setting it again changes nothing.
//!
//! Edit inputs are bytes in the form [`EditInput::decode`] reads, so a seed
//! is a readable file: `<selector><key>\xFF<value>\xFF<text>`.

#![allow(dead_code)]

use quire_grammar::frontmatter::{
    Code, Document, EditError, Entry, Frontmatter, FrontmatterDiagnostic, ParseError, ValueLayout,
    parse, replace_scalar, set_scalar,
};
use quire_grammar::span::Span;
use serde_json::Value;

/// Is `span` a range of `text` on character boundaries?
pub fn span_ok(text: &str, span: Span) -> bool {
    span.start <= span.end && text.get(span.range()).is_some()
}

fn check_span(text: &str, what: &str, span: Span) -> Result<(), String> {
    if span_ok(text, span) {
        Ok(())
    } else {
        Err(format!(
            "{what}: span {span} is not a range of the {}-byte text on char boundaries",
            text.len()
        ))
    }
}

fn is_blank(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// `line` (without its `\n`) with the `\r` of a `\r\n` line ending removed.
fn content(line: &str, ends_with_newline: bool) -> &str {
    if ends_with_newline {
        line.strip_suffix('\r').unwrap_or(line)
    } else {
        line
    }
}

/// Is this line content (no line ending) a fence: `marker` and blanks?
fn is_fence(line: &str, markers: &[&str]) -> bool {
    markers
        .iter()
        .any(|marker| line.trim_end_matches(is_blank) == *marker)
}

/// The first line of `text` (without its line ending) and whether a `\n`
/// ends it.
fn first_line(text: &str) -> (&str, bool) {
    match text.find('\n') {
        Some(end) => (content(&text[..end], true), true),
        None => (text, false),
    }
}

/// Is `offset` the start of a line of `text`?
fn at_line_start(text: &str, offset: usize) -> bool {
    offset == 0 || text.as_bytes().get(offset - 1) == Some(&b'\n')
}

// ----------------------------------------------------------------- parse ---

/// Messages a person or a model reads hold no Rust `Debug` text such as
/// `Nodes { nodes: 250001 }`. Text in backticks (the user's own keys and
/// characters) is not looked at.
pub fn check_message(message: &str) -> Result<(), String> {
    if message.trim().is_empty() {
        return Err("an error has an empty message".into());
    }
    let mut outside = String::new();
    for (index, part) in message.split('`').enumerate() {
        if index % 2 == 0 {
            outside.push_str(part);
            outside.push(' ');
        }
    }
    let words: Vec<&str> = outside.split(' ').collect();
    for window in words.windows(3) {
        let [name, brace, field] = window else {
            continue;
        };
        let debug_struct = *brace == "{"
            && name.starts_with(|c: char| c.is_ascii_uppercase())
            && name.chars().all(|c| c.is_ascii_alphanumeric())
            && field.ends_with(':')
            && field.len() > 1
            && field[..field.len() - 1]
                .chars()
                .all(|c| c.is_ascii_lowercase() || c == '_');
        if debug_struct {
            return Err(format!("the message holds Rust Debug text: {message:?}"));
        }
    }
    for jargon in ["breached", "Budget", "u64", "i64", "f64"] {
        if outside.contains(jargon) {
            return Err(format!("the message holds {jargon:?}: {message:?}"));
        }
    }
    Ok(())
}

/// An error (of `parse` or `set_scalar`) is sound: its span is a range of
/// the text, its diagnostic keeps its code and span, and its words are
/// written for people.
pub fn check_error(
    text: &str,
    error: &dyn std::fmt::Display,
    code: Code,
    span: Span,
    diagnostic: &FrontmatterDiagnostic,
) -> Result<(), String> {
    check_span(text, &format!("{code} error"), span)?;
    if diagnostic.span != span || diagnostic.code != code {
        return Err(format!("the diagnostic of {error} lost its span or code"));
    }
    check_message(&diagnostic.message)?;
    check_message(&diagnostic.help)
}

fn check_parse_error(text: &str, error: &ParseError) -> Result<(), String> {
    check_error(
        text,
        error,
        error.code(),
        error.span(),
        &error.to_diagnostic(),
    )
}

/// Everything `parse` returns for `text` is sound (see the module docs).
pub fn check_parse(text: &str) -> Result<(), String> {
    match parse(text) {
        Ok(document) => check_document(text, &document),
        Err(error) => {
            check_parse_error(text, &error)?;
            if error.code() == Code::Unclosed {
                let start = usize::from(text.starts_with('\u{feff}')) * 3;
                let (line, _) = first_line(&text[start..]);
                if !is_fence(line, &["---"]) {
                    return Err("an unclosed block that does not start with `---`".into());
                }
            }
            Ok(())
        }
    }
}

/// The spans of a parse of `text` are sound (see the module docs).
pub fn check_document(text: &str, document: &Document) -> Result<(), String> {
    let start = match document.bom {
        Some(bom) if bom == Span::new(0, 3) && text.starts_with('\u{feff}') => 3,
        None if !text.starts_with('\u{feff}') => 0,
        bom => {
            return Err(format!(
                "byte-order mark {bom:?} for a text starting {:?}",
                text.get(..3)
            ));
        }
    };
    check_span(text, "body", document.body)?;
    if document.body.end != text.len() {
        return Err(format!("the body {} does not reach the end", document.body));
    }
    let Some(frontmatter) = &document.frontmatter else {
        if document.body.start != start {
            return Err(format!(
                "no frontmatter, yet the body starts at {}",
                document.body.start
            ));
        }
        let (line, _) = first_line(&text[start..]);
        if is_fence(line, &["---"]) {
            return Err(format!(
                "the first line {line:?} is a fence, yet no frontmatter"
            ));
        }
        return Ok(());
    };
    check_block(text, start, document, frontmatter)?;
    check_entries(text, frontmatter)
}

fn check_block(
    text: &str,
    start: usize,
    document: &Document,
    frontmatter: &Frontmatter,
) -> Result<(), String> {
    for (what, span) in [
        ("block", frontmatter.span),
        ("open fence", frontmatter.open),
        ("yaml", frontmatter.yaml),
        ("close fence", frontmatter.close),
    ] {
        check_span(text, what, span)?;
    }
    let Frontmatter {
        span,
        open,
        yaml,
        close,
        ..
    } = *frontmatter;
    if span.start != start || open.start != start {
        return Err(format!(
            "the block {span} or its fence {open} does not start at {start}"
        ));
    }
    if !is_fence(&text[open.range()], &["---"]) {
        return Err(format!("the open fence is {:?}", &text[open.range()]));
    }
    let after_open = &text[open.end..yaml.start];
    if after_open != "\n" && after_open != "\r\n" {
        return Err(format!(
            "{after_open:?} between the open fence and the YAML"
        ));
    }
    if yaml.end != close.start || !at_line_start(text, close.start) {
        return Err(format!(
            "the YAML {yaml} does not end where the close fence {close} starts"
        ));
    }
    if !is_fence(&text[close.range()], &["---", "..."]) {
        return Err(format!("the close fence is {:?}", &text[close.range()]));
    }
    let after_close = &text[close.end..span.end];
    let ends_text = after_close.is_empty() && span.end == text.len();
    if !(ends_text || after_close == "\n" || after_close == "\r\n") {
        return Err(format!("{after_close:?} after the close fence"));
    }
    if document.body.start != span.end {
        return Err(format!(
            "the body starts at {}, not after the block",
            document.body.start
        ));
    }
    let lines = &text[yaml.range()];
    if !lines.is_empty() && !lines.ends_with('\n') {
        return Err("the YAML does not end with a line ending".into());
    }
    for line in lines.split_terminator('\n') {
        if is_fence(content(line, true), &["---", "..."]) {
            return Err(format!("the fence line {line:?} is inside the YAML"));
        }
    }
    Ok(())
}

/// `text` read as frontmatter: its values, or why not.
fn probe(yaml: &str) -> Result<serde_json::Map<String, Value>, String> {
    let text = format!("---\n{yaml}\n---\n");
    match parse(&text) {
        Ok(Document {
            frontmatter: Some(frontmatter),
            ..
        }) => Ok(frontmatter.values),
        Ok(_) => Err(format!("{text:?} has no frontmatter")),
        Err(error) => Err(format!("{text:?} does not parse: {error}")),
    }
}

fn check_entries(text: &str, frontmatter: &Frontmatter) -> Result<(), String> {
    let yaml = frontmatter.yaml;
    let mut keys: Vec<&str> = frontmatter.entries.iter().map(|e| e.key.as_str()).collect();
    let in_order = keys.clone();
    keys.sort_unstable();
    keys.dedup();
    let mut read: Vec<&str> = frontmatter.values.keys().map(String::as_str).collect();
    read.sort_unstable();
    if keys.len() != in_order.len() || keys != read {
        return Err(format!(
            "the entries {in_order:?} are not the keys read {read:?}"
        ));
    }
    let mut previous_end = yaml.start;
    for (index, entry) in frontmatter.entries.iter().enumerate() {
        let key = entry.key.as_str();
        let what = format!("entry `{key}`");
        check_span(text, &what, entry.key.span)?;
        check_span(text, &what, entry.value)?;
        let (key_span, value) = (entry.key.span, entry.value);
        let ordered = previous_end <= key_span.start
            && key_span.end <= value.start
            && yaml.start <= key_span.start
            && value.end <= yaml.end
            && !key_span.is_empty();
        if !ordered {
            return Err(format!(
                "{what}: key {key_span} and value {value} out of order or outside the YAML {yaml}"
            ));
        }
        if !at_line_start(text, key_span.start) {
            return Err(format!("{what}: the key does not start a line"));
        }
        previous_end = value.end;

        // The key as written reads as the key.
        let written_key = &text[key_span.range()];
        let alone = probe(&format!("{written_key}: ~"))?;
        if alone.len() != 1 || !alone.contains_key(key) {
            return Err(format!("{what}: {written_key:?} reads as {alone:?}"));
        }

        let read = &frontmatter.values[key];
        let written = &text[value.range()];
        let first = written.chars().next();
        let shape_ok = match entry.layout {
            ValueLayout::Empty => {
                value.is_empty() && text[..value.start].ends_with(':') && read.is_null()
            }
            ValueLayout::Plain => first.is_some_and(|c| !matches!(c, '\'' | '"' | ' ' | '\t')),
            ValueLayout::SingleQuoted => first == Some('\'') && written.ends_with('\''),
            ValueLayout::DoubleQuoted => first == Some('"') && written.ends_with('"'),
            ValueLayout::BlockScalar => matches!(first, Some('|' | '>')),
            ValueLayout::FlowCollection => matches!(first, Some('[' | '{')),
            ValueLayout::Alias => first == Some('*'),
            ValueLayout::Anchored => first == Some('&'),
            ValueLayout::Tagged => first == Some('!'),
            _ => !written.is_empty(),
        };
        if !shape_ok {
            return Err(format!("{what}: {:?} is not {}", written, entry.layout));
        }
        if entry.layout.is_single_line_scalar() {
            if written.contains(['\n', '\r']) {
                return Err(format!(
                    "{what}: the one-line value {written:?} spans lines"
                ));
            }
            // The bytes alone read as the value.
            let alone = probe(&format!("k: {written}"))?;
            if alone.get("k") != Some(read) {
                return Err(format!(
                    "{what}: {written:?} reads as {alone:?}, not {read}"
                ));
            }
        }
        // The YAML up to the end of the value reads the value the same:
        // nothing of it lies after the span. Kept trailing line breaks
        // (`|+`, `>+`, at any depth) are the entry's blank lines, which the
        // grammar leaves after the span.
        let until = probe(&text[yaml.start..value.end])?;
        let same = match until.get(key) {
            Some(cut) if keeps_breaks(written) => trim_breaks(cut) == trim_breaks(read),
            cut => cut == Some(read),
        };
        if !same {
            return Err(format!(
                "{what}: the YAML up to the end of the value {value} reads {:?}, not {read}",
                until.get(key)
            ));
        }
        if let Some(next) = frontmatter.entries.get(index + 1)
            && text[value.end..next.key.span.start].contains(|c: char| !c.is_whitespace())
            && !between_is_comments(&text[value.end..next.key.span.start])
        {
            return Err(format!(
                "{what}: content between the value and the next key"
            ));
        }
    }
    Ok(())
}

/// Does `written` hold a block scalar header with keep chomping (`|+`, `>2+`)?
fn keeps_breaks(written: &str) -> bool {
    written.match_indices(['|', '>']).any(|(at, _)| {
        written[at + 1..]
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '+' || *c == '-')
            .any(|c| c == '+')
    })
}

/// `value` with the trailing line feeds of every string in it removed.
fn trim_breaks(value: &Value) -> Value {
    match value {
        Value::String(text) => Value::String(text.trim_end_matches('\n').to_owned()),
        Value::Array(items) => Value::Array(items.iter().map(trim_breaks).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, value)| (key.clone(), trim_breaks(value)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Is everything here (after a value, before the next key) blanks, line
/// endings and comments?
fn between_is_comments(between: &str) -> bool {
    let mut lines = between.split('\n');
    // The rest of the value's own line: blanks and perhaps a comment.
    let rest = lines.next().unwrap_or("").trim_start_matches(is_blank);
    let rest_ok = rest.is_empty() || rest == "\r" || rest.starts_with('#');
    rest_ok
        && lines.all(|line| {
            let line = line.trim_start_matches(is_blank);
            line.is_empty() || line == "\r" || line.starts_with('#')
        })
}

// ------------------------------------------------------------- set_scalar ---

/// One `set_scalar` call, decoded from fuzz bytes.
#[derive(Debug)]
pub struct EditInput {
    /// Below 0x80: the key of the entry at this index (modulo the number of
    /// entries), if the text parses with entries; else `key`.
    pub selector: u8,
    pub key: String,
    pub value: String,
    pub text: String,
}

impl EditInput {
    /// `<selector><key>\xFF<value>\xFF<text>`: the first byte picks the key
    /// (see [`EditInput::selector`]), 0xFF (never part of UTF-8) separates
    /// the parts, and each part is read as lossy UTF-8. Input without two
    /// separators is all text, edited at its first key.
    pub fn decode(data: &[u8]) -> EditInput {
        let mut parts = data.splitn(3, |&b| b == 0xFF);
        let (head, value, text) = match (parts.next(), parts.next(), parts.next()) {
            (Some(head), Some(value), Some(text)) => (head, value, text),
            _ => (&[][..], &b"Applied"[..], data),
        };
        let lossy = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
        EditInput {
            selector: head.first().copied().unwrap_or(0),
            key: lossy(head.get(1..).unwrap_or_default()),
            value: lossy(value),
            text: lossy(text),
        }
    }

    /// The inverse of [`EditInput::decode`], for writing seeds.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = vec![self.selector];
        out.extend_from_slice(self.key.as_bytes());
        out.push(0xFF);
        out.extend_from_slice(self.value.as_bytes());
        out.push(0xFF);
        out.extend_from_slice(self.text.as_bytes());
        out
    }

    /// The key to set, given the text's parse.
    pub fn key_in(&self, parsed: &Result<Document, ParseError>) -> String {
        let entries = match parsed {
            Ok(Document {
                frontmatter: Some(frontmatter),
                ..
            }) => frontmatter.entries.as_slice(),
            _ => &[],
        };
        if self.selector < 0x80 && !entries.is_empty() {
            entries[usize::from(self.selector) % entries.len()]
                .key
                .value
                .clone()
        } else {
            self.key.clone()
        }
    }
}

/// An edit error is sound (see [`check_error`]). The key the caller asked
/// for is the caller's text, written into the message as it is (between
/// backticks, which a key may itself hold), so it is not looked at.
fn check_edit_error(text: &str, key: &str, error: &EditError) -> Result<(), String> {
    let mut diagnostic = error.to_diagnostic();
    if !key.is_empty() {
        diagnostic.message = diagnostic.message.replace(key, "KEY");
        diagnostic.help = diagnostic.help.replace(key, "KEY");
    }
    check_error(text, error, error.code(), error.span(), &diagnostic)
}

/// `set_scalar` on a decoded input refuses what it must and otherwise
/// changes only the value (see the module docs).
pub fn check_set_scalar(data: &[u8]) -> Result<(), String> {
    let input = EditInput::decode(data);
    let key = input.key_in(&parse(&input.text));
    check_set(&input.text, &key, &input.value)
}

/// `set_scalar(text, key, value)` refuses what it must and otherwise
/// changes only the value (see the module docs).
pub fn check_set(text: &str, key: &str, value: &str) -> Result<(), String> {
    let parsed = parse(text);
    let key = key.to_owned();
    let result = set_scalar(text, &key, value);
    if let Err(error) = &result {
        check_edit_error(text, &key, error)?;
    }
    let document = match &parsed {
        Ok(document) => document,
        Err(parse_error) => {
            return match result {
                Err(EditError::Parse(error)) if error == *parse_error => Ok(()),
                other => Err(format!(
                    "the text does not parse ({parse_error}), yet set_scalar gave {other:?}"
                )),
            };
        }
    };
    let Some(frontmatter) = &document.frontmatter else {
        return match result {
            Err(EditError::NoFrontmatter { key: named }) if named == key => Ok(()),
            other => Err(format!("no frontmatter, yet set_scalar gave {other:?}")),
        };
    };
    let Some(entry) = frontmatter.entry(&key) else {
        return match result {
            Err(EditError::MissingKey {
                key: named, span, ..
            }) if named == key && span == frontmatter.yaml => Ok(()),
            other => Err(format!("no key {key:?}, yet set_scalar gave {other:?}")),
        };
    };
    if !entry.layout.is_single_line_scalar() {
        return match result {
            Err(EditError::NotAScalar { layout, span, .. })
                if layout == entry.layout && span == entry.value =>
            {
                Ok(())
            }
            other => Err(format!(
                "{key:?} is {}, yet set_scalar gave {other:?}",
                entry.layout
            )),
        };
    }
    let edited = result.map_err(|error| {
        format!(
            "setting the {} {key:?} to {value:?} failed: {error}",
            entry.layout
        )
    })?;
    check_edited(text, document, frontmatter, &key, value, &edited)
}

/// `edited` parses soundly, and its frontmatter holds `value` at `key`,
/// every other value of `frontmatter` unchanged, the keys in their order:
/// what every edit of one value must give. Returns the parsed edit.
fn reread_with_value(
    frontmatter: &Frontmatter,
    key: &str,
    value: &str,
    edited: &str,
) -> Result<Document, String> {
    check_parse(edited)?;
    let after = parse(edited).map_err(|error| error.to_string())?;
    let Some(after_frontmatter) = &after.frontmatter else {
        return Err("the frontmatter is gone".into());
    };
    let mut expected = frontmatter.values.clone();
    expected.insert(key.to_owned(), Value::String(value.to_owned()));
    if after_frontmatter.values != expected {
        return Err(format!(
            "the values read {:?}, not {expected:?}",
            after_frontmatter.values
        ));
    }
    let keys = |f: &Frontmatter| {
        f.entries
            .iter()
            .map(|e| e.key.value.clone())
            .collect::<Vec<_>>()
    };
    if keys(frontmatter) != keys(after_frontmatter) {
        return Err("the keys changed order".into());
    }
    Ok(after)
}

fn check_edited(
    text: &str,
    document: &Document,
    frontmatter: &Frontmatter,
    key: &str,
    value: &str,
    edited: &str,
) -> Result<(), String> {
    let context = || format!("setting {key:?} to {value:?} in {text:?} gave {edited:?}");
    let after = reread_with_value(frontmatter, key, value, edited)
        .map_err(|failure| format!("{}: {failure}", context()))?;
    let after_frontmatter = after
        .frontmatter
        .as_ref()
        .expect("checked by reread_with_value");

    // Only the value's bytes changed.
    let old = frontmatter.entry(key).expect("the key was found").clone();
    let new = after_frontmatter
        .entry(key)
        .ok_or_else(|| format!("{}: the entry is gone", context()))?;
    if !new.layout.is_single_line_scalar() {
        return Err(format!("{}: the new value is {}", context(), new.layout));
    }
    let inserted = if old.layout == ValueLayout::Empty {
        " "
    } else {
        ""
    };
    let prefix_kept = edited.get(..old.value.start) == Some(&text[..old.value.start]);
    let space_kept = edited.get(old.value.start..new.value.start) == Some(inserted);
    let suffix_kept = edited.get(new.value.end..) == Some(&text[old.value.end..]);
    if !(prefix_kept && space_kept && suffix_kept) {
        return Err(format!(
            "{}: bytes outside the value changed (old value {}, new {})",
            context(),
            old.value,
            new.value
        ));
    }
    if edited[new.value.range()].contains(['\n', '\r']) {
        return Err(format!("{}: the new value spans lines", context()));
    }
    if document.bom != after.bom || text[document.body.range()] != edited[after.body.range()] {
        return Err(format!(
            "{}: the byte-order mark or the body changed",
            context()
        ));
    }

    // A fixed point: setting the same value again changes nothing.
    match set_scalar(edited, key, value) {
        Ok(again) if again == edited => Ok(()),
        other => Err(format!("{}: setting it again gave {other:?}", context())),
    }
}

// --------------------------------------------------------- replace_scalar ---

/// What `replace_scalar` did with an input the model found sound.
#[derive(Debug)]
pub enum Replaced {
    /// The value was rewritten into this text.
    Edited(String),
    /// The input was refused with this (documented, fitting) error.
    Refused(EditError),
}

/// `replace_scalar` on a decoded input (the form of [`EditInput::decode`])
/// refuses what it must and otherwise changes only the value's region (see
/// the module docs).
pub fn check_replace_scalar(data: &[u8]) -> Result<(), String> {
    let input = EditInput::decode(data);
    let key = input.key_in(&parse(&input.text));
    check_replace(&input.text, &key, &input.value).map(drop)
}

/// The end of the content of the line `offset` is on (before `\r\n` or
/// `\n`, or the end of the text).
fn line_content_end(text: &str, offset: usize) -> usize {
    match text[offset..].find('\n') {
        Some(at) => content(&text[..offset + at], true).len(),
        None => text.len(),
    }
}

/// The bytes of an entry's value that `replace_scalar` may rewrite: from
/// after the key's colon (`None` when the key is not followed by blanks and
/// a colon) to the end of the key's line or of the value, whichever is
/// later.
struct Region {
    colon_end: Option<usize>,
    key_line_end: usize,
    end: usize,
}

impl Region {
    fn of(text: &str, entry: &Entry) -> Region {
        let key_line_end = line_content_end(text, entry.key.span.start);
        let after_key = &text[entry.key.span.end..key_line_end];
        let blanks = after_key.len() - after_key.trim_start_matches(is_blank).len();
        let colon_end = after_key[blanks..]
            .starts_with(':')
            .then_some(entry.key.span.end + blanks + 1);
        Region {
            colon_end,
            key_line_end,
            end: entry.value.end.max(key_line_end),
        }
    }
}

/// `replace_scalar(text, key, value)` refuses what it must, with the right
/// code and a reason the text bears out, and otherwise writes the value as
/// one line on the key's line and keeps every other byte and comment; what
/// it did is returned for callers with stronger expectations (the proptest
/// demands that every scalar it writes without an anchor is replaced).
pub fn check_replace(text: &str, key: &str, value: &str) -> Result<Replaced, String> {
    let parsed = parse(text);
    let result = replace_scalar(text, key, value);
    if let Err(error) = &result {
        check_edit_error(text, key, error)?;
    }
    let refused = |fits: bool, what: &str| match &result {
        Err(error) if fits => Ok(Replaced::Refused(error.clone())),
        other => Err(format!("{what}, yet replace_scalar gave {other:?}")),
    };
    let document = match &parsed {
        Ok(document) => document,
        Err(parse_error) => {
            let fits = matches!(&result, Err(EditError::Parse(error)) if error == parse_error);
            return refused(fits, &format!("the text does not parse ({parse_error})"));
        }
    };
    let Some(frontmatter) = &document.frontmatter else {
        let fits = matches!(&result, Err(EditError::NoFrontmatter { key: named }) if named == key);
        return refused(fits, "no frontmatter");
    };
    let Some(entry) = frontmatter.entry(key) else {
        let fits = matches!(&result, Err(EditError::MissingKey { key: named, span, .. })
            if named == key && *span == frontmatter.yaml);
        return refused(fits, &format!("no key {key:?}"));
    };
    let layout = entry.layout;
    let context = || format!("replacing the {layout} {key:?} with {value:?} in {text:?}");

    // A one-line scalar is left to set_scalar, style and all.
    if layout.is_single_line_scalar() {
        let set = set_scalar(text, key, value);
        return match result {
            Ok(edited) if set.as_ref() == Ok(&edited) => {
                check_edited(text, document, frontmatter, key, value, &edited)?;
                match replace_scalar(&edited, key, value) {
                    Ok(again) if again == edited => Ok(Replaced::Edited(edited)),
                    other => Err(format!("{}: replacing it again gave {other:?}", context())),
                }
            }
            other => Err(format!(
                "{}: gave {other:?}, set_scalar gave {set:?}",
                context()
            )),
        };
    }

    let collection = matches!(
        frontmatter.get(key),
        Some(Value::Array(_) | Value::Object(_))
    ) || matches!(
        layout,
        ValueLayout::FlowCollection | ValueLayout::BlockCollection
    );
    match &result {
        Ok(edited) => {
            if collection {
                return Err(format!("{}: a list or mapping was replaced", context()));
            }
            if layout == ValueLayout::Anchored {
                return Err(format!("{}: an anchored value was replaced", context()));
            }
            check_replaced(text, document, frontmatter, key, value, edited)?;
            Ok(Replaced::Edited(edited.clone()))
        }
        Err(
            error @ EditError::NotReplaceable {
                key: named,
                layout: said,
                reason,
                span,
            },
        ) => {
            if named != key || *said != layout || *span != entry.value {
                return Err(format!(
                    "{}: refused for another key, layout or span: {error:?}",
                    context()
                ));
            }
            check_reason(text, entry, collection, reason)
                .map_err(|why| format!("{}: {why}", context()))?;
            Ok(Replaced::Refused(error.clone()))
        }
        Err(error) => Err(format!("{}: failed: {error}", context())),
    }
}

/// Does the text bear out the reason `replace_scalar` gave for refusing to
/// replace the value of `entry`?
fn check_reason(text: &str, entry: &Entry, collection: bool, reason: &str) -> Result<(), String> {
    let region = Region::of(text, entry);
    let start = region.colon_end.unwrap_or(entry.key.span.end);
    let key_line = &text[start..region.key_line_end];
    let below = &text[region.key_line_end..region.end];
    let whole = &text[start..region.end];
    let has = |part: &str, chars: &[char]| part.contains(chars);
    let fits = match reason {
        // Checked first, so it is the reason for every list and mapping.
        "it is a list or a mapping, not a scalar" => collection,
        _ if collection => false,
        "its key line is not `key: value`" => region.colon_end.is_none(),
        "it carries an anchor (`&name`) that other values may use" => has(key_line, &['&']),
        "it is a collection, not a scalar" => has(whole, &['[', '{']),
        "a comment line stands between its key and its value" => has(below, &['#']),
        "its block scalar starts on a line below its key" => has(below, &['|', '>']),
        "its tag, anchor or alias is on a line below its key" => has(below, &['!', '&', '*']),
        "its quoted scalar does not end" => has(whole, &['\'', '"']),
        "its block scalar is not indented"
        | "its block scalar's lines are not where YAML reads them" => has(key_line, &['|', '>']),
        _ => {
            return Err(format!(
                "refused for a reason the model does not know: {reason:?}"
            ));
        }
    };
    if fits {
        Ok(())
    } else {
        Err(format!(
            "refused because {reason:?}, which the value {whole:?} does not bear out"
        ))
    }
}

/// The comments in `text[start..end]`, as (offset, text from `#` to the end
/// of its line), and whether that is all of them: at most `limit` are
/// looked for. A `#` after a blank or at a line's start is a comment when
/// writing a character after it changes no value (inside a scalar it
/// would); this asks YAML rather than re-lexing it.
fn comments_in(
    text: &str,
    values: &serde_json::Map<String, Value>,
    start: usize,
    end: usize,
    limit: usize,
) -> (Vec<(usize, String)>, bool) {
    let mut comments = Vec::new();
    // The end of the last comment found: a `#` before it is in that comment.
    let mut in_comment_until = start;
    for (at, _) in text[start..end].match_indices('#') {
        let at = start + at;
        let after_blank = at == 0 || matches!(text.as_bytes()[at - 1], b' ' | b'\t' | b'\n');
        if !after_blank || at < in_comment_until {
            continue;
        }
        if comments.len() == limit {
            return (comments, false);
        }
        let probe = format!("{}#Z{}", &text[..at], &text[at + 1..]);
        let same = matches!(
            parse(&probe),
            Ok(Document { frontmatter: Some(f), .. }) if f.values == *values
        );
        if same {
            let line_end = line_content_end(text, at);
            comments.push((at, text[at..line_end].to_owned()));
            in_comment_until = line_end;
        }
    }
    (comments, true)
}

/// How many comments in a replaced value's region are looked for in the
/// result: each costs a parse.
const COMMENT_PROBES: usize = 16;

/// `edited` is a sound replacement of the value of `key` (not a one-line
/// scalar) in `text` by `value`: it passes `check_parse`, reads the key as
/// exactly `value` and every other value as before, in the same key order,
/// with the byte-order mark and body as they were; the new value is one
/// line, plain or double-quoted as `set_scalar` writes a plain value, right
/// after the key's colon and a blank; every byte before the colon and after
/// the old value's region is kept, and what is left of that region after
/// the new value is pieces of it that hold every comment it held, in order,
/// and nothing else but blanks and line breaks; and replacing (or setting)
/// the value again changes nothing.
pub fn check_replaced(
    text: &str,
    document: &Document,
    frontmatter: &Frontmatter,
    key: &str,
    value: &str,
    edited: &str,
) -> Result<(), String> {
    let context = || format!("replacing {key:?} with {value:?} in {text:?} gave {edited:?}");
    let fail = |what: String| Err(format!("{}: {what}", context()));
    let after = match reread_with_value(frontmatter, key, value, edited) {
        Ok(after) => after,
        Err(failure) => return fail(failure),
    };
    let after_frontmatter = after
        .frontmatter
        .as_ref()
        .expect("checked by reread_with_value");
    if document.bom != after.bom || text[document.body.range()] != edited[after.body.range()] {
        return fail("the byte-order mark or the body changed".into());
    }

    let Some(old) = frontmatter.entry(key) else {
        return fail("the key was not in the text".into());
    };
    let Some(new) = after_frontmatter.entry(key) else {
        return fail("the entry is gone".into());
    };
    let region = Region::of(text, old);
    let Some(colon_end) = region.colon_end else {
        return fail("a value after a key without a colon was replaced".into());
    };
    let written = &edited[new.value.range()];
    if !matches!(new.layout, ValueLayout::Plain | ValueLayout::DoubleQuoted)
        || written.contains(['\n', '\r'])
    {
        return fail(format!("the new value {written:?} is {}", new.layout));
    }
    // Written as set_scalar writes a plain value.
    let plain = set_scalar("---\nk: x\n---\n", "k", value)
        .map_err(|error| format!("{}: setting a plain value failed: {error}", context()))?;
    if plain != format!("---\nk: {written}\n---\n") {
        return fail(format!("{written:?} is not written as in {plain:?}"));
    }

    // The bytes before the colon and after the region are kept; the new
    // value follows the colon after blanks, on the key's line.
    let kept_after = text.len() - region.end;
    let prefix_kept = edited.get(..colon_end) == Some(&text[..colon_end]);
    let suffix_kept =
        edited.len() >= new.value.end + kept_after && edited.ends_with(&text[region.end..]);
    if !(prefix_kept && suffix_kept) {
        return fail(format!(
            "bytes before the colon at {colon_end} or after the region's end at {} changed",
            region.end
        ));
    }
    let gap = &edited[colon_end..new.value.start];
    let old_blanks = &text[colon_end..region.end];
    let old_blanks =
        &old_blanks[..old_blanks.len() - old_blanks.trim_start_matches(is_blank).len()];
    if gap != " " && gap != old_blanks {
        return fail(format!("{gap:?} between the colon and the new value"));
    }

    // What follows the new value in its region is at most two pieces of
    // the old region (what followed the old value on the key's line, and
    // what followed its last line), with every comment in it, in order.
    let rest = &edited[new.value.end..edited.len() - kept_after];
    let old_region = &text[colon_end..region.end];
    let mut common = rest
        .bytes()
        .rev()
        .zip(old_region.bytes().rev())
        .take_while(|(a, b)| a == b)
        .count();
    while !rest.is_char_boundary(rest.len() - common) {
        common -= 1;
    }
    let first_piece = &rest[..rest.len() - common];
    if !old_region.contains(first_piece) {
        return fail(format!(
            "{rest:?} after the new value is not pieces of the old {old_region:?}"
        ));
    }
    // Between and around those comments only blanks and line breaks: no
    // piece of the old node is left (as a comment line, say).
    let (comments, all) = comments_in(
        text,
        &frontmatter.values,
        colon_end,
        region.end,
        COMMENT_PROBES,
    );
    let is_space = |part: &str| part.chars().all(|c| matches!(c, ' ' | '\t' | '\r' | '\n'));
    let mut from = 0;
    for (at, comment) in comments {
        let Some(found) = rest[from..].find(&comment) else {
            return fail(format!(
                "the comment {comment:?} at {at} is not in {rest:?} after the new value"
            ));
        };
        if all && !is_space(&rest[from..from + found]) {
            return fail(format!(
                "{:?} before the comment {comment:?} after the new value",
                &rest[from..from + found]
            ));
        }
        from += found + comment.len();
    }
    if all && !is_space(&rest[from..]) {
        return fail(format!(
            "{:?} after the comments after the new value",
            &rest[from..]
        ));
    }

    // A fixed point: replacing or setting the same value again changes nothing.
    for (name, again) in [
        ("replacing", replace_scalar(edited, key, value)),
        ("setting", set_scalar(edited, key, value)),
    ] {
        match again {
            Ok(again) if again == edited => {}
            other => return fail(format!("{name} it again gave {other:?}")),
        }
    }
    Ok(())
}
