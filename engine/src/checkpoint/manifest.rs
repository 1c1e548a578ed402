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

/// What every capture reason for a file that changed while it was read contains.
pub(crate) const CHANGED_DURING_CAPTURE: &str = "while the checkpoint was taken";

impl Unrestorable {
    /// Whether the capture gave up on the file because it changed while being read: someone
    /// else was writing it, which a restore reports as a conflict.
    pub fn changed_during_capture(&self) -> bool {
        matches!(self, Unrestorable::Unreadable { reason } if reason.contains(CHANGED_DURING_CAPTURE))
    }
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

// ---- Below this line: the encoding, the identity and the strict decoder (ck-capture). ----

#[cfg(test)]
mod tests;

use std::collections::HashSet;
use std::fmt;

use crate::checkpoint::error::ManifestError;
use crate::files::workspace::MAX_LOGICAL_PATH_BYTES;
use crate::protocol::to_lower_hex;

/// First bytes of an encoded manifest; the trailing digits are the format version.
const MAGIC: &[u8; 8] = b"ACKMAN01";

/// Longest symlink target kept (Linux refuses longer ones: `PATH_MAX` with its NUL).
pub const MAX_SYMLINK_TARGET_BYTES: usize = 4096;

/// Longest `Unrestorable::Unreadable` reason kept; capture cuts longer OS messages.
pub const MAX_REASON_BYTES: usize = 1024;

/// Bytes of the fixed part of an entry (path length, mode, stamp, state tag): the least an
/// entry can take, which bounds how many entries a manifest of a given length can claim.
const ENTRY_FIXED_BYTES: usize = 2 + 4 + 8 + 16 + 16 + 8 + 8 + 1;

/// State tags of the encoding. Values are part of the format: never renumber.
mod tag {
    pub const FILE: u8 = 0;
    pub const DIR: u8 = 1;
    pub const SYMLINK: u8 = 2;
    pub const IGNORED: u8 = 16;
    pub const EXCLUDED: u8 = 17;
    pub const STATE_DIR: u8 = 18;
    pub const TOO_LARGE: u8 = 19;
    pub const OVER_BUDGET: u8 = 20;
    pub const UNREADABLE: u8 = 21;
    pub const SPECIAL: u8 = 22;
}

impl ManifestId {
    /// The identity of encoded manifest bytes.
    pub fn of(encoded: &[u8]) -> ManifestId {
        ManifestId(*blake3::hash(encoded).as_bytes())
    }

    /// The 64-digit lowercase hex form the session journal records.
    pub fn to_hex(&self) -> String {
        to_lower_hex(&self.0)
    }

    /// Parses exactly 64 lowercase hex digits (what [`ManifestId::to_hex`] writes).
    pub fn from_hex(hex: &str) -> Result<ManifestId, ManifestError> {
        crate::protocol::array_from_lower_hex(hex)
            .map(ManifestId)
            .ok_or_else(|| ManifestError::BadId {
                text: hex.chars().take(80).collect(),
            })
    }
}

impl fmt::Display for ManifestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl Manifest {
    /// The entry at `path`, if any (entries are sorted, so this is a binary search).
    pub fn get(&self, path: &str) -> Option<&Entry> {
        self.entries
            .binary_search_by(|e| e.path.as_bytes().cmp(path.as_bytes()))
            .ok()
            .map(|i| &self.entries[i])
    }

