//! `ash run`: one canonical request in, one canonical response out, in an ephemeral session.

use ash_engine::ason::{self, CanonicalError, Limits};
use ash_engine::bootstrap::{BootstrapCode, BootstrapError, exit};
use ash_engine::compute::ComputePlane;
use ash_engine::protocol::RequestError;
use ash_engine::session::{Session, SessionConfig, SessionError};
use std::path::Path;
use std::sync::Arc;

/// Answers the canonical request `input` in a fresh session on `root`; returns the encoded
/// response, or the bootstrap error that ends the process.
pub fn run_in(root: &Path, input: &[u8]) -> Result<String, BootstrapError> {
    let doc = ason::decode_canonical(input, &Limits::default()).map_err(|e| match e {
        CanonicalError::Decode(e) => ash_engine::bootstrap::decode_error(e),
        e @ CanonicalError::NotCanonical { .. } => BootstrapError::new(
            BootstrapCode::Framing,
            exit::PROTOCOL,
            format!("stdin: {e}; `ash ason` prints the canonical form"),
        ),
    })?;
    let mut session = Session::open(root, SessionConfig::run(), Arc::new(ComputePlane::host()))
        .map_err(|e| match e {
            SessionError::NotADirectory(_) => {
                BootstrapError::new(BootstrapCode::Handshake, exit::PROTOCOL, e.to_string())
            }
            SessionError::Root { .. } => {
                BootstrapError::new(BootstrapCode::Io, exit::SOFTWARE, e.to_string())
            }
        })?;
    match session.answer_document(&doc) {
        Ok((_, encoded)) => Ok(encoded),
        Err(e @ RequestError::NoUsableId(_)) | Err(e @ RequestError::Invalid { .. }) => {
            Err(BootstrapError::new(
                BootstrapCode::Handshake,
                exit::PROTOCOL,
                format!("stdin: {e}; every request needs a nonzero id `i`"),
            ))
        }
    }
}
