//! The semantic fuzz targets' invariants (`tests/support/semantic_index_model.rs`)
//! on their checked-in seeds (crashes found by fuzzing included), on
//! genuine index files cut at every byte, and on hand-made hostile index
//! files with a valid checksum: huge counts and lengths, bad UTF-8, NaN and
//! infinite vectors, dimension 0, lying spans and offsets, duplicate notes,
//! trailing bytes. So `cargo test` keeps what the fuzzers found fixed.

#[allow(unreachable_pub)]
#[path = "support/semantic_index_model.rs"]
mod semantic_index_model;

use std::fs;
use std::path::{Path, PathBuf};

use quire_kiln::SemanticIndex;
use semantic_index_model::{
    DIGEST_BYTES, Damage, HEADER, build_index, check_chunks, check_decode, check_same, damage,
    with_digest,
};

/// The files in `fuzz/seeds/<target>`, sorted (none when it does not exist).
fn seeds(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/seeds")
        .join(target);
    let Ok(entries) = fs::read_dir(&folder) else {
        return Vec::new();
    };
    let mut seeds: Vec<(PathBuf, Vec<u8>)> = entries
        .map(|entry| {
            let path = entry.unwrap().path();
            let bytes = fs::read(&path).unwrap();
            (path, bytes)
        })
        .collect();
    seeds.sort();
    seeds
}

#[test]
fn chunk_seeds_hold_the_invariants_at_every_size() {
    let seeds = seeds("semantic_chunk");
    assert!(seeds.len() >= 10, "only {} seeds", seeds.len());
    for (path, bytes) in seeds {
        let (&first, rest) = bytes.split_first().expect("a seed is not empty");
        let text = String::from_utf8_lossy(rest);
        for max_chars in [usize::from(first), 0, 1, 7, 40, 1_000] {
            if let Err(failure) = check_chunks("notes/seed.md", &text, max_chars) {
                panic!("{} at {max_chars}: {failure}", path.display());
            }
        }
    }
}

#[test]
fn the_chunk_checker_catches_what_it_should() {
    // The model is not vacuous: a seed with headings gives chunks under
    // them, and splitting happens at small sizes.
    let note = "---\ntitle: T\n---\nIntro.\n\n# A\none\n\ntwo\n\nthree\n## B\nfour\n";
    let whole = check_chunks("n.md", note, 1_000).unwrap();
    assert_eq!(whole.len(), 3);
    assert_eq!(whole[2].heading_path, "# A > ## B");
    let split = check_chunks("n.md", note, 5).unwrap();
    assert!(split.len() > whole.len(), "{split:#?}");
}

/// Notes that exercise every field of the format: frontmatter titles,
/// nested headings, multi-byte text, an empty note, a path given twice.
fn notes() -> Vec<(String, String)> {
    [
        (
            "a.md",
            "---\ntitle: Alpha\n---\n# One\nfirst words\n\n## Two é\nsecond 日本 words\n",
        ),
        (
            "b/c.md",
            "no heading at all, just text\n\nand a second paragraph",
        ),
        ("empty.md", ""),
        ("b/c.md", "# Changed\nnew text\n"),
    ]
    .into_iter()
    .map(|(path, text)| (path.to_owned(), text.to_owned()))
    .collect()
}

#[test]
fn genuine_indexes_round_trip_exactly_at_every_dimension() {
    for dimension in 0..5 {
        let index = build_index("toy:model", dimension, 20, &notes());
        let bytes = index.to_bytes();
        let read = check_decode(&bytes)
            .unwrap()
            .expect("a genuine index is read");
        check_same(&index, &read).unwrap();
        assert_eq!(read.chunk_count(), index.chunk_count());
        // a.md's two sections and b/c.md's second version.
        assert_eq!(index.chunk_count(), 3);
    }
    let empty = build_index("", 3, 20, &[]);
    let read = check_decode(&empty.to_bytes()).unwrap().unwrap();
    check_same(&empty, &read).unwrap();
}

#[test]
fn every_cut_of_a_genuine_index_is_refused() {
    let bytes = build_index("toy", 3, 20, &notes()).to_bytes();
    for length in 0..bytes.len() {
        // As found (the checksum catches it) and with the checksum made to
        // match (the records must).
        assert!(
            check_decode(&bytes[..length]).unwrap().is_none(),
            "{length}"
        );
        let body = &bytes[..bytes.len() - DIGEST_BYTES];
        if length < body.len() {
            assert!(
                check_decode(&with_digest(&body[..length]))
                    .unwrap()
                    .is_none(),
                "body cut at {length}"
            );
        }
    }
}

