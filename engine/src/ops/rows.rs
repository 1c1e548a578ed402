//! Row-prefix projection of table results (list, search, snapshot, `?`, `|`): fit the rows under
//! the presentation limit and `rec`; for path-keyed tables also assign path ids to the projected
//! prefix and retain the full result as literal-path ASON evidence when rows are left out (or, for
//! snapshot, always).

use crate::answer::Answer;
use crate::answer::truncate::{Fit, RowCost, WORST_ID, digits, fit_prefix_of};
use crate::ason::{Atom, Cell, Document, Value, encode, encode_atom, encode_text};
use crate::protocol::{ErrorCode, ErrorRecord, Flags};

/// What, besides its rows, decides the encoded size of a table response.
pub(crate) struct Shape {
    /// Bytes of the column list `{c1,…}`.
    pub columns: usize,
    /// Flags of a complete answer.
    pub base: Flags,
    /// Top-level `r` of a complete answer.
    pub reference: Option<u64>,
    /// Top-level `r` of a truncated answer (a worst-case alias when not yet assigned).
    pub truncated_reference: u64,
}

impl Shape {
    /// The shape of a path-keyed table answer with columns `cols` and no reference when whole.
    fn table(cols: &[&str], base: Flags) -> Shape {
        Shape {
            columns: column_bytes(cols),
            base,
            reference: None,
            truncated_reference: WORST_ID,
        }
    }

    /// Flags of a truncated answer: `base` plus truncated, reduced and retained.
    pub fn truncated_flags(&self) -> Flags {
        self.base
            .with(Flags::TRUNCATED)
            .with(Flags::REDUCED)
            .with(Flags::RETAINED)
    }
}

/// Bytes of the column list `{c1,…}` of `cols`.
pub(crate) fn column_bytes<S: AsRef<str>>(cols: &[S]) -> usize {
    cols.iter().map(|c| c.as_ref().len() + 1).sum::<usize>() + 1
}

/// Encoded bytes of one table row line, LF included.
pub(crate) fn row_bytes<'c>(cells: impl IntoIterator<Item = &'c Cell>, buf: &mut String) -> usize {
    buf.clear();
    for (i, cell) in cells.into_iter().enumerate() {
        if i > 0 {
            buf.push(',');
        }
        match cell {
            Cell::Atom(a) => encode_atom(a, buf),
            Cell::Vector(items) => {
                buf.push('[');
                for (j, a) in items.iter().enumerate() {
                    if j > 0 {
                        buf.push(',');
                    }
                    encode_atom(a, buf);
                }
                buf.push(']');
            }
        }
    }
    buf.len() + 1
}

/// The largest row prefix (at most `rec` rows) whose worst-case response fits the answer's
/// presentation limit; 600 when not even the empty, truncated response fits.
pub(crate) fn fit(
    answer: &Answer<'_>,
    shape: &Shape,
    costs: &[RowCost],
) -> Result<Fit, ErrorRecord> {
    fit_of(answer, shape, costs, costs.len())
}

/// [`fit`] when `costs` are the first rows of `total`.
fn fit_of(
    answer: &Answer<'_>,
    shape: &Shape,
    costs: &[RowCost],
    total: usize,
) -> Result<Fit, ErrorRecord> {
    let id_digits = digits(answer.request.id);
    let truncated_flags = shape.truncated_flags();
    let envelope = |k: usize, paths: usize, truncated: bool| {
        let (flags, reference) = if truncated {
            (truncated_flags, Some(shape.truncated_reference))
        } else {
            (shape.base, shape.reference)
        };
        let p = if paths > 0 {
            10 + digits(paths as u64)
        } else {
            0
        };
        // t:3 + i:N + s:0 + [p header] + d[k]{cols}: + z:F + r line
        4 + (3 + id_digits)
            + 4
            + p
            + (5 + digits(k as u64) + shape.columns)
            + (3 + digits(u64::from(flags.bits())))
            + reference.map_or(4, |r| 4 + digits(r))
    };
    fit_prefix_of(costs, total, answer.rec(), answer.limit(), &envelope)
        .ok_or(ErrorRecord::typical(ErrorCode::OutputBudget))
}

/// A result row whose first column is a logical path.
pub(crate) struct PathRow {
    /// The logical path (becomes a path id in the response).
    pub path: String,
    /// The remaining cells, in column order.
    pub rest: Vec<Atom>,
}

/// A row the projection can fit, as the operation holds it: search's many rows are fitted
/// without first becoming a [`PathRow`] of owned atoms.
pub(crate) trait TableRow {
    /// The logical path (becomes a path id in the response).
    fn path(&self) -> &str;
    /// Appends `,` and the canonical encoding of each cell after the path.
    fn encode_rest(&self, out: &mut String);
    /// The cells after the path, for the evidence document.
    fn rest_cells(&self) -> Vec<Atom>;
}

impl TableRow for PathRow {
    fn path(&self) -> &str {
        &self.path
    }

