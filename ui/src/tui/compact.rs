//! `/compact` (issue 43): asks the runtime to compact the context now and says the result —
//! the context's estimated tokens (and bytes) before and after — in the dialog; a context
//! that did not shrink is said as a warning, never as a success. A refusal
//! (a turn running, nothing to compact) arrives as an error and is said like any other.

use ansa_sessions::protocol::{CommandBody, Compacted};

use super::app::App;
use super::model::{Action, Entry, Notice, Tone};

impl App {
    /// `/compact`: sends `compact`.
    pub(crate) fn compact(&mut self, out: &mut Vec<Action>) {
        match self.command(CommandBody::Compact) {
            Some(command) => {
                self.say(Tone::Info, "compacting the context…");
                out.push(Action::Send(command));
            }
            None => self.say(Tone::Warn, "the session is still opening; try again"),
        }
    }

    /// The runtime compacted: the dialog says by how much, or, as a warning, that the
    /// context did not shrink (a summary can come out longer than what it replaced).
    pub(crate) fn on_compacted(&mut self, done: &Compacted) {
        self.notice = None;
        let tone = if shrank(done) { Tone::Info } else { Tone::Warn };
        self.commit(Entry::Notice(Notice::new(tone, compacted_text(done))));
    }
}

/// Whether compaction made the context smaller.
fn shrank(done: &Compacted) -> bool {
    done.bytes_after < done.bytes_before
}

/// `compacted: context ≈ 12.3k → 3.1k tokens (48 KiB → 12 KiB)`, or `/compact did not shrink
/// the context: ≈ 3.1k → 3.4k tokens (12 KiB → 13 KiB)`.
pub(crate) fn compacted_text(done: &Compacted) -> String {
    let sizes = format!(
        "≈ {} → {} tokens ({} → {})",
        tokens(done.tokens_before),
        tokens(done.tokens_after),
        bytes(done.bytes_before),
        bytes(done.bytes_after)
    );
    if shrank(done) {
        format!("compacted: context {sizes}")
    } else {
        format!("/compact did not shrink the context: {sizes}")
    }
}

fn tokens(n: u64) -> String {
    match n {
        0..=999 => n.to_string(),
        1_000..=999_999 => format!("{:.1}k", n as f64 / 1e3),
        _ => format!("{:.1}M", n as f64 / 1e6),
    }
}

fn bytes(n: u64) -> String {
    if n < 10 * 1024 {
        format!("{:.1} KiB", n as f64 / 1024.0)
    } else {
        format!("{} KiB", n / 1024)
    }
}
