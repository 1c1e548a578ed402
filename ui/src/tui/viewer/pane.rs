//! The viewer's state changes: Ctrl+O opens it on the latest tool call (←/→ step through the
//! latest turn's calls), an edit shows its diff from its report, every other call's text is
//! paged from the runtime with `tool_output` commands (the readable view, or the model's with
//! Tab), PgUp/PgDn scroll by screen rows and load the next page when the loaded lines run
//! out, and a running command is asked for again while the viewer is open so its output
//! follows. Viewing never calls a tool or the engine.

use std::time::Duration;

use ansa_sessions::protocol::{CommandBody, DiffSign, ToolReport};
use ansa_sessions::{CommandId, OutputView, ToolOutputPage, ToolOutputQuery};

use super::super::app::App;
use super::super::blocks::pane_rows;
use super::super::model::{Action, OutputPane, Tone};

/// Lines asked for per page.
pub(crate) const OUTPUT_PAGE_LINES: u32 = 200;
/// How often a running command's output is asked for again while the viewer shows it.
const FOLLOW_EVERY: Duration = Duration::from_millis(300);

impl App {
    /// Ctrl+O: open the viewer on the latest tool call, or close it.
    pub(crate) fn toggle_output(&mut self, out: &mut Vec<Action>) {
        if self.output.open {
            self.output.open = false;
            return;
        }
        // While a `delegate` call runs its children are what is happening: a child's
        // transcript (←/→ the others).
        if !self.children.is_empty() {
            self.open_child_view();
            return;
        }
        // The latest call: a finished turn's newest output is what the user just saw. Known
        // calls are named, so an edit can show its whole diff.
        match self.recent_calls.len().checked_sub(1) {
            Some(last) => self.show_call(last, OutputView::Readable, out),
            None => {
                self.output = OutputPane {
                    open: true,
                    want: OutputView::Readable,
                    ..OutputPane::default()
                };
                self.load_output(0, out);
            }
        }
    }

    /// Opens the viewer on the latest turn's call `n` in `view`: an edit's diff from its
    /// report when readable, any other call's text from the runtime.
    fn show_call(&mut self, n: usize, view: OutputView, out: &mut Vec<Action>) {
        let Some(call) = self.recent_calls.get(n) else {
            return;
        };
        let call_id = call.call_id.clone();
        if view == OutputView::Readable
            && let Some(lines) = call.report.as_ref().and_then(diff_lines)
        {
            self.output = OutputPane {
                open: true,
                call_id: Some(call_id),
                tool: "edit diff".into(),
                total: lines.len() as u64,
                lines,
                view,
                want: view,
                ..OutputPane::default()
            };
            return;
        }
        self.output = OutputPane {
            open: true,
            call_id: Some(call_id),
            want: view,
            ..OutputPane::default()
        };
        self.load_output(0, out);
    }

    fn load_output(&mut self, offset: u64, out: &mut Vec<Action>) {
        self.load_lines(offset, OUTPUT_PAGE_LINES, out);
    }

    fn load_lines(&mut self, offset: u64, limit: u32, out: &mut Vec<Action>) {
        if self.output.pending.is_some() {
            return;
        }
        let query = ToolOutputQuery {
            call_id: self.output.call_id.clone(),
            offset,
            limit,
            view: self.output.want,
        };
        if let Some(command) = self.command(CommandBody::ToolOutput(query)) {
            self.output.pending = Some(command.command_id.clone());
            self.output.asked = Some(self.now);
            out.push(Action::Send(command));
        }
    }

    /// Left/Right in the viewer: the previous or next call of the latest turn.
    pub(crate) fn output_step(&mut self, step: isize, out: &mut Vec<Action>) {
        if self.output.child.is_some() {
            self.child_step(step);
            return;
        }
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
        let view = self.output.want;
        self.show_call(next, view, out);
    }

    /// Tab in the viewer: the readable text or what the model was given (ASON).
    pub(crate) fn output_toggle_view(&mut self, out: &mut Vec<Action>) {
        if self.output.child.is_some() {
            self.say(
                Tone::Info,
                "a child's transcript has one view; ←/→ other children",
            );
            return;
        }
        let view = match self.output.want {
            OutputView::Readable => OutputView::Model,
            OutputView::Model => OutputView::Readable,
        };
        match self
            .output
            .call_id
            .as_ref()
            .and_then(|id| self.recent_calls.iter().position(|c| c.call_id == *id))
        {
            Some(n) => self.show_call(n, view, out),
            None => {
                let call_id = self.output.call_id.clone();
                self.output = OutputPane {
                    open: true,
                    call_id,
                    want: view,
                    ..OutputPane::default()
                };
                self.load_output(0, out);
            }
        }
    }

    /// Which call of the latest turn the viewer shows, as `2 of 5`.
    pub(crate) fn output_position(&self) -> Option<(usize, usize)> {
        let id = self.output.call_id.as_ref()?;
        let at = self.recent_calls.iter().position(|c| c.call_id == *id)?;
        Some((at + 1, self.recent_calls.len()))
    }

    /// Screen rows of the loaded text at the current width.
    pub(crate) fn output_rows(&self) -> usize {
        super::draw::text_rows(self, self.width).len()
    }

    /// PgUp in the viewer: scroll, and load the lines before the loaded ones at their top
    /// (after End jumped to the last page).
    pub(crate) fn output_page_up(&mut self, out: &mut Vec<Action>) {
        self.output.follow = false;
        if self.output.top == 0 && self.output.first > 0 && !self.output.running {
            let from = self
                .output
                .first
                .saturating_sub(u64::from(OUTPUT_PAGE_LINES));
            let limit = u32::try_from(self.output.first - from).unwrap_or(OUTPUT_PAGE_LINES);
            self.load_lines(from, limit, out);
            return;
        }
        self.output.top = self.output.top.saturating_sub(pane_rows(self.height));
    }

