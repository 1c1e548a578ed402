//! Listing the sessions of a home from their summaries, newest first.

use std::fs::{self, File};
use std::path::{Path, PathBuf};

use rayon::iter::{IntoParallelIterator, ParallelIterator};

use super::summary::{JournalEnd, Summary, journal_bytes, ms_since_epoch};
use crate::error::{Result, SessionError};
use crate::home::SessionStore;
use crate::ids::{Profile, SessionId};
use crate::meta::SessionMeta;
use crate::record::TurnState;
use crate::session::replay;

/// What a listed session is doing, as far as its files tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ListedState {
    /// No task yet.
    New,
    /// The newest task is done.
    Done,
    /// The newest task waits for Resume.
    Paused,
    /// The newest task was cancelled.
    Cancelled,
    /// The newest task failed.
    Failed,
    /// A task was running when its process stopped; opening the session pauses it.
    Interrupted,
    /// Another process has the session open and a task is running there.
    RunningElsewhere,
    /// Another process has the session open, with no task running.
    OpenElsewhere,
    /// The journal is damaged (or unreadable): the session opens read-only, if at all.
    ReadOnly,
}

impl ListedState {
    /// The stable name (`--json`'s `state`).
    pub fn as_str(self) -> &'static str {
        match self {
            ListedState::New => "new",
            ListedState::Done => "done",
            ListedState::Paused => "paused",
            ListedState::Cancelled => "cancelled",
            ListedState::Failed => "failed",
            ListedState::Interrupted => "interrupted",
            ListedState::RunningElsewhere => "running_elsewhere",
            ListedState::OpenElsewhere => "open_elsewhere",
            ListedState::ReadOnly => "read_only",
        }
    }

    /// True when another process holds the session (deleting it is refused).
    pub fn is_busy(self) -> bool {
        matches!(
            self,
            ListedState::RunningElsewhere | ListedState::OpenElsewhere
        )
    }
}

/// One row of `ansa sessions`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// The session ID.
    pub id: SessionId,
    /// Its directory.
    pub dir: PathBuf,
    /// The directory it works in; `None` when its metadata cannot be read.
    pub cwd: Option<PathBuf>,
    /// Live or offline; `None` when its metadata cannot be read.
    pub profile: Option<Profile>,
    /// Milliseconds since the Unix epoch of its last durable write.
    pub last_activity_ms: u64,
    /// Turns submitted.
    pub turns: u64,
    /// What it is doing.
    pub state: ListedState,
    /// The model it is bound to.
    pub model: Option<String>,
    /// The first task, on one line, at most 200 characters (not yet sanitised for a terminal).
    pub first_prompt: Option<String>,
    /// Bytes of its journal.
    pub bytes: u64,
    /// Why it is read-only or unreadable.
    pub damage: Option<String>,
}

/// Every session of `store`, newest activity first (then newest ID). Reads each session's
/// summary; a missing or stale one is rebuilt from the journal (and saved again when no
/// other process holds the session). Damaged or unreadable sessions are listed with why.
pub fn list(store: &SessionStore) -> Result<Vec<Listed>> {
    let root = store.sessions_dir();
    let entries = match fs::read_dir(&root) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(SessionError::io("cannot list", &root, e)),
    };
    let mut dirs = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| SessionError::io("cannot list", &root, e))?;
        let Some(id) = entry.file_name().to_str().and_then(SessionId::parse) else {
            continue;
        };
        if !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        dirs.push((id, entry.path()));
    }
    // Each row costs a few system calls and a small JSON parse, independent of the others:
    // spread over the cores, the listing waits on the file system in parallel.
    let mut out: Vec<Listed> = dirs
        .into_par_iter()
        .map(|(id, dir)| listed(id, &dir))
        .collect();
    out.sort_by(|a, b| {
        b.last_activity_ms
            .cmp(&a.last_activity_ms)
            .then_with(|| b.id.cmp(&a.id))
    });
    Ok(out)
}

