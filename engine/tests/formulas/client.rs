//! The shared harness: a session client that checks the invariants of every answer, retained
//! values put in from outside, request builders and expected-answer builders.

use ash_engine::ason::{self, Limits};
use ash_engine::compute::ComputePlane;
use ash_engine::protocol::{Request, Response, Status};
use ash_engine::session::{Session, SessionConfig};
use std::sync::Arc;
use tempfile::TempDir;

/// A generous budget: tok, rec.
pub const BIG: (u64, u64) = (100_000, 10_000);

/// A session on an empty temporary workspace.
pub struct Client {
    pub session: Session,
    _root: TempDir,
}

impl Client {
    pub fn new() -> Client {
        Client::with(SessionConfig::run())
    }

    pub fn with(config: SessionConfig) -> Client {
        let root = tempfile::tempdir().expect("temp workspace");
        let plane = Arc::new(ComputePlane::new(2).expect("compute plane"));
        Client {
            session: Session::open(root.path(), config, plane).expect("open session"),
            _root: root,
        }
    }

    /// Retains `bytes` the way an embedder would, returning the alias.
    pub fn retain(&mut self, bytes: &[u8]) -> u64 {
        self.session
            .store_mut()
            .retain(bytes.to_vec())
            .expect("room in the store")
    }

    /// Answers `request` and returns the encoded answer, after checking that it round-trips, that
    /// a success fits L and is charged to the output ceiling, and that a failure is not charged.
    pub fn ask(&mut self, request: &str) -> String {
        let doc = ason::decode_canonical(request.as_bytes(), &Limits::default())
            .expect("test requests are canonical ASON");
        let tok = Request::from_document(&doc).map(|r| r.budget.tok).ok();
        let before = self.session.remaining_output();
        let (response, text) = self
            .session
            .answer_document(&doc)
            .expect("test requests carry a usable id");
        assert_eq!(
            response.encode(),
            text,
            "the text is the response's encoding"
        );
        let decoded = Response::decode(text.as_bytes(), &Limits::default())
            .expect("answers are valid responses");
        assert_eq!(decoded, response, "answer round-trips: {text}");
        let after = self.session.remaining_output();
        if response.status == Status::Success {
            let limit = before.min(tok.expect("a successful request was valid") * 4);
            assert!(
                text.len() as u64 <= limit,
                "answer of {} bytes exceeds L = {limit}:\n{text}",
                text.len()
            );
            assert_eq!(after, before - text.len() as u64, "a success is charged");
        } else {
            assert_eq!(after, before, "a failure is not charged");
        }
        text
    }

    /// Live retained entries.
    pub fn stored(&self) -> usize {
        self.session.store().len()
    }
}

/// A formula request `o:{op}` with `a:[{items}]`.
pub fn req(id: u64, op: char, items: &str, (tok, rec): (u64, u64)) -> String {
    format!("t:1\ni:{id}\no:{op}\na:[{items}]\nu{{tok,rec,ms}}:\n{tok},{rec},30000\n")
}

/// Text as an encoded ASON cell.
pub fn cell(text: &str) -> String {
    let mut out = String::new();
    ason::encode_text(text, &mut out);
    out
}

/// Lowercase hex BLAKE3 of `bytes`.
pub fn hash(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

/// The exact encoding of an error answer without references.
pub fn error(id: u64, status: u8, code: u16, retry: u8, stage: u8) -> String {
    format!("t:3\ni:{id}\ns:{status}\ne{{c,q,p,x,a}}:\n{code},{retry},{stage},~,~\nz:0\nr:~\n")
}

/// `s:1 100,1,1`.
pub fn invalid(id: u64) -> String {
    error(id, 1, 100, 1, 1)
}

/// `s:4 700,1,2`.
pub fn unknown(id: u64) -> String {
    error(id, 4, 700, 1, 2)
}

/// `s:5 202,1,4`.
pub fn wrong_type(id: u64) -> String {
    error(id, 5, 202, 1, 4)
}

/// `s:9 600,1,5`.
pub fn no_fit(id: u64) -> String {
    error(id, 9, 600, 1, 5)
}

/// A slice answer `d{o,n,p,h,t,b}` over `source`.
pub fn slice_answer(
    id: u64,
    (o, n, p): (u64, u64, u64),
    selection: &[u8],
    (t, b): (&str, &str),
    z: u8,
    source: u64,
) -> String {
    format!(
        "t:3\ni:{id}\ns:0\nd{{o,n,p,h,t,b}}:\n{o},{n},{p},{},{t},{b}\nz:{z}\nr:@{source}\n",
        hash(selection)
    )
}

/// A table answer `d[N]{cols}` with pre-encoded rows over `source`.
pub fn table_answer(id: u64, cols: &str, rows: &[String], z: u8, source: u64) -> String {
    let mut out = format!("t:3\ni:{id}\ns:0\nd[{}]{{{cols}}}:\n", rows.len());
    for r in rows {
        out.push_str(r);
        out.push('\n');
    }
    out.push_str(&format!("z:{z}\nr:@{source}\n"));
    out
}
