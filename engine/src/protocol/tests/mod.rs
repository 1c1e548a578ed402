//! Protocol model tests: fixtures, validation tables, invariants.

mod args_exec_walk;
mod args_graph_formula;
mod args_mutation;
mod codes;
mod envelope;
mod fixtures;
mod handshake;
mod response;
mod robustness;

use super::{Request, RequestError};
use crate::ason::{Document, Limits, Value, decode, encode};

/// The id every table-driven request uses.
const ID: u64 = 5;

/// A digest of 64 `a`s.
const H: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

/// Decodes test text that must be syntactically valid ASON.
#[track_caller]
fn doc(text: &str) -> Document {
    decode(text.as_bytes(), &Limits::default())
        .unwrap_or_else(|e| panic!("test text does not decode: {e}\n{text}"))
}

/// A request with id 5, op `o`, argument lines `a` and a roomy budget.
fn request(o: &str, a: &str) -> String {
    format!("t:1\ni:{ID}\no:{o}\n{a}\nu{{tok,rec,ms}}:\n1000,1000,30000\n")
}

/// A request document built from an argument value (for sizes the decoder would refuse).
fn request_doc(o: &str, a: Value) -> Document {
    let tail = doc(&format!(
        "t:1\ni:{ID}\no:{o}\na:~\nu{{tok,rec,ms}}:\n1000,1000,30000\n"
    ));
    let mut d = Document::new();
    for f in tail.fields {
        let value = if f.key == "a" { a.clone() } else { f.value };
        d.push(&f.key, value);
    }
    d
}

/// Parses `text` as a request, requires success and a canonical round trip.
#[track_caller]
fn assert_valid(name: &str, text: &str) -> Request {
    let d = doc(text);
    match Request::from_document(&d) {
        Ok(req) => {
            assert_eq!(req.encode(), encode(&d), "{name}: re-encoding differs");
            assert_eq!(req.validate(), Ok(()), "{name}: validate");
            req
        }
        Err(e) => panic!("{name}: want valid, got {e}"),
    }
}

/// Requires `d` to be invalid with id 5, the error located at `at` (a prefix).
#[track_caller]
fn assert_invalid_doc(name: &str, d: &Document, at: &str) {
    match Request::from_document(d) {
        Err(RequestError::Invalid { id: ID, error }) => assert!(
            error.at.starts_with(at),
            "{name}: error at {:?}, want {at:?}: {error}",
            error.at
        ),
        other => panic!("{name}: want invalid with id {ID}, got {other:?}"),
    }
}

/// Requires `text` to be invalid with id 5, the error located at `at` (a prefix).
#[track_caller]
fn assert_invalid(name: &str, text: &str, at: &str) {
    assert_invalid_doc(name, &doc(text), at);
}

/// Runs `(name, argument lines, error location)` cases for operation `o`.
#[track_caller]
fn invalid_cases(o: &str, cases: &[(&str, &str, &str)]) {
    for (name, a, at) in cases {
        assert_invalid(name, &request(o, a), at);
    }
}

/// Runs `(name, argument lines)` cases for operation `o` that must be accepted.
#[track_caller]
fn valid_cases(o: &str, cases: &[(&str, &str)]) -> Vec<Request> {
    cases
        .iter()
        .map(|(name, a)| assert_valid(name, &request(o, a)))
        .collect()
}
