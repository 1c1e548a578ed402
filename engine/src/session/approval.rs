//! Approval permits (docs/contract/ash-protocol.md §8): a policy an embedder installs on a session, and the
//! authority that issues one-time permits for the challenges the session hands out.
//!
//! `ash rpc` and `ash run` never install a policy: they grant the negotiated capabilities
//! directly and ignore a well-formed permit.

use super::lock;
use crate::exec::sandbox::SandboxPolicy;
use crate::protocol::{Caps, Challenge, Request};
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};
use thiserror::Error;

/// Default challenge lifetime: five minutes.
pub const DEFAULT_TTL_MS: u64 = 5 * 60 * 1000;
/// Longest challenge lifetime: one hour.
pub const MAX_TTL_MS: u64 = 60 * 60 * 1000;
/// Most challenges waiting for a permit per authority.
pub const MAX_PENDING: usize = 4096;
/// Most spent nonces remembered per authority.
pub const MAX_USED: usize = 4096;

/// Wall-clock time in Unix milliseconds (injectable so tests control expiry).
pub trait Clock: Send + Sync {
    /// Now, in Unix milliseconds.
    fn now_ms(&self) -> u64;
}

/// The system clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> u64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
    }
}

/// A policy that cannot be built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum PolicyError {
    /// A capability is both granted and approval-required.
    #[error("capabilities {0} are both granted and approval-required; the masks must be disjoint")]
    Overlap(Caps),
    /// The challenge lifetime is 0 or above one hour.
    #[error("challenge lifetime {0} ms is outside 1..=3600000")]
    Ttl(u64),
}

/// Why a permit was refused or could not be issued.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum PermitError {
    /// The nonce was already spent.
    #[error("the permit was already used")]
    Replayed,
    /// No pending challenge has this nonce.
    #[error("no pending challenge matches the permit's nonce")]
    NotPending,
    /// The pending challenge is for another session, policy, action or capability set.
    #[error("the permit was issued for a different session, policy, action or capability set")]
    Mismatch,
    /// The challenge expired.
    #[error("the challenge has expired; ask for a fresh one")]
    Expired,
    /// The MAC does not verify.
    #[error("the permit's signature does not verify")]
    BadSignature,
}

/// Pending challenges (FIFO-bounded) and spent nonces of one authority.
#[derive(Default)]
struct Book {
    counter: u64,
    pending: HashMap<[u8; 16], (u64, Challenge)>,
    order: BTreeMap<u64, [u8; 16]>,
    used: HashSet<[u8; 16]>,
    used_order: VecDeque<[u8; 16]>,
}

impl Book {
    fn add_pending(&mut self, seq: u64, challenge: Challenge, now: u64) {
        if self.pending.len() >= MAX_PENDING {
            self.pending.retain(|_, (_, c)| c.expires_ms > now);
            let pending = &self.pending;
            self.order.retain(|_, nonce| pending.contains_key(nonce));
        }
        while self.pending.len() >= MAX_PENDING {
            let Some((_, nonce)) = self.order.pop_first() else {
                break;
            };
            self.pending.remove(&nonce);
        }
        self.order.insert(seq, challenge.nonce);
        self.pending.insert(challenge.nonce, (seq, challenge));
    }

    fn spend(&mut self, nonce: [u8; 16]) {
        if let Some((seq, _)) = self.pending.remove(&nonce) {
            self.order.remove(&seq);
        }
        if self.used.len() >= MAX_USED
            && let Some(old) = self.used_order.pop_front()
        {
            self.used.remove(&old);
        }
        self.used.insert(nonce);
        self.used_order.push_back(nonce);
    }
}

/// The trusted signer: holds the 32-byte key, the pending challenges and the spent nonces.
/// Clones share that state, so the harness keeps one clone to issue permits while sessions
/// verify them.
#[derive(Clone)]
pub struct ApprovalAuthority {
    key: [u8; 32],
    clock: Arc<dyn Clock>,
    book: Arc<Mutex<Book>>,
}

