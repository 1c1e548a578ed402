//! The operation of a request: its kind and typed arguments.

use super::args::{
    BatchArgs, CancelArgs, ExecArgs, Formula, FsArgs, ListArgs, PatchArgs, ReadArgs, SearchArgs,
    SnapshotArgs,
};
use super::caps::{Caps, OpKind, OpMask};
use super::schema::{Loc, SchemaError, atom, record, uint};
use crate::ason::{Document, Value};
use crate::protocol::emit;

/// A request's operation with validated arguments.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Op {
    /// `x`
    Exec(ExecArgs),
    /// `r`
    Read(ReadArgs),
    /// `l`
    List(ListArgs),
    /// `g`
    Search(SearchArgs),
    /// `p`
    Patch(PatchArgs),
    /// `f`
    Fs(FsArgs),
    /// `b`
    Batch(BatchArgs),
    /// `s`
    Snapshot(SnapshotArgs),
    /// `/ # ? - | >`
    Formula(Formula),
    /// `k`
    Cancel(CancelArgs),
}

impl Op {
    /// The operation kind.
    pub fn kind(&self) -> OpKind {
        match self {
            Op::Exec(_) => OpKind::Exec,
            Op::Read(_) => OpKind::Read,
            Op::List(_) => OpKind::List,
            Op::Search(_) => OpKind::Search,
            Op::Patch(_) => OpKind::Patch,
            Op::Fs(_) => OpKind::Fs,
            Op::Batch(_) => OpKind::Batch,
            Op::Snapshot(_) => OpKind::Snapshot,
            Op::Formula(f) => f.kind(),
            Op::Cancel(_) => OpKind::Cancel,
        }
    }

    /// The `o` letter.
    pub fn letter(&self) -> char {
        self.kind().letter()
    }

    /// The operation bit index (x=0 … k=9).
    pub fn op_bit(&self) -> u8 {
        self.kind().bit_index()
    }

    /// The operation mask with this operation's bit.
    pub fn op_mask(&self) -> OpMask {
        OpMask::of(self.kind())
    }

    /// Capabilities required to run it; a batch needs the union of its leaves.
    pub fn required_caps(&self) -> Caps {
        match self {
            Op::Batch(b) => b.required_caps(),
            other => other.kind().base_caps(),
        }
    }

    /// Types the `a` field value as the arguments of `kind`.
    pub fn parse_args(kind: OpKind, a: &Value) -> Result<Op, SchemaError> {
        Ok(match kind {
            OpKind::Exec => Op::Exec(ExecArgs::from_value(a)?),
            OpKind::Read => Op::Read(ReadArgs::from_value(a)?),
            OpKind::List => Op::List(ListArgs::from_value(a)?),
            OpKind::Search => Op::Search(SearchArgs::from_value(a)?),
            OpKind::Patch => Op::Patch(PatchArgs::from_value(a)?),
            OpKind::Fs => Op::Fs(FsArgs::from_value(a)?),
            OpKind::Batch => Op::Batch(BatchArgs::from_value(a)?),
            OpKind::Snapshot => Op::Snapshot(SnapshotArgs::from_value(a)?),
            OpKind::Cancel => {
                let at = Loc::field("a");
                let [i] = record(a, at, ["i"])?;
                let target = uint(atom(i, at.col("i"))?, at.col("i"))?;
                Op::Cancel(CancelArgs { target })
            }
            OpKind::Slice
            | OpKind::LineSlice
            | OpKind::Find
            | OpKind::Release
            | OpKind::Project
            | OpKind::Materialize => Op::Formula(Formula::from_value(kind, a)?),
        })
    }

    /// The `a` field value in canonical form.
    pub fn args_value(&self) -> Value {
        match self {
            Op::Exec(a) => a.to_value(),
            Op::Read(a) => a.to_value(),
            Op::List(a) => a.to_value(),
            Op::Search(a) => a.to_value(),
            Op::Patch(a) => a.to_value(),
            Op::Fs(a) => a.to_value(),
            Op::Batch(a) => a.to_value(),
            Op::Snapshot(a) => a.to_value(),
            Op::Formula(f) => f.to_value(),
            Op::Cancel(c) => Value::record(&["i"], vec![emit::uint(c.target)]),
        }
    }

    /// The one-field document `a…` (the form embedded in batch rows and approval actions).
    pub fn args_document(&self) -> Document {
        Document::new().with("a", self.args_value())
    }

    /// Table rows of the arguments (fs actions, batch nodes), checked against the budget.
    pub(crate) fn arg_rows(&self) -> Option<usize> {
        match self {
            Op::Fs(f) => Some(f.actions.len()),
            Op::Batch(b) => Some(b.nodes.len()),
            _ => None,
        }
    }
}
