//! What a manifest records for files, modes, directories and symlinks.

use std::os::unix::fs::symlink;

use ash_engine::checkpoint::{Node, Unrestorable, decode, encode};
use ash_engine::protocol::Digest;

use crate::support::{Fixture, entry, file_content, paths};

#[test]
fn files_modes_empty_dirs_and_symlinks_are_recorded() {
    let f = Fixture::new();
    f.write("src/main.rs", b"fn main() {}\n");
    f.write("run.sh", b"#!/bin/sh\necho hi\n");
    f.chmod("run.sh", 0o750);
    f.write("empty.txt", b"");
    std::fs::create_dir_all(f.root.join("a/empty/dir")).unwrap();
    symlink("src/main.rs", f.root.join("link")).unwrap();
    symlink("/etc/passwd", f.root.join("outside")).unwrap();
    symlink("missing/target", f.root.join("dangling")).unwrap();
    std::fs::create_dir(f.root.join("linked-dir-target")).unwrap();
    f.write("linked-dir-target/inner.txt", b"inner");
    symlink("linked-dir-target", f.root.join("dirlink")).unwrap();

    let (store, captured) = f.capture();
    let m = &captured.manifest;
    assert_eq!(
        paths(m),
        [
            "a",
            "a/empty",
            "a/empty/dir",
            "dangling",
            "dirlink",
            "empty.txt",
            "link",
            "linked-dir-target",
            "linked-dir-target/inner.txt",
            "outside",
            "run.sh",
            "src",
            "src/main.rs",
        ]
    );
    assert_eq!(file_content(&store, m, "src/main.rs"), b"fn main() {}\n");
    assert_eq!(file_content(&store, m, "empty.txt"), b"");
    assert_eq!(entry(m, "run.sh").mode, 0o750);
    assert_eq!(
        entry(m, "src/main.rs").state,
        Ok(Node::File {
            digest: Digest::of(b"fn main() {}\n"),
            size: 13
        })
    );
    assert_eq!(entry(m, "a/empty/dir").state, Ok(Node::Dir));
    // Links are kept as links: never followed, whatever they point at.
    for (link, target) in [
        ("link", "src/main.rs"),
        ("outside", "/etc/passwd"),
        ("dangling", "missing/target"),
        ("dirlink", "linked-dir-target"),
    ] {
        assert_eq!(
            entry(m, link).state,
            Ok(Node::Symlink {
                target: target.as_bytes().to_vec()
            }),
            "{link}"
        );
    }
    assert!(m.get("dirlink/inner.txt").is_none());
    let meta = std::fs::symlink_metadata(f.root.join("src/main.rs")).unwrap();
    use std::os::unix::fs::MetadataExt;
    let stamp = entry(m, "src/main.rs").stamp;
    assert_eq!(
        (stamp.size, stamp.ino, stamp.dev),
        (13, meta.ino(), meta.dev())
    );
    assert_eq!(
        stamp.mtime_ns,
        i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec())
    );
    assert_eq!(captured.stats.entries, 13);
    assert_eq!(captured.stats.not_restorable, 0);
    assert!(!captured.over_budget);

    // The manifest the store keeps is the one returned, byte for byte.
    assert_eq!(store.manifest(&captured.id).unwrap(), *m);
    assert_eq!(decode(&encode(m).unwrap()).unwrap(), *m);
}

#[test]
fn a_fifo_is_special_and_never_opened() {
    let f = Fixture::new();
    nix::unistd::mkfifo(
        &f.root.join("pipe"),
        nix::sys::stat::Mode::from_bits_truncate(0o644),
    )
    .unwrap();
    // Opening a fifo for reading without a writer would block the capture forever.
    let (_store, captured) = f.capture();
    assert_eq!(
        entry(&captured.manifest, "pipe").state,
        Err(Unrestorable::Special)
    );
}

#[test]
fn a_name_that_is_not_utf8_is_reported_not_skipped() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let f = Fixture::new();
    std::fs::write(f.root.join(OsStr::from_bytes(b"caf\xe9.txt")), b"x").unwrap();
    // A real file already named like the lossy form must keep its own entry.
    f.write("caf\u{fffd}.txt", b"y");
    let (_store, captured) = f.capture();
    let m = &captured.manifest;
    assert!(matches!(
        entry(m, "caf\u{fffd}.txt").state,
        Ok(Node::File { .. })
    ));
    match &entry(m, "caf\u{fffd}.txt~1").state {
        Err(Unrestorable::Unreadable { reason }) => assert!(reason.contains("UTF-8"), "{reason}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_same_tree_gives_the_same_manifest_id_whatever_the_thread_count() {
    let f = Fixture::new();
    for d in 0..8 {
        for i in 0..40 {
            f.write(
                &format!("d{d}/f{i}.txt"),
                format!("file {d} {i}\n").repeat(i + 1).as_bytes(),
            );
        }
    }
    symlink("d0", f.root.join("link")).unwrap();
    let ids: Vec<_> = [1, 2, 4]
        .into_iter()
        .enumerate()
        .map(|(n, threads)| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let store_dir = f.store_dir.with_file_name(format!("store{n}"));
            let store = ash_engine::checkpoint::Store::open(&store_dir, 1 << 30).unwrap();
            let captured = pool
                .install(|| {
                    ash_engine::checkpoint::capture(&f.ws(), &store, None, &Default::default())
                })
                .unwrap();
            (captured.id, encode(&captured.manifest).unwrap())
        })
        .collect();
    assert!(
        ids.windows(2).all(|w| w[0] == w[1]),
        "ids differ across thread counts"
    );
    assert_eq!(ids[0].0, ash_engine::checkpoint::ManifestId::of(&ids[0].1));
}
