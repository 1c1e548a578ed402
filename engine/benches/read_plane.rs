//! Read-plane benchmark: literal search, regex search, recursive list, snapshot capture and
//! `ash run` cold start over a generated tree of 256 files × 32 KiB (and ripgrep on the same tree
//! when installed), then literal search with and without matches on that tree repeated 1×, 4×,
//! 16× and 64× (8 MiB to 512 MiB; `ASH_SCALE_MAX=16` stops at 16×).
//!
//! Run: `cargo bench -p ash-engine --bench read_plane`
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[path = "support/tree.rs"]
mod tree;

use tree::{FILE_BYTES, FILES};

const ROUNDS: usize = 60;

fn main() {
    let dir = tempfile::tempdir().expect("temp dir");
    generate_tree(dir.path(), 1);
    let ash = env!("CARGO_BIN_EXE_ash");
    println!(
        "tree: {FILES} files x {} KiB in {}",
        FILE_BYTES / 1024,
        dir.path().display()
    );
    println!(
        "{:<34} {:>9} {:>9} {:>9}",
        "case", "p50 ms", "p90 ms", "min ms"
    );

    let literal = request("g", "a{q,p,f}:\nneedle_literal,[.],0\n");
    let regex = request("g", "a{q,p,f}:\n\"needle_[a-z]+\\\\(\",[.],1\n");
    let list = request("l", "a{p,d,f}:\n[.],64,0\n");
    let snapshot = request("s", "a{p,d,m,r,f}:\n[.],64,0,~,0\n");
    let read = request("r", "a{p,m,o,n}:\n[d07/f0007.txt],1,1,40\n");

    let mut session = in_process_session(dir.path());
    report("engine: literal search", || session(&literal));
    report("engine: regex search", || session(&regex));
    report("engine: recursive list", || session(&list));
    let snap = report("engine: snapshot capture", || session(&snapshot));
    println!(
        "snapshot capture p50 {:.2} ms (target <= 15 ms)",
        p50(&snap)
    );

    report("ash run: cold start (read 40 lines)", || {
        spawn(ash, dir.path(), &read)
    });
    report("ash run: literal search", || {
        spawn(ash, dir.path(), &literal)
    });
    report("ash run: regex search", || spawn(ash, dir.path(), &regex));
    let ours = measure(|| spawn(ash, dir.path(), &literal));

    let rg_ok = Command::new("rg")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if rg_ok {
        let rg = measure(|| {
            let out = Command::new("rg")
                .args(["-n", "--column", "-F", "needle_literal", "."])
                .current_dir(dir.path())
                .output()
                .expect("rg runs");
            assert!(out.status.success());
        });
        print_row("rg -F (same tree)", &rg);
        let ratio = p50(&ours) / p50(&rg);
        println!("ratio ash run literal search / rg: {ratio:.2}x (target <= 1.5x)");
    } else {
        println!("rg not installed: install ripgrep to compare (apt-get install ripgrep)");
    }
    scale_cases();
}

fn request(op: &str, args: &str) -> String {
    format!("t:1\ni:1\no:{op}\n{args}u{{tok,rec,ms}}:\n1048576,1000000,30000\n")
}

/// Files in 16 directories; every 8th line of each file holds a match for both queries.
fn generate_tree(root: &Path, copies: usize) {
    tree::generate(root, copies, &|line| {
        format!("    let v = needle_literal({line}); // needle_call(x)\n")
    });
}

/// The engine's literal search, with and without matches, on the tree repeated 1×, 4×, 16× and
/// 64× (`ASH_SCALE_MAX` stops earlier); the whole-process comparison with ripgrep on the same
/// trees is the `search_scale` bench.
fn scale_cases() {
    let max: usize = std::env::var("ASH_SCALE_MAX")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    let matches = request("g", "a{q,p,f}:\nneedle_literal,[.],0\n");
    let none = request("g", "a{q,p,f}:\nneedle_absent,[.],0\n");
    for copies in [1usize, 4, 16, 64].into_iter().filter(|c| *c <= max) {
        let dir = tempfile::tempdir().expect("temp dir");
        generate_tree(dir.path(), copies);
        let mut session = in_process_session(dir.path());
        let size = (copies * FILES * FILE_BYTES) >> 20;
        let rounds = if copies >= 16 { 9 } else { 21 };
        for (query, request) in [("matches", &matches), ("no match", &none)] {
            session(request);
            let times = measure_n(rounds, || session(request));
            print_row(&format!("engine: search {size} MiB, {query}"), &times);
        }
    }
}

fn in_process_session(root: &Path) -> impl FnMut(&str) {
    use ash_engine::ason::{Limits, decode_canonical};
    use ash_engine::compute::ComputePlane;
    use ash_engine::session::{Session, SessionConfig};
    let plane = std::sync::Arc::new(ComputePlane::host());
    let config = SessionConfig {
        output_ceiling: u64::MAX,
        ..SessionConfig::run()
    };
    let mut session = Session::open(root, config, plane).expect("session");
    move |req: &str| {
        let doc = decode_canonical(req.as_bytes(), &Limits::default()).expect("canonical request");
        let (_, out) = session.answer_document(&doc).expect("request has an id");
        assert!(
            out.starts_with("t:3\ni:1\ns:0\n"),
            "{}",
            &out[..out.len().min(200)]
        );
    }
}

fn spawn(ash: &str, cwd: &Path, req: &str) {
    use std::io::Write;
    let mut child = Command::new(ash)
        .arg("run")
        .current_dir(cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn ash");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(req.as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    assert!(out.status.success() && out.stdout.starts_with(b"t:3\ni:1\ns:0\n"));
}

fn measure(f: impl FnMut()) -> Vec<Duration> {
    measure_n(ROUNDS, f)
}

fn measure_n(rounds: usize, mut f: impl FnMut()) -> Vec<Duration> {
    for _ in 0..3 {
        f();
    }
    let mut times: Vec<Duration> = (0..rounds)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times
}

fn p50(t: &[Duration]) -> f64 {
    t[t.len() / 2].as_secs_f64() * 1e3
}

fn print_row(name: &str, t: &[Duration]) {
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "{:<34} {:>9.2} {:>9.2} {:>9.2}",
        name,
        p50(t),
        ms(t[t.len() * 9 / 10]),
        ms(t[0])
    );
}

fn report(name: &str, f: impl FnMut()) -> Vec<Duration> {
    let times = measure(f);
    print_row(name, &times);
    times
}