impl std::fmt::Debug for ApprovalAuthority {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApprovalAuthority").finish_non_exhaustive()
    }
}

impl ApprovalAuthority {
    /// An authority with `key`, on the system clock.
    pub fn new(key: [u8; 32]) -> ApprovalAuthority {
        ApprovalAuthority::with_clock(key, Arc::new(SystemClock))
    }

    /// An authority with `key` and an explicit clock.
    pub fn with_clock(key: [u8; 32], clock: Arc<dyn Clock>) -> ApprovalAuthority {
        ApprovalAuthority {
            key,
            clock,
            book: Arc::new(Mutex::new(Book::default())),
        }
    }

    /// Signs a permit (nonce ‖ MAC) for a challenge this authority handed out that is still
    /// pending, unexpired and unchanged.
    pub fn issue(&self, challenge: &Challenge) -> Result<[u8; 48], PermitError> {
        let book = lock(&self.book);
        if book.used.contains(&challenge.nonce) {
            return Err(PermitError::Replayed);
        }
        let (_, pending) = book
            .pending
            .get(&challenge.nonce)
            .ok_or(PermitError::NotPending)?;
        if pending != challenge {
            return Err(PermitError::Mismatch);
        }
        if challenge.expires_ms <= self.clock.now_ms() {
            return Err(PermitError::Expired);
        }
        let mut permit = [0u8; 48];
        permit[..16].copy_from_slice(&challenge.nonce);
        permit[16..].copy_from_slice(self.mac(challenge).as_bytes());
        Ok(permit)
    }

    /// A fresh pending challenge for `caps` of `action` under `policy`.
    fn challenge(&self, policy: &ApprovalPolicy, caps: Caps, action: [u8; 32]) -> Challenge {
        let now = self.clock.now_ms();
        let expires_ms = now.saturating_add(policy.ttl_ms);
        let mut book = lock(&self.book);
        let counter = book.counter;
        book.counter += 1;
        let mut h = blake3::Hasher::new_keyed(&self.key);
        h.update(b"ash-approval-nonce-v1\0");
        h.update(&policy.binding);
        h.update(&policy.session_id.to_be_bytes());
        h.update(&u64::from(caps.bits()).to_be_bytes());
        h.update(&expires_ms.to_be_bytes());
        h.update(&counter.to_be_bytes());
        h.update(&action);
        let mut nonce = [0u8; 16];
        nonce.copy_from_slice(&h.finalize().as_bytes()[..16]);
        let challenge = Challenge {
            session: policy.session_id,
            caps,
            expires_ms,
            binding: policy.binding,
            policy: policy.digest,
            action,
            nonce,
        };
        book.add_pending(counter, challenge, now);
        challenge
    }

    /// Checks a permit against the challenge the request would get, and spends it (before
    /// the request executes) when it verifies.
    fn verify(&self, expected: &Challenge, permit: &[u8; 48]) -> Result<(), PermitError> {
        let mut nonce = [0u8; 16];
        nonce.copy_from_slice(&permit[..16]);
        let mut mac = [0u8; 32];
        mac.copy_from_slice(&permit[16..]);
        let mut book = lock(&self.book);
        if book.used.contains(&nonce) {
            return Err(PermitError::Replayed);
        }
        let (_, pending) = *book.pending.get(&nonce).ok_or(PermitError::NotPending)?;
        let same = pending.session == expected.session
            && pending.caps == expected.caps
            && pending.binding == expected.binding
            && pending.policy == expected.policy
            && pending.action == expected.action;
        if !same {
            return Err(PermitError::Mismatch);
        }
        if pending.expires_ms <= self.clock.now_ms() {
            return Err(PermitError::Expired);
        }
        // blake3::Hash compares in constant time.
        if self.mac(&pending) != blake3::Hash::from_bytes(mac) {
            return Err(PermitError::BadSignature);
        }
        book.spend(nonce);
        Ok(())
    }

    fn mac(&self, challenge: &Challenge) -> blake3::Hash {
        let mut h = blake3::Hasher::new_keyed(&self.key);
        h.update(b"ash-approval-token-v1\0");
        h.update(&challenge.signing_bytes());
        h.finalize()
    }
}

