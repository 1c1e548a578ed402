//! Spool roots: layout, lifetime, and the reclaim rules.

use crate::exec::spool::{DEFAULT_IDLE, PartialSpool, ROOT_PREFIX, SpoolRoot, reclaim};
use std::fs::{self, File, TryLockError};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

fn mode(path: &Path) -> u32 {
    fs::symlink_metadata(path)
        .expect("metadata")
        .permissions()
        .mode()
        & 0o777
}

fn uid(path: &Path) -> u32 {
    fs::symlink_metadata(path).expect("metadata").uid()
}

#[test]
fn a_root_is_private_marked_and_locked_for_its_lifetime() {
    let base = tempfile::tempdir().expect("base");
    let (root, report) = SpoolRoot::create(base.path(), DEFAULT_IDLE).expect("root");
    assert!(report.reclaimed.is_empty() && report.kept.is_empty());
    let dir = root.dir().to_path_buf();
    let name = dir.file_name().and_then(|n| n.to_str()).expect("name");
    assert!(name.starts_with(ROOT_PREFIX), "{name}");
    assert_eq!(mode(&dir), 0o700);
    let owner = fs::read(dir.join("OWNER")).expect("owner marker");
    assert!(owner.starts_with(b"ash-store-owner-v1\n"));
    let lock = File::open(dir.join("LOCK")).expect("lock file");
    assert!(
        matches!(lock.try_lock(), Err(TryLockError::WouldBlock)),
        "held by the root"
    );

    let mut partial = root.create_file().expect("spool file");
    partial.write_all(b"abc").expect("write");
    assert_eq!(mode(partial.path()), 0o600);
    let file = partial.finish();
    drop(root);
    assert!(dir.exists(), "a live spool file keeps the root");
    assert!(
        matches!(lock.try_lock(), Err(TryLockError::WouldBlock)),
        "still locked"
    );
    drop(file);
    assert!(!dir.exists(), "the last spool file takes the root with it");
    assert!(lock.try_lock().is_ok());
}

/// A fresh root in a fresh base, and a spool file in it holding `bytes`.
fn spool_holding(bytes: &[u8]) -> (tempfile::TempDir, SpoolRoot, PartialSpool) {
    let base = tempfile::tempdir().expect("base");
    let (root, _) = SpoolRoot::create(base.path(), DEFAULT_IDLE).expect("root");
    let mut partial = root.create_file().expect("spool file");
    partial.write_all(bytes).expect("write");
    (base, root, partial)
}

#[test]
fn a_header_written_into_kept_room_starts_the_value() {
    let (_base, _root, mut partial) = spool_holding(b"........rows\n");
    // Past what was written is refused and changes nothing.
    assert!(partial.write_at(11, b"xyz").is_err());
    partial.write_at(5, b"hd\n").expect("header");
    let value = crate::store::Body::Spool(std::sync::Arc::new(partial.finish_from(5)));
    assert_eq!(value.len(), 8);
    assert_eq!(value.read_all().expect("read"), b"hd\nrows\n");
    assert_eq!(value.read_range(2, 3).expect("range"), b"\nro");
    // A range past the value is clamped to it, not read from beyond.
    assert_eq!(value.read_range(6, 100).expect("tail"), b"s\n");
}

#[test]
fn partial_spool_files_are_deleted_and_an_idle_root_goes_on_drop() {
    let (base, root, partial) = spool_holding(b"partial");
    let path = partial.path().to_path_buf();
    drop(partial);
    assert!(!path.exists());
    let dir = root.dir().to_path_buf();
    let clone = root.clone();
    drop(root);
    assert!(dir.exists(), "clones share the root");
    drop(clone);
    assert!(!dir.exists());
    assert_eq!(fs::read_dir(base.path()).expect("base").count(), 0);
}

