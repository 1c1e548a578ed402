//! Fuzzes the `ash rpc` frame decoder: split frames off arbitrary bytes and decode each
//! payload; the slice splitter and the streaming reader must agree, and nothing may panic.
#![no_main]

use ash_engine::rpc::frame::{FrameReader, decode_payload, split_frame};
use libfuzzer_sys::fuzz_target;

const CEILING: usize = 4096;

fuzz_target!(|data: &[u8]| {
    let mut rest = data;
    let mut reader = FrameReader::new(data);
    let mut frame = 1u64;
    loop {
        let split = split_frame(rest, CEILING, frame);
        let read = reader.next_frame(CEILING);
        match (split, read) {
            (Ok(Some((payload, used))), Ok(Some(got))) => {
                assert_eq!(payload, got.as_slice());
                let _ = decode_payload(payload, CEILING, frame);
                rest = &rest[used..];
                frame += 1;
            }
            (Ok(None), Ok(None)) | (Err(_), Err(_)) => break,
            (a, b) => panic!("splitter and reader disagree: {:?} / {:?}", a.is_ok(), b.is_ok()),
        }
    }
});
