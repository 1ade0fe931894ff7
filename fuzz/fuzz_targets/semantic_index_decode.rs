//! The semantic index file read back from damaged bytes (a vault shared by
//! git or sync can hold a hostile `.quire/semantic-*.idx`).
//!
//! The first byte's low bit picks the mode. Structured (0): a few notes, a
//! small dimension and a list of damages (via `arbitrary`); a genuine index
//! of the notes is written, read back exactly (the same notes, chunks and
//! bytes), then its body is damaged (bytes flipped, counts and lengths
//! overwritten, a cut) and its digest recomputed, so that the decoder's
//! records are explored and not only the checksum. Raw (1): the rest of the
//! input itself as a file, as it is, with a digest appended, and after a
//! valid header with a digest appended.
//!
//! Every file read: no panic; an error is `Corrupt` and names the file; an
//! index read writes exactly the bytes it was read from and answers
//! queries (`check_decode` in `tests/support/semantic_index_model.rs`); and
//! reading it never allocates more than a small multiple of the file's
//! size (checked here by a counting allocator).

#![no_main]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use quire_kiln::SemanticIndex;

#[path = "../../crates/quire-kiln/tests/support/semantic_index_model.rs"]
mod semantic_index_model;

use semantic_index_model::{
    Damage, FILE, HEADER, build_index, check_decode, check_same, damage, with_digest,
};

/// The allocator, counting the bytes live while `COUNTING` is set and the
/// peak they reach.
struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if COUNTING.load(Ordering::Relaxed) {
            // Saturating: a block freed here may predate the count.
            let _ = LIVE.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |live| {
                Some(live.saturating_sub(layout.size()))
            });
        }
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            let old = layout.size();
            if new_size >= old {
                let live = LIVE.fetch_add(new_size - old, Ordering::Relaxed) + new_size - old;
                PEAK.fetch_max(live, Ordering::Relaxed);
            } else {
                let _ = LIVE.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |live| {
                    Some(live.saturating_sub(old - new_size))
                });
            }
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// How many bytes reading an index may hold at once, per byte of its file,
/// above a fixed allowance. In format 2 a chunk takes 10 bytes or more in
/// the file and about 115 in memory (its `Chunk` and note number, in
/// buffers sized once from the header's checked count, and its scale), its
/// strings at most three times their stored bytes (a composed text is at
/// most twice its section), so a file of empty chunks is the worst case,
/// at about 12; anything proportional to a count the file does not back
/// would be far above. (Format 1, 29 bytes and about 330 a chunk, was
/// fuzzed at no more than 4 per byte plus 1 KiB.)
const BYTES_PER_FILE_BYTE: usize = 16;
const ALLOWANCE: usize = 64 * 1024;

/// One damage, as `arbitrary` makes it.
#[derive(Arbitrary, Debug)]
enum FuzzDamage {
    Flip { at: u16, mask: u8 },
    Word { at: u16, value: u32 },
    Truncate { at: u16 },
}

#[derive(Arbitrary, Debug)]
struct Input {
    embedder_id: String,
    /// 0 to 4 floats per vector.
    dimension: u8,
    /// 1 to 64 characters per chunk before a section is split.
    max_chars: u8,
    notes: Vec<(String, String)>,
    damages: Vec<FuzzDamage>,
}

/// `check_decode` on `bytes`, with the allocation bound.
fn decode(bytes: &[u8]) {
    LIVE.store(0, Ordering::Relaxed);
    PEAK.store(0, Ordering::Relaxed);
    COUNTING.store(true, Ordering::Relaxed);
    let read = SemanticIndex::from_bytes(bytes, FILE);
    COUNTING.store(false, Ordering::Relaxed);
    let peak = PEAK.load(Ordering::Relaxed);
    assert!(
        peak <= ALLOWANCE + BYTES_PER_FILE_BYTE * bytes.len(),
        "reading {} bytes held {peak} bytes at once",
        bytes.len()
    );
    drop(read);
    if let Err(failure) = check_decode(bytes) {
        panic!("{failure}\nfile: {bytes:?}");
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    if mode & 1 == 1 {
        decode(rest);
        decode(&with_digest(rest));
        let mut file = HEADER.to_vec();
        file.extend_from_slice(rest);
        decode(&with_digest(&file));
        return;
    }
    let Ok(input) = Input::arbitrary_take_rest(Unstructured::new(rest)) else {
        return;
    };
    let notes: Vec<(String, String)> = input.notes.into_iter().take(4).collect();
    let dimension = usize::from(input.dimension % 5);
    let max_chars = usize::from(input.max_chars % 64) + 1;
    let index = build_index(&input.embedder_id, dimension, max_chars, &notes);
    let bytes = index.to_bytes();
    let read = match check_decode(&bytes) {
        Ok(Some(read)) => read,
        Ok(None) => panic!("a genuine index was refused\nnotes: {notes:?}"),
        Err(failure) => panic!("{failure}\nnotes: {notes:?}"),
    };
    if let Err(failure) = check_same(&index, &read) {
        panic!("{failure}\nnotes: {notes:?}");
    }
    let damages: Vec<Damage> = input
        .damages
        .iter()
        .take(8)
        .map(|damage| match *damage {
            FuzzDamage::Flip { at, mask } => Damage::Flip {
                at: usize::from(at),
                mask,
            },
            FuzzDamage::Word { at, value } => Damage::Word {
                at: usize::from(at),
                value,
            },
            FuzzDamage::Truncate { at } => Damage::Truncate {
                at: usize::from(at),
            },
        })
        .collect();
    if !damages.is_empty() {
        decode(&damage(&bytes, &damages));
    }
});
