//! Small constructors for cells of typed values being encoded.

use super::hex::Digest;
use crate::ason::{Atom, Cell};

/// Canonical unsigned decimal.
pub(crate) fn uint(n: impl Into<u64>) -> Cell {
    Cell::Atom(Atom::uint(n.into()))
}

/// Canonical unsigned decimal or `~`.
pub(crate) fn opt_uint(n: Option<u64>) -> Cell {
    Cell::Atom(Atom::opt_uint(n))
}

/// Canonical signed decimal or `~`.
pub(crate) fn opt_int(n: Option<i64>) -> Cell {
    Cell::Atom(n.map_or(Atom::Null, Atom::int))
}

/// `0` or `1`.
pub(crate) fn boolean(b: bool) -> Cell {
    uint(u64::from(b))
}

/// Text.
pub(crate) fn text(s: &str) -> Cell {
    Cell::Atom(Atom::text(s))
}

/// Text or `~`.
pub(crate) fn opt_text(s: Option<&str>) -> Cell {
    Cell::Atom(Atom::opt_text(s))
}

/// `@N`.
pub(crate) fn reference(n: u64) -> Cell {
    Cell::Atom(Atom::Ref(n))
}

/// `@N` or `~`.
pub(crate) fn opt_ref(n: Option<u64>) -> Cell {
    Cell::Atom(Atom::opt_ref(n))
}

/// 64 lowercase hex digits.
pub(crate) fn digest(d: &Digest) -> Cell {
    text(&d.to_hex())
}

/// A digest or `~`.
pub(crate) fn opt_digest(d: Option<&Digest>) -> Cell {
    d.map_or(Cell::Atom(Atom::Null), digest)
}

/// A vector cell of texts.
pub(crate) fn texts<S: AsRef<str>>(items: &[S]) -> Cell {
    Cell::Vector(items.iter().map(|s| Atom::text(s.as_ref())).collect())
}

/// Flag bits from (set?, bit) pairs.
pub(crate) fn bits(pairs: &[(bool, u64)]) -> Cell {
    uint(
        pairs
            .iter()
            .filter(|(set, _)| *set)
            .fold(0u64, |acc, (_, bit)| acc | bit),
    )
}
