//! The retained-result store: content-addressed, quota-bounded, aliases never reused. Values
//! live in memory or, for large captures, in session-private spool files.

mod body;
mod quota;

pub use body::{Body, Resident, SpoolFile};
pub use quota::{QuotaMeter, Reservation};

use std::collections::HashMap;
use thiserror::Error;

/// Store quotas (docs/contract/ash-protocol.md §5).
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

/// Why retaining, reading or releasing failed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum StoreError {
    /// Retaining would exceed the byte quota.
    #[error(
        "retained-result store is full: {needed} more bytes would exceed the {quota}-byte quota; release references with `-`"
    )]
    BytesQuota {
        /// Bytes requested.
        needed: u64,
        /// The quota.
        quota: u64,
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
    /// A spool file could not be read.
    #[error("retained value could not be read: {0}")]
    Io(String),
}

/// A value ready to be retained: its bytes, their BLAKE3 digest and the quota they hold.
#[derive(Debug)]
pub struct Pending {
    /// The bytes.
    pub body: Body,
    /// BLAKE3 of the bytes (proposes content-address matches; bytes are compared to confirm).
    pub digest: blake3::Hash,
    /// The quota charge for the bytes.
    pub charge: Reservation,
}

#[derive(Debug)]
struct Entry {
    body: Body,
    digest: blake3::Hash,
    leases: usize,
    _charge: Reservation,
}

/// A session's retained values, addressed by `@alias`.
#[derive(Debug)]
pub struct RetainedStore {
    meter: QuotaMeter,
    max_entries: usize,
    next: u64,
    entries: HashMap<u64, Entry>,
    by_digest: HashMap<blake3::Hash, u64>,
}

impl RetainedStore {
    /// An empty store with the given quota.
    pub fn new(quota: StoreQuota) -> Self {
        RetainedStore {
            meter: QuotaMeter::new(quota.bytes as u64),
            max_entries: quota.entries,
            next: 1,
            entries: HashMap::new(),
            by_digest: HashMap::new(),
        }
    }

    /// The byte account, for producers that charge while they write (exec capture).
    pub fn meter(&self) -> QuotaMeter {
        self.meter.clone()
    }

    /// Retains resident bytes, returning the alias; identical live content returns its alias.
    pub fn retain(&mut self, bytes: Vec<u8>) -> Result<u64, StoreError> {
        let digest = blake3::hash(&bytes);
        self.retain_hashed(bytes, digest)
    }

    /// [`RetainedStore::retain`] with the digest computed by the caller, so a shared store's
    /// lock is not held while hashing.
    pub fn retain_hashed(
        &mut self,
        bytes: Vec<u8>,
        digest: blake3::Hash,
    ) -> Result<u64, StoreError> {
        let body = Body::Memory(bytes.into());
        if let Some(alias) = self.existing(&digest, &body)? {
            return Ok(alias);
        }
        let charge = self.meter.reserve(body.len())?;
        self.retain_all(vec![Pending {
            body,
            digest,
            charge,
        }])
        .map(|aliases| aliases[0])
    }

    /// Retains several values atomically (all or none), in order, returning their aliases.
    pub fn retain_all(&mut self, values: Vec<Pending>) -> Result<Vec<u64>, StoreError> {
        // Decide every alias before touching the store, so a failure leaves it unchanged.
        let mut aliases: Vec<u64> = Vec::with_capacity(values.len());
        let mut is_new: Vec<bool> = Vec::with_capacity(values.len());
        let mut next = self.next;
        for (i, v) in values.iter().enumerate() {
            let mut alias = self.existing(&v.digest, &v.body)?;
            if alias.is_none() {
                for j in 0..i {
                    if is_new[j]
                        && values[j].digest == v.digest
                        && values[j].body.same_bytes(&v.body).map_err(io_error)?
                    {
                        alias = Some(aliases[j]);
                        break;
                    }
                }
            }
            let fresh = alias.is_none();
            let alias = match alias {
                Some(a) => a,
                None => {
                    let a = next;
                    next = next.checked_add(1).ok_or(StoreError::AliasesExhausted)?;
                    a
                }
            };
            aliases.push(alias);
            is_new.push(fresh);
        }
        let new_entries = is_new.iter().filter(|n| **n).count();
        if self.entries.len() + new_entries > self.max_entries {
            return Err(StoreError::EntryQuota(self.max_entries));
        }
        self.next = next;
        for ((v, &alias), fresh) in values.into_iter().zip(&aliases).zip(is_new) {
            if fresh {
                self.by_digest.insert(v.digest, alias);
                self.entries.insert(
                    alias,
                    Entry {
                        body: v.body,
                        digest: v.digest,
                        leases: 0,
                        _charge: v.charge,
                    },
                );
            }
        }
        Ok(aliases)
    }

