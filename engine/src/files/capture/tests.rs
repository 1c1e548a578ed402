use super::*;
use crate::ason::{Limits, decode_canonical};
use crate::protocol::Change;

fn entry(path: &str, kind: EntryKind, size: Option<u64>, content: Option<&[u8]>) -> Entry {
    Entry {
        path: path.to_owned(),
        kind,
        size,
        digest: content.map(Digest::of),
    }
}

fn file(path: &str, content: &[u8]) -> Entry {
    entry(
        path,
        EntryKind::File,
        Some(content.len() as u64),
        Some(content),
    )
}

fn dir(path: &str) -> Entry {
    entry(path, EntryKind::Dir, Some(0), None)
}

fn sample() -> Manifest {
    Manifest {
        scope: Scope {
            paths: vec![".".to_owned(), "caf\u{e9}".to_owned()],
            depth: 3,
            hidden: true,
        },
        entries: vec![
            dir("."),
            file("a b", b"x"),
            entry("l", EntryKind::Symlink, Some(0), Some(b"a b")),
            entry("p", EntryKind::Other, Some(0), None),
        ],
    }
}

#[test]
fn manifest_encoding_is_canonical_and_round_trips() {
    let m = sample();
    let text = m.encode();
    let x = Digest::of(b"x").to_hex();
    let l = Digest::of(b"a b").to_hex();
    assert_eq!(
        text,
        format!(
            "k:s\nv:1\nq{{p,d,f}}:\n[.,\"caf\u{e9}\"],3,1\nd[4]{{p,k,z,h}}:\n.,1,0,~\n\
             \"a b\",0,1,{x}\nl,2,0,{l}\np,3,0,~\n"
        )
    );
    assert!(decode_canonical(text.as_bytes(), &Limits::default()).is_ok());
    assert_eq!(Manifest::decode(text.as_bytes()), Ok(m));
}

#[test]
fn an_empty_manifest_round_trips() {
    let m = Manifest {
        scope: Scope {
            paths: vec!["x".to_owned()],
            depth: 0,
            hidden: false,
        },
        entries: Vec::new(),
    };
    let text = m.encode();
    assert_eq!(text, "k:s\nv:1\nq{p,d,f}:\n[x],0,0\nd[0]{p,k,z,h}:\n");
    assert_eq!(Manifest::decode(text.as_bytes()), Ok(m));
}

#[test]
fn values_that_are_not_manifests_are_refused() {
    let good = sample().encode();
    let h = Digest::of(b"x").to_hex();
    let cases: Vec<(&str, String)> = vec![
        ("empty", String::new()),
        ("plain text", "hello\n".to_owned()),
        ("list evidence", "k:l\nd[0]{p,k,z}:\n".to_owned()),
        ("other version", good.replacen("v:1", "v:2", 1)),
        ("truncated", good[..good.len() - 1].to_owned()),
        ("extra field", format!("{good}x:1\n")),
        (
            "depth over 64",
            "k:s\nv:1\nq{p,d,f}:\n[.],65,0\nd[0]{p,k,z,h}:\n".to_owned(),
        ),
        (
            "flag 2",
            "k:s\nv:1\nq{p,d,f}:\n[.],1,2\nd[0]{p,k,z,h}:\n".to_owned(),
        ),
        (
            "scope not a vector",
            "k:s\nv:1\nq{p,d,f}:\n.,1,0\nd[0]{p,k,z,h}:\n".to_owned(),
        ),
        (
            "wrong columns",
            "k:s\nv:1\nq{p,d,f}:\n[.],1,0\nd[0]{p,k,z}:\n".to_owned(),
        ),
        (
            "unknown kind",
            "k:s\nv:1\nq{p,d,f}:\n[.],1,0\nd[1]{p,k,z,h}:\n.,4,~,~\n".to_owned(),
        ),
        (
            "leading zero size",
            format!("k:s\nv:1\nq{{p,d,f}}:\n[.],1,0\nd[1]{{p,k,z,h}}:\na,0,01,{h}\n"),
        ),
        (
            "uppercase digest",
            format!(
                "k:s\nv:1\nq{{p,d,f}}:\n[.],1,0\nd[1]{{p,k,z,h}}:\na,0,1,{}\n",
                h.to_uppercase()
            ),
        ),
        (
            "unsorted",
            "k:s\nv:1\nq{p,d,f}:\n[.],1,0\nd[2]{p,k,z,h}:\nb,1,~,~\na,1,~,~\n".to_owned(),
        ),
        (
            "duplicate",
            "k:s\nv:1\nq{p,d,f}:\n[.],1,0\nd[2]{p,k,z,h}:\na,1,~,~\na,1,~,~\n".to_owned(),
        ),
    ];
    for (name, text) in cases {
        assert!(Manifest::decode(text.as_bytes()).is_err(), "{name}");
    }
}

