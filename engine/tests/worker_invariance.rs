//! Worker-count invariance at the response level (docs/contract/ash-protocol.md §1, §10): the same requests over the
//! same generated tree give byte-identical answers — and identical retained evidence — whatever
//! the size of the compute plane.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

use ash_engine::ason::{self, Limits};
use ash_engine::compute::{ComputePlane, host_parallelism};
use ash_engine::protocol::{Data, Response, Status};
use ash_engine::session::{Session, SessionConfig};
use std::sync::Arc;
use tempfile::TempDir;

/// 6 × 5 directories of 10 files (300), some CRLF, plus hidden files, a non-UTF-8 file, two
/// files large enough that a search maps them and scans them in segments (one half CRLF, one
/// not UTF-8 near its end) and, on Unix, symlinks.
fn generated_tree() -> TempDir {
    let dir = tempfile::tempdir().expect("temp workspace");
    let root = dir.path();
    for d in 0..6u32 {
        for s in 0..5u32 {
            let sub = root.join(format!("d{d}/s{s}"));
            std::fs::create_dir_all(&sub).expect("create directories");
            for f in 0..10u32 {
                let eol = if f == 3 { "\r\n" } else { "\n" };
                let lines = (d + s + f) % 7 + 1;
                let mut content = String::new();
                for line in 0..lines {
                    if (d * 31 + s * 7 + f + line) % 3 == 0 {
                        let pad = " ".repeat(((d + line) % 4) as usize);
                        content.push_str(&format!(
                            "{pad}let needle {line} = Needle::new(\"{d}/{s}/{f}\");{eol}"
                        ));
                    } else {
                        content.push_str(&format!("filler {d} {s} {f} {line}{eol}"));
                    }
                }
                std::fs::write(sub.join(format!("f{f:02}.txt")), content).expect("write file");
            }
        }
    }
    std::fs::create_dir_all(root.join("d0/.hidden")).expect("create hidden dir");
    std::fs::write(root.join("d0/.hidden/x.txt"), "needle 1\n").expect("write hidden file");
    std::fs::write(root.join(".env"), "NEEDLE=1\n").expect("write .env");
    std::fs::write(root.join("d5/s4/bin.dat"), b"needle \xff\xfe\n").expect("write binary file");
    let mut large = String::new();
    for line in 0..40_000u32 {
        let eol = if line < 20_000 { "\r\n" } else { "\n" };
        if line % 37 == 5 {
            large.push_str(&format!(
                "    let needle {line} = Needle::new(\"large\");{eol}"
            ));
        } else {
            large.push_str(&format!(
                "filler line {line} of the large file ünïcode{eol}"
            ));
        }
    }
    std::fs::write(root.join("d4/s2/large.txt"), &large).expect("write large file");
    let mut large_binary = large.into_bytes();
    large_binary.extend_from_slice(b"needle \xff\n");
    std::fs::write(root.join("d2/s1/large.bin"), large_binary).expect("write large binary");
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("../d2", root.join("d1/link")).expect("symlink d1/link");
        std::os::unix::fs::symlink("f00.txt", root.join("d3/s0/alias.txt"))
            .expect("symlink alias.txt");
    }
    dir
}

