//! Single-record results: exec, slice, release, materialize, cancel.

use super::kinds::{ExitKind, MutationState};
use crate::ason::{Cell, Value};
use crate::protocol::emit;
use crate::protocol::hex::{Digest, bytes_from_lower_hex, to_lower_hex};
use crate::protocol::schema::{
    Loc, Problem, SchemaError, atom, boolean, clip, code, digest, opt_int, opt_ref, opt_text,
    record, reference, uint,
};

/// Exec result `d{k,c,ms,o,e,ro,re}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ExecResult {
    /// `k`: how the process ended.
    pub kind: ExitKind,
    /// `c`: exit code or signal number; `~` on timeout or cancel.
    pub code: Option<i64>,
    /// `ms`: elapsed milliseconds from spawn.
    pub ms: u64,
    /// `o`: stdout projection; `~` when empty or unprojectable.
    pub stdout: Option<String>,
    /// `e`: stderr projection; `~` when empty or unprojectable.
    pub stderr: Option<String>,
    /// `ro`: retained full stdout.
    pub stdout_ref: Option<u64>,
    /// `re`: retained full stderr.
    pub stderr_ref: Option<u64>,
}

impl ExecResult {
    pub(crate) const COLS: [&'static str; 7] = ["k", "c", "ms", "o", "e", "ro", "re"];

    pub(crate) fn from_value(v: &Value) -> Result<Self, SchemaError> {
        let at = Loc::field("d");
        let [k, c, ms, o, e, ro, re] = record(v, at, Self::COLS)?;
        Ok(ExecResult {
            kind: code(atom(k, at.col("k"))?, at.col("k"))?,
            code: opt_int(atom(c, at.col("c"))?, at.col("c"))?,
            ms: uint(atom(ms, at.col("ms"))?, at.col("ms"))?,
            stdout: opt_text(atom(o, at.col("o"))?, at.col("o"))?.map(str::to_owned),
            stderr: opt_text(atom(e, at.col("e"))?, at.col("e"))?.map(str::to_owned),
            stdout_ref: opt_ref(atom(ro, at.col("ro"))?, at.col("ro"))?,
            stderr_ref: opt_ref(atom(re, at.col("re"))?, at.col("re"))?,
        })
    }

    pub(crate) fn to_value(&self) -> Value {
        Value::record(
            &Self::COLS,
            vec![
                emit::uint(self.kind.as_u8()),
                emit::opt_int(self.code),
                emit::uint(self.ms),
                emit::opt_text(self.stdout.as_deref()),
                emit::opt_text(self.stderr.as_deref()),
                emit::opt_ref(self.stdout_ref),
                emit::opt_ref(self.stderr_ref),
            ],
        )
    }
}

/// Slice and line-slice result `d{o,n,p,h,t,b}`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SliceResult {
    /// `o`: the requested offset (byte or line).
    pub offset: u64,
    /// `n`: bytes selected (for `#` too: the byte length of the selected lines).
    pub len: u64,
    /// `p`: bytes projected into `t` or `b`.
    pub projected: u64,
    /// `h`: BLAKE3 of the selection.
    pub digest: Digest,
    /// `t`: the projected text when the selection is UTF-8.
    pub text: Option<String>,
    /// `b`: the projected bytes (written as lowercase hex) when it is not.
    pub bytes: Option<Vec<u8>>,
}

impl SliceResult {
    pub(crate) const COLS: [&'static str; 6] = ["o", "n", "p", "h", "t", "b"];

    pub(crate) fn from_value(v: &Value) -> Result<Self, SchemaError> {
        let at = Loc::field("d");
        let [o, n, p, h, t, b] = record(v, at, Self::COLS)?;
        let bytes = match opt_text(atom(b, at.col("b"))?, at.col("b"))? {
            None => None,
            Some(hex) => Some(bytes_from_lower_hex(hex).ok_or_else(|| {
                at.col("b").err(Problem::Detail(format!(
                    "{:?} is not an even number of lowercase hex digits",
                    clip(hex)
                )))
            })?),
        };
        Ok(SliceResult {
            offset: uint(atom(o, at.col("o"))?, at.col("o"))?,
            len: uint(atom(n, at.col("n"))?, at.col("n"))?,
            projected: uint(atom(p, at.col("p"))?, at.col("p"))?,
            digest: digest(atom(h, at.col("h"))?, at.col("h"))?,
            text: opt_text(atom(t, at.col("t"))?, at.col("t"))?.map(str::to_owned),
            bytes,
        })
    }

    pub(crate) fn to_value(&self) -> Value {
        let hex = self.bytes.as_deref().map(to_lower_hex);
        Value::record(
            &Self::COLS,
            vec![
                emit::uint(self.offset),
                emit::uint(self.len),
                emit::uint(self.projected),
                emit::digest(&self.digest),
                emit::opt_text(self.text.as_deref()),
                emit::opt_text(hex.as_deref()),
            ],
        )
    }
}

/// Release result `d{r,z}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReleaseResult {
    /// `r`: the released reference.
    pub reference: u64,
    /// `z`: 1 when it was released.
    pub released: bool,
}

