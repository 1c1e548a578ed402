//! What the environment message says about Git, read from `.git` directly (no subprocess, no
//! network): the branch from `HEAD`, and whether tracked files have uncommitted changes.
//!
//! Changes are judged from the index (`DIRC` versions 2–4): a tracked file whose size, mtime or
//! type differs from its index entry, or that is gone, is changed; one whose stat data matches
//! but is not older than the index itself ("racily clean") is hashed like Git does (SHA-1 of
//! `blob <len>\0<bytes>`). Staged changes show as an invalidated root of the index's cache-tree
//! extension (`TREE`), which Git clears on `add` and rebuilds on `commit`. Untracked files are
//! not counted.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Index files larger than this are not read (the answer is then "unknown").
const MAX_INDEX_BYTES: u64 = 64 << 20;

/// What the environment message says about the repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitState {
    /// `HEAD`: a branch name, or a detached commit.
    pub head: Head,
    /// Whether tracked files differ from the last commit.
    pub changes: Changes,
}

/// Where `HEAD` points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Head {
    /// On a branch (the name after `refs/heads/`).
    Branch(String),
    /// Detached at a commit (its first 12 hex digits).
    Detached(String),
    /// `HEAD` could not be read.
    Unknown,
}

/// Whether tracked files have uncommitted changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Changes {
    /// Every tracked file matches the index, and the index matches the last commit.
    None,
    /// Some tracked file, or the index, differs.
    Some,
    /// The index could not be read or judged.
    Unknown,
}

/// The Git state of the repository containing `cwd`, if there is one.
pub fn state(cwd: &Path) -> Option<GitState> {
    let (worktree, git_dir) = find(cwd)?;
    let head = head(&git_dir);
    let changes = changes(&worktree, &git_dir.join("index"));
    Some(GitState { head, changes })
}

/// The work tree and git directory of the nearest repository at or above `cwd`.
fn find(cwd: &Path) -> Option<(PathBuf, PathBuf)> {
    let mut dir = Some(cwd);
    while let Some(d) = dir {
        let dot_git = d.join(".git");
        match fs::symlink_metadata(&dot_git) {
            Ok(m) if m.is_dir() => return Some((d.to_path_buf(), dot_git)),
            // A worktree or submodule: `.git` is a file `gitdir: <path>`.
            Ok(m) if m.is_file() => {
                let text = fs::read_to_string(&dot_git).ok()?;
                let target = text.strip_prefix("gitdir:")?.trim();
                let target = d.join(target);
                return target.is_dir().then(|| (d.to_path_buf(), target));
            }
            _ => dir = d.parent(),
        }
    }
    None
}

fn head(git_dir: &Path) -> Head {
    let Ok(text) = fs::read_to_string(git_dir.join("HEAD")) else {
        return Head::Unknown;
    };
    let text = text.trim();
    if let Some(name) = text.strip_prefix("ref: refs/heads/") {
        return Head::Branch(name.to_owned());
    }
    if text.len() >= 40 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Head::Detached(text[..12].to_owned());
    }
    Head::Unknown
}

fn changes(worktree: &Path, index: &Path) -> Changes {
    let Ok(meta) = fs::metadata(index) else {
        return Changes::Unknown;
    };
    if meta.len() > MAX_INDEX_BYTES {
        return Changes::Unknown;
    }
    let Ok(bytes) = fs::read(index) else {
        return Changes::Unknown;
    };
    let Some(parsed) = parse(&bytes) else {
        return Changes::Unknown;
    };
    let stamp = (meta.mtime(), meta.mtime_nsec());
    for entry in &parsed.entries {
        if entry_changed(worktree, entry, stamp) {
            return Changes::Some;
        }
    }
    match parsed.tree_valid {
        Some(true) => Changes::None,
        Some(false) => Changes::Some,
        None => Changes::Unknown,
    }
}

/// One index entry, as far as change detection needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    path: String,
    mtime: (i64, i64),
    size: u32,
    mode: u32,
    sha: [u8; 20],
    /// Skip-worktree or intent-to-add entries are not compared with the work tree.
    skip: bool,
}

/// A parsed index.
#[derive(Debug, Default, PartialEq, Eq)]
struct Index {
    entries: Vec<Entry>,
    /// Whether the cache-tree's root is valid (`None` without a `TREE` extension).
    tree_valid: Option<bool>,
}

