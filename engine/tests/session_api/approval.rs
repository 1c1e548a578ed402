//! Approval permits (§8): challenge fields, issue/verify round trip, replay, expiry, another
//! session, a modified action, another policy.

use crate::{Harness, batch, request};
use ash_engine::ason::{Limits, decode_canonical};
use ash_engine::exec::sandbox::{SandboxMode, SandboxPolicy};
use ash_engine::protocol::{Caps, Challenge, Request};
use ash_engine::session::approval::{
    ApprovalAuthority, ApprovalPolicy, Clock, DEFAULT_TTL_MS, PermitError, PolicyError,
    policy_digest,
};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

const KEY: [u8; 32] = [7; 32];
const BINDING: [u8; 16] = [1; 16];
const T0: u64 = 1_700_000_000_000;

/// A clock tests move by hand.
#[derive(Default)]
struct ManualClock(AtomicU64);

impl Clock for ManualClock {
    fn now_ms(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }
}

struct Setup {
    h: Harness,
    clock: Arc<ManualClock>,
    authority: ApprovalAuthority,
}

/// A session where reads need approval and nothing else is allowed.
fn setup() -> Setup {
    let clock = Arc::new(ManualClock(AtomicU64::new(T0)));
    let authority = ApprovalAuthority::with_clock(KEY, clock.clone());
    let h = Harness::open();
    let policy = ApprovalPolicy::new(
        "ansa-default",
        Caps::NONE,
        Caps::READ,
        BINDING,
        authority.clone(),
    )
    .expect("disjoint masks");
    h.session.set_approval_policy(Some(policy));
    Setup {
        h,
        clock,
        authority,
    }
}

fn read(id: u64, path: &str) -> String {
    format!("t:1\ni:{id}\no:r\na{{p,m,o,n}}:\n[{path}],0,0,8\nu{{tok,rec,ms}}:\n256,8,30000\n")
}

/// Asks `text` (optionally with a permit) and returns the answer.
fn ask(s: &Setup, text: &str, permit: Option<[u8; 48]>) -> String {
    let mut req = request(text);
    req.permit = permit;
    // Session handles share state; a clone answers for the same session.
    s.h.session.clone().execute(&req).1
}

/// The challenge retained as the evidence of a 301/302 answer with code `code`.
fn challenge_of(s: &Setup, answer: &str, code: u16) -> Challenge {
    let prefix = format!("e{{c,q,p,x,a}}:\n{code},3,3,@");
    let at = answer
        .find(&prefix)
        .unwrap_or_else(|| panic!("no {code} in {answer}"))
        + prefix.len();
    let alias: u64 = answer[at..]
        .split(',')
        .next()
        .and_then(|a| a.parse().ok())
        .expect("alias");
    assert!(
        answer.starts_with("t:3\ni:") && answer.contains("\ns:3\n"),
        "{answer}"
    );
    assert!(answer.ends_with("z:8\nr:~\n"), "{answer}");
    let text = s.h.fetch(alias);
    let doc = decode_canonical(text.as_bytes(), &Limits::default()).expect("canonical challenge");
    let challenge = Challenge::from_document(&doc).expect("a challenge document");
    assert_eq!(challenge.encode(), text);
    challenge
}

#[test]
fn a_request_without_permit_gets_a_retained_challenge_with_every_field() {
    let s = setup();
    let text = read(3, "Cargo.toml");
    let answer = ask(&s, &text, None);
    assert_eq!(
        answer,
        "t:3\ni:3\ns:3\ne{c,q,p,x,a}:\n301,3,3,@1,~\nz:8\nr:~\n"
    );
    let c = challenge_of(&s, &answer, 301);
    let req: Request = request(&text);
    assert_eq!(c.session, 1);
    assert_eq!(c.caps, Caps::READ);
    assert_eq!(c.expires_ms, T0 + DEFAULT_TTL_MS);
    assert_eq!(c.binding, BINDING);
    assert_eq!(c.policy, policy_digest("ansa-default"));
    assert_eq!(c.action, req.action_digest().0);
    // nonce = keyed-BLAKE3(key; tag ‖ binding ‖ sid ‖ caps ‖ expiry ‖ counter 0 ‖ action)[..16]
    let mut h = blake3::Hasher::new_keyed(&KEY);
    h.update(b"ash-approval-nonce-v1\0");
    h.update(&BINDING);
    h.update(&1u64.to_be_bytes());
    h.update(&1u64.to_be_bytes());
    h.update(&(T0 + DEFAULT_TTL_MS).to_be_bytes());
    h.update(&0u64.to_be_bytes());
    h.update(&c.action);
    assert_eq!(c.nonce[..], h.finalize().as_bytes()[..16]);
    assert!(c.encode().starts_with("v:1\ns:1\nc:1\ne:"));
}

