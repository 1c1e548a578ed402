//! Directory walks for list, search and snapshot (ASH/1 §3.3, §3.4 `l`).
//!
//! A walk resolves each root (following in-workspace symlinks), emits the root and its descendants
//! down to the requested depth without following symlinks, and merges all roots into one list
//! sorted by the bytes of the logical path. Directories of one level are read in parallel on the
//! compute plane; results are collected in task order and stably sorted, so the output does not
//! depend on the worker count.
//!
//! Entries that cannot be named or read are skipped deterministically and counted in [`Skipped`]:
//! - a name that is not UTF-8 cannot be a logical path, so the entry (and its subtree) is left out;
//! - a directory below a root that cannot be read (permissions, vanished) is listed but not
//!   descended into; an entry whose metadata cannot be read is left out.
//!
//! Failing to read a *root* directory is an error, because the caller asked for it by name.
//!
//! Entries the workspace's path filter hides for [`WalkOptions::op`] are left out like `.ash`
//! (not counted as skipped: hiding them is the point), and a hidden directory is not entered.
//!
//! `.ash` directly below the workspace root is never emitted (even with hidden entries, and even
//! without the state marker, following §3.3's "skipped by walks at depth 1"); naming it as a root
//! still works while it is not a marked state directory.

#[cfg(test)]
mod tests;

use std::ffi::OsStr;
use std::os::fd::{AsFd, OwnedFd};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use nix::fcntl::AtFlags;
use nix::sys::stat::{SFlag, fstatat};
use rustix::fs::{FileType, RawDir};

use rayon::prelude::*;

use crate::compute::ComputePlane;
use crate::deadline::Deadline;
use crate::files::workspace::{
    Ceiling, FilterOp, FsError, STATE_DIR, Workspace, is_hidden, join_logical, type_of,
};

/// Entry ceiling of list (and of the walks behind search).
pub const LIST_MAX_ENTRIES: usize = 1_000_000;

/// Entry ceiling of snapshot.
pub const SNAPSHOT_MAX_ENTRIES: usize = 100_000;

/// How often (in entries) a directory reader checks the shared entry counter.
const COUNTER_CHECK_INTERVAL: usize = 1024;

/// A walk depth in `0..=64`; 0 emits only the roots.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Depth(u8);

impl Depth {
    /// The deepest allowed walk (64), used by search.
    pub const MAX: Depth = Depth(64);

    /// A depth, or `None` when it is above 64.
    pub fn new(depth: u64) -> Option<Depth> {
        u8::try_from(depth)
            .ok()
            .filter(|d| *d <= Depth::MAX.0)
            .map(Depth)
    }

    /// The depth as a number.
    pub fn get(self) -> u8 {
        self.0
    }
}

/// Which entry kinds a walk emits (directories are traversed either way).
pub use crate::protocol::ListFilter;

fn accepts(filter: ListFilter, kind: EntryKind) -> bool {
    match filter {
        ListFilter::All => true,
        ListFilter::FilesOnly => kind == EntryKind::File,
        ListFilter::DirsOnly => kind == EntryKind::Dir,
    }
}

/// Parameters of a walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalkOptions {
    /// Levels below each root to visit.
    pub depth: Depth,
    /// Include hidden entries (roots are never filtered; `.ash` below the workspace root never appears).
    pub hidden: bool,
    /// Which kinds to emit.
    pub filter: ListFilter,
    /// Entry ceiling (601 beyond it).
    pub max_entries: usize,
    /// Checked before each directory level.
    pub deadline: Option<Deadline>,
    /// The operation the workspace's path filter is asked about (`List` by default).
    pub op: FilterOp,
    /// Read each regular file's size (one `fstatat` a file). A caller that opens every file
    /// anyway (search) takes the size from the open file instead, and its walk stats only
    /// entries whose type the directory listing does not give; their size is then 0.
    pub file_sizes: bool,
}