    /// Home in the viewer: the first page.
    pub(crate) fn output_home(&mut self, out: &mut Vec<Action>) {
        self.output.follow = false;
        self.output.top = 0;
        if self.output.first > 0 && !self.output.running && self.output.pending.is_none() {
            self.output.lines.clear();
            self.output.first = 0;
            self.load_output(0, out);
        }
    }

    /// End in the viewer: the last page, loading it when it is not loaded; a running
    /// command's end is followed again.
    pub(crate) fn output_end(&mut self, out: &mut Vec<Action>) {
        let rows = pane_rows(self.height);
        let end = self.output.first + self.output.lines.len() as u64;
        self.output.follow = true;
        if self.output.running || end >= self.output.total {
            self.output.top = self.output_rows().saturating_sub(rows);
        } else if self.output.pending.is_none() {
            self.output.lines.clear();
            self.output.first = self
                .output
                .total
                .saturating_sub(u64::from(OUTPUT_PAGE_LINES));
            self.output.top = 0;
            let from = self.output.first;
            self.load_output(from, out);
        }
    }

    /// PgDn in the viewer: scroll, and load more once the loaded lines run out.
    pub(crate) fn output_page_down(&mut self, out: &mut Vec<Action>) {
        let rows = pane_rows(self.height);
        let loaded = self.output_rows();
        if self.output.top + rows < loaded {
            self.output.top = (self.output.top + rows).min(loaded.saturating_sub(rows));
        }
        if self.output.top + rows >= loaded {
            let end = self.output.first + self.output.lines.len() as u64;
            if self.output.running || self.output.child.is_some() {
                // At the end of what a running command or a child did so far: follow it.
                self.output.follow = true;
            } else if end < self.output.total {
                self.load_output(end, out);
            } else {
                self.say(Tone::Info, "end of the output (Esc or Ctrl+O closes it)");
            }
        }
    }

    /// The run loop's tick (about ten a second while busy): what the state asks for by time.
    pub(crate) fn on_tick(&mut self) -> Vec<Action> {
        let mut out = Vec::new();
        self.output_tick(&mut out);
        out
    }

    /// A viewer on a running command asks for its output again.
    fn output_tick(&mut self, out: &mut Vec<Action>) {
        let o = &self.output;
        let due = o
            .asked
            .is_none_or(|at| self.now.saturating_duration_since(at) >= FOLLOW_EVERY);
        if o.open && o.running && o.pending.is_none() && due {
            // The end of the output so far: what a running command last printed.
            let from = o.total.saturating_sub(u64::from(OUTPUT_PAGE_LINES));
            self.load_output(if o.follow { from } else { o.first }, out);
        }
    }

    /// A page for the viewer arrived.
    pub(crate) fn on_output_page(&mut self, page: ToolOutputPage) {
        let rows = pane_rows(self.height);
        let pane = &mut self.output;
        if !pane.open || pane.pending.is_none() {
            return;
        }
        pane.pending = None;
        if page.running && !pane.running && pane.lines.is_empty() {
            // Opened on a running command: show what it printed last, and keep up with it.
            pane.follow = true;
        }
        let refresh = pane.running || page.running;
        pane.running = page.running;
        if refresh {
            // A running command's text is replaced whole: its kept end moves as it prints.
            pane.lines = page.lines;
            pane.first = page.offset;
        } else if !pane.lines.is_empty()
            && page.offset < pane.first
            && page.offset + page.lines.len() as u64 == pane.first
        {
            // The lines before the loaded ones (PgUp at the top after End jumped): the page
            // above what was shown comes into view.
            let old_rows = self.output_rows();
            let pane = &mut self.output;
            let mut lines = page.lines;
            lines.append(&mut pane.lines);
            pane.lines = lines;
            pane.first = page.offset;
            pane.asked = Some(self.now);
            let added = self.output_rows().saturating_sub(old_rows);
            self.output.top = added.saturating_sub(rows);
            return;
        } else {
            // Pages come in order; anything else belongs to an older view.
            if page.offset != pane.first + pane.lines.len() as u64 {
                return;
            }
            if pane.lines.is_empty() {
                pane.first = page.offset;
            }
            pane.lines.extend(page.lines);
        }
        // An MCP call is titled as its row reads (`mcp SERVER TOOL`), not by the name the
        // model was offered (`mcp__SERVER__TOOL`).
        let tool = match self.recent_calls.iter().find(|c| c.call_id == page.call_id) {
            Some(call) if call.label.starts_with("mcp ") => call.label.clone(),
            _ => page.tool,
        };
        let pane = &mut self.output;
        pane.call_id = Some(page.call_id);
        pane.tool = tool;
        pane.total = page.total;
        pane.view = page.view;
        pane.truncated |= page.truncated;
        pane.asked = Some(self.now);
        if self.output.follow || refresh {
            let loaded = self.output_rows();
            if self.output.follow {
                self.output.top = loaded.saturating_sub(rows);
            } else {
                self.output.top = self.output.top.min(loaded.saturating_sub(1));
            }
        }
    }

    /// The viewer's command failed (no output yet, or the journal could not be read).
    pub(crate) fn on_output_error(&mut self, id: &CommandId, message: &str) -> bool {
        if self.output.pending.as_ref() != Some(id) {
            return false;
        }
        self.output = OutputPane::default();
        self.say(Tone::Info, message.to_owned());
        true
    }
}

/// An edit's whole diff as viewer lines (file headers, then `+`/`−` lines); `None` for a
/// report without one.
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
