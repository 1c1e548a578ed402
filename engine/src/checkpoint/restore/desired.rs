//! Which paths a restore changes: the per-path difference of the checkpoint and the workspace
//! as it is, minus the paths it must leave alone (not restorable, conflicts kept) and whatever
//! those hold in place (a directory holding a kept file cannot be deleted; a file kept where
//! the checkpoint has a directory blocks that directory's children).

use super::RestoreError;
use crate::checkpoint::manifest::{Entry, Manifest, Node, Stamp, Unrestorable};
use crate::files::workspace::STATE_DIR;
use std::collections::{BTreeMap, BTreeSet};

/// Longest logical path a manifest may name (Linux's `PATH_MAX`).
const MAX_PATH_BYTES: usize = 4096;

/// A restorable state of one path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Item {
    /// Permission bits (ignored for symlinks, which Linux gives no modes).
    pub mode: u32,
    /// What the path holds.
    pub node: Node,
}

impl Item {
    fn of(entry: &Entry) -> Option<Item> {
        entry.state.as_ref().ok().map(|node| Item {
            mode: entry.mode,
            node: node.clone(),
        })
    }

    /// The same state as far as a restore can tell (symlink modes do not exist on Linux).
    pub(crate) fn same(&self, other: &Item) -> bool {
        match (&self.node, &other.node) {
            (Node::Symlink { target: a }, Node::Symlink { target: b }) => a == b,
            (a, b) => a == b && self.mode == other.mode,
        }
    }

    /// Whether it is a directory.
    pub(crate) fn is_dir(&self) -> bool {
        matches!(self.node, Node::Dir)
    }
}

/// What a changed path holds now, as far as the restore knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Before {
    /// Content the now manifest kept (so a rollback and a later rewind have it).
    Kept(Item),
    /// Recorded without content (too large, unreadable …): known only by its mode and the
    /// stat fields of the capture, which is what the concurrency check compares.
    Unkept { mode: u32, stamp: Stamp },
}

impl Before {
    /// Whether it is a directory whose content was kept (an unkept entry never is treated
    /// as one: the restore only ever replaces it when it is not a directory).
    pub(crate) fn is_dir(&self) -> bool {
        matches!(self, Before::Kept(item) if item.is_dir())
    }

    /// The kept state, if any.
    pub(crate) fn item(&self) -> Option<&Item> {
        match self {
            Before::Kept(item) => Some(item),
            Before::Unkept { .. } => None,
        }
    }
}

/// One path whose state the restore changes: `before` (now) to `after` (the checkpoint).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Change {
    pub path: String,
    pub before: Option<Before>,
    pub after: Option<Item>,
}

/// Why a differing path is left alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Held {
    /// A conflict the user keeps, or something a kept conflict holds in place.
    Kept,
    /// Not restorable itself, or tied to a path that is not.
    Unrestorable(Unrestorable),
}

/// The outcome of the comparison.
#[derive(Debug, Default)]
pub(crate) struct Diff {
    /// The changes to make, sorted by path.
    pub changes: Vec<Change>,
    /// Differing paths left alone and why, sorted by path.
    pub held: Vec<(String, Held)>,
    /// Every entry recorded without content in either manifest that the restore leaves as
    /// it is, sorted by path.
    pub unrestorable: Vec<(String, Unrestorable)>,
}

/// Checks what the restore relies on: sorted unique paths, each well formed, outside `.ash`
/// unless recorded without content, and below a directory of the same manifest.
pub(crate) fn validate(m: &Manifest, which: &'static str) -> Result<(), RestoreError> {
    let bad = |path: &str, reason: &str| RestoreError::InvalidManifest {
        which,
        path: path.to_owned(),
        reason: reason.to_owned(),
    };
    let mut kinds: BTreeMap<&str, Option<bool>> = BTreeMap::new();
    let mut last: Option<&str> = None;
    for e in &m.entries {
        let path = e.path.as_str();
        if let Some(reason) = path_problem(path) {
            return Err(bad(path, reason));
        }
        if last.is_some_and(|l| l.as_bytes() >= path.as_bytes()) {
            return Err(bad(
                path,
                "entries are not sorted by path or a path repeats",
            ));
        }
        last = Some(path);
        if e.mode > 0o7777 {
            return Err(bad(path, "mode has bits beyond 0o7777"));
        }
        if in_state_dir(path) && e.state.is_ok() {
            return Err(bad(
                path,
                "names the engine's state directory as restorable",
            ));
        }
        if let Some((parent, _)) = path.rsplit_once('/') {
            match kinds.get(parent) {
                Some(Some(true)) | Some(None) => {}
                Some(Some(false)) => return Err(bad(path, "its parent is not a directory")),
                None => return Err(bad(path, "its parent directory is not listed")),
            }
        }
        let dir = e.state.as_ref().ok().map(|n| matches!(n, Node::Dir));
        kinds.insert(path, dir);
    }
    Ok(())
}