impl ReleaseResult {
    pub(crate) const COLS: [&'static str; 2] = ["r", "z"];

    pub(crate) fn from_value(v: &Value) -> Result<Self, SchemaError> {
        let at = Loc::field("d");
        let [r, z] = record(v, at, Self::COLS)?;
        Ok(ReleaseResult {
            reference: reference(atom(r, at.col("r"))?, at.col("r"))?,
            released: boolean(atom(z, at.col("z"))?, at.col("z"))?,
        })
    }

    pub(crate) fn to_value(self) -> Value {
        Value::record(
            &Self::COLS,
            vec![
                emit::reference(self.reference),
                emit::boolean(self.released),
            ],
        )
    }
}

/// Materialize result `d{p,s,z,h}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MaterializeResult {
    /// `p`: path id of the target.
    pub path: u64,
    /// `s`: committed, or conflict with the existing file.
    pub state: MutationState,
    /// `z`: bytes written.
    pub size: u64,
    /// `h`: digest written (or of the existing file on conflict).
    pub digest: Digest,
}

impl MaterializeResult {
    pub(crate) const COLS: [&'static str; 4] = ["p", "s", "z", "h"];

    pub(crate) fn from_value(v: &Value) -> Result<Self, SchemaError> {
        let at = Loc::field("d");
        let [p, s, z, h] = record(v, at, Self::COLS)?;
        Ok(MaterializeResult {
            path: uint(atom(p, at.col("p"))?, at.col("p"))?,
            state: code(atom(s, at.col("s"))?, at.col("s"))?,
            size: uint(atom(z, at.col("z"))?, at.col("z"))?,
            digest: digest(atom(h, at.col("h"))?, at.col("h"))?,
        })
    }

    pub(crate) fn to_value(self) -> Value {
        Value::record(
            &Self::COLS,
            vec![
                emit::uint(self.path),
                emit::uint(self.state.as_u8()),
                emit::uint(self.size),
                emit::digest(&self.digest),
            ],
        )
    }
}

/// Cancel result `d{i,z}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CancelResult {
    /// `i`: the target request id.
    pub target: u64,
    /// `z`: 1 if this call flipped an active or queued target's token.
    pub flipped: bool,
}

impl CancelResult {
    pub(crate) const COLS: [&'static str; 2] = ["i", "z"];

    pub(crate) fn from_value(v: &Value) -> Result<Self, SchemaError> {
        let at = Loc::field("d");
        let [i, z] = record(v, at, Self::COLS)?;
        Ok(CancelResult {
            target: uint(atom(i, at.col("i"))?, at.col("i"))?,
            flipped: boolean(atom(z, at.col("z"))?, at.col("z"))?,
        })
    }

    pub(crate) fn to_value(self) -> Value {
        Value::record(
            &Self::COLS,
            vec![emit::uint(self.target), emit::boolean(self.flipped)],
        )
    }
}

/// Project result `d[N]{C…}`: the requested columns, cells copied from the retained table.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Projection {
    /// The column keys, in request order.
    pub columns: Vec<String>,
    /// Rows, each as wide as `columns`.
    pub rows: Vec<Vec<Cell>>,
}

impl Projection {
    pub(crate) fn from_value(v: &Value) -> Result<Self, SchemaError> {
        match v {
            Value::Table(t) => Ok(Projection {
                columns: t.cols.clone(),
                rows: t.rows.clone(),
            }),
            other => Err(Loc::field("d").err(Problem::Form {
                expected: crate::protocol::schema::Form::Table,
                found: crate::protocol::schema::Form::of(other),
            })),
        }
    }

    pub(crate) fn to_value(&self) -> Value {
        Value::Table(crate::ason::Table {
            cols: self.columns.clone(),
            rows: self.rows.clone(),
        })
    }
}
