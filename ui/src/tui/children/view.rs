//! Ctrl+O while a `delegate` call's children are shown: the viewer opens on a child's
//! transcript as this TUI saw it (its task, calls, state changes and final answer; the whole
//! transcript is the call's retained `@N`), ←/→ step through the children, and the lines
//! follow the child's events while the viewer stays on it. Nothing is asked of the runtime.

use ansa_sessions::OutputView;
use ansa_sessions::child::ChildId;

use super::super::app::App;
use super::super::blocks::pane_rows;
use super::super::model::OutputPane;
use super::draw::state_word;

impl App {
    /// Opens the viewer on the child that most wants looking at: one waiting for approval,
    /// else the first running one, else the first.
    pub(crate) fn open_child_view(&mut self) {
        let rows = self.children.rows();
        let asking = self
            .approval
            .as_ref()
            .and_then(|a| a.child.as_ref())
            .map(|c| c.id.clone());
        let pick = asking
            .or_else(|| {
                rows.iter()
                    .find(|r| r.state == ansa_sessions::child::ChildState::Running)
                    .map(|r| r.child.clone())
            })
            .or_else(|| rows.first().map(|r| r.child.clone()));
        if let Some(child) = pick {
            self.show_child(child);
        }
    }

    /// The viewer on `child`'s log, scrolled to its end.
    fn show_child(&mut self, child: ChildId) {
        let Some(row) = self.children.row(&child) else {
            return;
        };
        let lines = row.log.clone();
        let rows = pane_rows(self.height);
        self.output = OutputPane {
            open: true,
            tool: self.child_title(&child),
            total: lines.len() as u64,
            lines,
            view: OutputView::Readable,
            want: OutputView::Readable,
            child: Some(child),
            follow: true,
            ..OutputPane::default()
        };
        self.output.top = self.output_rows().saturating_sub(rows);
    }

    fn child_title(&self, child: &ChildId) -> String {
        match self.children.row(child) {
            Some(row) => {
                let (state, _) = state_word(row.state, self.theme);
                format!("child {} ({state}) transcript", row.index)
            }
            None => "child transcript".to_owned(),
        }
    }

    /// ←/→ in the viewer on a child: the previous or next child.
    pub(crate) fn child_step(&mut self, step: isize) {
        let Some((n, of)) = self.child_position() else {
            return;
        };
        let Some(next) = (n - 1).checked_add_signed(step).filter(|i| *i < of) else {
            return;
        };
        let child = self.children.rows()[next].child.clone();
        self.show_child(child);
    }

    /// Which child the viewer shows, as `2 of 3`.
    pub(crate) fn child_position(&self) -> Option<(usize, usize)> {
        let id = self.output.child.as_ref()?;
        let rows = self.children.rows();
        let at = rows.iter().position(|r| r.child == *id)?;
        Some((at + 1, rows.len()))
    }

    /// A child's event or status changed its log or state: a viewer open on it follows.
    pub(crate) fn refresh_child_view(&mut self, child: &ChildId) {
        if !self.output.open || self.output.child.as_ref() != Some(child) {
            return;
        }
        let Some(row) = self.children.row(child) else {
            return;
        };
        self.output.lines = row.log.clone();
        self.output.total = self.output.lines.len() as u64;
        self.output.tool = self.child_title(child);
        if self.output.follow {
            let rows = pane_rows(self.height);
            self.output.top = self.output_rows().saturating_sub(rows);
        }
    }
}
