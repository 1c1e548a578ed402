//! The workspace's file list for `@` completion, built by a background thread (never before
//! the first frame) and rebuilt on demand after a turn that may have changed the tree; the
//! previous list answers until the new one is ready.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use ignore::WalkBuilder;

use super::MentionSource;

/// Files indexed at most: the list stays a few tens of MB even in a huge tree.
pub const MAX_FILES: usize = 500_000;

/// One indexed file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexedFile {
    /// Relative to the workspace, `/`-separated.
    pub path: String,
    /// `path` lowercased, for matching.
    pub(crate) lower: String,
    /// Byte offset of the file name in `lower`.
    pub(crate) base: usize,
}

impl IndexedFile {
    /// An entry for a relative path.
    pub fn new(path: String) -> Self {
        let lower = path.to_lowercase();
        let base = lower.rfind('/').map_or(0, |i| i + 1);
        IndexedFile { path, lower, base }
    }
}

/// A finished walk.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct FileList {
    /// The files, sorted by path.
    pub files: Vec<IndexedFile>,
    /// The walk stopped at [`MAX_FILES`].
    pub truncated: bool,
}

/// Walks the workspace: regular files only, `.gitignore`d paths (and `.git` itself) left out,
/// hidden files kept, the config's exclusions left out. Unreadable directories are skipped.
pub fn walk(source: &MentionSource) -> FileList {
    let root = source.root.as_path();
    let hidden = Arc::clone(&source.hidden);
    let filter_root = root.to_path_buf();
    let mut walker = WalkBuilder::new(root);
    walker
        .hidden(false)
        // The rules the runtime checks a mention against (`src/runtime/mention/check.rs`):
        // the workspace's own `.gitignore` files and `.git/info/exclude`, nothing above it,
        // no `.ignore` files, no global excludes.
        .parents(false)
        .ignore(false)
        .git_global(false)
        .require_git(false)
        .follow_links(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(move |entry| {
            if entry.file_name() == ".git" {
                return false;
            }
            let rel = entry
                .path()
                .strip_prefix(&filter_root)
                .unwrap_or(entry.path());
            rel.as_os_str().is_empty() || !(hidden)(rel)
        });
    let mut files = Vec::new();
    let mut truncated = false;
    for entry in walker.build().flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        // A path with whitespace could not be written as one `@word`.
        let Some(rel) = relative(root, entry.path()).filter(|r| !r.contains(char::is_whitespace))
        else {
            continue;
        };
        if files.len() == MAX_FILES {
            truncated = true;
            break;
        }
        files.push(IndexedFile::new(rel));
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    FileList { files, truncated }
}

/// `path` below `root` as a `/`-separated string; `None` for a name that is not UTF-8
/// (it could not be typed or sent as a mention).
fn relative(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let parts: Option<Vec<&str>> = rel.components().map(|c| c.as_os_str().to_str()).collect();
    Some(parts?.join("/"))
}

#[derive(Debug, Default)]
struct State {
    list: Option<Arc<FileList>>,
    building: bool,
    /// A rebuild was asked for while one ran: run again when it ends.
    again: bool,
}

/// The index and its builder.
#[derive(Debug, Clone)]
pub struct MentionIndex {
    source: MentionSource,
    state: Arc<Mutex<State>>,
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

impl MentionIndex {
    /// Starts the first build in the background.
    pub fn spawn(source: MentionSource) -> Self {
        let index = MentionIndex {
            source,
            state: Arc::new(Mutex::new(State::default())),
        };
        index.refresh();
        index
    }

    /// Builds the list now, on this thread (tests and the benchmark).
    pub fn built(source: MentionSource) -> Self {
        let list = walk(&source);
        MentionIndex {
            source,
            state: Arc::new(Mutex::new(State {
                list: Some(Arc::new(list)),
                building: false,
                again: false,
            })),
        }
    }

    /// The latest finished list, if any.
    pub fn list(&self) -> Option<Arc<FileList>> {
        lock(&self.state).list.clone()
    }

    /// True until the first list is ready.
    pub fn pending(&self) -> bool {
        lock(&self.state).list.is_none()
    }

    /// The workspace root.
    pub fn root(&self) -> &PathBuf {
        &self.source.root
    }

    /// Rebuilds in the background (once more if a build is running); the current list keeps
    /// answering meanwhile.
    pub fn refresh(&self) {
        {
            let mut state = lock(&self.state);
            if state.building {
                state.again = true;
                return;
            }
            state.building = true;
        }
        let source = self.source.clone();
        let state = Arc::clone(&self.state);
        let spawned = std::thread::Builder::new()
            .name("ansa-tui-mentions".into())
            .spawn(move || {
                loop {
                    let list = Arc::new(walk(&source));
                    let mut s = lock(&state);
                    s.list = Some(list);
                    if !std::mem::take(&mut s.again) {
                        s.building = false;
                        return;
                    }
                }
            });
        if spawned.is_err() {
            // No thread: build here rather than never complete.
            let list = Arc::new(walk(&self.source));
            let mut s = lock(&self.state);
            s.list = Some(list);
            s.building = false;
        }
    }
}
