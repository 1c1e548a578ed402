//! Fitting the `/status` panel into the rows the live region has for it. The region trims
//! what does not fit from its top, which would take the panel's title and its first row, the
//! model, first; so a panel too tall for the terminal (60×20 with the usage rows) gives way
//! here instead, least useful rows first, and says how many rows it left out.

use ratatui::text::{Line, Span};

use super::blocks::{one_line, truncate};
use super::theme::Theme;
use super::wrap::wrap_prefixed;

/// Columns of a row's key (`    model    `).
const KEY_COLUMNS: usize = 13;

/// One row of the panel.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    key: &'static str,
    value: String,
    /// When the panel does not fit, rows with `Some` are left out, lowest first; `None` rows
    /// are kept as long as any row can be.
    spare: Option<u8>,
}

impl Row {
    /// A row kept as long as any row can be.
    pub fn kept(key: &'static str, value: String) -> Row {
        Row {
            key,
            value,
            spare: None,
        }
    }

    /// A row left out early when the panel does not fit: rank 0 goes first.
    pub fn spare(key: &'static str, value: String, rank: u8) -> Row {
        Row {
            key,
            value,
            spare: Some(rank),
        }
    }
}

/// The panel's lines within `room` rows, counting the blank line the caller puts above it.
/// In order, until it fits: every row wrapped whole; spare rows left out, lowest rank first;
/// each row cut to one line; rows left out from the bottom.
pub(crate) fn lines(rows: Vec<Row>, width: u16, room: usize, theme: Theme) -> Vec<Line<'static>> {
    // The blank line above, the title and the closing line.
    let chrome = 3;
    let key = |k: &str| Span::styled(format!("    {k:<9}"), theme.dim());
    let wrapped = |row: &Row| {
        wrap_prefixed(
            &[Span::raw(one_line(&row.value))],
            width,
            &[key(row.key)],
            &[Span::raw(" ".repeat(KEY_COLUMNS))],
        )
    };
    let total = rows.len();
    let mut kept = rows;
    let mut body: Vec<Line<'static>> = kept.iter().flat_map(wrapped).collect();
    let mut spares: Vec<(u8, &'static str)> = kept
        .iter()
        .filter_map(|r| r.spare.map(|rank| (rank, r.key)))
        .collect();
    spares.sort_unstable();
    for (_, left_out) in spares {
        if body.len() + chrome <= room {
            break;
        }
        kept.retain(|r| r.key != left_out);
        body = kept.iter().flat_map(wrapped).collect();
    }
    if body.len() + chrome > room {
        let fit = room.saturating_sub(chrome).min(kept.len());
        kept.truncate(fit);
        let columns = usize::from(width).saturating_sub(KEY_COLUMNS);
        body = kept
            .iter()
            .map(|r| {
                Line::from(vec![
                    key(r.key),
                    Span::raw(truncate(&one_line(&r.value), columns)),
                ])
            })
            .collect();
    }
    let closing = match total - kept.len() {
        0 => "  (Esc closes)".to_owned(),
        1 => "  (Esc closes · 1 more row in a taller terminal)".to_owned(),
        n => format!("  (Esc closes · {n} more rows in a taller terminal)"),
    };
    let mut lines = vec![Line::styled("  /status", theme.accent())];
    lines.extend(body);
    lines.push(Line::styled(
        truncate(&closing, usize::from(width)),
        theme.dim(),
    ));
    lines
}
