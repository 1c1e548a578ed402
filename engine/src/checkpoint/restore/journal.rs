//! The restore journal's layout under `.ash/` and its `MANIFEST`: the list of changes, each a
//! path with its state before and after, as JSON followed by the BLAKE3 of that JSON.
//!
//! ```text
//! .ash/restore.new/          being staged (nothing in the workspace changed yet)
//! .ash/restore/              published: MANIFEST, stage/<i>, removed/<i>, COMMITTED
//! .ash/restore.committed/    finished forward, being deleted
//! .ash/restore.rolled-back/  rolled back, being deleted
//! .ash/restore.trash-<pid>-<ns>/  committed and answered, deleted in the background
//! ```

use super::desired::{Before, Change, Item};
use crate::checkpoint::manifest::{Node, Stamp};
use crate::protocol::{Digest, bytes_from_lower_hex, to_lower_hex};
use serde::{Deserialize, Serialize};

/// The journal being staged.
pub(crate) const PREPARING: &str = ".ash/restore.new";
/// The published journal.
pub(crate) const PUBLISHED: &str = ".ash/restore";
/// A journal whose restore is complete, renamed so its outcome survives a crash during deletion.
pub(crate) const DONE_COMMITTED: &str = ".ash/restore.committed";
/// A journal whose restore was rolled back, likewise.
pub(crate) const DONE_ROLLED_BACK: &str = ".ash/restore.rolled-back";
/// Names in `.ash` of committed journals set aside for deletion (`restore.trash-<pid>-<ns>`).
pub(crate) const TRASH_PREFIX: &str = "restore.trash-";
/// The state directory holding them.
pub(crate) const STATE: &str = ".ash";
/// The changes file inside a journal.
pub(crate) const MANIFEST: &str = "MANIFEST";
/// The commit marker inside a published journal.
pub(crate) const COMMITTED: &str = "COMMITTED";
/// Exact content of the commit marker.
pub(crate) const COMMITTED_MARKER: &[u8] = b"committed\n";
/// Largest `MANIFEST` recovery reads.
pub(crate) const MAX_MANIFEST_BYTES: u64 = 64 << 20;
const FORMAT: &str = "ash-restore-journal-v1";

/// `<journal>/stage/<i>`: what change `i` puts in place.
pub(crate) fn stage(journal: &str, i: usize) -> String {
    format!("{journal}/stage/{i:08x}")
}

/// `<journal>/removed/<i>`: what change `i` took away, kept until the journal goes.
pub(crate) fn removed(journal: &str, i: usize) -> String {
    format!("{journal}/removed/{i:08x}")
}

#[derive(Serialize, Deserialize)]
struct Doc {
    format: String,
    changes: Vec<Rec>,
}

