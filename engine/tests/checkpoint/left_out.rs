//! What is recorded without its content, and why: `.gitignore`d paths, `exclude` globs, state
//! directories, files over the size limit, contents past the store's budget.

use ash_engine::checkpoint::{CaptureRules, CheckpointError, Node, Store, Unrestorable, capture};

use crate::support::{Fixture, entry, file_content, paths, unrestorable};

#[test]
fn nested_gitignore_files_decide_from_the_deepest() {
    let f = Fixture::new();
    f.write(".gitignore", b"target/\n*.log\n/only-at-root.txt\n");
    f.write("target/debug/big.bin", b"built");
    f.write("app.log", b"log");
    f.write("only-at-root.txt", b"x");
    f.write("sub/only-at-root.txt", b"kept: the pattern is anchored");
    f.write("sub/.gitignore", b"!keep.log\nlocal/\n");
    f.write("sub/keep.log", b"re-included");
    f.write("sub/other.log", b"still ignored");
    f.write("sub/local/cache.txt", b"c");
    f.write(
        "sub/deeper/local",
        b"a file named local: `local/` is for directories",
    );
    let (store, captured) = f.capture();
    let m = &captured.manifest;
    assert_eq!(unrestorable(m, "target"), Unrestorable::Ignored);
    assert!(
        m.get("target/debug").is_none(),
        "an ignored directory is one entry"
    );
    assert_eq!(unrestorable(m, "app.log"), Unrestorable::Ignored);
    assert_eq!(unrestorable(m, "only-at-root.txt"), Unrestorable::Ignored);
    assert_eq!(unrestorable(m, "sub/other.log"), Unrestorable::Ignored);
    assert_eq!(unrestorable(m, "sub/local"), Unrestorable::Ignored);
    assert_eq!(file_content(&store, m, "sub/keep.log"), b"re-included");
    assert!(matches!(
        entry(m, "sub/only-at-root.txt").state,
        Ok(Node::File { .. })
    ));
    assert!(matches!(
        entry(m, "sub/deeper/local").state,
        Ok(Node::File { .. })
    ));
    // The .gitignore files themselves are content like any other.
    assert!(matches!(
        entry(m, "sub/.gitignore").state,
        Ok(Node::File { .. })
    ));
    assert_eq!(captured.stats.not_restorable, 5);
}

#[test]
fn exclude_globs_match_names_anywhere_and_paths_from_the_root() {
    let f = Fixture::new();
    f.write("server.key", b"k");
    f.write("deep/er/client.key", b"k");
    f.write("build/out/a.o", b"o");
    f.write(
        "src/build/keep.rs",
        b"kept: build/** is anchored at the root",
    );
    f.write("secrets/token", b"t");
    f.write("src/lib.rs", b"lib");
    let store = f.store(1 << 30);
    let rules = CaptureRules {
        exclude: vec!["*.key".into(), "build/**".into(), "secrets".into()],
        ..CaptureRules::default()
    };
    let captured = capture(&f.ws(), &store, None, &rules).unwrap();
    let m = &captured.manifest;
    for path in ["server.key", "deep/er/client.key", "build/out", "secrets"] {
        assert_eq!(unrestorable(m, path), Unrestorable::Excluded, "{path}");
    }
    assert!(m.get("secrets/token").is_none());
    assert!(matches!(entry(m, "build").state, Ok(Node::Dir)));
    assert!(matches!(
        entry(m, "src/build/keep.rs").state,
        Ok(Node::File { .. })
    ));
    assert!(matches!(
        entry(m, "src/lib.rs").state,
        Ok(Node::File { .. })
    ));

    let bad = CaptureRules {
        exclude: vec!["a[".into()],
        ..CaptureRules::default()
    };
    match capture(&f.ws(), &store, None, &bad) {
        Err(CheckpointError::BadExclude { pattern, .. }) => assert_eq!(pattern, "a["),
        other => panic!("{other:?}"),
    }
}

#[test]
fn state_directories_and_a_store_inside_the_workspace_are_not_copied() {
    let f = Fixture::new();
    f.write(".ash/FORMAT", b"ash-workspace-state-v1\n");
    f.write(".ansa/config.json", b"{}");
    f.write(".git/HEAD", b"ref: refs/heads/main\n");
    f.write("vendor/lib/.git", b"gitdir: ../../.git/modules/lib\n");
    f.write("sub/.ansa/kept.txt", b"only the root's .ansa is ansa's");
    f.write("code.rs", b"code");
    // A session whose store lives in the workspace must not copy the store into itself.
    let store = Store::open(&f.root.join("state/ckpt"), 1 << 30).unwrap();
    let captured = capture(&f.ws(), &store, None, &CaptureRules::default()).unwrap();
    let m = &captured.manifest;
    for path in [".ash", ".ansa", ".git", "vendor/lib/.git", "state/ckpt"] {
        assert_eq!(unrestorable(m, path), Unrestorable::StateDir, "{path}");
    }
    assert!(matches!(
        entry(m, "sub/.ansa/kept.txt").state,
        Ok(Node::File { .. })
    ));
    assert!(!paths(m).iter().any(|p| p.starts_with("state/ckpt/")));
}

#[test]
fn files_over_the_limit_are_too_large_and_not_read() {
    let f = Fixture::new();
    f.write("small", b"0123456789");
    f.write("big", b"0123456789A");
    let store = f.store(1 << 30);
    let rules = CaptureRules {
        max_file_bytes: 10,
        ..CaptureRules::default()
    };
    let captured = capture(&f.ws(), &store, None, &rules).unwrap();
    let m = &captured.manifest;
    assert_eq!(unrestorable(m, "big"), Unrestorable::TooLarge { limit: 10 });
    assert_eq!(entry(m, "big").stamp.size, 11);
    assert_eq!(file_content(&store, m, "small"), b"0123456789");
    assert_eq!(captured.stats.files_read, 1);
}

#[test]
fn past_the_budget_contents_are_over_budget_and_the_capture_says_so() {
    let f = Fixture::new();
    // Incompressible contents of 4 KiB each, so each object costs about 4 KiB.
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut noise = |n: usize| -> Vec<u8> {
        (0..n)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state as u8
            })
            .collect()
    };
    for i in 0..6 {
        f.write(&format!("f{i}"), &noise(4096));
    }
    let shared = noise(4096);
    f.write("a-copy", &shared);
    f.write("z-copy", &shared);
    let store = f.store(3 * 4096 + 500);
    let captured = capture(&f.ws(), &store, None, &CaptureRules::default()).unwrap();
    let m = &captured.manifest;
    assert!(captured.over_budget);
    // In path order: a-copy, f0 and f1 fit; f2 is the first that does not, and from there on
    // nothing new is kept -- except a content the store already has (z-copy = a-copy).
    assert!(matches!(entry(m, "a-copy").state, Ok(Node::File { .. })));
    assert!(matches!(entry(m, "f0").state, Ok(Node::File { .. })));
    assert!(matches!(entry(m, "f1").state, Ok(Node::File { .. })));
    for path in ["f2", "f3", "f4", "f5"] {
        assert_eq!(unrestorable(m, path), Unrestorable::OverBudget, "{path}");
    }
    assert_eq!(file_content(&store, m, "z-copy"), shared);
    assert!(
        store.used_bytes() <= store.budget_bytes() + 4096,
        "only the manifest may pass it"
    );
    assert_eq!(store.object_count(), 3);
    // Nothing staged for the contents that did not fit is left behind.
    assert_eq!(
        std::fs::read_dir(f.store_dir.join("tmp")).unwrap().count(),
        0
    );
}
