//! The plan a user sees before a restore changes anything, and the paths something other than
//! this session changed.

use super::desired::{self, Before, Change, Held, Item};
use super::lines::{self, Text};
use super::{EntryKind, ObjectSource, Plan, PlannedFile, RestoreError};
use crate::checkpoint::manifest::{Manifest, Node, Unrestorable};
use crate::protocol::Digest;
use std::collections::{BTreeMap, BTreeSet};

/// What restoring `target` over `now` would do. Every content a line count needs is read from
/// `source` and verified, so a damaged store is found here, naming the path. `external` are
/// the paths something other than this session changed (see [`external_changes`]).
pub fn plan(
    target: &Manifest,
    now: &Manifest,
    external: &BTreeSet<String>,
    source: &dyn ObjectSource,
) -> Result<Plan, RestoreError> {
    desired::validate(target, "target")?;
    desired::validate(now, "now")?;
    let diff = desired::diff(target, now, &BTreeSet::new());
    let now_entries: BTreeMap<&str, _> = now.entries.iter().map(|e| (e.path.as_str(), e)).collect();
    let mut plan = Plan::default();
    for change in &diff.changes {
        let planned = planned(change, source)?;
        let changed_during_capture = now_entries
            .get(change.path.as_str())
            .is_some_and(|e| matches!(&e.state, Err(why) if why.changed_during_capture()));
        // A file the capture saw changing was being written by someone else.
        if external.contains(&change.path) || changed_during_capture {
            plan.conflicts.push(change.path.clone());
        }
        if matches!(change.before, Some(Before::Unkept { .. })) {
            plan.unkept.push(change.path.clone());
        }
        match (&change.before, &change.after) {
            (Some(_), Some(_)) => plan.restore.push(planned),
            (None, Some(_)) => plan.recreate.push(planned),
            _ => plan.delete.push(planned),
        }
    }
    let mut not_restorable: BTreeMap<String, _> = diff.unrestorable.into_iter().collect();
    for (path, held) in diff.held {
        if let Held::Unrestorable(why) = held {
            not_restorable.entry(path).or_insert(why);
        }
    }
    let state = StateDirs::of(target, now);
    plan.not_restorable = not_restorable
        .into_iter()
        .filter(|(path, _)| state.top(path).is_none_or(|top| top == path))
        .collect();
    plan.changed_not_restored = state.changed(target, now);
    Ok(plan)
}

/// The state directories of two manifests (entries recorded as `StateDir`).
struct StateDirs<'a>(BTreeSet<&'a str>);

impl<'a> StateDirs<'a> {
    fn of(target: &'a Manifest, now: &'a Manifest) -> StateDirs<'a> {
        StateDirs(
            target
                .entries
                .iter()
                .chain(&now.entries)
                .filter(|e| e.state == Err(Unrestorable::StateDir))
                .map(|e| e.path.as_str())
                .collect(),
        )
    }

    /// The outermost state directory at or above `path`.
    fn top<'p>(&self, path: &'p str) -> Option<&'p str> {
        let mut end = 0;
        loop {
            let next = path[end..].find('/').map_or(path.len(), |i| end + i);
            if self.0.contains(&path[..next]) {
                return Some(&path[..next]);
            }
            if next == path.len() {
                return None;
            }
            end = next + 1;
        }
    }

    /// Per outermost state directory, the paths at or below it that exist in only one of the
    /// manifests or whose size, modification time or mode differ.
    fn changed(&self, target: &Manifest, now: &Manifest) -> Vec<(String, u64)> {
        let t: BTreeMap<&str, _> = target
            .entries
            .iter()
            .map(|e| (e.path.as_str(), e))
            .collect();
        let n: BTreeMap<&str, _> = now.entries.iter().map(|e| (e.path.as_str(), e)).collect();
        let mut counts: BTreeMap<String, u64> = BTreeMap::new();
        for path in t.keys().chain(n.keys().filter(|p| !t.contains_key(*p))) {
            let Some(top) = self.top(path) else { continue };
            let differs = match (t.get(path), n.get(path)) {
                (Some(a), Some(b)) => {
                    a.stamp.size != b.stamp.size
                        || a.stamp.mtime_ns != b.stamp.mtime_ns
                        || a.mode != b.mode
                }
                _ => true,
            };
            if differs {
                *counts.entry(top.to_owned()).or_default() += 1;
            }
        }
        counts.into_iter().collect()
    }
}

