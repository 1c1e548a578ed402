//! ASON (docs/contract/ash-protocol.md §2): value model, decoder with limits, canonical encoder, canonicality check.

mod decode;
mod encode;
mod error;
mod value;

#[cfg(test)]
mod tests;

pub(crate) use decode::clip_to;
pub use decode::parse_canonical_u64;
pub use decode::{Limits, decode, decode_str};
pub use encode::{atom as encode_atom, encode, encode_into, is_bare, text as encode_text};
pub use error::{AsonError, CanonicalError, SyntaxError};
pub use value::{Atom, Cell, Document, Field, Record, Table, Value};

/// Decodes `bytes` and requires them to be exactly the canonical encoding of the result.
pub fn decode_canonical(bytes: &[u8], limits: &Limits) -> Result<Document, CanonicalError> {
    let doc = decode(bytes, limits)?;
    let canon = encode(&doc);
    if canon.as_bytes() != bytes {
        let (line, expected) = first_difference(bytes, canon.as_bytes());
        return Err(CanonicalError::NotCanonical { line, expected });
    }
    Ok(doc)
}

/// 1-based number and canonical text of the first line where `input` and `canon` differ.
fn first_difference(input: &[u8], canon: &[u8]) -> (usize, String) {
    let mut a = input.split(|&b| b == b'\n');
    for (i, want) in canon.split(|&b| b == b'\n').enumerate() {
        if a.next() != Some(want) {
            let shown = String::from_utf8_lossy(want);
            let shown: String = shown.chars().take(80).collect();
            return (i + 1, shown);
        }
    }
    (1, String::new())
}
