//! The shared harness: a session over a temporary workspace, file helpers and answer builders.

use crate::common::{assert_round_trips, document, open_session};
pub use crate::common::{cell, error, hash, invalid};
use ash_engine::protocol::Status;
use ash_engine::session::{Session, SessionConfig};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// A session on a temporary workspace.
pub struct Client {
    pub session: Session,
    pub root: TempDir,
}

impl Client {
    pub fn new() -> Client {
        let root = tempfile::tempdir().expect("temp workspace");
        let session = open_session(root.path(), SessionConfig::run(), 2);
        Client { session, root }
    }

    pub fn path(&self, logical: &str) -> PathBuf {
        self.root.path().join(logical)
    }

    pub fn write(&self, logical: &str, bytes: &[u8]) {
        crate::common::write(&self.root, logical, bytes);
    }

    pub fn read(&self, logical: &str) -> Option<Vec<u8>> {
        std::fs::read(self.path(logical)).ok()
    }

    pub fn retain(&mut self, bytes: &[u8]) -> u64 {
        crate::common::retain(&mut self.session, bytes)
    }

    /// Answers `request`, checking that the answer round-trips.
    pub fn ask(&mut self, request: &str) -> String {
        let (response, text) = self
            .session
            .answer_document(&document(request))
            .expect("usable id");
        assert_round_trips(&response, &text);
        if response.status != Status::Success {
            assert!(response.error.is_some());
        }
        text
    }

    /// Every file below the root except `.ash`, with its bytes.
    pub fn files(&self) -> BTreeMap<String, Vec<u8>> {
        let mut out = BTreeMap::new();
        collect(self.root.path(), self.root.path(), &mut out);
        out
    }
}

fn collect(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
    for entry in std::fs::read_dir(dir).expect("read_dir") {
        let entry = entry.expect("entry");
        let path = entry.path();
        let rel = path.strip_prefix(root).expect("below root");
        let name = rel.to_string_lossy().into_owned();
        if name == ".ash" {
            continue;
        }
        let kind = entry.file_type().expect("type");
        if kind.is_dir() {
            collect(root, &path, out);
        } else {
            out.insert(name, std::fs::read(&path).unwrap_or_default());
        }
    }
}

/// A request with record or table arguments `a` (already encoded, without the `a` key line).
pub fn request(id: u64, op: char, a: &str) -> String {
    format!("t:1\ni:{id}\no:{op}\n{a}u{{tok,rec,ms}}:\n100000,10000,30000\n")
}

/// A patch request over `(path, digest)` files and `(file, offset, delete, value)` edits.
pub fn patch(id: u64, files: &[(&str, &str)], edits: &[(u64, u64, u64, &str)]) -> String {
    let join = |v: Vec<String>| v.join(",");
    let p = join(files.iter().map(|f| cell(f.0)).collect());
    let h = join(files.iter().map(|f| f.1.to_owned()).collect());
    let i = join(edits.iter().map(|e| e.0.to_string()).collect());
    let o = join(edits.iter().map(|e| e.1.to_string()).collect());
    let n = join(edits.iter().map(|e| e.2.to_string()).collect());
    let v = join(edits.iter().map(|e| value(e.3)).collect());
    request(
        id,
        'p',
        &format!("a{{p,h,i,o,n,v,f}}:\n[{p}],[{h}],[{i}],[{o}],[{n}],[{v}],0\n"),
    )
}

/// An fs request over pre-encoded rows `k,p,q,h,v` (ids are 1..).
pub fn fs(id: u64, rows: &[String]) -> String {
    let mut a = format!("a[{}]{{i,k,p,q,h,v}}:\n", rows.len());
    for (i, r) in rows.iter().enumerate() {
        a.push_str(&format!("{},{r}\n", i + 1));
    }
    request(id, 'f', &a)
}

/// `v` value: `@N` stays a reference, anything else is encoded text.
pub fn value(v: &str) -> String {
    if v.starts_with('@') {
        v.to_owned()
    } else {
        cell(v)
    }
}

/// A path-dictionary block for new paths `(id, path)`.
pub fn dict(paths: &[(u64, &str)]) -> String {
    if paths.is_empty() {
        return String::new();
    }
    let mut out = format!("p[{}]{{i,v}}:\n", paths.len());
    for (id, p) in paths {
        out.push_str(&format!("{id},{}\n", cell(p)));
    }
    out
}

/// The end of a 501 answer.
pub fn conflict_tail() -> String {
    "e{c,q,p,x,a}:\n501,1,4,~,~\nz:0\nr:~\n".to_owned()
}