/// What an embedder lets a session do: capabilities granted outright, capabilities that need
/// a permit from `authority`, and what binds the permits to this session.
#[derive(Debug, Clone)]
pub struct ApprovalPolicy {
    granted: Caps,
    approval: Caps,
    session_id: u64,
    binding: [u8; 16],
    ttl_ms: u64,
    digest: [u8; 16],
    authority: ApprovalAuthority,
}

/// The outcome of authorizing a request under a policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Decision {
    /// Run it.
    Allow,
    /// A capability is neither granted nor approvable: 300.
    Deny,
    /// No permit: 301 with this challenge.
    Required(Challenge),
    /// A bad permit: 302 with this fresh challenge.
    Invalid(Challenge, PermitError),
}

impl ApprovalPolicy {
    /// A policy named `id` (hashed into the policy digest) with disjoint `granted` and
    /// `approval` masks, session binding `binding`, session id 1 and the default lifetime.
    pub fn new(
        id: &str,
        granted: Caps,
        approval: Caps,
        binding: [u8; 16],
        authority: ApprovalAuthority,
    ) -> Result<ApprovalPolicy, PolicyError> {
        let overlap = granted & approval;
        if !overlap.is_empty() {
            return Err(PolicyError::Overlap(overlap));
        }
        Ok(ApprovalPolicy {
            granted,
            approval,
            session_id: 1,
            binding,
            ttl_ms: DEFAULT_TTL_MS,
            digest: policy_digest(id),
            authority,
        })
    }

    /// The same policy with another challenge lifetime (1 ms ..= 1 h).
    pub fn with_ttl_ms(mut self, ttl_ms: u64) -> Result<ApprovalPolicy, PolicyError> {
        if ttl_ms == 0 || ttl_ms > MAX_TTL_MS {
            return Err(PolicyError::Ttl(ttl_ms));
        }
        self.ttl_ms = ttl_ms;
        Ok(self)
    }

    /// The same policy for a session id other than 1.
    pub fn with_session_id(mut self, session_id: u64) -> ApprovalPolicy {
        self.session_id = session_id;
        self
    }

    /// The policy digest (first 16 bytes of BLAKE3 of the tagged policy id).
    pub fn digest(&self) -> [u8; 16] {
        self.digest
    }

    /// Capabilities granted without approval.
    pub fn granted(&self) -> Caps {
        self.granted
    }

    /// Capabilities that need a permit.
    pub fn approval(&self) -> Caps {
        self.approval
    }

    /// Decides whether `request` may run; verifying a permit spends it.
    pub(crate) fn decide(&self, request: &Request, sandbox: Option<&SandboxPolicy>) -> Decision {
        let required = request.required_caps();
        if !required
            .missing_from(self.granted | self.approval)
            .is_empty()
        {
            return Decision::Deny;
        }
        let caps = required & self.approval;
        if caps.is_empty() {
            return Decision::Allow;
        }
        let action = SandboxPolicy::bind(request.action_digest().0, sandbox);
        let Some(permit) = &request.permit else {
            return Decision::Required(self.authority.challenge(self, caps, action));
        };
        let expected = Challenge {
            session: self.session_id,
            caps,
            expires_ms: 0,
            binding: self.binding,
            policy: self.digest,
            action,
            nonce: [0; 16],
        };
        match self.authority.verify(&expected, permit) {
            Ok(()) => Decision::Allow,
            Err(e) => Decision::Invalid(self.authority.challenge(self, caps, action), e),
        }
    }
}

/// First 16 bytes of BLAKE3(`ash-approval-policy-v1\0` ‖ policy id).
pub fn policy_digest(id: &str) -> [u8; 16] {
    let mut h = blake3::Hasher::new();
    h.update(b"ash-approval-policy-v1\0");
    h.update(id.as_bytes());
    let mut out = [0u8; 16];
    out.copy_from_slice(&h.finalize().as_bytes()[..16]);
    out
}
