//! Shared helpers: a workspace with a store beside it, and manifest look-ups.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use ash_engine::checkpoint::{
    CaptureRules, Captured, Entry, Manifest, Node, Store, Unrestorable, capture,
};
use ash_engine::files::workspace::Workspace;

/// A workspace directory and a store directory, both temporary and apart.
pub struct Fixture {
    _dir: tempfile::TempDir,
    pub root: PathBuf,
    pub store_dir: PathBuf,
}

impl Fixture {
    pub fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        std::fs::create_dir(&root).unwrap();
        let store_dir = dir.path().join("store");
        Fixture {
            _dir: dir,
            root,
            store_dir,
        }
    }

    pub fn write(&self, path: &str, content: &[u8]) {
        let full = self.root.join(path);
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent).unwrap();
        }
        std::fs::write(full, content).unwrap();
    }

    pub fn chmod(&self, path: &str, mode: u32) {
        std::fs::set_permissions(self.root.join(path), std::fs::Permissions::from_mode(mode))
            .unwrap();
    }

    pub fn ws(&self) -> Workspace {
        Workspace::new(&self.root).unwrap()
    }

    pub fn store(&self, budget: u64) -> Store {
        Store::open(&self.store_dir, budget).unwrap()
    }

    /// One capture with the default rules into a store with a 1 GiB budget.
    pub fn capture(&self) -> (Store, Captured) {
        let store = self.store(1 << 30);
        let captured = capture(&self.ws(), &store, None, &CaptureRules::default()).unwrap();
        (store, captured)
    }
}

pub fn entry<'m>(manifest: &'m Manifest, path: &str) -> &'m Entry {
    manifest
        .get(path)
        .unwrap_or_else(|| panic!("{path} is not in the manifest: {:#?}", paths(manifest)))
}

pub fn paths(manifest: &Manifest) -> Vec<&str> {
    manifest.entries.iter().map(|e| e.path.as_str()).collect()
}

pub fn unrestorable(manifest: &Manifest, path: &str) -> Unrestorable {
    match &entry(manifest, path).state {
        Err(why) => why.clone(),
        Ok(node) => panic!("{path} was kept: {node:?}"),
    }
}

pub fn file_content(store: &Store, manifest: &Manifest, path: &str) -> Vec<u8> {
    match &entry(manifest, path).state {
        Ok(Node::File { digest, size }) => {
            let content = store.object(digest).unwrap();
            assert_eq!(content.len() as u64, *size, "{path}");
            content
        }
        other => panic!("{path} is not a kept file: {other:?}"),
    }
}

/// Bytes of every file below `dir`, for store-size checks.
pub fn files_below(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                stack.push(e.path());
            } else {
                out.push(e.path());
            }
        }
    }
    out.sort();
    out
}
