//! `|` project: columns of a row window of one table field of a retained ASON document, as
//! `d[N]{C…}` fitted by row-prefix truncation; `z` always has the reduced bit.

use super::stream::range;
use super::{answered, leased, truncation};
use crate::answer::Answer;
use crate::answer::truncate::RowCost;
use crate::ason::{Cell, Limits, Table, Value, decode};
use crate::ops::rows::{Shape, column_bytes, fit, row_bytes};
use crate::protocol::{Data, ErrorRecord, Flags, Projection, Response};

/// Largest retained document `|` reads (docs/contract/ash-protocol.md §5 "formula full reads").
pub(crate) const MAX_DOCUMENT_BYTES: u64 = 8 << 20;

/// The operands of `|` after the source.
pub(super) struct Window<'w> {
    /// The table field key.
    pub table: &'w str,
    /// Zero-based first row.
    pub offset: u64,
    /// Rows wanted.
    pub rows: u64,
    /// Column keys, in output order.
    pub columns: &'w [String],
}

/// Runs `|` on `source`.
pub(super) fn run(
    answer: &mut Answer<'_>,
    source: u64,
    window: Window<'_>,
) -> Result<Response, ErrorRecord> {
    leased(answer, source, |answer, body| {
        if body.len() > MAX_DOCUMENT_BYTES {
            return Err(ErrorRecord::wrong_type_execute());
        }
        let bytes = range(body, 0, body.len())?;
        let plane = answer.session.plane.clone();
        let doc = plane
            .install(|| decode(&bytes, &Limits::default()))
            .map_err(|_| ErrorRecord::wrong_type_execute())?;
        let table = match doc.get(window.table) {
            None => return Err(ErrorRecord::invalid_argument()),
            Some(Value::Table(t)) => t,
            Some(_) => return Err(ErrorRecord::wrong_type_execute()),
        };
        let rows = select(table, &window)?;
        let mut buf = String::new();
        let costs: Vec<RowCost> = rows
            .iter()
            .map(|r| RowCost {
                row: row_bytes(r, &mut buf),
                new_path: None,
            })
            .collect();
        let shape = Shape {
            columns: column_bytes(window.columns),
            base: Flags::REDUCED.with(Flags::RETAINED),
            reference: Some(source),
            truncated_reference: source,
        };
        let fit = fit(answer, &shape, &costs)?;
        let mut rows = rows;
        rows.truncate(fit.rows);
        let data = Data::Project(Projection {
            columns: window.columns.to_vec(),
            rows,
        });
        Ok(answered(
            answer.request.id,
            source,
            data,
            Flags::REDUCED.with(truncation(fit.truncated)),
        ))
    })
}

/// The requested columns of rows `[offset, offset+rows)`; 100 for a column the table lacks.
fn select(table: &Table, window: &Window<'_>) -> Result<Vec<Vec<Cell>>, ErrorRecord> {
    let picks = window
        .columns
        .iter()
        .map(|c| table.cols.iter().position(|have| have == c))
        .collect::<Option<Vec<usize>>>()
        .ok_or(ErrorRecord::invalid_argument())?;
    let total = table.rows.len() as u64;
    let start = window.offset.min(total) as usize;
    let end = window.offset.saturating_add(window.rows).min(total) as usize;
    table.rows[start..end]
        .iter()
        .map(|row| picks.iter().map(|&i| row.get(i).cloned()).collect())
        .collect::<Option<Vec<Vec<Cell>>>>()
        .ok_or(ErrorRecord::internal_execute())
}
