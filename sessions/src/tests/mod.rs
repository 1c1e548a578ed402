//! Recovery, damage, permission and storage-failure tests on real files, split by concern;
//! the shared helpers are here.

use std::path::{Path, PathBuf};

use crate::journal::part_path;
use crate::*;

mod access;
mod catalog;
mod damage;
mod home;
mod replay;
mod rewind;
mod storage;

const CWD: &str = "/work/project";

fn open_or_create(dir: &Path, max_part_bytes: u64) -> Result<Session> {
    Session::open_or_create_at(
        dir,
        None,
        Path::new(CWD),
        Profile::Offline,
        JournalOptions { max_part_bytes },
    )
}

fn session_dir() -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().expect("tempdir");
    let d = t.path().join("s");
    (t, d)
}

fn submit(s: &mut Session, id: &str, text: &str) -> Result<Acceptance> {
    let cid = CommandId::new(id).expect("id");
    s.accept(
        cid,
        AcceptedAction::Submit {
            text: text.into(),
            mode: Mode::Basic,
            mentions: Vec::new(),
        },
    )
}

fn part(dir: &Path, n: u32) -> PathBuf {
    part_path(dir, PartNo(n))
}

fn with_turns(dir: &Path, n: usize, max_part_bytes: u64) {
    let mut s = open_or_create(dir, max_part_bytes).expect("open");
    for i in 0..n {
        let Acceptance::Accepted(r) =
            submit(&mut s, &format!("c{i}"), &format!("question {i}")).expect("submit")
        else {
            panic!("replayed")
        };
        s.finish(r, format!("answer {i}")).expect("finish");
    }
}
