//! A session: directory, lock, journal writer, in-memory state and recovery on open.

use std::fs::{File, OpenOptions, TryLockError};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use crate::catalog::{self, JournalEnd, Summary};
use crate::error::{JournalDamage, Result, SessionError};
use crate::fsutil::{DIR_MODE, FILE_MODE, check_private, create_private_dir};
use crate::home::SessionStore;
use crate::ids::{CommandId, PartNo, Profile, RequestId, Seq, SessionId};
use crate::index::{self, IndexEntry};
use crate::journal::{JournalOptions, JournalWriter, ScanSummary, TornTail, scan};
use crate::meta::{META_FILE, SessionMeta};
use crate::record::{AcceptedAction, CommandAccepted, Done, Record, TurnState, TurnStateChange};
use crate::state::{NOT_JOURNALED, OpenIntent, SessionState};
use crate::transcript::{self, TranscriptPage, TranscriptQuery};

/// Reason written when an interrupted turn is paused on open.
pub const INTERRUPTED_REASON: &str = "interrupted: the previous process stopped during this turn";

/// What recovery did and found when the session was opened.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RecoveryReport {
    /// A torn tail left in place; writing continues in the next linked part.
    pub torn_tail: Option<TornTail>,
    /// A part that had no complete header (being created at the crash) and was rewritten.
    pub rewritten_part: Option<PartNo>,
    /// Turns that were queued or running and are now paused.
    pub paused: Vec<RequestId>,
    /// Tool intents without an outcome: reconcile them or record `effect_unknown`.
    pub open_intents: Vec<OpenIntent>,
    /// Damage that made the session read-only.
    pub damage: Option<JournalDamage>,
}

/// Result of accepting a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Acceptance {
    /// Newly accepted and synced: publish `command_accepted`.
    Accepted(RequestId),
    /// Accepted before (maybe in an earlier process): publish `command_replayed`.
    Replayed(RequestId),
}

/// An open session holding the exclusive lock.
#[derive(Debug)]
pub struct Session {
    dir: PathBuf,
    meta: SessionMeta,
    _lock: File,
    writer: Option<JournalWriter>,
    state: SessionState,
    recovery: RecoveryReport,
    unjournaled_failure: Option<String>,
}

impl Session {
    /// Creates a new session under `<home>/sessions/<ID>/` and indexes it for `--continue`.
    pub fn create_in_home(
        home: &SessionStore,
        cwd: &Path,
        profile: Profile,
        options: JournalOptions,
    ) -> Result<Self> {
        create_private_dir(&home.sessions_dir())?;
        let id = SessionId::generate();
        let dir = home.session_dir(&id);
        let s = Self::create_at(&dir, id, cwd, profile, options)?;
        index::record(
            home,
            profile,
            &IndexEntry {
                id: s.meta.id.clone(),
                dir,
                cwd: cwd.to_owned(),
            },
        )?;
        Ok(s)
    }

    /// Opens the session in `dir`, or creates one there (`--session DIR`); indexes a new one in `home`.
    pub fn open_or_create_at(
        dir: &Path,
        home: Option<&SessionStore>,
        cwd: &Path,
        profile: Profile,
        options: JournalOptions,
    ) -> Result<Self> {
        if dir.join(META_FILE).exists() {
            return Self::open(dir, options);
        }
        let s = Self::create_at(dir, SessionId::generate(), cwd, profile, options)?;
        if let Some(home) = home {
            let entry = IndexEntry {
                id: s.meta.id.clone(),
                dir: dir.to_owned(),
                cwd: cwd.to_owned(),
            };
            index::record(home, profile, &entry)?;
        }
        Ok(s)
    }

    /// Opens `<home>/sessions/<ID>`.
    pub fn open_id(home: &SessionStore, id: &SessionId, options: JournalOptions) -> Result<Self> {
        Self::open(&home.session_dir(id), options)
    }