    /// The live alias holding exactly these bytes, if any.
    fn existing(&self, digest: &blake3::Hash, body: &Body) -> Result<Option<u64>, StoreError> {
        let Some(&alias) = self.by_digest.get(digest) else {
            return Ok(None);
        };
        match self.entries.get(&alias) {
            Some(e) if e.body.same_bytes(body).map_err(io_error)? => Ok(Some(alias)),
            _ => Ok(None),
        }
    }

    /// Whether one more entry would fit the entry quota.
    pub fn has_entry_room(&self) -> bool {
        self.entries.len() < self.max_entries
    }

    /// The value behind a live alias.
    pub fn get(&self, alias: u64) -> Option<Body> {
        self.entries.get(&alias).map(|e| e.body.clone())
    }

    /// Takes a lease that blocks release until `unlease`.
    pub fn lease(&mut self, alias: u64) -> Result<Body, StoreError> {
        let e = self
            .entries
            .get_mut(&alias)
            .ok_or(StoreError::Unknown(alias))?;
        e.leases += 1;
        Ok(e.body.clone())
    }

    /// Drops one lease.
    pub fn unlease(&mut self, alias: u64) {
        if let Some(e) = self.entries.get_mut(&alias) {
            e.leases = e.leases.saturating_sub(1);
        }
    }

    /// Releases an alias; it is never handed out again. A spool file goes when the last
    /// reader holding its body lets go.
    pub fn release(&mut self, alias: u64) -> Result<(), StoreError> {
        let e = self.entries.get(&alias).ok_or(StoreError::Unknown(alias))?;
        if e.leases > 0 {
            return Err(StoreError::Leased(alias));
        }
        let digest = e.digest;
        self.entries.remove(&alias);
        if self.by_digest.get(&digest) == Some(&alias) {
            self.by_digest.remove(&digest);
        }
        Ok(())
    }