/// The paths that differ between the two manifests of any pair: given (after turn j, before
/// turn j+1) pairs and (last after, now), what changed while this session was not acting.
pub fn external_changes(pairs: &[(&Manifest, &Manifest)]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (a, b) in pairs {
        let a: BTreeMap<&str, _> = a.entries.iter().map(|e| (e.path.as_str(), e)).collect();
        let b: BTreeMap<&str, _> = b.entries.iter().map(|e| (e.path.as_str(), e)).collect();
        for path in a.keys().chain(b.keys()) {
            // A side that did not list below an ignored or excluded directory (only a capture
            // for a restore does) says nothing about the paths there.
            let unlisted = |side: &BTreeMap<&str, _>| {
                let mut p = desired::parent(path);
                while let Some(q) = p {
                    if let Some(e) = side.get(q) {
                        let e: &&crate::checkpoint::manifest::Entry = e;
                        return matches!(
                            e.state,
                            Err(Unrestorable::Ignored) | Err(Unrestorable::Excluded)
                        );
                    }
                    p = desired::parent(q);
                }
                false
            };
            let differs = match (a.get(path), b.get(path)) {
                (Some(_), None) if unlisted(&b) => false,
                (None, Some(_)) if unlisted(&a) => false,
                (Some(x), Some(y)) => match (&x.state, &y.state) {
                    (Ok(Node::Symlink { target: s }), Ok(Node::Symlink { target: t })) => s != t,
                    (Ok(s), Ok(t)) => s != t || x.mode != y.mode,
                    // Without content, the recorded stat is all there is to compare.
                    (Err(_), Err(_)) => {
                        x.stamp.size != y.stamp.size
                            || x.stamp.mtime_ns != y.stamp.mtime_ns
                            || x.mode != y.mode
                    }
                    _ => true,
                },
                _ => true,
            };
            if differs {
                out.insert((*path).to_owned());
            }
        }
    }
    out
}

fn kind(item: &Item) -> EntryKind {
    match item.node {
        Node::File { .. } => EntryKind::File,
        Node::Dir => EntryKind::Dir,
        Node::Symlink { .. } => EntryKind::Symlink,
    }
}

/// The plan row of a change, with line counts for file contents.
fn planned(change: &Change, source: &dyn ObjectSource) -> Result<PlannedFile, RestoreError> {
    let shown = change
        .after
        .as_ref()
        .or(change.before.as_ref().and_then(Before::item));
    let kind = shown.map_or(EntryKind::File, kind);
    let content = |item: &Option<Item>| -> Result<Option<Vec<u8>>, RestoreError> {
        match item {
            Some(Item {
                node: Node::File { digest, size },
                ..
            }) => read(source, &change.path, digest, *size).map(Some),
            _ => Ok(None),
        }
    };
    let old = content(&change.before.as_ref().and_then(Before::item).cloned())?;
    let new = content(&change.after)?;
    let (mut added, mut removed, mut binary) = (0, 0, false);
    match (
        old.as_deref().map(lines::text),
        new.as_deref().map(lines::text),
    ) {
        (Some(Text::Binary), _) | (_, Some(Text::Binary)) => binary = true,
        (Some(Text::Lines(o)), Some(Text::Lines(n))) => (added, removed) = lines::changed(o, n),
        (Some(Text::Lines(o)), None) => removed = lines::count(o),
        (None, Some(Text::Lines(n))) => added = lines::count(n),
        (None, None) => {}
    }
    Ok(PlannedFile {
        path: change.path.clone(),
        kind,
        added_lines: added,
        removed_lines: removed,
        binary,
    })
}

/// A kept content, verified again here (size and digest) whatever the source promises.
pub(crate) fn read(
    source: &dyn ObjectSource,
    path: &str,
    digest: &Digest,
    size: u64,
) -> Result<Vec<u8>, RestoreError> {
    let bytes = source
        .object(digest)
        .map_err(|error| RestoreError::Object {
            path: path.to_owned(),
            error,
        })?;
    if bytes.len() as u64 != size || Digest::of(&bytes) != *digest {
        return Err(RestoreError::Object {
            path: path.to_owned(),
            error: super::SourceError::Corrupt(*digest),
        });
    }
    Ok(bytes)
}