    /// Opens the newest session of `cwd` and `profile` (`--continue`), if any.
    pub fn continue_latest(
        home: &SessionStore,
        cwd: &Path,
        profile: Profile,
        options: JournalOptions,
    ) -> Result<Option<Self>> {
        match index::latest(home, cwd, profile)? {
            Some(entry) => Self::open(&entry.dir, options).map(Some),
            None => Ok(None),
        }
    }

    fn create_at(
        dir: &Path,
        id: SessionId,
        cwd: &Path,
        profile: Profile,
        options: JournalOptions,
    ) -> Result<Self> {
        create_private_dir(dir)?;
        let lock = lock_session(dir)?;
        let meta = SessionMeta {
            schema_version: 1,
            id,
            cwd: cwd.to_owned(),
            profile,
        };
        meta.write(dir)?;
        Self::recover(dir, meta, lock, options)
    }

    /// Opens an existing session directory, verifying and recovering its journal.
    pub fn open(dir: &Path, options: JournalOptions) -> Result<Self> {
        if !dir.join(META_FILE).exists() {
            return Err(SessionError::NotFound {
                dir: dir.to_owned(),
            });
        }
        check_private(dir, DIR_MODE)?;
        let lock = lock_session(dir)?;
        let meta = SessionMeta::read(dir)?;
        Self::recover(dir, meta, lock, options)
    }

    fn recover(dir: &Path, meta: SessionMeta, lock: File, options: JournalOptions) -> Result<Self> {
        let (state, summary) = replay_scan(dir)?;
        let mut recovery = RecoveryReport {
            torn_tail: summary.torn_tail.clone(),
            damage: summary.damage.clone(),
            ..Default::default()
        };
        let mut session = Session {
            dir: dir.to_owned(),
            meta,
            _lock: lock,
            writer: None,
            state,
            recovery: RecoveryReport::default(),
            unjournaled_failure: None,
        };
        if summary.damage.is_none() {
            let writer = match (&summary.unfinished_part, &summary.end) {
                (Some(part), end) => {
                    recovery.rewritten_part = Some(*part);
                    JournalWriter::create_part(dir, *part, end.as_ref(), options)?
                }
                (None, None) => JournalWriter::create_part(dir, PartNo(1), None, options)?,
                (None, Some(end)) if end.complete_len < end.file_len => {
                    JournalWriter::create_part(dir, PartNo(end.part.0 + 1), Some(end), options)?
                }
                (None, Some(end)) => JournalWriter::continue_part(dir, end, options)?,
            };
            session.writer = Some(writer);
            let interrupted: Vec<RequestId> = session
                .state
                .turns()
                .filter(|t| matches!(t.state, TurnState::Queued | TurnState::Running))
                .map(|t| t.request_id)
                .collect();
            for id in &interrupted {
                let reason = match session.state.pending_approval(*id) {
                    Some((_, crate::state::ApprovalStanding::Pending { summary, .. })) => {
                        format!(
                            "{INTERRUPTED_REASON} while it waited for approval ({summary}); resume to be asked again"
                        )
                    }
                    _ => INTERRUPTED_REASON.to_owned(),
                };
                let change = TurnStateChange {
                    request_id: *id,
                    state: TurnState::Paused,
                    reason: Some(reason),
                };
                // A storage failure here leaves the session in storage_failed; it still opens.
                let _ = session.append(Record::TurnState(change));
            }
            let _ = session.sync();
            recovery.paused = interrupted;
        }
        recovery.open_intents = session.state.open_intents().cloned().collect();
        session.recovery = recovery;
        // A successful sync above saved it already; a read-only session has no sync.
        if session.recovery.damage.is_some() {
            session.save_summary(true);
        }
        Ok(session)
    }

    /// Rewrites the catalog summary (`summary.json`) from the in-memory state; a failure
    /// only means the lister rebuilds it from the journal.
    fn save_summary(&self, open: bool) {
        let end = match &self.writer {
            Some(w) => JournalEnd::of_part(&self.dir, w.part()),
            None => JournalEnd::on_disk(&self.dir),
        };
        let Some(end) = end else { return };
        let summary = Summary::of(
            &self.meta,
            &self.state,
            self.recovery.damage.as_ref().map(ToString::to_string),
            end,
            catalog::journal_bytes(&self.dir),
            catalog::now_ms(),
            open,
        );
        let _ = summary.write(&self.dir);
    }

