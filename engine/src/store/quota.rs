//! Byte accounting for the retained store, shared with capture threads so that every byte is
//! charged before it is written.

use super::StoreError;
use std::sync::{Arc, Mutex, PoisonError};

/// A handle on a store's byte quota. Clones share one account.
#[derive(Debug, Clone)]
pub struct QuotaMeter {
    used: Arc<Mutex<u64>>,
    limit: u64,
}

/// Bytes charged to a meter; returned to it on drop unless the reservation lives on inside a
/// store entry (which drops it when the entry is released).
#[derive(Debug)]
pub struct Reservation {
    meter: QuotaMeter,
    bytes: u64,
}

impl QuotaMeter {
    /// A fresh account with `limit` bytes.
    pub fn new(limit: u64) -> QuotaMeter {
        QuotaMeter {
            used: Arc::new(Mutex::new(0)),
            limit,
        }
    }

    /// Charges `bytes`, failing with the byte-quota error when they do not fit.
    pub fn reserve(&self, bytes: u64) -> Result<Reservation, StoreError> {
        let mut r = Reservation {
            meter: self.clone(),
            bytes: 0,
        };
        r.grow(bytes)?;
        Ok(r)
    }

    /// Bytes charged now (entries plus open reservations).
    pub fn used(&self) -> u64 {
        *self.used.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The quota.
    pub fn limit(&self) -> u64 {
        self.limit
    }
}

impl Reservation {
    /// Charges `more` bytes to this reservation.
    pub fn grow(&mut self, more: u64) -> Result<(), StoreError> {
        let mut used = self
            .meter
            .used
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let after = used.saturating_add(more);
        if after > self.meter.limit {
            return Err(StoreError::BytesQuota {
                needed: more,
                quota: self.meter.limit,
            });
        }
        *used = after;
        self.bytes += more;
        Ok(())
    }

    /// Bytes held.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        let mut used = self
            .meter
            .used
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        *used = used.saturating_sub(self.bytes);
    }
}
