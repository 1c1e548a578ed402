//! The first pass of a capture: every entry's stat, through directory descriptors, one
//! directory level at a time in parallel. Decides everything that needs no content: kinds,
//! modes, link targets, what is not kept and why, and which files keep the digest of the
//! previous manifest (same stamp and mode: not read again). Files left to read are marked.

use std::collections::{HashMap, HashSet};
use std::ffi::OsStr;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;

use nix::fcntl::{AtFlags, readlinkat};
use nix::sys::stat::{FileStat, SFlag, fstatat};
use rayon::prelude::*;
use rustix::fs::RawDir;

use super::ignore::{self, Chain};
use crate::checkpoint::error::CheckpointError;
use crate::checkpoint::exclude::Exclude;
use crate::checkpoint::manifest::{Entry, MAX_REASON_BYTES, Manifest, Node, Stamp, Unrestorable};
use crate::checkpoint::store::Store;
use crate::files::workspace::{MAX_LOGICAL_PATH_BYTES, STATE_DIR, Workspace, type_of};

/// Names that are version-control or ansa state wherever they appear: a rewind never touches
/// the user's repository (its index, objects, refs), and copying it would spend the budget.
const VCS_STATE: &[&str] = &[".git", ".hg", ".svn", ".jj"];

/// State directories of ansa and the engine directly below the workspace root.
const ROOT_STATE: &[&str] = &[STATE_DIR, ".ansa"];

/// Bytes of a directory listing buffer (room for many entries a `getdents64`).
const DIRENT_BUFFER: usize = 16 << 10;

/// One entry found by the walk, and whether its content is still to be read.
#[derive(Debug)]
pub(super) struct Walked {
    pub(super) entry: Entry,
    pub(super) read: bool,
}

/// What the walk needs to decide each entry.
pub(super) struct Context<'a> {
    pub(super) ws: &'a Workspace,
    pub(super) store: &'a Store,
    pub(super) previous: Option<&'a Manifest>,
    pub(super) exclude: &'a Exclude,
    pub(super) max_file_bytes: u64,
    /// The directories a restore's checkpoint kept: one ignored or excluded now is still
    /// listed (see [`DirTask::stat_only`]). `None` outside a restore.
    pub(super) kept_dirs: Option<&'a std::collections::BTreeSet<&'a str>>,
}

/// Counts of the walk.
#[derive(Debug, Default)]
pub(super) struct WalkCounts {
    pub(super) reused: u64,
}

struct DirTask {
    /// Logical path; `""` for the workspace root.
    logical: String,
    chain: Chain,
    /// Inside a state directory (`StateDir`), or inside an ignored or excluded directory a
    /// restore's checkpoint kept (`Ignored`, `Excluded`): every entry is listed by its stat
    /// alone with this reason (never read, never kept), so a plan can count what a turn changed
    /// there, or name what a restore of the kept directory would replace without keeping.
    stat_only: Option<Unrestorable>,
}

#[derive(Default)]
struct Listing {
    entries: Vec<Walked>,
    subdirs: Vec<DirTask>,
    reused: u64,
    /// Why the directory itself could not be read (its entries are then not listed).
    failed: Option<String>,
}

