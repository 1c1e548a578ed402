use super::*;
use crate::checkpoint::diff::{ChangeKind, diff};

fn stamp(n: u64) -> Stamp {
    Stamp {
        size: n,
        mtime_ns: -5 * i128::from(n),
        ctime_ns: i128::MAX - i128::from(n),
        ino: n + 1,
        dev: u64::MAX,
    }
}

fn entry(path: &str, state: Result<Node, Unrestorable>) -> Entry {
    Entry {
        path: path.to_owned(),
        mode: 0o644,
        stamp: stamp(path.len() as u64),
        state,
    }
}

fn file(path: &str, content: &[u8]) -> Entry {
    entry(
        path,
        Ok(Node::File {
            digest: Digest::of(content),
            size: content.len() as u64,
        }),
    )
}

/// One entry of every state, in path order.
fn every_kind() -> Manifest {
    Manifest {
        entries: vec![
            entry("a", Ok(Node::Dir)),
            file("a/f.txt", b"hello"),
            entry(
                "a/link",
                Ok(Node::Symlink {
                    target: b"../\xff/x".to_vec(),
                }),
            ),
            entry("big", Err(Unrestorable::TooLarge { limit: 16 << 20 })),
            entry("budget", Err(Unrestorable::OverBudget)),
            entry("excl", Err(Unrestorable::Excluded)),
            entry("fifo", Err(Unrestorable::Special)),
            entry(
                "locked",
                Err(Unrestorable::Unreadable {
                    reason: "Permission denied (os error 13)".into(),
                }),
            ),
            entry("target", Err(Unrestorable::Ignored)),
            entry("\u{e9}t\u{e9}:x\\y", Err(Unrestorable::StateDir)),
        ],
    }
}

#[test]
fn every_state_round_trips_and_the_id_is_the_hash_of_the_bytes() {
    let m = every_kind();
    let (bytes, id) = m.encode_with_id().unwrap();
    assert_eq!(decode(&bytes).unwrap(), m);
    assert_eq!(id, ManifestId::of(&bytes));
    assert_eq!(encode(&m).unwrap(), bytes, "one encoding per manifest");
    assert_eq!(ManifestId::from_hex(&id.to_hex()).unwrap(), id);
    assert_eq!(
        decode(&encode(&Manifest::default()).unwrap()).unwrap(),
        Manifest::default()
    );
}

#[test]
fn every_truncation_and_every_single_byte_change_is_refused_or_decoded_without_panic() {
    let bytes = encode(&every_kind()).unwrap();
    for len in 0..bytes.len() {
        assert!(
            decode(&bytes[..len]).is_err(),
            "a {len}-byte prefix decoded"
        );
    }
    for i in 0..bytes.len() {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut damaged = bytes.clone();
            damaged[i] ^= flip;
            // Either refused or a manifest that re-encodes to exactly these bytes.
            if let Ok(m) = decode(&damaged) {
                assert_eq!(encode(&m).unwrap(), damaged, "byte {i} ^ {flip:#x}");
            }
        }
    }
}

#[test]
fn the_decoder_names_what_is_wrong() {
    let good = encode(&every_kind()).unwrap();
    assert_eq!(decode(b"NOTAMANI"), Err(ManifestError::BadMagic));
    let mut trailing = good.clone();
    trailing.push(0);
    assert!(matches!(
        decode(&trailing),
        Err(ManifestError::Trailing { .. })
    ));
    // A count far beyond what the bytes hold is refused before anything is allocated.
    let mut huge = MAGIC.to_vec();
    huge.extend_from_slice(&u64::MAX.to_le_bytes());
    assert!(matches!(
        decode(&huge),
        Err(ManifestError::Truncated { .. })
    ));
    // An unknown tag.
    let one = encode(&Manifest {
        entries: vec![entry("x", Ok(Node::Dir))],
    })
    .unwrap();
    let mut bad_tag = one.clone();
    let last = bad_tag.len() - 1;
    bad_tag[last] = 99;
    assert!(matches!(
        decode(&bad_tag),
        Err(ManifestError::BadTag { tag: 99, .. })
    ));
    // A path that is not UTF-8.
    let mut not_utf8 = one.clone();
    not_utf8[18] = 0xff;
    assert!(matches!(
        decode(&not_utf8),
        Err(ManifestError::NotUtf8 { what: "path", .. })
    ));
}

