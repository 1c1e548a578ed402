//! `/diff` (issue 43): what this session changed in the workspace, from the runtime's
//! `workspace_diff` answer — the changed files with their `+N −M`, then each file's unified
//! diff in colour, paged in the region above the input (PgUp/PgDn, ↑/↓, Home/End; Esc
//! closes). Binary files and files a checkpoint did not keep are named with the reason, not
//! diffed. Every path and line is shown exactly (control characters visible).

use ansa_sessions::CommandId;
use ansa_sessions::protocol::{
    CommandBody, DiffFile, DiffOmitted, DiffSign, DiffStatus, WorkspaceDiff,
};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::app::App;
use super::keys::Intent;
use super::model::Action;
use super::theme::Theme;
use super::wrap::hard_wrap;
use crate::sanitize::exact;

/// The `/diff` pane while it is open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DiffView {
    /// The `diff` command waiting for its answer (`None` once answered).
    pub waiting: Option<CommandId>,
    /// The answer.
    pub diff: Option<WorkspaceDiff>,
    /// First row shown.
    pub top: usize,
}

impl App {
    /// `/diff`: asks the runtime for what this session changed and opens the pane.
    pub(crate) fn open_diff(&mut self, out: &mut Vec<Action>) {
        let Some(command) = self.command(CommandBody::Diff) else {
            return;
        };
        self.diff = Some(DiffView {
            waiting: Some(command.command_id.clone()),
            diff: None,
            top: 0,
        });
        out.push(Action::Send(command));
    }

    /// The runtime's answer to `/diff`.
    pub(crate) fn on_workspace_diff(&mut self, diff: WorkspaceDiff) {
        if let Some(view) = self
            .diff
            .as_mut()
            .filter(|v| v.waiting.as_ref() == Some(&diff.command_id))
        {
            view.waiting = None;
            view.diff = Some(diff);
            view.top = 0;
        }
    }

    /// An error answering the pending `/diff` closes the pane (the error is said as a notice).
    pub(crate) fn diff_refused(&mut self, command_id: Option<&CommandId>) {
        if self
            .diff
            .as_ref()
            .is_some_and(|v| v.waiting.is_some() && v.waiting.as_ref() == command_id)
        {
            self.diff = None;
        }
    }

    /// Keys while the pane is open; `false` leaves the key to the rest of the TUI.
    pub(crate) fn diff_key(&mut self, intent: Intent) -> bool {
        let page = self.diff_page_rows();
        let total = self.diff_rows();
        let Some(view) = self.diff.as_mut() else {
            return false;
        };
        let last = total.saturating_sub(page);
        match intent {
            Intent::Dismiss => self.diff = None,
            Intent::PageDown => view.top = (view.top + page.max(1)).min(last),
            Intent::PageUp => view.top = view.top.saturating_sub(page.max(1)),
            Intent::Down => view.top = (view.top + 1).min(last),
            Intent::Up => view.top = view.top.saturating_sub(1),
            Intent::End => view.top = last,
            Intent::Home => view.top = 0,
            _ => return false,
        }
        true
    }

    /// Rows the pane's body may use at this size (the title row is off).
    fn diff_page_rows(&self) -> usize {
        usize::from(self.height).saturating_sub(6).max(1)
    }

    fn diff_rows(&self) -> usize {
        self.diff
            .as_ref()
            .and_then(|v| v.diff.as_ref())
            .map_or(0, |d| body(d, self.width, self.theme).len())
    }
}

/// The pane in at most `room` rows at `width`.
pub(crate) fn lines(app: &App, width: u16, room: usize) -> Vec<Line<'static>> {
    let Some(view) = &app.diff else {
        return Vec::new();
    };
    let theme = app.theme;
    let Some(diff) = &view.diff else {
        return vec![Line::styled(
            "  /diff: capturing the workspace…",
            theme.dim(),
        )];
    };
    let rows = body(diff, width, theme);
    let page = room.saturating_sub(1).max(1);
    let top = view.top.min(rows.len().saturating_sub(page));
    let end = (top + page).min(rows.len());
    let title = if rows.is_empty() {
        format!("  /diff since turn {}: no changes", diff.base_request_id.0)
    } else {
        format!(
            "  /diff since turn {} · rows {}–{end} of {}",
            diff.base_request_id.0,
            top + 1,
            rows.len()
        )
    };
    let mut out = vec![Line::styled(title, theme.accent())];
    out.extend(rows.into_iter().skip(top).take(page));
    out
}

