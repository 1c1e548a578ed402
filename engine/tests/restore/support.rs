//! Test support: a small capture of a real directory into a manifest and an in-memory object
//! source (until the checkpoint store's own capture is merged), and exact tree snapshots.

use ash_engine::checkpoint::restore::{ObjectSource, SourceError};
use ash_engine::checkpoint::{Entry, Manifest, Node, Stamp, Unrestorable};
use ash_engine::protocol::Digest;
use std::collections::{BTreeMap, HashMap};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::sync::Mutex;

/// Verified contents by digest, like the store hands them out.
#[derive(Default)]
pub struct MemSource {
    pub objects: Mutex<HashMap<Digest, Vec<u8>>>,
}

impl MemSource {
    pub fn put(&self, bytes: &[u8]) -> Digest {
        let d = Digest::of(bytes);
        self.objects.lock().unwrap().insert(d, bytes.to_vec());
        d
    }

    /// Damages the stored copy of `bytes` (the store's own check is bypassed, as a bad disk would).
    pub fn corrupt(&self, digest: &Digest) {
        let mut objects = self.objects.lock().unwrap();
        let bytes = objects.get_mut(digest).expect("object to corrupt");
        bytes[0] ^= 0x55;
    }
}

impl ObjectSource for MemSource {
    fn object(&self, digest: &Digest) -> Result<Vec<u8>, SourceError> {
        // Returned as stored: the restore must verify it itself.
        self.objects
            .lock()
            .unwrap()
            .get(digest)
            .cloned()
            .ok_or(SourceError::Missing(*digest))
    }
}

/// A manifest of everything under `root` (`.ash` recorded as the state directory), with each
/// file's content put into `source`.
pub fn capture(root: &Path, source: &MemSource) -> Manifest {
    let mut entries = Vec::new();
    walk(root, root, source, &mut entries);
    entries.sort_by(|a: &Entry, b: &Entry| a.path.as_bytes().cmp(b.path.as_bytes()));
    Manifest { entries }
}

fn walk(root: &Path, dir: &Path, source: &MemSource, out: &mut Vec<Entry>) {
    for entry in std::fs::read_dir(dir).expect("read_dir") {
        let path = entry.expect("entry").path();
        let rel = path
            .strip_prefix(root)
            .unwrap()
            .to_str()
            .unwrap()
            .to_owned();
        let meta = std::fs::symlink_metadata(&path).expect("lstat");
        let stamp = Stamp {
            size: meta.size(),
            mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
            ctime_ns: i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec()),
            ino: meta.ino(),
            dev: meta.dev(),
        };
        let mode = meta.permissions().mode() & 0o7777;
        let state = if rel == ".ash" {
            Err(Unrestorable::StateDir)
        } else if meta.file_type().is_symlink() {
            let target = std::fs::read_link(&path).unwrap();
            Ok(Node::Symlink {
                target: target.as_os_str().as_bytes().to_vec(),
            })
        } else if meta.is_dir() {
            Ok(Node::Dir)
        } else if meta.is_file() {
            let bytes = std::fs::read(&path).unwrap();
            Ok(Node::File {
                digest: source.put(&bytes),
                size: bytes.len() as u64,
            })
        } else {
            Err(Unrestorable::Special)
        };
        let recurse = matches!(state, Ok(Node::Dir));
        out.push(Entry {
            path: rel,
            mode,
            stamp,
            state,
        });
        if recurse {
            walk(root, &path, source, out);
        }
    }
}

/// What one path holds, exactly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Snap {
    File { bytes: Vec<u8>, mode: u32 },
    Dir { mode: u32 },
    Link { target: Vec<u8> },
}

/// Everything below `root` except `.ash`, exactly: contents, modes, links, empty dirs.
pub type Tree = BTreeMap<String, Snap>;

pub fn snapshot(root: &Path) -> Tree {
    let mut out = Tree::new();
    snap_walk(root, root, &mut out);
    out
}

