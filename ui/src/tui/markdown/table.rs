//! GitHub tables: cells collected as plain text, columns sized to their content, aligned as
//! the delimiter row says, the header in bold over a `─┼─` rule. A table wider than the
//! terminal is drawn in its narrow form instead, one record per block of `header: value`
//! lines (values wrapped under their name), so no row is ever split across columns.

use pulldown_cmark::Alignment;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::super::theme::Theme;
use super::super::wrap::{display_width, wrap_plain, wrap_prefixed};

/// Between two columns.
const SEPARATOR: &str = " │ ";

/// A table being read.
#[derive(Debug, Default)]
pub(super) struct Table {
    aligns: Vec<Alignment>,
    /// Rows of cells; the first is the header.
    rows: Vec<Vec<String>>,
    row: Vec<String>,
}

impl Table {
    pub(super) fn new(aligns: Vec<Alignment>) -> Self {
        Table {
            aligns,
            ..Table::default()
        }
    }

    /// A finished cell's text.
    pub(super) fn cell(&mut self, text: String) {
        self.row.push(text);
    }

    /// The end of the header or of a body row.
    pub(super) fn end_row(&mut self) {
        let row = std::mem::take(&mut self.row);
        self.rows.push(row);
    }

    /// The table as lines at most `width` columns wide after `prefix`.
    pub(super) fn render(
        &self,
        width: u16,
        prefix: &[Span<'static>],
        theme: Theme,
    ) -> Vec<Line<'static>> {
        let columns = self.rows.iter().map(Vec::len).max().unwrap_or(0);
        if columns == 0 {
            return Vec::new();
        }
        let prefix_width: usize = prefix.iter().map(|s| display_width(&s.content)).sum();
        let natural: Vec<usize> = (0..columns)
            .map(|c| {
                self.rows
                    .iter()
                    .filter_map(|r| r.get(c))
                    .map(|t| display_width(t))
                    .max()
                    .unwrap_or(0)
                    .max(1)
            })
            .collect();
        let needed = natural.iter().sum::<usize>() + SEPARATOR.len() * (columns - 1);
        if needed + prefix_width > usize::from(width) {
            return self.stacked(width, prefix, theme);
        }
        let widths = natural;
        let mut lines = Vec::new();
        for (n, row) in self.rows.iter().enumerate() {
            let style = if n == 0 {
                theme.bold()
            } else {
                Style::default()
            };
            lines.extend(self.row_lines(row, &widths, prefix, style, theme));
            if n == 0 {
                let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
                let mut spans = prefix.to_vec();
                spans.push(Span::styled(rule.join("─┼─"), theme.dim()));
                lines.push(Line::from(spans));
            }
        }
        lines
    }

    /// The narrow form: each body row as `header: value` lines, rows apart by a blank line.
    fn stacked(&self, width: u16, prefix: &[Span<'static>], theme: Theme) -> Vec<Line<'static>> {
        let Some((header, body)) = self.rows.split_first() else {
            return Vec::new();
        };
        // A wrapped value is indented under its name, so each record reads as one block.
        let mut hanging = prefix.to_vec();
        hanging.push(Span::raw("  "));
        let mut lines = Vec::new();
        for (n, row) in body.iter().enumerate() {
            if n > 0 {
                lines.push(Line::from(prefix.to_vec()));
            }
            for (c, cell) in row.iter().enumerate() {
                let name = header.get(c).map_or("", String::as_str);
                let spans = [
                    Span::styled(format!("{name}: "), theme.bold()),
                    Span::raw(cell.clone()),
                ];
                lines.extend(wrap_prefixed(&spans, width, prefix, &hanging));
            }
        }
        lines
    }

    fn row_lines(
        &self,
        row: &[String],
        widths: &[usize],
        prefix: &[Span<'static>],
        style: Style,
        theme: Theme,
    ) -> Vec<Line<'static>> {
        let cells: Vec<Vec<String>> = widths
            .iter()
            .enumerate()
            .map(|(c, w)| {
                let text = row.get(c).map_or("", String::as_str);
                let column = u16::try_from(*w).unwrap_or(u16::MAX);
                wrap_plain(text, Style::default(), column)
                    .into_iter()
                    .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
                    .collect()
            })
            .collect();
        let height = cells.iter().map(Vec::len).max().unwrap_or(1).max(1);
        (0..height)
            .map(|i| {
                let mut spans = prefix.to_vec();
                for (c, w) in widths.iter().enumerate() {
                    if c > 0 {
                        spans.push(Span::styled(SEPARATOR, theme.dim()));
                    }
                    let text = cells[c].get(i).map_or("", String::as_str);
                    let align = self.aligns.get(c).copied().unwrap_or(Alignment::None);
                    spans.push(Span::styled(pad(text, *w, align), style));
                }
                Line::from(spans)
            })
            .collect()
    }
}

fn pad(text: &str, width: usize, align: Alignment) -> String {
    let gap = width.saturating_sub(display_width(text));
    match align {
        Alignment::Right => format!("{}{text}", " ".repeat(gap)),
        Alignment::Center => {
            let left = gap / 2;
            format!("{}{text}{}", " ".repeat(left), " ".repeat(gap - left))
        }
        Alignment::Left | Alignment::None => format!("{text}{}", " ".repeat(gap)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_align_as_the_delimiter_row_says() {
        assert_eq!(pad("ab", 5, Alignment::Left), "ab   ");
        assert_eq!(pad("ab", 5, Alignment::Right), "   ab");
        assert_eq!(pad("ab", 5, Alignment::Center), " ab  ");
    }
}
