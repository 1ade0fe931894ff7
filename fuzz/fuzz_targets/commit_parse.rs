//! Any bytes, read as (lossy) UTF-8, parsed with `parse_commit`: no panic,
//! the text rebuilds byte for byte, every span inside the text on character
//! boundaries and holding its node's text, nodes in order
//! (`check_message` in `tests/support/commit_model.rs`, shared with
//! `tests/commit_roundtrip.rs`). The cleaned message (`git_cleanup`) must
//! hold as well, and cleaning it again must change nothing. The header-only
//! `message_kind` must give the full parse's kind.

#![no_main]

use libfuzzer_sys::fuzz_target;
use quire_grammar::commit::{git_cleanup, message_kind, parse_commit};

#[path = "../../tests/support/commit_model.rs"]
mod commit_model;

use commit_model::check_parse;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Err(failure) = check_parse(&text) {
        panic!("{failure}\ninput: {text:?}");
    }
    assert_eq!(
        message_kind(&text),
        parse_commit(&text).kind,
        "message_kind is the parse's kind\ninput: {text:?}"
    );
    let cleaned = git_cleanup(&text);
    if let Err(failure) = check_parse(&cleaned) {
        panic!("cleaned: {failure}\ninput: {text:?}");
    }
    assert_eq!(
        git_cleanup(&cleaned),
        cleaned,
        "cleanup is idempotent\ninput: {text:?}"
    );
});
