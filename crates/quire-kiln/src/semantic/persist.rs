//! The semantic index on disk: one flat file, `.quire/semantic-<id>.idx`
//! beneath the vault root, written and read only through the confined file
//! layer ([`Workspace`]).
//!
//! Why a flat file rather than SQLite: `rusqlite` opens a database by path
//! (and opens its journal beside it), outside [`Workspace`], which is the
//! one way quire touches files beneath a root (no link out of the root
//! followed, atomic replacement, no half-written file); the index has one
//! writer (the server, or `quire index`); and the whole index is loaded
//! into memory anyway, since every query scans every vector. So the file
//! is written whole, atomically ([`quire_fs::Located::replace`]), and read
//! whole; a reader sees the old index or the new one.
//!
//! Format, little-endian throughout:
//!
//! ```text
//! file    = magic "quire-semantic\n\0" , version u32 (1) ,
//!           embedder-id str , dimension u32 , note-count u32 , note* ,
//!           sha256 of every byte before it (32 bytes)
//! note    = path str , content-sha [32] , chunk-count u32 , chunk* ,
//!           chunk-count * dimension f32
//! chunk   = span-start u64 , span-end u64 , heading-path str ,
//!           has-heading u8 , (heading str)? , text str , section-start u32
//! str     = byte-length u32 , UTF-8 bytes
//! ```
//!
//! The file is decoded as it is read, never held whole: its size (from
//! `stat`) bounds every length before anything is allocated, a record that
//! does not fit ends the read at once (a sparse gigabyte behind a good
//! header costs one small read, not a gigabyte of memory), and the trailing
//! digest, computed along the way, must match before the index is
//! believed. So no file, however made, panics the reader or makes it
//! allocate more than a small multiple of the file's size (a chunk takes
//! at least 29 bytes on disk and about 96 in memory; the fuzz target
//! `semantic_index_decode` checks 16 bytes per file byte).

use std::io::{BufReader, Read};

use sha2::{Digest, Sha256};

use super::chunk::Chunk;
use super::error::SemanticError;
use super::store::{ContentSha, SemanticIndex};
use quire_fs::{FsError, Workspace};
use quire_grammar::span::Span;

/// The folder, beneath the vault root, that holds quire's own files. Its
/// name starts with `.`, so the kiln never walks it as notes.
pub const INDEX_FOLDER: &str = ".quire";

/// The largest index file read (4 GiB): about 2.7 million chunks of 384
/// floats.
pub(super) const MAX_INDEX_BYTES: u64 = 4 * 1024 * 1024 * 1024;

const MAGIC: &[u8; 16] = b"quire-semantic\n\0";
const VERSION: u32 = 1;
const DIGEST_BYTES: usize = 32;

/// The name of the index file of the embedder `embedder_id` in
/// [`INDEX_FOLDER`]: `semantic-<slug>.idx`, the slug being the id in lower
/// case with every run of other characters than `a-z0-9` made one `-`
/// (at most 80 characters). Two ids with one slug share the file; the id
/// stored in it tells them apart.
///
/// ```
/// assert_eq!(
///     quire_kiln::index_file_name("minilm:all-MiniLM-L6-v2:mean:256"),
///     "semantic-minilm-all-minilm-l6-v2-mean-256.idx"
/// );
/// ```
pub fn index_file_name(embedder_id: &str) -> String {
    let mut slug = String::new();
    for c in embedder_id.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            slug.push(c);
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    slug.truncate(80);
    let slug = slug.trim_end_matches('-');
    let slug = if slug.is_empty() { "index" } else { slug };
    format!("semantic-{slug}.idx")
}

