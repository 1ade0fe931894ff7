//! Reading an answer's body off the wire without ever holding more than a
//! set number of bytes, and showing one in a message.
//!
//! A peer decides how long a body is, and the Task Manager's address is
//! all it takes to be that peer: a 200 with a 2 GiB body once took 2 GiB
//! of memory and 10 to 18 s for one call. So a body is read a chunk at a
//! time and the reading stops at the cap, before the buffer grows past it.

use std::io::{self, Read};

use serde_json::Value;

use super::model::Answer;

/// The most of an answer's body shown in a message, in characters.
pub(crate) const EXCERPT_CHARS: usize = 300;

/// How much of a body one read asks for.
const CHUNK_BYTES: usize = 16 * 1024;

/// A body as far as it was read.
#[derive(Debug)]
pub(crate) struct Capped {
    /// The bytes read: all of them, or the first `limit`.
    pub(crate) bytes: Vec<u8>,
    /// Whether the body ended within the limit.
    pub(crate) whole: bool,
}

/// Reads `body`, at most `limit` bytes of it: the buffer never grows past
/// `limit`, and reading stops at the first chunk that would take it
/// there. `declared` (the answer's Content-Length, the peer's word) sizes
/// the buffer only up to the limit.
pub(crate) fn read_capped(
    mut body: impl Read,
    declared: Option<u64>,
    limit: usize,
) -> io::Result<Capped> {
    let expected = declared.map_or(0, |length| usize::try_from(length).unwrap_or(limit));
    let mut bytes = Vec::with_capacity(expected.min(limit));
    let mut chunk = vec![0; CHUNK_BYTES];
    loop {
        let read = match body.read(&mut chunk) {
            Ok(0) => return Ok(Capped { bytes, whole: true }),
            Ok(read) => read,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        let chunk = &chunk[..read];
        let room = limit - bytes.len();
        if chunk.len() > room {
            bytes.extend_from_slice(&chunk[..room]);
            return Ok(Capped {
                bytes,
                whole: false,
            });
        }
        if bytes.capacity() - bytes.len() < chunk.len() {
            // Doubling, as `Vec` would, but never past the limit.
            let wanted = (bytes.capacity() * 2)
                .max(bytes.len() + chunk.len())
                .min(limit);
            bytes.reserve_exact(wanted - bytes.len());
        }
        bytes.extend_from_slice(chunk);
    }
}

/// A successful answer's body as the domain keeps it: its JSON when it is
/// JSON (any shape), else its text (trimmed, invalid UTF-8 replaced) as a
/// JSON string, and null when it is empty or only blanks. The
/// Content-Type is not consulted: servers label JSON `text/plain` and text
/// `application/json`, and the body says what it is.
pub(crate) fn answer(body: &[u8]) -> Answer {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Value::Null;
    }
    serde_json::from_slice(body)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(body).trim().to_owned()))
}

/// The start of a body as text, for a message: trimmed, at most
/// [`EXCERPT_CHARS`] characters (then `...`), `(no body)` when empty.
pub(crate) fn excerpt(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    if text.is_empty() {
        return "(no body)".to_owned();
    }
    let mut shown: String = text.chars().take(EXCERPT_CHARS).collect();
    if shown.len() < text.len() {
        shown.push_str("...");
    }
    shown
}

/// The start of an answer as text, for a message: its text when it was
/// text, its JSON written out otherwise.
pub(crate) fn answer_excerpt(answer: &Answer) -> String {
    match answer {
        Value::Null => "(no body)".to_owned(),
        Value::String(text) => excerpt(text.as_bytes()),
        other => excerpt(other.to_string().as_bytes()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A reader that hands out `chunk` bytes of `y` per read, forever.
    struct Endless {
        chunk: usize,
        reads: usize,
    }

    impl Read for Endless {
        fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
            self.reads += 1;
            let length = self.chunk.min(buffer.len());
            buffer[..length].fill(b'y');
            Ok(length)
        }
    }

    #[test]
    fn a_body_is_read_up_to_the_limit_and_no_further() {
        let mut endless = Endless {
            chunk: 1000,
            reads: 0,
        };
        let read = read_capped(&mut endless, Some(u64::MAX), 2500).unwrap();
        assert_eq!((read.bytes.len(), read.whole), (2500, false));
        assert!(read.bytes.capacity() <= 2500, "{}", read.bytes.capacity());
        assert_eq!(endless.reads, 3, "reading stops at the limit");
        let read = read_capped(&b"0123456789"[..], Some(10), 10).unwrap();
        assert_eq!((read.bytes, read.whole), (b"0123456789".to_vec(), true));
        let read = read_capped(&b"0123456789"[..], None, 9).unwrap();
        assert_eq!((read.bytes.len(), read.whole), (9, false));
        let read = read_capped(io::empty(), None, 9).unwrap();
        assert_eq!((read.bytes, read.whole), (Vec::new(), true));
    }

    #[test]
    fn excerpts_are_trimmed_and_bounded() {
        assert_eq!(excerpt(b"  busy \n"), "busy");
        assert_eq!(excerpt(b""), "(no body)");
        assert_eq!(excerpt(b"\xff\xfeok"), "\u{fffd}\u{fffd}ok");
        let long = "x".repeat(1000);
        assert_eq!(excerpt(long.as_bytes()), format!("{}...", "x".repeat(300)));
        assert_eq!(answer_excerpt(&Value::Null), "(no body)");
        assert_eq!(answer_excerpt(&json!("created")), "created");
        assert_eq!(answer_excerpt(&json!({"ok": true})), r#"{"ok":true}"#);
    }

    #[test]
    fn an_answer_is_its_json_its_text_or_null() {
        assert_eq!(answer(br#"{"ok": true}"#), json!({"ok": true}));
        assert_eq!(answer(b"[1, 2]"), json!([1, 2]));
        assert_eq!(answer(b"\"done\""), json!("done"));
        assert_eq!(answer(b"42"), json!(42));
        assert_eq!(answer(b""), Value::Null);
        assert_eq!(answer(b" \r\n"), Value::Null);
        assert_eq!(answer(b"null"), Value::Null);
        assert_eq!(answer(b"Created\n"), json!("Created"));
        assert_eq!(answer(b"{\"ok\": tru"), json!("{\"ok\": tru"));
        assert_eq!(answer(b"\xffok"), json!("\u{fffd}ok"));
        // Nesting deeper than serde_json's limit is text, not a stack
        // overflow.
        let deep = "[".repeat(10_000);
        assert_eq!(answer(deep.as_bytes()), json!(deep));
    }
}