    /// Encodes the manifest and returns its bytes with their identity.
    pub fn encode_with_id(&self) -> Result<(Vec<u8>, ManifestId), ManifestError> {
        let bytes = encode(self)?;
        let id = ManifestId::of(&bytes);
        Ok((bytes, id))
    }
}

/// The canonical bytes of a manifest: one encoding per manifest, so equal manifests have equal
/// identities. Refuses a manifest the decoder would refuse (unsorted, duplicate or invalid
/// paths, an entry below a non-directory, oversized fields), so nothing written is unreadable.
///
/// Layout (integers little-endian): `ACKMAN01`, entry count (u64), then per entry the path
/// (u16 length, UTF-8 bytes), mode (u32), the stamp (size u64, mtime i128, ctime i128,
/// ino u64, dev u64) and a state tag (u8) with its payload: a file's digest (32 bytes) and
/// size (u64), a symlink target (u16 length, bytes), a `TooLarge` limit (u64), an
/// `Unreadable` reason (u16 length, UTF-8).
pub fn encode(manifest: &Manifest) -> Result<Vec<u8>, ManifestError> {
    check_structure(manifest.entries.iter().map(|e| (&e.path, &e.state, e.mode)))?;
    let mut out = Vec::with_capacity(16 + manifest.entries.len() * 96);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(manifest.entries.len() as u64).to_le_bytes());
    for entry in &manifest.entries {
        put_bytes(&mut out, entry.path.as_bytes());
        out.extend_from_slice(&entry.mode.to_le_bytes());
        let s = &entry.stamp;
        out.extend_from_slice(&s.size.to_le_bytes());
        out.extend_from_slice(&s.mtime_ns.to_le_bytes());
        out.extend_from_slice(&s.ctime_ns.to_le_bytes());
        out.extend_from_slice(&s.ino.to_le_bytes());
        out.extend_from_slice(&s.dev.to_le_bytes());
        match &entry.state {
            Ok(Node::File { digest, size }) => {
                out.push(tag::FILE);
                out.extend_from_slice(&digest.0);
                out.extend_from_slice(&size.to_le_bytes());
            }
            Ok(Node::Dir) => out.push(tag::DIR),
            Ok(Node::Symlink { target }) => {
                out.push(tag::SYMLINK);
                put_bytes(&mut out, target);
            }
            Err(Unrestorable::Ignored) => out.push(tag::IGNORED),
            Err(Unrestorable::Excluded) => out.push(tag::EXCLUDED),
            Err(Unrestorable::StateDir) => out.push(tag::STATE_DIR),
            Err(Unrestorable::TooLarge { limit }) => {
                out.push(tag::TOO_LARGE);
                out.extend_from_slice(&limit.to_le_bytes());
            }
            Err(Unrestorable::OverBudget) => out.push(tag::OVER_BUDGET),
            Err(Unrestorable::Unreadable { reason }) => {
                out.push(tag::UNREADABLE);
                put_bytes(&mut out, reason.as_bytes());
            }
            Err(Unrestorable::Special) => out.push(tag::SPECIAL),
        }
    }
    Ok(out)
}

/// Appends a u16 length and the bytes; callers checked the length in [`check_structure`].
fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(&(bytes.len() as u16).to_le_bytes());
    out.extend_from_slice(bytes);
}

