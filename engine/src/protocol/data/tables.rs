//! Table results: read, list, search, patch, fs, batch, snapshot and find rows.
//! `p` cells are path-dictionary ids, not paths.

use super::kinds::{Change, EntryKind, MutationState, NodeState};
use crate::ason::{Cell, Value};
use crate::protocol::args::FsKind;
use crate::protocol::caps::OpKind;
use crate::protocol::codes::Status;
use crate::protocol::emit;
use crate::protocol::hex::Digest;
use crate::protocol::schema::{
    Loc, Problem, SchemaError, atom, code, digest, opt_code, opt_digest, opt_ref, opt_text,
    opt_uint, table, text, uint,
};

/// Decodes every row of a table field `d` with exactly `cols`.
fn rows<const N: usize, T>(
    v: &Value,
    cols: [&str; N],
    row: impl Fn(&[Cell; N], Loc) -> Result<T, SchemaError>,
) -> Result<Vec<T>, SchemaError> {
    let at = Loc::field("d");
    table(v, at, cols)?
        .into_iter()
        .enumerate()
        .map(|(i, r)| row(r, at.row(i)))
        .collect()
}

fn encode<T>(cols: &[&str], rows: &[T], row: impl Fn(&T) -> Vec<Cell>) -> Value {
    Value::table(cols, rows.iter().map(row).collect())
}

fn u(c: &Cell, at: Loc, col: &str) -> Result<u64, SchemaError> {
    uint(atom(c, at.col(col))?, at.col(col))
}

/// Read row of `d[N]{p,o,n,h,t,r}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ReadRow {
    /// `p`: path id.
    pub path: u64,
    /// `o`: offset actually used (bytes: clamped to the size; lines: the requested line).
    pub offset: u64,
    /// `n`: bytes or lines returned.
    pub len: u64,
    /// `h`: BLAKE3 of the whole file.
    pub digest: Digest,
    /// `t`: inline text, or `~` when retained instead.
    pub text: Option<String>,
    /// `r`: the retained selection.
    pub reference: Option<u64>,
}

impl ReadRow {
    pub(crate) const COLS: [&'static str; 6] = ["p", "o", "n", "h", "t", "r"];

    pub(crate) fn decode(v: &Value) -> Result<Vec<Self>, SchemaError> {
        rows(v, Self::COLS, |[p, o, n, h, t, r], at| {
            Ok(ReadRow {
                path: u(p, at, "p")?,
                offset: u(o, at, "o")?,
                len: u(n, at, "n")?,
                digest: digest(atom(h, at.col("h"))?, at.col("h"))?,
                text: opt_text(atom(t, at.col("t"))?, at.col("t"))?.map(str::to_owned),
                reference: opt_ref(atom(r, at.col("r"))?, at.col("r"))?,
            })
        })
    }

    pub(crate) fn encode(rows: &[Self]) -> Value {
        encode(&Self::COLS, rows, |r| {
            vec![
                emit::uint(r.path),
                emit::uint(r.offset),
                emit::uint(r.len),
                emit::digest(&r.digest),
                emit::opt_text(r.text.as_deref()),
                emit::opt_ref(r.reference),
            ]
        })
    }
}

/// List row of `d[N]{p,k,z}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ListRow {
    /// `p`: path id.
    pub path: u64,
    /// `k`: entry kind.
    pub kind: EntryKind,
    /// `z`: size (files; 0 for symlinks), otherwise `~`.
    pub size: Option<u64>,
}

impl ListRow {
    pub(crate) const COLS: [&'static str; 3] = ["p", "k", "z"];

    pub(crate) fn decode(v: &Value) -> Result<Vec<Self>, SchemaError> {
        rows(v, Self::COLS, |[p, k, z], at| {
            Ok(ListRow {
                path: u(p, at, "p")?,
                kind: code(atom(k, at.col("k"))?, at.col("k"))?,
                size: opt_uint(atom(z, at.col("z"))?, at.col("z"))?,
            })
        })
    }

    pub(crate) fn encode(rows: &[Self]) -> Value {
        encode(&Self::COLS, rows, |r| {
            vec![
                emit::uint(r.path),
                emit::uint(r.kind.as_u8()),
                emit::opt_uint(r.size),
            ]
        })
    }
}

/// Search row of `d[N]{p,l,c,t}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SearchRow {
    /// `p`: path id.
    pub path: u64,
    /// `l`: 1-based line.
    pub line: u64,
    /// `c`: 1-based byte column of the first match.
    pub column: u64,
    /// `t`: the whole line, CR stripped.
    pub text: String,
}

