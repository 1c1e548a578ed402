//! Argument rules, path errors, capabilities, work ceilings, truncation and the output budget.

use crate::client::*;
use ash_engine::protocol::Caps;
use ash_engine::session::SessionConfig;
use ash_engine::store::StoreQuota;

const DOT: &[&str] = &["."];

fn invalid(id: u64) -> String {
    error(id, 1, 100, 1, 1)
}

#[test]
fn argument_shapes_are_checked() {
    let ws = tree(&[("a", b"a"), ("b", b"b")]);
    let mut c = Client::new(ws.path());
    let cases = [
        (
            "unsorted paths",
            snap_req(1, &["b", "a"], 1, 0, "~", 0, BIG),
        ),
        (
            "duplicate paths",
            snap_req(1, &["a", "a"], 1, 0, "~", 0, BIG),
        ),
        (
            "capture with a baseline",
            snap_req(1, DOT, 1, 0, "@1", 0, BIG),
        ),
        (
            "delta without a baseline",
            snap_req(1, DOT, 1, 1, "~", 0, BIG),
        ),
        ("delta against @0", snap_req(1, DOT, 1, 1, "@0", 0, BIG)),
        ("delta against text", snap_req(1, DOT, 1, 1, "x", 0, BIG)),
        ("mode 2", snap_req(1, DOT, 1, 2, "~", 0, BIG)),
        ("depth 65", snap_req(1, DOT, 65, 0, "~", 0, BIG)),
        ("flag 2", snap_req(1, DOT, 1, 0, "~", 2, BIG)),
        ("no paths", snap_req(1, &[], 1, 0, "~", 0, BIG)),
        ("path syntax", snap_req(1, &["../a"], 1, 0, "~", 0, BIG)),
        ("absolute path", snap_req(1, &["/etc"], 1, 0, "~", 0, BIG)),
    ];
    for (name, request) in cases {
        assert_eq!(c.ask(&request).text, invalid(1), "{name}");
    }
    assert!(c.session.store().is_empty());
    // Depth 64 and flag 1 are the largest accepted values.
    assert!(
        c.ask(&snap_req(2, &["a", "b"], 64, 0, "~", 1, BIG))
            .text
            .starts_with("t:3\ni:2\ns:0\n")
    );
}

#[cfg(unix)]
#[test]
fn a_root_that_is_itself_a_symlink_is_refused() {
    let ws = tree(&[("a.txt", b"a"), ("dir/b", b"b")]);
    symlink(&ws, "a.txt", "to-file");
    symlink(&ws, "dir", "to-dir");
    symlink(&ws, "../dir", "dir/up");
    let mut c = Client::new(ws.path());
    for paths in [
        &["to-file"][..],
        &["to-dir"],
        &["a.txt", "to-dir"],
        &["dir/up"],
    ] {
        assert_eq!(
            c.ask(&capture_req(1, paths, 1, 0)).text,
            invalid(1),
            "{paths:?}"
        );
    }
    // A symlinked component above the root is resolved like any walk root.
    symlink(&ws, "dir", "alias");
    let a = c.ask(&capture_req(2, &["alias/b"], 0, 0));
    assert_eq!(c.rows(&a), vec![file_row("dir/b", 0, b"b")]);
}

#[cfg(unix)]
#[test]
fn escapes_missing_roots_and_reserved_paths() {
    let outside = tree(&[("secret", b"s")]);
    let ws = tree(&[("a", b"a"), (".ash/FORMAT", b"ash-workspace-state-v1\n")]);
    symlink(&ws, outside.path(), "out");
    symlink(&ws, outside.path().join("secret"), "out-file");
    let mut c = Client::new(ws.path());
    for path in ["out", "out/secret", "out-file"] {
        assert_eq!(
            c.ask(&capture_req(1, &[path], 1, 0)).text,
            error(1, 3, 200, 0, 3),
            "{path}"
        );
    }
    for path in ["missing", "a/below", "missing/x"] {
        assert_eq!(
            c.ask(&capture_req(2, &[path], 1, 0)).text,
            error(2, 4, 201, 1, 2),
            "{path}"
        );
    }
    // The first failing root in request order decides.
    assert_eq!(
        c.ask(&capture_req(3, &["a", "missing", "out"], 1, 0)).text,
        error(3, 4, 201, 1, 2)
    );
    assert_eq!(
        c.ask(&capture_req(4, &[".ash/FORMAT"], 0, 0)).text,
        error(4, 3, 300, 0, 3)
    );
    assert!(c.session.store().is_empty());
}