    /// The session ID.
    pub fn id(&self) -> &SessionId {
        &self.meta.id
    }

    /// The session directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The session metadata.
    pub fn meta(&self) -> &SessionMeta {
        &self.meta
    }

    /// The in-memory model.
    pub fn state(&self) -> &SessionState {
        &self.state
    }

    /// What recovery found on open.
    pub fn recovery(&self) -> &RecoveryReport {
        &self.recovery
    }

    /// The damage that made this session read-only, if any.
    pub fn read_only(&self) -> Option<&JournalDamage> {
        self.recovery.damage.as_ref()
    }

    /// The storage failure that stopped durable writes, if any (`storage_failed`).
    pub fn storage_failure(&self) -> Option<&str> {
        self.writer
            .as_ref()
            .and_then(JournalWriter::failure)
            .or(self.unjournaled_failure.as_deref())
    }

    /// Highest sequence number on stable storage.
    pub fn durable_seq(&self) -> Seq {
        self.writer
            .as_ref()
            .map_or(Seq(0), JournalWriter::durable_seq)
    }

    /// Highest sequence number appended.
    pub fn appended_seq(&self) -> Seq {
        self.writer
            .as_ref()
            .map_or(Seq(0), JournalWriter::appended_seq)
    }

    /// True when everything known about `id` is on stable storage (`durable` in snapshots).
    pub fn is_durable(&self, id: RequestId) -> bool {
        self.state
            .turn(id)
            .is_some_and(|t| t.last_seq <= self.durable_seq())
    }

    /// Buffers a record (not durable until [`Self::sync`]). On storage failure the record still
    /// updates the in-memory state, so known results can be reported with `durable:false`.
    pub fn append(&mut self, record: Record) -> Result<Seq> {
        if let Record::PartHeader(_) = record {
            return Err(SessionError::Encode {
                seq: self.appended_seq(),
                reason: "part headers are written by the journal itself".into(),
            });
        }
        let writer = match (&mut self.writer, &self.recovery.damage) {
            (Some(w), _) => w,
            (None, Some(d)) => return Err(SessionError::ReadOnly(d.clone())),
            (None, None) => {
                return Err(SessionError::StorageFailed {
                    cause: "the journal is not open for writing".into(),
                });
            }
        };
        match writer.append(&record) {
            Ok(seq) => {
                self.state.apply(seq, &record);
                Ok(seq)
            }
            Err(e @ SessionError::StorageFailed { .. }) => {
                self.state.apply(NOT_JOURNALED, &record);
                Err(e)
            }
            Err(e) => Err(e),
        }
    }

    /// Writes and fsyncs everything appended; returns the durable sequence number.
    /// Each successful sync also refreshes the catalog summary (`catalog::Summary`).
    pub fn sync(&mut self) -> Result<Seq> {
        let synced = match (&mut self.writer, &self.recovery.damage) {
            (Some(w), _) => w.sync(),
            (None, Some(d)) => Err(SessionError::ReadOnly(d.clone())),
            (None, None) => Ok(Seq(0)),
        };
        if synced.is_ok() {
            self.save_summary(true);
        }
        synced
    }

