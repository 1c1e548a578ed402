//! One record per line: `{"sum":"<16 hex>","seq":N,"kind":"k","body":{...}}`.
//!
//! The checksum covers every byte after `"sum":"…",` up to (not including) the newline, so a
//! record can be verified without parsing JSON, and the body of kinds the opener does not need
//! (provider items) is never parsed on open.

use super::Checksum;
use crate::ids::Seq;
use crate::record::Record;

const SUM_PREFIX: &[u8] = b"{\"sum\":\"";
const SUM_END: usize = SUM_PREFIX.len() + 16;
const COVERED_START: usize = SUM_END + 2;

/// A line whose checksum verified, split into its parts.
pub(crate) struct RawLine<'a> {
    pub seq: Seq,
    pub sum: Checksum,
    pub kind: &'a str,
    pub body: &'a [u8],
}

/// Why a complete line was rejected.
pub(crate) enum LineError {
    /// The covered bytes do not match the checksum.
    Checksum,
    /// The envelope is not in the journal's shape.
    Malformed(String),
}

/// Appends the encoded line (with newline) for `record` to `out`; returns its checksum.
pub(crate) fn encode(seq: Seq, record: &Record, out: &mut Vec<u8>) -> serde_json::Result<Checksum> {
    let start = out.len();
    out.extend_from_slice(SUM_PREFIX);
    out.extend_from_slice(&[b'0'; 16]);
    out.extend_from_slice(b"\",");
    let covered = out.len();
    out.extend_from_slice(b"\"seq\":");
    out.extend_from_slice(seq.0.to_string().as_bytes());
    out.extend_from_slice(b",\"kind\":\"");
    out.extend_from_slice(record.kind().as_bytes());
    out.extend_from_slice(b"\",\"body\":");
    if let Err(e) = record.write_body(out) {
        out.truncate(start);
        return Err(e);
    }
    out.push(b'}');
    let sum = Checksum::of(&out[covered..]);
    let hex = sum.to_string();
    out[start + SUM_PREFIX.len()..start + SUM_END].copy_from_slice(hex.as_bytes());
    out.push(b'\n');
    Ok(sum)
}

/// Verifies and splits one complete line (without its newline).
pub(crate) fn decode(line: &[u8]) -> Result<RawLine<'_>, LineError> {
    let bad = |why: &str| LineError::Malformed(why.to_owned());
    if line.len() < COVERED_START || !line.starts_with(SUM_PREFIX) {
        return Err(bad("line does not start with {\"sum\":\""));
    }
    let sum = Checksum::parse_hex(&line[SUM_PREFIX.len()..SUM_END])
        .ok_or_else(|| bad("checksum is not 16 lowercase hex digits"))?;
    if &line[SUM_END..COVERED_START] != b"\"," {
        return Err(bad("checksum is not followed by `\",`"));
    }
    let covered = &line[COVERED_START..];
    if Checksum::of(covered) != sum {
        return Err(LineError::Checksum);
    }
    let rest = covered
        .strip_prefix(b"\"seq\":")
        .ok_or_else(|| bad("missing \"seq\""))?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    let seq = std::str::from_utf8(&rest[..digits])
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .ok_or_else(|| bad("seq is not an unsigned integer"))?;
    let rest = rest[digits..]
        .strip_prefix(b",\"kind\":\"")
        .ok_or_else(|| bad("missing \"kind\""))?;
    let kind_len = rest
        .iter()
        .take_while(|b| b.is_ascii_lowercase() || **b == b'_')
        .count();
    let kind = std::str::from_utf8(&rest[..kind_len]).map_err(|_| bad("kind is not text"))?;
    let body = rest[kind_len..]
        .strip_prefix(b"\",\"body\":")
        .and_then(|b| b.strip_suffix(b"}"))
        .ok_or_else(|| bad("missing \"body\" or closing brace"))?;
    Ok(RawLine {
        seq: Seq(seq),
        sum,
        kind,
        body,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::RequestId;
    use crate::record::{Done, OpaqueJson, ProviderItem};

    #[test]
    fn round_trip_keeps_opaque_items_exact() {
        let item = r#"{"z":1,"a":1.000000000000000000001,"big":123456789012345678901234567890,"s":"\u00e9"}"#;
        let rec = Record::ProviderItem(ProviderItem {
            request_id: RequestId(3),
            generation: 1,
            epoch: 0,
            item: OpaqueJson::from_text(item).expect("valid json"),
        });
        let mut out = Vec::new();
        let sum = encode(Seq(7), &rec, &mut out).expect("encodes");
        assert_eq!(out.last(), Some(&b'\n'));
        let line = &out[..out.len() - 1];
        serde_json::from_slice::<serde_json::Value>(line).expect("line is JSON");
        let raw = decode(line).ok().expect("decodes");
        assert_eq!((raw.seq, raw.sum, raw.kind), (Seq(7), sum, "provider_item"));
        let back = Record::decode(raw.kind, raw.body).expect("typed");
        assert_eq!(back, rec);
        match back {
            Record::ProviderItem(p) => assert_eq!(p.item.get(), item),
            _ => unreachable!(),
        }
    }

    #[test]
    fn any_flipped_covered_bit_is_a_checksum_error() {
        let rec = Record::Done(Done {
            request_id: RequestId(1),
            final_text: "hi".into(),
        });
        let mut out = Vec::new();
        encode(Seq(1), &rec, &mut out).expect("encodes");
        out.pop();
        for i in COVERED_START..out.len() {
            let mut bad = out.clone();
            bad[i] ^= 0x04;
            assert!(matches!(decode(&bad), Err(LineError::Checksum)), "byte {i}");
        }
    }
}