impl SemanticIndex {
    /// The index as the bytes of its file (see the module documentation).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 + self.vectors.len() * 4 + self.chunks.len() * 64);
        out.extend_from_slice(MAGIC);
        put_u32(&mut out, VERSION);
        put_str(&mut out, &self.embedder_id);
        put_u32(&mut out, self.dimension as u32);
        put_u32(&mut out, self.note_count() as u32);
        let dimension = self.dimension;
        for slot in self.notes.iter().flatten() {
            put_str(&mut out, &slot.path);
            out.extend_from_slice(&slot.sha);
            put_u32(&mut out, slot.count as u32);
            let range = slot.first..slot.first + slot.count;
            for chunk in &self.chunks[range.clone()] {
                put_u64(&mut out, chunk.span.start as u64);
                put_u64(&mut out, chunk.span.end as u64);
                put_str(&mut out, &chunk.heading_path);
                match &chunk.heading {
                    Some(heading) => {
                        out.push(1);
                        put_str(&mut out, heading);
                    }
                    None => out.push(0),
                }
                put_str(&mut out, &chunk.text);
                put_u32(&mut out, chunk.section_start as u32);
            }
            for value in &self.vectors[range.start * dimension..range.end * dimension] {
                out.extend_from_slice(&value.to_le_bytes());
            }
        }
        let digest = Sha256::digest(&out);
        out.extend_from_slice(&digest);
        out
    }

    /// An index read back from [`SemanticIndex::to_bytes`]; `file` names it
    /// in errors. Anything else, truncated or damaged bytes included, is a
    /// [`SemanticError::Corrupt`], never a panic.
    pub fn from_bytes(bytes: &[u8], file: &str) -> Result<SemanticIndex, SemanticError> {
        decode(bytes, bytes.len() as u64, file)
    }

    /// Writes the index to [`INDEX_FOLDER`]`/`[`index_file_name`] beneath
    /// the workspace root, atomically: the folder is made if missing, and a
    /// reader sees the old file or the new one, never a part.
    pub fn save(&self, workspace: &Workspace) -> Result<(), SemanticError> {
        save_index_bytes(workspace, &self.embedder_id, &self.to_bytes())
    }

    /// The index of the embedder `embedder_id` (vectors of `dimension`
    /// floats) saved beneath the workspace root, or a new empty one when
    /// there is none yet. A file from another embedder or dimension is
    /// [`SemanticError::OtherEmbedder`]; a damaged one
    /// [`SemanticError::Corrupt`]: both mean "rebuild", which
    /// [`SemanticIndex::load_or_new`] does.
    pub fn load(
        workspace: &Workspace,
        embedder_id: &str,
        dimension: usize,
    ) -> Result<SemanticIndex, SemanticError> {
        let path = format!("{INDEX_FOLDER}/{}", index_file_name(embedder_id));
        let file = match workspace.locate(&path).and_then(|file| file.open()) {
            Ok(file) => file,
            Err(FsError::NotFound { .. }) => return Ok(SemanticIndex::new(embedder_id, dimension)),
            Err(error) => return Err(error.into()),
        };
        let size = file.stat().size;
        let stream = BufReader::with_capacity(256 * 1024, file.reader(MAX_INDEX_BYTES)?);
        let index = decode(stream, size, &path)?;
        if index.embedder_id != embedder_id || index.dimension != dimension {
            return Err(SemanticError::OtherEmbedder {
                file: path,
                found_id: index.embedder_id,
                found_dimension: index.dimension,
                wanted_id: embedder_id.to_owned(),
                wanted_dimension: dimension,
            });
        }
        Ok(index)
    }

    /// [`SemanticIndex::load`], with an empty index in place of one that
    /// cannot be used, and the reason it could not (to report): the notes
    /// are then embedded again.
    pub fn load_or_new(
        workspace: &Workspace,
        embedder_id: &str,
        dimension: usize,
    ) -> (SemanticIndex, Option<SemanticError>) {
        match SemanticIndex::load(workspace, embedder_id, dimension) {
            Ok(index) => (index, None),
            Err(error) => (SemanticIndex::new(embedder_id, dimension), Some(error)),
        }
    }
}

