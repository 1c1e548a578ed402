//! The session path dictionary (docs/contract/ash-protocol.md §5): logical path → id, ids from 1, never reused.
//!
//! Operations never look at the session dictionary: they number the paths of their answer
//! with *provisional* ids 1, 2, … (as if the session were fresh), and the ordered seal maps
//! them to session ids in response order. That keeps every byte of an answer independent of
//! which concurrent request finished first. Row-prefix fits measure with 20-digit ids anyway;
//! the seal re-checks the presentation limit with the final ids (see docs/protocol.md).

use std::collections::HashMap;

/// Maximum entries per session.
pub const PATH_DICTIONARY_QUOTA: usize = 65_536;

/// First provisional id: answers are numbered like the first answer of a fresh session.
pub const PROVISIONAL_BASE: u64 = 1;

/// The session-wide dictionary (or a batch node's local one).
#[derive(Debug, Default)]
pub struct PathDictionary {
    ids: HashMap<String, u64>,
    next: u64,
}

/// Provisional ids handed out while building one response.
#[derive(Debug, Default)]
pub struct PathDelta {
    /// `(provisional id, path)` pairs in assignment (row) order.
    pub new: Vec<(u64, String)>,
    index: HashMap<String, u64>,
}

/// A delta resolved against a dictionary, ready to commit.
#[derive(Debug, Default)]
pub struct Resolved {
    map: HashMap<u64, u64>,
    /// `(session id, path)` rows new to the dictionary, in row order: the response's `p`.
    pub new: Vec<(u64, String)>,
}

/// The dictionary would exceed its quota.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the session path dictionary is full ({PATH_DICTIONARY_QUOTA} paths); start a new session")]
pub struct DictionaryFull;

impl PathDelta {
    /// The provisional id of `path` in this answer.
    pub fn id(&mut self, path: &str) -> Result<u64, DictionaryFull> {
        if let Some(&id) = self.index.get(path) {
            return Ok(id);
        }
        if self.new.len() >= PATH_DICTIONARY_QUOTA {
            return Err(DictionaryFull);
        }
        let id = PROVISIONAL_BASE + self.new.len() as u64;
        self.index.insert(path.to_owned(), id);
        self.new.push((id, path.to_owned()));
        Ok(id)
    }
}

impl Resolved {
    /// The final id of a provisional id (ids that are not provisional map to themselves).
    pub fn map(&self, id: u64) -> u64 {
        self.map.get(&id).copied().unwrap_or(id)
    }
}

impl PathDictionary {
    /// An empty dictionary.
    pub fn new() -> Self {
        PathDictionary {
            ids: HashMap::new(),
            next: 1,
        }
    }

    /// Maps a delta's provisional ids to dictionary ids: known paths keep theirs, new paths
    /// get the next ids in row order. Nothing changes until [`PathDictionary::commit`].
    pub fn resolve(&self, delta: &PathDelta) -> Result<Resolved, DictionaryFull> {
        let mut resolved = Resolved::default();
        for (provisional, path) in &delta.new {
            let id = match self.ids.get(path) {
                Some(&id) => id,
                None => {
                    if self.ids.len() + resolved.new.len() >= PATH_DICTIONARY_QUOTA {
                        return Err(DictionaryFull);
                    }
                    let id = self.next + resolved.new.len() as u64;
                    resolved.new.push((id, path.clone()));
                    id
                }
            };
            resolved.map.insert(*provisional, id);
        }
        Ok(resolved)
    }

    /// Makes a resolved response's new ids permanent.
    pub fn commit(&mut self, resolved: Resolved) {
        self.next += resolved.new.len() as u64;
        self.ids
            .extend(resolved.new.into_iter().map(|(id, path)| (path, id)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delta(paths: &[&str]) -> PathDelta {
        let mut d = PathDelta::default();
        for p in paths {
            d.id(p).expect("room");
        }
        d
    }

    #[test]
    fn ids_are_assigned_in_row_order_and_reused_later() {
        let mut d = PathDictionary::new();
        let first = delta(&["src/a.rs", "src/a.rs"]);
        assert_eq!(first.new.len(), 1);
        let r = d.resolve(&first).expect("room");
        assert_eq!(r.map(PROVISIONAL_BASE), 1);
        d.commit(r);
        let second = delta(&["src/a.rs", "src/b.rs"]);
        let r = d.resolve(&second).expect("room");
        assert_eq!(r.map(PROVISIONAL_BASE), 1);
        assert_eq!(r.map(PROVISIONAL_BASE + 1), 2);
        assert_eq!(r.new, vec![(2, "src/b.rs".to_owned())]);
    }

    #[test]
    fn an_uncommitted_delta_leaves_no_trace() {
        let mut d = PathDictionary::new();
        let r = d.resolve(&delta(&["x"])).expect("room");
        assert_eq!(r.new, vec![(1, "x".to_owned())]);
        drop(r);
        let r = d.resolve(&delta(&["y"])).expect("room");
        assert_eq!(r.new, vec![(1, "y".to_owned())]);
        d.commit(r);
    }
}
