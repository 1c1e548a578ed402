//! Styled lines for the pieces of dialog that do not need the whole TUI state: input
//! geometry, tool rows, notices, user text and transcript entries. `view.rs` composes them
//! with the state; the history pane measures with them.

use std::time::{Duration, Instant};

use ansa_sessions::protocol::{DiffSign, FileDiff, ReportTone, ToolPhase, ToolReport};
use std::collections::BTreeSet;

use ansa_sessions::{RequestId, Role, TranscriptEntry};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;
use unicode_width::UnicodeWidthChar;

use super::markdown::render_markdown;
use super::model::{Notice, Tone, ToolLine};
use super::theme::Theme;
use super::wrap::{display_width, wrap_prefixed};
use crate::sanitize::{Form, exact, flowing};

/// The prompt before the first input row.
pub(crate) const PROMPT: &str = "› ";
/// Indent of the other input rows and of wrapped user text.
pub(crate) const INDENT: &str = "  ";

/// Columns the input text wraps at: the prompt and one spare column for the cursor are off.
pub(crate) fn input_columns(width: u16) -> u16 {
    width.saturating_sub(3).max(1)
}

/// Rows of the history pane's text at a terminal height.
pub(crate) fn pane_rows(height: u16) -> usize {
    (usize::from(height) / 2).max(3)
}

/// Renders lines into a buffer as wide as the terminal.
pub(crate) fn to_buffer(lines: &[Line<'_>], width: u16) -> Buffer {
    let height = u16::try_from(lines.len()).unwrap_or(u16::MAX);
    let mut buffer = Buffer::empty(Rect::new(0, 0, width.max(1), height));
    for (y, line) in (0..height).zip(lines) {
        line.clone()
            .render(Rect::new(0, y, width.max(1), 1), &mut buffer);
    }
    buffer
}

/// A duration as the TUI shows it: tenths under ten seconds, then seconds, then minutes.
pub(crate) fn fmt_duration(d: Duration) -> String {
    let secs = d.as_secs_f64();
    if secs < 10.0 {
        format!("{secs:.1}s")
    } else if secs < 60.0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}m{:02}s", d.as_secs() / 60, d.as_secs() % 60)
    }
}

/// `s` cut to `max` display columns, with `…` when cut.
pub(crate) fn truncate(s: &str, max: usize) -> String {
    if display_width(s) <= max {
        return s.to_owned();
    }
    let mut out = String::new();
    let mut width = 0;
    for c in s.chars() {
        let w = c.width().unwrap_or(0);
        if width + w + 1 > max {
            break;
        }
        width += w;
        out.push(c);
    }
    if max > 0 {
        out.push('…');
    }
    out
}

/// `s` sanitized ([`flowing`]) onto one line: `\n` and `\t` become spaces.
pub(crate) fn one_line(s: &str) -> String {
    flowing(s).replace(['\n', '\t'], " ")
}

/// `s` on one line in `form`: [`one_line`] when flowing; exact text has no `\n` or `\t` left.
fn line_in(s: &str, form: Form) -> String {
    match form {
        Form::Exact => exact(s).into_owned(),
        Form::Flowing => one_line(s),
    }
}

/// One tool call: its row (state, name, target, how it went, duration) and, once it ended,
/// the lines under it: a command's last output lines, an edit's diff, a file operation's
/// actions, or a note that the model got the output cut.
pub(crate) fn tool_lines(
    tool: &ToolLine,
    now: Instant,
    width: u16,
    theme: Theme,
) -> Vec<Line<'static>> {
    let (row, reason) = tool_row(tool, now, width, theme);
    let mut lines = vec![row];
    lines.extend(reason);
    if let Some(report) = &tool.report {
        lines.extend(report_lines(report, width, theme));
    }
    lines
}

