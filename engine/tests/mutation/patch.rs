//! `p` patch.

use crate::client::*;

const LIB: &[u8] = b"fn main() {}\n";

#[test]
fn commits_edits_and_reports_new_digests() {
    let mut c = Client::new();
    c.write("src/lib.rs", LIB);
    c.write("b.txt", b"alpha beta gamma");
    let h = hash(LIB);
    let hb = hash(b"alpha beta gamma");
    let answer = c.ask(&patch(
        1,
        &[("b.txt", &hb), ("src/lib.rs", &h)],
        &[
            (0, 0, 5, "ALPHA"),
            (0, 11, 5, ""),
            (1, 0, 2, "pub fn"),
            (1, 13, 0, "// end\n"),
        ],
    ));
    let new_b = b"ALPHA beta ".to_vec();
    let new_lib = b"pub fn main() {}\n// end\n".to_vec();
    assert_eq!(
        answer,
        format!(
            "t:3\ni:1\ns:0\n{}d[2]{{p,s,h}}:\n1,0,{}\n2,0,{}\nz:0\nr:~\n",
            dict(&[(1, "b.txt"), (2, "src/lib.rs")]),
            hash(&new_b),
            hash(&new_lib)
        )
    );
    assert_eq!(c.read("b.txt"), Some(new_b));
    assert_eq!(c.read("src/lib.rs"), Some(new_lib));
    // The journal is gone; the state directory stays, private.
    let ash = c.path(".ash");
    assert!(!ash.join("transaction").exists());
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&ash)
        .expect("state dir")
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o700);
}

#[test]
fn preserves_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let mut c = Client::new();
    c.write("run.sh", b"echo hi\n");
    std::fs::set_permissions(c.path("run.sh"), std::fs::Permissions::from_mode(0o751))
        .expect("chmod");
    let answer = c.ask(&patch(
        1,
        &[("run.sh", &hash(b"echo hi\n"))],
        &[(0, 5, 2, "yo")],
    ));
    assert!(answer.starts_with("t:3\ni:1\ns:0\n"), "{answer}");
    let mode = std::fs::metadata(c.path("run.sh"))
        .expect("meta")
        .permissions()
        .mode();
    assert_eq!(mode & 0o7777, 0o751);
    assert_eq!(c.read("run.sh"), Some(b"echo yo\n".to_vec()));
}

#[test]
fn replacement_from_a_reference_and_unknown_reference() {
    let mut c = Client::new();
    c.write("a.txt", b"0123456789");
    let r = c.retain(b"XYZ");
    let answer = c.ask(&patch(
        1,
        &[("a.txt", &hash(b"0123456789"))],
        &[(0, 2, 3, &format!("@{r}"))],
    ));
    assert!(answer.contains(&hash(b"01XYZ56789")), "{answer}");
    assert_eq!(c.read("a.txt"), Some(b"01XYZ56789".to_vec()));
    let answer = c.ask(&patch(
        2,
        &[("a.txt", &hash(b"01XYZ56789"))],
        &[(0, 0, 1, "@99")],
    ));
    assert_eq!(answer, error(2, 4, 700, 1, 2));
    assert_eq!(c.read("a.txt"), Some(b"01XYZ56789".to_vec()));
}

#[test]
fn stale_digest_touches_nothing_and_reports_actual_digests() {
    let mut c = Client::new();
    c.write("a.txt", b"aaa");
    c.write("b.txt", b"bbb");
    let stale = hash(b"old");
    let answer = c.ask(&patch(
        1,
        &[("a.txt", &hash(b"aaa")), ("b.txt", &stale)],
        &[(0, 0, 1, "x"), (1, 0, 1, "y")],
    ));
    assert_eq!(
        answer,
        format!(
            "t:3\ni:1\ns:8\n{}d[2]{{p,s,h}}:\n1,4,~\n2,1,{}\n{}",
            dict(&[(1, "a.txt"), (2, "b.txt")]),
            hash(b"bbb"),
            conflict_tail()
        )
    );
    assert_eq!(c.read("a.txt"), Some(b"aaa".to_vec()));
    assert_eq!(c.read("b.txt"), Some(b"bbb".to_vec()));
}