/// The footer's hints while the pane is open.
pub(crate) fn hints(app: &App) -> Option<&'static [&'static str]> {
    app.diff.as_ref()?;
    Some(&["PgUp/PgDn page", "↑/↓ scroll", "Esc close"])
}

/// Every row of the pane: the file list, then each file's diff.
fn body(diff: &WorkspaceDiff, width: u16, theme: Theme) -> Vec<Line<'static>> {
    let mut rows = Vec::new();
    if diff.files.is_empty() {
        rows.push(Line::styled(
            "  nothing changed since this session's first checkpoint",
            theme.dim(),
        ));
        return rows;
    }
    let (added, removed) = diff
        .files
        .iter()
        .fold((0, 0), |(a, r), f| (a + f.added, r + f.removed));
    rows.push(Line::styled(
        format!(
            "  {} {} changed · +{added} −{removed}",
            diff.files.len(),
            if diff.files.len() == 1 {
                "file"
            } else {
                "files"
            }
        ),
        theme.bold(),
    ));
    for file in &diff.files {
        rows.extend(wrapped(
            &summary(file),
            width,
            "  ",
            status_style(file, theme),
        ));
    }
    for file in &diff.files {
        rows.push(Line::default());
        rows.extend(wrapped(&file_head(file), width, "", theme.bold()));
        if let Some(why) = file.omitted {
            let text = match &file.note {
                Some(note) => format!("{}: {note}", omitted_text(why)),
                None => omitted_text(why).to_owned(),
            };
            rows.extend(wrapped(&text, width, "  ", theme.dim()));
        }
        for line in &file.lines {
            let (mark, style) = match line.sign {
                DiffSign::Added => ("+", theme.added()),
                DiffSign::Removed => ("-", theme.removed()),
                DiffSign::Context => (" ", theme.dim()),
                DiffSign::Hunk => ("", theme.accent()),
            };
            rows.extend(wrapped(&line.text, width, mark, style));
        }
    }
    if diff.lines_left_out > 0 {
        rows.push(Line::default());
        rows.push(Line::styled(
            format!(
                "  … {} more diff lines not shown (the diff is too long)",
                diff.lines_left_out
            ),
            theme.dim(),
        ));
    }
    rows
}

/// `A  src/new.rs  +12 −0`, the file list's row.
fn summary(file: &DiffFile) -> String {
    let mark = match file.status {
        DiffStatus::Added => "A",
        DiffStatus::Deleted => "D",
        DiffStatus::Modified => "M",
    };
    match file.omitted {
        Some(why) if file.lines.is_empty() && file.added + file.removed == 0 => {
            format!("{mark} {} ({})", file.path, omitted_text(why))
        }
        _ => format!("{mark} {} +{} −{}", file.path, file.added, file.removed),
    }
}

/// A file's heading over its diff, like `diff --git`'s.
fn file_head(file: &DiffFile) -> String {
    let what = match file.status {
        DiffStatus::Added => "added",
        DiffStatus::Deleted => "deleted",
        DiffStatus::Modified => "modified",
    };
    format!(
        "── {} ({what}, +{} −{})",
        file.path, file.added, file.removed
    )
}

fn status_style(file: &DiffFile, theme: Theme) -> Style {
    match file.status {
        DiffStatus::Added => theme.added(),
        DiffStatus::Deleted => theme.removed(),
        DiffStatus::Modified => Style::default(),
    }
}

fn omitted_text(why: DiffOmitted) -> &'static str {
    match why {
        DiffOmitted::Binary => "binary file, not diffed",
        DiffOmitted::NotRestorable => "not kept by the checkpoint, not diffed",
        DiffOmitted::NotAFile => "not a regular file, not diffed",
        DiffOmitted::ModeOnly => "permission bits changed",
        DiffOmitted::TooLong => "left out: the diff is too long",
    }
}

/// `text` shown exactly after `mark`, hard-wrapped at `width` with continuation rows indented
/// under the mark.
fn wrapped(text: &str, width: u16, mark: &str, style: Style) -> Vec<Line<'static>> {
    let shown = exact(text);
    let pad = " ".repeat(mark.chars().count());
    hard_wrap(
        &[Span::styled(shown.as_ref(), style)],
        width,
        &[Span::styled(mark.to_owned(), style)],
        &[Span::raw(pad)],
    )
}
