//! `summary.json`: a small per-session digest of the journal (turns, last state, model, first
//! prompt, size), so listing 5,000 sessions reads 5,000 small files instead of every journal.
//!
//! It is a cache, never the truth: written (without fsync) after each durable boundary of the
//! open session, and trusted only while the journal still ends where it says
//! ([`JournalEnd`]); otherwise the lister rebuilds it from the journal.

use std::fs::{self, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::fsutil::FILE_MODE;
use crate::ids::{PartNo, Profile, SessionId};
use crate::journal::{parse_part_file_name, part_path};
use crate::meta::SessionMeta;
use crate::record::TurnState;
use crate::state::SessionState;

/// File name of the summary inside a session directory.
pub const SUMMARY_FILE: &str = "summary.json";
/// Bumped when the summary's meaning changes; an older one is rebuilt.
const SUMMARY_VERSION: u32 = 1;
/// Longest first prompt kept, in characters (the table cuts it further).
const PROMPT_CHARS: usize = 200;

/// Where the journal ended when a summary was written: its last part, that part's length and
/// modification time (so a part edited in place, same length or not, makes it stale).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JournalEnd {
    /// Highest part number.
    pub part: u32,
    /// That part's length in bytes.
    pub len: u64,
    /// That part's modification time, nanoseconds since the Unix epoch.
    pub mtime_ns: u128,
}

impl JournalEnd {
    /// The end of the journal in `dir` as it is on disk now (one directory listing).
    pub fn on_disk(dir: &Path) -> Option<JournalEnd> {
        let part = fs::read_dir(dir)
            .ok()?
            .flatten()
            .filter_map(|e| e.file_name().to_str().and_then(parse_part_file_name))
            .max()?;
        Self::of_part(dir, part)
    }

    /// The end of part `part` of the journal in `dir` (one `stat`).
    pub fn of_part(dir: &Path, part: PartNo) -> Option<JournalEnd> {
        let meta = fs::metadata(part_path(dir, part)).ok()?;
        Some(JournalEnd {
            part: part.0,
            len: meta.len(),
            mtime_ns: mtime_ns(&meta),
        })
    }

    /// True when the journal in `dir` still ends here: two `stat`s, no listing.
    pub fn still_at(&self, dir: &Path) -> bool {
        Self::of_part(dir, PartNo(self.part)).as_ref() == Some(self)
            && !part_path(dir, PartNo(self.part.saturating_add(1)))
                .try_exists()
                .unwrap_or(true)
    }
}

fn mtime_ns(meta: &fs::Metadata) -> u128 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos())
}

/// The digest of one session that `ansa sessions` and the picker show.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Summary {
    /// Format version ([`SUMMARY_VERSION`]).
    pub schema_version: u32,
    /// The session ID.
    pub id: SessionId,
    /// The directory it was created in.
    pub cwd: PathBuf,
    /// Live or offline.
    pub profile: Profile,
    /// Milliseconds since the Unix epoch of the last durable write.
    pub last_activity_ms: u64,
    /// Turns submitted.
    pub turns: u64,
    /// The newest turn's state; `None` before the first task.
    pub last_state: Option<TurnState>,
    /// The model the session is bound to, once bound.
    pub model: Option<String>,
    /// The first task's text, whitespace runs folded to one space, at most 200 characters.
    pub first_prompt: Option<String>,
    /// Bytes of the journal parts.
    pub journal_bytes: u64,
    /// Why the journal is read-only, when it is damaged.
    pub damage: Option<String>,
    /// Written by the process that had the session open and had not closed it yet.
    pub open: bool,
    /// Where the journal ended; the summary is stale once it no longer ends there.
    pub end: JournalEnd,
}