#[test]
fn structure_rules_hold_in_both_directions() {
    let cases: Vec<(Vec<Entry>, &str)> = vec![
        (vec![file("b", b""), file("a", b"")], "ascending"),
        (vec![file("a", b""), file("a", b"")], "ascending"),
        (vec![file("a/b", b"")], "parent"),
        (vec![file("a", b""), file("a/b", b"")], "parent"),
        (
            vec![entry("a", Err(Unrestorable::Ignored)), file("a/b", b"")],
            "parent",
        ),
        // A state directory lists only state below it.
        (
            vec![
                entry(".git", Err(Unrestorable::StateDir)),
                file(".git/b", b""),
            ],
            "parent",
        ),
        (vec![file("", b"")], "empty"),
        (vec![file("/abs", b"")], "empty component"),
        (vec![file("a/", b"")], "empty component"),
        (vec![file("..", b"")], "'..'"),
        (vec![file(".", b"")], "'.'"),
        (vec![file("nul\0", b"")], "NUL"),
        (vec![file(&"x".repeat(4097), b"")], "4096"),
        (
            vec![Entry {
                mode: 0o100644,
                ..file("a", b"")
            }],
            "mode",
        ),
        (
            vec![entry(
                "l",
                Ok(Node::Symlink {
                    target: vec![b'x'; 4097],
                }),
            )],
            "target",
        ),
    ];
    for (entries, why) in cases {
        let m = Manifest { entries };
        let err = encode(&m).unwrap_err();
        assert!(err.to_string().contains(why), "{why}: {err}");
    }
    let state = Manifest {
        entries: vec![
            entry(".git", Err(Unrestorable::StateDir)),
            entry(".git/HEAD", Err(Unrestorable::StateDir)),
        ],
    };
    assert_eq!(decode(&encode(&state).unwrap()).unwrap(), state);
    // What a capture for a restore lists below a kept directory ignored now: stat only.
    let listed = Manifest {
        entries: vec![
            entry("build", Err(Unrestorable::Ignored)),
            entry("build/a.txt", Err(Unrestorable::Ignored)),
            entry("build/sub", Ok(Node::Dir)),
            entry("build/sub/b.txt", Err(Unrestorable::Ignored)),
        ],
    };
    assert_eq!(decode(&encode(&listed).unwrap()).unwrap(), listed);
    let kept_below = Manifest {
        entries: vec![
            entry("build", Err(Unrestorable::Ignored)),
            entry("build/sub", Ok(Node::Dir)),
            file("build/sub/b.txt", b""),
        ],
    };
    assert!(encode(&kept_below).is_err());
    // Encoded by hand past the encoder's checks, the decoder refuses the same thing.
    let mut bytes = encode(&Manifest {
        entries: vec![file("a", b""), file("b", b"")],
    })
    .unwrap();
    let second = bytes.len() / 2 + 8;
    let at = (second..bytes.len()).find(|&i| bytes[i] == b'b').unwrap();
    bytes[at] = b'a';
    let err = decode(&bytes).unwrap_err();
    assert!(err.to_string().contains("ascending"), "{err}");
}

#[test]
fn diff_names_each_kind_of_change() {
    let old = Manifest {
        entries: vec![
            file("changed", b"1"),
            file("chmod", b"same"),
            entry("dir-to-file", Ok(Node::Dir)),
            file("gone", b"x"),
            entry("ignored", Err(Unrestorable::Ignored)),
            entry(
                "link",
                Ok(Node::Symlink {
                    target: b"a".to_vec(),
                }),
            ),
            file("same", b"same"),
            file("too-large", b"?"),
        ],
    };
    let mut new = Manifest {
        entries: vec![
            file("added", b"new"),
            file("changed", b"2"),
            Entry {
                mode: 0o755,
                ..file("chmod", b"same")
            },
            file("dir-to-file", b""),
            Entry {
                stamp: stamp(999),
                ..entry("ignored", Err(Unrestorable::Ignored))
            },
            entry(
                "link",
                Ok(Node::Symlink {
                    target: b"b".to_vec(),
                }),
            ),
            file("same", b"same"),
            entry("too-large", Err(Unrestorable::TooLarge { limit: 1 })),
        ],
    };
    let kinds = |old: &Manifest, new: &Manifest| -> Vec<(String, ChangeKind)> {
        diff(old, new)
            .into_iter()
            .map(|c| (c.path, c.kind))
            .collect()
    };
    assert_eq!(
        kinds(&old, &new),
        vec![
            ("added".to_owned(), ChangeKind::Added),
            ("changed".to_owned(), ChangeKind::Modified),
            ("chmod".to_owned(), ChangeKind::ModeChanged),
            ("dir-to-file".to_owned(), ChangeKind::TypeChanged),
            ("gone".to_owned(), ChangeKind::Removed),
            ("link".to_owned(), ChangeKind::Modified),
            ("too-large".to_owned(), ChangeKind::Modified),
        ]
    );
    assert!(diff(&new, &new).is_empty());
    new.entries.clear();
    assert_eq!(diff(&old, &new).len(), old.entries.len());
}