fn requests() -> Vec<String> {
    let u = |tok: u64, rec: u64| format!("u{{tok,rec,ms}}:\n{tok},{rec},60000\n");
    let read_paths: Vec<String> = (0..20)
        .map(|n| format!("d{}/s{}/f{:02}.txt", n % 6, n % 5, n % 10))
        .collect();
    vec![
        format!(
            "t:1\ni:1\no:l\na{{p,d,f}}:\n[.],64,0\n{}",
            u(1_000_000, 1_000_000)
        ),
        format!(
            "t:1\ni:2\no:l\na{{p,d,f}}:\n[.],64,1\n{}",
            u(1_000_000, 1_000_000)
        ),
        format!(
            "t:1\ni:3\no:l\na{{p,d,f}}:\n[d3,d1,.,d3/s0],2,2\n{}",
            u(1_000_000, 1_000_000)
        ),
        format!(
            "t:1\ni:4\no:g\na{{q,p,f}}:\nneedle,[.],0\n{}",
            u(1_000_000, 1_000_000)
        ),
        format!(
            "t:1\ni:5\no:g\na{{q,p,f}}:\nNEEDLE,[.],6\n{}",
            u(1_000_000, 1_000_000)
        ),
        format!(
            "t:1\ni:6\no:g\na{{q,p,f}}:\n\"need(le)? [0-9]+ =\",[d2,d1],1\n{}",
            u(1_000_000, 1_000_000)
        ),
        format!(
            "t:1\ni:7\no:l\na{{p,d,f}}:\n[.],64,0\n{}",
            u(2_000, 1_000_000)
        ),
        format!(
            "t:1\ni:8\no:g\na{{q,p,f}}:\nneedle,[.],0\n{}",
            u(1_000_000, 50)
        ),
        format!(
            "t:1\ni:9\no:r\na{{p,m,o,n}}:\n[{}],1,1,3\n{}",
            read_paths.join(","),
            u(1_000, 100)
        ),
    ]
}

/// Every answer, then every retained value, from a fresh session on `workers` threads.
fn run_all(root: &std::path::Path, workers: usize) -> (Vec<String>, Vec<Vec<u8>>) {
    let plane = Arc::new(ComputePlane::new(workers).expect("compute plane"));
    let mut session = Session::open(root, SessionConfig::run(), plane).expect("open session");
    let answers: Vec<String> = requests()
        .iter()
        .map(|request| {
            let doc = ason::decode_canonical(request.as_bytes(), &Limits::default())
                .expect("canonical request");
            session.answer_document(&doc).expect("usable id").1
        })
        .collect();
    // `store()` holds the store lock until the statement ends: take the count first.
    let count = session.store().len() as u64;
    let retained = (1..=count)
        .map(|alias| {
            session
                .store()
                .get(alias)
                .expect("aliases are dense")
                .read_all()
                .expect("retained value reads")
        })
        .collect();
    (answers, retained)
}

fn decode(answer: &str) -> Response {
    Response::decode(answer.as_bytes(), &Limits::default()).expect("valid response")
}

#[test]
fn list_search_and_read_answers_do_not_depend_on_the_worker_count() {
    let ws = generated_tree();
    let (expected, retained) = run_all(ws.path(), 1);

    // The answers are substantial, so agreement is meaningful.
    let rows = |answer: &str| decode(answer).data.as_ref().map_or(0, Data::row_count);
    for answer in &expected {
        assert_eq!(decode(answer).status, Status::Success, "{answer}");
    }
    assert!(rows(&expected[0]) > 330, "full listing");
    assert!(
        rows(&expected[1]) > rows(&expected[0]),
        "hidden entries add rows"
    );
    assert!(rows(&expected[3]) > 100, "many matches");
    assert_eq!(
        decode(&expected[3]).flags.bits(),
        4 | 16,
        "CRLF files and a skipped binary"
    );
    for truncated in [&expected[6], &expected[7]] {
        let r = decode(truncated);
        assert_eq!(r.flags.bits() & 11, 11, "truncated: {truncated}");
        assert!(r.reference.is_some());
    }
    assert!(
        retained.len() >= 2,
        "the truncated answers retained their full results"
    );

    let mut counts = vec![2, 4, host_parallelism()];
    counts.dedup();
    for workers in counts {
        let (answers, kept) = run_all(ws.path(), workers);
        for (n, (got, want)) in answers.iter().zip(&expected).enumerate() {
            assert_eq!(got, want, "request {} with {workers} workers", n + 1);
        }
        assert_eq!(kept, retained, "retained evidence with {workers} workers");
    }
}
