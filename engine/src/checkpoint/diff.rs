//! What changed between two manifests, path by path: the runtime's "files each turn changed"
//! and a restore's view of what differs.

use std::cmp::Ordering;

use crate::checkpoint::manifest::{Entry, Manifest, Node, Unrestorable};

/// How a path differs between two manifests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ChangeKind {
    /// Only in the newer manifest.
    Added,
    /// Only in the older manifest.
    Removed,
    /// Same kind, other content (a file's bytes, a link's target), or content that cannot be
    /// compared because one side was not kept and its stat differs.
    Modified,
    /// Same kind and content, other permission bits.
    ModeChanged,
    /// A file, directory or symlink became another of the three.
    TypeChanged,
}

/// One changed path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The path, as in the manifests.
    pub path: String,
    /// How it changed.
    pub kind: ChangeKind,
}

/// The changes from `old` to `new`, sorted by path. A directory's own changes are its kind and
/// mode (its entries are listed on their own). Entries kept out of both manifests for the same
/// reason (ignored, excluded, state directories) never count as changed: their stat moves with
/// every build and means nothing to a user.
pub fn diff(old: &Manifest, new: &Manifest) -> Vec<Change> {
    let mut changes = Vec::new();
    let (mut a, mut b) = (old.entries.iter().peekable(), new.entries.iter().peekable());
    loop {
        let order = match (a.peek(), b.peek()) {
            (None, None) => break,
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (Some(x), Some(y)) => x.path.as_bytes().cmp(y.path.as_bytes()),
        };
        let change = match order {
            Ordering::Less => a.next().map(|e| (&e.path, Some(ChangeKind::Removed))),
            Ordering::Greater => b.next().map(|e| (&e.path, Some(ChangeKind::Added))),
            Ordering::Equal => a
                .next()
                .zip(b.next())
                .map(|(x, y)| (&y.path, compare(x, y))),
        };
        if let Some((path, Some(kind))) = change {
            changes.push(Change {
                path: path.clone(),
                kind,
            });
        }
    }
    changes
}

/// How one path's two entries differ, if they do.
fn compare(old: &Entry, new: &Entry) -> Option<ChangeKind> {
    match (&old.state, &new.state) {
        (Ok(x), Ok(y)) => {
            let content_differs = match (x, y) {
                (Node::Dir, Node::Dir) => false,
                (
                    Node::File {
                        digest: d1,
                        size: s1,
                    },
                    Node::File {
                        digest: d2,
                        size: s2,
                    },
                ) => d1 != d2 || s1 != s2,
                (Node::Symlink { target: t1 }, Node::Symlink { target: t2 }) => t1 != t2,
                _ => return Some(ChangeKind::TypeChanged),
            };
            if content_differs {
                Some(ChangeKind::Modified)
            } else if old.mode != new.mode {
                Some(ChangeKind::ModeChanged)
            } else {
                None
            }
        }
        (Err(x), Err(y)) if x == y && quiet(x) => None,
        (Err(x), Err(y)) if x == y => {
            let same = old.stamp.size == new.stamp.size && old.stamp.mtime_ns == new.stamp.mtime_ns;
            if !same {
                Some(ChangeKind::Modified)
            } else if old.mode != new.mode {
                Some(ChangeKind::ModeChanged)
            } else {
                None
            }
        }
        _ => Some(ChangeKind::Modified),
    }
}

/// States whose entries are left alone whatever their stat says.
fn quiet(state: &Unrestorable) -> bool {
    matches!(
        state,
        Unrestorable::Ignored | Unrestorable::Excluded | Unrestorable::StateDir
    )
}
