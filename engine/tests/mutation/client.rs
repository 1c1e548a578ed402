//! The shared harness: a session over a temporary workspace, file helpers and answer builders.

use ash_engine::ason::{self, Limits};
use ash_engine::compute::ComputePlane;
use ash_engine::protocol::{Response, Status};
use ash_engine::session::{Session, SessionConfig};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tempfile::TempDir;

/// A session on a temporary workspace.
pub struct Client {
    pub session: Session,
    pub root: TempDir,
}

impl Client {
    pub fn new() -> Client {
        let root = tempfile::tempdir().expect("temp workspace");
        let plane = Arc::new(ComputePlane::new(2).expect("compute plane"));
        let session = Session::open(root.path(), SessionConfig::run(), plane).expect("session");
        Client { session, root }
    }

    pub fn path(&self, logical: &str) -> PathBuf {
        self.root.path().join(logical)
    }

    pub fn write(&self, logical: &str, bytes: &[u8]) {
        let p = self.path(logical);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, bytes).expect("write");
    }

    pub fn read(&self, logical: &str) -> Option<Vec<u8>> {
        std::fs::read(self.path(logical)).ok()
    }

    pub fn retain(&mut self, bytes: &[u8]) -> u64 {
        self.session
            .store_mut()
            .retain(bytes.to_vec())
            .expect("room in the store")
    }

    /// Answers `request`, checking that the answer round-trips.
    pub fn ask(&mut self, request: &str) -> String {
        let doc = ason::decode_canonical(request.as_bytes(), &Limits::default())
            .expect("test requests are canonical ASON");
        let (response, text) = self.session.answer_document(&doc).expect("usable id");
        let decoded = Response::decode(text.as_bytes(), &Limits::default()).expect("valid");
        assert_eq!(decoded, response, "round trip: {text}");
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

/// Lowercase hex BLAKE3 of `bytes`.
pub fn hash(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
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

/// Text as an encoded ASON cell.
pub fn cell(text: &str) -> String {
    let mut out = String::new();
    ason::encode_text(text, &mut out);
    out
}

/// The exact encoding of an error answer without data.
pub fn error(id: u64, status: u8, code: u16, retry: u8, stage: u8) -> String {
    format!("t:3\ni:{id}\ns:{status}\ne{{c,q,p,x,a}}:\n{code},{retry},{stage},~,~\nz:0\nr:~\n")
}

/// `s:1 100,1,1`.
pub fn invalid(id: u64) -> String {
    error(id, 1, 100, 1, 1)
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
