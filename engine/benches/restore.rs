//! Checkpoint restore (issue 41, target: restoring 100 files ≤ 150 ms): a tree of 1,000
//! files of 4 KiB in 10 directories, of which a turn rewrote 80, deleted 10 and created 10.
//! Each round plans and applies the restore of those 100 paths, alternately to the checkpoint
//! and back to the turn's state, over the real capture and store; fsyncs and
//! the journal included. Reports p50/p90/min of plan, apply and both.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "bench code: a failed unwrap is the bench failing, with its location"
)]

use ash_engine::checkpoint::restore::{OnConflict, apply, plan};
use ash_engine::checkpoint::{CaptureRules, Store, capture};
use ash_engine::files::workspace::Workspace;
use ash_engine::txn::stats::fsync_totals;
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

const WARMUP: usize = 3;
const ROUNDS: usize = 60;

fn wait_for_cleanup(root: &std::path::Path) {
    let busy = || {
        std::fs::read_dir(root.join(".ash")).is_ok_and(|mut list| {
            list.any(|e| {
                e.is_ok_and(|e| {
                    e.file_name()
                        .to_string_lossy()
                        .starts_with("restore.trash-")
                })
            })
        })
    };
    while busy() {
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn content(seed: usize, version: u8) -> Vec<u8> {
    let line = format!("fn item_{seed}() -> u32 {{ {version} }} // padding padding padding\n");
    line.repeat(4096 / line.len() + 1).into_bytes()[..4096].to_vec()
}

fn main() {
    let dir = tempfile::tempdir().expect("temp workspace");
    let root = dir.path();
    for d in 0..10 {
        std::fs::create_dir(root.join(format!("d{d}"))).unwrap();
        for f in 0..100 {
            let i = d * 100 + f;
            // Files 990..1000 do not exist at the checkpoint: the turn creates them.
            if i < 990 {
                std::fs::write(root.join(format!("d{d}/f{f}.rs")), content(i, 0)).unwrap();
            }
        }
    }
    let store_dir = tempfile::tempdir().expect("store dir");
    let store = Store::open(&store_dir.path().join("store"), 1 << 30).unwrap();
    let ws = Workspace::new(root).unwrap();
    let rules = CaptureRules::default();
    let checkpoint = capture(&ws, &store, None, &rules).unwrap().manifest;
    // The turn: 80 rewritten, 10 deleted, 10 created.
    for i in 0..80 {
        let (d, f) = (i * 12 / 100, i * 12 % 100);
        std::fs::write(root.join(format!("d{d}/f{f}.rs")), content(i * 12, 1)).unwrap();
    }
    for i in 0..10 {
        std::fs::remove_file(root.join(format!("d0/f{}.rs", 1 + i * 2))).unwrap();
    }
    for i in 990..1000 {
        std::fs::write(root.join(format!("d9/f{}.rs", i - 900)), content(i, 1)).unwrap();
    }
    let turned = capture(&ws, &store, Some(&checkpoint), &rules)
        .unwrap()
        .manifest;
    let source = &store;
    let (mut plans, mut applies, mut totals) = (Vec::new(), Vec::new(), Vec::new());
    let mut changed = 0;
    let (mut fsyncs, mut fsync_calls) = (Vec::new(), 0);
    for round in 0..WARMUP + ROUNDS {
        let (target, now) = if round % 2 == 0 {
            (&checkpoint, &turned)
        } else {
            (&turned, &checkpoint)
        };
        // The previous round's journal is deleted in the background; a user does not restore
        // twice within milliseconds, so each round starts on a quiet workspace.
        wait_for_cleanup(root);
        let (calls_before, fsync_before) = fsync_totals();
        let started = Instant::now();
        let p = plan(target, now, &BTreeSet::new(), source).unwrap();
        let planned = started.elapsed();
        let done = apply(&ws, &p, target, now, OnConflict::Take, source).unwrap();
        let total = started.elapsed();
        let (calls_after, fsync_after) = fsync_totals();
        fsync_calls = calls_after - calls_before;
        changed = done.restored + done.recreated + done.deleted;
        if round >= WARMUP {
            plans.push(planned);
            applies.push(total - planned);
            totals.push(total);
            fsyncs.push(fsync_after - fsync_before);
        }
    }
    assert_eq!(changed, 100, "the restore changes 100 files");
    let show = |name: &str, v: &mut Vec<Duration>| {
        v.sort();
        let q = |q: f64| v[((v.len() - 1) as f64 * q) as usize].as_secs_f64() * 1e3;
        println!(
            "{name}: p50 {:.2} ms, p90 {:.2} ms, min {:.2} ms",
            q(0.5),
            q(0.9),
            v[0].as_secs_f64() * 1e3
        );
    };
    println!("restore of 100 files (80 rewritten, 10 recreated, 10 deleted) in a 1,000-file tree:");
    show("plan", &mut plans);
    show("apply", &mut applies);
    show("plan + apply", &mut totals);
    show(
        &format!("fsync time summed over threads ({fsync_calls} calls)"),
        &mut fsyncs,
    );
}
