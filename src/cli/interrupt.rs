//! Ctrl+C and SIGTERM in one-shot and line mode: the first cancels the active turn through the
//! runtime (journaled like any cancel, the exec supervisor ends the command tree); a second one
//! exits at once with 130. The session stays consistent either way: the journal is crash-safe.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use ansa_sessions::{CommandSender, ToRuntime};
use signal_hook::consts::{SIGINT, SIGTERM};
use signal_hook::iterator::Signals;

use super::Exit;

/// Set once the user interrupted.
#[derive(Debug, Clone, Default)]
pub struct Interrupted(Arc<AtomicBool>);

impl Interrupted {
    /// Whether an interrupt arrived.
    pub fn happened(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// Starts the signal thread; without signal support the frontend still works, only Ctrl+C
/// falls back to the default (the process ends, the journal recovers on the next open).
pub fn watch(commands: CommandSender) -> Interrupted {
    let flag = Interrupted::default();
    let Ok(mut signals) = Signals::new([SIGINT, SIGTERM]) else {
        return flag;
    };
    let seen = Arc::clone(&flag.0);
    let spawned = std::thread::Builder::new()
        .name("ansa-signals".into())
        .spawn(move || {
            for _ in signals.forever() {
                if seen.swap(true, Ordering::SeqCst) {
                    std::process::exit(i32::from(Exit::Interrupted.code()));
                }
                let _ = commands.send(ToRuntime::Interrupt);
            }
        });
    if spawned.is_err() {
        return Interrupted::default();
    }
    flag
}