fn be32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn parse(b: &[u8]) -> Option<Index> {
    if b.get(..4)? != b"DIRC" {
        return None;
    }
    let version = be32(b, 4)?;
    if !(2..=4).contains(&version) {
        return None;
    }
    let count = be32(b, 8)? as usize;
    let body_end = b.len().checked_sub(20)?;
    let mut at = 12;
    let mut index = Index::default();
    let mut previous = String::new();
    for _ in 0..count {
        let start = at;
        let mtime = (i64::from(be32(b, at + 8)?), i64::from(be32(b, at + 12)?));
        let mode = be32(b, at + 24)?;
        let size = be32(b, at + 36)?;
        let sha: [u8; 20] = b.get(at + 40..at + 60)?.try_into().ok()?;
        let flags = u16::from_be_bytes(b.get(at + 60..at + 62)?.try_into().ok()?);
        at += 62;
        let mut skip = false;
        if flags & 0x4000 != 0 {
            let extended = u16::from_be_bytes(b.get(at..at + 2)?.try_into().ok()?);
            // skip-worktree (0x4000) and intent-to-add (0x2000).
            skip = extended & 0x6000 != 0;
            at += 2;
        }
        let path = if version == 4 {
            let (strip, used) = varint(b.get(at..body_end)?)?;
            at += used;
            let end = at + memchr::memchr(0, b.get(at..body_end)?)?;
            let keep = previous.len().checked_sub(strip)?;
            let mut path = previous.get(..keep)?.to_owned();
            path.push_str(std::str::from_utf8(&b[at..end]).ok()?);
            at = end + 1;
            path
        } else {
            let end = at + memchr::memchr(0, b.get(at..body_end)?)?;
            let path = std::str::from_utf8(&b[at..end]).ok()?.to_owned();
            // Entries are NUL-padded to a multiple of 8 bytes from their start.
            let len = end + 1 - start;
            at = start + len.div_ceil(8) * 8;
            path
        };
        previous.clone_from(&path);
        index.entries.push(Entry {
            path,
            mtime,
            size,
            mode,
            sha,
            skip,
        });
    }
    while at + 8 <= body_end {
        let signature = b.get(at..at + 4)?;
        let len = be32(b, at + 4)? as usize;
        let data = b.get(at + 8..at + 8 + len)?;
        match signature {
            b"TREE" => index.tree_valid = Some(tree_root_valid(data)?),
            // A split index keeps most entries in a shared file: not judged here.
            b"link" => return None,
            _ => {}
        }
        at += 8 + len;
    }
    Some(index)
}

/// Git's offset varint of index v4 path compression.
fn varint(b: &[u8]) -> Option<(usize, usize)> {
    let mut value: usize = 0;
    for (n, &byte) in b.iter().enumerate().take(9) {
        if n > 0 {
            value = value.checked_add(1)?.checked_shl(7)?;
        }
        value |= usize::from(byte & 0x7f);
        if byte & 0x80 == 0 {
            return Some((value, n + 1));
        }
    }
    None
}

/// The root entry of a `TREE` extension: `""\0<entry count> <subtrees>\n`, count -1 when invalid.
fn tree_root_valid(data: &[u8]) -> Option<bool> {
    let nul = memchr::memchr(0, data)?;
    let rest = &data[nul + 1..];
    let space = memchr::memchr(b' ', rest)?;
    let count = std::str::from_utf8(&rest[..space]).ok()?;
    Some(!count.starts_with('-'))
}

fn entry_changed(worktree: &Path, entry: &Entry, index_stamp: (i64, i64)) -> bool {
    if entry.skip {
        return false;
    }
    // Gitlinks (submodules) are judged by their own repository; not here.
    if entry.mode & 0o170000 == 0o160000 {
        return false;
    }
    let path = worktree.join(&entry.path);
    let Ok(meta) = fs::symlink_metadata(&path) else {
        return true;
    };
    let kind = meta.mode() & 0o170000;
    if kind != entry.mode & 0o170000 {
        return true;
    }
    if kind == 0o100000 && (meta.mode() & 0o100 != 0) != (entry.mode & 0o100 != 0) {
        return true;
    }
    // The index keeps sizes (and mtime seconds) truncated to 32 bits.
    let size = meta.len() as u32;
    let mtime = (i64::from(meta.mtime() as u32), meta.mtime_nsec());
    // Git smudges a racily clean entry by zeroing its size; such an entry is hashed below.
    if size != entry.size && entry.size != 0 {
        return true;
    }
    let racy = (meta.mtime(), meta.mtime_nsec()) >= index_stamp;
    if mtime == entry.mtime && size == entry.size && !racy {
        return false;
    }
    blob_sha(&path, kind == 0o120000).is_none_or(|sha| sha != entry.sha)
}

/// Git's blob id of a file (or of a symlink's target text).
fn blob_sha(path: &Path, link: bool) -> Option<[u8; 20]> {
    use std::os::unix::ffi::OsStrExt;
    let bytes = if link {
        fs::read_link(path).ok()?.as_os_str().as_bytes().to_vec()
    } else {
        fs::read(path).ok()?
    };
    let mut ctx = aws_lc_rs::digest::Context::new(&aws_lc_rs::digest::SHA1_FOR_LEGACY_USE_ONLY);
    ctx.update(format!("blob {}\0", bytes.len()).as_bytes());
    ctx.update(&bytes);
    ctx.finish().as_ref().try_into().ok()
}

#[cfg(test)]
mod tests;
