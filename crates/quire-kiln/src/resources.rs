//! Notes as MCP resources. Each note is the resource `kiln:///<path>`: the
//! root URI [`ROOT_URI`] and the note's path, each segment percent-encoded
//! (RFC 3986: everything but letters, digits and `-._~`), so that any note
//! name (spaces, `#`, `?`, `%`, non-ASCII) makes a valid URI and a URI
//! names exactly one path. A URI is decoded here, then checked as a path
//! argument like any other ([`super::NotePath::parse`]), so a resource can
//! reach no more than `read_note` can.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};
use thiserror::Error;

use super::info::ROOT_URI;
use super::note_path::NotePath;

/// What a path segment keeps unencoded: RFC 3986's unreserved characters.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

/// The longest resource URI accepted.
const MAX_URI_CHARS: usize = 3 * super::MAX_PATH_BYTES + ROOT_URI.len();

/// A URI that names no note of the kiln.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error(
    "`{shown}` is not a note of the kiln: {reason}; a note's URI is `kiln:///` and its path, as resources/list gives it (for example `kiln:///projects/Plan.md`)"
)]
pub struct UriError {
    /// The URI as given, shortened when long.
    pub shown: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

/// Notes per page of `resources/list`.
pub const RESOURCE_PAGE: usize = 500;

/// One note as a resource.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoteResource {
    /// Its URI.
    pub uri: String,
    /// Its path (NFC, with `.md`).
    pub path: String,
    /// Its title: the frontmatter's `title` when it is a string, else the
    /// file name without `.md`.
    pub title: String,
    /// The file's size in bytes.
    pub size: u64,
}

/// A page of the notes as resources, sorted by path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResourcePage {
    /// The notes of this page.
    pub notes: Vec<NoteResource>,
    /// The cursor of the next page; `None` on the last.
    pub next_cursor: Option<String>,
}

/// A note's whole text, as `resources/read` returns it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoteText {
    /// The note's URI.
    pub uri: String,
    /// Its text.
    pub text: String,
}

/// The URI of the note at `path`.
///
/// ```
/// use quire_kiln::{NotePath, note_path_of_uri, note_uri};
///
/// let path = NotePath::parse_relative("Ideas/Café #1.md").unwrap();
/// let uri = note_uri(&path);
/// assert_eq!(uri, "kiln:///Ideas/Caf%C3%A9%20%231.md");
/// assert_eq!(note_path_of_uri(&uri).unwrap(), "Ideas/Café #1.md");
/// ```
pub fn note_uri(path: &NotePath) -> String {
    let mut uri = String::from(ROOT_URI);
    for (index, segment) in path.as_str().split('/').enumerate() {
        if index > 0 {
            uri.push('/');
        }
        uri.extend(utf8_percent_encode(segment, SEGMENT));
    }
    uri
}

/// The note path a resource URI names, decoded (to be checked as a path
/// argument), or why it names none.
pub fn note_path_of_uri(uri: &str) -> Result<String, UriError> {
    let refuse = |reason| UriError {
        shown: shown(uri),
        reason,
    };
    if uri.len() > MAX_URI_CHARS {
        return Err(refuse("it is longer than any note's URI"));
    }
    let Some(encoded) = uri.strip_prefix(ROOT_URI) else {
        return Err(refuse("it does not start with `kiln:///`"));
    };
    if encoded.contains(['?', '#']) {
        return Err(refuse("it has a query or a fragment"));
    }
    if encoded.is_empty() {
        return Err(refuse("it is the root, not a note"));
    }
    let bytes = encoded.as_bytes();
    let hex = |at: usize| bytes.get(at).is_some_and(u8::is_ascii_hexdigit);
    if memchr::memchr_iter(b'%', bytes).any(|at| !(hex(at + 1) && hex(at + 2))) {
        return Err(refuse("a `%` is not followed by two hexadecimal digits"));
    }
    let decoded = percent_decode_str(encoded)
        .decode_utf8()
        .map_err(|_| refuse("its percent-encoded bytes are not UTF-8"))?;
    Ok(decoded.into_owned())
}

/// `uri` as shown in a message: at most 200 characters, control
/// characters escaped.
fn shown(uri: &str) -> String {
    let mut text: String = uri.chars().take(200).flat_map(char::escape_debug).collect();
    if uri.chars().count() > 200 {
        text.push('…');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_note_path_makes_a_uri_that_names_it_again() {
        for path in [
            "a.md",
            "Ideas/Café.md",
            "x/y z/100% sure?.md",
            "tags/#work & play.md",
            "日本語/メモ.md",
            "a/b/c/d.md",
            "emoji 🚀.md",
        ] {
            let note = NotePath::parse_relative(path).unwrap();
            let uri = note_uri(&note);
            assert!(uri.is_ascii(), "{uri}");
            assert!(!uri[ROOT_URI.len()..].contains([' ', '?', '#']), "{uri}");
            assert_eq!(note_path_of_uri(&uri).unwrap(), path, "{uri}");
        }
    }

    #[test]
    fn uris_that_name_no_note_are_refused_with_why() {
        for (uri, reason) in [
            ("file:///etc/passwd", "does not start"),
            ("kiln://host/a.md", "does not start"),
            ("kiln:///", "the root"),
            ("kiln:///a.md?x=1", "query"),
            ("kiln:///a.md#top", "query"),
            ("kiln:///a%2", "two hexadecimal"),
            ("kiln:///a%zz.md", "two hexadecimal"),
            ("kiln:///%FF.md", "not UTF-8"),
        ] {
            let error = note_path_of_uri(uri).unwrap_err();
            assert!(error.reason.contains(reason), "{uri}: {error}");
            assert!(error.to_string().contains("kiln:///projects/Plan.md"));
        }
        let long = format!("kiln:///{}", "a".repeat(20_000));
        let error = note_path_of_uri(&long).unwrap_err();
        assert!(error.to_string().chars().count() < 500);
        // Decoded, a URI is only a path argument: `..` and NUL are for
        // NotePath::parse to refuse.
        assert_eq!(
            note_path_of_uri("kiln:///..%2F..%2Fetc").unwrap(),
            "../../etc"
        );
        assert_eq!(note_path_of_uri("kiln:///a%00.md").unwrap(), "a\0.md");
    }
}
