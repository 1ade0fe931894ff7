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
//! Format (version 2), little-endian throughout:
//!
//! ```text
//! file    = magic "quire-semantic\n\0" , version u32 (2) ,
//!           embedder-id str , dimension u32 , note-count u32 ,
//!           chunk-count u32 (of all notes) , note* ,
//!           sha256 of every byte before it (32 bytes)
//! note    = path str , content-sha [32] , title str , chunk-count varint ,
//!           chunk* , chunk-count * scale f32 ,
//!           chunk-count * dimension code i8
//! chunk   = flags u8 , span-start varint , span-length varint ,
//!           heading-path str , (heading str)? ,
//!           ( section str | text str , section-start varint )
//! str     = byte-length varint , UTF-8 bytes
//! varint  = LEB128: 7 bits a byte, low first, at most 10 bytes, no
//!           needless last 0 byte
//! ```
//!
//! A vector is its codes times its scale (`store.rs`: one byte a
//! component). Measured with the static embedder on
//! `tests/fixtures/semantic_eval` (`tests/semantic_eval_static.rs`),
//! against `f32`: on the held-out test split, recall@5 0.600 and MRR@10
//! 0.483 both ways (hybrid 0.767 / 0.672 both ways); on the dev split,
//! recall@5 0.637 both ways, MRR@10 0.462 to 0.460 (hybrid 0.625 to 0.623).
//! So the byte is taken, a quarter of the floats; `f16`, twice its size,
//! was not needed (and alone would leave a chunk over 1,000 bytes).
//!
//! A chunk's text is what `chunk_note` makes: the note's title, its heading
//! path and a blank line before the section. Stored whole, that repeats the
//! title and the heading path in every chunk; so when a chunk's text is
//! exactly that (flag `COMPOSED`), only the section is stored and the text
//! is made again from the note's `title` (the first line of its first
//! chunk) and the heading path; the heading, when it is the last part of
//! the heading path, is not stored either (flag `HEADING_FROM_PATH`). A
//! chunk made another way is stored whole. Each choice is checked on
//! reading, so an index has one encoding: the bytes an index is read from
//! are the bytes it writes. The text is not left out and read from the
//! note instead: the note may have changed since, and BM25 must have every
//! chunk's text when the index loads. With these, a chunk of the Obsidian
//! help vault takes 970 bytes on disk, where it took 2,220.
//!
//! Composing never makes a text more than twice its stored section (a
//! prefix longer than the section is stored whole), so the memory a file
//! asks for stays proportional to it.
//!
//! The file is decoded as it is read, never held whole: its size (from
//! `stat`) bounds every length before anything is allocated, a record that
//! does not fit ends the read at once (a sparse gigabyte behind a good
//! header costs one small read, not a gigabyte of memory), and the trailing
//! digest, computed along the way, must match before the index is
//! believed. The chunk count of the header, checked against the bytes left
//! ([`MIN_CHUNK_BYTES`] plus the vector each), sizes the index's buffers
//! once, so the chunks go straight into them. So no file, however made,
//! panics the reader or makes it allocate more than a small multiple of
//! the file's size (a chunk takes at least 10 bytes on disk and about 115
//! in memory, and its strings at most three times their stored bytes; the
//! fuzz target `semantic_index_decode` checks 16 bytes per file byte).
//!
//! A file of another format version (version 1 stored `f32` vectors and
//! whole texts) is refused as [`SemanticError::Corrupt`] naming both
//! versions, and so rebuilt by [`SemanticIndex::load_or_new`]'s callers,
//! never misread.

use std::io::{BufReader, Read};

use sha2::{Digest, Sha256};

use super::chunk::Chunk;
use super::error::SemanticError;
use super::store::{ContentSha, NoteSlot, SemanticIndex};
use quire_fs::{FsError, Workspace};
use quire_grammar::span::Span;

/// The folder, beneath the vault root, that holds quire's own files. Its
/// name starts with `.`, so the kiln never walks it as notes.
pub const INDEX_FOLDER: &str = ".quire";

/// The largest index file read (4 GiB): about 2.7 million chunks of 384
/// floats.
pub(super) const MAX_INDEX_BYTES: u64 = 4 * 1024 * 1024 * 1024;

const MAGIC: &[u8; 16] = b"quire-semantic\n\0";
const VERSION: u32 = 2;
const DIGEST_BYTES: usize = 32;

/// The fewest bytes a chunk's record takes, its vector aside: flags, span
/// start and length, an empty heading path, and a text (a composed section
/// holds at least two bytes, a whole text its length and section start).
const MIN_CHUNK_BYTES: u64 = 6;

