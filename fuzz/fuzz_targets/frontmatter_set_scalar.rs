//! `set_scalar` on any note, key and value, decoded from the bytes as
//! `<selector><key>\xFF<value>\xFF<text>` (the selector picks one of the
//! text's keys, or the given key, usually absent): it refuses with the right
//! error what it cannot edit, and otherwise the result reads back with the
//! new value, every other value unchanged, every byte outside the value as
//! it was, and setting it again changes nothing. The invariants are
//! `check_set_scalar` in `tests/support/frontmatter_model.rs`.

#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/support/frontmatter_model.rs"]
mod frontmatter_model;

fuzz_target!(|data: &[u8]| {
    if let Err(failure) = frontmatter_model::check_set_scalar(data) {
        panic!(
            "{failure}\ninput: {:?}",
            frontmatter_model::EditInput::decode(data)
        );
    }
});