#[test]
fn validation_rules() {
    let mut c = Client::new();
    c.write("a.txt", b"abc");
    c.write("b.txt", b"abc");
    let h = hash(b"abc");
    let upper = h.to_uppercase();
    let cases: Vec<String> = vec![
        // Uppercase digest.
        patch(1, &[("a.txt", &upper)], &[(0, 0, 1, "x")]),
        // Unsorted and duplicate paths.
        patch(
            1,
            &[("b.txt", &h), ("a.txt", &h)],
            &[(0, 0, 1, "x"), (1, 0, 1, "x")],
        ),
        patch(
            1,
            &[("a.txt", &h), ("a.txt", &h)],
            &[(0, 0, 1, "x"), (1, 0, 1, "x")],
        ),
        // Overlapping and unsorted edits.
        patch(1, &[("a.txt", &h)], &[(0, 0, 2, "x"), (0, 1, 1, "y")]),
        patch(1, &[("a.txt", &h)], &[(0, 2, 0, "x"), (0, 1, 0, "y")]),
        // A path without edits.
        patch(1, &[("a.txt", &h), ("b.txt", &h)], &[(0, 0, 1, "x")]),
        // Edit past the end of the file (checked after the digest).
        patch(1, &[("a.txt", &h)], &[(0, 2, 2, "x")]),
        patch(1, &[("a.txt", &h)], &[(0, 4, 0, "x")]),
        // Bad logical paths.
        patch(1, &[("../a.txt", &h)], &[(0, 0, 1, "x")]),
        patch(1, &[("a//b", &h)], &[(0, 0, 1, "x")]),
    ];
    for (k, req) in cases.iter().enumerate() {
        assert_eq!(c.ask(req), invalid(1), "case {k}: {req}");
    }
    // Flags must be 0.
    let flagged = patch(1, &[("a.txt", &h)], &[(0, 0, 1, "x")]).replace("],0\nu", "],1\nu");
    assert_eq!(c.ask(&flagged), invalid(1));
    assert_eq!(c.read("a.txt"), Some(b"abc".to_vec()));
}

#[test]
fn resolution_errors() {
    let mut c = Client::new();
    c.write("dir/f.txt", b"abc");
    c.write("real/f.txt", b"abc");
    std::os::unix::fs::symlink(c.path("real"), c.path("link")).expect("symlink");
    std::os::unix::fs::symlink(c.path("real/f.txt"), c.path("flink")).expect("symlink");
    let h = hash(b"abc");
    let cases = [
        ("missing.txt", error(1, 4, 201, 1, 2)),
        ("nodir/f.txt", error(1, 4, 201, 1, 2)),
        ("dir", error(1, 5, 202, 1, 2)),
        ("link/f.txt", error(1, 5, 202, 1, 2)),
        ("flink", error(1, 5, 202, 1, 2)),
        ("dir/f.txt/x", error(1, 5, 202, 1, 2)),
        (".", error(1, 5, 202, 1, 2)),
        (".ash/FORMAT", error(1, 3, 300, 0, 3)),
        (".ash", error(1, 3, 300, 0, 3)),
    ];
    for (path, expected) in cases {
        assert_eq!(
            c.ask(&patch(1, &[(path, &h)], &[(0, 0, 1, "x")])),
            expected,
            "{path}"
        );
    }
    assert_eq!(c.read("real/f.txt"), Some(b"abc".to_vec()));
}

#[test]
fn a_file_over_128_mib_is_a_storage_budget_failure_and_stays_untouched() {
    let mut c = Client::new();
    let big = c.path("big.bin");
    let file = std::fs::File::create(&big).expect("create");
    // Sparse: the size is what counts, not the blocks on disk.
    file.set_len(128 * 1024 * 1024 + 1).expect("set_len");
    drop(file);
    let any_digest = hash(b"whatever");
    let answer = c.ask(&patch(1, &[("big.bin", &any_digest)], &[(0, 0, 1, "x")]));
    assert_eq!(answer, error(1, 9, 601, 1, 4));
    assert_eq!(
        std::fs::metadata(&big).expect("still there").len(),
        128 * 1024 * 1024 + 1
    );
    assert!(!c.path(".ash/transaction").exists());
}