/// Walks the whole workspace; entries sorted by path bytes.
pub(super) fn walk(cx: &Context<'_>) -> Result<(Vec<Walked>, WalkCounts), CheckpointError> {
    let mut frontier = vec![DirTask {
        logical: String::new(),
        chain: None,
        stat_only: None,
    }];
    let mut entries: Vec<Walked> = Vec::new();
    let mut failed: HashMap<String, String> = HashMap::new();
    let mut counts = WalkCounts::default();
    while !frontier.is_empty() {
        let listings: Vec<Listing> = frontier.par_iter().map(|task| list_dir(cx, task)).collect();
        let mut next = Vec::new();
        for (task, listing) in frontier.iter().zip(listings) {
            if let Some(reason) = listing.failed {
                if task.logical.is_empty() {
                    return Err(CheckpointError::io(
                        "read the workspace root",
                        cx.ws.root(),
                        std::io::Error::other(reason),
                    ));
                }
                failed.insert(task.logical.clone(), reason);
                continue;
            }
            counts.reused += listing.reused;
            entries.extend(listing.entries);
            next.extend(listing.subdirs);
        }
        frontier = next;
    }
    entries.par_sort_unstable_by(|a, b| a.entry.path.as_bytes().cmp(b.entry.path.as_bytes()));
    for walked in &mut entries {
        // A state directory stays one (what is below it is only ever counted).
        if walked.entry.state != Err(Unrestorable::StateDir)
            && let Some(reason) = failed.remove(&walked.entry.path)
        {
            walked.entry.state = Err(Unrestorable::Unreadable { reason });
        }
    }
    Ok((entries, counts))
}

fn list_dir(cx: &Context<'_>, task: &DirTask) -> Listing {
    let logical = if task.logical.is_empty() {
        "."
    } else {
        task.logical.as_str()
    };
    let dir = match cx.ws.open_dir(logical) {
        Ok(dir) => dir,
        Err(e) => {
            return Listing {
                failed: Some(reason(&format!("the directory cannot be opened: {e}"))),
                ..Listing::default()
            };
        }
    };
    let names = match read_names(&dir) {
        Ok(names) => names,
        Err(e) => {
            return Listing {
                failed: Some(reason(&format!("the directory cannot be listed: {e}"))),
                ..Listing::default()
            };
        }
    };
    // A state directory's `.gitignore`s say nothing about it: none are read there.
    let chain = match task.stat_only {
        Some(_) => None,
        None => ignore::extend(&task.chain, dir.as_fd(), &task.logical),
    };
    // Only a directory with a name that is not UTF-8 needs the set of its names.
    let mut taken: Option<HashSet<String>> = None;
    let mut listing = Listing::default();
    for raw in &names {
        let (name, utf8) = match std::str::from_utf8(raw) {
            Ok(name) => (name.to_owned(), true),
            Err(_) => {
                let taken = taken.get_or_insert_with(|| {
                    names
                        .iter()
                        .filter_map(|n| std::str::from_utf8(n).ok().map(str::to_owned))
                        .collect()
                });
                (unique_lossy(raw, taken), false)
            }
        };
        let path = if task.logical.is_empty() {
            name.clone()
        } else {
            format!("{}/{name}", task.logical)
        };
        if path.len() > MAX_LOGICAL_PATH_BYTES {
            return Listing {
                failed: Some(format!(
                    "it holds a path longer than {MAX_LOGICAL_PATH_BYTES} bytes, which cannot be restored"
                )),
                ..Listing::default()
            };
        }
        let stat = match fstatat(
            dir.as_fd(),
            OsStr::from_bytes(raw),
            AtFlags::AT_SYMLINK_NOFOLLOW,
        ) {
            Ok(stat) => stat,
            // Removed since the listing: it is not part of the tree any more.
            Err(nix::errno::Errno::ENOENT) => continue,
            Err(e) => {
                listing.entries.push(Walked {
                    entry: Entry {
                        path,
                        mode: 0,
                        stamp: Stamp {
                            size: 0,
                            mtime_ns: 0,
                            ctime_ns: 0,
                            ino: 0,
                            dev: 0,
                        },
                        state: Err(Unrestorable::Unreadable {
                            reason: reason(&format!("its status cannot be read: {e}")),
                        }),
                    },
                    read: false,
                });
                continue;
            }
        };
        let at_root = task.logical.is_empty();
        let (state, read) = if let Some(why) = &task.stat_only {
            let is_dir = type_of(&stat) == SFlag::S_IFDIR;
            // Below a kept directory ignored now, version-control state stays state, and a
            // directory (known whole by its listing) is one, so a restore can tell it from a
            // file it may replace; what a file holds is never read.
            let why = match why {
                Unrestorable::StateDir => Unrestorable::StateDir,
                _ if VCS_STATE.contains(&name.as_str()) => Unrestorable::StateDir,
                other => other.clone(),
            };
            let store = is_dir && is_store(cx, &stat);
            // A name that is not UTF-8 cannot be restored, nor anything below it.
            if is_dir && !store && (utf8 || why == Unrestorable::StateDir) {
                listing.subdirs.push(DirTask {
                    logical: path.clone(),
                    chain: None,
                    stat_only: Some(why.clone()),
                });
            }
            match why {
                _ if store => (Err(Unrestorable::StateDir), false),
                Unrestorable::StateDir => (Err(why), false),
                _ if is_dir && utf8 => (Ok(Node::Dir), false),
                _ if !utf8 => (
                    Err(Unrestorable::Unreadable {
                        reason: "its name is not UTF-8 (shown here with U+FFFD), so it cannot be restored".to_owned(),
                    }),
                    false,
                ),
                _ => (Err(why), false),
            }
        } else if !utf8 {
            let why = "its name is not UTF-8 (shown here with U+FFFD), so it cannot be restored";
            (
                Err(Unrestorable::Unreadable {
                    reason: why.to_owned(),
                }),
                false,
            )
        } else {
            decide(
                cx,
                &chain,
                dir.as_fd(),
                raw,
                &name,
                &path,
                at_root,
                &stat,
                &mut listing,
            )
        };
        listing.entries.push(Walked {
            entry: Entry {
                path,
                mode: stat.st_mode & 0o7777,
                stamp: stamp_of(&stat),
                state,
            },
            read,
        });
    }
    listing
}