    /// Bytes currently charged (entries and open reservations).
    pub fn used_bytes(&self) -> u64 {
        self.meter.used()
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

fn io_error(e: std::io::Error) -> StoreError {
    StoreError::Io(e.to_string())
}

impl StoreError {
    /// The wire error record for this failure.
    pub(crate) fn record(&self) -> crate::protocol::ErrorRecord {
        use crate::protocol::{ErrorCode, ErrorRecord};
        match self {
            StoreError::BytesQuota { .. }
            | StoreError::EntryQuota(_)
            | StoreError::AliasesExhausted => ErrorRecord::store_quota(),
            StoreError::Unknown(_) => ErrorRecord::typical(ErrorCode::UnknownReference),
            StoreError::Leased(_) => ErrorRecord::typical(ErrorCode::ReferenceBusy),
            StoreError::Io(_) => ErrorRecord::store_io(),
        }
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
        assert!(s.get(1).is_none());
        assert_eq!(s.retain(b"a".to_vec()), Ok(3));
        assert_eq!(
            s.get(3).map(|b| b.read_all().expect("read")),
            Some(b"a".to_vec())
        );
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

    #[test]
    fn retain_all_is_atomic_and_shares_identical_values() {
        let mut s = RetainedStore::new(StoreQuota {
            bytes: 100,
            entries: 2,
        });
        let pending = |bytes: &[u8], s: &RetainedStore| Pending {
            body: Body::Memory(bytes.into()),
            digest: blake3::hash(bytes),
            charge: s.meter().reserve(bytes.len() as u64).expect("room"),
        };
        let a = pending(b"same", &s);
        let b = pending(b"same", &s);
        assert_eq!(s.retain_all(vec![a, b]), Ok(vec![1, 1]));
        assert_eq!(s.used_bytes(), 4, "the duplicate's charge is returned");
        let c = pending(b"c", &s);
        let d = pending(b"d", &s);
        assert_eq!(s.retain_all(vec![c, d]), Err(StoreError::EntryQuota(2)));
        assert_eq!(s.len(), 1);
        assert_eq!(s.used_bytes(), 4, "a failed retain leaves no charge behind");
        assert_eq!(
            s.retain(b"e".to_vec()),
            Ok(2),
            "aliases of a failed call are not consumed"
        );
    }

    #[test]
    fn spool_bodies_read_ranges_and_vanish_with_the_last_holder() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("spool");
        std::fs::write(&path, b"0123456789").expect("write");
        let body = Body::Spool(std::sync::Arc::new(SpoolFile::adopt(path.clone(), 10)));
        assert_eq!(body.read_range(7, 100).expect("read"), b"789");
        assert_eq!(body.read_range(20, 5).expect("read"), b"");
        let mut s = RetainedStore::new(StoreQuota::default());
        let charge = s.meter().reserve(10).expect("room");
        let alias = s
            .retain_all(vec![Pending {
                body: body.clone(),
                digest: blake3::hash(b"0123456789"),
                charge,
            }])
            .expect("retain")[0];
        assert_eq!(
            s.retain(b"0123456789".to_vec()),
            Ok(alias),
            "content-addressed across kinds"
        );
        let lease = s.lease(alias).expect("lease");
        assert_eq!(s.release(alias), Err(StoreError::Leased(alias)));
        s.unlease(alias);
        s.release(alias).expect("release");
        assert!(path.exists(), "a reader still holds the body");
        drop((body, lease));
        assert!(!path.exists(), "the last holder deletes the spool file");
        assert_eq!(s.used_bytes(), 0);
    }

    #[test]
    fn bodies_hand_on_their_bytes_in_chunks_and_a_short_spool_is_an_error() {
        let chunks = |body: &Body, size: usize| {
            let mut seen = Vec::new();
            body.for_each_chunk(size, |c| seen.push(c.to_vec()))
                .map(|()| seen)
        };
        let memory = Body::Memory(b"0123456789".as_slice().into());
        assert_eq!(
            chunks(&memory, 4).expect("memory"),
            [b"0123".to_vec(), b"4567".to_vec(), b"89".to_vec()]
        );
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("spool");
        std::fs::write(&path, b"xx0123456789").expect("write");
        let owner: std::sync::Arc<dyn std::any::Any + Send + Sync> = std::sync::Arc::new(());
        let spool = Body::Spool(std::sync::Arc::new(SpoolFile::adopt_from(
            path.clone(),
            2,
            10,
            owner,
        )));
        assert_eq!(
            chunks(&spool, 4).expect("spool"),
            chunks(&memory, 4).expect("memory"),
            "the bytes before the value's start are not handed on"
        );
        assert_eq!(chunks(&spool, 0).expect("spool").concat(), b"0123456789");
        let offset = Body::Memory(Resident::from_offset(b"xx0123456789".to_vec(), 2));
        assert_eq!(
            offset.len(),
            10,
            "the bytes before a resident value's start are not its"
        );
        assert_eq!(offset.read_range(8, 5).expect("resident"), b"89");
        assert_eq!(
            chunks(&offset, 4).expect("resident"),
            chunks(&memory, 4).expect("memory")
        );
        let past = Body::Memory(Resident::from_offset(b"xx".to_vec(), 5));
        assert!(past.is_empty(), "a start past the end leaves no bytes");
        let short_path = dir.path().join("short");
        std::fs::write(&short_path, b"01234").expect("write");
        let short = Body::Spool(std::sync::Arc::new(SpoolFile::adopt(short_path, 10)));
        let err = chunks(&short, 4).expect_err("shorter than recorded");
        assert_eq!(err.kind(), std::io::ErrorKind::UnexpectedEof);
        assert!(err.to_string().contains("shorter than recorded"), "{err}");
    }
}