#[test]
fn an_issued_permit_runs_the_action_once_and_a_replay_gets_a_fresh_challenge() {
    let s = setup();
    let c = challenge_of(&s, &ask(&s, &read(1, "Cargo.toml"), None), 301);
    let permit = s.authority.issue(&c).expect("pending challenge");
    // The permit binds the action, not the id or budget.
    let mut mac = blake3::Hasher::new_keyed(&KEY);
    mac.update(b"ash-approval-token-v1\0");
    mac.update(&c.signing_bytes());
    assert_eq!(permit[16..], mac.finalize().as_bytes()[..]);
    let ok = ask(&s, &read(2, "Cargo.toml"), Some(permit));
    assert!(ok.starts_with("t:3\ni:2\ns:0\n"), "{ok}");
    let replay = ask(&s, &read(3, "Cargo.toml"), Some(permit));
    let fresh = challenge_of(&s, &replay, 302);
    assert_ne!(fresh.nonce, c.nonce);
    assert_eq!(s.authority.issue(&c), Err(PermitError::Replayed));
    // The fresh challenge works.
    let permit = s.authority.issue(&fresh).expect("fresh challenge");
    assert!(ask(&s, &read(4, "Cargo.toml"), Some(permit)).contains("\ns:0\n"));
}

#[test]
fn an_expired_challenge_neither_issues_nor_verifies() {
    let s = setup();
    let c = challenge_of(&s, &ask(&s, &read(1, "Cargo.toml"), None), 301);
    let permit = s.authority.issue(&c).expect("pending challenge");
    s.clock.0.store(c.expires_ms, Ordering::SeqCst);
    assert_eq!(s.authority.issue(&c), Err(PermitError::Expired));
    let answer = ask(&s, &read(2, "Cargo.toml"), Some(permit));
    let fresh = challenge_of(&s, &answer, 302);
    assert_eq!(fresh.expires_ms, c.expires_ms + DEFAULT_TTL_MS);
}

#[test]
fn a_permit_for_another_session_action_or_policy_is_invalid() {
    // Another session: same authority and policy id, another binding.
    let s = setup();
    let c = challenge_of(&s, &ask(&s, &read(1, "Cargo.toml"), None), 301);
    let permit = s.authority.issue(&c).expect("pending");
    let other = setup_like(&s, "ansa-default", [2; 16]);
    let answer = ask(&other, &read(1, "Cargo.toml"), Some(permit));
    challenge_of(&other, &answer, 302);
    // Another policy on a session with the same binding.
    let other = setup_like(&s, "ansa-strict", BINDING);
    challenge_of(
        &other,
        &ask(&other, &read(1, "Cargo.toml"), Some(permit)),
        302,
    );
    // A modified action on the original session.
    challenge_of(&s, &ask(&s, &read(2, "src/lib.rs"), Some(permit)), 302);
    // A failed attempt does not spend the permit: the approved action still runs.
    assert!(ask(&s, &read(3, "Cargo.toml"), Some(permit)).contains("\ns:0\n"));
}

/// A second session sharing `s`'s authority and clock under policy `id` and `binding`.
fn setup_like(s: &Setup, id: &str, binding: [u8; 16]) -> Setup {
    let h = Harness::open();
    let policy = ApprovalPolicy::new(id, Caps::NONE, Caps::READ, binding, s.authority.clone())
        .expect("disjoint");
    h.session.set_approval_policy(Some(policy));
    Setup {
        h,
        clock: s.clock.clone(),
        authority: s.authority.clone(),
    }
}

#[test]
fn a_tampered_or_unknown_challenge_is_not_issued() {
    let s = setup();
    let c = challenge_of(&s, &ask(&s, &read(1, "Cargo.toml"), None), 301);
    let wider = Challenge {
        caps: Caps::ALL,
        ..c
    };
    assert_eq!(s.authority.issue(&wider), Err(PermitError::Mismatch));
    let unknown = Challenge {
        nonce: [9; 16],
        ..c
    };
    assert_eq!(s.authority.issue(&unknown), Err(PermitError::NotPending));
    let mut forged = s.authority.issue(&c).expect("pending");
    forged[47] ^= 1;
    challenge_of(&s, &ask(&s, &read(2, "Cargo.toml"), Some(forged)), 302);
}

