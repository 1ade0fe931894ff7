//! The invariants of the semantic index's two readers of untrusted input
//! that the fuzz targets `semantic_chunk` and `semantic_index_decode` and
//! `tests/semantic_index_robustness.rs` check, written against the public
//! API only (and `sha2`, for the index file's trailing digest), so each can
//! include this file by path.
//!
//! - [`check_chunks`]: whatever note text `chunk_note` is given (any note
//!   in a vault is chunked), its chunks are sound: spans on char
//!   boundaries, in order, not overlapping, after the frontmatter, the
//!   gaps between them only white space; each chunk lies in one heading
//!   section and carries that heading (text and level) as the last part of
//!   its heading path; its embedded text is exactly the note's title, the
//!   heading path and the section, and `section()` is the note's bytes
//!   under its span.
//! - [`check_decode`]: whatever bytes are read as an index file (a vault
//!   shared by git or sync can hold a hostile `.quire/semantic-*.idx`),
//!   `SemanticIndex::from_bytes` returns an index or a `Corrupt` error
//!   naming the file, never a panic; the format has one encoding per
//!   index, so an index read back writes exactly the bytes it was read
//!   from, and it answers its queries without panicking.
//! - [`build_index`], [`damage`] and [`with_digest`] make the inputs of the
//!   decoder: a genuine index of a few notes, its body damaged and its
//!   digest recomputed so that the records themselves are explored, not
//!   only the checksum.

#![allow(dead_code)]

use quire_grammar::markdown::parse_note;
use quire_kiln::{
    Chunk, ChunkOptions, SemanticError, SemanticIndex, chunk_note, content_sha, note_title,
};
use sha2::{Digest, Sha256};

/// The bytes of the trailing SHA-256 of an index file.
pub const DIGEST_BYTES: usize = 32;

/// The magic and format version every index file starts with.
pub const HEADER: &[u8; 20] = b"quire-semantic\n\0\x02\0\0\0";

/// The name hostile files are read under: every error must name it.
pub const FILE: &str = ".quire/semantic-hostile.idx";

/// Where the note's body starts, as `chunk_note` documents it: after the
/// frontmatter (and a byte-order mark); a broken frontmatter is body text.
pub fn body_start(text: &str) -> usize {
    match quire_grammar::frontmatter::parse(text) {
        Ok(document) => document.body.start,
        Err(_) if text.starts_with('\u{feff}') => 3,
        Err(_) => 0,
    }
}