/// A root as a dead process would leave it: marker, unlocked lock file and spool files.
fn stale_root(base: &Path, name: &str, spools: &[&str]) -> PathBuf {
    let dir = base.join(format!("{ROOT_PREFIX}{name}"));
    fs::create_dir(&dir).expect("mkdir");
    fs::write(dir.join("OWNER"), b"ash-store-owner-v1\npid 1\n").expect("owner");
    fs::write(dir.join("LOCK"), b"").expect("lock");
    for spool in spools {
        fs::write(dir.join(spool), b"spooled bytes").expect("spool");
    }
    dir
}

/// Sets the modification time of a root and everything in it `age` into the past.
fn age(dir: &Path, age: Duration) {
    let then = SystemTime::now() - age;
    for entry in fs::read_dir(dir).expect("dir") {
        let path = entry.expect("entry").path();
        if !fs::symlink_metadata(&path)
            .expect("meta")
            .file_type()
            .is_symlink()
        {
            File::options()
                .write(true)
                .open(&path)
                .or_else(|_| File::open(&path))
                .and_then(|f| f.set_modified(then))
                .expect("set mtime");
        }
    }
    File::open(dir)
        .and_then(|f| f.set_modified(then))
        .expect("set dir mtime");
}

fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn stale_roots_are_reclaimed_only_when_idle_unlocked_and_fully_recognised() {
    let base = tempfile::tempdir().expect("base");
    let b = base.path();
    let old = Duration::from_secs(2 * 3600);
    let stale = stale_root(b, "stale", &["spool-0", "spool-17"]);
    let fresh = stale_root(b, "fresh", &["spool-1"]);
    let foreign = stale_root(b, "foreign", &["spool-2", "notes.txt"]);
    let locked = stale_root(b, "locked", &["spool-3"]);
    let unmarked = stale_root(b, "unmarked", &[]);
    fs::remove_file(unmarked.join("OWNER")).expect("rm");
    let bad_marker = stale_root(b, "badmarker", &[]);
    fs::write(bad_marker.join("OWNER"), b"someone else's\n").expect("owner");
    let nested = stale_root(b, "nested", &[]);
    fs::create_dir(nested.join("spool-4")).expect("mkdir");
    let linked = stale_root(b, "linked", &[]);
    std::os::unix::fs::symlink("/etc/hostname", linked.join("spool-5")).expect("symlink");
    let unrelated = b.join("not-ours");
    fs::create_dir(&unrelated).expect("mkdir");
    for dir in [
        &stale,
        &foreign,
        &locked,
        &unmarked,
        &bad_marker,
        &nested,
        &linked,
    ] {
        age(dir, old);
    }
    let holder = File::open(locked.join("LOCK")).expect("lock");
    holder.try_lock().expect("a live owner holds the lock");
    let before: Vec<_> = [&foreign, &locked, &unmarked, &bad_marker, &nested, &linked]
        .iter()
        .map(|d| listing(d))
        .collect();

    let (live, report) = SpoolRoot::create(b, DEFAULT_IDLE).expect("root");
    assert_eq!(report.reclaimed, vec![stale.clone()]);
    assert!(!stale.exists());
    assert_eq!(report.kept.len(), 7, "{report:?}");
    assert!(fresh.exists() && unrelated.exists() && live.dir().exists());
    let after: Vec<_> = [&foreign, &locked, &unmarked, &bad_marker, &nested, &linked]
        .iter()
        .map(|d| listing(d))
        .collect();
    assert_eq!(before, after, "uncertain roots are never modified");

    // The idle threshold is injectable; a live root (this process's) is never taken.
    let report = reclaim(b, Duration::ZERO, uid(b), None);
    assert!(report.reclaimed.contains(&fresh), "{report:?}");
    assert!(report.kept.contains(&live.dir().to_path_buf()));
    assert!(report.kept.contains(&locked));
    drop(holder);
    let report = reclaim(b, Duration::ZERO, uid(b), None);
    assert_eq!(report.reclaimed, vec![locked.clone()], "unlocked now");
    // Owned by someone else: never considered.
    let report = reclaim(b, Duration::ZERO, uid(b).wrapping_add(1), None);
    assert!(report.reclaimed.is_empty());
}
