//! The shared harness: a session client that checks the invariants of every answer, request
//! builders, expected-answer builders and workspace fixtures.

use ash_engine::ason::{self, Limits};
use ash_engine::compute::ComputePlane;
use ash_engine::protocol::{Data, Request, Response, Status};
use ash_engine::session::{Session, SessionConfig};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use tempfile::TempDir;

/// A generous budget: tok, rec.
pub const BIG: (u64, u64) = (100_000, 10_000);

/// A session plus the client-side view of its path dictionary.
pub struct Client {
    pub session: Session,
    names: HashMap<u64, String>,
    next_id: u64,
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
        let plane = Arc::new(ComputePlane::new(2).expect("compute plane"));
        Client {
            session: Session::open(root, config, plane).expect("open session"),
            names: HashMap::new(),
            next_id: 1,
        }
    }

    pub fn ask(&mut self, request: &str) -> Answer {
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
            let tok = tok.expect("a successful request was valid");
            let limit = before.min(tok * 4);
            assert!(
                text.len() as u64 <= limit,
                "answer of {} bytes exceeds L = {limit}:\n{text}",
                text.len()
            );
            assert_eq!(after, before - text.len() as u64, "a success is charged");
        } else {
            assert_eq!(after, before, "a failure is not charged");
            assert!(
                response.paths.is_empty(),
                "a failure introduces no path ids"
            );
        }
        for (id, path) in &response.paths {
            assert_eq!(
                *id, self.next_id,
                "ids are consecutive across the session: {text}"
            );
            assert!(
                !self.names.values().any(|known| known == path),
                "{path} was already introduced: {text}"
            );
            self.names.insert(*id, path.clone());
            self.next_id += 1;
        }
        Answer { text, response }
    }

    pub fn name(&self, id: u64) -> String {
        self.names
            .get(&id)
            .cloned()
            .unwrap_or_else(|| panic!("path id {id} was never introduced"))
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
        self.session
            .store()
            .get(alias)
            .unwrap_or_else(|| panic!("@{alias} is not retained"))
            .read_all()
            .expect("retained value reads")
    }
}

/// A temporary workspace holding `files` (parents created as needed).
pub fn tree(files: &[(&str, &[u8])]) -> TempDir {
    let dir = tempfile::tempdir().expect("temp workspace");
    for (path, content) in files {
        let abs = dir.path().join(path);
        if let Some(parent) = abs.parent() {
            std::fs::create_dir_all(parent).expect("create parent directories");
        }
        std::fs::write(&abs, content).expect("write test file");
    }
    dir
}

#[cfg(unix)]
pub fn symlink(dir: &TempDir, target: impl AsRef<Path>, link: &str) {
    std::os::unix::fs::symlink(target, dir.path().join(link)).expect("create symlink");
}

pub fn cell(text: &str) -> String {
    let mut out = String::new();
    ason::encode_text(text, &mut out);
    out
}

pub fn paths_cell(paths: &[&str]) -> String {
    let items: Vec<String> = paths.iter().map(|p| cell(p)).collect();
    format!("[{}]", items.join(","))
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

/// The exact encoding of an error answer without references.
pub fn error(id: u64, status: u8, code: u16, retry: u8, stage: u8) -> String {
    format!("t:3\ni:{id}\ns:{status}\ne{{c,q,p,x,a}}:\n{code},{retry},{stage},~,~\nz:0\nr:~\n")
}

pub fn hash(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
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
    config: SessionConfig,
    path: &str,
    expected: &str,
    context: &str,
) {
    for (op, request) in each_op(path) {
        let mut c = Client::with(root, config);
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
