//! Recovery and rollback: infer each journaled action's state from the filesystem and invert
//! the applied ones in reverse order. Every inverse step is a single link, unlink or rename,
//! so a crash between steps leaves a state the inference recognises on the next run.

use super::apply::place_temp;
use super::journal::{self, Found, Journal, PREPARING, PUBLISHED, STATE};
use super::manifest::{Entry, Kind};
use super::recovered::{Outcome, Recovered};
use super::tag::Tag;
use super::{MAX_FILE_BYTES, TxnError, crash, fsx};
use crate::files::workspace::Workspace;

/// Where an action stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// The workspace shows the action's pre-state for its paths.
    NotApplied,
    /// Two names for one inode (a link step done, its unlink not): dropping the new name
    /// restores the pre-state.
    Window,
    /// The action's post-state, proven by journal evidence plus exact size and digest.
    Applied,
}

/// Runs at the start of every transaction, under the locks: discards an unpublished journal,
/// finishes a committed one and rolls back an interrupted one.
pub(crate) fn recover(ws: &Workspace) -> Result<(), TxnError> {
    recover_reporting(ws, &mut Vec::new())
}

/// [`recover`], adding to `found` what it did with each journal it met (also when it fails:
/// the failure is then the last entry, [`Outcome::Unresolved`]).
pub(crate) fn recover_reporting(
    ws: &Workspace,
    found: &mut Vec<Recovered>,
) -> Result<(), TxnError> {
    let preparing = PREPARING;
    let unpublished = fsx::probe(ws, preparing).map_err(|e| unprovable(preparing, &e));
    if settle(found, || None, Vec::new, unpublished)?.is_some() {
        // Read before it goes: nothing of an unpublished journal was ever applied.
        let tag = journal::read_tag(ws, preparing);
        let removed = fsx::remove_tree(ws, preparing)
            .and_then(|()| fsx::sync_dir(ws, STATE))
            .map_err(|e| unprovable(preparing, &e));
        settle(found, || tag.clone(), Vec::new, removed)?;
        crash::recovery();
        found.push(Recovered {
            tag,
            paths: Vec::new(),
            outcome: Outcome::RolledBack,
        });
    }
    let tag = || journal::read_tag(ws, PUBLISHED);
    let opened = journal::open(ws).map_err(as_recovery);
    match settle(found, tag, Vec::new, opened)? {
        Found::Nothing => Ok(()),
        Found::Finished { committed } => {
            if committed {
                // Known before the cleanup below, which removes the evidence.
                found.push(Recovered {
                    tag: tag(),
                    paths: journal::read_entries(ws, PUBLISHED)
                        .map(|entries| paths_of(&entries))
                        .unwrap_or_default(),
                    outcome: Outcome::Committed,
                });
            }
            journal::delete(ws, PUBLISHED, false).map_err(as_recovery)?;
            crash::recovery();
            Ok(())
        }
        Found::Pending(j) => {
            let (tag, paths) = (tag(), paths_of(&j.entries));
            let rolled = roll_back(&j, j.entries.len());
            settle(found, || tag.clone(), || paths.clone(), rolled)?;
            found.push(Recovered {
                tag,
                paths,
                outcome: Outcome::RolledBack,
            });
            Ok(())
        }
    }
}

/// Passes `result` through, first recording a failure as unresolved in `found`.
fn settle<T>(
    found: &mut Vec<Recovered>,
    tag: impl FnOnce() -> Option<Tag>,
    paths: impl FnOnce() -> Vec<String>,
    result: Result<T, TxnError>,
) -> Result<T, TxnError> {
    result.inspect_err(|e| {
        found.push(Recovered {
            tag: tag(),
            paths: paths(),
            outcome: Outcome::Unresolved {
                reason: describe_error(e),
            },
        });
    })
}