#[test]
fn every_byte_flip_with_a_matching_checksum_is_read_or_refused() {
    let bytes = build_index("toy", 2, 20, &notes()).to_bytes();
    let body_length = bytes.len() - DIGEST_BYTES;
    let mut read = 0;
    for at in 0..body_length {
        for mask in [0x01, 0x80, 0xff] {
            let damaged = damage(&bytes, &[Damage::Flip { at, mask }]);
            read += usize::from(check_decode(&damaged).unwrap().is_some());
        }
        for value in [0, 1, 28, 29, u32::MAX / 4, u32::MAX] {
            let damaged = damage(&bytes, &[Damage::Word { at, value }]);
            check_decode(&damaged).unwrap();
        }
    }
    // Some flips land in text or floats and still make an index: those are
    // read and write themselves back exactly (checked by check_decode).
    assert!(read > 0);
}

/// A hand-made index file (format 2): records after the header, then the
/// digest.
#[derive(Default)]
struct File {
    body: Vec<u8>,
}

impl File {
    fn new() -> Self {
        File {
            body: HEADER.to_vec(),
        }
    }
    /// The header's records: embedder id, dimension, note and chunk
    /// counts.
    fn head(self, id: &[u8], dimension: u32, notes: u32, chunks: u32) -> Self {
        self.str(id).u32(dimension).u32(notes).u32(chunks)
    }
    fn u8(mut self, value: u8) -> Self {
        self.body.push(value);
        self
    }
    fn u32(mut self, value: u32) -> Self {
        self.body.extend_from_slice(&value.to_le_bytes());
        self
    }
    fn varint(mut self, mut value: u64) -> Self {
        while value >= 0x80 {
            self.body.push(value as u8 | 0x80);
            value >>= 7;
        }
        self.body.push(value as u8);
        self
    }
    fn bytes(mut self, value: &[u8]) -> Self {
        self.body.extend_from_slice(value);
        self
    }
    fn str(self, value: &[u8]) -> Self {
        self.varint(value.len() as u64).bytes(value)
    }
    fn f32(self, value: f32) -> Self {
        self.bytes(&value.to_le_bytes())
    }
    /// A note header: path, digest, title (the first line of its first
    /// chunk's text), chunk count.
    fn note(self, path: &[u8], title: &[u8], chunks: u64) -> Self {
        self.str(path).bytes(&[7; 32]).str(title).varint(chunks)
    }
    /// A chunk record under no heading, its text stored whole.
    fn chunk(self, start: u64, end: u64, text: &[u8], section_start: u64) -> Self {
        self.u8(0)
            .varint(start)
            .varint(end.wrapping_sub(start))
            .str(b"")
            .str(text)
            .varint(section_start)
    }
    fn finish(self) -> Vec<u8> {
        with_digest(&self.body)
    }
}

/// `file` is refused (as `Corrupt`, naming the file), without a panic.
fn refused(name: &str, file: Vec<u8>) {
    match check_decode(&file) {
        Ok(None) => {}
        Ok(Some(_)) => panic!("{name}: read"),
        Err(failure) => panic!("{name}: {failure}"),
    }
}

/// `file` is read, and writes itself back exactly.
fn read(name: &str, file: Vec<u8>) -> SemanticIndex {
    match check_decode(&file) {
        Ok(Some(index)) => index,
        Ok(None) => panic!("{name}: refused"),
        Err(failure) => panic!("{name}: {failure}"),
    }
}

