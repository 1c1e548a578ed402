//! Verification of the journal on open: parts, checksums, sequence numbers, links, torn tails.

use std::fs;
use std::path::Path;

use super::codec::{self, LineError};
use super::{Checksum, parse_part_file_name, part_path};
use crate::error::{JournalDamage, Result, SessionError};
use crate::fsutil::{FILE_MODE, check_private};
use crate::ids::{PartNo, Seq};
use crate::record::{PartHeader, Record};

/// Bytes after the last complete record of the last part, left in place by recovery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TornTail {
    /// The part holding the tail.
    pub part: PartNo,
    /// Offset of the first torn byte.
    pub offset: u64,
    /// Number of torn bytes.
    pub len: u64,
}

/// The verified end of the last part that has a header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PartEnd {
    pub part: PartNo,
    /// Sequence number of the part's header record.
    pub header_seq: Seq,
    pub complete_len: u64,
    pub file_len: u64,
    pub last_seq: Seq,
    pub last_sum: Checksum,
}

/// What verification found.
#[derive(Debug, Default)]
pub(crate) struct ScanSummary {
    /// Last part with a verified header, and where its records end.
    pub end: Option<PartEnd>,
    /// A last part that has no complete header: it was being created when the writer stopped.
    pub unfinished_part: Option<PartNo>,
    /// Torn bytes at the end of the last part.
    pub torn_tail: Option<TornTail>,
    /// First damage found; records before it were delivered to the visitor.
    pub damage: Option<JournalDamage>,
}

/// Receives each verified data record (seq, kind, body); an `Err` marks the record malformed.
pub(crate) type Visitor<'a> = dyn FnMut(Seq, &str, &[u8]) -> std::result::Result<(), String> + 'a;

/// Lists the part numbers present in `dir`, sorted.
fn list_parts(dir: &Path) -> Result<Vec<PartNo>> {
    let entries = fs::read_dir(dir).map_err(|e| SessionError::io("cannot list", dir, e))?;
    let mut parts = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| SessionError::io("cannot list", dir, e))?;
        if let Some(no) = entry.file_name().to_str().and_then(parse_part_file_name) {
            parts.push(no);
        }
    }
    parts.sort();
    Ok(parts)
}

/// Verifies every part in order and hands each data record (seq, kind, body) to `visit`.
pub(crate) fn scan(dir: &Path, visit: &mut Visitor<'_>) -> Result<ScanSummary> {
    let parts = list_parts(dir)?;
    let mut summary = ScanSummary::default();
    if let (Some(first), Some(last)) = (parts.first(), parts.last()) {
        for (i, no) in parts.iter().enumerate() {
            let want = PartNo(i as u32 + 1);
            if *no != want {
                summary.damage = Some(JournalDamage::MissingPart {
                    part: want,
                    first: *first,
                    last: *last,
                });
                return Ok(summary);
            }
        }
    }
    let mut expected = Seq(1);
    for (i, &no) in parts.iter().enumerate() {
        let is_last = i + 1 == parts.len();
        let path = part_path(dir, no);
        check_private(&path, FILE_MODE)?;
        let data =
            fs::read(&path).map_err(|e| SessionError::io("cannot read journal part", &path, e))?;
        match scan_part(no, &data, &mut expected, summary.end.as_ref(), visit) {
            Ok(Some(end)) => {
                if is_last && end.complete_len < end.file_len {
                    summary.torn_tail = Some(TornTail {
                        part: no,
                        offset: end.complete_len,
                        len: end.file_len - end.complete_len,
                    });
                }
                summary.end = Some(end);
            }
            Ok(None) if is_last => summary.unfinished_part = Some(no),
            Ok(None) => {
                summary.damage = Some(JournalDamage::MissingHeader { part: no });
                return Ok(summary);
            }
            Err(damage) => {
                summary.damage = Some(damage);
                return Ok(summary);
            }
        }
    }
    Ok(summary)
}

