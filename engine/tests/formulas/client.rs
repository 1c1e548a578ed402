//! The shared harness: a session client that checks the invariants of every answer, retained
//! values put in from outside, request builders and expected-answer builders.

pub use crate::common::{BIG, cell, error, hash, invalid};
use crate::common::{ask_checked, open_session};
use ash_engine::session::{Session, SessionConfig};
use tempfile::TempDir;

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
        Client {
            session: open_session(root.path(), config, 2),
            _root: root,
        }
    }

    /// Retains `bytes` the way an embedder would, returning the alias.
    pub fn retain(&mut self, bytes: &[u8]) -> u64 {
        crate::common::retain(&mut self.session, bytes)
    }

    /// Answers `request` and returns the encoded answer, after checking that it round-trips, that
    /// a success fits L and is charged to the output ceiling, and that a failure is not charged.
    pub fn ask(&mut self, request: &str) -> String {
        ask_checked(&mut self.session, request).1
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