    fn encode_rest(&self, out: &mut String) {
        for a in &self.rest {
            out.push(',');
            encode_atom(a, out);
        }
    }

    fn rest_cells(&self) -> Vec<Atom> {
        self.rest.clone()
    }
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
pub(crate) fn project<R: TableRow>(
    answer: &mut Answer<'_>,
    kind: &str,
    cols: &[&str],
    rows: &[R],
    base: Flags,
) -> Result<Projected, ErrorRecord> {
    let shape = Shape::table(cols, base);
    let (fit, ids) = fit_paths(answer, &shape, rows, rows.len())?;
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
                        std::iter::once(Cell::Atom(Atom::text(r.path())))
                            .chain(r.rest_cells().into_iter().map(Cell::Atom))
                            .collect()
                    })
                    .collect(),
            ),
        );
    let reference = answer.retain(encode(&evidence).into_bytes())?;
    Ok(Projected {
        ids,
        flags: shape.truncated_flags(),
        reference: Some(reference),
    })
}

/// Like [`project`] for a result of which only the first rows were kept: `kept` is a prefix of
/// `total` rows, left out whole (the consumer kept every row that could be shown, so rows are
/// always cut), and `evidence` retains the complete result once the fit is known to be possible.
pub(crate) fn project_prefix<R: TableRow>(
    answer: &mut Answer<'_>,
    cols: &[&str],
    kept: &[R],
    total: usize,
    base: Flags,
    evidence: impl FnOnce(&mut Answer<'_>) -> Result<u64, ErrorRecord>,
) -> Result<Projected, ErrorRecord> {
    let shape = Shape::table(cols, base);
    let (_, ids) = fit_paths(answer, &shape, kept, total)?;
    let reference = evidence(answer)?;
    Ok(Projected {
        ids,
        flags: shape.truncated_flags(),
        reference: Some(reference),
    })
}

/// The least bytes a row of `path` and `rest` can add to an answer: a 20-digit path id, the
/// cells as raw text (encoding only adds), separators and LF. Rows past the point where these
/// sums exceed L can never be shown.
pub(crate) fn least_row_bytes(rest_raw: usize, cells: usize) -> usize {
    digits(WORST_ID) + rest_raw + cells + 1
}

/// Like [`project`] for a result whose evidence `document` is retained whether or not rows are
/// left out (the snapshot manifest): `r` always names it and `z` always has the retained bit.
/// The fit assumes a worst-case reference, so it does not depend on the alias the store assigns,
/// and nothing is retained when not even the empty answer fits (600).
pub(crate) fn project_retaining(
    answer: &mut Answer<'_>,
    cols: &[&str],
    rows: &[PathRow],
    base: Flags,
    document: Vec<u8>,
) -> Result<Projected, ErrorRecord> {
    let base = base.with(Flags::RETAINED);
    let shape = Shape {
        columns: column_bytes(cols),
        base,
        reference: Some(WORST_ID),
        truncated_reference: WORST_ID,
    };
    let (fit, ids) = fit_paths(answer, &shape, rows, rows.len())?;
    let reference = answer.retain(document)?;
    Ok(Projected {
        ids,
        flags: if fit.truncated {
            shape.truncated_flags()
        } else {
            base
        },
        reference: Some(reference),
    })
}

/// Fits `rows` (the first of `total`) under `shape` and assigns path ids to the projected
/// prefix.
fn fit_paths<R: TableRow>(
    answer: &mut Answer<'_>,
    shape: &Shape,
    rows: &[R],
    total: usize,
) -> Result<(Fit, Vec<u64>), ErrorRecord> {
    let fit = fit_of(answer, shape, &costs(rows), total)?;
    // Rows come sorted by path, so a file's rows are consecutive and its id is looked up (and
    // its path hashed) once rather than once a row.
    let mut last: Option<(&str, u64)> = None;
    let mut ids = Vec::with_capacity(fit.rows);
    for row in &rows[..fit.rows] {
        let path = row.path();
        let id = match last {
            Some((previous, id)) if previous == path => id,
            _ => answer.path_id(path)?,
        };
        last = Some((path, id));
        ids.push(id);
    }
    Ok((fit, ids))
}

/// Worst-case bytes of each row and of the dictionary row its path may introduce.
fn costs<R: TableRow>(rows: &[R]) -> Vec<RowCost> {
    let worst_id = digits(WORST_ID);
    let mut buf = String::new();
    let mut previous: Option<&str> = None;
    rows.iter()
        .map(|r| {
            buf.clear();
            r.encode_rest(&mut buf);
            let row = worst_id + buf.len() + 1;
            let path = r.path();
            let new_path = (previous != Some(path)).then(|| {
                buf.clear();
                encode_text(path, &mut buf);
                worst_id + 1 + buf.len() + 1
            });
            previous = Some(path);
            RowCost { row, new_path }
        })
        .collect()
}
