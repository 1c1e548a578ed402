//! Bootstrap errors (docs/contract/ash-protocol.md §2.5): failures before a request ID exists, reported on stderr.

use crate::ason::{Atom, Document, Value, encode};

/// The bootstrap error codes of §2.5 that this implementation emits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BootstrapCode {
    /// No or unknown subcommand.
    Usage = 1,
    /// Input larger than the ceiling.
    InputCeiling = 2,
    /// Input is not UTF-8.
    InvalidUtf8 = 3,
    /// ASON syntax error.
    Syntax = 4,
    /// Framing error or non-canonical input.
    Framing = 5,
    /// Bad handshake or a request without a usable ID.
    Handshake = 6,
    /// EOF before the handshake.
    MissingHandshake = 7,
    /// I/O failure.
    Io = 9,
    /// Internal model construction failure.
    Internal = 10,
}

/// The process exit statuses of bootstrap failures (docs/contract/ash-protocol.md §2.5).
pub mod exit {
    /// No or unknown subcommand.
    pub const USAGE: i32 = 2;
    /// The stdin document of `run` or `ason` cannot be read (too large, not UTF-8, not ASON).
    pub const INPUT: i32 = 3;
    /// The RPC stream or the request broke the protocol (framing, handshake, canonicality).
    pub const PROTOCOL: i32 = 4;
    /// I/O or an internal failure (`EX_SOFTWARE`).
    pub const SOFTWARE: i32 = 70;
}

/// A bootstrap failure: code, process exit status and a human-readable reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BootstrapError {
    /// The §2.5 code.
    pub code: BootstrapCode,
    /// The process exit status to use.
    pub exit: i32,
    /// What went wrong and what to do, for a person reading stderr.
    pub message: String,
}

impl BootstrapError {
    /// A bootstrap error with an explicit exit status.
    pub fn new(code: BootstrapCode, exit: i32, message: impl Into<String>) -> Self {
        BootstrapError {
            code,
            exit,
            message: message.into(),
        }
    }

    /// The stderr document: `s:1`, `e{c}:` with the code, then `m:` with the human reason
    /// (the `m` field is our documented addition, see docs/protocol.md).
    pub fn to_document(&self) -> String {
        let doc = Document::new()
            .with("s", Value::Scalar(Atom::uint(1)))
            .with(
                "e",
                Value::record(&["c"], vec![Atom::uint(self.code as u64).into()]),
            )
            .with("m", Value::Scalar(Atom::text(self.message.as_str())));
        encode(&doc)
    }
}

/// The bootstrap error of a `run`/`ason` stdin document that does not decode.
pub fn decode_error(e: crate::ason::AsonError) -> BootstrapError {
    let code = match e {
        crate::ason::AsonError::InvalidUtf8 { .. } => BootstrapCode::InvalidUtf8,
        crate::ason::AsonError::TooLarge { .. } => BootstrapCode::InputCeiling,
        crate::ason::AsonError::Syntax { .. } => BootstrapCode::Syntax,
    };
    BootstrapError::new(code, exit::INPUT, format!("stdin: {e}"))
}