impl WalkOptions {
    /// Options for a list-style walk: no hidden entries, all kinds, the list ceiling.
    #[cfg(test)]
    pub fn new(depth: Depth) -> WalkOptions {
        WalkOptions {
            depth,
            hidden: false,
            filter: ListFilter::All,
            max_entries: LIST_MAX_ENTRIES,
            deadline: None,
            op: FilterOp::List,
            file_sizes: true,
        }
    }
}

pub use crate::protocol::EntryKind;

/// The kind of a file type from `stat` bits (no symlink followed).
pub fn kind_of_mode(kind: SFlag) -> EntryKind {
    if kind == SFlag::S_IFLNK {
        EntryKind::Symlink
    } else if kind == SFlag::S_IFDIR {
        EntryKind::Dir
    } else if kind == SFlag::S_IFREG {
        EntryKind::File
    } else {
        EntryKind::Other
    }
}

/// The kind a directory entry names, or `None` when the listing does not say (`DT_UNKNOWN`).
fn kind_of_dirent(kind: FileType) -> Option<EntryKind> {
    match kind {
        FileType::Symlink => Some(EntryKind::Symlink),
        FileType::Directory => Some(EntryKind::Dir),
        FileType::RegularFile => Some(EntryKind::File),
        FileType::Unknown => None,
        _ => Some(EntryKind::Other),
    }
}

/// Bytes of a listing buffer: many entries a `getdents64`, and always room for the largest
/// one (a 255-byte name).
const DIRENT_BUFFER: usize = 16 << 10;

/// One walked entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkEntry {
    /// Logical path: workspace-relative, `/`-separated, `.` for the root.
    pub path: String,
    /// What the entry is.
    pub kind: EntryKind,
    /// Byte length for regular files (0 when the walk did not read sizes); 0 for every other
    /// kind.
    pub size: u64,
}

/// Entries a walk left out (see the module docs); non-zero counts mean the result is partial.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Skipped {
    /// Entries whose name is not UTF-8.
    pub non_utf8_names: u64,
    /// Directories that could not be read and entries whose metadata could not be read.
    pub unreadable: u64,
}

impl Skipped {
    /// True when anything was skipped.
    pub fn any(&self) -> bool {
        self.non_utf8_names != 0 || self.unreadable != 0
    }

    fn add(&mut self, other: Skipped) {
        self.non_utf8_names += other.non_utf8_names;
        self.unreadable += other.unreadable;
    }
}

/// The merged result of a walk.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WalkOutput {
    /// Entries sorted by the bytes of `path`, without duplicates.
    pub entries: Vec<WalkEntry>,
    /// What was left out.
    pub skipped: Skipped,
}

/// Walks `roots` on the compute plane and merges the entries.
pub fn walk<S: AsRef<str> + Sync>(
    plane: &ComputePlane,
    workspace: &Workspace,
    roots: &[S],
    options: WalkOptions,
) -> Result<WalkOutput, FsError> {
    plane.install(|| walk_in_pool(workspace, roots, options))
}

/// A directory still to be read; opened by its canonical logical path through real
/// directories only (holding no descriptor while queued, so wide trees cannot exhaust them).
struct DirTask {
    logical: String,
    depth: u8,
    root: usize,
}

/// What reading one directory produced: its entries, each with what the visitor made of it.
struct Listing<V> {
    entries: Vec<(WalkEntry, Option<V>)>,
    subdirs: Vec<DirTask>,
    skipped: Skipped,
}

impl<V> Default for Listing<V> {
    fn default() -> Self {
        Listing {
            entries: Vec::new(),
            subdirs: Vec::new(),
            skipped: Skipped::default(),
        }
    }
}

/// Called for each regular file below a root directory while its directory is still open:
/// the directory (reached through real directories only, like every walked directory), the
/// file's name in it, and its entry. `None` leaves nothing for the file.
pub(crate) type Visit<'v, V> = dyn Fn(&Arc<OwnedFd>, &str, &WalkEntry) -> Option<V> + Sync + 'v;

