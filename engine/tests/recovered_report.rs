//! What `Session::open` reports of the transactions it recovers (issue 40, item 6): the
//! request's tag, given through `Session::execute_attached`, comes back with the outcome, so an
//! embedder can resolve the interrupted request. The interruption is staged in process with
//! the `crash-points` hook, which runs right after the journal is published.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

use ash_engine::ason::{Limits, decode_canonical};
use ash_engine::cancel::CancelToken;
use ash_engine::compute::ComputePlane;
use ash_engine::protocol::Request;
use ash_engine::session::{Attachments, Session, SessionConfig};
use ash_engine::txn::{Outcome, Recovered, Tag, on_published};
use std::path::Path;
use std::sync::Arc;

fn hash(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

fn open(root: &Path) -> Session {
    Session::open(root, SessionConfig::run(), Arc::new(ComputePlane::host())).expect("open")
}

fn patch_both() -> Request {
    let text = format!(
        "t:1\ni:4\no:p\na{{p,h,i,o,n,v,f}}:\n[a.txt,b.txt],[{},{}],[0,1],[0,0],[1,1],[A,B],0\nu{{tok,rec,ms}}:\n1000,16,30000\n",
        hash(b"a\n"),
        hash(b"b\n")
    );
    let doc = decode_canonical(text.as_bytes(), &Limits::default()).expect("canonical");
    Request::from_document(&doc).expect("request")
}

fn workspace() -> tempfile::TempDir {
    let ws = tempfile::tempdir().expect("temp workspace");
    std::fs::write(ws.path().join("a.txt"), b"a\n").expect("write");
    std::fs::write(ws.path().join("b.txt"), b"b\n").expect("write");
    ws
}

fn tagged(tag: &str) -> Attachments {
    Attachments {
        supervision: None,
        tag: Some(Tag::new(tag).expect("tag")),
        live: None,
    }
}

/// Runs the tagged patch, calling `at_publish` with the journal directory right after it is
/// published; `stop` makes the request end there, as a kill would.
fn run(root: &Path, tag: &str, at_publish: impl FnOnce(&Path) + 'static, stop: bool) {
    let journal = root.join(".ash/transaction");
    on_published(move || {
        at_publish(&journal);
        if stop {
            // Unwinds out of the transaction before it applies anything.
            std::panic::resume_unwind(Box::new("interrupted"));
        }
    });
    let mut session = open(root);
    let attached = tagged(tag);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        session.execute_attached(&patch_both(), CancelToken::new(), &attached)
    }));
    assert_eq!(result.is_err(), stop);
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).expect("copy");
        }
    }
}

#[test]
fn an_interrupted_tagged_transaction_is_rolled_back_at_open_and_reported_with_its_tag() {
    let ws = workspace();
    run(ws.path(), "call-7", |_| {}, true);
    assert!(ws.path().join(".ash/transaction/TAG").is_file());
    let session = open(ws.path());
    assert_eq!(
        session.take_recovered(),
        vec![Recovered {
            tag: Some(Tag::new("call-7").expect("tag")),
            paths: vec!["a.txt".into(), "b.txt".into()],
            outcome: Outcome::RolledBack,
        }]
    );
    assert!(session.take_recovered().is_empty(), "reported once");
    assert!(!ws.path().join(".ash/transaction").exists());
    assert_eq!(std::fs::read(ws.path().join("a.txt")).expect("a"), b"a\n");
}

#[test]
fn a_journal_past_its_commit_marker_is_reported_committed() {
    let ws = workspace();
    let saved = tempfile::tempdir().expect("temp");
    let keep = saved.path().join("journal");
    let to = keep.clone();
    run(
        ws.path(),
        "call-8",
        move |journal| copy_tree(journal, &to),
        false,
    );
    assert_eq!(std::fs::read(ws.path().join("a.txt")).expect("a"), b"A\n");
    // The committed journal as a crash right after its marker would have left it.
    let journal = ws.path().join(".ash/transaction");
    copy_tree(&keep, &journal);
    std::fs::write(journal.join("COMMITTED"), b"committed\n").expect("marker");
    let session = open(ws.path());
    assert_eq!(
        session.take_recovered(),
        vec![Recovered {
            tag: Some(Tag::new("call-8").expect("tag")),
            paths: vec!["a.txt".into(), "b.txt".into()],
            outcome: Outcome::Committed,
        }]
    );
    assert!(!journal.exists());
    assert_eq!(std::fs::read(ws.path().join("b.txt")).expect("b"), b"B\n");
}

#[test]
fn an_unprovable_journal_is_reported_unresolved_and_left_alone() {
    let ws = workspace();
    run(ws.path(), "call-9", |_| {}, true);
    // Someone else changed a journaled file: neither its pre- nor its post-state.
    std::fs::write(ws.path().join("a.txt"), b"theirs\n").expect("write");
    let session = open(ws.path());
    let found = session.take_recovered();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].tag, Some(Tag::new("call-9").expect("tag")));
    assert!(
        matches!(&found[0].outcome, Outcome::Unresolved { reason } if reason.contains("a.txt")),
        "{found:?}"
    );
    assert!(
        ws.path().join(".ash/transaction").is_dir(),
        "left for inspection"
    );
    assert_eq!(
        std::fs::read(ws.path().join("a.txt")).expect("a"),
        b"theirs\n"
    );
}

#[test]
fn an_untagged_request_is_reported_without_a_tag_and_a_clean_workspace_reports_nothing() {
    let ws = workspace();
    assert!(open(ws.path()).take_recovered().is_empty());
    let journal = ws.path().join(".ash/transaction");
    on_published(|| std::panic::resume_unwind(Box::new("interrupted")));
    let mut session = open(ws.path());
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        session.execute(&patch_both())
    }));
    assert!(result.is_err());
    assert!(!journal.join("TAG").exists());
    let found = open(ws.path()).take_recovered();
    assert_eq!(found.len(), 1);
    assert_eq!(
        (found[0].tag.as_ref(), &found[0].outcome),
        (None, &Outcome::RolledBack)
    );
}

#[test]
fn the_session_says_which_litter_it_reclaimed() {
    let ws = workspace();
    let mut child = std::process::Command::new("true")
        .spawn()
        .expect("spawn true");
    let pid = child.id();
    child.wait().expect("wait true");
    let name = format!(".ash.new-{pid}-42");
    std::fs::create_dir(ws.path().join(&name)).expect("mkdir");
    let session = open(ws.path());
    assert_eq!(session.reclaimed(), std::slice::from_ref(&name));
    assert!(!ws.path().join(&name).exists());
    assert!(open(ws.path()).reclaimed().is_empty());
}