/// The row, and a failed call's reason wrapped under it when the row has no room for all of
/// it (a reason is never cut: it says what to do).
fn tool_row(
    tool: &ToolLine,
    now: Instant,
    width: u16,
    theme: Theme,
) -> (Line<'static>, Vec<Line<'static>>) {
    let tone = tool.report.as_ref().map(|r| r.tone);
    let (symbol, style, state) = match (tool.phase, tone) {
        (ToolPhase::Started, _) if tool.ended.is_some() => ("·", theme.dim(), Some("stopped")),
        (ToolPhase::Started, _) => ("•", theme.accent(), None),
        (ToolPhase::Finished | ToolPhase::Failed, Some(ReportTone::Warn)) => {
            ("!", theme.warn(), None)
        }
        (ToolPhase::Finished, _) => ("✓", theme.accent(), None),
        // A failure's reason is its summary; without a report the row says only that.
        (ToolPhase::Failed, Some(_)) => ("✗", theme.error(), None),
        (ToolPhase::Failed, None) => ("✗", theme.error(), Some("failed")),
        (ToolPhase::EffectUnknown, _) => ("?", theme.error(), Some("effect unknown")),
    };
    let name = truncate(&one_line(&tool.name), 24);
    let duration = tool
        .started
        .map(|s| fmt_duration(tool.ended.unwrap_or(now).saturating_duration_since(s)));
    let summary = tool.report.as_ref().map(|r| {
        let style = match r.tone {
            ReportTone::Ok => theme.dim(),
            ReportTone::Warn => theme.warn(),
            ReportTone::Error => theme.error(),
        };
        (one_line(&r.summary), style)
    });
    let mut spans = vec![
        Span::raw(INDENT),
        Span::styled(symbol, style),
        Span::raw(" "),
        Span::styled(name.clone(), theme.bold()),
    ];
    let tail: String = [state.map(str::to_owned), duration]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join("  ");
    let mut used = INDENT.len() + 2 + display_width(&name) + 2 + display_width(&tail);
    // The summary says how it went, so it keeps its room before the target does; a failure's
    // reason that does not fit goes under the row, wrapped, and the row keeps the target.
    let mut reason = Vec::new();
    let failed = tool
        .report
        .as_ref()
        .is_some_and(|r| r.tone == ReportTone::Error);
    let summary = summary.and_then(|(text, style)| {
        let room = usize::from(width).saturating_sub(used + 2);
        if failed && display_width(&text) > room {
            reason = wrap_prefixed(
                &[Span::styled(text, style)],
                width,
                &[Span::raw(UNDER)],
                &[Span::raw(UNDER)],
            );
            return None;
        }
        let text = truncate(&text, room);
        used += 2 + display_width(&text);
        Some((text, style))
    });
    if let Some(target) = &tool.target {
        let room = usize::from(width).saturating_sub(used + 1);
        if room > 3 {
            spans.push(Span::raw(" "));
            spans.push(Span::styled(truncate(&one_line(target), room), theme.dim()));
        }
    }
    if let Some((text, style)) = summary.filter(|(t, _)| !t.is_empty()) {
        spans.push(Span::raw("  "));
        spans.push(Span::styled(text, style));
    }
    if !tail.is_empty() {
        spans.push(Span::raw("  "));
        spans.push(Span::styled(tail, theme.dim()));
    }
    (Line::from(spans), reason)
}

/// Diff lines shown under an edit's row; the rest is in the output pane (Ctrl+O).
const ROW_DIFF_LINES: usize = 8;

/// Indent of the lines under a tool row.
pub(crate) const UNDER: &str = "    ";

fn report_lines(report: &ToolReport, width: u16, theme: Theme) -> Vec<Line<'static>> {
    let room = usize::from(width).saturating_sub(UNDER.len() + 2).max(1);
    let mut lines = Vec::new();
    let under = |text: &str, mark: &'static str, style: Style| {
        Line::from(vec![
            Span::raw(UNDER),
            Span::styled(mark, style),
            Span::styled(truncate(&one_line(text), room), style),
        ])
    };
    // The tail is the output's end: what it leaves out came before it.
    let hidden = report.hidden_lines();
    if hidden > 0 && !report.tail.is_empty() {
        let noun = if hidden == 1 { "line" } else { "lines" };
        lines.push(under(
            &format!("… {hidden} more {noun} (Ctrl+O)"),
            "",
            theme.dim(),
        ));
    }
    for line in &report.tail {
        lines.push(under(line, "", theme.dim()));
    }
    lines.extend(diff_lines(
        &report.diffs,
        ROW_DIFF_LINES,
        " (Ctrl+O)",
        width,
        theme,
        Form::Flowing,
    ));
    if report.actions.len() > 1 {
        for action in &report.actions {
            lines.push(under(action, "", theme.dim()));
        }
    }
    if report.cut {
        lines.push(under(
            "output cut for the model; Ctrl+O shows it all",
            "",
            theme.dim(),
        ));
    }
    lines
}

