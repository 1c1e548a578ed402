//! The viewer's lines in the live region: a title (which call, which view, which lines, the
//! keys; wrapped, never cut) and one page of numbered rows.

use ansa_sessions::OutputView;
use ratatui::text::Line;

use super::super::app::App;
use super::super::blocks::{one_line, pane_rows};
use super::super::wrap::wrap_plain;
use super::text::numbered_rows;

/// Every row of the loaded text at `width`.
pub(crate) fn text_rows(app: &App, width: u16) -> Vec<Line<'static>> {
    numbered(app, width).0
}

/// Every row of the loaded text at `width`, and the number of the line each row is part of.
fn numbered(app: &App, width: u16) -> (Vec<Line<'static>>, Vec<u64>) {
    let o = &app.output;
    let last = (o.first + o.lines.len() as u64).max(o.total);
    let digits = last.max(1).to_string().len();
    let mut rows = Vec::new();
    let mut numbers = Vec::new();
    // What the model got is shown whole, however it reads (a child's transcript is not that).
    let verbatim = o.view == OutputView::Model && o.child.is_none();
    for (n, line) in o.lines.iter().enumerate() {
        let number = o.first + 1 + n as u64;
        let wrapped = numbered_rows(
            std::slice::from_ref(line),
            number,
            digits,
            width,
            app.theme,
            verbatim,
        );
        numbers.extend(std::iter::repeat_n(number, wrapped.len()));
        rows.extend(wrapped);
    }
    (rows, numbers)
}

/// The viewer as the live region shows it.
pub(crate) fn lines(app: &App, width: u16) -> Vec<Line<'static>> {
    let theme = app.theme;
    let o = &app.output;
    let rows = pane_rows(app.height);
    let (text, numbers) = numbered(app, width);
    let tool = one_line(&o.tool);
    let view = match (o.want, o.view) {
        _ if o.child.is_some() => "as seen here",
        (OutputView::Model, _) => "what the model got",
        (OutputView::Readable, OutputView::Model) => "what the model got (no readable text kept)",
        (OutputView::Readable, OutputView::Readable) => "readable",
    };
    let mut title = if o.call_id.is_none() && o.pending.is_some() {
        "output: loading…".to_owned()
    } else if o.lines.is_empty() && !o.running {
        format!("output of {tool}: empty")
    } else {
        // Lines of the whole output, not rows of what is loaded: the count does not grow as
        // pages load (a running command's does, so it says so instead).
        let top = o.top.min(text.len().saturating_sub(1));
        let shown = text.len().min(top + rows);
        let first = numbers.get(top).copied().unwrap_or(o.first + 1);
        let last = numbers
            .get(shown.saturating_sub(1))
            .copied()
            .unwrap_or(first);
        if o.running {
            format!("{tool} · {view} · lines {first}–{last} · running, output so far")
        } else {
            format!("{tool} · {view} · lines {first}–{last} of {}", o.total)
        }
    };
    if let Some((n, of)) = app.output_position().filter(|(_, of)| *of > 1) {
        title.push_str(&format!(" · call {n} of {of} ←/→"));
    }
    if let Some((n, of)) = app.child_position().filter(|(_, of)| *of > 1) {
        title.push_str(&format!(" · child {n} of {of} ←/→"));
    }
    let toggle = match (o.want, &o.child) {
        (_, Some(_)) => "whole transcript: @N",
        (OutputView::Readable, None) => "Tab model view",
        (OutputView::Model, None) => "Tab readable",
    };
    title = format!("── {title} · {toggle} · PgUp/PgDn · Home/End · Ctrl+O closes");
    let mut lines = wrap_plain(&title, theme.accent(), width);
    lines.extend(text.into_iter().skip(o.top).take(rows));
    if o.truncated {
        lines.push(Line::styled("  (a very long line was cut)", theme.dim()));
    }
    lines
}
