//! The children's nested rows: `  ├ 2 running 3 tools 4.2s task…`, the last with `└`, each
//! cut to the width (the task first, then the figures; the state stays longest).

use std::time::Instant;

use ansa_sessions::child::ChildState;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::super::blocks::{fmt_duration, one_line, truncate};
use super::super::theme::Theme;
use super::{ChildRow, Children};

impl Children {
    /// The drawn rows at `width`.
    pub fn lines(&self, now: Instant, width: u16, theme: Theme) -> Vec<Line<'static>> {
        let last = self.rows.len().saturating_sub(1);
        self.rows
            .iter()
            .enumerate()
            .map(|(i, row)| {
                let branch = if i == last { "  └ " } else { "  ├ " };
                row_line(row, branch, now, usize::from(width), theme)
            })
            .collect()
    }
}

/// The word and style of a state.
pub(crate) fn state_word(state: ChildState, theme: Theme) -> (&'static str, Style) {
    match state {
        ChildState::Queued => ("queued", theme.dim()),
        ChildState::Running => ("running", theme.accent()),
        ChildState::Done => ("done", theme.dim()),
        ChildState::Paused => ("paused", theme.warn()),
        ChildState::Failed => ("failed", theme.error()),
        ChildState::Cancelled => ("cancelled", theme.warn()),
    }
}

fn row_line(
    row: &ChildRow,
    branch: &str,
    now: Instant,
    width: usize,
    theme: Theme,
) -> Line<'static> {
    // A running child's time goes on between its status events.
    let elapsed = match row.state {
        ChildState::Running => row.elapsed + now.saturating_duration_since(row.seen),
        _ => row.elapsed,
    };
    let (state, style) = state_word(row.state, theme);
    let figures = format!(
        " {} tool{} {} ",
        row.tools,
        if row.tools == 1 { "" } else { "s" },
        fmt_duration(elapsed)
    );
    let head = format!("{branch}{} ", row.index);
    let used = head.chars().count() + state.len() + figures.chars().count();
    if used > width {
        // Too narrow for the figures: the place and the state, cut to the width.
        let cut = truncate(&format!("{head}{state}"), width);
        return Line::styled(cut, theme.dim());
    }
    let task = truncate(&one_line(&row.task), width - used);
    Line::from(vec![
        Span::styled(head, theme.dim()),
        Span::styled(state, style),
        Span::styled(figures, theme.dim()),
        Span::raw(task),
    ])
}