impl SearchRow {
    pub(crate) const COLS: [&'static str; 4] = ["p", "l", "c", "t"];

    pub(crate) fn decode(v: &Value) -> Result<Vec<Self>, SchemaError> {
        rows(v, Self::COLS, |[p, l, c, t], at| {
            Ok(SearchRow {
                path: u(p, at, "p")?,
                line: u(l, at, "l")?,
                column: u(c, at, "c")?,
                text: text(atom(t, at.col("t"))?, at.col("t"))?.to_owned(),
            })
        })
    }

    pub(crate) fn encode(rows: &[Self]) -> Value {
        encode(&Self::COLS, rows, |r| {
            vec![
                emit::uint(r.path),
                emit::uint(r.line),
                emit::uint(r.column),
                emit::text(&r.text),
            ]
        })
    }
}

/// Patch row of `d[N]{p,s,h}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PatchRow {
    /// `p`: path id.
    pub path: u64,
    /// `s`: mutation state.
    pub state: MutationState,
    /// `h`: new digest (committed), observed digest (conflict), or `~`.
    pub digest: Option<Digest>,
}

impl PatchRow {
    pub(crate) const COLS: [&'static str; 3] = ["p", "s", "h"];

    pub(crate) fn decode(v: &Value) -> Result<Vec<Self>, SchemaError> {
        rows(v, Self::COLS, |[p, s, h], at| {
            Ok(PatchRow {
                path: u(p, at, "p")?,
                state: code(atom(s, at.col("s"))?, at.col("s"))?,
                digest: opt_digest(atom(h, at.col("h"))?, at.col("h"))?,
            })
        })
    }

    pub(crate) fn encode(rows: &[Self]) -> Value {
        encode(&Self::COLS, rows, |r| {
            vec![
                emit::uint(r.path),
                emit::uint(r.state.as_u8()),
                emit::opt_digest(r.digest.as_ref()),
            ]
        })
    }
}

/// Fs row of `d[N]{i,k,p,q,s,h}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FsRow {
    /// `i`: the action id.
    pub id: u64,
    /// `k`: the action kind.
    pub kind: FsKind,
    /// `p`: source path id.
    pub path: u64,
    /// `q`: destination path id (copy, move).
    pub destination: Option<u64>,
    /// `s`: mutation state.
    pub state: MutationState,
    /// `h`: committed or observed digest, or `~`.
    pub digest: Option<Digest>,
}

impl FsRow {
    pub(crate) const COLS: [&'static str; 6] = ["i", "k", "p", "q", "s", "h"];

    pub(crate) fn decode(v: &Value) -> Result<Vec<Self>, SchemaError> {
        rows(v, Self::COLS, |[i, k, p, q, s, h], at| {
            Ok(FsRow {
                id: u(i, at, "i")?,
                kind: code(atom(k, at.col("k"))?, at.col("k"))?,
                path: u(p, at, "p")?,
                destination: opt_uint(atom(q, at.col("q"))?, at.col("q"))?,
                state: code(atom(s, at.col("s"))?, at.col("s"))?,
                digest: opt_digest(atom(h, at.col("h"))?, at.col("h"))?,
            })
        })
    }

    pub(crate) fn encode(rows: &[Self]) -> Value {
        encode(&Self::COLS, rows, |r| {
            vec![
                emit::uint(r.id),
                emit::uint(r.kind.as_u8()),
                emit::uint(r.path),
                emit::opt_uint(r.destination),
                emit::uint(r.state.as_u8()),
                emit::opt_digest(r.digest.as_ref()),
            ]
        })
    }
}

/// Batch row of `d[N]{i,o,s,c,r}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BatchRow {
    /// `i`: node id.
    pub id: u64,
    /// `o`: the node's operation.
    pub op: OpKind,
    /// `s`: node state.
    pub state: NodeState,
    /// `c`: the child response status, `~` when skipped.
    pub status: Option<Status>,
    /// `r`: the retained child response.
    pub reference: Option<u64>,
}

