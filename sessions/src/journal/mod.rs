//! The append-only journal: line codec, verification on open, and the durable writer.

mod codec;
mod scan;
#[cfg(test)]
mod tests;
mod writer;

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::ids::PartNo;

pub use scan::TornTail;
pub(crate) use scan::{ScanSummary, scan};
#[cfg(test)]
pub(crate) use writer::FaultPlan;
pub use writer::{JournalOptions, JournalWriter};

/// Version written in every part header.
pub const FORMAT_VERSION: u32 = 1;

/// 64-bit record checksum (first 8 bytes of BLAKE3), written as 16 lowercase hex digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Checksum(pub u64);

impl Checksum {
    /// Checksum of the covered bytes of a record line.
    pub(crate) fn of(bytes: &[u8]) -> Self {
        let h = blake3::hash(bytes);
        let mut first = [0u8; 8];
        first.copy_from_slice(&h.as_bytes()[..8]);
        Checksum(u64::from_be_bytes(first))
    }

    pub(crate) fn parse_hex(hex: &[u8]) -> Option<Self> {
        if hex.len() != 16 || !hex.iter().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')) {
            return None;
        }
        let s = std::str::from_utf8(hex).ok()?;
        u64::from_str_radix(s, 16).ok().map(Checksum)
    }
}

impl fmt::Display for Checksum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

impl Serialize for Checksum {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Checksum {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Checksum::parse_hex(s.as_bytes())
            .ok_or_else(|| serde::de::Error::custom("checksum must be 16 lowercase hex digits"))
    }
}

/// File name of a journal part.
pub fn part_file_name(part: PartNo) -> String {
    format!("journal-{part}.jsonl")
}

/// Path of a journal part inside a session directory.
pub fn part_path(dir: &Path, part: PartNo) -> PathBuf {
    dir.join(part_file_name(part))
}

/// Parses `journal-NNNNNN.jsonl`.
pub(crate) fn parse_part_file_name(name: &str) -> Option<PartNo> {
    let digits = name.strip_prefix("journal-")?.strip_suffix(".jsonl")?;
    if digits.len() != 6 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok().filter(|n| *n > 0).map(PartNo)
}
