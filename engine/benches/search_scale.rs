//! Whole-process literal search as the tree grows, against ripgrep (issue 22): the 8 MiB tree
//! shared with `read_plane` (`support/tree.rs`, 256 files × 32 KiB) repeated 1×, 4×, 16× and
//! 64× (8 MiB to 512 MiB), then 128 MiB of large files (64 × 2 MiB, the same lines), one
//! literal with matches and one without. Each round runs `ash run`
//! (`tok 65536`, `rec 100000`) and `rg -n` on the same tree, alternately, output to /dev/null;
//! the table is the ratio of the medians. Without ripgrep, ash alone is timed and a notice says so.
//! The "read floor" column is the cost of the reads alone on this machine: two threads in this
//! process (no process start, no walk, no scan) opening, reading and closing every file of the
//! tree, by full path, into reused buffers, timed in rounds of its own after the alternating
//! ones; "floor / rg" is that time over ripgrep's.
//!
//! Run: `cargo bench -p ash-engine --bench search_scale` (`ASH_SCALE_MAX=16` stops at 16×,
//! with the large-file tree; `ASH_SCALE_MAX=4` leaves that out too).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "bench code: a failed unwrap is the bench failing, with its location"
)]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[path = "support/tree.rs"]
mod tree;

use tree::{FILE_BYTES, FILES};

/// The marker line: the one the literal with matches finds.
fn marker(line: usize) -> String {
    format!("    let v = needle_marker({line}); // call(x)\n")
}

/// Writes `copies` × 256 files of 32 KiB; every 97th line holds `needle_marker`.
fn generate(root: &Path, copies: usize) {
    tree::generate(root, copies, &marker);
}

fn ash_search(ash: &str, root: &Path, literal: &str) -> Duration {
    let request = format!(
        "t:1\ni:1\no:g\na{{q,p,f}}:\n{literal},[.],0\nu{{tok,rec,ms}}:\n65536,100000,60000\n"
    );
    let t = Instant::now();
    let mut child = Command::new(ash)
        .arg("run")
        .current_dir(root)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(request.as_bytes())
        .unwrap();
    assert!(child.wait().unwrap().success());
    t.elapsed()
}

fn rg_search(root: &Path, literal: &str) -> Duration {
    let t = Instant::now();
    let status = Command::new("rg")
        .args(["-n", literal, "."])
        .current_dir(root)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    // 1 is "no match", which the no-match case expects.
    assert!(matches!(status.code(), Some(0 | 1)));
    t.elapsed()
}

/// Every regular file below `root`, in no particular order.
fn files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_dir() {
                dirs.push(entry.path());
            } else {
                out.push(entry.path());
            }
        }
    }
    out
}

/// Bytes of each file of the large-file tree.
const LARGE_FILE_BYTES: usize = 2 << 20;
/// Files of the large-file tree.
const LARGE_FILES: usize = 64;

/// Writes [`LARGE_FILES`] files of [`LARGE_FILE_BYTES`], lines as [`generate`] writes them.
fn generate_large(root: &Path) {
    for f in 0..LARGE_FILES {
        let text = tree::file_text(f, LARGE_FILE_BYTES, &marker);
        std::fs::write(root.join(format!("f{f:04}.txt")), text).unwrap();
    }
}

/// Two threads read every file whole (one `read` of its size plus one byte, like the engine
/// does for files below its map threshold), files of at most `file_bytes`.
fn read_floor(files: &[PathBuf], file_bytes: usize) -> Duration {
    let t = Instant::now();
    std::thread::scope(|s| {
        for half in 0..2 {
            s.spawn(move || {
                let mut buf = vec![0u8; file_bytes * 2];
                let mut bytes = 0usize;
                for path in files.iter().skip(half).step_by(2) {
                    let mut file = std::fs::File::open(path).unwrap();
                    bytes += file.read(&mut buf).unwrap();
                }
                std::hint::black_box(bytes);
            });
        }
    });
    t.elapsed()
}

/// One tree of the table.
#[derive(Clone, Copy)]
enum Tree {
    /// This many copies of the 8 MiB tree.
    Copies(usize),
    /// The large-file tree.
    Large,
}

