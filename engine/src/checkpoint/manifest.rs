//! A checkpoint's manifest: every file, directory and symlink under the workspace at one moment.

use crate::protocol::Digest;

/// A manifest's identity: the BLAKE3 of its encoded bytes, hex in the session journal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ManifestId(pub [u8; 32]);

/// What the file system said about an entry when it was captured (git-index style): a later
/// capture re-reads an entry's content only when one of these differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    /// Size in bytes (`st_size`).
    pub size: u64,
    /// Modification time in nanoseconds since the epoch.
    pub mtime_ns: i128,
    /// Status-change time in nanoseconds since the epoch.
    pub ctime_ns: i128,
    /// Inode number.
    pub ino: u64,
    /// Device number.
    pub dev: u64,
}

/// What a restorable entry is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    /// A regular file whose content is the store object `digest` (BLAKE3 of the content).
    File { digest: Digest, size: u64 },
    /// A directory (kept even when empty).
    Dir,
    /// A symbolic link, kept as a link and never followed; `target` is its raw bytes.
    Symlink { target: Vec<u8> },
}

/// Why an entry was recorded without its content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unrestorable {
    /// Ignored by a `.gitignore` of the workspace (`target/`, `node_modules/` …).
    Ignored,
    /// One of the config's `exclude` patterns.
    Excluded,
    /// ansa's or the engine's own state (`.ash/`, `.ansa/` …).
    StateDir,
    /// Larger than the per-file limit (`checkpoint_max_file_bytes`).
    TooLarge { limit: u64 },
    /// The store's budget was spent before this content could be kept.
    OverBudget,
    /// The file could not be read (permission, vanished, not UTF-8 name …); `reason` says which.
    Unreadable { reason: String },
    /// Not a file, directory or symlink (fifo, socket, device).
    Special,
}

/// One path of the workspace at capture time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Logical path relative to the workspace root, `/`-separated, never empty, no `.`/`..`.
    pub path: String,
    /// Permission bits (`st_mode & 0o7777`).
    pub mode: u32,
    /// The stat fields the next capture compares.
    pub stamp: Stamp,
    /// The content (restorable) or why it was not kept.
    pub state: Result<Node, Unrestorable>,
}

/// A whole checkpoint: entries sorted by `path` bytes, unique. An ignored or excluded
/// directory is one `Unrestorable` entry; its contents are not listed.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Manifest {
    /// The entries, sorted by path.
    pub entries: Vec<Entry>,
}