/// Writes `bytes` (an index of the embedder `embedder_id`, from
/// [`SemanticIndex::to_bytes`]) as its file in `.quire/`, replacing the
/// file atomically, so that a reader never sees half of one.
pub(super) fn save_index_bytes(
    workspace: &Workspace,
    embedder_id: &str,
    bytes: &[u8],
) -> Result<(), SemanticError> {
    let folder = workspace.make_folders(INDEX_FOLDER)?;
    let name = index_file_name(embedder_id);
    // Another writer may create the file between the look and the write:
    // then replace it.
    for _ in 0..2 {
        let file = folder.open_child(name.as_str())?;
        if file.exists() {
            let original = file.open()?;
            file.replace(&original, bytes)?;
            return Ok(());
        }
        match file.create(bytes, 0o644) {
            Err(FsError::AlreadyExists { .. }) => continue,
            done => return done.map_err(SemanticError::from),
        }
    }
    Err(SemanticError::Fs(FsError::Changed {
        path: format!("{INDEX_FOLDER}/{name}"),
    }))
}

fn put_u32(out: &mut Vec<u8>, value: u32) {
    out.extend_from_slice(&value.to_le_bytes());
}

fn put_u64(out: &mut Vec<u8>, value: u64) {
    out.extend_from_slice(&value.to_le_bytes());
}

fn put_str(out: &mut Vec<u8>, text: &str) {
    put_u32(out, text.len() as u32);
    out.extend_from_slice(text.as_bytes());
}

/// The index in the `size` bytes `stream` gives (see the module doc);
/// `file` names it in errors.
fn decode(stream: impl Read, size: u64, file: &str) -> Result<SemanticIndex, SemanticError> {
    let corrupt = |reason: &str| SemanticError::Corrupt {
        file: file.to_owned(),
        reason: reason.to_owned(),
    };
    let header = (MAGIC.len() + 4) as u64;
    if size < header + DIGEST_BYTES as u64 {
        return Err(corrupt("not a quire semantic index"));
    }
    let mut reader = Reader {
        stream,
        hasher: Sha256::new(),
        left: size - DIGEST_BYTES as u64,
    };
    if reader.take(MAGIC.len()).as_deref() != Some(MAGIC.as_slice()) {
        return Err(corrupt("not a quire semantic index"));
    }
    let version = reader.u32().ok_or_else(|| corrupt("truncated"))?;
    if version != VERSION {
        return Err(corrupt(&format!(
            "format version {version}, this quire reads version {VERSION}"
        )));
    }
    let index = decode_body(&mut reader);
    let malformed = || corrupt("truncated, damaged or malformed: its records do not fit its size");
    if reader.left != 0 {
        return Err(malformed());
    }
    let mut digest = [0u8; DIGEST_BYTES];
    reader
        .stream
        .read_exact(&mut digest)
        .map_err(|_| malformed())?;
    if reader.hasher.finalize().as_slice() != digest {
        return Err(corrupt("truncated or damaged: its checksum does not match"));
    }
    index.ok_or_else(|| corrupt("malformed records"))
}

/// The records after the header; `None` at the first thing out of place.
fn decode_body(reader: &mut Reader<impl Read>) -> Option<SemanticIndex> {
    let embedder_id = reader.string()?;
    let dimension = reader.u32()? as usize;
    let mut index = SemanticIndex::new(&embedder_id, dimension);
    let notes = reader.u32()?;
    for _ in 0..notes {
        let path = reader.string()?;
        let sha: ContentSha = reader.take(32)?.try_into().ok()?;
        let count = reader.u32()? as usize;
        // Every chunk takes at least 29 bytes: refuse a count the file
        // cannot hold before reserving room for it.
        if count as u64 > reader.left / 29 {
            return None;
        }
        let mut chunks = Vec::with_capacity(count);
        for _ in 0..count {
            chunks.push(decode_chunk(reader)?);
        }
        let floats = count.checked_mul(dimension)?;
        let raw = reader.take(floats.checked_mul(4)?)?;
        let mut vectors = Vec::with_capacity(count);
        for vector in raw.chunks_exact(4 * dimension.max(1)).take(count) {
            let values: Vec<f32> = vector
                .chunks_exact(4)
                .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect();
            vectors.push(values);
        }
        if dimension == 0 {
            vectors = vec![Vec::new(); count];
        }
        if index.note_sha(&path).is_some() {
            return None;
        }
        index.upsert_note(&path, sha, chunks, vectors).ok()?;
    }
    (reader.left == 0).then_some(index)
}