fn path_problem(path: &str) -> Option<&'static str> {
    if path.is_empty() {
        return Some("empty path");
    }
    if path.len() > MAX_PATH_BYTES {
        return Some("path too long");
    }
    if path.as_bytes().contains(&0) {
        return Some("path holds a NUL byte");
    }
    if path
        .split('/')
        .any(|c| c.is_empty() || c == "." || c == "..")
    {
        return Some("path has an empty, `.` or `..` component or a leading or trailing `/`");
    }
    None
}

fn in_state_dir(path: &str) -> bool {
    path.strip_prefix(STATE_DIR)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// The parent of a logical path (`None` at the top level).
pub(crate) fn parent(path: &str) -> Option<&str> {
    path.rsplit_once('/').map(|(p, _)| p)
}

/// What a path ends up as, for the structural checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    Absent,
    Dir,
    Other,
}

/// Compares two validated manifests; `keep` are change paths to leave as they are now.
pub(crate) fn diff(target: &Manifest, now: &Manifest, keep: &BTreeSet<String>) -> Diff {
    let t: BTreeMap<&str, &Entry> = target
        .entries
        .iter()
        .map(|e| (e.path.as_str(), e))
        .collect();
    let n: BTreeMap<&str, &Entry> = now.entries.iter().map(|e| (e.path.as_str(), e)).collect();
    // Only the checkpoint's own entries without content hold paths back: whatever the turn
    // made of a path, the checkpoint's kept content (or kept absence) is what is restored.
    let mut unrestorable: BTreeMap<&str, &Unrestorable> = BTreeMap::new();
    for (path, e) in &t {
        if let Err(why) = &e.state {
            unrestorable.insert(path, why);
        }
    }
    // The not-restorable entry of the checkpoint at or above a path, if any.
    let cover = |path: &str| -> Option<Unrestorable> {
        let mut p = Some(path);
        while let Some(q) = p {
            if let Some(why) = unrestorable.get(q) {
                return Some((*why).clone());
            }
            p = parent(q);
        }
        None
    };
    let listed = listed_below(&t, &n);
    let paths: BTreeSet<&str> = t.keys().chain(n.keys()).copied().collect();
    let mut candidates: BTreeMap<&str, Change> = BTreeMap::new();
    let mut held: BTreeMap<&str, Held> = BTreeMap::new();
    // Entries of now without content the restore leaves alone.
    let mut untouched: BTreeMap<&str, &Unrestorable> = BTreeMap::new();
    for &path in &paths {
        let after = t.get(path).and_then(|e| Item::of(e));
        if let Some(why) = cover(path) {
            // Never touched; a changed path below an unrestorable one is reported with it.
            let differs = match (n.get(path).and_then(|e| Item::of(e)), &after) {
                (Some(b), Some(a)) => !b.same(a),
                (None, None) => false,
                _ => true,
            };
            if differs && !unrestorable.contains_key(path) {
                held.insert(path, Held::Unrestorable(why));
            }
            if let Some(Entry { state: Err(w), .. }) = n.get(path) {
                untouched.insert(path, w);
            }
            continue;
        }
        let before = match n.get(path) {
            None => None,
            Some(e) => match &e.state {
                Ok(_) => Item::of(e).map(Before::Kept),
                Err(_) if listed.tops.contains(path) => Some(Before::Kept(Item {
                    mode: e.mode,
                    node: Node::Dir,
                })),
                Err(why) => {
                    if listed.holds(path, why) || unkept_replaceable(why, after.as_ref()) {
                        Some(Before::Unkept {
                            mode: e.mode,
                            stamp: e.stamp,
                        })
                    } else {
                        // An ignored or excluded entry the checkpoint did not have, or one
                        // in place of a directory: its content is unknown, so neither it
                        // nor anything that needs its place is touched.
                        untouched.insert(path, why);
                        if after.is_some() {
                            held.insert(path, Held::Unrestorable(why.clone()));
                        }
                        continue;
                    }
                }
            },
        };
        let differs = match (&before, &after) {
            (Some(Before::Kept(b)), Some(a)) => !b.same(a),
            (None, None) => false,
            _ => true,
        };
        if differs {
            candidates.insert(
                path,
                Change {
                    path: path.to_owned(),
                    before,
                    after,
                },
            );
        }
    }
    for path in keep {
        if candidates.contains_key(path.as_str()) {
            held.insert(candidates_key(&candidates, path), Held::Kept);
        }
    }
    // What a path is now on disk, whatever the manifest could say about its content.
    let physical = |path: &str| -> End {
        match n.get(path) {
            None => End::Absent,
            Some(e) => match &e.state {
                Ok(Node::Dir) => End::Dir,
                Err(_) if listed.tops.contains(path) => End::Dir,
                _ => End::Other,
            },
        }
    };
    loop {
        let end = |path: &str| -> End {
            match candidates.get(path) {
                Some(c) if !held.contains_key(path) => match &c.after {
                    None => End::Absent,
                    Some(a) if a.is_dir() => End::Dir,
                    Some(_) => End::Other,
                },
                _ => physical(path),
            }
        };
        let reason = |path: &str| -> Held {
            match held.get(path) {
                Some(h) => h.clone(),
                None => cover(path)
                    .or_else(|| untouched.get(path).map(|w| (*w).clone()))
                    .map_or(Held::Kept, Held::Unrestorable),
            }
        };
        let mut newly: Vec<(&str, Held)> = Vec::new();
        for (&path, c) in &candidates {
            if held.contains_key(path) {
                continue;
            }
            // A path that ends up existing needs its parent to end up a directory.
            if c.after.is_some()
                && let Some(p) = parent(path)
                && end(p) != End::Dir
            {
                newly.push((path, reason(p)));
                continue;
            }
            // A directory that goes away must not hold anything that stays.
            if c.before.as_ref().is_some_and(Before::is_dir) && end(path) != End::Dir {
                let lo = format!("{path}/");
                let hi = format!("{path}0");
                let staying = paths
                    .range::<str, _>((
                        std::ops::Bound::Included(lo.as_str()),
                        std::ops::Bound::Excluded(hi.as_str()),
                    ))
                    .find(|q| end(q) != End::Absent);
                if let Some(q) = staying {
                    newly.push((path, reason(q)));
                }
            }
        }
        if newly.is_empty() {
            break;
        }
        for (path, why) in newly {
            held.insert(path, why);
        }
    }
    let changes = candidates
        .into_iter()
        .filter(|(p, _)| !held.contains_key(p))
        .map(|(_, c)| c)
        .collect();
    Diff {
        changes,
        held: held.into_iter().map(|(p, h)| (p.to_owned(), h)).collect(),
        unrestorable: unrestorable
            .into_iter()
            .chain(untouched)
            .collect::<BTreeMap<_, _>>()
            .into_iter()
            .map(|(p, w)| (p.to_owned(), w.clone()))
            .collect(),
    }
}

