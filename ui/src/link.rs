//! The channel pair between a frontend and the runtime of one session.

use std::sync::mpsc::{Receiver, Sender};

use ansa_sessions::protocol::{Command, Event};

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

/// A frontend's end of a session: send commands, receive events in `stream_sequence` order.
/// The first event is always a `snapshot`; the stream ends (the receiver disconnects) when
/// the runtime has stopped.
#[derive(Debug)]
pub struct SessionLink {
    /// Commands to the runtime.
    pub commands: Sender<ToRuntime>,
    /// Events from the runtime.
    pub events: Receiver<Event>,
}
