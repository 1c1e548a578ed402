//! The typed result `d…` of a response, one variant per result shape.

mod kinds;
mod records;
mod tables;

pub use kinds::{Change, EntryKind, ExitKind, MutationState, NodeState};
pub use records::{
    CancelResult, ExecResult, MaterializeResult, Projection, ReleaseResult, SliceResult,
};
pub use tables::{BatchRow, FindRow, FsRow, ListRow, PatchRow, ReadRow, SearchRow, SnapshotRow};

use super::caps::OpKind;
use super::schema::{Form, Loc, Problem, SchemaError};
use crate::ason::Value;

/// A response's data field.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Data {
    /// `x`: `d{k,c,ms,o,e,ro,re}`.
    Exec(ExecResult),
    /// `r`: `d[N]{p,o,n,h,t,r}`.
    Read(Vec<ReadRow>),
    /// `l`: `d[N]{p,k,z}`.
    List(Vec<ListRow>),
    /// `g`: `d[N]{p,l,c,t}`.
    Search(Vec<SearchRow>),
    /// `p`: `d[N]{p,s,h}`.
    Patch(Vec<PatchRow>),
    /// `f`: `d[N]{i,k,p,q,s,h}`.
    Fs(Vec<FsRow>),
    /// `b`: `d[N]{i,o,s,c,r}`.
    Batch(Vec<BatchRow>),
    /// `s`: `d[N]{p,c,k,z,h}`.
    Snapshot(Vec<SnapshotRow>),
    /// `/` and `#`: `d{o,n,p,h,t,b}`.
    Slice(SliceResult),
    /// `?`: `d[N]{o,l,c,t}`.
    Find(Vec<FindRow>),
    /// `-`: `d{r,z}`.
    Release(ReleaseResult),
    /// `|`: `d[N]{C…}`.
    Project(Projection),
    /// `>`: `d{p,s,z,h}`.
    Materialize(MaterializeResult),
    /// `k`: `d{i,z}`.
    Cancel(CancelResult),
}

impl Data {
    /// The field value in canonical form.
    pub fn to_value(&self) -> Value {
        match self {
            Data::Exec(r) => r.to_value(),
            Data::Read(rows) => ReadRow::encode(rows),
            Data::List(rows) => ListRow::encode(rows),
            Data::Search(rows) => SearchRow::encode(rows),
            Data::Patch(rows) => PatchRow::encode(rows),
            Data::Fs(rows) => FsRow::encode(rows),
            Data::Batch(rows) => BatchRow::encode(rows),
            Data::Snapshot(rows) => SnapshotRow::encode(rows),
            Data::Slice(r) => r.to_value(),
            Data::Find(rows) => FindRow::encode(rows),
            Data::Release(r) => r.to_value(),
            Data::Project(p) => p.to_value(),
            Data::Materialize(r) => r.to_value(),
            Data::Cancel(r) => r.to_value(),
        }
    }

    /// Types `d` as the result of operation `kind`.
    pub fn from_value_for(kind: OpKind, v: &Value) -> Result<Data, SchemaError> {
        Ok(match kind {
            OpKind::Exec => Data::Exec(ExecResult::from_value(v)?),
            OpKind::Read => Data::Read(ReadRow::decode(v)?),
            OpKind::List => Data::List(ListRow::decode(v)?),
            OpKind::Search => Data::Search(SearchRow::decode(v)?),
            OpKind::Patch => Data::Patch(PatchRow::decode(v)?),
            OpKind::Fs => Data::Fs(FsRow::decode(v)?),
            OpKind::Batch => Data::Batch(BatchRow::decode(v)?),
            OpKind::Snapshot => Data::Snapshot(SnapshotRow::decode(v)?),
            OpKind::Slice | OpKind::LineSlice => Data::Slice(SliceResult::from_value(v)?),
            OpKind::Find => Data::Find(FindRow::decode(v)?),
            OpKind::Release => Data::Release(ReleaseResult::from_value(v)?),
            OpKind::Project => Data::Project(Projection::from_value(v)?),
            OpKind::Materialize => Data::Materialize(MaterializeResult::from_value(v)?),
            OpKind::Cancel => Data::Cancel(CancelResult::from_value(v)?),
        })
    }