/// The first `max` lines of edits' diffs under a row (file names first when there are
/// several), then how many more there are and `more` (where to see them); the text in `form`
/// (exact in an approval, where every control must be seen).
pub(crate) fn diff_lines(
    diffs: &[FileDiff],
    max: usize,
    more: &str,
    width: u16,
    theme: Theme,
    form: Form,
) -> Vec<Line<'static>> {
    let room = usize::from(width).saturating_sub(UNDER.len() + 2).max(1);
    let under = |text: &str, mark: &'static str, style: Style| {
        Line::from(vec![
            Span::raw(UNDER),
            Span::styled(mark, style),
            Span::styled(truncate(&line_in(text, form), room), style),
        ])
    };
    let mut lines = Vec::new();
    let several = diffs.len() > 1;
    let mut left = max;
    let mut shown = 0u64;
    for diff in diffs {
        if left == 0 {
            break;
        }
        if several {
            let head = format!("{} (+{} −{})", diff.path, diff.added, diff.removed);
            lines.push(under(&head, "", theme.dim()));
        }
        for line in diff.lines.iter().take(left) {
            let (mark, style) = match line.sign {
                DiffSign::Added => ("+ ", theme.added()),
                DiffSign::Removed => ("− ", theme.removed()),
                DiffSign::Context => ("  ", theme.dim()),
                DiffSign::Hunk => ("@@ ", theme.accent()),
            };
            lines.push(under(&line.text, mark, style));
            shown += 1;
            left -= 1;
        }
    }
    let total: u64 = diffs.iter().map(|d| d.added + d.removed).sum();
    if total > shown {
        let text = format!("… {} more diff lines{more}", total - shown);
        lines.push(under(&text, "", theme.dim()));
    }
    lines
}

/// A notice: its mark, then its text wrapped under it.
pub(crate) fn notice_lines(notice: &Notice, width: u16, theme: Theme) -> Vec<Line<'static>> {
    let (mark, style) = match notice.tone {
        Tone::Info => ("· ", theme.dim()),
        Tone::Warn => ("! ", theme.accent()),
        Tone::Error => ("✗ ", theme.error()),
    };
    let text = flowing(&notice.text);
    wrap_prefixed(
        &[Span::styled(text.as_ref(), style)],
        width,
        &[Span::raw(INDENT), Span::styled(mark, style)],
        &[Span::raw("    ")],
    )
}

/// The user's text, sanitized and wrapped with the prompt before the first row.
pub(crate) fn user_lines(text: &str, width: u16, style: Style, theme: Theme) -> Vec<Line<'static>> {
    let text = flowing(text);
    wrap_prefixed(
        &[Span::styled(text.as_ref(), style)],
        width,
        &[Span::styled(PROMPT, theme.accent())],
        &[Span::raw(INDENT)],
    )
}

/// The history pane's text for `entries` (a blank line before each entry); the entries of a
/// turn in `rewound` (or flagged rewound by the transcript) are dimmed, and its prompt has a
/// `↺ rewound` line over it.
pub(crate) fn history_lines(
    entries: &[TranscriptEntry],
    rewound: &BTreeSet<RequestId>,
    width: u16,
    theme: Theme,
) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    for entry in entries {
        lines.push(Line::default());
        let taken_back = entry.rewound || rewound.contains(&entry.request_id);
        if taken_back && entry.role == Role::User {
            lines.push(Line::styled(
                format!("{INDENT}↺ rewound (taken back by /rewind)"),
                theme.dim().patch(theme.italic()),
            ));
        }
        let mut text = match entry.role {
            Role::User => user_lines(&entry.text, width, theme.user(), theme),
            Role::Assistant => render_markdown(&entry.text, width, theme),
        };
        if taken_back {
            for line in &mut text {
                for span in &mut line.spans {
                    span.style = span.style.patch(theme.dim());
                }
            }
        }
        lines.extend(text);
    }
    lines
}