fn decode_chunk(reader: &mut Reader<impl Read>) -> Option<Chunk> {
    let start = usize::try_from(reader.u64()?).ok()?;
    let end = usize::try_from(reader.u64()?).ok()?;
    let heading_path = reader.string()?;
    let heading = match reader.take(1)?[0] {
        0 => None,
        1 => Some(reader.string()?),
        _ => return None,
    };
    let text = reader.string()?;
    let section_start = reader.u32()? as usize;
    let valid = start <= end && text.is_char_boundary(section_start);
    valid.then_some(Chunk {
        span: Span::new(start, end),
        heading_path,
        heading,
        text,
        section_start,
    })
}

/// Bytes read front to back from a stream, every read checked against
/// what is left of the records (`left`) before anything is allocated, and
/// added to the digest.
struct Reader<R> {
    stream: R,
    hasher: Sha256,
    /// Bytes of the file before its digest not read yet.
    left: u64,
}

impl<R: Read> Reader<R> {
    fn take(&mut self, count: usize) -> Option<Vec<u8>> {
        if count as u64 > self.left {
            return None;
        }
        let mut taken = vec![0; count];
        self.stream.read_exact(&mut taken).ok()?;
        self.hasher.update(&taken);
        self.left -= count as u64;
        Some(taken)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn string(&mut self) -> Option<String> {
        let length = self.u32()? as usize;
        String::from_utf8(self.take(length)?).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::super::chunk::{ChunkOptions, chunk_note};
    use super::super::hashing_embedder::HashingEmbedder;
    use super::super::store::content_sha;
    use super::*;
    use quire_embed::Embedder;

    fn sample() -> SemanticIndex {
        let embedder = HashingEmbedder::new();
        let mut index = SemanticIndex::new(embedder.id(), embedder.dimension());
        for (path, text) in [
            (
                "a.md",
                "---\ntitle: Alpha\n---\n# One\nfirst words\n## Two\nsecond é words\n",
            ),
            ("b/c.md", "no heading at all, just text"),
            ("empty.md", ""),
        ] {
            let chunks = chunk_note(path, text, &ChunkOptions::default());
            let texts: Vec<&str> = chunks.iter().map(|c| c.text.as_str()).collect();
            let vectors = embedder.embed(&texts).unwrap();
            index
                .upsert_note(path, content_sha(text), chunks, vectors)
                .unwrap();
        }
        index.remove_note("b/c.md");
        let chunks = chunk_note("b/c.md", "changed", &ChunkOptions::default());
        let vectors = embedder.embed(&["changed"]).unwrap();
        index
            .upsert_note("b/c.md", content_sha("changed"), chunks, vectors)
            .unwrap();
        index
    }

    fn same(a: &SemanticIndex, b: &SemanticIndex) {
        assert_eq!(a.embedder_id(), b.embedder_id());
        assert_eq!(a.dimension(), b.dimension());
        let mut paths: Vec<_> = a.paths().collect();
        paths.sort();
        let mut other: Vec<_> = b.paths().collect();
        other.sort();
        assert_eq!(paths, other);
        for path in paths {
            assert_eq!(a.note_sha(path), b.note_sha(path));
            assert_eq!(a.note_chunks(path), b.note_chunks(path));
        }
        let query = vec![0.5; a.dimension()];
        assert_eq!(
            a.search(&query, 5, |_| true).unwrap(),
            b.search(&query, 5, |_| true).unwrap()
        );
    }

    #[test]
    fn bytes_round_trip() {
        let index = sample();
        let bytes = index.to_bytes();
        same(&index, &SemanticIndex::from_bytes(&bytes, "x.idx").unwrap());
        let empty = SemanticIndex::new("e", 3);
        same(
            &empty,
            &SemanticIndex::from_bytes(&empty.to_bytes(), "x.idx").unwrap(),
        );
    }

    #[test]
    fn every_truncation_and_bit_flip_is_a_typed_error() {
        let bytes = sample().to_bytes();
        for length in 0..bytes.len() {
            let error = SemanticIndex::from_bytes(&bytes[..length], "x.idx").unwrap_err();
            assert!(
                matches!(error, SemanticError::Corrupt { .. }),
                "{length}: {error}"
            );
        }
        let mut rng = fastrand::Rng::with_seed(12);
        for _ in 0..2_000 {
            let mut damaged = bytes.clone();
            let at = rng.usize(..damaged.len());
            damaged[at] ^= 1 << rng.u8(..8);
            let error = SemanticIndex::from_bytes(&damaged, "x.idx").unwrap_err();
            assert!(error.to_string().contains("x.idx"), "{error}");
        }
        for _ in 0..200 {
            let garbage: Vec<u8> = (0..rng.usize(..4096)).map(|_| rng.u8(..)).collect();
            assert!(SemanticIndex::from_bytes(&garbage, "x.idx").is_err());
        }
    }

    #[test]
    fn well_checksummed_nonsense_is_refused_without_panicking() {
        // Valid magic, version and checksum around records that lie: huge
        // counts and lengths, bad UTF-8, a bad heading flag.
        let mut rng = fastrand::Rng::with_seed(7);
        let genuine = sample().to_bytes();
        let records = &genuine[20..genuine.len() - DIGEST_BYTES];
        for round in 0..3_000 {
            let mut body = records.to_vec();
            if round % 3 == 0 {
                body.truncate(rng.usize(..body.len()));
            }
            for _ in 0..rng.usize(1..4) {
                let at = rng.usize(..body.len().max(1));
                if let Some(byte) = body.get_mut(at) {
                    *byte = rng.u8(..);
                }
            }
            let mut bytes = MAGIC.to_vec();
            put_u32(&mut bytes, VERSION);
            bytes.extend_from_slice(&body);
            let digest = Sha256::digest(&bytes);
            bytes.extend_from_slice(&digest);
            // Either read (a flip that still makes sense) or refused.
            let _ = SemanticIndex::from_bytes(&bytes, "x.idx");
        }
        let mut huge = MAGIC.to_vec();
        put_u32(&mut huge, VERSION);
        put_str(&mut huge, "e");
        put_u32(&mut huge, u32::MAX);
        put_u32(&mut huge, u32::MAX);
        put_str(&mut huge, "p.md");
        huge.extend_from_slice(&[0; 32]);
        put_u32(&mut huge, u32::MAX);
        let digest = Sha256::digest(&huge);
        huge.extend_from_slice(&digest);
        assert!(SemanticIndex::from_bytes(&huge, "x.idx").is_err());
    }

    #[test]
    fn another_version_is_named() {
        let mut bytes = sample().to_bytes();
        bytes[16] = 9;
        let error = SemanticIndex::from_bytes(&bytes, "x.idx").unwrap_err();
        assert!(error.to_string().contains("version 9"), "{error}");
    }

    #[test]
    fn file_names_are_slugs() {
        assert_eq!(
            index_file_name("static:m2v/256"),
            "semantic-static-m2v-256.idx"
        );
        assert_eq!(index_file_name("../../etc"), "semantic-etc.idx");
        assert_eq!(index_file_name("日本"), "semantic-index.idx");
        assert!(index_file_name(&"x".repeat(500)).len() < 100);
    }
}
