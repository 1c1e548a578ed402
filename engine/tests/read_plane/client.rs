//! The shared harness: a session client that checks the invariants of every answer, request
//! builders, expected-answer builders and workspace fixtures.

#[cfg(unix)]
pub use crate::common::symlink;
pub use crate::common::{BIG, cell, error, hash, paths_cell, tree};
use crate::common::{PathNames, ask_checked, open_session};
use ash_engine::protocol::{Data, Response};
use ash_engine::session::{Session, SessionConfig};
use std::path::Path;
use tempfile::TempDir;

/// A session plus the client-side view of its path dictionary.
pub struct Client {
    pub session: Session,
    names: PathNames,
}

/// One answered request.
pub struct Answer {
    pub text: String,
    pub response: Response,
}

impl Client {
    pub fn new(root: &Path) -> Client {
        Client::with(root, SessionConfig::run())
    }

    pub fn with(root: &Path, config: SessionConfig) -> Client {
        Client {
            session: open_session(root, config, 2),
            names: PathNames::default(),
        }
    }

    /// Answers `request`, checking the invariants of every answer and that the `p` delta
    /// introduces only new paths with consecutive ids.
    pub fn ask(&mut self, request: &str) -> Answer {
        let (response, text) = ask_checked(&mut self.session, request);
        self.names.record(&response, &text, true);
        Answer { text, response }
    }

    pub fn name(&self, id: u64) -> String {
        self.names.name(id)
    }

    /// `(path, kind, size)` of each list row.
    pub fn list_rows(&self, a: &Answer) -> Vec<(String, u8, Option<u64>)> {
        match &a.response.data {
            Some(Data::List(rows)) => rows
                .iter()
                .map(|r| (self.name(r.path), r.kind.as_u8(), r.size))
                .collect(),
            _ => panic!("not a list answer: {}", a.text),
        }
    }

    /// `(path, line, column, text)` of each search row.
    pub fn search_rows(&self, a: &Answer) -> Vec<(String, u64, u64, String)> {
        match &a.response.data {
            Some(Data::Search(rows)) => rows
                .iter()
                .map(|r| (self.name(r.path), r.line, r.column, r.text.clone()))
                .collect(),
            _ => panic!("not a search answer: {}", a.text),
        }
    }

    /// The bytes behind a reference.
    pub fn retained(&self, alias: u64) -> Vec<u8> {
        crate::common::retained(&self.session, alias)
    }
}

pub fn read_req(
    id: u64,
    paths: &[&str],
    mode: u8,
    offset: u64,
    count: u64,
    (tok, rec): (u64, u64),
) -> String {
    format!(
        "t:1\ni:{id}\no:r\na{{p,m,o,n}}:\n{},{mode},{offset},{count}\nu{{tok,rec,ms}}:\n{tok},{rec},30000\n",
        paths_cell(paths)
    )
}

pub fn list_req(id: u64, paths: &[&str], depth: u64, flags: u64, (tok, rec): (u64, u64)) -> String {
    format!(
        "t:1\ni:{id}\no:l\na{{p,d,f}}:\n{},{depth},{flags}\nu{{tok,rec,ms}}:\n{tok},{rec},30000\n",
        paths_cell(paths)
    )
}

pub fn search_req(
    id: u64,
    query: &str,
    paths: &[&str],
    flags: u64,
    (tok, rec): (u64, u64),
) -> String {
    format!(
        "t:1\ni:{id}\no:g\na{{q,p,f}}:\n{},{},{flags}\nu{{tok,rec,ms}}:\n{tok},{rec},30000\n",
        cell(query),
        paths_cell(paths)
    )
}

pub fn owned<const N: usize>(rows: [(&str, u8, Option<u64>); N]) -> Vec<(String, u8, Option<u64>)> {
    rows.into_iter()
        .map(|(p, k, z)| (p.to_owned(), k, z))
        .collect()
}

pub fn hits<const N: usize>(rows: [(&str, u64, u64, &str); N]) -> Vec<(String, u64, u64, String)> {
    rows.into_iter()
        .map(|(p, l, c, t)| (p.to_owned(), l, c, t.to_owned()))
        .collect()
}

/// One request of each read-side operation naming `path`.
pub fn each_op(path: &str) -> [(&'static str, String); 3] {
    [
        ("read", read_req(1, &[path], 0, 0, 10, BIG)),
        ("list", list_req(1, &[path], 1, 0, BIG)),
        ("search", search_req(1, "needle", &[path], 0, BIG)),
    ]
}

/// Asks each read-side operation naming `path`, each on a fresh session over `root`, and expects
/// the exact answer `expected`; a mismatch names the operation and `context`.
pub fn each_op_answers(
    root: &Path,
    config: &SessionConfig,
    path: &str,
    expected: &str,
    context: &str,
) {
    for (op, request) in each_op(path) {
        let mut c = Client::with(root, config.clone());
        assert_eq!(c.ask(&request).text, expected, "{op} {context}");
    }
}

pub fn list_tree() -> TempDir {
    tree(&[
        ("a/x", b"1"),
        ("a-b", b"22"),
        ("a.txt", b"333"),
        ("b/c.txt", b"hello\n"),
        ("b/d/e.txt", b"e"),
        ("B.txt", b""),
        ("\u{e9}.txt", "\u{e9}".as_bytes()),
    ])
}

/// `t:3 i s:0 [p…] d[1]{p,o,n,h,t,r}: <row> z r:~` for a single read row.
pub fn read_answer(id: u64, delta: &str, row: &str, z: u8) -> String {
    format!("t:3\ni:{id}\ns:0\n{delta}d[1]{{p,o,n,h,t,r}}:\n{row}\nz:{z}\nr:~\n")
}