/// The fewest bytes a note's record takes: an empty path, its digest, an
/// empty title, a chunk count.
const MIN_NOTE_BYTES: u64 = 35;

/// The chunk has a heading.
const HEADING: u8 = 1;
/// Its heading is the last part of its heading path, not stored.
const HEADING_FROM_PATH: u8 = 2;
/// Its text is the note's title, its heading path and its section, and
/// only the section is stored.
const COMPOSED: u8 = 4;
const ALL_FLAGS: u8 = HEADING | HEADING_FROM_PATH | COMPOSED;

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

/// The heading a heading path ends with: the text of its last part
/// (`# A > ## B` ends with `B`), `None` when the path is empty or its last
/// part is not `#` markers, a space and a text.
fn heading_of_path(heading_path: &str) -> Option<&str> {
    let last = heading_path
        .rsplit_once(" > ")
        .map_or(heading_path, |(_, last)| last);
    let text = last.trim_start_matches('#');
    if text.len() == last.len() {
        return None;
    }
    text.strip_prefix(' ')
}

/// What a composed chunk's text starts with: the note's title, the
/// heading path when there is one, and a blank line (as `chunk_note`).
fn text_prefix(title: &str, heading_path: &str) -> String {
    let mut prefix = String::with_capacity(title.len() + heading_path.len() + 3);
    prefix.push_str(title);
    prefix.push('\n');
    if !heading_path.is_empty() {
        prefix.push_str(heading_path);
        prefix.push('\n');
    }
    prefix.push('\n');
    prefix
}

/// Whether `text`, with its section at `section_start`, is stored as its
/// section alone under `title`: it is the prefix then the section, and the
/// prefix is no longer than the section (so that reading never makes a text
/// more than twice what the file holds).
fn is_composed(title: &str, heading_path: &str, text: &str, section_start: usize) -> bool {
    let prefix_length =
        title.len() + heading_path.len() + 2 + usize::from(!heading_path.is_empty());
    section_start == prefix_length
        && text.len() - section_start.min(text.len()) >= prefix_length
        && text.as_bytes().get(..prefix_length) == Some(text_prefix(title, heading_path).as_bytes())
}

/// The title a note's chunks are composed with: its first chunk's text up
/// to the first line break (all of it without one), empty without chunks.
fn title_of(chunks: &[Chunk]) -> &str {
    chunks.first().map_or("", |chunk| {
        chunk
            .text
            .split_once('\n')
            .map_or(chunk.text.as_str(), |(title, _)| title)
    })
}

