//! A session is bound to its effective config and initial instructions: a change needs a new
//! session, because the saved exact context is never silently rebuilt.

use ansa_sessions::{Binding, Record, Session, SessionError};

/// The session was started under other settings.
#[derive(Debug, thiserror::Error)]
#[error(
    "session {session} is bound to a different {what} (was {was}, now {now}); start a new session (without --continue/--session) or restore the earlier {what}"
)]
pub struct BindingMismatch {
    /// The session ID.
    pub session: String,
    /// What changed.
    pub what: &'static str,
    /// The bound value (a digest or model name).
    pub was: String,
    /// The current value.
    pub now: String,
}

/// Records the binding of a new session, or checks an existing one against `current`.
pub fn check_or_record(session: &mut Session, current: &Binding) -> Result<(), BindingError> {
    let Some(bound) = session.state().binding().cloned() else {
        if session.read_only().is_some() {
            return Ok(());
        }
        session.append(Record::Binding(current.clone()))?;
        session.sync()?;
        return Ok(());
    };
    let checks: [(&'static str, &str, &str); 4] = [
        (
            "configuration",
            &bound.config_digest,
            &current.config_digest,
        ),
        (
            "instructions (the base prompt or AGENTS.md)",
            &bound.instructions_digest,
            &current.instructions_digest,
        ),
        ("model", &bound.requested_model, &current.requested_model),
        (
            "returned model",
            &bound.returned_model,
            &current.returned_model,
        ),
    ];
    if bound.account_hash != current.account_hash {
        let credential = |hash: &Option<String>| match hash {
            Some(h) => format!("signed-in account {}", &h[..h.len().min(12)]),
            None => "API key (no sign-in)".to_owned(),
        };
        return Err(BindingError::Mismatch(BindingMismatch {
            session: session.id().to_string(),
            what: "account",
            was: credential(&bound.account_hash),
            now: credential(&current.account_hash),
        }));
    }
    for (what, was, now) in checks {
        if was != now {
            return Err(BindingError::Mismatch(BindingMismatch {
                session: session.id().to_string(),
                what,
                was: short(was),
                now: short(now),
            }));
        }
    }
    Ok(())
}

fn short(s: &str) -> String {
    if s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit()) {
        format!("digest {}", &s[..12])
    } else {
        format!("`{s}`")
    }
}

/// A binding that could not be checked or recorded.
#[derive(Debug, thiserror::Error)]
pub enum BindingError {
    /// Writing it failed.
    #[error(transparent)]
    Session(#[from] SessionError),
    /// It differs.
    #[error(transparent)]
    Mismatch(#[from] BindingMismatch),
}