/// The merged result of a visiting walk: the entries sorted as in [`WalkOutput`], each with
/// what the visitor returned for it (`None` for roots, which are resolved rather than listed).
pub(crate) struct Visited<V> {
    /// Entries sorted by the bytes of `path`, without duplicates, with their visits.
    pub entries: Vec<(WalkEntry, Option<V>)>,
    /// What was left out.
    pub skipped: Skipped,
}

/// [`walk`] for callers already running on the compute plane.
pub(crate) fn walk_in_pool<S: AsRef<str> + Sync>(
    workspace: &Workspace,
    roots: &[S],
    options: WalkOptions,
) -> Result<WalkOutput, FsError> {
    let visited = walk_visiting::<S, ()>(workspace, roots, options, None)?;
    Ok(WalkOutput {
        entries: visited
            .entries
            .into_iter()
            .map(|(entry, _)| entry)
            .collect(),
        skipped: visited.skipped,
    })
}

/// Like [`walk_in_pool`], also handing each file of a listed directory to `visit` (in
/// parallel) while the directory is open, so a caller that opens every file (search) works
/// during the walk instead of after it and does not open the directories again.
pub(crate) fn walk_visiting<S: AsRef<str> + Sync, V: Send>(
    workspace: &Workspace,
    roots: &[S],
    options: WalkOptions,
    visit: Option<&Visit<'_, V>>,
) -> Result<Visited<V>, FsError> {
    let starts: Vec<Result<WalkEntry, FsError>> = roots
        .par_iter()
        .map(|root| start_root(workspace, root.as_ref()))
        .collect();
    let counts: Vec<AtomicUsize> = roots.iter().map(|_| AtomicUsize::new(0)).collect();
    let mut entries = Vec::new();
    let mut frontier = Vec::new();
    for (index, start) in starts.into_iter().enumerate() {
        let entry = start?;
        if entry.kind == EntryKind::Dir && options.depth.get() > 0 {
            frontier.push(DirTask {
                logical: entry.path.clone(),
                depth: 0,
                root: index,
            });
        }
        if accepts(options.filter, entry.kind) {
            counts[index].fetch_add(1, Ordering::Relaxed);
            entries.push((entry, None));
        }
    }
    let mut skipped = Skipped::default();
    while !frontier.is_empty() {
        if let Some(deadline) = options.deadline {
            deadline.check()?;
        }
        let listings: Vec<Result<Listing<V>, FsError>> = frontier
            .par_iter()
            .map(|task| list_dir(workspace, task, options, &counts[task.root], visit))
            .collect();
        let mut next = Vec::new();
        for listing in listings {
            let listing = listing?;
            entries.extend(listing.entries);
            next.extend(listing.subdirs);
            skipped.add(listing.skipped);
        }
        // Each root's own entries are distinct, so one root over the ceiling means the union is too.
        let over = counts
            .iter()
            .position(|count| count.load(Ordering::Relaxed) > options.max_entries);
        if let Some(index) = over {
            return Err(entries_ceiling(roots[index].as_ref(), options.max_entries));
        }
        frontier = next;
    }
    // Stable sort: for duplicate paths the entry of the earliest root wins.
    entries.par_sort_by(|a, b| a.0.path.cmp(&b.0.path));
    entries.dedup_by(|later, earlier| later.0.path == earlier.0.path);
    if entries.len() > options.max_entries {
        let first = roots.first().map_or(".", |root| root.as_ref());
        return Err(entries_ceiling(first, options.max_entries));
    }
    Ok(Visited { entries, skipped })
}

fn entries_ceiling(root: &str, limit: usize) -> FsError {
    FsError::Ceiling {
        path: root.to_owned(),
        ceiling: Ceiling::Entries { limit },
    }
}

/// Resolves a root and describes it; the canonical target is never a symlink.
fn start_root(workspace: &Workspace, root: &str) -> Result<WalkEntry, FsError> {
    let resolved = workspace.resolve(root)?;
    let stat = resolved
        .at
        .stat()
        .map_err(|err| FsError::from_lookup(root, &err))?;
    let kind = kind_of_mode(type_of(&stat));
    let size = if kind == EntryKind::File {
        u64::try_from(stat.st_size).unwrap_or(0)
    } else {
        0
    };
    Ok(WalkEntry {
        path: resolved.logical,
        kind,
        size,
    })
}

