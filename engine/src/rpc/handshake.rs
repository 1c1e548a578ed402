//! The first frame: handshake negotiation and workspace root resolution (docs/contract/ash-protocol.md §3.2).

use crate::ason::Document;
use crate::bootstrap::{BootstrapCode, BootstrapError, exit};
use crate::compute::ComputePlane;
use crate::exec::ExecHardening;
use crate::protocol::{HandshakeRequest, HandshakeResponse};
use crate::session::{Session, SessionConfig, SessionError};
use crate::store::StoreQuota;
use std::io::ErrorKind;
use std::path::Path;
use std::sync::Arc;

fn handshake_error(why: impl std::fmt::Display) -> BootstrapError {
    BootstrapError::new(
        BootstrapCode::Handshake,
        exit::PROTOCOL,
        format!("handshake: {why}; the first frame must be a valid `t:0` handshake"),
    )
}

/// Negotiates the handshake in `doc` and opens the session it asks for: the root is resolved
/// against `cwd` and canonicalised (missing → bootstrap 9/exit 70, not a directory → 6/exit 4).
pub fn open_session(
    doc: &Document,
    cwd: &Path,
    frame_max: u64,
    plane: Arc<ComputePlane>,
) -> Result<(Session, HandshakeResponse), BootstrapError> {
    let request = HandshakeRequest::from_document(doc).map_err(handshake_error)?;
    let response = HandshakeResponse::negotiate(&request, frame_max).map_err(handshake_error)?;
    let root = cwd.join(&request.root);
    let root = std::fs::canonicalize(&root).map_err(|e| {
        let hint = if e.kind() == ErrorKind::NotFound {
            "does not exist"
        } else {
            "cannot be resolved"
        };
        BootstrapError::new(
            BootstrapCode::Io,
            exit::SOFTWARE,
            format!("handshake root {:?} {hint}: {e}", request.root),
        )
    })?;
    let config = SessionConfig {
        output_ceiling: response.output,
        caps: response.caps,
        store: StoreQuota::default(),
        hardening: ExecHardening::default(),
        hidden: None,
        withheld_env: Vec::new(),
        spool_base: None,
    };
    let session = Session::open(&root, config, plane).map_err(|e| match e {
        SessionError::NotADirectory(_) => handshake_error(e),
        SessionError::Root { .. } => {
            BootstrapError::new(BootstrapCode::Io, exit::SOFTWARE, e.to_string())
        }
    })?;
    Ok((session, response))
}