impl BatchRow {
    pub(crate) const COLS: [&'static str; 5] = ["i", "o", "s", "c", "r"];

    pub(crate) fn decode(v: &Value) -> Result<Vec<Self>, SchemaError> {
        rows(v, Self::COLS, |[i, o, s, c, r], at| {
            let letter = text(atom(o, at.col("o"))?, at.col("o"))?;
            Ok(BatchRow {
                id: u(i, at, "i")?,
                op: OpKind::from_letter(letter)
                    .ok_or_else(|| at.col("o").err(Problem::UnknownOp(letter.to_owned())))?,
                state: code(atom(s, at.col("s"))?, at.col("s"))?,
                status: opt_code(atom(c, at.col("c"))?, at.col("c"))?,
                reference: opt_ref(atom(r, at.col("r"))?, at.col("r"))?,
            })
        })
    }

    pub(crate) fn encode(rows: &[Self]) -> Value {
        encode(&Self::COLS, rows, |r| {
            vec![
                emit::uint(r.id),
                emit::text(&r.op.letter().to_string()),
                emit::uint(r.state.as_u8()),
                emit::opt_uint(r.status.map(|s| u64::from(s.as_u8()))),
                emit::opt_ref(r.reference),
            ]
        })
    }
}

/// Snapshot row of `d[N]{p,c,k,z,h}` (capture and delta).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SnapshotRow {
    /// `p`: path id.
    pub path: u64,
    /// `c`: 0 captured, or the delta change.
    pub change: Change,
    /// `k`: entry kind.
    pub kind: EntryKind,
    /// `z`: size, or `~`.
    pub size: Option<u64>,
    /// `h`: file digest or symlink-target digest; `~` for directories and others.
    pub digest: Option<Digest>,
}

impl SnapshotRow {
    pub(crate) const COLS: [&'static str; 5] = ["p", "c", "k", "z", "h"];

    pub(crate) fn decode(v: &Value) -> Result<Vec<Self>, SchemaError> {
        rows(v, Self::COLS, |[p, c, k, z, h], at| {
            Ok(SnapshotRow {
                path: u(p, at, "p")?,
                change: code(atom(c, at.col("c"))?, at.col("c"))?,
                kind: code(atom(k, at.col("k"))?, at.col("k"))?,
                size: opt_uint(atom(z, at.col("z"))?, at.col("z"))?,
                digest: opt_digest(atom(h, at.col("h"))?, at.col("h"))?,
            })
        })
    }

    pub(crate) fn encode(rows: &[Self]) -> Value {
        encode(&Self::COLS, rows, |r| {
            vec![
                emit::uint(r.path),
                emit::uint(r.change.as_u8()),
                emit::uint(r.kind.as_u8()),
                emit::opt_uint(r.size),
                emit::opt_digest(r.digest.as_ref()),
            ]
        })
    }
}

/// Find row of `d[N]{o,l,c,t}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct FindRow {
    /// `o`: absolute byte offset of the match.
    pub offset: u64,
    /// `l`: 1-based line.
    pub line: u64,
    /// `c`: 1-based byte column.
    pub column: u64,
    /// `t`: the whole line, CR stripped, clipped to ≤4096 bytes with `...` markers.
    pub text: String,
}

impl FindRow {
    pub(crate) const COLS: [&'static str; 4] = ["o", "l", "c", "t"];

    pub(crate) fn decode(v: &Value) -> Result<Vec<Self>, SchemaError> {
        rows(v, Self::COLS, |[o, l, c, t], at| {
            Ok(FindRow {
                offset: u(o, at, "o")?,
                line: u(l, at, "l")?,
                column: u(c, at, "c")?,
                text: text(atom(t, at.col("t"))?, at.col("t"))?.to_owned(),
            })
        })
    }

    pub(crate) fn encode(rows: &[Self]) -> Value {
        encode(&Self::COLS, rows, |r| {
            vec![
                emit::uint(r.offset),
                emit::uint(r.line),
                emit::uint(r.column),
                emit::text(&r.text),
            ]
        })
    }
}