/// The state of one entry and whether its content is to be read; a restorable directory is
/// queued for the next level.
#[allow(clippy::too_many_arguments, reason = "one entry's facts, named")]
fn decide(
    cx: &Context<'_>,
    chain: &Chain,
    dir: BorrowedFd<'_>,
    raw: &[u8],
    name: &str,
    path: &str,
    at_root: bool,
    stat: &FileStat,
    listing: &mut Listing,
) -> (Result<Node, Unrestorable>, bool) {
    let kind = type_of(stat);
    let is_dir = kind == SFlag::S_IFDIR;
    if is_dir && is_store(cx, stat) {
        return (Err(Unrestorable::StateDir), false);
    }
    if (at_root && ROOT_STATE.contains(&name)) || VCS_STATE.contains(&name) {
        // Listed by stat only, never read: a plan counts what a turn changed in it.
        if is_dir {
            listing.subdirs.push(DirTask {
                logical: path.to_owned(),
                chain: None,
                stat_only: Some(Unrestorable::StateDir),
            });
        }
        return (Err(Unrestorable::StateDir), false);
    }
    let skipped = if cx.exclude.matches(name, path, || {
        cx.ws.root().join(path).to_string_lossy().into_owned()
    }) {
        Some(Unrestorable::Excluded)
    } else if ignore::ignored(chain, path, is_dir) {
        Some(Unrestorable::Ignored)
    } else {
        None
    };
    if let Some(why) = skipped {
        // A directory the restore's checkpoint kept is listed (by stat only): the restore
        // puts its kept paths back and must know what else it holds now.
        if is_dir && cx.kept_dirs.is_some_and(|dirs| dirs.contains(path)) {
            listing.subdirs.push(DirTask {
                logical: path.to_owned(),
                chain: None,
                stat_only: Some(why.clone()),
            });
        }
        return (Err(why), false);
    }
    if is_dir {
        listing.subdirs.push(DirTask {
            logical: path.to_owned(),
            chain: chain.clone(),
            stat_only: None,
        });
        return (Ok(Node::Dir), false);
    }
    if kind == SFlag::S_IFLNK {
        return match readlinkat(dir, OsStr::from_bytes(raw)) {
            Ok(target) => (
                Ok(Node::Symlink {
                    target: target.as_bytes().to_vec(),
                }),
                false,
            ),
            Err(e) => (
                Err(Unrestorable::Unreadable {
                    reason: reason(&format!("the link cannot be read: {e}")),
                }),
                false,
            ),
        };
    }
    if kind != SFlag::S_IFREG {
        return (Err(Unrestorable::Special), false);
    }
    let size = u64::try_from(stat.st_size).unwrap_or(0);
    if size > cx.max_file_bytes {
        return (
            Err(Unrestorable::TooLarge {
                limit: cx.max_file_bytes,
            }),
            false,
        );
    }
    if let Some(state) = reusable(cx, path, stat) {
        listing.reused += 1;
        return (state, false);
    }
    // Read in the second pass; this placeholder is replaced there.
    (
        Ok(Node::File {
            digest: crate::protocol::Digest([0; 32]),
            size,
        }),
        true,
    )
}