    /// Types `d` by its columns alone. A table whose columns match no fixed shape is a
    /// projection; a projection that happens to have a fixed shape's columns (e.g. `|`
    /// of `p,k,z`) is typed as that shape, so use [`Data::from_value_for`] when the
    /// operation is known.
    pub fn from_value(v: &Value) -> Result<Data, SchemaError> {
        let kind = match v {
            Value::Record(r) => {
                let cols: Vec<&str> = r.cols.iter().map(String::as_str).collect();
                let candidates: [(&[&str], OpKind); 5] = [
                    (&ExecResult::COLS, OpKind::Exec),
                    (&SliceResult::COLS, OpKind::Slice),
                    (&ReleaseResult::COLS, OpKind::Release),
                    (&MaterializeResult::COLS, OpKind::Materialize),
                    (&CancelResult::COLS, OpKind::Cancel),
                ];
                candidates
                    .iter()
                    .find(|(c, _)| *c == cols.as_slice())
                    .map(|(_, k)| *k)
                    .ok_or_else(|| {
                        Loc::field("d").err(Problem::Detail(format!(
                            "record columns {{{}}} match no result shape",
                            cols.join(",")
                        )))
                    })?
            }
            Value::Table(t) => {
                let cols: Vec<&str> = t.cols.iter().map(String::as_str).collect();
                let candidates: [(&[&str], OpKind); 8] = [
                    (&ReadRow::COLS, OpKind::Read),
                    (&ListRow::COLS, OpKind::List),
                    (&SearchRow::COLS, OpKind::Search),
                    (&PatchRow::COLS, OpKind::Patch),
                    (&FsRow::COLS, OpKind::Fs),
                    (&BatchRow::COLS, OpKind::Batch),
                    (&SnapshotRow::COLS, OpKind::Snapshot),
                    (&FindRow::COLS, OpKind::Find),
                ];
                candidates
                    .iter()
                    .find(|(c, _)| *c == cols.as_slice())
                    .map_or(OpKind::Project, |(_, k)| *k)
            }
            other => {
                return Err(Loc::field("d").err(Problem::Detail(format!(
                    "must be a record or a table, found {}",
                    Form::of(other)
                ))));
            }
        };
        Data::from_value_for(kind, v)
    }

    /// Whether the data holds a reference that counts as retained evidence (exec `ro`/`re`,
    /// read `r`, batch `r`); other reference cells, like release's `r`, do not.
    pub fn has_retained_reference(&self) -> bool {
        match self {
            Data::Exec(r) => r.stdout_ref.is_some() || r.stderr_ref.is_some(),
            Data::Read(rows) => rows.iter().any(|r| r.reference.is_some()),
            Data::Batch(rows) => rows.iter().any(|r| r.reference.is_some()),
            _ => false,
        }
    }

    /// Rows of a table result (1 for a record).
    pub fn row_count(&self) -> usize {
        match self {
            Data::Read(r) => r.len(),
            Data::List(r) => r.len(),
            Data::Search(r) => r.len(),
            Data::Patch(r) => r.len(),
            Data::Fs(r) => r.len(),
            Data::Batch(r) => r.len(),
            Data::Snapshot(r) => r.len(),
            Data::Find(r) => r.len(),
            Data::Project(p) => p.rows.len(),
            Data::Exec(_)
            | Data::Slice(_)
            | Data::Release(_)
            | Data::Materialize(_)
            | Data::Cancel(_) => 1,
        }
    }

    /// Rewrites every path-id cell with `f` (the ordered seal maps provisional ids).
    pub fn map_path_ids(&mut self, mut f: impl FnMut(u64) -> u64) {
        match self {
            Data::Read(rows) => rows.iter_mut().for_each(|r| r.path = f(r.path)),
            Data::List(rows) => rows.iter_mut().for_each(|r| r.path = f(r.path)),
            Data::Search(rows) => rows.iter_mut().for_each(|r| r.path = f(r.path)),
            Data::Patch(rows) => rows.iter_mut().for_each(|r| r.path = f(r.path)),
            Data::Snapshot(rows) => rows.iter_mut().for_each(|r| r.path = f(r.path)),
            Data::Fs(rows) => rows.iter_mut().for_each(|r| {
                r.path = f(r.path);
                r.destination = r.destination.map(&mut f);
            }),
            Data::Materialize(r) => r.path = f(r.path),
            Data::Exec(_)
            | Data::Batch(_)
            | Data::Slice(_)
            | Data::Find(_)
            | Data::Release(_)
            | Data::Project(_)
            | Data::Cancel(_) => {}
        }
    }

    /// Every reference cell, so validation can reject `@0`.
    pub(crate) fn references(&self) -> Vec<u64> {
        match self {
            Data::Exec(r) => r.stdout_ref.into_iter().chain(r.stderr_ref).collect(),
            Data::Read(rows) => rows.iter().filter_map(|r| r.reference).collect(),
            Data::Batch(rows) => rows.iter().filter_map(|r| r.reference).collect(),
            Data::Release(r) => vec![r.reference],
            _ => Vec::new(),
        }
    }
}
