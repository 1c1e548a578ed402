//! Fuzz the ASON decoder: no input may panic, and any decoded document must re-encode to a
//! canonical form that decodes to the same value.
#![no_main]

use ash_engine::ason::{Limits, decode, decode_canonical, encode};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let limits = Limits::default();
    if let Ok(doc) = decode(data, &limits) {
        let canon = encode(&doc);
        let again = decode_canonical(canon.as_bytes(), &limits);
        assert_eq!(again.as_ref(), Ok(&doc));
    }
});