#[test]
fn snapshot_needs_the_read_capability() {
    let ws = tree(&[("a", b"a")]);
    let config = SessionConfig {
        caps: Caps::WRITE.union(Caps::PROCESS).union(Caps::RETAINED),
        ..SessionConfig::run()
    };
    let mut c = Client::with(ws.path(), config, 2);
    assert_eq!(
        c.ask(&capture_req(1, DOT, 1, 0)).text,
        error(1, 3, 300, 0, 3)
    );
}

#[test]
fn files_over_128_mib_and_totals_over_1_gib_are_storage_budget_failures() {
    let ws = tree(&[("small", b"s")]);
    let big = std::fs::File::create(ws.path().join("big")).expect("create");
    // Sparse: no data is written, and the walk's size check fails before any hashing.
    big.set_len(128 * 1024 * 1024 + 1).expect("grow");
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&capture_req(1, DOT, 1, 0)).text,
        error(1, 9, 601, 1, 4)
    );
    assert_eq!(
        c.ask(&capture_req(2, &["small"], 0, 0)).text.lines().nth(2),
        Some("s:0")
    );
    big.set_len(0).expect("shrink");
    for i in 0..9 {
        let f = std::fs::File::create(ws.path().join(format!("part{i}"))).expect("create");
        f.set_len(128 * 1024 * 1024).expect("grow");
    }
    assert_eq!(
        c.ask(&capture_req(3, DOT, 1, 0)).text,
        error(3, 9, 601, 1, 4)
    );
}

fn ten_files() -> tempfile::TempDir {
    let files: Vec<(String, Vec<u8>)> = (0..10)
        .map(|i| (format!("f{i}.txt"), format!("file {i}\n").into_bytes()))
        .collect();
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_slice()))
        .collect();
    tree(&refs)
}

fn full_rows() -> Vec<Row> {
    std::iter::once(dir_row(".", 0))
        .chain((0..10).map(|i| {
            let path = format!("f{i}.txt");
            file_row(&path, 0, format!("file {i}\n").as_bytes())
        }))
        .collect()
}

#[test]
fn truncated_answers_keep_a_prefix_and_the_manifest_keeps_every_row() {
    let ws = ten_files();
    let full = full_rows();
    for tok in [60, 100, 200] {
        let mut c = Client::new(ws.path());
        let a = c.ask(&snap_req(1, DOT, 1, 0, "~", 0, (tok, 1000)));
        let rows = c.rows(&a);
        assert!(rows.len() < full.len(), "tok {tok}: {}", a.text);
        assert_eq!(rows[..], full[..rows.len()], "tok {tok}");
        assert!(a.text.ends_with("z:11\nr:@1\n"), "tok {tok}: {}", a.text);
        assert_eq!(c.retained(1), manifest("[.],1,0", &full), "tok {tok}");
    }
    // rec caps the rows the same way.
    let mut c = Client::new(ws.path());
    let a = c.ask(&snap_req(1, DOT, 1, 0, "~", 0, (100_000, 3)));
    assert_eq!(c.rows(&a), full[..3]);
    assert!(a.text.ends_with("z:11\nr:@1\n"), "{}", a.text);
    // Exactly enough rows: complete, z:8.
    let mut c = Client::new(ws.path());
    let a = c.ask(&snap_req(1, DOT, 1, 0, "~", 0, (100_000, 11)));
    assert_eq!(c.rows(&a), full);
    assert!(a.text.ends_with("z:8\nr:@1\n"), "{}", a.text);
}

#[test]
fn the_spec_sized_truncation_of_a_delta_retains_the_new_manifest() {
    let ws = ten_files();
    let mut c = Client::new(ws.path());
    c.ask(&capture_req(1, DOT, 1, 0));
    for i in 0..10 {
        write(&ws, &format!("f{i}.txt"), b"changed");
    }
    let a = c.ask(&snap_req(2, DOT, 1, 1, "@1", 0, (100_000, 2)));
    assert_eq!(
        c.rows(&a),
        vec![
            file_row("f0.txt", 2, b"changed"),
            file_row("f1.txt", 2, b"changed"),
        ]
    );
    assert!(a.text.ends_with("z:11\nr:@2\n"), "{}", a.text);
    let current: Vec<Row> = std::iter::once(dir_row(".", 0))
        .chain((0..10).map(|i| file_row(&format!("f{i}.txt"), 0, b"changed")))
        .collect();
    assert_eq!(c.retained(2), manifest("[.],1,0", &current));
}

