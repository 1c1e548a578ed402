//! `ansa sessions` and the `--resume` picker over a home of 5,000 sessions (issue 44):
//! listing from the per-session summaries in-process (`catalog::list`), the whole
//! `ansa sessions` process, the picker's first frame (list + table + draw), and the same
//! listing once every summary is gone (rebuilt from the journals, then saved).
//!
//! Run: `cargo bench -p ansa --bench sessions` (release profile). `ANSA_BENCH_SESSIONS`
//! changes the count.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "bench code: a failed unwrap is the bench failing, with its location"
)]

use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use ansa_sessions::catalog;
use ansa_sessions::{
    AcceptedAction, CommandId, JournalOptions, Mode, Profile, RequestId, Session, SessionId,
    SessionStore,
};

const RUNS: usize = 15;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

/// One real session (a task and its answer), copied `n` times under fresh IDs, each opened
/// once so it has its summary; a tenth of them in another directory.
fn populate(root: &Path, ws: &Path, other: &Path, n: usize) {
    let store = SessionStore::at(root);
    let mut template =
        Session::create_in_home(&store, ws, Profile::Offline, JournalOptions::default()).unwrap();
    template
        .accept(
            CommandId::new("c1").unwrap(),
            AcceptedAction::Submit {
                text: "explain how the parser recovers from a missing semicolon".into(),
                mode: Mode::Basic,
                mentions: Vec::new(),
            },
        )
        .unwrap();
    template
        .finish(
            RequestId(1),
            "It skips to the next statement boundary.".into(),
        )
        .unwrap();
    let journal = std::fs::read(template.dir().join("journal-000001.jsonl")).unwrap();
    let template_dir = template.dir().to_path_buf();
    drop(template);
    std::fs::remove_dir_all(&template_dir).unwrap();
    for i in 0..n {
        let id = SessionId::generate();
        let dir = store.session_dir(&id);
        std::fs::DirBuilder::new().mode(0o700).create(&dir).unwrap();
        let part = dir.join("journal-000001.jsonl");
        std::fs::write(&part, &journal).unwrap();
        std::fs::set_permissions(&part, std::fs::Permissions::from_mode(0o600)).unwrap();
        let cwd = if i % 10 == 0 { other } else { ws };
        let meta = serde_json::json!({
            "schema_version": 1, "id": id.as_str(), "cwd": cwd, "profile": "offline"
        });
        let path = dir.join("session.json");
        std::fs::write(&path, meta.to_string()).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        drop(Session::open(&dir, JournalOptions::default()).unwrap());
    }
}

fn main() {
    let n: usize = std::env::var("ANSA_BENCH_SESSIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5_000);
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("home");
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&root)
        .unwrap();
    let (ws, other) = (tmp.path().join("ws"), tmp.path().join("other"));
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::create_dir_all(&other).unwrap();
    let t = Instant::now();
    populate(&root, &ws, &other, n);
    println!("{n} sessions made in {}", ms(t.elapsed()));
    let store = SessionStore::at(&root);

    let list = median(
        (0..RUNS)
            .map(|_| {
                let t = Instant::now();
                let rows = catalog::list(&store).unwrap();
                assert_eq!(rows.len(), n);
                t.elapsed()
            })
            .collect(),
    );
    println!(
        "catalog::list of {n} sessions: {} (median of {RUNS})",
        ms(list)
    );

    let bin = PathBuf::from(env!("CARGO_BIN_EXE_ansa"));
    let process = median(
        (0..RUNS)
            .map(|_| {
                let t = Instant::now();
                let out = Command::new(&bin)
                    .arg("sessions")
                    .env("ANSA_HOME", &root)
                    .current_dir(&ws)
                    .stdin(Stdio::null())
                    .stdout(Stdio::piped())
                    .stderr(Stdio::inherit())
                    .output()
                    .unwrap();
                let elapsed = t.elapsed();
                assert!(out.status.success());
                assert_eq!(out.stdout.iter().filter(|&&b| b == b'\n').count(), n + 1);
                elapsed
            })
            .collect(),
    );
    println!(
        "`ansa sessions` process, {n} sessions: {} (median of {RUNS}; target ≤ 100 ms)",
        ms(process)
    );

    let picker = median(
        (0..RUNS)
            .map(|_| {
                let t = Instant::now();
                let rows = catalog::list(&store).unwrap();
                let frame = ansa_ui::picker::first_frame(rows, ws.clone(), 0, (120, 40));
                assert!(!frame.is_empty());
                t.elapsed()
            })
            .collect(),
    );
    println!(
        "picker open (list + first frame at 120x40), {n} sessions: {} (median of {RUNS}; target ≤ 150 ms)",
        ms(picker)
    );

    for entry in std::fs::read_dir(store.sessions_dir()).unwrap().flatten() {
        let _ = std::fs::remove_file(entry.path().join(catalog::SUMMARY_FILE));
    }
    let t = Instant::now();
    let rows = catalog::list(&store).unwrap();
    let rebuilt = t.elapsed();
    assert_eq!(rows.len(), n);
    assert!(rows.iter().all(|r| r.turns == 1 && r.damage.is_none()));
    println!(
        "catalog::list with every summary missing (rebuilt from the journals and saved): {}",
        ms(rebuilt)
    );
}
