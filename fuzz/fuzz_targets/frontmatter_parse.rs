//! Any bytes, read as (lossy) UTF-8, parsed as a note with frontmatter: no
//! panic; a document's spans are ranges of the text on char boundaries, in
//! order, and hold what the API says (fences, keys, values as written); an
//! error's span is a range of the text and its message has no Rust Debug
//! text. The invariants are `check_parse` in
//! `tests/support/frontmatter_model.rs`.

#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/support/frontmatter_model.rs"]
mod frontmatter_model;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Err(failure) = frontmatter_model::check_parse(&text) {
        panic!("{failure}\ninput: {text:?}");
    }
});