#[test]
fn granted_caps_run_directly_and_caps_outside_the_policy_are_denied() {
    let clock = Arc::new(ManualClock(AtomicU64::new(T0)));
    let authority = ApprovalAuthority::with_clock(KEY, clock);
    assert_eq!(
        ApprovalPolicy::new("p", Caps::READ, Caps::READ, BINDING, authority.clone()).err(),
        Some(PolicyError::Overlap(Caps::READ))
    );
    let policy =
        ApprovalPolicy::new("p", Caps::READ, Caps::PROCESS, BINDING, authority).expect("disjoint");
    assert!(policy.clone().with_ttl_ms(3_600_001).is_err());
    let mut h = Harness::open();
    h.session.set_approval_policy(Some(policy));
    assert!(h.ask(&read(1, "Cargo.toml")).contains("\ns:0\n"));
    let write =
        "t:1\ni:2\no:f\na[1]{i,k,p,q,h,v}:\n1,0,new.txt,~,~,x\nu{tok,rec,ms}:\n64,4,30000\n";
    assert_eq!(
        h.ask(write),
        "t:3\ni:2\ns:3\ne{c,q,p,x,a}:\n300,0,3,~,~\nz:0\nr:~\n"
    );
    assert!(!h.root.path().join("new.txt").exists());
}

#[test]
fn a_batch_is_approved_once_for_the_union_of_its_leaves() {
    let s = setup();
    let text = batch(
        5,
        &[
            (1, "[]", "r", "a{p,m,o,n}:\n[Cargo.toml],0,0,8\n"),
            (2, "[1]", "g", "a{q,p,f}:\nTODO,[src],0\n"),
        ],
        "256,16,30000",
    );
    let c = challenge_of(&s, &ask(&s, &text, None), 301);
    assert_eq!(c.caps, Caps::READ);
    let permit = s.authority.issue(&c).expect("pending");
    let answer = ask(&s, &text, Some(permit));
    assert!(
        answer.starts_with("t:3\ni:5\ns:0\nd[2]{i,o,s,c,r}:\n1,r,0,0,@"),
        "{answer}"
    );
}

/// Asks `text` under `sandbox` through `authorize_under`, the way an embedder does before it
/// runs the request with `execute_sandboxed`: `None` when it may run.
fn authorize_under(
    s: &Setup,
    text: &str,
    permit: Option<[u8; 48]>,
    sandbox: Option<&SandboxPolicy>,
) -> Option<String> {
    let mut req = request(text);
    req.permit = permit;
    s.h.session
        .authorize_under(&req, sandbox)
        .map(|denied| denied.encode())
}

#[test]
fn a_permit_for_a_sandboxed_run_never_authorises_an_unsandboxed_or_other_one() {
    let s = setup();
    let inside = SandboxPolicy {
        mode: SandboxMode::WorkspaceWrite,
        writable: Vec::new(),
        network: false,
    };
    let text = read(1, "Cargo.toml");
    let denied = authorize_under(&s, &text, None, Some(&inside)).expect("a challenge");
    let c = challenge_of(&s, &denied, 301);
    let req: Request = request(&text);
    assert_ne!(
        c.action,
        req.action_digest().0,
        "the sandbox is in the action"
    );
    assert_eq!(
        c.action,
        SandboxPolicy::bind(req.action_digest().0, Some(&inside))
    );
    // The sandboxed run's permit, presented for an unsandboxed run: refused.
    let permit = s.authority.issue(&c).expect("pending challenge");
    let outside = authorize_under(&s, &text, Some(permit), None).expect("refused");
    assert!(outside.contains("\n302,"), "{outside}");
    // ... and for the same run with the network on: refused too.
    let c = challenge_of(&s, &outside, 302);
    let networked = SandboxPolicy {
        network: true,
        ..inside.clone()
    };
    let fresh = authorize_under(&s, &text, None, Some(&inside)).expect("a challenge");
    let c2 = challenge_of(&s, &fresh, 301);
    let permit = s.authority.issue(&c2).expect("pending challenge");
    let other = authorize_under(&s, &text, Some(permit), Some(&networked)).expect("refused");
    assert!(other.contains("\n302,"), "{other}");
    // An unsandboxed run's own challenge keeps the plain action digest.
    assert_eq!(c.action, req.action_digest().0);
    // The sandboxed permit runs the sandboxed run.
    let fresh = authorize_under(&s, &text, None, Some(&inside)).expect("a challenge");
    let c3 = challenge_of(&s, &fresh, 301);
    let permit = s.authority.issue(&c3).expect("pending challenge");
    assert_eq!(
        authorize_under(&s, &text, Some(permit), Some(&inside)),
        None
    );
}