#[test]
fn diff_is_an_ordered_merge() {
    let baseline = vec![
        dir("."),
        file("a", b"1"),
        file("b", b"2"),
        file("c", b"3"),
        dir("d"),
        file("z", b"9"),
    ];
    let current = vec![
        dir("."),
        file("a", b"1"),
        file("b", b"two"),
        entry("c", EntryKind::Symlink, Some(0), Some(b"3")),
        file("c2", b"new"),
        file("d", b""),
    ];
    let got: Vec<(Change, &str)> = diff(&baseline, &current)
        .into_iter()
        .map(|(c, e)| (c, e.path.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            (Change::Modified, "b"),
            (Change::Modified, "c"),
            (Change::Added, "c2"),
            (Change::Modified, "d"),
            (Change::Removed, "z"),
        ]
    );
    // Modified and added rows show the current entry, removed rows the baseline entry.
    let rows = diff(&baseline, &current);
    assert_eq!(rows[0].1, &current[2]);
    assert_eq!(rows[4].1, &baseline[5]);
    assert!(diff(&current, &current).is_empty());
    assert_eq!(diff(&[], &current).len(), current.len());
    assert!(
        diff(&baseline, &[])
            .iter()
            .all(|(c, _)| *c == Change::Removed)
    );
}

#[test]
fn a_size_change_alone_is_a_modification() {
    let mut grown = file("a", b"1");
    grown.size = Some(2);
    let before = [file("a", b"1")];
    let got = diff(&before, std::slice::from_ref(&grown));
    assert_eq!(got, [(Change::Modified, &grown)]);
}

#[cfg(unix)]
#[test]
fn capture_hashes_files_and_link_targets_in_walk_order() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let root = tmp.path();
    std::fs::create_dir(root.join("d")).expect("mkdir");
    std::fs::write(root.join("d/f"), b"content").expect("write");
    std::os::unix::fs::symlink("../nowhere", root.join("d/l")).expect("symlink");
    let ws = Workspace::new(root).expect("workspace");
    for workers in [1, 2, 4] {
        let plane = ComputePlane::new(workers).expect("plane");
        let depth = Depth::new(64).expect("depth");
        let got = capture(&plane, &ws, &["."], depth, false, None).expect("capture");
        assert_eq!(
            got,
            Capture {
                entries: vec![
                    dir("."),
                    dir("d"),
                    file("d/f", b"content"),
                    entry("d/l", EntryKind::Symlink, Some(0), Some(b"../nowhere")),
                ],
                partial: false,
            }
        );
    }
}

#[cfg(unix)]
#[test]
fn a_fifo_swapped_in_for_a_file_is_skipped_without_blocking() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let ws = crate::files::workspace::Workspace::new(tmp.path()).expect("workspace");
    let fifo = tmp.path().join("f");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
    assert_eq!(hash_file(&ws, "f"), Ok(None));
    std::os::unix::fs::symlink("f", tmp.path().join("l")).expect("symlink");
    assert_eq!(hash_file(&ws, "l"), Ok(None));
    assert_eq!(hash_file(&ws, "gone"), Ok(None));
}

#[test]
fn hashing_checks_the_deadline_per_file() {
    let tmp = tempfile::tempdir().expect("temp dir");
    std::fs::write(tmp.path().join("f"), b"x").expect("write");
    let ws = Workspace::new(tmp.path()).expect("workspace");
    let plane = ComputePlane::new(1).expect("plane");
    let depth = Depth::new(0).expect("depth");
    // A file root at depth 0 has no directory level: only the per-file check can fire.
    let err = capture(
        &plane,
        &ws,
        &["f"],
        depth,
        false,
        Some(Deadline::after_ms(0)),
    );
    assert!(matches!(err, Err(FsError::TimedOut(_))), "{err:?}");
    let ok = capture(
        &plane,
        &ws,
        &["f"],
        depth,
        false,
        Some(Deadline::after_ms(60_000)),
    );
    assert_eq!(ok.map(|c| c.entries.len()), Ok(1));
}

#[test]
fn walked_sizes_over_the_ceilings_fail_before_hashing() {
    let walked = |sizes: &[u64]| -> Vec<WalkEntry> {
        sizes
            .iter()
            .enumerate()
            .map(|(i, &size)| WalkEntry {
                path: format!("f{i}"),
                kind: EntryKind::File,
                size,
            })
            .collect()
    };
    assert!(check_sizes(&["."], &walked(&[SNAPSHOT_MAX_FILE_BYTES; 8])).is_ok());
    let err = check_sizes(&["."], &walked(&[SNAPSHOT_MAX_FILE_BYTES; 9])).expect_err("total");
    assert!(matches!(
        err,
        FsError::Ceiling {
            ceiling: Ceiling::TotalBytes { .. },
            ..
        }
    ));
    let err = check_sizes(&["."], &walked(&[1, SNAPSHOT_MAX_FILE_BYTES + 1])).expect_err("file");
    assert_eq!(err, file_too_large("f1", SNAPSHOT_MAX_FILE_BYTES + 1));
}
