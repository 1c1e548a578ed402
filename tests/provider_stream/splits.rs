//! Chunking never changes the outcome: every fixture split at every byte boundary, fed in
//! 1-byte chunks, with CRLF or CR line ends, or behind a BOM, reduces to the same result and
//! the same previews; every proper prefix (a cut stream) is rejected.

use ansa::provider::sse::SseLimits;

use crate::common::*;

const RESPONSES: [&str; 3] = [
    "responses-text.sse",
    "responses-tool.sse",
    "responses-refusal.sse",
];
const CHAT: [&str; 3] = ["chat-text.sse", "chat-tool.sse", "chat-refusal.sse"];

/// Runs `check(k)` for every `k` in `0..=len`, on all cores.
fn every_boundary(len: usize, check: impl Fn(usize) + Sync) {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|scope| {
        for t in 0..threads {
            let check = &check;
            scope.spawn(move || {
                for k in (t..=len).step_by(threads) {
                    check(k);
                }
            });
        }
    });
}

fn variants(bytes: &[u8]) -> Vec<(&'static str, Vec<u8>)> {
    let text = std::str::from_utf8(bytes).expect("UTF-8 fixture");
    let mut bom = vec![0xEF, 0xBB, 0xBF];
    bom.extend_from_slice(bytes);
    vec![
        ("LF", bytes.to_vec()),
        ("CRLF", text.replace('\n', "\r\n").into_bytes()),
        ("CR", text.replace('\n', "\r").into_bytes()),
        ("BOM", bom),
    ]
}

#[test]
fn responses_fixtures_split_everywhere() {
    for name in RESPONSES {
        let base = responses_chunks(MODEL, SseLimits::default(), [&fixture(name)[..]]);
        assert!(base.0.is_ok(), "{name}: {:?}", base.0);
        for (variant, bytes) in variants(&fixture(name)) {
            every_boundary(bytes.len(), |k| {
                let (a, b) = bytes.split_at(k);
                let run = responses_chunks(MODEL, SseLimits::default(), [a, b]);
                assert_eq!(run, base, "{name} ({variant}) split at byte {k}");
            });
            let ones = responses_chunks(MODEL, SseLimits::default(), bytes.chunks(1));
            assert_eq!(ones, base, "{name} ({variant}) in 1-byte chunks");
        }
    }
}

#[test]
fn chat_fixtures_split_everywhere() {
    for name in CHAT {
        let base = chat_chunks(MODEL, SseLimits::default(), [&fixture(name)[..]]);
        assert!(base.0.is_ok(), "{name}: {:?}", base.0);
        for (variant, bytes) in variants(&fixture(name)) {
            every_boundary(bytes.len(), |k| {
                let (a, b) = bytes.split_at(k);
                let run = chat_chunks(MODEL, SseLimits::default(), [a, b]);
                assert_eq!(run, base, "{name} ({variant}) split at byte {k}");
            });
            let ones = chat_chunks(MODEL, SseLimits::default(), bytes.chunks(1));
            assert_eq!(ones, base, "{name} ({variant}) in 1-byte chunks");
        }
    }
}

#[test]
fn every_cut_stream_is_rejected() {
    for name in RESPONSES {
        let bytes = fixture(name);
        every_boundary(bytes.len() - 1, |k| {
            let result = responses(&bytes[..k]);
            assert!(result.is_err(), "{name} cut at byte {k} was admitted");
        });
    }
    for name in CHAT {
        let bytes = fixture(name);
        every_boundary(bytes.len() - 1, |k| {
            let result = chat(&bytes[..k]);
            assert!(result.is_err(), "{name} cut at byte {k} was admitted");
        });
    }
}
