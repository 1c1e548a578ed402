//! The output pane: the full stored output of the latest tool call (what the model was given),
//! paged from the runtime with `tool_output` commands and shown in the live region like the
//! history pane. Ctrl+O opens and closes it, PgUp/PgDn scroll it and load the next page when
//! the loaded lines run out. Viewing never calls a tool or the engine.

use ansa_sessions::protocol::{CommandBody, DiffSign, ToolReport};
use ansa_sessions::{CommandId, ToolOutputPage, ToolOutputQuery};

use super::app::App;
use super::blocks::pane_rows;
use super::model::{Action, OutputPane, Tone};

/// Lines asked for per page.
pub(crate) const OUTPUT_PAGE_LINES: u32 = 200;

impl App {
    /// Ctrl+O: open the pane on the latest tool call's output, or close it.
    pub(crate) fn toggle_output(&mut self, out: &mut Vec<Action>) {
        if self.output.open {
            self.output.open = false;
            return;
        }
        // The latest call: a finished turn's newest output is what the user just saw. Known
        // calls are named, so an edit can show its whole diff.
        match self.recent_calls.len().checked_sub(1) {
            Some(last) => self.show_call(last, out),
            None => {
                self.output = OutputPane {
                    open: true,
                    ..OutputPane::default()
                };
                self.load_output(0, out);
            }
        }
    }

    /// Opens the pane on the latest turn's call `n`: an edit's diff from its report, any other
    /// call's stored output from the runtime.
    fn show_call(&mut self, n: usize, out: &mut Vec<Action>) {
        let Some(call) = self.recent_calls.get(n) else {
            return;
        };
        let call_id = call.call_id.clone();
        if let Some(lines) = call.report.as_ref().and_then(diff_lines) {
            self.output = OutputPane {
                open: true,
                call_id: Some(call_id),
                tool: "edit diff".into(),
                total: lines.len() as u64,
                lines,
                ..OutputPane::default()
            };
            return;
        }
        self.output = OutputPane {
            open: true,
            call_id: Some(call_id),
            ..OutputPane::default()
        };
        self.load_output(0, out);
    }

    fn load_output(&mut self, offset: u64, out: &mut Vec<Action>) {
        if self.output.pending.is_some() {
            return;
        }
        let query = ToolOutputQuery {
            call_id: self.output.call_id.clone(),
            offset,
            limit: OUTPUT_PAGE_LINES,
        };
        if let Some(command) = self.command(CommandBody::ToolOutput(query)) {
            self.output.pending = Some(command.command_id.clone());
            out.push(Action::Send(command));
        }
    }

    /// Left/Right in the pane: the previous or next call of the latest turn.
    pub(crate) fn output_step(&mut self, step: isize, out: &mut Vec<Action>) {
        let calls = &self.recent_calls;
        if calls.is_empty() {
            return;
        }
        let at = self
            .output
            .call_id
            .as_ref()
            .and_then(|id| calls.iter().position(|c| c.call_id == *id))
            .unwrap_or(calls.len() - 1);
        let Some(next) = at.checked_add_signed(step).filter(|n| *n < calls.len()) else {
            return;
        };
        self.show_call(next, out);
    }

    /// Which call of the latest turn the pane shows, as `2 of 5`.
    pub(crate) fn output_position(&self) -> Option<(usize, usize)> {
        let id = self.output.call_id.as_ref()?;
        let at = self.recent_calls.iter().position(|c| c.call_id == *id)?;
        Some((at + 1, self.recent_calls.len()))
    }

    /// PgUp in the pane.
    pub(crate) fn output_page_up(&mut self) {
        self.output.top = self.output.top.saturating_sub(pane_rows(self.height));
    }

    /// PgDn in the pane: scroll, and load more once the loaded lines run out.
    pub(crate) fn output_page_down(&mut self, out: &mut Vec<Action>) {
        let rows = pane_rows(self.height);
        let loaded = self.output.lines.len();
        if self.output.top + rows < loaded {
            self.output.top = (self.output.top + rows).min(loaded.saturating_sub(rows));
        }
        if self.output.top + rows >= loaded {
            if (loaded as u64) < self.output.total {
                self.load_output(loaded as u64, out);
            } else {
                self.say(Tone::Info, "end of the output (Esc or Ctrl+O closes it)");
            }
        }
    }

    /// A page for the pane arrived.
    pub(crate) fn on_output_page(&mut self, page: ToolOutputPage) {
        let pane = &mut self.output;
        if !pane.open || pane.pending.is_none() {
            return;
        }
        pane.pending = None;
        // Pages come in order from the first line; anything else belongs to an older view.
        if page.offset != pane.lines.len() as u64 {
            return;
        }
        pane.call_id = Some(page.call_id);
        pane.tool = page.tool;
        pane.total = page.total;
        pane.truncated |= page.truncated;
        pane.lines.extend(page.lines);
    }

    /// The pane's command failed (no output yet, or the journal could not be read).
    pub(crate) fn on_output_error(&mut self, id: &CommandId, message: &str) -> bool {
        if self.output.pending.as_ref() != Some(id) {
            return false;
        }
        self.output = OutputPane::default();
        self.say(Tone::Info, message.to_owned());
        true
    }
}

/// An edit's whole diff as pane lines (file headers, then `+`/`−` lines); `None` for a report
/// without one.
fn diff_lines(report: &ToolReport) -> Option<Vec<String>> {
    if report.diffs.is_empty() {
        return None;
    }
    let mut lines = Vec::new();
    for diff in &report.diffs {
        lines.push(format!("{} (+{} −{})", diff.path, diff.added, diff.removed));
        for line in &diff.lines {
            let mark = match line.sign {
                DiffSign::Added => "+ ",
                DiffSign::Removed => "− ",
                DiffSign::Context => "  ",
                DiffSign::Hunk => "@@ ",
            };
            lines.push(format!("{mark}{}", line.text));
        }
    }
    let kept: u64 = report.diffs.iter().map(|d| d.lines.len() as u64).sum();
    let total: u64 = report.diffs.iter().map(|d| d.added + d.removed).sum();
    if total > kept {
        lines.push(format!(
            "… {} more changed lines (the report keeps the first {kept})",
            total - kept
        ));
    }
    Some(lines)
}
