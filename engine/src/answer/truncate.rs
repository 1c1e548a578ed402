//! Row-prefix truncation (docs/contract/ash-protocol.md §5): the largest row prefix whose worst-case response fits L.
//!
//! The worst case assumes every path in the prefix is new to the session and gets a 20-digit id,
//! and that a truncated response carries a 20-digit reference, so the real response (with real,
//! smaller ids) always fits when its worst case does.

/// Digits of the largest id or alias the worst case assumes.
pub const WORST_ID: u64 = u64::MAX;

/// Worst-case encoded bytes contributed by one row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowCost {
    /// Bytes of the `d` row line, LF included, with worst-case path ids.
    pub row: usize,
    /// Bytes of the `p` dictionary row this row introduces, if its path is first seen here.
    pub new_path: Option<usize>,
}

/// Encoded bytes of everything but the rows, for a response with `rows` rows, `paths`
/// dictionary rows and the given truncation state.
pub trait Envelope {
    /// Bytes of the envelope around the rows.
    fn bytes(&self, rows: usize, paths: usize, truncated: bool) -> usize;
}

impl<F: Fn(usize, usize, bool) -> usize> Envelope for F {
    fn bytes(&self, rows: usize, paths: usize, truncated: bool) -> usize {
        self(rows, paths, truncated)
    }
}

/// The outcome of fitting rows under the presentation limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fit {
    /// Rows to project.
    pub rows: usize,
    /// Whether rows were left out (the full result must then be retained).
    pub truncated: bool,
}

/// [`fit_prefix_of`] over a complete list of costs.
#[cfg(test)]
pub fn fit_prefix(
    costs: &[RowCost],
    rec: usize,
    limit: usize,
    envelope: &impl Envelope,
) -> Option<Fit> {
    fit_prefix_of(costs, costs.len(), rec, limit, envelope)
}

/// Finds the largest prefix of `costs` (at most `rec` rows) whose worst-case response is at most
/// `limit` bytes; `costs` may be only the first rows of `total` (a consumer that stopped keeping
/// rows once it knew no more could be shown). `None` when not even the empty, truncated
/// response fits (error 600).
pub fn fit_prefix_of(
    costs: &[RowCost],
    total: usize,
    rec: usize,
    limit: usize,
    envelope: &impl Envelope,
) -> Option<Fit> {
    let (mut row_bytes, mut path_bytes, mut paths) = (0usize, 0usize, 0usize);
    let mut sums = Vec::with_capacity(costs.len().min(rec) + 1);
    sums.push((0usize, 0usize));
    for c in costs.iter().take(rec) {
        row_bytes += c.row;
        if let Some(p) = c.new_path {
            path_bytes += p;
            paths += 1;
        }
        sums.push((row_bytes + path_bytes, paths));
    }
    let fits = |k: usize, truncated: bool| {
        let (bytes, paths) = sums[k];
        bytes.saturating_add(envelope.bytes(k, paths, truncated)) <= limit
    };
    if total == costs.len() && total <= rec && fits(total, false) {
        return Some(Fit {
            rows: total,
            truncated: false,
        });
    }
    // Truncated sizes grow with k, so the first prefix that does not fit ends the search.
    let most = costs.len().min(rec);
    let mut best = None;
    for k in 0..=most {
        if k == total || !fits(k, true) {
            break;
        }
        best = Some(k);
    }
    best.map(|rows| Fit {
        rows,
        truncated: true,
    })
}

/// Decimal digits of `n`.
pub fn digits(n: u64) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(base: usize) -> impl Fn(usize, usize, bool) -> usize {
        move |_rows, paths, truncated| {
            base + if paths > 0 { 10 } else { 0 } + if truncated { 22 } else { 3 }
        }
    }

    #[test]
    fn everything_fits_when_small() {
        let costs = vec![
            RowCost {
                row: 10,
                new_path: Some(5)
            };
            3
        ];
        assert_eq!(
            fit_prefix(&costs, 10, 1000, &env(20)),
            Some(Fit {
                rows: 3,
                truncated: false
            })
        );
    }

    #[test]
    fn rec_caps_rows_and_marks_truncation() {
        let costs = vec![
            RowCost {
                row: 10,
                new_path: None
            };
            5
        ];
        assert_eq!(
            fit_prefix(&costs, 2, 1000, &env(20)),
            Some(Fit {
                rows: 2,
                truncated: true
            })
        );
    }

    #[test]
    fn limit_cuts_the_prefix() {
        let costs = vec![
            RowCost {
                row: 10,
                new_path: Some(5)
            };
            5
        ];
        // base 20 + p header 10 + trunc 22 = 52; each row adds 15.
        assert_eq!(
            fit_prefix(&costs, 100, 52 + 30, &env(20)),
            Some(Fit {
                rows: 2,
                truncated: true
            })
        );
        assert_eq!(fit_prefix(&costs, 100, 41, &env(20)), None);
        assert_eq!(
            fit_prefix(&costs, 100, 42, &env(20)),
            Some(Fit {
                rows: 0,
                truncated: true
            })
        );
    }

    #[test]
    fn digits_counts_decimal_places() {
        assert_eq!(digits(0), 1);
        assert_eq!(digits(9), 1);
        assert_eq!(digits(10), 2);
        assert_eq!(digits(u64::MAX), 20);
    }
}
