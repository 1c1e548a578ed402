//! Checkpoints (issue 41) on a generated tree of 10,000 files / 100 MB in 100 directories:
//!
//! - the first checkpoint of a session (empty store: every file read, hashed, compressed,
//!   stored durably);
//! - a checkpoint of the unchanged tree (nothing read: every stamp matches);
//! - a checkpoint after 100 files changed;
//! - the store's size after 20 turns of small edits against the tree's compressed size (each
//!   file compressed on its own at the store's level);
//! - peak RSS of a first checkpoint, from `wait4` on a child process that takes only that.
//!
//! Run: `cargo bench -p ash-engine --bench checkpoint` (writes about 130 MB under the temp dir).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "bench code: a failed unwrap is the bench failing, with its location"
)]
#![allow(
    unsafe_code,
    reason = "wait4 fills a rusage of the child: its peak RSS"
)]

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use ash_engine::checkpoint::{CaptureRules, Captured, Manifest, Store, capture};
use ash_engine::files::workspace::Workspace;

const DIRS: usize = 100;
const FILES_PER_DIR: usize = 100;
const CHILD: &str = "ASH_CHECKPOINT_BENCH_CHILD";

fn main() {
    if let Ok(dir) = std::env::var(CHILD) {
        let dir = Path::new(&dir);
        let store = Store::open(&dir.join("store-rss"), 1 << 30).unwrap();
        let ws = Workspace::new(dir.join("tree")).unwrap();
        let captured = capture(&ws, &store, None, &CaptureRules::default()).unwrap();
        println!("{} entries", captured.stats.entries);
        return;
    }
    let base = tempfile::tempdir().expect("temp dir");
    let tree = base.path().join("tree");
    let bytes = generate(&tree);
    let compressed = compressed_size(&tree);
    println!(
        "tree: {} files, {:.1} MB, {:.1} MB compressed file by file (zstd 3)",
        DIRS * FILES_PER_DIR,
        bytes as f64 / 1e6,
        compressed as f64 / 1e6
    );
    let ws = Workspace::new(&tree).unwrap();
    let rules = CaptureRules::default();

    let mut first = Vec::new();
    let mut last: Option<(Store, Captured)> = None;
    for round in 0..5 {
        let dir = base.path().join(format!("store-first-{round}"));
        let store = Store::open(&dir, 1 << 30).unwrap();
        let started = Instant::now();
        let captured = capture(&ws, &store, None, &rules).unwrap();
        first.push(started.elapsed());
        // Earlier rounds' stores stay until the end: deleting 10,000 files just before the
        // next round makes ext4's inode allocator skip the recently freed ones, a cost of
        // the bench's own cleanup that a session's first checkpoint does not pay.
        last = Some((store, captured));
    }
    let (store, captured) = last.expect("a first checkpoint");
    report("first checkpoint (empty store)", &first, "≤ 1.5 s");
    println!("  {:?}", captured.stats);

    let mut previous = captured.manifest;
    let mut unchanged = Vec::new();
    for _ in 0..30 {
        let started = Instant::now();
        let again = capture(&ws, &store, Some(&previous), &rules).unwrap();
        unchanged.push(started.elapsed());
        assert_eq!(again.stats.files_read, 0);
        previous = again.manifest;
    }
    report("unchanged tree", &unchanged, "≤ 60 ms");

    let mut changed = Vec::new();
    let mut stats = None;
    for round in 0..10 {
        edit(&tree, round, 100, "changed");
        let started = Instant::now();
        let again = capture(&ws, &store, Some(&previous), &rules).unwrap();
        changed.push(started.elapsed());
        previous = again.manifest;
        stats = Some(again.stats);
    }
    report("100 files changed", &changed, "≤ 100 ms");
    println!("  {stats:?}");
    drop(store);

    let dir = base.path().join("store-turns");
    let store = Store::open(&dir, 1 << 30).unwrap();
    let mut previous: Option<Manifest> = None;
    for turn in 0..=20 {
        if turn > 0 {
            edit(&tree, 1000 + turn, 5, "turn");
        }
        let captured = capture(&ws, &store, previous.as_ref(), &rules).unwrap();
        previous = Some(captured.manifest);
    }
    let used = store.used_bytes();
    println!(
        "store after the first checkpoint and 20 turns of 5 small edits: {:.2} MB = {:.3}× the tree's compressed size (target ≤ 1.1×)",
        used as f64 / 1e6,
        used as f64 / compressed as f64
    );

    let (peak_kib, elapsed) = child_peak(base.path());
    println!(
        "peak RSS of a first checkpoint (child process, wait4): {:.1} MiB in {:.2} s (target ≤ 64 MiB)",
        peak_kib as f64 / 1024.0,
        elapsed.as_secs_f64()
    );
}