impl Summary {
    /// The summary of a session whose state is `state` (what the journal in `dir` holds).
    pub(crate) fn of(
        meta: &SessionMeta,
        state: &SessionState,
        damage: Option<String>,
        end: JournalEnd,
        journal_bytes: u64,
        last_activity_ms: u64,
        open: bool,
    ) -> Summary {
        Summary {
            schema_version: SUMMARY_VERSION,
            id: meta.id.clone(),
            cwd: meta.cwd.clone(),
            profile: meta.profile,
            last_activity_ms,
            turns: state.turns().count() as u64,
            last_state: state.latest_turn().map(|t| t.state),
            model: state.model_in_force().map(str::to_owned),
            first_prompt: state
                .turns()
                .next()
                .map(|t| one_line(&t.text, PROMPT_CHARS)),
            journal_bytes,
            damage,
            open,
            end,
        }
    }

    /// Reads `<dir>/summary.json`; `None` when missing, unreadable, larger than any summary
    /// ansa writes, or of another version.
    pub fn read(dir: &Path) -> Option<Summary> {
        let bytes = read_small(&dir.join(SUMMARY_FILE))?;
        let summary: Summary = serde_json::from_slice(&bytes).ok()?;
        (summary.schema_version == SUMMARY_VERSION).then_some(summary)
    }

    /// Replaces `<dir>/summary.json` (temp file and rename, mode 0600, no fsync: a summary
    /// lost in a crash is rebuilt from the journal). Only the lock holder writes it.
    pub(crate) fn write(&self, dir: &Path) -> std::io::Result<()> {
        let json = serde_json::to_vec(self).map_err(std::io::Error::other)?;
        let tmp = dir.join(format!(".{SUMMARY_FILE}.tmp-{}", std::process::id()));
        let result = (|| {
            let mut f = OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .mode(FILE_MODE)
                .open(&tmp)?;
            f.write_all(&json)?;
            fs::rename(&tmp, dir.join(SUMMARY_FILE))
        })();
        if result.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        result
    }
}

/// A summary holds a path and at most 200 characters of prompt, so it is far below this; a
/// bigger file is not one of ansa's and is rebuilt rather than read whole.
const SUMMARY_MAX_BYTES: usize = 64 * 1024;
/// First read's size: every ordinary summary fits, so one `read` gets it all.
const SUMMARY_READ_BYTES: usize = 8 * 1024;

/// The bytes of the small file at `path` with `openat` + `read` + `close` when it fits in
/// [`SUMMARY_READ_BYTES`] (`fs::read` adds an `fstat` and an end-of-file probe; listing
/// 5,000 sessions spends its time in these calls). A short read of a regular file means its
/// end; were it ever cut short, the JSON would not parse and the summary is rebuilt.
fn read_small(path: &Path) -> Option<Vec<u8>> {
    let mut file = fs::File::open(path).ok()?;
    let mut buf = vec![0u8; SUMMARY_READ_BYTES];
    let mut filled = 0;
    loop {
        let n = match file.read(&mut buf[filled..]) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return None,
        };
        filled += n;
        if n == 0 || filled < buf.len() {
            break;
        }
        if buf.len() >= SUMMARY_MAX_BYTES {
            return None;
        }
        buf.resize((buf.len() * 2).min(SUMMARY_MAX_BYTES), 0);
    }
    buf.truncate(filled);
    Some(buf)
}

/// Bytes of every journal part in `dir`.
pub(crate) fn journal_bytes(dir: &Path) -> u64 {
    fs::read_dir(dir).map_or(0, |entries| {
        entries
            .flatten()
            .filter(|e| {
                e.file_name()
                    .to_str()
                    .and_then(parse_part_file_name)
                    .is_some()
            })
            .filter_map(|e| e.metadata().ok())
            .map(|m| m.len())
            .sum()
    })
}

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    ms_since_epoch(SystemTime::now())
}

/// `t` in milliseconds since the Unix epoch (0 before it).
pub(crate) fn ms_since_epoch(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// `text` on one line (every whitespace run one space), at most `max` characters.
pub(crate) fn one_line(text: &str, max: usize) -> String {
    let mut out = String::new();
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
        if out.chars().count() > max {
            break;
        }
    }
    match out.char_indices().nth(max) {
        Some((cut, _)) => out[..cut].to_owned(),
        None => out,
    }
}
