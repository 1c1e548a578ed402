//! Fixed-seed mutation of fixtures: typing arbitrary decodable documents never panics, and
//! whatever is accepted re-encodes to a document that is accepted again identically.

use crate::ason::{Limits, decode, encode};
use crate::protocol::*;
use crate::testrng::Rng;

const SEEDS: &[&[u8]] = &[
    include_bytes!("../../../../spec/fixtures/ason/batch-request.ason"),
    include_bytes!("../../../../spec/fixtures/ason/exec-request.ason"),
    include_bytes!("../../../../spec/fixtures/ason/fs-request.ason"),
    include_bytes!("../../../../spec/fixtures/ason/patch-request.ason"),
    include_bytes!("../../../../spec/fixtures/ason/ref-project-request.ason"),
    include_bytes!("../../../../spec/fixtures/ason/fs-result.ason"),
    include_bytes!("../../../../spec/fixtures/ason/batch-result.ason"),
    include_bytes!("../../../../spec/fixtures/ason/handshake-request.ason"),
    include_bytes!("../../../../spec/fixtures/ason/approval-challenge.ason"),
];

/// Bytes that tend to matter to the schemas.
const ALPHABET: &[u8] = b"0123456789@~,[]{}:\"\\naz-_./|>#?AF\n";

#[test]
fn mutated_documents_never_panic_and_accepted_ones_round_trip() {
    let mut rng = Rng::new(0x5eed_a5a5_1234_9876);
    let limits = Limits::default();
    let mut accepted = 0usize;
    for round in 0..20_000 {
        let mut bytes = SEEDS[round % SEEDS.len()].to_vec();
        for _ in 0..=rng.below(3) {
            let at = rng.below(bytes.len());
            let b = ALPHABET[rng.below(ALPHABET.len())];
            match rng.below(3) {
                0 => bytes[at] = b,
                1 => bytes.insert(at, b),
                _ => {
                    bytes.remove(at);
                }
            }
        }
        let Ok(doc) = decode(&bytes, &limits) else {
            continue;
        };
        if let Ok(req) = Request::from_document(&doc) {
            accepted += 1;
            let again = decode(req.encode().as_bytes(), &limits).expect("own encoding decodes");
            assert_eq!(Request::from_document(&again), Ok(req.clone()));
            assert_eq!(req.encode(), encode(&doc));
        }
        if let Ok(resp) = Response::from_document(&doc) {
            assert_eq!(resp.encode(), encode(&doc));
        }
        for kind in OpKind::ALL {
            let _ = Response::from_document_for(&doc, kind);
        }
        if let Ok(h) = HandshakeRequest::from_document(&doc) {
            assert_eq!(h.encode(), encode(&doc));
            let _ = HandshakeResponse::negotiate(&h, MAX_FRAME);
        }
        let _ = HandshakeResponse::from_document(&doc);
        if let Ok(c) = Challenge::from_document(&doc) {
            assert_eq!(c.encode(), encode(&doc));
        }
    }
    assert!(
        accepted > 100,
        "mutations should keep some requests valid ({accepted})"
    );
}
