//! The shared harness: a session client that checks the invariants of every answer, request and
//! expected-answer builders and workspace fixtures.

#[cfg(unix)]
pub use crate::common::symlink;
pub use crate::common::{BIG, cell, error, hash, paths_cell, tree, write};
use crate::common::{PathNames, ask_checked, open_session};
use ash_engine::protocol::{Data, Response};
use ash_engine::session::{Session, SessionConfig};
use std::path::Path;

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

/// `(path, change, kind, size, digest hex)` of one snapshot row.
pub type Row = (String, u8, u8, Option<u64>, Option<String>);

impl Client {
    pub fn new(root: &Path) -> Client {
        Client::with(root, SessionConfig::run(), 2)
    }

    pub fn with(root: &Path, config: SessionConfig, workers: usize) -> Client {
        Client {
            session: open_session(root, config, workers),
            names: PathNames::default(),
        }
    }

    /// Answers `request` and checks what holds for every answer: the text is the response's
    /// canonical encoding, a success fits L and is charged, a failure introduces no path ids,
    /// and ids are consecutive.
    pub fn ask(&mut self, request: &str) -> Answer {
        let (response, text) = ask_checked(&mut self.session, request);
        self.names.record(&response, &text, false);
        Answer { text, response }
    }

    pub fn name(&self, id: u64) -> String {
        self.names.name(id)
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
        let bytes = crate::common::retained(&self.session, alias);
        String::from_utf8(bytes).expect("manifests are UTF-8")
    }
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

/// A row expectation; `content` is hashed when given.
pub fn row(path: &str, change: u8, kind: u8, size: Option<u64>, content: Option<&[u8]>) -> Row {
    (path.to_owned(), change, kind, size, content.map(hash))
}

/// A directory row.
pub fn dir_row(path: &str, change: u8) -> Row {
    row(path, change, 1, Some(0), None)
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
