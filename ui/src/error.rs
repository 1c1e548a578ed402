//! Errors a frontend reports to the binary.

use std::io;

use thiserror::Error;

/// Why a frontend stopped before its normal end.
#[derive(Debug, Error)]
pub enum UiError {
    /// Reading or writing one of the frontend's streams failed.
    #[error("{what} failed: {source}")]
    Io {
        /// What was being read or written, e.g. "writing events to the output".
        what: &'static str,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// The runtime closed the event stream (or stopped taking commands) when the frontend
    /// still expected events.
    #[error("the session runtime stopped {when}")]
    RuntimeStopped {
        /// When, e.g. "before sending its first snapshot" or "in the middle of turn 3".
        when: String,
    },
    /// The runtime sent something the protocol does not allow here.
    #[error("the session runtime broke the protocol: {0}")]
    Protocol(String),
    /// An event could not be encoded as JSON.
    #[error("event {stream_sequence} could not be encoded as JSON: {source}")]
    Encode {
        /// The event's `stream_sequence`.
        stream_sequence: u64,
        /// The encoder's error.
        #[source]
        source: serde_json::Error,
    },
}

impl UiError {
    /// An I/O error while doing `what`.
    pub(crate) fn io(what: &'static str) -> impl FnOnce(io::Error) -> UiError {
        move |source| UiError::Io { what, source }
    }

    /// The runtime stopped at the moment described by `when`.
    pub(crate) fn stopped(when: impl Into<String>) -> UiError {
        UiError::RuntimeStopped { when: when.into() }
    }
}
