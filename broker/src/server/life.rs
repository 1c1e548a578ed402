//! The broker's life: accept connections from our own uid only, and stop on SIGINT, SIGTERM
//! or SIGHUP, when the parent shell is gone (its PID checked with its start time, so a reused
//! PID does not keep the broker alive), or after the idle expiry.

use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::UnixListener;
use tokio::signal::unix::{SignalKind, signal};

use super::forward::{State, handle};
use super::{BrokerError, Options};

/// A process identified by PID and start time.
pub(super) struct Parent {
    pid: u32,
    started: u64,
}

impl Parent {
    /// The running process `pid`.
    pub(super) fn find(pid: u32) -> Result<Parent, BrokerError> {
        let started = start_time(pid).ok_or(BrokerError::Parent(pid))?;
        Ok(Parent { pid, started })
    }

    /// Whether the same process still runs.
    pub(super) fn alive(&self) -> bool {
        start_time(self.pid) == Some(self.started)
    }
}

/// Field 22 of `/proc/PID/stat` (after the parenthesised command name, which may contain
/// anything); `None` when there is no such process or it is a zombie.
fn start_time(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?;
    if state == "Z" || state == "X" {
        return None;
    }
    // `rest` starts at field 3 (the state); the start time is field 22.
    fields.nth(18)?.parse().ok()
}

/// Serves until it is time to stop.
pub(super) async fn serve(
    listener: UnixListener,
    state: Arc<State>,
    options: &Options,
) -> Result<(), BrokerError> {
    let parent = Parent::find(options.parent_pid)?;
    let signals = |kind| signal(kind).map_err(BrokerError::Listen);
    let mut interrupt = signals(SignalKind::interrupt())?;
    let mut terminate = signals(SignalKind::terminate())?;
    let mut hangup = signals(SignalKind::hangup())?;
    // The lease appears once the broker handles signals: from then on it cleans up.
    state.refresh()?;
    let mut tick = tokio::time::interval(options.check.max(Duration::from_millis(10)));
    let uid = nix::unistd::geteuid().as_raw();
    loop {
        tokio::select! {
            _ = interrupt.recv() => return Ok(()),
            _ = terminate.recv() => return Ok(()),
            _ = hangup.recv() => return Ok(()),
            _ = tick.tick() => {
                if !parent.alive() || state.idle_for() > options.idle {
                    return Ok(());
                }
            }
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else { continue };
                // Only our own uid may use the broker (the directory already keeps others out).
                if !stream.peer_cred().is_ok_and(|c| c.uid() == uid) {
                    continue;
                }
                let state = Arc::clone(&state);
                tokio::spawn(async move {
                    let service = service_fn(move |request| {
                        let state = Arc::clone(&state);
                        async move { handle(request, &state).await }
                    });
                    let _ = http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_is_found_by_its_start_time_and_a_missing_one_is_not() {
        let me = Parent::find(std::process::id()).unwrap_or_else(|e| panic!("{e}"));
        assert!(me.alive());
        let moved = Parent {
            pid: me.pid,
            started: me.started + 1,
        };
        assert!(!moved.alive(), "a reused PID has another start time");
        assert!(Parent::find(u32::MAX).is_err());
    }
}