/// `chunk_note(path, text, max_chars)` holds every invariant in the module
/// documentation; the first broken one otherwise.
pub fn check_chunks(path: &str, text: &str, max_chars: usize) -> Result<Vec<Chunk>, String> {
    let chunks = chunk_note(path, text, &ChunkOptions { max_chars });
    let title = note_title(path, text);
    let body = body_start(text);
    let headings: Vec<_> = parse_note(text)
        .headings
        .into_iter()
        .filter(|heading| heading.span.start >= body)
        .collect();
    let mut covered = body;
    for (number, chunk) in chunks.iter().enumerate() {
        let fail = |what: String| Err(format!("chunk {number} ({:?}): {what}", chunk.span));
        let range = chunk.span.range();
        let Some(section) = text.get(range.clone()) else {
            return fail("span not a range of the text on char boundaries".into());
        };
        if range.start < covered {
            return fail(format!(
                "starts before the previous chunk or the frontmatter ends ({covered})"
            ));
        }
        if !text[covered..range.start].trim().is_empty() {
            return fail(format!(
                "text left out before it is not blank: {:?}",
                &text[covered..range.start]
            ));
        }
        if section.trim().is_empty() {
            return fail("the section is blank".into());
        }
        if chunk.section() != section {
            return fail(format!(
                "section() {:?} is not the note's text under the span {section:?}",
                chunk.section()
            ));
        }
        let mut expected = format!("{title}\n");
        if !chunk.heading_path.is_empty() {
            expected.push_str(&chunk.heading_path);
            expected.push('\n');
        }
        expected.push('\n');
        if chunk.section_start != expected.len() {
            return fail(format!(
                "section_start {} where the section follows {expected:?}",
                chunk.section_start
            ));
        }
        expected.push_str(section);
        if chunk.text != expected || !chunk.text.ends_with(chunk.section()) {
            return fail(format!(
                "embedded text {:?}, expected {expected:?}",
                chunk.text
            ));
        }
        // The heading section it lies in: from the last heading at or
        // before its start, to the next heading.
        let governing = headings
            .iter()
            .rev()
            .find(|heading| heading.span.start <= range.start);
        if let Some(inside) = headings
            .iter()
            .find(|heading| heading.span.start > range.start && heading.span.start < range.end)
        {
            return fail(format!("holds the heading at {:?}", inside.span));
        }
        match (governing, &chunk.heading) {
            (None, None) if chunk.heading_path.is_empty() => {}
            (Some(heading), Some(text)) if *text == heading.text => {
                // The path ends with this heading: its level's markers, a
                // space and its text, alone or after " > ".
                let markers = chunk
                    .heading_path
                    .strip_suffix(text.as_str())
                    .and_then(|rest| rest.strip_suffix(' '));
                let Some(markers) = markers else {
                    return fail(format!(
                        "heading {text:?} is not the end of the path {:?}",
                        chunk.heading_path
                    ));
                };
                let before = markers.trim_end_matches('#');
                let level = markers.len() - before.len();
                if level != usize::from(heading.level)
                    || !(before.is_empty() || before.ends_with(" > "))
                {
                    return fail(format!(
                        "path {:?} does not end with the level-{} heading {text:?}",
                        chunk.heading_path, heading.level
                    ));
                }
            }
            _ => {
                return fail(format!(
                    "heading {:?} and path {:?}, under the heading {:?}",
                    chunk.heading,
                    chunk.heading_path,
                    governing.map(|heading| &heading.text)
                ));
            }
        }
        covered = range.end;
    }
    if !text[covered..].trim().is_empty() {
        return Err(format!(
            "text left out after the last chunk is not blank: {:?}",
            &text[covered..]
        ));
    }
    // Every heading starts a chunk (a heading line is never blank).
    for heading in &headings {
        if !chunks
            .iter()
            .any(|chunk| chunk.span.start == heading.span.start)
        {
            return Err(format!("no chunk starts at the heading {:?}", heading.span));
        }
    }
    Ok(chunks)
}

/// A deterministic finite float for component `component` of chunk
/// `chunk` of note `note`: any bit pattern but infinities and NaNs (which
/// become -0.0), so that subnormals and signed zeros are written and read.
pub fn component(note: usize, chunk: usize, component: usize) -> f32 {
    let seed = (note as u32)
        .wrapping_mul(0x9e37_79b9)
        .wrapping_add((chunk as u32).wrapping_mul(0x85eb_ca6b))
        .wrapping_add((component as u32).wrapping_mul(0xc2b2_ae35));
    let value = f32::from_bits(seed ^ (seed >> 15));
    if value.is_finite() { value } else { -0.0 }
}

/// An index of the embedder `embedder_id` with vectors of `dimension`
/// floats, holding `notes` (path, text) chunked with `max_chars`, each
/// upserted in turn (a path given twice replaces its first version, leaving
/// dead chunks behind).
pub fn build_index(
    embedder_id: &str,
    dimension: usize,
    max_chars: usize,
    notes: &[(String, String)],
) -> SemanticIndex {
    let mut index = SemanticIndex::new(embedder_id, dimension);
    for (note, (path, text)) in notes.iter().enumerate() {
        let chunks = chunk_note(path, text, &ChunkOptions { max_chars });
        let vectors = (0..chunks.len())
            .map(|chunk| {
                (0..dimension)
                    .map(|at| component(note, chunk, at))
                    .collect()
            })
            .collect();
        index
            .upsert_note(path, content_sha(text), chunks, vectors)
            .expect("finite vectors of the index's dimension, one per chunk");
    }
    index
}

/// One way to damage an index file's body.
#[derive(Clone, Debug)]
pub enum Damage {
    /// XOR the byte at this offset (modulo the body's length) with a mask.
    Flip { at: usize, mask: u8 },
    /// Write a little-endian u32 at this offset (a count or a length that
    /// lies).
    Word { at: usize, value: u32 },
    /// Cut the body at this offset.
    Truncate { at: usize },
}

/// `file` (an index file: body, then the body's SHA-256) with its body
/// damaged as `damages` say, in order, and the digest recomputed.
pub fn damage(file: &[u8], damages: &[Damage]) -> Vec<u8> {
    let mut body = file[..file.len().saturating_sub(DIGEST_BYTES)].to_vec();
    for damage in damages {
        if body.is_empty() {
            break;
        }
        match *damage {
            Damage::Flip { at, mask } => {
                let at = at % body.len();
                body[at] ^= mask;
            }
            Damage::Word { at, value } => {
                let at = at % body.len();
                for (offset, byte) in value.to_le_bytes().into_iter().enumerate() {
                    if let Some(slot) = body.get_mut(at + offset) {
                        *slot = byte;
                    }
                }
            }
            Damage::Truncate { at } => body.truncate(at % body.len()),
        }
    }
    with_digest(&body)
}