/// Decodes manifest bytes read back from a store or any other untrusted place. Every length
/// is bounded, every field checked (path syntax, order, parents, UTF-8, tags), trailing bytes
/// refused; the error names the byte offset and what was wrong.
pub fn decode(bytes: &[u8]) -> Result<Manifest, ManifestError> {
    let mut r = Reader { bytes, at: 0 };
    let magic = r.take(MAGIC.len(), "magic")?;
    if magic != MAGIC {
        return Err(ManifestError::BadMagic);
    }
    let count = r.u64("entry count")?;
    let room = (bytes.len() - r.at) / ENTRY_FIXED_BYTES;
    if count > room as u64 {
        return Err(ManifestError::Truncated {
            offset: r.at,
            what: "entries (the count claims more than the bytes hold)",
        });
    }
    let mut entries = Vec::with_capacity(count as usize);
    for _ in 0..count {
        entries.push(r.entry()?);
    }
    if r.at != bytes.len() {
        return Err(ManifestError::Trailing { offset: r.at });
    }
    check_structure(entries.iter().map(|e| (&e.path, &e.state, e.mode)))?;
    Ok(Manifest { entries })
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], ManifestError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|end| *end <= self.bytes.len())
            .ok_or(ManifestError::Truncated {
                offset: self.at,
                what,
            })?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], ManifestError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N, what)?);
        Ok(out)
    }

    fn u64(&mut self, what: &'static str) -> Result<u64, ManifestError> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }

    fn i128(&mut self, what: &'static str) -> Result<i128, ManifestError> {
        Ok(i128::from_le_bytes(self.array(what)?))
    }

    fn sized(&mut self, what: &'static str, limit: usize) -> Result<&'a [u8], ManifestError> {
        let offset = self.at;
        let len = usize::from(u16::from_le_bytes(self.array(what)?));
        if len > limit {
            return Err(ManifestError::TooLong {
                offset,
                what,
                len,
                limit,
            });
        }
        self.take(len, what)
    }

    fn text(&mut self, what: &'static str, limit: usize) -> Result<String, ManifestError> {
        let offset = self.at;
        let bytes = self.sized(what, limit)?;
        std::str::from_utf8(bytes)
            .map(str::to_owned)
            .map_err(|_| ManifestError::NotUtf8 { offset, what })
    }

    fn entry(&mut self) -> Result<Entry, ManifestError> {
        let path = self.text("path", MAX_LOGICAL_PATH_BYTES)?;
        let mode = u32::from_le_bytes(self.array("mode")?);
        let stamp = Stamp {
            size: self.u64("stamp size")?,
            mtime_ns: self.i128("stamp mtime")?,
            ctime_ns: self.i128("stamp ctime")?,
            ino: self.u64("stamp inode")?,
            dev: self.u64("stamp device")?,
        };
        let tag_offset = self.at;
        let [tag] = self.array::<1>("state tag")?;
        let state = match tag {
            tag::FILE => Ok(Node::File {
                digest: Digest(self.array("file digest")?),
                size: self.u64("file size")?,
            }),
            tag::DIR => Ok(Node::Dir),
            tag::SYMLINK => Ok(Node::Symlink {
                target: self
                    .sized("symlink target", MAX_SYMLINK_TARGET_BYTES)?
                    .to_vec(),
            }),
            tag::IGNORED => Err(Unrestorable::Ignored),
            tag::EXCLUDED => Err(Unrestorable::Excluded),
            tag::STATE_DIR => Err(Unrestorable::StateDir),
            tag::TOO_LARGE => Err(Unrestorable::TooLarge {
                limit: self.u64("size limit")?,
            }),
            tag::OVER_BUDGET => Err(Unrestorable::OverBudget),
            tag::UNREADABLE => Err(Unrestorable::Unreadable {
                reason: self.text("reason", MAX_REASON_BYTES)?,
            }),
            tag::SPECIAL => Err(Unrestorable::Special),
            other => {
                return Err(ManifestError::BadTag {
                    offset: tag_offset,
                    tag: other,
                });
            }
        };
        Ok(Entry {
            path,
            mode,
            stamp,
            state,
        })
    }
}

/// The rules both directions enforce: valid paths, strictly ascending by bytes, permission
/// bits only, bounded payloads, and every entry's parent an earlier restorable directory
/// (an unreadable directory lists nothing below it), except that a state directory lists what
/// is below it as state too (by stat, so a plan can count its changes), and an ignored or
/// excluded directory a restore's checkpoint kept lists what is below it by stat
/// (`capture_for_restore`).
fn check_structure<'m>(
    entries: impl Iterator<Item = (&'m String, &'m Result<Node, Unrestorable>, u32)>,
) -> Result<(), ManifestError> {
    let mut dirs: HashSet<&str> = HashSet::new();
    let mut state_dirs: HashSet<&str> = HashSet::new();
    let mut listed: HashSet<&str> = HashSet::new();
    let mut previous: Option<&str> = None;
    for (index, (path, state, mode)) in entries.enumerate() {
        let bad = |reason: &'static str| ManifestError::BadEntry {
            index,
            path: path.chars().take(200).collect(),
            reason,
        };
        if let Some(reason) = path_problem(path) {
            return Err(bad(reason));
        }
        if previous.is_some_and(|p| p.as_bytes() >= path.as_bytes()) {
            return Err(bad("paths are not strictly ascending"));
        }
        if mode & !0o7777 != 0 {
            return Err(bad("mode has bits other than permissions"));
        }
        match state {
            Ok(Node::Symlink { target }) if target.len() > MAX_SYMLINK_TARGET_BYTES => {
                return Err(bad("symlink target is too long"));
            }
            Err(Unrestorable::Unreadable { reason }) if reason.len() > MAX_REASON_BYTES => {
                return Err(bad("reason is too long"));
            }
            _ => {}
        }
        let is_state = matches!(state, Err(Unrestorable::StateDir));
        let parent = path.rsplit_once('/').map(|(p, _)| p);
        let in_listed = parent.is_some_and(|p| listed.contains(p));
        if in_listed && matches!(state, Ok(Node::File { .. }) | Ok(Node::Symlink { .. })) {
            return Err(bad(
                "its parent is an ignored or excluded directory, below which nothing is kept",
            ));
        }
        if let Some(parent) = parent
            && !dirs.contains(parent)
            && !(is_state && state_dirs.contains(parent))
            && !in_listed
        {
            return Err(bad("its parent is not a directory of the manifest"));
        }
        if matches!(state, Ok(Node::Dir)) {
            if in_listed {
                listed.insert(path);
            } else {
                dirs.insert(path);
            }
        }
        if is_state {
            state_dirs.insert(path);
        }
        if matches!(
            state,
            Err(Unrestorable::Ignored) | Err(Unrestorable::Excluded)
        ) {
            listed.insert(path);
        }
        previous = Some(path);
    }
    Ok(())
}

/// Why `path` cannot be a manifest path, if it cannot: it must be a relative `/`-separated
/// path of real names (no empty, `.` or `..` component, no NUL), at most 4096 bytes.
fn path_problem(path: &str) -> Option<&'static str> {
    if path.is_empty() {
        return Some("path is empty");
    }
    if path.len() > MAX_LOGICAL_PATH_BYTES {
        return Some("path is longer than 4096 bytes");
    }
    if path.contains('\0') {
        return Some("path contains NUL");
    }
    for component in path.split('/') {
        match component {
            "" => return Some("path has an empty component or a leading or trailing '/'"),
            "." | ".." => return Some("path has a '.' or '..' component"),
            _ => {}
        }
    }
    None
}
