//! `ansa sessions`: the table (or `--json` lines) of the home's sessions, `rm` and `prune`.
//! The rows come from `ansa_sessions::catalog` (summaries, never every journal) and are
//! formatted by `ansa_ui::picker::table_lines`, the same table `/sessions` and the picker show.

mod age;
mod resume;

pub use resume::resume_args;

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;

use ansa_sessions::SessionId;
use ansa_sessions::catalog::{self, Listed, RemoveError};
use ansa_ui::sanitize::{exact, json_line};
use serde_json::json;

use super::{Args, Exit, Failure, SessionsAction, SessionsArgs, start};
use crate::home::AnsaHome;

/// Runs `ansa sessions [rm|prune]`.
pub fn run(home: &AnsaHome, args: &Args, sessions: &SessionsArgs) -> Result<Exit, Failure> {
    match &sessions.action {
        None => list(home, args, sessions),
        Some(SessionsAction::Rm { ids }) => rm(home, ids),
        Some(SessionsAction::Prune { older_than }) => prune(home, older_than),
    }
}

/// The sessions of `home` as `ansa sessions` lists them (`here`: only those of `cwd`).
pub fn rows(home: &AnsaHome, here: Option<&std::path::Path>) -> Result<Vec<Listed>, Failure> {
    let mut rows = catalog::list(&home.sessions()).map_err(Failure::config)?;
    if let Some(cwd) = here {
        rows.retain(|r| r.cwd.as_deref() == Some(cwd));
    }
    Ok(rows)
}

fn list(home: &AnsaHome, args: &Args, sessions: &SessionsArgs) -> Result<Exit, Failure> {
    let here = match sessions.here {
        true => Some(start::workspace(args.cwd.as_deref(), None)?),
        false => None,
    };
    let rows = rows(home, here.as_deref())?;
    let mut out = io::stdout().lock();
    let written = if sessions.json {
        rows.iter()
            .try_for_each(|r| writeln!(out, "{}", json_line(&row_json(r).to_string())))
    } else if rows.is_empty() {
        let whose = here.map_or_else(String::new, |d| format!(" of {}", d.display()));
        let _ = writeln!(io::stderr(), "ansa: no sessions{}", exact(&whose));
        Ok(())
    } else {
        let width = io::stdout()
            .is_terminal()
            .then(ansa_ui::picker::terminal_width)
            .flatten();
        let now = now_ms();
        ansa_ui::picker::table_lines(&rows, now, width)
            .iter()
            .try_for_each(|line| writeln!(out, "{line}"))
    };
    match written {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => {
            Err(Failure::io(format!("writing the session list failed: {e}")))
        }
        _ => Ok(Exit::Success),
    }
}

/// One `--json` line: the field names are a stable interface (docs/sessions.md).
fn row_json(r: &Listed) -> serde_json::Value {
    json!({
        "id": r.id.as_str(),
        "last_activity_ms": r.last_activity_ms,
        "cwd": r.cwd.as_ref().map(|c| c.display().to_string()),
        "profile": r.profile.map(|p| p.as_str()),
        "state": r.state.as_str(),
        "turns": r.turns,
        "model": r.model,
        "first_prompt": r.first_prompt,
        "bytes": r.bytes,
        "damage": r.damage,
    })
}

fn rm(home: &AnsaHome, given: &[String]) -> Result<Exit, Failure> {
    let store = home.sessions();
    // Every name is checked before anything is deleted.
    let mut ids: Vec<SessionId> = Vec::new();
    let mut problems = Vec::new();
    for g in given {
        match catalog::resolve(&store, g) {
            Ok(id) if !ids.contains(&id) => ids.push(id),
            Ok(_) => {}
            Err(e) => problems.push(e.to_string()),
        }
    }
    if !problems.is_empty() {
        return Err(Failure::usage(format!(
            "{}; nothing was deleted",
            problems.join("; ")
        )));
    }
    let mut out = io::stdout().lock();
    let mut busy = Vec::new();
    for id in &ids {
        match catalog::remove(&store, id, &also(home, id)) {
            Ok(bytes) => {
                let _ = writeln!(out, "deleted {id} ({})", ansa_ui::picker::size(bytes));
            }
            Err(e @ RemoveError::Busy { .. }) => busy.push(e.to_string()),
            Err(e) => return Err(Failure::session(e)),
        }
    }
    match busy.is_empty() {
        true => Ok(Exit::Success),
        false => Err(Failure::session(busy.join("; "))),
    }
}

fn prune(home: &AnsaHome, older_than: &str) -> Result<Exit, Failure> {
    let age = age::parse(older_than).map_err(Failure::usage)?;
    let cutoff = now_ms().saturating_sub(u64::try_from(age.as_millis()).unwrap_or(u64::MAX));
    let evidence_root = home.root().join("runtime").join("evidence");
    let pruned = catalog::prune(&home.sessions(), cutoff, &evidence_root, &|id| {
        also(home, id)
    })
    .map_err(Failure::session)?;
    let mut out = io::stdout().lock();
    for id in &pruned.sessions {
        let _ = writeln!(out, "deleted {id}");
    }
    for path in &pruned.orphans {
        let _ = writeln!(out, "reclaimed {}", exact(&path.display().to_string()));
    }
    let _ = writeln!(
        out,
        "pruned {} session{} and {} orphaned director{} ({} freed)",
        pruned.sessions.len(),
        if pruned.sessions.len() == 1 { "" } else { "s" },
        pruned.orphans.len(),
        if pruned.orphans.len() == 1 {
            "y"
        } else {
            "ies"
        },
        ansa_ui::picker::size(pruned.bytes)
    );
    for id in &pruned.busy {
        let _ = writeln!(
            io::stderr(),
            "ansa: session_busy: kept {id}: it is open in another process"
        );
    }
    Ok(Exit::Success)
}

/// What belongs to a session outside its directory: its evidence (`@N` outputs).
fn also(home: &AnsaHome, id: &SessionId) -> Vec<PathBuf> {
    vec![home.evidence_dir(id)]
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}