/// Directories the checkpoint kept that are ignored or excluded now and that the capture of
/// now listed anyway (`capture_for_restore`): below them, every directory is recorded as one
/// and every other ignored or excluded entry is a file, symlink or special file known by its
/// stat, so the restore may replace or delete it like any unkept file.
struct Listed<'a> {
    /// The ignored or excluded directories themselves (recorded without content).
    tops: BTreeSet<&'a str>,
}

impl Listed<'_> {
    /// Whether `path`, recorded without content for `why`, lies below a listed directory.
    fn holds(&self, path: &str, why: &Unrestorable) -> bool {
        if !matches!(why, Unrestorable::Ignored | Unrestorable::Excluded) {
            return false;
        }
        let mut p = parent(path);
        while let Some(q) = p {
            if self.tops.contains(q) {
                return true;
            }
            p = parent(q);
        }
        false
    }
}

/// The listed directories: an ignored or excluded entry of now where the checkpoint kept a
/// directory, with something listed below it. One listed empty cannot be told from a file of
/// that name, so it stays not restorable (its kept children are then held with it).
fn listed_below<'a>(t: &BTreeMap<&str, &Entry>, n: &BTreeMap<&'a str, &Entry>) -> Listed<'a> {
    let mut tops = BTreeSet::new();
    for (&path, e) in n {
        let ignored = matches!(
            e.state,
            Err(Unrestorable::Ignored) | Err(Unrestorable::Excluded)
        );
        let kept_dir = t
            .get(path)
            .is_some_and(|k| matches!(k.state, Ok(Node::Dir)));
        if !ignored || !kept_dir {
            continue;
        }
        let below = format!("{path}/");
        let holds_any = n
            .range::<str, _>((
                std::ops::Bound::Included(below.as_str()),
                std::ops::Bound::Unbounded,
            ))
            .next()
            .is_some_and(|(q, _)| q.starts_with(below.as_str()));
        if holds_any {
            tops.insert(path);
        }
    }
    Listed { tops }
}