#[derive(Serialize, Deserialize)]
struct Rec {
    path: String,
    before: Option<ItemRec>,
    after: Option<ItemRec>,
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum ItemRec {
    File {
        mode: u32,
        digest: String,
        size: u64,
    },
    Dir {
        mode: u32,
    },
    Symlink {
        target: String,
    },
    /// A before state recorded without content: what the concurrency check compared. The
    /// times are decimal strings (an internally tagged enum cannot carry an `i128`).
    Unkept {
        mode: u32,
        size: u64,
        mtime_ns: String,
        ctime_ns: String,
        ino: u64,
        dev: u64,
    },
}

fn to_rec(item: &Item) -> ItemRec {
    match &item.node {
        Node::File { digest, size } => ItemRec::File {
            mode: item.mode,
            digest: digest.to_hex(),
            size: *size,
        },
        Node::Dir => ItemRec::Dir { mode: item.mode },
        Node::Symlink { target } => ItemRec::Symlink {
            target: to_lower_hex(target),
        },
    }
}

fn before_rec(before: &Before) -> ItemRec {
    match before {
        Before::Kept(item) => to_rec(item),
        Before::Unkept { mode, stamp } => ItemRec::Unkept {
            mode: *mode,
            size: stamp.size,
            mtime_ns: stamp.mtime_ns.to_string(),
            ctime_ns: stamp.ctime_ns.to_string(),
            ino: stamp.ino,
            dev: stamp.dev,
        },
    }
}

fn before_from_rec(rec: ItemRec) -> Option<Before> {
    match rec {
        ItemRec::Unkept {
            mode,
            size,
            mtime_ns,
            ctime_ns,
            ino,
            dev,
        } => (mode <= 0o7777).then_some(Before::Unkept {
            mode,
            stamp: Stamp {
                size,
                mtime_ns: mtime_ns.parse().ok()?,
                ctime_ns: ctime_ns.parse().ok()?,
                ino,
                dev,
            },
        }),
        rec => from_rec(rec).map(Before::Kept),
    }
}

/// A kept state; `Unkept` is only ever a before state.
fn from_rec(rec: ItemRec) -> Option<Item> {
    Some(match rec {
        ItemRec::File { mode, digest, size } => Item {
            mode,
            node: Node::File {
                digest: Digest::from_hex(&digest)?,
                size,
            },
        },
        ItemRec::Dir { mode } => Item {
            mode,
            node: Node::Dir,
        },
        ItemRec::Symlink { target } => Item {
            mode: 0o777,
            node: Node::Symlink {
                target: bytes_from_lower_hex(&target)?,
            },
        },
        ItemRec::Unkept { .. } => return None,
    })
    .filter(|item| item.mode <= 0o7777)
}

/// The `MANIFEST` bytes of `changes`.
pub(crate) fn encode(changes: &[Change]) -> Vec<u8> {
    let doc = Doc {
        format: FORMAT.to_owned(),
        changes: changes
            .iter()
            .map(|c| Rec {
                path: c.path.clone(),
                before: c.before.as_ref().map(before_rec),
                after: c.after.as_ref().map(to_rec),
            })
            .collect(),
    };
    // Serialising plain strings and numbers cannot fail.
    let mut bytes = serde_json::to_vec(&doc).unwrap_or_default();
    let check = blake3::hash(&bytes).to_hex();
    bytes.push(b'\n');
    bytes.extend_from_slice(check.as_bytes());
    bytes.push(b'\n');
    bytes
}

/// The changes of a `MANIFEST`, or why it cannot be trusted.
pub(crate) fn decode(bytes: &[u8]) -> Result<Vec<Change>, String> {
    let body = bytes
        .strip_suffix(b"\n")
        .ok_or("MANIFEST is truncated (no final newline)")?;
    let split = memchr::memrchr(b'\n', body).ok_or("MANIFEST has no checksum line")?;
    let (json, check) = (&body[..split], &body[split + 1..]);
    if blake3::hash(json).to_hex().as_bytes() != check {
        return Err("MANIFEST fails its checksum".to_owned());
    }
    let doc: Doc = serde_json::from_slice(json).map_err(|e| format!("MANIFEST: {e}"))?;
    if doc.format != FORMAT {
        return Err(format!("MANIFEST has unknown format {:?}", doc.format));
    }
    let mut out: Vec<Change> = Vec::with_capacity(doc.changes.len());
    for rec in doc.changes {
        let bad = |what: &str| format!("MANIFEST entry {:?}: {what}", rec.path);
        if out
            .last()
            .is_some_and(|l| l.path.as_bytes() >= rec.path.as_bytes())
        {
            return Err(bad("out of order"));
        }
        let path_ok = !rec.path.is_empty()
            && !rec.path.as_bytes().contains(&0)
            && rec
                .path
                .split('/')
                .all(|c| !c.is_empty() && c != "." && c != "..")
            && rec.path != STATE
            && !rec.path.starts_with(".ash/");
        if !path_ok {
            return Err(bad("not a workspace path"));
        }
        let before = match rec.before {
            Some(r) => Some(before_from_rec(r).ok_or_else(|| bad("invalid before state"))?),
            None => None,
        };
        let after = match rec.after {
            Some(r) => Some(from_rec(r).ok_or_else(|| bad("invalid after state"))?),
            None => None,
        };
        if before.is_none() && after.is_none() {
            return Err(bad("changes nothing"));
        }
        out.push(Change {
            path: rec.path,
            before,
            after,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<Change> {
        vec![
            Change {
                path: "a".into(),
                before: Some(Before::Kept(Item {
                    mode: 0o644,
                    node: Node::File {
                        digest: Digest::of(b"x"),
                        size: 1,
                    },
                })),
                after: Some(Item {
                    mode: 0o777,
                    node: Node::Symlink {
                        target: b"../t\xff".to_vec(),
                    },
                }),
            },
            Change {
                path: "big".into(),
                before: Some(Before::Unkept {
                    mode: 0o600,
                    stamp: Stamp {
                        size: 1 << 30,
                        mtime_ns: -5,
                        ctime_ns: i128::from(i64::MAX) * 1_000_000_000,
                        ino: u64::MAX,
                        dev: 7,
                    },
                }),
                after: None,
            },
            Change {
                path: "d".into(),
                before: None,
                after: Some(Item {
                    mode: 0o755,
                    node: Node::Dir,
                }),
            },
        ]
    }

    #[test]
    fn a_manifest_reads_back_as_written() {
        let bytes = encode(&sample());
        assert_eq!(decode(&bytes), Ok(sample()));
    }

    #[test]
    fn a_damaged_or_truncated_manifest_is_refused() {
        let mut bytes = encode(&sample());
        bytes[10] ^= 1;
        assert!(decode(&bytes).is_err());
        let bytes = encode(&sample());
        assert!(decode(&bytes[..bytes.len() - 3]).is_err());
    }
}
