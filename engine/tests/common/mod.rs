//! Harness pieces shared by the integration-test targets that drive a [`Session`]: opening a
//! session on a temporary workspace, answering canonical requests while checking the invariants
//! every answer keeps, reading retained values, workspace fixtures, hashing, and the ASON cell and
//! request builders that are the same everywhere. Target-specific helpers stay in each target.

// Every target includes this module but uses only part of it.
#![allow(dead_code)]

use ash_engine::ason::{self, Document, Limits};
use ash_engine::compute::ComputePlane;
use ash_engine::protocol::{Request, Response, Status};
use ash_engine::session::{Session, SessionConfig};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use tempfile::TempDir;

/// A generous budget: tok, rec.
pub const BIG: (u64, u64) = (100_000, 10_000);

/// Opens a session over `root` with `config` on a compute plane of `workers` threads.
pub fn open_session(root: &Path, config: SessionConfig, workers: usize) -> Session {
    let plane = Arc::new(ComputePlane::new(workers).expect("compute plane"));
    Session::open(root, config, plane).expect("open session")
}

/// Decodes canonical request text into a document.
pub fn document(request: &str) -> Document {
    ason::decode_canonical(request.as_bytes(), &Limits::default())
        .expect("test requests are canonical ASON")
}

/// Types canonical request text.
pub fn request(text: &str) -> Request {
    Request::from_document(&document(text)).expect("valid request")
}

/// Asserts that `text` decodes back to exactly `response`.
pub fn assert_round_trips(response: &Response, text: &str) {
    let decoded =
        Response::decode(text.as_bytes(), &Limits::default()).expect("answers are valid responses");
    assert_eq!(&decoded, response, "answer round-trips: {text}");
}

/// Answers canonical `request` and checks what holds for every answer: the text is the
/// response's encoding and round-trips, a success fits the presentation limit L and is charged
/// to the output ceiling, and a failure is not charged.
pub fn ask_checked(session: &mut Session, request: &str) -> (Response, String) {
    let doc = document(request);
    let tok = Request::from_document(&doc).map(|r| r.budget.tok).ok();
    let before = session.remaining_output();
    let (response, text) = session
        .answer_document(&doc)
        .expect("test requests carry a usable id");
    assert_eq!(
        response.encode(),
        text,
        "the text is the response's encoding"
    );
    assert_round_trips(&response, &text);
    let after = session.remaining_output();
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
    (response, text)
}

/// The client-side view of a session's path dictionary.
pub struct PathNames {
    names: HashMap<u64, String>,
    next_id: u64,
}

impl Default for PathNames {
    fn default() -> Self {
        PathNames {
            names: HashMap::new(),
            next_id: 1,
        }
    }
}

impl PathNames {
    /// Records the `p` delta of an answer: a failure introduces no ids, and ids are consecutive
    /// across the session; with `require_new`, each path must also be new to the session.
    pub fn record(&mut self, response: &Response, text: &str, require_new: bool) {
        if response.status != Status::Success {
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
            if require_new {
                assert!(
                    !self.names.values().any(|known| known == path),
                    "{path} was already introduced: {text}"
                );
            }
            self.names.insert(*id, path.clone());
            self.next_id += 1;
        }
    }

    /// The path introduced as `id`.
    pub fn name(&self, id: u64) -> String {
        self.names
            .get(&id)
            .cloned()
            .unwrap_or_else(|| panic!("path id {id} was never introduced"))
    }
}

/// The bytes behind a reference.
pub fn retained(session: &Session, alias: u64) -> Vec<u8> {
    session
        .store()
        .get(alias)
        .unwrap_or_else(|| panic!("@{alias} is not retained"))
        .read_all()
        .expect("retained value reads")
}

/// Retains `bytes` the way an embedder would, returning the alias.
pub fn retain(session: &mut Session, bytes: &[u8]) -> u64 {
    session
        .store_mut()
        .retain(bytes.to_vec())
        .expect("room in the store")
}

/// A temporary workspace holding `files` (parents created as needed).
pub fn tree(files: &[(&str, &[u8])]) -> TempDir {
    let dir = tempfile::tempdir().expect("temp workspace");
    for (path, content) in files {
        write(&dir, path, content);
    }
    dir
}

/// Writes `content` to `path` below `dir`, creating parent directories.
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

/// Lowercase hex BLAKE3 of `bytes`.
pub fn hash(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

/// Text as an encoded ASON cell.
pub fn cell(text: &str) -> String {
    let mut out = String::new();
    ason::encode_text(text, &mut out);
    out
}

/// A vector cell of encoded paths.
pub fn paths_cell(paths: &[&str]) -> String {
    let items: Vec<String> = paths.iter().map(|p| cell(p)).collect();
    format!("[{}]", items.join(","))
}

/// The exact encoding of an error answer without references.
pub fn error(id: u64, status: u8, code: u16, retry: u8, stage: u8) -> String {
    format!("t:3\ni:{id}\ns:{status}\ne{{c,q,p,x,a}}:\n{code},{retry},{stage},~,~\nz:0\nr:~\n")
}

/// `s:1 100,1,1`.
pub fn invalid(id: u64) -> String {
    error(id, 1, 100, 1, 1)
}