/// Whether an entry of now recorded without content may be replaced by `after` (or deleted
/// when `after` is `None`). Ignored, excluded and state-directory entries may be whole
/// directories whose contents were never captured: they are only replaced where the
/// checkpoint kept a file or symlink (and apply refuses to move a directory it finds there),
/// and never deleted. The others are files the turn made too large, unreadable or special.
fn unkept_replaceable(why: &Unrestorable, after: Option<&Item>) -> bool {
    match after {
        Some(a) if a.is_dir() => false,
        Some(_) => true,
        None => matches!(
            why,
            Unrestorable::TooLarge { .. } | Unrestorable::OverBudget | Unrestorable::Special
        ),
    }
}

/// The candidate map's own key for `path` (borrowed from the manifests, not from `keep`).
fn candidates_key<'a>(candidates: &BTreeMap<&'a str, Change>, path: &str) -> &'a str {
    candidates.get_key_value(path).map_or("", |(k, _)| *k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checkpoint::manifest::Stamp;
    use crate::protocol::Digest;

    fn entry(path: &str, state: Result<Node, Unrestorable>) -> Entry {
        Entry {
            path: path.to_owned(),
            mode: 0o755,
            stamp: Stamp {
                size: 0,
                mtime_ns: 0,
                ctime_ns: 0,
                ino: 0,
                dev: 0,
            },
            state,
        }
    }

    fn file(path: &str, body: &[u8]) -> Entry {
        entry(
            path,
            Ok(Node::File {
                digest: Digest::of(body),
                size: body.len() as u64,
            }),
        )
    }

    fn dir(path: &str) -> Entry {
        entry(path, Ok(Node::Dir))
    }

    fn m(entries: Vec<Entry>) -> Manifest {
        Manifest { entries }
    }

    fn changed(d: &Diff) -> Vec<&str> {
        d.changes.iter().map(|c| c.path.as_str()).collect()
    }

    #[test]
    fn validation_refuses_what_a_restore_could_not_order_or_would_escape_with() {
        let ok = m(vec![dir("a"), file("a/b", b"x")]);
        assert!(validate(&ok, "target").is_ok());
        for bad in [
            m(vec![file("a/b", b"x")]),
            m(vec![file("a", b"x"), file("a/b", b"x")]),
            m(vec![dir("b"), dir("a")]),
            m(vec![dir("a"), dir("a")]),
            m(vec![file("../x", b"x")]),
            m(vec![file("a//b", b"x")]),
            m(vec![file("", b"x")]),
            m(vec![dir(".ash")]),
        ] {
            assert!(validate(&bad, "now").is_err(), "{bad:?}");
        }
        // `.ash` recorded without content is how capture lists it.
        assert!(validate(&m(vec![entry(".ash", Err(Unrestorable::StateDir))]), "now").is_ok());
    }

    #[test]
    fn a_file_kept_where_the_checkpoint_has_a_directory_holds_back_its_children() {
        // Now: `x` is a file the user wrote; the checkpoint had a directory `x` with `x/y`.
        let target = m(vec![dir("x"), file("x/y", b"y")]);
        let now = m(vec![file("x", b"theirs")]);
        let keep = BTreeSet::from(["x".to_owned()]);
        let d = diff(&target, &now, &keep);
        assert!(d.changes.is_empty(), "{:?}", d.changes);
        assert_eq!(
            d.held,
            [("x".to_owned(), Held::Kept), ("x/y".to_owned(), Held::Kept)]
        );
        assert_eq!(
            changed(&diff(&target, &now, &BTreeSet::new())),
            ["x", "x/y"]
        );
    }

    #[test]
    fn a_directory_holding_content_that_is_not_restorable_is_not_deleted_or_replaced() {
        let target = m(vec![file("d", b"was a file")]);
        let now = m(vec![
            dir("d"),
            file("d/a", b"a"),
            entry("d/node_modules", Err(Unrestorable::Ignored)),
        ]);
        let d = diff(&target, &now, &BTreeSet::new());
        assert_eq!(changed(&d), ["d/a"]);
        assert_eq!(
            d.held,
            [("d".to_owned(), Held::Unrestorable(Unrestorable::Ignored))]
        );
        assert_eq!(
            d.unrestorable,
            [("d/node_modules".to_owned(), Unrestorable::Ignored)]
        );
    }

    #[test]
    fn only_the_checkpoints_own_unkept_entries_hold_paths_back() {
        let target = m(vec![
            file(".gitignore", b"target/"),
            dir("src"),
            file("src/lib.rs", b"lib"),
            entry("target", Err(Unrestorable::Ignored)),
        ]);
        let now = m(vec![
            entry(".gitignore", Err(Unrestorable::Ignored)),
            entry("made.bin", Err(Unrestorable::TooLarge { limit: 1 })),
            entry("node_modules", Err(Unrestorable::Ignored)),
            entry("src", Err(Unrestorable::Ignored)),
            entry("target", Err(Unrestorable::Ignored)),
        ]);
        let d = diff(&target, &now, &BTreeSet::new());
        // The ignored .gitignore is replaced and the too-large file the turn made deleted;
        // a directory ignored now keeps whatever it holds, so the checkpoint's children wait.
        assert_eq!(changed(&d), [".gitignore", "made.bin"]);
        assert!(matches!(d.changes[0].before, Some(Before::Unkept { .. })));
        assert_eq!(
            d.held,
            [
                ("src".to_owned(), Held::Unrestorable(Unrestorable::Ignored)),
                (
                    "src/lib.rs".to_owned(),
                    Held::Unrestorable(Unrestorable::Ignored)
                ),
            ]
        );
        assert_eq!(
            d.unrestorable,
            [
                ("node_modules".to_owned(), Unrestorable::Ignored),
                ("src".to_owned(), Unrestorable::Ignored),
                ("target".to_owned(), Unrestorable::Ignored),
            ]
        );
    }

    #[test]
    fn a_kept_directory_ignored_now_and_listed_is_restored_below_and_an_empty_one_is_held() {
        let target = m(vec![dir("build"), file("build/a.txt", b"a")]);
        let listed = m(vec![
            entry("build", Err(Unrestorable::Ignored)),
            entry("build/a.txt", Err(Unrestorable::Ignored)),
            dir("build/sub"),
            entry("build/sub/new.txt", Err(Unrestorable::Ignored)),
        ]);
        let d = diff(&target, &listed, &BTreeSet::new());
        assert_eq!(
            changed(&d),
            ["build/a.txt", "build/sub", "build/sub/new.txt"]
        );
        assert!(d.held.is_empty() && d.unrestorable.is_empty(), "{d:?}");
        assert!(matches!(d.changes[0].before, Some(Before::Unkept { .. })));
        assert!(matches!(d.changes[1].before, Some(Before::Kept(_))));
        // Nothing listed below it: a file named `build` looks the same, so it is left alone.
        let empty = m(vec![entry("build", Err(Unrestorable::Ignored))]);
        let d = diff(&target, &empty, &BTreeSet::new());
        assert!(d.changes.is_empty(), "{:?}", d.changes);
        assert_eq!(
            d.held,
            [
                (
                    "build".to_owned(),
                    Held::Unrestorable(Unrestorable::Ignored)
                ),
                (
                    "build/a.txt".to_owned(),
                    Held::Unrestorable(Unrestorable::Ignored)
                ),
            ]
        );
    }

    #[test]
    fn symlink_modes_are_not_a_difference_and_directory_modes_are() {
        let mut a = entry(
            "l",
            Ok(Node::Symlink {
                target: b"t".to_vec(),
            }),
        );
        let mut b = a.clone();
        a.mode = 0o777;
        b.mode = 0o755;
        assert!(
            diff(&m(vec![a]), &m(vec![b]), &BTreeSet::new())
                .changes
                .is_empty()
        );
        let mut d = dir("d");
        d.mode = 0o700;
        assert_eq!(
            changed(&diff(&m(vec![dir("d")]), &m(vec![d]), &BTreeSet::new())),
            ["d"]
        );
    }
}