/// Whether another process holds the session's lock (a shared probe that never creates it).
pub fn held_elsewhere(dir: &Path) -> bool {
    match File::open(dir.join("lock")) {
        Ok(f) => matches!(f.try_lock_shared(), Err(fs::TryLockError::WouldBlock)),
        Err(_) => false,
    }
}

fn listed(id: SessionId, dir: &Path) -> Listed {
    let summary = Summary::read(dir).filter(|s| s.id == id);
    let held = match &summary {
        // A cleanly closed session is not probed: whoever opens it rewrites the summary.
        Some(s) if !s.open => None,
        _ => Some(held_elsewhere(dir)),
    };
    let summary = match summary {
        Some(s) if held == Some(true) || s.end.still_at(dir) => Ok(s),
        _ => rebuild(dir, held == Some(true)),
    };
    match summary {
        Ok(s) => row(dir, s, held == Some(true)),
        Err(problem) => Listed {
            id,
            dir: dir.to_owned(),
            cwd: None,
            profile: None,
            last_activity_ms: modified_ms(dir),
            turns: 0,
            state: ListedState::ReadOnly,
            model: None,
            first_prompt: None,
            bytes: journal_bytes(dir),
            damage: Some(problem),
        },
    }
}

fn row(dir: &Path, s: Summary, held: bool) -> Listed {
    let state = match (s.damage.is_some(), held, s.last_state) {
        (true, _, _) => ListedState::ReadOnly,
        (false, true, Some(TurnState::Running | TurnState::Queued)) => {
            ListedState::RunningElsewhere
        }
        (false, true, _) => ListedState::OpenElsewhere,
        (false, false, None) => ListedState::New,
        (false, false, Some(TurnState::Done)) => ListedState::Done,
        (false, false, Some(TurnState::Paused)) => ListedState::Paused,
        (false, false, Some(TurnState::Cancelled)) => ListedState::Cancelled,
        (false, false, Some(TurnState::Failed)) => ListedState::Failed,
        (false, false, Some(TurnState::Running | TurnState::Queued)) => ListedState::Interrupted,
    };
    Listed {
        id: s.id,
        dir: dir.to_owned(),
        cwd: Some(s.cwd),
        profile: Some(s.profile),
        last_activity_ms: s.last_activity_ms,
        turns: s.turns,
        state,
        model: s.model,
        first_prompt: s.first_prompt,
        bytes: s.journal_bytes,
        damage: s.damage,
    }
}

/// The summary rebuilt from the journal; saved when nobody else holds the session.
fn rebuild(dir: &Path, held: bool) -> std::result::Result<Summary, String> {
    let meta = SessionMeta::read(dir).map_err(|e| e.to_string())?;
    let (state, damage) = replay(dir).map_err(|e| e.to_string())?;
    let end = JournalEnd::on_disk(dir).unwrap_or(JournalEnd {
        part: 0,
        len: 0,
        mtime_ns: 0,
    });
    let summary = Summary::of(
        &meta,
        &state,
        damage.map(|d| d.to_string()),
        end,
        journal_bytes(dir),
        last_write_ms(dir, end),
        false,
    );
    if !held && let Some(lock) = exclusive(dir) {
        // Saved under the lock so it cannot replace a newer one from a process that opens
        // the session now; failing to save only means rebuilding it next time.
        let _ = summary.write(dir);
        drop(lock);
    }
    Ok(summary)
}

fn exclusive(dir: &Path) -> Option<File> {
    let f = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(dir.join("lock"))
        .ok()?;
    f.try_lock().ok().map(|()| f)
}

fn last_write_ms(dir: &Path, end: JournalEnd) -> u64 {
    fs::metadata(crate::journal::part_path(dir, crate::ids::PartNo(end.part)))
        .and_then(|m| m.modified())
        .map_or_else(|_| modified_ms(dir), ms_since_epoch)
}

fn modified_ms(dir: &Path) -> u64 {
    fs::metadata(dir)
        .and_then(|m| m.modified())
        .map_or(0, ms_since_epoch)
}
