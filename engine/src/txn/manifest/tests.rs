use super::*;

fn sample() -> Vec<Entry> {
    vec![
        Entry {
            kind: Kind::Create,
            path: "new.txt".into(),
            destination: None,
            digest: Digest::of(b"hello\n"),
            size: 6,
            preimage: None,
        },
        Entry {
            kind: Kind::Move,
            path: "a".into(),
            destination: Some("dir/b".into()),
            digest: Digest::of(b"x"),
            size: 1,
            preimage: None,
        },
        Entry {
            kind: Kind::Replace,
            path: "src/lib.rs".into(),
            destination: None,
            digest: Digest::of(b"new"),
            size: 3,
            preimage: Some((Digest::of(b"old!"), 4)),
        },
    ]
}

/// Re-seals a tampered body with a valid checksum, so the structural checks are reached.
fn reseal(mut bytes: Vec<u8>) -> Vec<u8> {
    bytes.truncate(bytes.len() - 32);
    let check = blake3::hash(&bytes);
    bytes.extend_from_slice(check.as_bytes());
    bytes
}

#[test]
fn round_trips() {
    let entries = sample();
    let bytes = encode(&entries);
    assert_eq!(&bytes[..8], b"ASHFS002");
    assert_eq!(&bytes[8..12], &[0, 0, 0, 3]);
    assert_eq!(decode(&bytes), Ok(entries));
}

#[test]
fn rejects_every_corruption() {
    let good = encode(&sample());
    // Any flipped byte breaks the checksum.
    for i in 0..good.len() {
        let mut bad = good.clone();
        bad[i] ^= 0x01;
        assert!(decode(&bad).is_err(), "flip at {i}");
    }
    // Truncation at any point.
    for n in 0..good.len() {
        assert!(decode(&good[..n]).is_err(), "truncated to {n}");
    }
    // Structural problems behind a valid checksum.
    let mut bad_kind = good.clone();
    bad_kind[12] = 9;
    assert!(decode(&reseal(bad_kind)).unwrap_err().contains("kind"));
    let mut bad_count = good.clone();
    bad_count[11] = 0;
    assert!(decode(&reseal(bad_count)).unwrap_err().contains("count"));
    let mut trailing = good[..good.len() - 32].to_vec();
    trailing.push(0);
    trailing.extend_from_slice(&[0; 32]);
    assert!(decode(&reseal(trailing)).unwrap_err().contains("trailing"));
}

#[test]
fn rejects_invalid_shapes_and_paths() {
    type Mutation = Box<dyn Fn(&mut Vec<Entry>)>;
    let cases: Vec<(Mutation, &str)> = vec![
        (
            Box::new(|e| e[0].destination = Some("d".into())),
            "destination",
        ),
        (Box::new(|e| e[1].destination = None), "destination"),
        (Box::new(|e| e[2].preimage = None), "preimage"),
        (
            Box::new(|e| e[0].preimage = Some((Digest([0; 32]), 0))),
            "preimage",
        ),
        (
            Box::new(|e| e[1].destination = Some("new.txt".into())),
            "twice",
        ),
        (Box::new(|e| e[0].path = "../x".into()), "path"),
        (
            Box::new(|e| e[0].path = ".ash/LOCK".into()),
            "mutation target",
        ),
        (Box::new(|e| e[0].path = ".".into()), "mutation target"),
        (Box::new(|e| e[0].size = MAX_FILE_BYTES + 1), "128 MiB"),
        (
            Box::new(|e| {
                e[0].size = MAX_FILE_BYTES;
                e[1].size = 1;
            }),
            "total",
        ),
    ];
    for (mutate, needle) in cases {
        let mut entries = sample();
        mutate(&mut entries);
        let err = decode(&encode(&entries)).unwrap_err();
        assert!(err.contains(needle), "{err} should mention {needle}");
    }
}
