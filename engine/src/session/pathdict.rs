//! The session path dictionary (ASH1.md §5): logical path → id, ids from 1, never reused.

use std::collections::HashMap;

/// Maximum entries per session.
pub const PATH_DICTIONARY_QUOTA: usize = 65_536;

/// The session-wide dictionary.
#[derive(Debug, Default)]
pub struct PathDictionary {
    ids: HashMap<String, u64>,
    next: u64,
}

/// Ids assigned while building one response; committed only when the response is emitted.
#[derive(Debug, Default)]
pub struct PathDelta {
    /// New `(id, path)` pairs in assignment (row) order.
    pub new: Vec<(u64, String)>,
    index: HashMap<String, u64>,
}

/// The dictionary would exceed its quota.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the session path dictionary is full ({PATH_DICTIONARY_QUOTA} paths); start a new session")]
pub struct DictionaryFull;

impl PathDictionary {
    /// An empty dictionary.
    pub fn new() -> Self {
        PathDictionary {
            ids: HashMap::new(),
            next: 1,
        }
    }

    /// The id of `path`, assigning the next id in `delta` if the path is new to the session.
    pub fn id(&self, path: &str, delta: &mut PathDelta) -> Result<u64, DictionaryFull> {
        if let Some(&id) = self.ids.get(path).or_else(|| delta.index.get(path)) {
            return Ok(id);
        }
        if self.ids.len() + delta.new.len() >= PATH_DICTIONARY_QUOTA {
            return Err(DictionaryFull);
        }
        let id = self.next + delta.new.len() as u64;
        delta.index.insert(path.to_owned(), id);
        delta.new.push((id, path.to_owned()));
        Ok(id)
    }

    /// Makes a response's new ids permanent.
    pub fn commit(&mut self, delta: PathDelta) {
        self.next += delta.new.len() as u64;
        self.ids.extend(delta.index);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_assigned_in_row_order_and_reused_later() {
        let mut d = PathDictionary::new();
        let mut delta = PathDelta::default();
        assert_eq!(d.id("src/a.rs", &mut delta), Ok(1));
        assert_eq!(d.id("src/a.rs", &mut delta), Ok(1));
        d.commit(delta);
        let mut delta = PathDelta::default();
        assert_eq!(d.id("src/a.rs", &mut delta), Ok(1));
        assert_eq!(d.id("src/b.rs", &mut delta), Ok(2));
        assert_eq!(delta.new, vec![(2, "src/b.rs".to_owned())]);
    }

    #[test]
    fn an_uncommitted_delta_leaves_no_trace() {
        let mut d = PathDictionary::new();
        let mut delta = PathDelta::default();
        assert_eq!(d.id("x", &mut delta), Ok(1));
        drop(delta);
        let mut delta = PathDelta::default();
        assert_eq!(d.id("y", &mut delta), Ok(1));
        d.commit(delta);
    }
}
