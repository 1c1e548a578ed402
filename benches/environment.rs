//! The environment message's cost before the first generation (issue 14): collecting the
//! facts of a Git work tree of 2,000 and 20,000 tracked files, clean and with one change.
//!
//! Run: `cargo bench -p ansa --bench environment`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use ansa::environment::Environment;

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args([
            "-c",
            "user.name=b",
            "-c",
            "user.email=b@b",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .status()
        .expect("git")
        .success();
    assert!(ok, "git {args:?}");
}

fn median(mut times: Vec<Duration>) -> f64 {
    times.sort();
    times[times.len() / 2].as_secs_f64() * 1e3
}

fn main() {
    for files in [2_000, 20_000] {
        let dir = tempfile::tempdir().unwrap();
        git(dir.path(), &["init", "-q"]);
        for n in 0..files {
            let sub = dir.path().join(format!("d{:03}", n % 200));
            std::fs::create_dir_all(&sub).unwrap();
            std::fs::write(sub.join(format!("f{n}.txt")), format!("file {n}\n")).unwrap();
        }
        git(dir.path(), &["add", "."]);
        git(dir.path(), &["commit", "-q", "-m", "all"]);
        let time = |state: &str| {
            let times: Vec<Duration> = (0..15)
                .map(|_| {
                    let t = Instant::now();
                    let env = Environment::collect(dir.path(), None);
                    std::hint::black_box(env.render());
                    t.elapsed()
                })
                .collect();
            println!(
                "{files} tracked files, {state}: median {:.2} ms over 15 runs",
                median(times)
            );
        };
        // Files written in the second the index was: Git smudged them, so each is hashed.
        time("just committed (every entry racily clean, hashed)");
        std::thread::sleep(Duration::from_millis(1100));
        git(dir.path(), &["status", "--porcelain"]);
        time("settled (git status refreshed the index)");
        let last = dir
            .path()
            .join(format!("d{:03}/f{}.txt", (files - 1) % 200, files - 1));
        std::fs::write(last, "changed\n").unwrap();
        time("settled, one changed file");
    }
}