impl Tree {
    fn label(self) -> String {
        match self {
            Tree::Copies(copies) => format!(
                "{} MiB ({} files)",
                (copies * FILES * FILE_BYTES) >> 20,
                copies * FILES
            ),
            Tree::Large => format!(
                "{} MiB ({LARGE_FILES} files of {} MiB)",
                (LARGE_FILES * LARGE_FILE_BYTES) >> 20,
                LARGE_FILE_BYTES >> 20
            ),
        }
    }

    fn generate(self, root: &Path) {
        match self {
            Tree::Copies(copies) => generate(root, copies),
            Tree::Large => generate_large(root),
        }
    }

    /// Its largest file.
    fn file_bytes(self) -> usize {
        match self {
            Tree::Copies(_) => FILE_BYTES,
            Tree::Large => LARGE_FILE_BYTES,
        }
    }

    /// Rounds per query: fewer for the larger trees (the large-file tree is 128 MiB, as 16
    /// copies are).
    fn rounds(self) -> usize {
        match self {
            Tree::Copies(64..) => 11,
            Tree::Copies(16..) | Tree::Large => 21,
            Tree::Copies(_) => 31,
        }
    }
}

fn median(mut t: Vec<Duration>) -> f64 {
    t.sort();
    t[t.len() / 2].as_secs_f64() * 1e3
}

fn main() {
    let ash = env!("CARGO_BIN_EXE_ash");
    let max: usize = std::env::var("ASH_SCALE_MAX")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    let rg = Command::new("rg")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !rg {
        println!("ripgrep is not installed: timing ash alone (apt-get install ripgrep to compare)");
    }
    println!(
        "| tree | query | ash p50 ms | rg p50 ms | ash / rg | read floor p50 ms | floor / rg |"
    );
    println!("|---|---|---|---|---|---|---|");
    let mut trees: Vec<Tree> = [1usize, 4, 16, 64]
        .into_iter()
        .filter(|c| *c <= max)
        .map(Tree::Copies)
        .collect();
    if max >= 16 {
        trees.push(Tree::Large);
    }
    for tree in trees {
        let dir = tempfile::tempdir().unwrap();
        tree.generate(dir.path());
        // The tree's pages are written back now, not by the kernel's flusher threads while
        // the rounds run (up to 512 MiB of them, competing for both cores).
        match Command::new("sync").status() {
            Ok(status) if status.success() => {}
            // The rounds still run, but the flusher threads may write the tree back during
            // them, competing for both cores: the table says so rather than hiding it.
            other => println!(
                "`sync` after writing {} failed ({other:?}): its times may include write-back",
                tree.label()
            ),
        }
        let rounds = tree.rounds();
        let tree_files = files(dir.path());
        for (query, literal) in [("matches", "needle_marker"), ("no match", "needle_absent")] {
            // Warm the page cache and both binaries.
            ash_search(ash, dir.path(), literal);
            if rg {
                rg_search(dir.path(), literal);
            }
            let (mut ours, mut theirs, mut floor) = (Vec::new(), Vec::new(), Vec::new());
            for _ in 0..rounds {
                ours.push(ash_search(ash, dir.path(), literal));
                if rg {
                    theirs.push(rg_search(dir.path(), literal));
                }
            }
            // Apart from the alternation: right after this process's two threads read the
            // whole tree, the search that came next (always ash) was 20–25% slower at
            // 128 MiB, and ripgrep was slowed too when it came next instead.
            for _ in 0..rounds {
                floor.push(read_floor(&tree_files, tree.file_bytes()));
            }
            let a = median(ours);
            let f = median(floor);
            let label = tree.label();
            if rg {
                let r = median(theirs);
                println!(
                    "| {label} | {query} | {a:.1} | {r:.1} | {:.2}× | {f:.1} | {:.2}× |",
                    a / r,
                    f / r
                );
            } else {
                println!("| {label} | {query} | {a:.1} | – | – | {f:.1} | – |");
            }
        }
    }
}
