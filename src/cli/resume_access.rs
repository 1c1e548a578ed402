//! Resuming a session restores the access mode and OS sandbox it was started with, so that a
//! session started with `--ask` or `--sandbox` resumes under them without the flag being
//! repeated. Resuming never loosens either silently: a config that now asks for a stricter
//! setting than the session's, or a flag that asks for another one (stricter or looser), is
//! refused naming the field (docs/sessions.md, "Resuming keeps the access mode").

use std::fmt;

use ansa_sessions::Binding;
use ash_engine::exec::sandbox::SandboxMode;

use super::{Args, Failure};
use crate::config::{AccessMode, Config};

/// One field a session keeps, with its strictness order (least strict first).
#[derive(Clone, Copy)]
enum Kept {
    Access(AccessMode),
    Sandbox(SandboxMode),
}

impl Kept {
    fn rank(self) -> usize {
        match self {
            Kept::Access(AccessMode::FullAccess) => 0,
            Kept::Access(AccessMode::Ask) => 1,
            Kept::Access(AccessMode::ReadOnly) => 2,
            Kept::Sandbox(m) => SandboxMode::ALL.iter().position(|x| *x == m).unwrap_or(0),
        }
    }

    fn field(self) -> &'static str {
        match self {
            Kept::Access(_) => "access_mode",
            Kept::Sandbox(_) => "sandbox",
        }
    }
}

impl fmt::Display for Kept {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Kept::Access(m) => f.write_str(m.as_str()),
            Kept::Sandbox(m) => f.write_str(m.as_str()),
        }
    }
}

/// Sets `config`'s access mode and sandbox mode to the ones `bound` (the session's binding)
/// records, or refuses when this run asks for other ones: by a flag (`--ask`, `--sandbox`),
/// or by a config that is now stricter than the session. Bindings that do not record the
/// fields (sessions from before they were bound) are left to the binding check.
pub fn restore(
    config: &mut Config,
    bound: &Binding,
    args: &Args,
    session: &str,
) -> Result<(), Failure> {
    let Some(fields) = bound.config.as_ref() else {
        return Ok(());
    };
    let access = match fields.get("access_mode").and_then(|v| v.as_str()) {
        Some("full_access") => Some(AccessMode::FullAccess),
        Some("ask") => Some(AccessMode::Ask),
        Some("read_only") => Some(AccessMode::ReadOnly),
        _ => None,
    };
    if let Some(was) = access {
        let flag = args.ask.then_some("--ask");
        settle(
            Kept::Access(was),
            Kept::Access(config.access_mode),
            flag,
            session,
        )?;
        config.access_mode = was;
    }
    // The binding leaves the sandbox out while it is off.
    let sandbox = match fields.get("sandbox").and_then(|v| v.as_str()) {
        None => Some(SandboxMode::Off),
        Some(name) => name.parse::<SandboxMode>().ok(),
    };
    if let Some(was) = sandbox {
        let flag = args.sandbox.map(|_| "--sandbox");
        settle(
            Kept::Sandbox(was),
            Kept::Sandbox(config.sandbox.mode),
            flag,
            session,
        )?;
        config.sandbox.mode = was;
    }
    Ok(())
}

/// Whether the session's setting `was` may be restored over this run's `now` (`flag`: the
/// command-line flag that set `now`, if one did).
fn settle(was: Kept, now: Kept, flag: Option<&str>, session: &str) -> Result<(), Failure> {
    if was.rank() == now.rank() {
        return Ok(());
    }
    let field = was.field();
    let stricter = if now.rank() > was.rank() {
        "stricter"
    } else {
        "looser"
    };
    let (asked, remedy) = match flag {
        Some(flag) => (
            format!("this run asks for the {stricter} `{now}` ({flag})"),
            format!("resume without {flag} (the session keeps `{was}`)"),
        ),
        // Restoring a looser setting than the config now asks for would loosen it silently.
        None if now.rank() > was.rank() => (
            format!("your config now asks for the stricter `{now}` (`{field}`)"),
            format!("set `{field}` back to `{was}` in the config to resume it"),
        ),
        None => return Ok(()),
    };
    Err(Failure::session(format!(
        "session {session} was started with {field} `{was}`; {asked}: a session keeps the {field} it was started with and is never resumed with another one; {remedy}, or start a new session (without --continue/--session/--resume; /new in the TUI)"
    )))
}