/// Whether a directory is the checkpoint store itself (never walked: it changes with every
/// checkpoint).
fn is_store(cx: &Context<'_>, stat: &FileStat) -> bool {
    (stat.st_dev, stat.st_ino) == cx.store.identity()
}

/// The previous manifest's state for `path` when the file is as it was then (stamp and mode)
/// and what that state depends on is still there.
fn reusable(cx: &Context<'_>, path: &str, stat: &FileStat) -> Option<Result<Node, Unrestorable>> {
    let previous = cx.previous?.get(path)?;
    if previous.stamp != stamp_of(stat) || previous.mode != stat.st_mode & 0o7777 {
        return None;
    }
    match &previous.state {
        Ok(Node::File { digest, .. }) if cx.store.contains(digest) => Some(previous.state.clone()),
        // The store only grows: what did not fit then does not fit now.
        Err(Unrestorable::OverBudget) => Some(previous.state.clone()),
        _ => None,
    }
}

/// The names of a directory (without `.` and `..`), sorted by bytes.
fn read_names(dir: &OwnedFd) -> std::io::Result<Vec<Vec<u8>>> {
    let mut names = Vec::new();
    let mut buf = Vec::with_capacity(DIRENT_BUFFER);
    let mut listing = RawDir::new(dir, buf.spare_capacity_mut());
    while let Some(entry) = listing.next() {
        let entry = entry.map_err(std::io::Error::from)?;
        let bytes = entry.file_name().to_bytes();
        if bytes != b"." && bytes != b".." {
            names.push(bytes.to_vec());
        }
    }
    names.sort_unstable();
    Ok(names)
}

/// A UTF-8 stand-in for a name that is not UTF-8, distinct from every other name of its
/// directory (a `~N` suffix when the lossy form collides).
fn unique_lossy(raw: &[u8], taken: &mut HashSet<String>) -> String {
    let lossy = String::from_utf8_lossy(raw).into_owned();
    let mut candidate = lossy.clone();
    let mut n = 1u32;
    while taken.contains(&candidate) {
        candidate = format!("{lossy}~{n}");
        n += 1;
    }
    taken.insert(candidate.clone());
    candidate
}

/// The stamp of a stat.
pub(super) fn stamp_of(stat: &FileStat) -> Stamp {
    Stamp {
        size: u64::try_from(stat.st_size).unwrap_or(0),
        mtime_ns: i128::from(stat.st_mtime) * 1_000_000_000 + i128::from(stat.st_mtime_nsec),
        ctime_ns: i128::from(stat.st_ctime) * 1_000_000_000 + i128::from(stat.st_ctime_nsec),
        ino: stat.st_ino,
        dev: stat.st_dev,
    }
}

/// An OS message cut to what a manifest keeps.
pub(super) fn reason(text: &str) -> String {
    if text.len() <= MAX_REASON_BYTES {
        return text.to_owned();
    }
    let mut end = MAX_REASON_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}