/// Verifies one part; `Ok(None)` when it holds no complete line at all.
fn scan_part(
    no: PartNo,
    data: &[u8],
    expected: &mut Seq,
    prev: Option<&PartEnd>,
    visit: &mut Visitor<'_>,
) -> std::result::Result<Option<PartEnd>, JournalDamage> {
    let mut pos = 0usize;
    let mut line_no = 0u64;
    let mut last: Option<(Seq, Checksum)> = None;
    let mut header_seq = *expected;
    for nl in memchr::memchr_iter(b'\n', data) {
        line_no += 1;
        let offset = pos as u64;
        let line = &data[pos..nl];
        pos = nl + 1;
        let malformed = |reason: String| JournalDamage::Malformed {
            part: no,
            line: line_no,
            offset,
            reason,
        };
        let raw = match codec::decode(line) {
            Ok(raw) => raw,
            Err(LineError::Checksum) => {
                return Err(JournalDamage::BadChecksum {
                    part: no,
                    line: line_no,
                    offset,
                    expected_seq: *expected,
                });
            }
            Err(LineError::Malformed(reason)) => return Err(malformed(reason)),
        };
        // The link is checked before sequence continuity: a truncated or missing predecessor
        // is the precise diagnosis, the sequence gap only its symptom.
        if line_no == 1 {
            let header = match Record::decode(raw.kind, raw.body) {
                Ok(Record::PartHeader(h)) if h.part == no => h,
                Ok(_) => return Err(JournalDamage::MissingHeader { part: no }),
                Err(reason) => return Err(malformed(reason)),
            };
            check_link(no, &header, prev)?;
            header_seq = raw.seq;
        }
        if raw.seq != *expected {
            return Err(JournalDamage::SequenceGap {
                part: no,
                line: line_no,
                expected: *expected,
                found: raw.seq,
            });
        }
        if line_no > 1 {
            if raw.kind == "part_header" {
                return Err(malformed("part header in the middle of a part".into()));
            }
            visit(raw.seq, raw.kind, raw.body).map_err(malformed)?;
        }
        last = Some((raw.seq, raw.sum));
        *expected = Seq(expected.0 + 1);
    }
    Ok(last.map(|(last_seq, last_sum)| PartEnd {
        part: no,
        header_seq,
        complete_len: pos as u64,
        file_len: data.len() as u64,
        last_seq,
        last_sum,
    }))
}

/// Checks a part header's link against the verified end of the previous part.
fn check_link(
    no: PartNo,
    header: &PartHeader,
    prev: Option<&PartEnd>,
) -> std::result::Result<(), JournalDamage> {
    let broken = |prev: PartNo, reason: String| JournalDamage::BrokenLink {
        part: no,
        prev,
        reason,
    };
    match (&header.prev, prev) {
        (None, None) => Ok(()),
        (Some(link), None) => Err(broken(
            link.part,
            "the part it links to has no records".into(),
        )),
        (None, Some(p)) => Err(broken(
            p.part,
            "the header has no link although earlier parts exist".into(),
        )),
        (Some(link), Some(p)) => {
            if link.part != p.part {
                return Err(broken(
                    p.part,
                    format!("the header links to part {}", link.part),
                ));
            }
            if link.len > p.file_len {
                return Err(JournalDamage::TruncatedPart {
                    part: p.part,
                    next: no,
                    expected: link.len,
                    found: p.file_len,
                });
            }
            if link.len != p.complete_len {
                return Err(broken(
                    p.part,
                    format!(
                        "the link covers {} bytes but the part has {} bytes of complete records",
                        link.len, p.complete_len
                    ),
                ));
            }
            if link.last_seq != p.last_seq || link.last_sum != p.last_sum {
                return Err(broken(
                    p.part,
                    format!(
                        "the link names seq {} sum {} but the part ends with seq {} sum {}",
                        link.last_seq, link.last_sum, p.last_seq, p.last_sum
                    ),
                ));
            }
            Ok(())
        }
    }
}
