//! The broker's life: accept connections from our own uid only (at most [`MAX_CONNECTIONS`]
//! at once, pausing rather than spinning or dying when descriptors run out), and stop on
//! SIGINT, SIGTERM or SIGHUP, when the parent shell is gone, or after the idle expiry.

use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::UnixListener;
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

use super::forward::{State, handle};
use super::limits::{
    ACCEPT_BACKOFF_FIRST, ACCEPT_BACKOFF_MAX, HEAD_TIMEOUT, MAX_CONNECTIONS, READ_BUFFER,
};
use super::parent::Parent;
use super::{BrokerError, Options};

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
    let connections = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let mut slot: Option<OwnedSemaphorePermit> = None;
    let mut backoff = Backoff::default();
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
            // A free connection slot first: at the limit, new clients wait in the backlog.
            permit = Arc::clone(&connections).acquire_owned(), if slot.is_none() => {
                slot = permit.ok();
            }
            _ = backoff.wait(), if backoff.paused() => backoff.resume(),
            accepted = listener.accept(), if slot.is_some() && !backoff.paused() => {
                let stream = match accepted {
                    Ok((stream, _)) => stream,
                    Err(e) => {
                        if out_of_resources(&e) {
                            backoff.pause();
                        }
                        continue;
                    }
                };
                backoff.reset();
                // Only our own uid may use the broker (the directory already keeps others out).
                if !stream.peer_cred().is_ok_and(|c| c.uid() == uid) {
                    continue;
                }
                let Some(held) = slot.take() else { continue };
                let state = Arc::clone(&state);
                tokio::spawn(async move {
                    let service = service_fn(move |request| {
                        let state = Arc::clone(&state);
                        async move { handle(request, &state).await }
                    });
                    let _ = http1::Builder::new()
                        .timer(TokioTimer::new())
                        .header_read_timeout(HEAD_TIMEOUT)
                        .max_buf_size(READ_BUFFER)
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                    drop(held);
                });
            }
        }
    }
}

/// Whether an accept failed for want of descriptors or kernel memory: retrying at once would
/// fail the same way while the listener stays readable.
fn out_of_resources(e: &std::io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(nix::libc::EMFILE | nix::libc::ENFILE | nix::libc::ENOBUFS | nix::libc::ENOMEM)
    )
}

/// The accept loop's pause after running out of resources, doubling while it lasts.
#[derive(Default)]
struct Backoff {
    until: Option<Instant>,
    next: Option<Duration>,
}

impl Backoff {
    fn paused(&self) -> bool {
        self.until.is_some()
    }

    fn pause(&mut self) {
        let pause = self.next.unwrap_or(ACCEPT_BACKOFF_FIRST);
        self.until = Some(Instant::now() + pause);
        self.next = Some((pause * 2).min(ACCEPT_BACKOFF_MAX));
    }

    async fn wait(&self) {
        if let Some(until) = self.until {
            tokio::time::sleep_until(until).await;
        }
    }

    fn resume(&mut self) {
        self.until = None;
    }

    fn reset(&mut self) {
        self.next = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pause_doubles_up_to_its_bound_and_starts_over_after_a_success() {
        let mut b = Backoff::default();
        assert!(!b.paused());
        let mut pauses = Vec::new();
        for _ in 0..10 {
            b.pause();
            pauses.push(b.until.map(|u| u - Instant::now()));
            b.resume();
        }
        assert!(
            pauses
                .iter()
                .all(|p| p.is_some_and(|p| p <= ACCEPT_BACKOFF_MAX))
        );
        assert_eq!(b.next, Some(ACCEPT_BACKOFF_MAX));
        b.reset();
        b.pause();
        assert!(
            b.until
                .is_some_and(|u| u - Instant::now() <= ACCEPT_BACKOFF_FIRST)
        );
    }

    #[test]
    fn only_resource_exhaustion_pauses_the_accept_loop() {
        let err = |n| std::io::Error::from_raw_os_error(n);
        assert!(out_of_resources(&err(nix::libc::EMFILE)));
        assert!(out_of_resources(&err(nix::libc::ENFILE)));
        assert!(!out_of_resources(&err(nix::libc::ECONNABORTED)));
    }
}
