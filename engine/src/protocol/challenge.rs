//! The approval challenge document `v,s,c,e,b,p,h,n` (docs/contract/ash-protocol.md §8), retained as the
//! evidence `@n` of a 301/302 response.

use super::caps::Caps;
use super::hex::{array_from_lower_hex, to_lower_hex};
use super::schema::{
    Loc, Problem, SchemaError, clip, field_order, get, scalar, text, uint, uint_in,
};
use crate::ason::{Atom, Document, Value, encode};

/// The challenge format version.
pub const CHALLENGE_VERSION: u8 = 1;

/// An approval challenge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Challenge {
    /// `s`: session id.
    pub session: u64,
    /// `c`: the capabilities that need approval.
    pub caps: Caps,
    /// `e`: expiry, Unix milliseconds.
    pub expires_ms: u64,
    /// `b`: session binding.
    pub binding: [u8; 16],
    /// `p`: policy digest.
    pub policy: [u8; 16],
    /// `h`: action digest.
    pub action: [u8; 32],
    /// `n`: nonce.
    pub nonce: [u8; 16],
}

impl Challenge {
    /// The canonical document (`v:1` first).
    pub fn to_document(&self) -> Document {
        let t = |s: String| Value::Scalar(Atom::Text(s));
        Document::new()
            .with("v", Value::Scalar(Atom::uint(u64::from(CHALLENGE_VERSION))))
            .with("s", Value::Scalar(Atom::uint(self.session)))
            .with("c", Value::Scalar(Atom::uint(u64::from(self.caps.bits()))))
            .with("e", Value::Scalar(Atom::uint(self.expires_ms)))
            .with("b", t(to_lower_hex(&self.binding)))
            .with("p", t(to_lower_hex(&self.policy)))
            .with("h", t(to_lower_hex(&self.action)))
            .with("n", t(to_lower_hex(&self.nonce)))
    }

    /// The canonical encoding.
    pub fn encode(&self) -> String {
        encode(&self.to_document())
    }

    /// Types and validates a challenge document.
    pub fn from_document(doc: &Document) -> Result<Challenge, SchemaError> {
        field_order(doc, &["v", "s", "c", "e", "b", "p", "h", "n"])?;
        let n = |key: &'static str| uint(scalar(get(doc, key)?, Loc::field(key))?, Loc::field(key));
        let v = Loc::field("v");
        uint_in(scalar(get(doc, "v")?, v)?, v, 1, 1)?;
        let caps = n("c")?;
        Ok(Challenge {
            session: n("s")?,
            caps: Caps::from_bits(caps).ok_or_else(|| {
                Loc::field("c").err(Problem::UnknownFlags {
                    value: caps,
                    unknown: caps & !u64::from(Caps::ALL.bits()),
                    allowed: u64::from(Caps::ALL.bits()),
                })
            })?,
            expires_ms: n("e")?,
            binding: hex_field(doc, "b")?,
            policy: hex_field(doc, "p")?,
            action: hex_field(doc, "h")?,
            nonce: hex_field(doc, "n")?,
        })
    }

    /// The 105 signing bytes: version ‖ sid ‖ caps ‖ expiry (u64 BE each) ‖ binding ‖
    /// policy ‖ action ‖ nonce.
    pub fn signing_bytes(&self) -> [u8; 105] {
        let mut out = [0u8; 105];
        out[0] = CHALLENGE_VERSION;
        out[1..9].copy_from_slice(&self.session.to_be_bytes());
        out[9..17].copy_from_slice(&u64::from(self.caps.bits()).to_be_bytes());
        out[17..25].copy_from_slice(&self.expires_ms.to_be_bytes());
        out[25..41].copy_from_slice(&self.binding);
        out[41..57].copy_from_slice(&self.policy);
        out[57..89].copy_from_slice(&self.action);
        out[89..105].copy_from_slice(&self.nonce);
        out
    }
}

fn hex_field<const N: usize>(doc: &Document, key: &'static str) -> Result<[u8; N], SchemaError> {
    let at = Loc::field(key);
    let t = text(scalar(get(doc, key)?, at)?, at)?;
    array_from_lower_hex(t).ok_or_else(|| {
        at.err(Problem::Hex {
            value: clip(t),
            digits: 2 * N,
        })
    })
}
