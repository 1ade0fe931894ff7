//! Any bytes, read as (lossy) UTF-8, parsed with every preset: no panic, every
//! span inside the text on character boundaries and covering its value,
//! exactly one error per halt; and when the text parses without losing any of
//! it, formatting is idempotent (the formatted text parses to the same
//! document and formats to itself).

#![no_main]

use libfuzzer_sys::fuzz_target;
use quire_grammar::plan::parse;

#[path = "../../tests/support/plan_model.rs"]
mod plan_model;

use plan_model::{check_idempotent, check_spans, keeps_all_text, presets};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for (preset, config) in presets() {
        let outcome = parse(&text, &config);
        if let Err(failure) = check_spans(&text, &outcome) {
            panic!("{preset}: {failure}\ninput: {text:?}");
        }
        if keeps_all_text(&outcome)
            && let Err(failure) = check_idempotent(&outcome, &config)
        {
            panic!("{preset}: {failure}\ninput: {text:?}");
        }
    }
});