    /// Accepts a command durably (append + sync); the same command again is a replay, the same
    /// ID with a different command is an error.
    pub fn accept(&mut self, command_id: CommandId, action: AcceptedAction) -> Result<Acceptance> {
        if let Some((request_id, prev)) = self.state.command(&command_id) {
            return if *prev == action {
                Ok(Acceptance::Replayed(request_id))
            } else {
                Err(SessionError::CommandConflict {
                    command_id,
                    request_id,
                })
            };
        }
        if let Some(cause) = self.storage_failure() {
            return Err(SessionError::StorageFailed {
                cause: cause.to_owned(),
            });
        }
        let request_id = match &action {
            AcceptedAction::Submit { .. } => self.state.next_request_id(),
            AcceptedAction::Resume { target } | AcceptedAction::Cancel { target } => {
                if self.state.turn(*target).is_none() {
                    return Err(SessionError::UnknownRequest(*target));
                }
                *target
            }
        };
        self.append(Record::CommandAccepted(CommandAccepted {
            command_id,
            request_id,
            action,
        }))?;
        self.sync()?;
        Ok(Acceptance::Accepted(request_id))
    }

    /// Records the final answer and syncs; publish `done` only after this returns `Ok`.
    pub fn finish(&mut self, request_id: RequestId, final_text: String) -> Result<Seq> {
        if self.state.turn(request_id).is_none() {
            return Err(SessionError::UnknownRequest(request_id));
        }
        self.append(Record::Done(Done {
            request_id,
            final_text,
        }))?;
        self.sync()
    }

    /// A page of the transcript projection.
    pub fn transcript(&self, query: TranscriptQuery) -> TranscriptPage {
        transcript::page(self.state.transcript(), query)
    }

    #[cfg(test)]
    pub(crate) fn writer_mut(&mut self) -> Option<&mut JournalWriter> {
        self.writer.as_mut()
    }

    /// Every verified record on disk, fully decoded (for context replay and audits).
    pub fn read_records(&self) -> Result<Vec<(Seq, Record)>> {
        read_records(&self.dir)
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // The summary now says the session is closed, so listing it needs no lock probe.
        if self.storage_failure().is_none() {
            self.save_summary(false);
        }
    }
}

/// Verifies the journal in `dir` and folds its records into a [`SessionState`].
fn replay_scan(dir: &Path) -> Result<(SessionState, ScanSummary)> {
    let mut state = SessionState::default();
    let summary = scan(dir, &mut |seq, kind, body| {
        if kind == "provider_item" {
            // Verified by checksum; decoded only when the runtime replays the context.
            state.count_provider_item();
            return Ok(());
        }
        let record = Record::decode(kind, body)?;
        state.apply(seq, &record);
        Ok(())
    })?;
    Ok((state, summary))
}

/// The state the journal in `dir` holds and its damage, read without the lock or any write
/// (the catalog rebuilds a stale summary from it).
pub(crate) fn replay(dir: &Path) -> Result<(SessionState, Option<JournalDamage>)> {
    replay_scan(dir).map(|(state, summary)| (state, summary.damage))
}

/// Reads every verified record of the journal in `dir` (no lock needed; read-only).
pub fn read_records(dir: &Path) -> Result<Vec<(Seq, Record)>> {
    let mut out = Vec::new();
    scan(dir, &mut |seq, kind, body| {
        out.push((seq, Record::decode(kind, body)?));
        Ok(())
    })?;
    Ok(out)
}

fn lock_session(dir: &Path) -> Result<File> {
    let path = dir.join("lock");
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(FILE_MODE)
        .open(&path)
        .map_err(|e| SessionError::io("cannot open session lock", &path, e))?;
    // A process forked by this one (e.g. a tool child between fork and exec) briefly shares
    // the lock's open file description, so a just-released lock can look held for a moment.
    // Retrying for a short, bounded time absorbs that window; a real second owner still gets
    // `session_busy`, only 250 ms later.
    let give_up = std::time::Instant::now() + LOCK_RETRY;
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(file),
            Err(TryLockError::WouldBlock) if std::time::Instant::now() < give_up => {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            Err(TryLockError::WouldBlock) => {
                return Err(SessionError::SessionBusy {
                    dir: dir.to_owned(),
                });
            }
            Err(TryLockError::Error(e)) => {
                return Err(SessionError::io("cannot lock session", &path, e));
            }
        }
    }
}

/// How long `open` keeps trying a session lock that looks held (see `lock_session`).
const LOCK_RETRY: std::time::Duration = std::time::Duration::from_millis(250);
