//! The ordered writer: seals and writes every answer strictly in input order (a cancel's too)
//! and releases the unwritten window as it goes.

use super::frame::encode_frame;
use super::window::Window;
use crate::session::{Executed, Session};
use std::collections::BTreeMap;
use std::io::Write;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, TryRecvError};

/// A message to the writer.
pub(crate) enum Out {
    /// The final answer of the request with this arrival sequence number.
    Ordered(u64, Box<Executed>),
    /// No sequence number at or past this one will be sent; finish and stop.
    Close(u64),
}

/// Runs the writer until `Close` and every answer before it are written, or writing fails.
pub(crate) fn run(
    session: Session,
    rx: Receiver<Out>,
    mut sink: Box<dyn Write + Send>,
    window: Arc<Window>,
) -> std::io::Result<()> {
    let mut waiting: BTreeMap<u64, Executed> = BTreeMap::new();
    let mut next = 0u64;
    let mut close: Option<u64> = None;
    let result = (|| -> std::io::Result<()> {
        let mut msg = rx.recv().ok();
        loop {
            match msg.take() {
                Some(Out::Ordered(seq, executed)) => {
                    waiting.insert(seq, *executed);
                }
                Some(Out::Close(total)) => close = Some(total),
                // Every sender is gone: nothing more can arrive.
                None => return sink.flush(),
            }
            // Seal in input order, so path ids follow the responses and never a completion.
            while let Some(executed) = waiting.remove(&next) {
                let (_, encoded) = session.seal(executed);
                sink.write_all(&encode_frame(encoded.as_bytes()))?;
                next += 1;
                window.written();
            }
            if close.is_some_and(|total| next >= total) {
                return sink.flush();
            }
            msg = match rx.try_recv() {
                Ok(m) => Some(m),
                Err(TryRecvError::Disconnected) => None,
                Err(TryRecvError::Empty) => {
                    // Flush only when idle: a burst leaves in as few writes as possible.
                    sink.flush()?;
                    rx.recv().ok()
                }
            };
        }
    })();
    if result.is_err() {
        window.fail();
    }
    result
}
