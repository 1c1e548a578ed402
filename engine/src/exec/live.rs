//! A running command's output so far, for an embedder that shows it while the command runs
//! (the agent's Ctrl+O on a running call). The capture pumps copy every chunk here as well;
//! only the last [`LIVE_BYTES`] are kept, so a chatty command costs bounded memory. It is never
//! part of the answer: the answer is built from the capture alone, as without it.

use std::sync::{Arc, Mutex, MutexGuard};

/// Most bytes of output kept: its end.
pub const LIVE_BYTES: usize = 256 * 1024;

/// A shared, bounded copy of a running command's output (stdout and stderr together, in the
/// order the pumps received them); clones share it.
#[derive(Debug, Clone, Default)]
pub struct LiveOutput {
    inner: Arc<Mutex<Kept>>,
}

#[derive(Debug, Default)]
struct Kept {
    bytes: Vec<u8>,
    /// Bytes ever pushed.
    total: u64,
}

/// What a [`LiveOutput`] holds at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveSnapshot {
    /// The kept end of the output as text (invalid UTF-8 replaced), from a line start when
    /// the front was dropped.
    pub text: String,
    /// Bytes of output before `text` that were dropped.
    pub dropped: u64,
}

impl LiveOutput {
    /// An empty one.
    pub fn new() -> Self {
        LiveOutput::default()
    }

    fn kept(&self) -> MutexGuard<'_, Kept> {
        // A pump that panicked mid-push leaves whole bytes behind: still worth showing.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Appends a chunk, dropping the front once more than twice [`LIVE_BYTES`] are kept (so
    /// the copy is amortised). The capture pumps push a command's output; an embedder may
    /// push what else a running call reports (an MCP server's progress).
    pub fn push(&self, chunk: &[u8]) {
        let mut kept = self.kept();
        kept.total += chunk.len() as u64;
        let chunk = &chunk[chunk.len().saturating_sub(LIVE_BYTES)..];
        kept.bytes.extend_from_slice(chunk);
        if kept.bytes.len() > 2 * LIVE_BYTES {
            let excess = kept.bytes.len() - LIVE_BYTES;
            kept.bytes.drain(..excess);
        }
    }

    /// The output so far: at most [`LIVE_BYTES`] of its end, starting at a line when the front
    /// was dropped.
    pub fn snapshot(&self) -> LiveSnapshot {
        let kept = self.kept();
        let mut from = kept.bytes.len().saturating_sub(LIVE_BYTES);
        let before = kept.total - kept.bytes.len() as u64;
        if before > 0 || from > 0 {
            // Half a line at the top reads as garbage: start at the next line when there is one.
            if let Some(nl) = kept.bytes[from..].iter().position(|&b| b == b'\n') {
                from += nl + 1;
            }
        }
        LiveSnapshot {
            text: String::from_utf8_lossy(&kept.bytes[from..]).into_owned(),
            dropped: before + from as u64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_everything_while_small() {
        let live = LiveOutput::new();
        live.push(b"one\ntw");
        live.clone().push(b"o\n");
        assert_eq!(
            live.snapshot(),
            LiveSnapshot {
                text: "one\ntwo\n".to_owned(),
                dropped: 0
            }
        );
    }

    #[test]
    fn keeps_the_end_from_a_line_start_and_counts_what_it_dropped() {
        let live = LiveOutput::new();
        let line = format!("{}\n", "x".repeat(99));
        for _ in 0..(3 * LIVE_BYTES / 100) {
            live.push(line.as_bytes());
        }
        live.push(b"last line\n");
        let snap = live.snapshot();
        assert!(snap.text.len() <= LIVE_BYTES);
        assert!(snap.text.starts_with("xxx"), "starts at a line");
        assert!(snap.text.ends_with("last line\n"));
        let total = (3 * LIVE_BYTES / 100 * 100 + 10) as u64;
        assert_eq!(snap.dropped + snap.text.len() as u64, total);
    }
}
