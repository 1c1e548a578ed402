//! GitHub tables: cells collected as plain text, columns sized to their content and, when
//! the table is wider than the terminal, the widest columns shrunk first (cells then wrap by
//! words inside their column), aligned as the delimiter row says, the header in bold over a
//! `─┼─` rule. Too narrow for even three columns of three: each row as `header: value` lines.

use pulldown_cmark::Alignment;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::super::theme::Theme;
use super::super::wrap::{display_width, wrap_plain, wrap_prefixed};

/// Between two columns.
const SEPARATOR: &str = " │ ";
/// The narrowest a shrunk column gets.
const MIN_COLUMN: usize = 3;

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
        let room = usize::from(width)
            .saturating_sub(prefix_width)
            .saturating_sub(SEPARATOR.len() * (columns - 1));
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
        let floors: usize = natural.iter().map(|n| (*n).min(MIN_COLUMN)).sum();
        if floors > room {
            return self.stacked(width, prefix, theme);
        }
        let widths = fit(&natural, room);
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

    /// Each body row as `header: value` lines, rows apart by a blank line.
    fn stacked(&self, width: u16, prefix: &[Span<'static>], theme: Theme) -> Vec<Line<'static>> {
        let Some((header, body)) = self.rows.split_first() else {
            return Vec::new();
        };
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
                lines.extend(wrap_prefixed(&spans, width, prefix, prefix));
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

/// Column widths: the natural ones when they fit in `room`, else the widest columns give up
/// columns first, so short ones keep their width (none below [`MIN_COLUMN`] or its natural
/// width, whichever is smaller).
fn fit(natural: &[usize], room: usize) -> Vec<usize> {
    let floor = |n: usize| n.min(MIN_COLUMN);
    let mut widths = natural.to_vec();
    while widths.iter().sum::<usize>() > room {
        let Some((i, _)) = widths
            .iter()
            .enumerate()
            .filter(|(i, w)| **w > floor(natural[*i]))
            .max_by_key(|(_, w)| **w)
        else {
            break;
        };
        widths[i] -= 1;
    }
    widths
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
    fn columns_keep_their_width_when_they_fit_and_shrink_in_proportion_when_not() {
        assert_eq!(fit(&[5, 10], 40), [5, 10]);
        assert_eq!(fit(&[10, 30], 20), [10, 10], "the widest gives way first");
        assert_eq!(fit(&[49, 6, 9], 34), [19, 6, 9]);
        assert_eq!(fit(&[2, 100], 10), [2, 8], "a narrow column is not starved");
    }

    #[test]
    fn cells_align_as_the_delimiter_row_says() {
        assert_eq!(pad("ab", 5, Alignment::Left), "ab   ");
        assert_eq!(pad("ab", 5, Alignment::Right), "   ab");
        assert_eq!(pad("ab", 5, Alignment::Center), " ab  ");
    }
}