fn snap_walk(root: &Path, dir: &Path, out: &mut Tree) {
    for entry in std::fs::read_dir(dir).expect("read_dir") {
        let path = entry.expect("entry").path();
        let rel = path
            .strip_prefix(root)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if rel == ".ash" {
            continue;
        }
        let meta = std::fs::symlink_metadata(&path).expect("lstat");
        let mode = meta.permissions().mode() & 0o7777;
        if meta.file_type().is_symlink() {
            let target = std::fs::read_link(&path).unwrap();
            out.insert(
                rel,
                Snap::Link {
                    target: target.as_os_str().as_bytes().to_vec(),
                },
            );
        } else if meta.is_dir() {
            out.insert(rel, Snap::Dir { mode });
            snap_walk(root, &path, out);
        } else {
            out.insert(
                rel,
                Snap::File {
                    bytes: std::fs::read(&path).unwrap(),
                    mode,
                },
            );
        }
    }
}

pub fn write(root: &Path, rel: &str, bytes: &[u8], mode: u32) {
    let p = root.join(rel);
    std::fs::write(&p, bytes).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
}

pub fn mkdir(root: &Path, rel: &str, mode: u32) {
    let p = root.join(rel);
    std::fs::create_dir(&p).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
}

pub fn symlink(root: &Path, rel: &str, target: &str) {
    std::os::unix::fs::symlink(target, root.join(rel)).unwrap();
}

/// The checkpoint side of the fixture: every kind of entry a turn can change.
pub fn build_target(root: &Path) {
    write(root, "a.txt", b"alpha\nbeta\n", 0o644);
    write(root, "gone.txt", b"deleted by the turn\n", 0o600);
    mkdir(root, "old", 0o755);
    write(root, "old/name.txt", b"renamed by the turn\n", 0o644);
    write(root, "run.sh", b"#!/bin/sh\necho hi\n", 0o755);
    mkdir(root, "empty", 0o755);
    symlink(root, "ln", "a.txt");
    symlink(root, "dangle", "../nowhere");
    write(root, "swap", b"I am a file\n", 0o644);
    mkdir(root, "swap2", 0o755);
    write(root, "swap2/x", b"inside\n", 0o644);
    mkdir(root, "d", 0o755);
    write(root, "d/keep.txt", b"same\n", 0o644);
    write(root, "bin.dat", b"\0\x01\x02binary", 0o644);
}

/// What the turn did to the target side (with real file system calls).
pub fn turn(root: &Path) {
    write(root, "a.txt", b"alpha\nBETA\ngamma\n", 0o644);
    std::fs::remove_file(root.join("gone.txt")).unwrap();
    write(root, "new.txt", b"created by the turn\n", 0o644);
    std::fs::create_dir(root.join("moved")).unwrap();
    std::fs::rename(root.join("old/name.txt"), root.join("moved/name.txt")).unwrap();
    std::fs::remove_dir(root.join("old")).unwrap();
    std::fs::set_permissions(root.join("run.sh"), std::fs::Permissions::from_mode(0o644)).unwrap();
    std::fs::remove_dir(root.join("empty")).unwrap();
    mkdir(root, "newempty", 0o700);
    std::fs::remove_file(root.join("ln")).unwrap();
    symlink(root, "ln", "gone.txt");
    std::fs::remove_file(root.join("dangle")).unwrap();
    std::fs::remove_file(root.join("swap")).unwrap();
    mkdir(root, "swap", 0o750);
    write(root, "swap/inner.txt", b"a dir now\n", 0o644);
    std::fs::remove_dir_all(root.join("swap2")).unwrap();
    write(root, "swap2", b"a file now\n", 0o640);
    std::fs::set_permissions(root.join("d"), std::fs::Permissions::from_mode(0o700)).unwrap();
    write(root, "bin.dat", b"\0\x01\x03binary!", 0o644);
}
