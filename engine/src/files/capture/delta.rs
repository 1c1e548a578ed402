//! The delta between two manifests: one ordered merge by path.

use std::cmp::Ordering;

use super::Entry;
use crate::protocol::Change;

/// Changes from `baseline` to `current`, both sorted strictly by path bytes, in path order:
/// added and modified rows show the current entry, removed rows the baseline entry; entries
/// whose kind, size and digest are all equal are left out.
pub fn diff<'a>(baseline: &'a [Entry], current: &'a [Entry]) -> Vec<(Change, &'a Entry)> {
    let mut out = Vec::new();
    let (mut old, mut new) = (baseline.iter().peekable(), current.iter().peekable());
    loop {
        let order = match (old.peek(), new.peek()) {
            (None, None) => break,
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (Some(o), Some(n)) => o.path.cmp(&n.path),
        };
        match order {
            Ordering::Less => out.extend(old.next().map(|o| (Change::Removed, o))),
            Ordering::Greater => out.extend(new.next().map(|n| (Change::Added, n))),
            Ordering::Equal => {
                if let (Some(o), Some(n)) = (old.next(), new.next())
                    && (o.kind, o.size, o.digest) != (n.kind, n.size, n.digest)
                {
                    out.push((Change::Modified, n));
                }
            }
        }
    }
    out
}
