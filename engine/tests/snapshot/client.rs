//! The shared harness: a session client that checks the invariants of every answer, request and
//! expected-answer builders and workspace fixtures.

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

/// `(path, change, kind, size, digest hex)` of one snapshot row.
pub type Row = (String, u8, u8, Option<u64>, Option<String>);

impl Client {
    pub fn new(root: &Path) -> Client {
        Client::with(root, SessionConfig::run(), 2)
    }

    pub fn with(root: &Path, config: SessionConfig, workers: usize) -> Client {
        let plane = Arc::new(ComputePlane::new(workers).expect("compute plane"));
        Client {
            session: Session::open(root, config, plane).expect("open session"),
            names: HashMap::new(),
            next_id: 1,
        }
    }

    /// Answers `request` and checks what holds for every answer: the text is the response's
    /// canonical encoding, a success fits L and is charged, a failure introduces no path ids,
    /// and ids are consecutive and new.
    pub fn ask(&mut self, request: &str) -> Answer {
        let doc = ason::decode_canonical(request.as_bytes(), &Limits::default())
            .expect("test requests are canonical ASON");
        let tok = Request::from_document(&doc).map(|r| r.budget.tok).ok();
        let before = self.session.remaining_output();
        let (response, text) = self
            .session
            .answer_document(&doc)
            .expect("test requests carry a usable id");
        assert_eq!(response.encode(), text, "the text is the encoding");
        let decoded = Response::decode(text.as_bytes(), &Limits::default())
            .expect("answers are valid responses");
        assert_eq!(decoded, response, "answer round-trips: {text}");
        let after = self.session.remaining_output();
        if response.status == Status::Success {
            let limit = before.min(tok.expect("a successful request was valid") * 4);
            assert!(
                text.len() as u64 <= limit,
                "answer over L = {limit}:\n{text}"
            );
            assert_eq!(after, before - text.len() as u64, "a success is charged");
        } else {
            assert_eq!(after, before, "a failure is not charged");
            assert!(response.paths.is_empty(), "a failure introduces no ids");
        }
        for (id, path) in &response.paths {
            assert_eq!(*id, self.next_id, "ids are consecutive: {text}");
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

    /// The rows of a snapshot answer with path names.
    pub fn rows(&self, a: &Answer) -> Vec<Row> {
        match &a.response.data {
            Some(Data::Snapshot(rows)) => rows
                .iter()
                .map(|r| {
                    (
                        self.name(r.path),
                        r.change.as_u8(),
                        r.kind.as_u8(),
                        r.size,
                        r.digest.map(|d| d.to_hex()),
                    )
                })
                .collect(),
            _ => panic!("not a snapshot answer: {}", a.text),
        }
    }

    /// The text behind a reference.
    pub fn retained(&self, alias: u64) -> String {
        let bytes = self
            .session
            .store()
            .get(alias)
            .unwrap_or_else(|| panic!("@{alias} is not retained"))
            .read_all()
            .expect("retained value reads");
        String::from_utf8(bytes).expect("manifests are UTF-8")
    }
}

/// A temporary workspace holding `files` (parents created as needed).
pub fn tree(files: &[(&str, &[u8])]) -> TempDir {
    let dir = tempfile::tempdir().expect("temp workspace");
    for (path, content) in files {
        write(&dir, path, content);
    }
    dir
}

pub fn write(dir: &TempDir, path: &str, content: &[u8]) {
    let abs = dir.path().join(path);
    if let Some(parent) = abs.parent() {
        std::fs::create_dir_all(parent).expect("create parent directories");
    }
    std::fs::write(&abs, content).expect("write test file");
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

/// A snapshot request; `r` is the raw baseline cell (`~` or `@n`).
pub fn snap_req(
    id: u64,
    paths: &[&str],
    depth: u64,
    mode: u64,
    r: &str,
    flags: u64,
    (tok, rec): (u64, u64),
) -> String {
    format!(
        "t:1\ni:{id}\no:s\na{{p,d,m,r,f}}:\n{},{depth},{mode},{r},{flags}\nu{{tok,rec,ms}}:\n{tok},{rec},30000\n",
        paths_cell(paths)
    )
}

/// A capture of `paths` to `depth` with `flags`.
pub fn capture_req(id: u64, paths: &[&str], depth: u64, flags: u64) -> String {
    snap_req(id, paths, depth, 0, "~", flags, BIG)
}

/// A delta of `paths` to `depth` with `flags` against `@baseline`.
pub fn delta_req(id: u64, paths: &[&str], depth: u64, flags: u64, baseline: u64) -> String {
    snap_req(id, paths, depth, 1, &format!("@{baseline}"), flags, BIG)
}

/// The exact encoding of an error answer without references.
pub fn error(id: u64, status: u8, code: u16, retry: u8, stage: u8) -> String {
    format!("t:3\ni:{id}\ns:{status}\ne{{c,q,p,x,a}}:\n{code},{retry},{stage},~,~\nz:0\nr:~\n")
}

pub fn hash(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

/// A row expectation; `content` is hashed when given.
pub fn row(path: &str, change: u8, kind: u8, size: Option<u64>, content: Option<&[u8]>) -> Row {
    (path.to_owned(), change, kind, size, content.map(hash))
}

/// A directory row.
pub fn dir_row(path: &str, change: u8) -> Row {
    row(path, change, 1, None, None)
}

/// A file row.
pub fn file_row(path: &str, change: u8, content: &[u8]) -> Row {
    row(path, change, 0, Some(content.len() as u64), Some(content))
}

/// A symlink row: size 0, digest of the target bytes.
pub fn link_row(path: &str, change: u8, target: &str) -> Row {
    row(path, change, 2, Some(0), Some(target.as_bytes()))
}

/// The manifest text of `scope` (`[paths],d,f`) and `(path, kind, size, digest)` rows.
pub fn manifest(scope: &str, rows: &[Row]) -> String {
    let mut out = format!(
        "k:s\nv:1\nq{{p,d,f}}:\n{scope}\nd[{}]{{p,k,z,h}}:\n",
        rows.len()
    );
    for (p, _, k, z, h) in rows {
        let z = z.map_or("~".to_owned(), |z| z.to_string());
        let h = h.clone().unwrap_or_else(|| "~".to_owned());
        out.push_str(&format!("{},{k},{z},{h}\n", cell(p)));
    }
    out
}

/// The reference `r:@n` of an answer.
pub fn reference(a: &Answer) -> u64 {
    a.response
        .reference
        .unwrap_or_else(|| panic!("no reference: {}", a.text))
}
