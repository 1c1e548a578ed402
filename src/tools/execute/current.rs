//! The current bytes and digest of one file, read through the engine without showing the
//! model anything (the answer is never sealed, so no path ids or output are spent).

use super::error::ToolExecError;
use super::policy::READ_MS;
use ash_engine::cancel::CancelToken;
use ash_engine::deadline::Deadline;
use ash_engine::protocol::{Budget, Data, Digest, Op, ReadArgs, ReadMode, Request, Status};
use ash_engine::session::Session;

/// A file as it is now.
#[derive(Debug, Clone)]
pub struct CurrentFile {
    /// The logical path as the engine names it (the ledger's key).
    pub path: String,
    /// BLAKE3 of the whole file.
    pub digest: Digest,
    /// Its bytes.
    pub bytes: Vec<u8>,
}

/// Reads all of `path` with an `r` byte-mode request numbered `id`.
pub fn current_file(
    session: &Session,
    id: u64,
    tool: &'static str,
    path: &str,
) -> Result<CurrentFile, ToolExecError> {
    let unreadable = |answer: String| ToolExecError::Unreadable {
        tool,
        path: path.to_owned(),
        answer,
    };
    let request = Request {
        id,
        op: Op::Read(ReadArgs {
            paths: vec![path.to_owned()],
            mode: ReadMode::Bytes,
            offset: 0,
            count: u64::MAX,
        }),
        // The largest presentation limit keeps ordinary files inline; bigger ones are retained
        // and fetched from the store below.
        budget: Budget {
            tok: Budget::MAX_TOK,
            rec: 1,
            ms: READ_MS,
        },
        permit: None,
    };
    if let Err(e) = request.validate() {
        return Err(ToolExecError::Invalid {
            tool,
            detail: super::location::detail(tool, e.schema_error()),
        });
    }
    let executed = session.run(&request, CancelToken::new(), Deadline::after_ms(READ_MS));
    let response = executed.response();
    let row = match (&response.status, &response.data) {
        (Status::Success, Some(Data::Read(rows))) if rows.len() == 1 => &rows[0],
        _ => {
            let code = response
                .error
                .as_ref()
                .map_or_else(String::new, |e| format!("error {}: ", e.code.as_u16()));
            let next = super::super::view::next_step(tool, response);
            return Err(unreadable(format!("{code}{next}")));
        }
    };
    let name = response
        .paths
        .iter()
        .find(|(pid, _)| *pid == row.path)
        .map(|(_, name)| name.clone())
        .unwrap_or_else(|| path.to_owned());
    let bytes = match (&row.text, row.reference) {
        (Some(text), _) => text.clone().into_bytes(),
        (None, Some(alias)) => {
            let body = session.store().get(alias);
            let bytes = body.map(|b| b.read_all());
            // The retained copy was only for us; drop it so it costs no store quota.
            let _ = session.store().release(alias);
            match bytes {
                Some(Ok(bytes)) => bytes,
                Some(Err(e)) => return Err(unreadable(e.to_string())),
                None => return Err(unreadable("retained copy vanished".to_owned())),
            }
        }
        (None, None) => Vec::new(),
    };
    Ok(CurrentFile {
        path: name,
        digest: row.digest,
        bytes,
    })
}
