//! The in-memory retained-result store: content-addressed, quota-bounded, aliases never reused.

use std::collections::HashMap;
use std::sync::Arc;
use thiserror::Error;

/// Store quotas (ASH1.md §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreQuota {
    /// Maximum retained bytes.
    pub bytes: usize,
    /// Maximum live entries.
    pub entries: usize,
}

impl Default for StoreQuota {
    fn default() -> Self {
        StoreQuota {
            bytes: 256 * 1024 * 1024,
            entries: 4096,
        }
    }
}

/// Why retaining or releasing failed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum StoreError {
    /// Retaining would exceed the byte quota.
    #[error(
        "retained-result store is full: {needed} more bytes would exceed the {quota}-byte quota; release references with `-`"
    )]
    BytesQuota {
        /// Bytes requested.
        needed: usize,
        /// The quota.
        quota: usize,
    },
    /// Retaining would exceed the entry quota.
    #[error("retained-result store holds the maximum of {0} entries; release references with `-`")]
    EntryQuota(usize),
    /// The alias space is exhausted (aliases are never reused).
    #[error("retained-result aliases are exhausted for this session")]
    AliasesExhausted,
    /// No live entry has this alias.
    #[error("unknown reference @{0}")]
    Unknown(u64),
    /// The entry is leased and cannot be released.
    #[error("reference @{0} is in use")]
    Leased(u64),
}

struct Entry {
    bytes: Arc<[u8]>,
    digest: blake3::Hash,
    leases: usize,
}

/// A session's retained values, addressed by `@alias`.
pub struct RetainedStore {
    quota: StoreQuota,
    used: usize,
    next: u64,
    entries: HashMap<u64, Entry>,
    by_digest: HashMap<blake3::Hash, u64>,
}

impl RetainedStore {
    /// An empty store with the given quota.
    pub fn new(quota: StoreQuota) -> Self {
        RetainedStore {
            quota,
            used: 0,
            next: 1,
            entries: HashMap::new(),
            by_digest: HashMap::new(),
        }
    }

    /// Retains `bytes`, returning its alias; identical live content returns the existing alias.
    pub fn retain(&mut self, bytes: Vec<u8>) -> Result<u64, StoreError> {
        let digest = blake3::hash(&bytes);
        if let Some(&alias) = self.by_digest.get(&digest)
            && self.entries.get(&alias).is_some_and(|e| *e.bytes == *bytes)
        {
            return Ok(alias);
        }
        self.check_room(bytes.len())?;
        let alias = self.next;
        self.next = self
            .next
            .checked_add(1)
            .ok_or(StoreError::AliasesExhausted)?;
        self.used += bytes.len();
        self.by_digest.insert(digest, alias);
        self.entries.insert(
            alias,
            Entry {
                bytes: bytes.into(),
                digest,
                leases: 0,
            },
        );
        Ok(alias)
    }

    /// Whether `extra` more bytes in one new entry would fit the quotas.
    pub fn check_room(&self, extra: usize) -> Result<(), StoreError> {
        if self.entries.len() >= self.quota.entries {
            return Err(StoreError::EntryQuota(self.quota.entries));
        }
        if self.used.saturating_add(extra) > self.quota.bytes {
            return Err(StoreError::BytesQuota {
                needed: extra,
                quota: self.quota.bytes,
            });
        }
        Ok(())
    }

    /// The bytes behind a live alias.
    pub fn get(&self, alias: u64) -> Option<Arc<[u8]>> {
        self.entries.get(&alias).map(|e| Arc::clone(&e.bytes))
    }

    /// Takes a lease that blocks release until `unlease`.
    pub fn lease(&mut self, alias: u64) -> Result<Arc<[u8]>, StoreError> {
        let e = self
            .entries
            .get_mut(&alias)
            .ok_or(StoreError::Unknown(alias))?;
        e.leases += 1;
        Ok(Arc::clone(&e.bytes))
    }

    /// Drops one lease.
    pub fn unlease(&mut self, alias: u64) {
        if let Some(e) = self.entries.get_mut(&alias) {
            e.leases = e.leases.saturating_sub(1);
        }
    }

    /// Releases an alias; it is never handed out again.
    pub fn release(&mut self, alias: u64) -> Result<(), StoreError> {
        let e = self.entries.get(&alias).ok_or(StoreError::Unknown(alias))?;
        if e.leases > 0 {
            return Err(StoreError::Leased(alias));
        }
        let digest = e.digest;
        if let Some(e) = self.entries.remove(&alias) {
            self.used -= e.bytes.len();
        }
        if self.by_digest.get(&digest) == Some(&alias) {
            self.by_digest.remove(&digest);
        }
        Ok(())
    }

    /// Bytes currently retained.
    pub fn used_bytes(&self) -> usize {
        self.used
    }

    /// Live entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no entry is live.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_start_at_one_are_content_addressed_and_never_reused() {
        let mut s = RetainedStore::new(StoreQuota::default());
        assert_eq!(s.retain(b"a".to_vec()), Ok(1));
        assert_eq!(s.retain(b"b".to_vec()), Ok(2));
        assert_eq!(s.retain(b"a".to_vec()), Ok(1));
        assert_eq!(s.used_bytes(), 2);
        assert_eq!(s.release(1), Ok(()));
        assert_eq!(s.release(1), Err(StoreError::Unknown(1)));
        assert_eq!(s.get(1), None);
        assert_eq!(s.retain(b"a".to_vec()), Ok(3));
        assert_eq!(s.get(3).as_deref(), Some(&b"a"[..]));
    }

    #[test]
    fn quotas_are_enforced_before_storing() {
        let mut s = RetainedStore::new(StoreQuota {
            bytes: 4,
            entries: 2,
        });
        assert_eq!(s.retain(b"abc".to_vec()), Ok(1));
        assert_eq!(
            s.retain(b"de".to_vec()),
            Err(StoreError::BytesQuota {
                needed: 2,
                quota: 4
            })
        );
        assert_eq!(s.retain(b"d".to_vec()), Ok(2));
        assert_eq!(s.retain(b"".to_vec()), Err(StoreError::EntryQuota(2)));
        assert_eq!(s.len(), 2);
        // Identical content needs no room.
        assert_eq!(s.retain(b"d".to_vec()), Ok(2));
    }

    #[test]
    fn leases_block_release() {
        let mut s = RetainedStore::new(StoreQuota::default());
        let a = s.retain(b"x".to_vec()).expect("retain");
        s.lease(a).expect("lease");
        assert_eq!(s.release(a), Err(StoreError::Leased(a)));
        s.unlease(a);
        assert_eq!(s.release(a), Ok(()));
        assert!(s.is_empty());
    }
}