impl SemanticIndex {
    /// The index as the bytes of its file (see the module documentation).
    pub fn to_bytes(&self) -> Vec<u8> {
        let dimension = self.dimension;
        let chunk_count = self.chunk_count();
        let mut out = Vec::with_capacity(
            64 + chunk_count * (dimension + 4) + self.chunks.len() * 32 + self.notes.len() * 64,
        );
        out.extend_from_slice(MAGIC);
        put_u32(&mut out, VERSION);
        put_str(&mut out, &self.embedder_id);
        put_u32(&mut out, self.dimension as u32);
        put_u32(&mut out, self.note_count() as u32);
        put_u32(&mut out, chunk_count as u32);
        for slot in self.notes.iter().flatten() {
            put_str(&mut out, &slot.path);
            out.extend_from_slice(&slot.sha);
            let range = slot.first..slot.first + slot.count;
            let chunks = &self.chunks[range.clone()];
            let title = title_of(chunks);
            put_str(&mut out, title);
            put_varint(&mut out, slot.count as u64);
            for chunk in chunks {
                let derived = chunk.heading.is_some()
                    && heading_of_path(&chunk.heading_path) == chunk.heading.as_deref();
                let composed =
                    is_composed(title, &chunk.heading_path, &chunk.text, chunk.section_start);
                let mut flags = 0;
                if chunk.heading.is_some() {
                    flags |= HEADING;
                }
                if derived {
                    flags |= HEADING_FROM_PATH;
                }
                if composed {
                    flags |= COMPOSED;
                }
                out.push(flags);
                put_varint(&mut out, chunk.span.start as u64);
                put_varint(&mut out, (chunk.span.end - chunk.span.start) as u64);
                put_str(&mut out, &chunk.heading_path);
                if let (Some(heading), false) = (&chunk.heading, derived) {
                    put_str(&mut out, heading);
                }
                if composed {
                    put_str(&mut out, &chunk.text[chunk.section_start..]);
                } else {
                    put_str(&mut out, &chunk.text);
                    put_varint(&mut out, chunk.section_start as u64);
                }
            }
            for scale in &self.scales[range.clone()] {
                out.extend_from_slice(&scale.to_le_bytes());
            }
            out.extend(
                self.codes[range.start * dimension..range.end * dimension]
                    .iter()
                    .map(|&code| code as u8),
            );
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

fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn put_str(out: &mut Vec<u8>, text: &str) {
    put_varint(out, text.len() as u64);
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
    let mut magic = [0; MAGIC.len()];
    if reader.fill(&mut magic).is_none() || &magic != MAGIC {
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
/// Notes and chunks go straight into the index's buffers, sized once from
/// the header's counts (each checked against the bytes left first).
fn decode_body(reader: &mut Reader<impl Read>) -> Option<SemanticIndex> {
    let embedder_id = reader.string()?;
    let dimension = reader.u32()? as usize;
    let mut index = SemanticIndex::new(&embedder_id, dimension);
    let notes = u64::from(reader.u32()?);
    let chunks = u64::from(reader.u32()?);
    let per_chunk = MIN_CHUNK_BYTES + 4 + dimension as u64;
    if notes > reader.left / MIN_NOTE_BYTES
        || chunks.checked_mul(per_chunk)? > reader.left.checked_sub(notes * MIN_NOTE_BYTES)?
    {
        return None;
    }
    let (notes, chunks) = (notes as usize, chunks as usize);
    index.notes.reserve_exact(notes);
    index.by_path.reserve(notes);
    index.chunks.reserve_exact(chunks);
    index.chunk_note.reserve_exact(chunks);
    index.scales.reserve_exact(chunks);
    index.codes.reserve_exact(chunks.checked_mul(dimension)?);
    let mut scratch = Vec::new();
    for slot in 0..notes {
        let path = reader.string()?;
        let mut sha: ContentSha = [0; 32];
        reader.fill(&mut sha)?;
        let title = reader.string()?;
        let count = usize::try_from(reader.varint()?).ok()?;
        let first = index.chunks.len();
        if count > chunks - first {
            return None;
        }
        for _ in 0..count {
            index.chunks.push(decode_chunk(reader, &title)?);
        }
        if title_of(&index.chunks[first..]) != title {
            return None;
        }
        scratch.resize(count * 4, 0);
        reader.fill(&mut scratch)?;
        for bytes in scratch.as_chunks::<4>().0 {
            let scale = f32::from_le_bytes(*bytes);
            if !scale.is_finite() {
                return None;
            }
            index.scales.push(scale);
        }
        scratch.resize(count * dimension, 0);
        reader.fill(&mut scratch)?;
        index.codes.extend(scratch.iter().map(|&byte| byte as i8));
        if index.by_path.insert(path.clone(), slot).is_some() {
            return None;
        }
        index.notes.push(Some(NoteSlot {
            path,
            sha,
            first,
            count,
        }));
        index
            .chunk_note
            .extend(std::iter::repeat_n(Some(slot as u32), count));
    }
    (index.chunks.len() == chunks && reader.left == 0).then_some(index)
}

/// One chunk's record, of a note titled `title`; `None` when it is not
/// what [`SemanticIndex::to_bytes`] writes.
fn decode_chunk(reader: &mut Reader<impl Read>, title: &str) -> Option<Chunk> {
    let flags = reader.u8()?;
    if flags & !ALL_FLAGS != 0 {
        return None;
    }
    let start = usize::try_from(reader.varint()?).ok()?;
    let end = start.checked_add(usize::try_from(reader.varint()?).ok()?)?;
    let heading_path = reader.string()?;
    let heading = match (flags & HEADING != 0, flags & HEADING_FROM_PATH != 0) {
        (false, false) => None,
        (false, true) => return None,
        (true, true) => Some(heading_of_path(&heading_path)?.to_owned()),
        (true, false) => {
            let heading = reader.string()?;
            // Stored whole only when the path does not give it.
            if heading_of_path(&heading_path) == Some(heading.as_str()) {
                return None;
            }
            Some(heading)
        }
    };
    let (text, section_start) = if flags & COMPOSED != 0 {
        let section = reader.string()?;
        let mut text = text_prefix(title, &heading_path);
        let section_start = text.len();
        text.push_str(&section);
        (text, section_start)
    } else {
        let text = reader.string()?;
        let section_start = usize::try_from(reader.varint()?).ok()?;
        (text, section_start)
    };
    let composed = is_composed(title, &heading_path, &text, section_start);
    let valid = text.is_char_boundary(section_start) && composed == (flags & COMPOSED != 0);
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
    /// Fills `buffer` from the stream, if that many bytes are left.
    fn fill(&mut self, buffer: &mut [u8]) -> Option<()> {
        if buffer.len() as u64 > self.left {
            return None;
        }
        self.stream.read_exact(buffer).ok()?;
        self.hasher.update(&*buffer);
        self.left -= buffer.len() as u64;
        Some(())
    }

    fn u8(&mut self) -> Option<u8> {
        let mut byte = [0; 1];
        self.fill(&mut byte)?;
        Some(byte[0])
    }

    fn u32(&mut self) -> Option<u32> {
        let mut bytes = [0; 4];
        self.fill(&mut bytes)?;
        Some(u32::from_le_bytes(bytes))
    }

    /// A LEB128 number: at most 10 bytes, the last not a needless 0 (so
    /// a number has one encoding), and no bit past 64.
    fn varint(&mut self) -> Option<u64> {
        let mut value = 0u64;
        for at in 0..10 {
            let byte = self.u8()?;
            let bits = u64::from(byte & 0x7f);
            if at == 9 && bits > 1 {
                return None;
            }
            value |= bits << (7 * at);
            if byte & 0x80 == 0 {
                return (at == 0 || byte != 0).then_some(value);
            }
        }
        None
    }

    fn string(&mut self) -> Option<String> {
        let length = self.varint()?;
        if length > self.left {
            return None;
        }
        let mut bytes = vec![0; length as usize];
        self.fill(&mut bytes)?;
        String::from_utf8(bytes).ok()
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

    /// A note as a vault holds them: a frontmatter title, nested headings,
    /// paragraphs of a few hundred characters.
    fn realistic_note(number: usize) -> String {
        let mut text = format!("---\ntitle: Meeting notes {number}\ntags: [work]\n---\n");
        for section in 0..4 {
            text.push_str(&format!("# Topic {section}\n"));
            for paragraph in 0..2 {
                text.push_str(&format!("## Detail {paragraph}\n"));
                for sentence in 0..5 {
                    text.push_str(&format!(
                        "Sentence {sentence} of paragraph {paragraph} says what was decided \
                         about the budget and who follows up. "
                    ));
                }
                text.push_str("\n\n");
            }
        }
        text
    }

    #[test]
    fn a_realistic_chunk_takes_at_most_1000_bytes_on_disk() {
        let mut index = SemanticIndex::new("minilm-like", 384);
        let mut rng = fastrand::Rng::with_seed(26);
        for number in 0..20 {
            let path = format!("meetings/{number}.md");
            let text = realistic_note(number);
            let chunks = chunk_note(&path, &text, &ChunkOptions::default());
            let vectors = (0..chunks.len())
                .map(|_| {
                    let mut vector: Vec<f32> = (0..384).map(|_| rng.f32() - 0.5).collect();
                    quire_embed::normalize(&mut vector);
                    vector
                })
                .collect();
            index
                .upsert_note(&path, content_sha(&text), chunks, vectors)
                .unwrap();
        }
        let texts: usize = index.chunks.iter().map(|chunk| chunk.section().len()).sum();
        let per_chunk = index.to_bytes().len() / index.chunk_count();
        let section = texts / index.chunk_count();
        // The vector (384 codes and a scale) and the section's own bytes,
        // with at most 40 bytes for the rest.
        assert!(
            per_chunk <= 388 + section + 40,
            "{per_chunk} for sections of {section}"
        );
        assert!(per_chunk <= 1_000, "{per_chunk}");
        same(
            &index,
            &SemanticIndex::from_bytes(&index.to_bytes(), "x.idx").unwrap(),
        );
    }

    /// `sample()` as its records (after the header, before the digest),
    /// for a test to rewrite.
    fn records() -> Vec<u8> {
        let bytes = sample().to_bytes();
        bytes[20..bytes.len() - DIGEST_BYTES].to_vec()
    }

    /// A file of `records` with a good header and digest.
    fn file_of(records: &[u8]) -> Vec<u8> {
        let mut bytes = MAGIC.to_vec();
        put_u32(&mut bytes, VERSION);
        bytes.extend_from_slice(records);
        let digest = Sha256::digest(&bytes);
        bytes.extend_from_slice(&digest);
        bytes
    }

    #[test]
    fn titles_and_headings_are_stored_once_and_checked() {
        let index = sample();
        let bytes = index.to_bytes();
        // "Alpha" is a.md's title, in both its chunks' texts: stored once.
        let alpha = bytes.windows(5).filter(|w| w == b"Alpha").count();
        assert_eq!(alpha, 1);
        assert_eq!(
            index.note_chunks("a.md")[0].text.matches("Alpha").count(),
            1
        );
        // Flipping a chunk's COMPOSED or HEADING_FROM_PATH flag, or making
        // its title another, gives an index that would write other bytes:
        // refused.
        let records = records();
        let mut refused = 0;
        for at in 0..records.len() {
            for flip in [HEADING_FROM_PATH, COMPOSED, 0x80] {
                let mut damaged = records.clone();
                damaged[at] ^= flip;
                let bytes = file_of(&damaged);
                match SemanticIndex::from_bytes(&bytes, "x.idx") {
                    Ok(read) => assert_eq!(read.to_bytes(), bytes, "flip {flip} at {at}"),
                    Err(_) => refused += 1,
                }
            }
        }
        assert!(refused > 0);
    }

    #[test]
    fn varints_have_one_encoding() {
        for value in [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            let mut bytes = Vec::new();
            put_varint(&mut bytes, value);
            let mut reader = Reader {
                stream: bytes.as_slice(),
                hasher: Sha256::new(),
                left: bytes.len() as u64,
            };
            assert_eq!(reader.varint(), Some(value));
            assert_eq!(reader.left, 0);
        }
        for overlong in [&[0x80, 0x00][..], &[0xff; 10], &[0x80; 11], &[0xff, 0x80]] {
            let mut reader = Reader {
                stream: overlong,
                hasher: Sha256::new(),
                left: overlong.len() as u64,
            };
            assert_eq!(reader.varint(), None, "{overlong:?}");
        }
    }

    #[test]
    fn a_version_1_file_is_refused_and_rebuilt() {
        // A genuine version-1 file: its header, an embedder id, dimension,
        // no notes, its digest.
        let mut old = MAGIC.to_vec();
        old.extend_from_slice(&1u32.to_le_bytes());
        old.extend_from_slice(&1u32.to_le_bytes());
        old.push(b'e');
        old.extend_from_slice(&3u32.to_le_bytes());
        old.extend_from_slice(&0u32.to_le_bytes());
        let digest = Sha256::digest(&old);
        old.extend_from_slice(&digest);
        let folder = tempfile::tempdir().unwrap();
        let workspace = Workspace::new(folder.path()).unwrap();
        save_index_bytes(&workspace, "e", &old).unwrap();
        let error = SemanticIndex::load(&workspace, "e", 3).unwrap_err();
        assert!(
            matches!(&error, SemanticError::Corrupt { reason, .. }
                if reason.contains("version 1") && reason.contains("version 2")),
            "{error}"
        );
        let (index, problem) = SemanticIndex::load_or_new(&workspace, "e", 3);
        assert!(problem.is_some());
        assert_eq!(index.note_count(), 0);
        // Saved again, it is read.
        sample().save(&workspace).unwrap();
        let embedder = HashingEmbedder::new();
        let read = SemanticIndex::load(&workspace, embedder.id(), embedder.dimension()).unwrap();
        same(&sample(), &read);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        #[test]
        fn any_notes_round_trip_exactly(
            notes in proptest::collection::vec(
                ("[a-c]{1,3}\\.md", "(---\ntitle: [A-Z ]{0,8}\n---\n)?(#{0,3} ?[a-zé >#]{0,12}\n\n?){0,8}"),
                0..6,
            ),
            dimension in 0usize..6,
            max_chars in 1usize..60,
        ) {
            let mut index = SemanticIndex::new("prop", dimension);
            for (number, (path, text)) in notes.iter().enumerate() {
                let chunks = chunk_note(path, text, &ChunkOptions { max_chars });
                let vectors = (0..chunks.len())
                    .map(|chunk| (0..dimension).map(|at| ((number * 7 + chunk * 3 + at) as f32).sin()).collect())
                    .collect();
                index.upsert_note(path, content_sha(text), chunks, vectors).unwrap();
            }
            let bytes = index.to_bytes();
            let read = SemanticIndex::from_bytes(&bytes, "x.idx").unwrap();
            proptest::prop_assert_eq!(read.to_bytes(), bytes);
            for path in index.paths() {
                proptest::prop_assert_eq!(index.note_chunks(path), read.note_chunks(path));
                for ordinal in 0..index.note_chunks(path).len() {
                    let (a, b) = (
                        index.chunk_index(path, ordinal).unwrap(),
                        read.chunk_index(path, ordinal).unwrap(),
                    );
                    proptest::prop_assert_eq!(index.scales[a], read.scales[b]);
                    proptest::prop_assert_eq!(
                        &index.codes[a * dimension..(a + 1) * dimension],
                        &read.codes[b * dimension..(b + 1) * dimension]
                    );
                }
            }
        }
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
