//! The store: private, verified on every read, reopened with what it holds.

use std::os::unix::fs::PermissionsExt;

use ash_engine::checkpoint::restore::{ObjectSource, SourceError};
use ash_engine::checkpoint::{CheckpointError, ManifestId, Node, Store};

use crate::support::{Fixture, entry, files_below};

#[test]
fn the_store_directory_is_private() {
    let f = Fixture::new();
    f.write("a", b"a");
    let (_store, _captured) = f.capture();
    for dir in ["", "objects", "manifests", "tmp"] {
        let mode = std::fs::metadata(f.store_dir.join(dir))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o700, "{dir}");
    }
    // An existing store others could read is made private when opened.
    std::fs::set_permissions(&f.store_dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    Store::open(&f.store_dir, 1 << 30).unwrap();
    let mode = std::fs::metadata(&f.store_dir)
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o700);
}

#[test]
fn a_symlinked_store_is_refused() {
    let f = Fixture::new();
    let real = f.store_dir.with_file_name("real");
    std::fs::create_dir(&real).unwrap();
    std::os::unix::fs::symlink(&real, &f.store_dir).unwrap();
    assert!(matches!(
        Store::open(&f.store_dir, 1 << 30),
        Err(CheckpointError::Io { .. })
    ));
}

#[test]
fn a_corrupt_object_is_detected_on_read() {
    let f = Fixture::new();
    f.write("a.txt", &b"some text that compresses\n".repeat(50));
    f.write("b.txt", b"short");
    let (store, captured) = f.capture();
    let Ok(Node::File { digest, .. }) = entry(&captured.manifest, "a.txt").state.clone() else {
        panic!("a.txt not kept");
    };
    let hex = digest.to_hex();
    let object = f.store_dir.join("objects").join(&hex[..2]).join(&hex[2..]);
    let original = std::fs::read(&object).unwrap();

    // A flipped byte in the compressed frame.
    let mut damaged = original.clone();
    let last = damaged.len() - 1;
    damaged[last] ^= 0x55;
    std::fs::write(&object, &damaged).unwrap();
    let err = store.object(&digest).unwrap_err();
    assert!(
        matches!(err, CheckpointError::CorruptObject { digest: d, .. } if d == digest),
        "{err}"
    );

    // A valid frame of other content under this name.
    let other = f.store_dir.join("objects");
    let Ok(Node::File { digest: b, .. }) = entry(&captured.manifest, "b.txt").state.clone() else {
        panic!("b.txt not kept");
    };
    let bhex = b.to_hex();
    std::fs::copy(other.join(&bhex[..2]).join(&bhex[2..]), &object).unwrap();
    let err = store.object(&digest).unwrap_err();
    assert!(err.to_string().contains(&hex), "{err}");
    assert!(
        matches!(err, CheckpointError::CorruptObject { .. }),
        "{err}"
    );

    // Truncated to its header, and empty.
    std::fs::write(&object, &original[..16]).unwrap();
    assert!(matches!(
        store.object(&digest),
        Err(CheckpointError::CorruptObject { .. })
    ));
    std::fs::write(&object, b"").unwrap();
    assert!(matches!(
        store.object(&digest),
        Err(CheckpointError::CorruptObject { .. })
    ));

    std::fs::remove_file(&object).unwrap();
    assert!(matches!(store.object(&digest), Err(CheckpointError::MissingObject(d)) if d == digest));
    assert_eq!(
        ObjectSource::object(&store, &digest),
        Err(SourceError::Missing(digest))
    );
    std::fs::write(&object, &original).unwrap();
    assert_eq!(
        store.object(&digest).unwrap(),
        b"some text that compresses\n".repeat(50)
    );
}

#[test]
fn a_corrupt_or_missing_manifest_is_detected() {
    let f = Fixture::new();
    f.write("a", b"a");
    let (_store, captured) = f.capture();
    let path = f.store_dir.join("manifests").join(captured.id.to_hex());
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    // A reopened store (the one that wrote it keeps the last manifest's bytes in memory).
    let store = Store::open(&f.store_dir, 1 << 30).unwrap();
    assert!(
        matches!(store.manifest(&captured.id), Err(CheckpointError::CorruptManifest(id)) if id == captured.id)
    );
    let unknown = ManifestId([7; 32]);
    assert!(matches!(
        store.manifest(&unknown),
        Err(CheckpointError::MissingManifest(_))
    ));
    assert_eq!(
        ManifestId::from_hex(&captured.id.to_hex()).unwrap(),
        captured.id
    );
    assert!(ManifestId::from_hex("ABC").is_err());
}

#[test]
fn a_reopened_store_knows_its_contents_and_clears_leftovers() {
    let f = Fixture::new();
    f.write("a", &b"a".repeat(1000));
    f.write("b", b"b");
    let (store, captured) = f.capture();
    let used = store.used_bytes();
    let on_disk: u64 = files_below(&f.store_dir)
        .iter()
        .map(|p| std::fs::metadata(p).unwrap().len())
        .sum();
    assert_eq!(used, on_disk);
    drop(store);
    std::fs::write(f.store_dir.join("tmp/123-4"), b"half an object").unwrap();
    let store = Store::open(&f.store_dir, 1 << 30).unwrap();
    assert_eq!(store.used_bytes(), used);
    assert_eq!(store.object_count(), 2);
    assert_eq!(
        std::fs::read_dir(f.store_dir.join("tmp")).unwrap().count(),
        0
    );
    assert_eq!(store.manifest(&captured.id).unwrap(), captured.manifest);
}

#[test]
fn manifests_kept_as_deltas_read_back_and_a_damaged_base_is_named() {
    let f = Fixture::new();
    for i in 0..200 {
        f.write(&format!("d/f{i}"), format!("content {i}\n").as_bytes());
    }
    let store = f.store(1 << 30);
    let ws = f.ws();
    let rules = ash_engine::checkpoint::CaptureRules::default();
    let mut taken = Vec::new();
    let mut previous = None;
    for turn in 0..40 {
        f.write(&format!("d/f{turn}"), format!("turn {turn}\n").as_bytes());
        let captured =
            ash_engine::checkpoint::capture(&ws, &store, previous.as_ref(), &rules).unwrap();
        previous = Some(captured.manifest.clone());
        taken.push(captured);
    }
    let sizes: Vec<u64> = taken
        .iter()
        .map(|c| {
            std::fs::metadata(f.store_dir.join("manifests").join(c.id.to_hex()))
                .unwrap()
                .len()
        })
        .collect();
    // A manifest after a small change costs a fraction of a whole one.
    assert!(sizes[1] * 4 < sizes[0], "{sizes:?}");
    drop(store);
    let store = Store::open(&f.store_dir, 1 << 30).unwrap();
    for c in &taken {
        assert_eq!(store.manifest(&c.id).unwrap(), c.manifest);
    }
    // Damage the first manifest: the ones built on it fail naming it, the next whole one and
    // its descendants still read.
    let base = f.store_dir.join("manifests").join(taken[0].id.to_hex());
    let mut bytes = std::fs::read(&base).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x20;
    std::fs::write(&base, &bytes).unwrap();
    let store = Store::open(&f.store_dir, 1 << 30).unwrap();
    match store.manifest(&taken[1].id) {
        Err(CheckpointError::CorruptManifest(id)) => assert_eq!(id, taken[0].id),
        other => panic!("{other:?}"),
    }
    assert_eq!(store.manifest(&taken[39].id).unwrap(), taken[39].manifest);
}