#[test]
fn hostile_files_are_refused_without_panicking_or_allocating_their_counts() {
    // One note, one chunk "t\n\nx" (title "t", section "x"), one vector of
    // one component: its scale, then its code.
    let one_chunk = |scale: f32| {
        File::new()
            .head(b"e", 1, 1, 1)
            .note(b"p.md", b"t", 1)
            .chunk(0, 1, b"t\n\nx", 3)
            .f32(scale)
            .u8(100)
    };
    // The file is well formed but for the one thing each case names.
    refused("not an index", b"hello".to_vec());
    refused("only a digest", with_digest(b""));
    refused("header only", File::new().finish());
    refused("version 1", {
        let mut file = File::new().head(b"e", 1, 0, 0).body;
        file[16] = 1;
        with_digest(&file)
    });
    refused("bad magic", {
        let mut file = File::new().head(b"e", 1, 0, 0).body;
        file[0] = b'Q';
        with_digest(&file)
    });
    refused(
        "huge note count",
        File::new().head(b"e", 4, u32::MAX, 0).finish(),
    );
    refused(
        "huge chunk count",
        File::new()
            .head(b"e", 4, 1, u32::MAX)
            .note(b"p.md", b"", 0)
            .finish(),
    );
    refused(
        "huge chunk count in a note",
        File::new()
            .head(b"e", 4, 1, 0)
            .note(b"p.md", b"", u64::MAX)
            .finish(),
    );
    refused(
        "a note with more chunks than the header",
        File::new()
            .head(b"e", 0, 1, 1)
            .note(b"p.md", b"", 2)
            .chunk(0, 1, b"", 0)
            .f32(0.0)
            .chunk(0, 1, b"", 0)
            .f32(0.0)
            .finish(),
    );
    refused(
        "chunk count one past the bytes",
        File::new()
            .head(b"e", 0, 1, 2)
            .note(b"p.md", b"", 2)
            .chunk(0, 1, b"", 0)
            .f32(0.0)
            .finish(),
    );
    refused(
        "huge string length",
        File::new()
            .varint(u64::MAX)
            .bytes(b"e")
            .u32(1)
            .u32(0)
            .u32(0)
            .finish(),
    );
    refused(
        "an overlong varint",
        File::new()
            .bytes(&[0x81, 0x00])
            .bytes(b"e")
            .u32(1)
            .u32(0)
            .u32(0)
            .finish(),
    );
    refused(
        "huge dimension with a chunk",
        File::new()
            .head(b"e", u32::MAX, 1, 1)
            .note(b"p.md", b"x", 1)
            .chunk(0, 1, b"x", 0)
            .f32(1.0)
            .finish(),
    );
    refused(
        "bad UTF-8 embedder id",
        File::new().head(b"\xff", 1, 0, 0).finish(),
    );
    refused(
        "bad UTF-8 path",
        File::new()
            .head(b"e", 1, 1, 0)
            .note(b"a\xc3.md", b"", 0)
            .finish(),
    );
    refused(
        "bad UTF-8 heading",
        File::new()
            .head(b"e", 0, 1, 1)
            .note(b"p.md", b"x", 1)
            .u8(1)
            .varint(0)
            .varint(1)
            .str(b"# x")
            .str(b"\xe6\x97")
            .str(b"x")
            .varint(0)
            .f32(0.0)
            .finish(),
    );
    refused(
        "bad UTF-8 text",
        File::new()
            .head(b"e", 0, 1, 1)
            .note(b"p.md", b"\x80", 1)
            .chunk(0, 1, b"\x80", 0)
            .f32(0.0)
            .finish(),
    );
    refused(
        "an unknown flag",
        File::new()
            .head(b"e", 0, 1, 1)
            .note(b"p.md", b"x", 1)
            .u8(8)
            .varint(0)
            .varint(1)
            .str(b"")
            .str(b"x")
            .varint(0)
            .f32(0.0)
            .finish(),
    );
    refused(
        "a heading from a path that has none",
        File::new()
            .head(b"e", 0, 1, 1)
            .note(b"p.md", b"x", 1)
            .u8(3)
            .varint(0)
            .varint(1)
            .str(b"no markers")
            .str(b"x")
            .varint(0)
            .f32(0.0)
            .finish(),
    );
    refused(
        "a heading stored that the path gives",
        File::new()
            .head(b"e", 0, 1, 1)
            .note(b"p.md", b"x", 1)
            .u8(1)
            .varint(0)
            .varint(1)
            .str(b"# A")
            .str(b"A")
            .str(b"x")
            .varint(0)
            .f32(0.0)
            .finish(),
    );
    refused(
        "a text stored whole that composes",
        File::new()
            .head(b"e", 0, 1, 1)
            .note(b"p.md", b"t", 1)
            .chunk(0, 4, b"t\n\nlong", 3)
            .f32(0.0)
            .finish(),
    );
    refused(
        "a title other than the first chunk's first line",
        File::new()
            .head(b"e", 0, 1, 1)
            .note(b"p.md", b"u", 1)
            .chunk(0, 1, b"t\n\nx", 3)
            .f32(0.0)
            .finish(),
    );
    refused(
        "section start past the text",
        File::new()
            .head(b"e", 0, 1, 1)
            .note(b"p.md", b"x", 1)
            .chunk(0, 1, b"x", 2)
            .f32(0.0)
            .finish(),
    );
    refused(
        "section start inside a character",
        File::new()
            .head(b"e", 0, 1, 1)
            .note(b"p.md", "é".as_bytes(), 1)
            .chunk(0, 1, "é".as_bytes(), 1)
            .f32(0.0)
            .finish(),
    );
    refused(
        "span past the end of memory",
        File::new()
            .head(b"e", 0, 1, 1)
            .note(b"p.md", b"x", 1)
            .u8(0)
            .varint(u64::MAX)
            .varint(1)
            .str(b"")
            .str(b"x")
            .varint(0)
            .f32(0.0)
            .finish(),
    );
    refused(
        "the same note twice",
        File::new()
            .head(b"e", 0, 2, 0)
            .note(b"p.md", b"", 0)
            .note(b"p.md", b"", 0)
            .finish(),
    );
    refused("NaN scale", one_chunk(f32::NAN).finish());
    refused("infinite scale", one_chunk(f32::NEG_INFINITY).finish());
    refused("a byte after the records", one_chunk(0.5).u8(0).finish());
    refused("a vector short", {
        let mut file = one_chunk(0.5).body;
        file.pop();
        with_digest(&file)
    });
    refused("a damaged digest", {
        let mut file = one_chunk(0.5).finish();
        *file.last_mut().unwrap() ^= 1;
        file
    });

    // What the format allows is read, whatever it says.
    let index = read("one chunk", one_chunk(-0.0).finish());
    assert_eq!(index.note_chunks("p.md")[0].section(), "x");
    let index = read(
        "a composed chunk under a heading",
        File::new()
            .head(b"e", 0, 1, 1)
            .note(b"p.md", b"t", 1)
            .u8(7)
            .varint(0)
            .varint(9)
            .str(b"# A")
            .str(b"# A\nlonger")
            .f32(0.0)
            .finish(),
    );
    let chunk = &index.note_chunks("p.md")[0];
    assert_eq!(chunk.text, "t\n# A\n\n# A\nlonger");
    assert_eq!(chunk.heading.as_deref(), Some("A"));
    assert_eq!(chunk.section(), "# A\nlonger");
    let index = read(
        "dimension 0, two chunks",
        File::new()
            .head(b"e", 0, 1, 2)
            .note(b"p.md", b"a", 2)
            .chunk(0, 1, b"a", 0)
            .chunk(1, 2, b"b", 1)
            .f32(0.0)
            .f32(0.0)
            .finish(),
    );
    assert_eq!((index.dimension(), index.chunk_count()), (0, 2));
    let index = read(
        "huge dimension, no chunks",
        File::new()
            .head(b"e", u32::MAX, 1, 0)
            .note(b"p.md", b"", 0)
            .finish(),
    );
    assert_eq!(index.dimension(), u32::MAX as usize);
    read(
        "spans far past any note (a stale index)",
        File::new()
            .head(b"e", 0, 1, 1)
            .note(b"p.md", b"x", 1)
            .chunk(u64::MAX - 1, u64::MAX, b"x", 0)
            .f32(0.0)
            .finish(),
    );
    read("a subnormal scale", one_chunk(f32::from_bits(1)).finish());
}

