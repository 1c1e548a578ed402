//! The answers and manifests do not depend on the compute worker count.

use crate::client::*;
use ash_engine::session::SessionConfig;
use tempfile::TempDir;

/// 320 files of varied sizes in nested directories, with hidden entries and symlinks.
fn wide_tree() -> TempDir {
    let ws = tempfile::tempdir().expect("temp workspace");
    for i in 0..320u32 {
        let path = format!("d{}/s{}/f{i:03}.txt", i % 7, i % 3);
        let content = format!("{i}\n").repeat(1 + (i as usize * 37) % 900);
        write(&ws, &path, content.as_bytes());
        if i % 50 == 0 {
            write(&ws, &format!("d{}/.hidden{i}", i % 7), b"h");
        }
    }
    #[cfg(unix)]
    for i in 0..5 {
        symlink(&ws, format!("../d{i}"), &format!("d{}/link{i}", i + 1));
    }
    ws
}

/// Capture, a big and a truncated answer, then a delta after edits, each with its manifest.
fn transcript(ws: &TempDir, workers: usize) -> Vec<String> {
    let mut c = Client::with(ws.path(), SessionConfig::run(), workers);
    let mut out = Vec::new();
    for (id, request) in [
        (1, capture_req(1, &["."], 64, 0)),
        (2, capture_req(2, &["d1", "d3"], 64, 1)),
        (3, snap_req(3, &["."], 64, 0, "~", 0, (900, 1000))),
    ] {
        let a = c.ask(&request);
        assert!(
            a.text.starts_with(&format!("t:3\ni:{id}\ns:0\n")),
            "{}",
            a.text
        );
        out.push(c.retained(reference(&a)));
        out.push(a.text);
    }
    out
}

fn edit(ws: &TempDir) {
    for i in (0..320u32).step_by(9) {
        let path = ws.path().join(format!("d{}/s{}/f{i:03}.txt", i % 7, i % 3));
        std::fs::remove_file(path).expect("remove");
    }
    for i in (1..320u32).step_by(13) {
        write(ws, &format!("d{}/s{}/f{i:03}.txt", i % 7, i % 3), b"edited");
    }
    write(ws, "d6/new.txt", b"new");
}

#[test]
fn answers_and_manifests_do_not_depend_on_the_worker_count() {
    let ws = wide_tree();
    let base = transcript(&ws, 1);
    for workers in [2, 4] {
        assert_eq!(transcript(&ws, workers), base, "{workers} workers");
    }
    // Deltas: each session captures, the tree changes once, then every session takes a delta.
    let mut clients: Vec<Client> = [1, 2, 4]
        .into_iter()
        .map(|w| Client::with(ws.path(), SessionConfig::run(), w))
        .collect();
    for c in &mut clients {
        assert_eq!(reference(&c.ask(&capture_req(1, &["."], 64, 0))), 1);
    }
    edit(&ws);
    let deltas: Vec<(String, String)> = clients
        .iter_mut()
        .map(|c| {
            let a = c.ask(&delta_req(2, &["."], 64, 0, 1));
            (a.text.clone(), c.retained(reference(&a)))
        })
        .collect();
    // 36 removed, 3 of them written again, 25 edited, 1 added: 33 + 25 + 1 rows.
    assert!(deltas[0].0.contains("d[59]{p,c,k,z,h}:"), "{}", deltas[0].0);
    assert!(deltas.iter().all(|d| *d == deltas[0]));
}