#[test]
fn when_not_even_an_empty_answer_fits_nothing_is_retained() {
    let ws = ten_files();
    let mut c = Client::new(ws.path());
    assert_eq!(
        c.ask(&snap_req(1, DOT, 1, 0, "~", 0, (10, 1000))).text,
        error(1, 9, 600, 1, 5)
    );
    assert!(c.session.store().is_empty());
}

#[test]
fn a_full_store_fails_at_the_retain_stage() {
    let ws = ten_files();
    let config = SessionConfig {
        store: StoreQuota {
            bytes: 64,
            entries: 4096,
        },
        ..SessionConfig::run()
    };
    let mut c = Client::with(ws.path(), config, 2);
    assert_eq!(
        c.ask(&capture_req(1, DOT, 1, 0)).text,
        error(1, 9, 601, 1, 6)
    );
    assert!(c.session.store().is_empty());
}

#[cfg(unix)]
#[test]
fn unreadable_entries_are_left_out_and_mark_the_answer_partial() {
    // Privileged users read everything, so as root the test re-runs itself as `nobody`, where
    // the rule can be observed (as `engine/tests/checkpoint/unreadable.rs` does).
    if nix::unistd::geteuid().is_root() {
        if std::env::var_os(AS_NOBODY).is_some() {
            drop_to_nobody();
            check_unreadable_entries();
            return;
        }
        let out = std::process::Command::new(std::env::current_exe().expect("test binary"))
            .args([
                "rules::unreadable_entries_are_left_out_and_mark_the_answer_partial",
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(AS_NOBODY, "1")
            .env("TMPDIR", "/tmp")
            .output()
            .expect("re-run as nobody");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains("1 passed"),
            "the unprivileged run failed or ran nothing:\n{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        return;
    }
    check_unreadable_entries();
}

const AS_NOBODY: &str = "ASH_SNAPSHOT_TEST_AS_NOBODY";

/// Drops every privilege: no supplementary groups, group and user `nobody` (65534).
fn drop_to_nobody() {
    use nix::unistd::{Gid, Uid, setgroups, setresgid, setresuid};
    const NOBODY: u32 = 65534;
    setgroups(&[]).expect("setgroups");
    let gid = Gid::from_raw(NOBODY);
    setresgid(gid, gid, gid).expect("setresgid");
    let uid = Uid::from_raw(NOBODY);
    setresuid(uid, uid, uid).expect("setresuid");
    assert_eq!(nix::unistd::geteuid().as_raw(), NOBODY);
}

fn check_unreadable_entries() {
    use std::os::unix::fs::PermissionsExt;
    let ws = tree(&[("a", b"a"), ("locked/x", b"x"), ("secret", b"s")]);
    let lock = |path: &str, mode: u32| {
        std::fs::set_permissions(ws.path().join(path), std::fs::Permissions::from_mode(mode))
            .expect("chmod");
    };
    lock("secret", 0o000);
    lock("locked", 0o000);
    assert!(
        std::fs::File::open(ws.path().join("secret")).is_err(),
        "an unprivileged user cannot read a 0000 file"
    );
    let mut c = Client::new(ws.path());
    let a = c.ask(&capture_req(1, DOT, 64, 0));
    lock("locked", 0o755);
    lock("secret", 0o644);
    assert_eq!(
        c.rows(&a),
        vec![
            dir_row(".", 0),
            file_row("a", 0, b"a"),
            dir_row("locked", 0)
        ]
    );
    assert!(a.text.ends_with("z:24\nr:@1\n"), "{}", a.text);
}

#[cfg(unix)]
#[test]
fn names_that_are_not_utf8_are_left_out_and_mark_the_answer_partial() {
    use std::os::unix::ffi::OsStrExt;
    let ws = tree(&[("a", b"a")]);
    let name = std::ffi::OsStr::from_bytes(b"bad\xff");
    std::fs::write(ws.path().join(name), b"x").expect("write");
    let mut c = Client::new(ws.path());
    let a = c.ask(&capture_req(1, DOT, 1, 0));
    assert_eq!(c.rows(&a), vec![dir_row(".", 0), file_row("a", 0, b"a")]);
    assert!(a.text.ends_with("z:24\nr:@1\n"), "{}", a.text);
}