/// `body` followed by its SHA-256, as an index file ends.
pub fn with_digest(body: &[u8]) -> Vec<u8> {
    let mut file = body.to_vec();
    file.extend_from_slice(&Sha256::digest(body));
    file
}

/// `from_bytes` on any bytes holds every invariant in the module
/// documentation; returns the index read, if any.
pub fn check_decode(bytes: &[u8]) -> Result<Option<SemanticIndex>, String> {
    let index = match SemanticIndex::from_bytes(bytes, FILE) {
        Ok(index) => index,
        Err(SemanticError::Corrupt { file, reason }) => {
            let message = SemanticError::Corrupt {
                file: file.clone(),
                reason: reason.clone(),
            }
            .to_string();
            if file != FILE || !message.contains(FILE) || reason.is_empty() {
                return Err(format!("the error does not name the file: {message}"));
            }
            return Ok(None);
        }
        Err(other) => return Err(format!("an error other than Corrupt: {other:?}")),
    };
    let again = index.to_bytes();
    if again != bytes {
        let at = again
            .iter()
            .zip(bytes)
            .position(|(a, b)| a != b)
            .unwrap_or(again.len().min(bytes.len()));
        return Err(format!(
            "read back, the index writes other bytes ({} for {}, first difference at {at})",
            again.len(),
            bytes.len()
        ));
    }
    check_consistent(&index)?;
    Ok(Some(index))
}

/// The index answers every question about itself without panicking, and
/// its counts agree.
pub fn check_consistent(index: &SemanticIndex) -> Result<(), String> {
    let paths: Vec<&str> = index.paths().collect();
    if paths.len() != index.note_count() {
        return Err(format!(
            "{} paths for {} notes",
            paths.len(),
            index.note_count()
        ));
    }
    let mut chunks = 0;
    for path in &paths {
        if index.note_sha(path).is_none() {
            return Err(format!("{path:?} listed but has no digest"));
        }
        for chunk in index.note_chunks(path) {
            // A chunk read from a file promises only that its section
            // starts on a char boundary of its text.
            if !chunk.text.ends_with(chunk.section()) {
                return Err(format!("{path:?}: section() is not the end of the text"));
            }
        }
        chunks += index.note_chunks(path).len();
    }
    if chunks != index.chunk_count() {
        return Err(format!(
            "{chunks} chunks in the notes, chunk_count {}",
            index.chunk_count()
        ));
    }
    // A query as long as the vectors, unless that would be a big
    // allocation of the checker's own (the file can name any dimension
    // when it holds no vectors).
    if index.dimension() <= 4096 {
        let query = vec![0.25; index.dimension()];
        let hits = index
            .search(&query, 3, |_| true)
            .map_err(|error| format!("search failed: {error}"))?;
        if hits.len() > 3 || hits.iter().any(|hit| !paths.contains(&hit.path.as_str())) {
            return Err(format!("search found other notes: {hits:?}"));
        }
        let wrong = vec![0.0; index.dimension() + 1];
        if index.search(&wrong, 3, |_| true).is_ok() {
            return Err("a query of the wrong dimension was answered".into());
        }
    }
    Ok(())
}

/// Every note of `original` is in `read` as it was: the same embedder,
/// dimension, paths, digests and chunks.
pub fn check_same(original: &SemanticIndex, read: &SemanticIndex) -> Result<(), String> {
    if original.embedder_id() != read.embedder_id() || original.dimension() != read.dimension() {
        return Err("the embedder or dimension changed".into());
    }
    let mut paths: Vec<&str> = original.paths().collect();
    paths.sort_unstable();
    let mut other: Vec<&str> = read.paths().collect();
    other.sort_unstable();
    if paths != other {
        return Err(format!("paths {paths:?} read back as {other:?}"));
    }
    for path in paths {
        if original.note_sha(path) != read.note_sha(path)
            || original.note_chunks(path) != read.note_chunks(path)
        {
            return Err(format!("{path:?} read back changed"));
        }
    }
    Ok(())
}
