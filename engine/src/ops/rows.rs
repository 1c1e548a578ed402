//! Row-prefix projection of path-keyed tables (list, search): fit the rows under the
//! presentation limit and `rec`, assign path ids to the projected prefix, and retain the full
//! result as literal-path ASON evidence when rows are left out.

use crate::ason::{Atom, Cell, Document, Value, encode, encode_atom, encode_text};
use crate::protocol::{ErrorCode, ErrorRecord, Flags};
use crate::session::Answer;
use crate::session::truncate::{RowCost, WORST_ID, digits, fit_prefix};

/// A result row whose first column is a logical path.
pub(crate) struct PathRow {
    /// The logical path (becomes a path id in the response).
    pub path: String,
    /// The remaining cells, in column order.
    pub rest: Vec<Atom>,
}

/// The projected part of a table.
pub(crate) struct Projected {
    /// Path ids of the projected prefix, one per projected row.
    pub ids: Vec<u64>,
    /// Response flags: `base` plus truncated|reduced|retained when rows were left out.
    pub flags: Flags,
    /// The evidence reference when truncated.
    pub reference: Option<u64>,
}

/// Fits `rows` under the answer's limits. `kind` is the evidence document's `k` (`l`, `g`).
pub(crate) fn project(
    answer: &mut Answer<'_>,
    kind: &str,
    cols: &[&str],
    rows: &[PathRow],
    base: Flags,
) -> Result<Projected, ErrorRecord> {
    let costs = costs(rows);
    let truncated_flags = base
        .with(Flags::TRUNCATED)
        .with(Flags::REDUCED)
        .with(Flags::RETAINED);
    let id_digits = digits(answer.request.id);
    let header = cols.iter().map(|c| c.len() + 1).sum::<usize>() + 1;
    let envelope = |k: usize, paths: usize, truncated: bool| {
        let flags = if truncated { truncated_flags } else { base };
        let p = if paths > 0 {
            10 + digits(paths as u64)
        } else {
            0
        };
        let r = if truncated { 4 + digits(WORST_ID) } else { 4 };
        // t:3 + i:N + s:0 + [p header] + d[k]{cols}: + z:F + r line
        4 + (3 + id_digits)
            + 4
            + p
            + (5 + digits(k as u64) + header)
            + (3 + digits(u64::from(flags.bits())))
            + r
    };
    let limit = answer.limit();
    let fit = fit_prefix(&costs, answer.rec(), limit, &envelope)
        .ok_or(ErrorRecord::typical(ErrorCode::OutputBudget))?;
    let ids = rows[..fit.rows]
        .iter()
        .map(|r| answer.path_id(&r.path))
        .collect::<Result<Vec<u64>, _>>()?;
    if !fit.truncated {
        return Ok(Projected {
            ids,
            flags: base,
            reference: None,
        });
    }
    let evidence = Document::new()
        .with("k", Value::Scalar(Atom::text(kind)))
        .with(
            "d",
            Value::table(
                cols,
                rows.iter()
                    .map(|r| {
                        std::iter::once(Cell::Atom(Atom::text(r.path.as_str())))
                            .chain(r.rest.iter().cloned().map(Cell::Atom))
                            .collect()
                    })
                    .collect(),
            ),
        );
    let reference = answer.retain(encode(&evidence).into_bytes())?;
    Ok(Projected {
        ids,
        flags: truncated_flags,
        reference: Some(reference),
    })
}

/// Worst-case bytes of each row and of the dictionary row its path may introduce.
fn costs(rows: &[PathRow]) -> Vec<RowCost> {
    let worst_id = digits(WORST_ID);
    let mut buf = String::new();
    let mut previous: Option<&str> = None;
    rows.iter()
        .map(|r| {
            buf.clear();
            for a in &r.rest {
                buf.push(',');
                encode_atom(a, &mut buf);
            }
            let row = worst_id + buf.len() + 1;
            let new_path = (previous != Some(r.path.as_str())).then(|| {
                buf.clear();
                encode_text(&r.path, &mut buf);
                worst_id + 1 + buf.len() + 1
            });
            previous = Some(&r.path);
            RowCost { row, new_path }
        })
        .collect()
}
