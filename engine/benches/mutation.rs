//! Guarded mutation: a 1-file patch committed through the transaction journal, fsyncs included.
//! Reports p50/p90 of the whole `p` request and the share spent inside fsync calls.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

use ash_engine::ason::{self, Limits};
use ash_engine::compute::ComputePlane;
use ash_engine::session::{Session, SessionConfig};
use ash_engine::txn::stats::fsync_totals;
use std::sync::Arc;
use std::time::{Duration, Instant};

const ROUNDS: usize = 200;

fn main() {
    let dir = tempfile::tempdir().expect("temp workspace");
    let path = dir.path().join("lib.rs");
    let mut content = b"fn main() {}\n".repeat(300);
    std::fs::write(&path, &content).expect("write");
    let plane = Arc::new(ComputePlane::new(2).expect("compute plane"));
    let mut session = Session::open(dir.path(), SessionConfig::run(), plane).expect("session");
    let mut times = Vec::with_capacity(ROUNDS);
    let mut fsync_share = Vec::with_capacity(ROUNDS);
    let mut fsync_calls = 0;
    for round in 0..ROUNDS + 10 {
        let digest = blake3::hash(&content).to_hex().to_string();
        let request = format!(
            "t:1\ni:{}\no:p\na{{p,h,i,o,n,v,f}}:\n[lib.rs],[{digest}],[0],[0],[2],[v{}],0\nu{{tok,rec,ms}}:\n4096,64,30000\n",
            round + 1,
            round % 10
        );
        let doc =
            ason::decode_canonical(request.as_bytes(), &Limits::default()).expect("canonical");
        let (calls_before, fsync_before) = fsync_totals();
        let started = Instant::now();
        let (_, text) = session.answer_document(&doc).expect("usable id");
        let took = started.elapsed();
        let (calls_after, fsync_after) = fsync_totals();
        assert!(text.contains("\ns:0\n"), "{text}");
        content[..2].copy_from_slice(format!("v{}", round % 10).as_bytes());
        if round >= 10 {
            times.push(took);
            fsync_share.push(fsync_after - fsync_before);
            fsync_calls = calls_after - calls_before;
        }
    }
    let total = times.clone();
    times.sort();
    let mut fs_sorted = fsync_share.clone();
    fs_sorted.sort();
    let p = |v: &[Duration], q: f64| v[((v.len() - 1) as f64 * q) as usize];
    let sum: Duration = total.iter().sum();
    let fsum: Duration = fsync_share.iter().sum();
    println!(
        "patch 1 file ({} B) commit: p50 {:?}, p90 {:?}; fsync p50 {:?} over {fsync_calls} calls; \
         fsync share {:.0}% of total time",
        content.len(),
        p(&times, 0.5),
        p(&times, 0.9),
        p(&fs_sorted, 0.5),
        100.0 * fsum.as_secs_f64() / sum.as_secs_f64()
    );
}
