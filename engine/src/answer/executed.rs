//! A request that has run but is not yet sealed, and how its provisional path ids are mapped
//! to session ids and checked against its limit.

use super::pathdict::{PathDelta, PathDictionary, Resolved};
use crate::exec::sandbox::SandboxOutcome;
use crate::protocol::{ErrorCode, ErrorRecord, Response, Status};

/// A request that has run but not been sealed: its response still carries provisional path
/// ids and has not been charged to the output ceiling.
#[derive(Debug)]
pub struct Executed {
    pub(crate) response: Response,
    pub(crate) delta: PathDelta,
    // The presentation limit the operation worked under; `None` for answers it never saw.
    pub(crate) limit: Option<u64>,
    // Output bytes taken from the session's ceiling before a mutation changed anything, so its
    // answer can always be sent; settled against the real answer when sealed.
    pub(crate) reserved: u64,
    // The success answer reports an applied change: never turned into a failure.
    pub(crate) applied: bool,
    // What the OS sandbox did; told to the embedder, never encoded.
    pub(crate) sandbox: SandboxOutcome,
}

impl Executed {
    /// An answer that needs no execution (a schema error, a denial, a transport answer).
    pub fn ready(response: Response) -> Executed {
        Executed {
            response,
            delta: PathDelta::default(),
            limit: None,
            reserved: 0,
            applied: false,
            sandbox: SandboxOutcome::Unsandboxed,
        }
    }

    /// The unsealed response.
    pub fn response(&self) -> &Response {
        &self.response
    }

    /// What the OS sandbox did to this request.
    pub fn sandbox(&self) -> &SandboxOutcome {
        &self.sandbox
    }
}

/// Maps an executed response's provisional ids against `paths`, validates and encodes it; the
/// caller commits the returned ids once the answer will be emitted. Only answers that carry
/// data introduce paths. An answer breaking an invariant becomes an internal error; one that
/// final ids made longer than its presentation limit becomes `600`.
pub(crate) fn resolve(
    paths: &PathDictionary,
    executed: Executed,
) -> Result<(Response, String, Resolved), Box<Response>> {
    let Executed {
        mut response,
        delta,
        limit,
        applied,
        ..
    } = executed;
    let id = response.id;
    let resolved = if response.data.is_some() {
        paths
            .resolve(&delta)
            .map_err(|_| Box::new(Response::error(id, ErrorRecord::internal_execute())))?
    } else {
        Resolved::default()
    };
    response.paths.clear();
    // A file's rows are consecutive and share an id: each run is looked up once.
    let mut last: Option<(u64, u64)> = None;
    response.map_path_ids(|provisional| match last {
        Some((from, to)) if from == provisional => to,
        _ => {
            let to = resolved.map(provisional);
            last = Some((provisional, to));
            to
        }
    });
    response.paths = resolved.new.clone();
    if response.validate().is_err() {
        return Err(Box::new(Response::error(
            id,
            ErrorRecord::internal_encode(),
        )));
    }
    let encoded = response.encode();
    let reports_change = applied && response.status == Status::Success;
    if response.data.is_some() && !reports_change && limit.is_some_and(|l| encoded.len() as u64 > l)
    {
        return Err(Box::new(Response::error(
            id,
            ErrorRecord::typical(ErrorCode::OutputBudget),
        )));
    }
    Ok((response, encoded, resolved))
}
