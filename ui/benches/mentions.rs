//! `@` completion over a generated 100,000-file tree (issue 43): the index build (the
//! background walk, `.gitignore` honoured) and the answer to a typed query once the index
//! exists (target ≤ 30 ms). Prints the p50 and max of several runs per query.
//!
//! Run: `cargo bench -p ansa-ui --bench mentions`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "bench code: a failed unwrap is the benchmark failing, with its location"
)]

use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ansa_ui::tui::MentionSource;
use ansa_ui::tui::mention::{SHOWN, fuzzy, index};

/// 100 top directories × 10 subdirectories × 100 files.
const TOP: usize = 100;
const SUB: usize = 10;
const FILES: usize = 100;
const RUNS: usize = 21;

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let made = Instant::now();
    generate(dir.path());
    println!(
        "tree: {} files in {} directories, made in {:.1} s",
        TOP * SUB * FILES,
        TOP * SUB + TOP,
        made.elapsed().as_secs_f64()
    );
    let source = MentionSource::new(dir.path().to_path_buf(), Arc::new(|_: &Path| false));
    let mut builds = Vec::new();
    let mut list = None;
    for _ in 0..5 {
        let t = Instant::now();
        let l = index::walk(&source);
        builds.push(t.elapsed());
        list = Some(l);
    }
    let list = list.unwrap();
    // Every generated file and the `.gitignore`; nothing under the ignored `target/`.
    assert_eq!(
        list.files.len(),
        TOP * SUB * FILES + 1,
        "every file indexed"
    );
    report("index build (walk + sort)", &mut builds);
    for query in [
        "",
        "m",
        "mod",
        "src7/sub3/f42",
        "zzzz",
        "s3s4f5rs",
        "handler_77.rs",
    ] {
        let mut times = Vec::new();
        let mut found = 0;
        for _ in 0..RUNS {
            let t = Instant::now();
            found = black_box(fuzzy::best(&list.files, query, SHOWN)).len();
            times.push(t.elapsed());
        }
        report(&format!("complete @{query} ({found} shown)"), &mut times);
    }
}

fn generate(root: &Path) {
    std::fs::write(root.join(".gitignore"), "target/\n").unwrap();
    for top in 0..TOP {
        for sub in 0..SUB {
            let d = root.join(format!("src{top}/sub{sub}"));
            std::fs::create_dir_all(&d).unwrap();
            for f in 0..FILES {
                let name = match f % 4 {
                    0 => format!("mod_{f}.rs"),
                    1 => format!("handler_{f}.rs"),
                    2 => format!("f{f}_test.py"),
                    _ => format!("notes{f}.md"),
                };
                std::fs::write(d.join(name), b"").unwrap();
            }
        }
    }
    // Ignored: never indexed, never counted.
    std::fs::create_dir_all(root.join("target/debug")).unwrap();
    for f in 0..1000 {
        std::fs::write(root.join(format!("target/debug/o{f}.o")), b"").unwrap();
    }
}

fn report(what: &str, times: &mut [Duration]) {
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "{what:<40} p50 {:8.2} ms   max {:8.2} ms",
        ms(times[times.len() / 2]),
        ms(times[times.len() - 1])
    );
}