fn describe_error(e: &TxnError) -> String {
    match e {
        TxnError::Recovery(why) | TxnError::Io(why) | TxnError::ForeignStateDir(why) => why.clone(),
        TxnError::Halt(halt) => format!("recovery stopped early ({halt:?})"),
        TxnError::Conflict { index, .. } => format!("journaled action {index} conflicts"),
    }
}

/// Every path the entries name: each source, then its destination.
fn paths_of(entries: &[Entry]) -> Vec<String> {
    entries
        .iter()
        .flat_map(|e| std::iter::once(e.path.clone()).chain(e.destination.clone()))
        .collect()
}

/// Rolls back actions `0..upto` of a published journal and deletes it. Every action is
/// classified before anything changes, so one unprovable action leaves everything untouched.
pub(crate) fn roll_back(j: &Journal, upto: usize) -> Result<(), TxnError> {
    let states: Vec<State> = (0..upto)
        .map(|i| classify(j, i))
        .collect::<Result<_, _>>()?;
    for (i, e) in j.entries.iter().enumerate() {
        if e.kind == Kind::Replace {
            // A temp file is never visible workspace content; it is ours by its tagged name.
            let temp = j.temp(i);
            match fsx::unlink(j.ws(), &temp) {
                Ok(()) => crash::recovery(),
                Err(err) if fsx::is_missing(&err) => {}
                Err(err) => return Err(unprovable(&temp, &err)),
            }
        }
    }
    for i in (0..upto).rev() {
        invert(j, i, states[i])?;
    }
    j.discard().map_err(as_recovery)
}

fn classify(j: &Journal, i: usize) -> Result<State, TxnError> {
    let ws = j.ws();
    let e = &j.entries[i];
    let path = e.path.as_str();
    let probe = |p: &str| fsx::probe(ws, p).map_err(|err| unprovable(p, &err));
    let holds = |p: &str, digest, size| holds(ws, p, digest, size);
    let state = match e.kind {
        Kind::Create | Kind::Copy => {
            let target = e.destination.as_deref().unwrap_or(path);
            let stage = j.stage(i);
            match (probe(&stage)?, probe(target)?) {
                (Some(s), Some(t)) if s.file && s.id == t.id => Some(State::Window),
                // The link never happened (or was undone); a foreign file is not ours.
                (Some(s), _) if s.file => Some(State::NotApplied),
                // The stage name goes only after a successful link, so the target is ours
                // if it still holds exactly what we linked.
                (None, Some(_)) if holds(target, e.digest, e.size) => Some(State::Applied),
                // Applied and later deleted by someone else: the pre-state (no file) holds.
                (None, None) => Some(State::NotApplied),
                _ => None,
            }
        }
        Kind::Move => {
            let target = e.destination.as_deref().unwrap_or_default();
            match (probe(path)?, probe(target)?) {
                (Some(s), Some(t)) if s.id == t.id => Some(State::Window),
                (Some(_), None) => Some(State::NotApplied),
                // A foreign destination next to the untouched source.
                (Some(_), Some(_)) if holds(path, e.digest, e.size) => Some(State::NotApplied),
                (None, Some(_)) if holds(target, e.digest, e.size) => Some(State::Applied),
                _ => None,
            }
        }
        Kind::Remove => {
            let removed = j.removed(i);
            match (probe(path)?, probe(&removed)?) {
                (Some(p), Some(r)) if p.id == r.id => Some(State::Window),
                (Some(_), None) => Some(State::NotApplied),
                (None, Some(_)) if holds(&removed, e.digest, e.size) => Some(State::Applied),
                _ => None,
            }
        }
        Kind::Replace => {
            let (pre_digest, pre_size) = e.preimage.unwrap_or((e.digest, e.size));
            if holds(path, pre_digest, pre_size) {
                Some(State::NotApplied)
            } else if holds(path, e.digest, e.size) && holds(&j.removed(i), pre_digest, pre_size) {
                Some(State::Applied)
            } else {
                None
            }
        }
    };
    state.ok_or_else(|| {
        TxnError::Recovery(format!(
            "cannot prove the state of journaled action {i} ({}); journal and files are left \
             untouched for inspection",
            describe(e)
        ))
    })
}

