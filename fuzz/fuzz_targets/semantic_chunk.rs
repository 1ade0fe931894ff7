//! Any bytes, read as (lossy) UTF-8, chunked as a note for the semantic
//! index with a small `max_chars` taken from the first byte (so that long
//! sections are split at paragraphs): no panic; the chunks' spans are on
//! char boundaries, in order, not overlapping, after the frontmatter, with
//! only white space left out; each chunk lies in one heading section and
//! carries its heading as the last part of its heading path; its text is
//! the title, the path and `section()`, which is the note's text under the
//! span. The invariants are `check_chunks` in
//! `tests/support/semantic_index_model.rs`.

#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../crates/quire-kiln/tests/support/semantic_index_model.rs"]
mod semantic_index_model;

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    // 0 to 255 characters: sections split often, paragraphs often longer.
    let max_chars = usize::from(first);
    let text = String::from_utf8_lossy(rest);
    if let Err(failure) = semantic_index_model::check_chunks("notes/fuzzed.md", &text, max_chars) {
        panic!("{failure}\nmax_chars: {max_chars}\ninput: {text:?}");
    }
});