#[test]
fn decode_seeds_hold_the_invariants() {
    // Structured inputs have no seeds; a crash found by fuzzing is kept as
    // a raw-mode input (`\x01` and the file's bytes), read here as the
    // target reads it: as it is, with a digest, after a header with one.
    for (path, bytes) in seeds("semantic_index_decode") {
        let Some((1, file)) = bytes.split_first().map(|(mode, file)| (mode & 1, file)) else {
            panic!("{}: not a raw-mode input", path.display());
        };
        let mut headed = HEADER.to_vec();
        headed.extend_from_slice(file);
        for candidate in [file.to_vec(), with_digest(file), with_digest(&headed)] {
            if let Err(failure) = check_decode(&candidate) {
                panic!("{}: {failure}", path.display());
            }
        }
    }
}

/// Bytes this process has read from files so far (`rchar` of
/// `/proc/self/io`), to tell a read of a whole gigabyte from a read of its
/// header.
fn bytes_read() -> u64 {
    let io = fs::read_to_string("/proc/self/io").unwrap();
    io.lines()
        .find_map(|line| line.strip_prefix("rchar: "))
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// Issue 23: a 1 GiB sparse index file behind a good header was read whole
/// (a gigabyte of memory) before its digest was checked. It is refused
/// from what its records and its size say, having read a few bytes.
#[test]
fn a_huge_index_file_is_refused_without_being_read_whole() {
    use quire_fs::Workspace;
    use quire_kiln::{INDEX_FOLDER, index_file_name};
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join(INDEX_FOLDER);
    fs::create_dir(&folder).unwrap();
    let id = "hash:test";
    let genuine = SemanticIndex::new(id, 8).to_bytes();
    // The genuine header and records, then a gigabyte of holes.
    let file = folder.join(index_file_name(id));
    fs::write(&file, &genuine[..genuine.len() - DIGEST_BYTES]).unwrap();
    fs::OpenOptions::new()
        .write(true)
        .open(&file)
        .unwrap()
        .set_len(1 << 30)
        .unwrap();
    let workspace = Workspace::new(dir.path()).unwrap();
    let before = bytes_read();
    let error = SemanticIndex::load(&workspace, id, 8).unwrap_err();
    let read = bytes_read() - before;
    assert!(error.to_string().contains("do not fit its size"), "{error}");
    assert!(read < 16 << 20, "{read} bytes read for a refusal");
    // The genuine file loads.
    fs::write(&file, &genuine).unwrap();
    assert_eq!(
        SemanticIndex::load(&workspace, id, 8)
            .unwrap()
            .embedder_id(),
        id
    );
}