fn invert(j: &Journal, i: usize, state: State) -> Result<(), TxnError> {
    let ws = j.ws();
    let e = &j.entries[i];
    let path = e.path.clone();
    // The name holding the action's result, and the name the pre-state keeps it under.
    let (result, origin) = match e.kind {
        Kind::Create | Kind::Copy => (e.destination.clone().unwrap_or(path), j.stage(i)),
        Kind::Move => (e.destination.clone().unwrap_or_default(), path),
        Kind::Remove => (j.removed(i), path),
        Kind::Replace => {
            if state == State::Applied {
                restore_preimage(j, i, &path)?;
            }
            return Ok(());
        }
    };
    match (state, e.kind) {
        (State::NotApplied, _) => {}
        (State::Window, _) => unlink(ws, &result)?,
        (State::Applied, Kind::Create | Kind::Copy) => {
            // Back into the stage: the journal again shows "not applied".
            fsx::rename(ws, &result, &origin).map_err(|err| unprovable(&result, &err))?;
            fsx::sync_parent(ws, &result)
                .and_then(|()| fsx::sync_parent(ws, &origin))
                .map_err(|err| unprovable(&origin, &err))?;
            crash::recovery();
        }
        (State::Applied, _) => {
            // Re-link the original name first (a window), then drop the other name.
            fsx::link(ws, &result, &origin).map_err(|err| unprovable(&origin, &err))?;
            fsx::sync_parent(ws, &origin).map_err(|err| unprovable(&origin, &err))?;
            crash::recovery();
            unlink(ws, &result)?;
        }
    }
    Ok(())
}

/// CAS-restores a replaced file from `removed/i` via a tagged temp name and a rename.
fn restore_preimage(j: &Journal, i: usize, path: &str) -> Result<(), TxnError> {
    let ws = j.ws();
    let e = &j.entries[i];
    let temp = j.temp(i);
    place_temp(ws, &j.removed(i), &temp, path).map_err(as_recovery)?;
    crash::recovery();
    if !holds(ws, path, e.digest, e.size) {
        let _ = fsx::unlink(ws, &temp);
        return Err(TxnError::Recovery(format!(
            "{path} changed while its preimage was being restored"
        )));
    }
    fsx::rename(ws, &temp, path).map_err(|err| unprovable(path, &err))?;
    fsx::sync_parent(ws, path).map_err(|err| unprovable(path, &err))?;
    crash::recovery();
    Ok(())
}

fn unlink(ws: &Workspace, name: &str) -> Result<(), TxnError> {
    fsx::unlink(ws, name)
        .and_then(|()| fsx::sync_parent(ws, name))
        .map_err(|err| unprovable(name, &err))?;
    crash::recovery();
    Ok(())
}

/// True when `path` is a regular file of exactly `size` bytes with digest `digest`.
fn holds(ws: &Workspace, path: &str, digest: crate::protocol::Digest, size: u64) -> bool {
    match fsx::probe(ws, path) {
        Ok(Some(m)) if m.file && m.size == size => {
            matches!(fsx::hash_file(ws, path, MAX_FILE_BYTES, None), Ok((d, n)) if d == digest && n == size)
        }
        _ => false,
    }
}

fn describe(e: &Entry) -> String {
    match &e.destination {
        Some(d) => format!("{:?} {} -> {}", e.kind, e.path, d),
        None => format!("{:?} {}", e.kind, e.path),
    }
}

fn unprovable(path: &str, err: &std::io::Error) -> TxnError {
    TxnError::Recovery(format!("recovery failed at {path}: {err}"))
}

fn as_recovery(e: TxnError) -> TxnError {
    match e {
        TxnError::Io(why) => TxnError::Recovery(why),
        other => other,
    }
}