/// Reads one directory and visits its files. Only a root directory (depth 0) can fail; deeper
/// failures are skipped.
fn list_dir<V: Send>(
    workspace: &Workspace,
    task: &DirTask,
    options: WalkOptions,
    count: &AtomicUsize,
    visit: Option<&Visit<'_, V>>,
) -> Result<Listing<V>, FsError> {
    let filter = workspace.filter();
    let mut listing = Listing::default();
    if task.depth > 0 && count.load(Ordering::Relaxed) > options.max_entries {
        return Ok(listing);
    }
    let dir = match workspace.open_dir(&task.logical) {
        Ok(dir) => dir,
        Err(err) if task.depth == 0 => return Err(FsError::from_lookup(&task.logical, &err)),
        Err(_) => {
            listing.skipped.unreadable += 1;
            return Ok(listing);
        }
    };
    let child_depth = task.depth + 1;
    let at_workspace_root = task.logical == ".";
    let mut names = Vec::new();
    let mut buf = Vec::with_capacity(DIRENT_BUFFER);
    let mut entries = RawDir::new(&dir, buf.spare_capacity_mut());
    while let Some(entry) = entries.next() {
        let Ok(entry) = entry else {
            // The OS stopped listing this directory; keep what we have.
            listing.skipped.unreadable += 1;
            break;
        };
        let bytes = entry.file_name().to_bytes();
        if bytes == b"." || bytes == b".." {
            continue;
        }
        names.push((bytes.to_vec(), kind_of_dirent(entry.file_type())));
    }
    let dir_fd = dir.as_fd();
    for (bytes, dirent_type) in names {
        let Ok(name) = std::str::from_utf8(&bytes) else {
            listing.skipped.non_utf8_names += 1;
            continue;
        };
        if at_workspace_root && name == STATE_DIR && workspace.has_state_dir() {
            continue;
        }
        if !options.hidden && is_hidden(name) {
            continue;
        }
        let stat = |name: &str| fstatat(dir_fd, OsStr::new(name), AtFlags::AT_SYMLINK_NOFOLLOW);
        let kind = match dirent_type {
            Some(kind) => kind,
            None => match stat(name) {
                Ok(st) => kind_of_mode(type_of(&st)),
                Err(_) => {
                    listing.skipped.unreadable += 1;
                    continue;
                }
            },
        };
        let logical = join_logical(&task.logical, name);
        if filter.is_some_and(|f| f.hidden(Path::new(&logical), Some(kind), options.op)) {
            continue;
        }
        let size = if kind == EntryKind::File && options.file_sizes {
            match stat(name) {
                Ok(st) => u64::try_from(st.st_size).unwrap_or(0),
                Err(_) => {
                    listing.skipped.unreadable += 1;
                    continue;
                }
            }
        } else {
            0
        };
        if kind == EntryKind::Dir && child_depth < options.depth.get() {
            listing.subdirs.push(DirTask {
                logical: logical.clone(),
                depth: child_depth,
                root: task.root,
            });
        }
        if accepts(options.filter, kind) {
            let entry = WalkEntry {
                path: logical,
                kind,
                size,
            };
            listing.entries.push((entry, None));
            let emitted = listing.entries.len();
            if emitted % COUNTER_CHECK_INTERVAL == 0
                && count.load(Ordering::Relaxed) + emitted > options.max_entries
            {
                break;
            }
        }
    }
    count.fetch_add(listing.entries.len(), Ordering::Relaxed);
    if let Some(visit) = visit {
        let dir = Arc::new(dir);
        listing.entries.par_iter_mut().for_each(|(entry, visited)| {
            if entry.kind == EntryKind::File {
                let name = entry
                    .path
                    .rsplit_once('/')
                    .map_or(&*entry.path, |(_, name)| name);
                *visited = visit(&dir, name, entry);
            }
        });
    }
    Ok(listing)
}
