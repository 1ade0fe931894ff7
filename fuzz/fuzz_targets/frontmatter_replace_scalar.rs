//! `replace_scalar` on any note, key and value, decoded from the bytes as
//! `<selector><key>\xFF<value>\xFF<text>` like `frontmatter_set_scalar`'s:
//! it refuses with the code of the reason (and, for a value it cannot
//! replace, `not_replaceable` with a reason the text bears out) and never
//! replaces a list, a mapping or an anchored value; otherwise the result
//! reads back with the new value on the key's line, every other value
//! unchanged, every byte before the key's colon and after the old value as it
//! was, every comment kept, and replacing it again changes nothing. The
//! invariants are `check_replace` in `tests/support/frontmatter_model.rs`,
//! shared with the property tests in `src/frontmatter/proptests.rs`.

#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/support/frontmatter_model.rs"]
mod frontmatter_model;

fuzz_target!(|data: &[u8]| {
    if let Err(failure) = frontmatter_model::check_replace_scalar(data) {
        panic!(
            "{failure}\ninput: {:?}",
            frontmatter_model::EditInput::decode(data)
        );
    }
});
