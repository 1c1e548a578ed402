//! The channel pair between a frontend and the runtime of one session: what a frontend may
//! send (`ToRuntime`, through a [`CommandSender`]), and what the runtime's control thread
//! receives (`Inbound`: the frontend's messages, and the runtime worker's own notice that it
//! stopped, which no frontend can send).

use std::sync::mpsc::{Receiver, Sender};

use crate::protocol::{Command, Event};

/// What a frontend sends to the runtime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToRuntime {
    /// A parsed, validated command.
    Command(Command),
    /// An input line that could not be parsed or enqueued; the runtime publishes it as an
    /// `error` event with code `parse_error` (the frontend has already told stderr).
    Rejected {
        /// 1-based input line number.
        line: u64,
        /// What was wrong with it.
        message: String,
    },
    /// Input ended: the runtime finishes the accepted work (paused turns stay paused), then
    /// closes the event stream.
    InputClosed,
    /// The user interrupted (Ctrl+C, SIGTERM): cancel the active turn, if any, as a journaled
    /// cancel command; frontends that know the request ID may send a `cancel` instead.
    Interrupt,
}

/// What the runtime's control thread receives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inbound {
    /// A frontend's message.
    Frontend(ToRuntime),
    /// The runtime's worker stopped (the control thread may end once input is closed too).
    WorkerStopped,
}

/// The runtime is gone: nothing sent reaches it any more.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the session runtime has stopped")]
pub struct RuntimeGone;

/// A frontend's sending end: it can send only [`ToRuntime`] messages.
#[derive(Debug, Clone)]
pub struct CommandSender(Sender<Inbound>);

impl CommandSender {
    /// Wraps the control thread's channel.
    pub fn new(inbound: Sender<Inbound>) -> CommandSender {
        CommandSender(inbound)
    }

    /// Sends `message` to the runtime.
    pub fn send(&self, message: ToRuntime) -> Result<(), RuntimeGone> {
        self.0
            .send(Inbound::Frontend(message))
            .map_err(|_| RuntimeGone)
    }
}

/// A frontend's end of a session: send commands, receive events in `stream_sequence` order.
/// The first event is always a `snapshot`; the stream ends (the receiver disconnects) when
/// the runtime has stopped.
#[derive(Debug)]
pub struct SessionLink {
    /// Commands to the runtime.
    pub commands: CommandSender,
    /// Events from the runtime.
    pub events: Receiver<Event>,
}
