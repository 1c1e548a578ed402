//! The session as embedders use it: batches (`b`) and approval permits (docs/contract/ash-protocol.md §3.4, §8).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

mod approval;
mod batch;
#[path = "../common/mod.rs"]
mod common;

use ash_engine::cancel::CancelToken;
use ash_engine::session::{Session, SessionConfig};
/// Types canonical request text.
pub use common::request;
use common::{assert_round_trips, document, open_session};
use tempfile::TempDir;

/// A session over a temporary workspace holding `Cargo.toml`, `src/lib.rs` and `src/b.rs`.
pub struct Harness {
    pub session: Session,
    pub root: TempDir,
}

impl Harness {
    pub fn open() -> Harness {
        let root = tempfile::tempdir().expect("temp workspace");
        let p = root.path();
        std::fs::write(
            p.join("Cargo.toml"),
            "[package]\nname = \"demo\"\nversion = \"0.1.0\"\n",
        )
        .expect("write Cargo.toml");
        std::fs::create_dir(p.join("src")).expect("mkdir src");
        std::fs::write(p.join("src/lib.rs"), "fn main() {}\n// TODO item\n").expect("write lib");
        std::fs::write(p.join("src/b.rs"), "pub fn b() {}\n").expect("write b");
        let session = open_session(p, SessionConfig::run(), 2);
        Harness { session, root }
    }

    /// Answers request text, checking the answer round-trips.
    pub fn ask(&mut self, text: &str) -> String {
        self.ask_with(text, CancelToken::new())
    }

    /// Answers request text that may be an invalid request.
    pub fn ask_document(&mut self, text: &str) -> String {
        self.session
            .answer_document(&document(text))
            .expect("usable id")
            .1
    }

    /// [`Harness::ask`] with a cancellation token.
    pub fn ask_with(&mut self, text: &str, cancel: CancelToken) -> String {
        let request = request(text);
        let (response, encoded) = self.session.execute_cancellable(&request, cancel);
        assert_round_trips(&response, &encoded);
        encoded
    }

    /// The retained value behind `alias` as text.
    pub fn fetch(&self, alias: u64) -> String {
        String::from_utf8(common::retained(&self.session, alias)).expect("UTF-8")
    }
}

/// Quotes `doc` as an ASON text atom (the embedded `a` cell of a batch row).
pub fn quoted(doc: &str) -> String {
    format!(
        "\"{}\"",
        doc.replace('\\', "\\\\")
            .replace('"', "\\\"")
            .replace('\n', "\\n")
    )
}

/// A batch request: `(id, deps, op, a-document)` rows.
pub fn batch(id: u64, nodes: &[(u64, &str, &str, &str)], budget: &str) -> String {
    let rows: Vec<String> = nodes
        .iter()
        .map(|(i, d, o, a)| format!("{i},{d},{o},{}", quoted(a)))
        .collect();
    format!(
        "t:1\ni:{id}\no:b\na[{}]{{i,d,o,a}}:\n{}\nu{{tok,rec,ms}}:\n{budget}\n",
        nodes.len(),
        rows.join("\n")
    )
}
