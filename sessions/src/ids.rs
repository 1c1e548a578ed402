//! Newtypes for the identifiers a session deals with.

use std::fmt;
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

/// Journal sequence number: 1 for the first record, contiguous across parts.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default,
)]
#[serde(transparent)]
pub struct Seq(pub u64);

impl fmt::Display for Seq {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Number of a journal part file (`journal-000001.jsonl` is part 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PartNo(pub u32);

impl fmt::Display for PartNo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:06}", self.0)
    }
}

/// A turn's request ID, allocated by the journal when a submit is accepted (1, 2, 3, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RequestId(pub u64);

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Longest command ID a client may send, in bytes.
pub const MAX_COMMAND_ID_BYTES: usize = 128;

/// A client-chosen command ID; deduplicated across restarts.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CommandId(String);

impl CommandId {
    /// Validates a command ID: 1..=128 bytes, no control characters.
    pub fn new(id: impl Into<String>) -> Result<Self, String> {
        let id = id.into();
        if id.is_empty() {
            return Err("command_id must not be empty".into());
        }
        if id.len() > MAX_COMMAND_ID_BYTES {
            return Err(format!(
                "command_id is {} bytes long; at most {MAX_COMMAND_ID_BYTES} are allowed",
                id.len()
            ));
        }
        if id.chars().any(char::is_control) {
            return Err("command_id must not contain control characters".into());
        }
        Ok(Self(id))
    }

    /// The ID as sent by the client.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for CommandId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A provider-assigned tool call ID (opaque to the journal).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CallId(pub String);

impl fmt::Display for CallId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Which profile a session belongs to; also the `session` field of the JSONL protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Profile {
    /// Real provider over the network.
    Live,
    /// Deterministic network-free provider.
    Offline,
}

impl Profile {
    /// The wire name (`live` or `offline`).
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Live => "live",
            Profile::Offline => "offline",
        }
    }
}

/// A session ID that sorts by creation time: `YYYYMMDD-HHMMSS-uuuuuu-rrrrrr` (UTC, microseconds, random).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SessionId(String);

static LAST_MICROS: Mutex<u64> = Mutex::new(0);

impl SessionId {
    /// A new ID; IDs made by one process are strictly increasing.
    pub fn generate() -> Self {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_micros() as u64)
            .unwrap_or(0);
        let micros = match LAST_MICROS.lock() {
            Ok(mut last) => {
                let m = now.max(*last + 1);
                *last = m;
                m
            }
            Err(_) => now,
        };
        let secs = micros / 1_000_000;
        let (y, mo, d) = civil_from_days((secs / 86_400) as i64);
        let sod = secs % 86_400;
        let rand = random_hex(3);
        Self(format!(
            "{y:04}{mo:02}{d:02}-{:02}{:02}{:02}-{:06}-{rand}",
            sod / 3600,
            (sod / 60) % 60,
            sod % 60,
            micros % 1_000_000
        ))
    }

    /// Parses an ID given by the user (`--session ID`); rejects anything that is not an ID.
    pub fn parse(s: &str) -> Option<Self> {
        let b = s.as_bytes();
        let shape = b.len() == 29
            && b.iter().enumerate().all(|(i, c)| match i {
                8 | 15 | 22 => *c == b'-',
                23..=28 => c.is_ascii_hexdigit() && !c.is_ascii_uppercase(),
                _ => c.is_ascii_digit(),
            });
        shape.then(|| Self(s.to_owned()))
    }

    /// The ID text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for SessionId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A runtime incarnation: new on every start of a session, echoed by every command.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Incarnation(String);

impl Incarnation {
    /// A fresh random incarnation.
    pub fn generate() -> Self {
        Self(random_hex(8))
    }

    /// Wraps an incarnation received on the wire.
    pub fn from_wire(s: impl Into<String>) -> Self {
        Self(s.into())
    }

    /// The incarnation text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Incarnation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Hex of `bytes` unpredictable bytes; the OS source when available, else time/pid/address mixing.
pub(crate) fn random_hex(bytes: usize) -> String {
    use std::io::Read;
    let mut buf = [0u8; 32];
    let n = bytes.min(32);
    let from_os = std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut buf[..n]))
        .is_ok();
    if !from_os {
        let mut h = blake3::Hasher::new();
        h.update(&std::process::id().to_le_bytes());
        let t = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        h.update(&t.to_le_bytes());
        h.update(&(&buf as *const _ as usize).to_le_bytes());
        buf.copy_from_slice(h.finalize().as_bytes());
    }
    buf[..n].iter().map(|b| format!("{b:02x}")).collect()
}

/// Days since 1970-01-01 to (year, month, day) in the proleptic Gregorian calendar (H. Hinnant).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_sort_by_creation_and_parse() {
        let ids: Vec<SessionId> = (0..50).map(|_| SessionId::generate()).collect();
        let mut sorted = ids.clone();
        sorted.sort();
        assert_eq!(ids, sorted);
        for id in &ids {
            assert_eq!(SessionId::parse(id.as_str()).as_ref(), Some(id));
        }
        assert!(SessionId::parse("../etc").is_none());
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_422), (2025, 11, 30));
    }

    #[test]
    fn command_ids_are_validated() {
        assert!(CommandId::new("").is_err());
        assert!(CommandId::new("a\nb").is_err());
        assert!(CommandId::new("x".repeat(129)).is_err());
        assert_eq!(
            CommandId::new("c-1").map(|c| c.to_string()),
            Ok("c-1".into())
        );
    }
}