/// Writes the tree: 100 directories of 100 files of source-like lines, 2–18 KB each (10 KB on
/// average); every file different. Returns the bytes written.
fn generate(tree: &Path) -> u64 {
    let mut total = 0u64;
    for d in 0..DIRS {
        let dir = tree.join(format!("mod{d:03}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..FILES_PER_DIR {
            let n = d * FILES_PER_DIR + f;
            let size = 2_000 + (n * 7919) % 16_001;
            let text = file_text(n, size);
            total += text.len() as u64;
            std::fs::write(dir.join(format!("file{f:03}.rs")), text).unwrap();
        }
    }
    total
}

fn file_text(n: usize, size: usize) -> String {
    let mut text = String::with_capacity(size + 128);
    let mut line = 0usize;
    let mut x = (n as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    while text.len() < size {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let indent = "    ".repeat((x % 3) as usize);
        match x % 5 {
            0 => text.push_str(&format!(
                "{indent}// step {line} of item {n}: keep {x:x} in mind\n"
            )),
            1 => text.push_str(&format!(
                "{indent}let value_{line} = compute_{n}(input, {});\n",
                x % 1000
            )),
            2 => text.push_str(&format!(
                "{indent}if value_{line} > {} {{ return Err(Error::Limit({line})); }}\n",
                x % 97
            )),
            3 => text.push_str(&format!(
                "{indent}pub fn helper_{n}_{line}(v: u64) -> u64 {{ v.wrapping_mul({}) }}\n",
                x % 65_536
            )),
            _ => text.push_str(&format!(
                "{indent}total += table[{}] * weights[{line}];\n",
                x % 256
            )),
        }
        line += 1;
    }
    text
}

/// A small edit to `count` files picked by `seed`: one line appended.
fn edit(tree: &Path, seed: usize, count: usize, what: &str) {
    for i in 0..count {
        let n = (seed * 7_717 + i * 101) % (DIRS * FILES_PER_DIR);
        let path = tree
            .join(format!("mod{:03}", n / FILES_PER_DIR))
            .join(format!("file{:03}.rs", n % FILES_PER_DIR));
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str(&format!("// {what} {seed} {i}\n"));
        std::fs::write(&path, text).unwrap();
    }
}

fn compressed_size(tree: &Path) -> u64 {
    let mut total = 0u64;
    for d in std::fs::read_dir(tree).unwrap() {
        for f in std::fs::read_dir(d.unwrap().path()).unwrap() {
            let content = std::fs::read(f.unwrap().path()).unwrap();
            total += zstd::bulk::compress(&content, 3).unwrap().len() as u64;
        }
    }
    total
}

fn report(case: &str, times: &[Duration], target: &str) {
    let mut ms: Vec<f64> = times.iter().map(|d| d.as_secs_f64() * 1e3).collect();
    ms.sort_by(f64::total_cmp);
    let pick = |q: f64| ms[((ms.len() - 1) as f64 * q).round() as usize];
    println!(
        "{case}: p50 {:.1} ms, p90 {:.1} ms, min {:.1} ms over {} rounds (target {target})",
        pick(0.5),
        pick(0.9),
        ms[0],
        ms.len()
    );
}

/// Peak RSS (KiB) and wall time of a child process that takes one first checkpoint.
#[expect(
    clippy::zombie_processes,
    reason = "reaped with wait4, which also gives its rusage"
)]
fn child_peak(base: &Path) -> (u64, Duration) {
    let started = Instant::now();
    let child = Command::new(std::env::current_exe().unwrap())
        .env(CHILD, base)
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to overwrite.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own child, not yet reaped; both out-pointers are valid.
    assert_eq!(unsafe { libc::wait4(pid, &mut status, 0, &mut usage) }, pid);
    assert_eq!(status, 0, "the child failed");
    (
        u64::try_from(usage.ru_maxrss).unwrap_or(0),
        started.elapsed(),
    )
}
