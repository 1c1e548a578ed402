//! The history pane: older dialog, read page by page from the journal's transcript with
//! `story` commands (`replay/` keeps each turn's tool rows) and shown in the live region (the scrollback above keeps only what
//! was committed, in order, once). Ctrl+F opens and closes it, PgUp/PgDn scroll it and load
//! the next page when the loaded entries run out. Viewing never calls the provider or tools.

use ansa_sessions::protocol::CommandBody;
use ansa_sessions::{Role, TranscriptEntry, TranscriptPage, TranscriptQuery};

use super::app::App;
use super::blocks::pane_rows;
use super::model::{Action, Entry, Notice, Purpose, Tone};

/// Exchanges shown on open.
const OPEN_EXCHANGES: usize = 3;
/// Entries per transcript page.
pub(crate) const PAGE_ENTRIES: u32 = 8;
/// Most entries kept loaded.
const MAX_LOADED: usize = 64;

impl App {
    fn pane_lines(&self) -> usize {
        self.pane_text(&self.history.entries, self.width).len()
    }

    fn pane_rows(&self) -> usize {
        pane_rows(self.height)
    }

    fn load(&mut self, query: TranscriptQuery, older: bool, out: &mut Vec<Action>) {
        if self.history.loading {
            return;
        }
        if self.ask_story(query, Purpose::Pane(older), out) {
            self.history.loading = true;
        }
    }

    fn load_older(&mut self, out: &mut Vec<Action>) {
        let before = match self.history.begin() {
            Some(begin) => begin,
            None => self.history.anchor.unwrap_or(0),
        };
        if before == 1 || self.history.at_start {
            self.history.at_start = true;
            return;
        }
        let query = TranscriptQuery {
            before,
            limit: PAGE_ENTRIES,
            forward: false,
        };
        self.load(query, true, out);
    }

    /// Ctrl+F: expand or collapse the history.
    pub(crate) fn toggle_history(&mut self, out: &mut Vec<Action>) {
        if self.history.open {
            self.history.open = false;
            return;
        }
        self.history.open = true;
        // Which turns a rewind took back (a reopened session has not asked yet): the answer
        // marks them; it comes before the page, which is asked for next.
        if !self.history.marks_asked
            && let Some(command) = self.command(CommandBody::Checkpoints)
        {
            self.history.marks_asked = true;
            out.push(Action::Send(command));
        }
        if self.history.entries.is_empty() {
            self.load_older(out);
        }
    }

    /// PgUp: open the pane, scroll it up, load an older page at its top.
    pub(crate) fn page_up(&mut self, out: &mut Vec<Action>) {
        if !self.history.open {
            self.toggle_history(out);
            return;
        }
        if self.history.top > 0 {
            self.history.top = self.history.top.saturating_sub(self.pane_rows());
        } else {
            self.load_older(out);
        }
    }

    /// PgDn: scroll the pane down, load a newer page at its bottom.
    pub(crate) fn page_down(&mut self, out: &mut Vec<Action>) {
        if !self.history.open {
            return;
        }
        let rows = self.pane_rows();
        let lines = self.pane_lines();
        if self.history.top + rows < lines {
            self.history.top = (self.history.top + rows).min(lines.saturating_sub(rows));
            return;
        }
        // At the bottom, always ask for newer entries: the total is the one of the last page
        // loaded, and turns that ended since then (the pane opened while a task ran, or tasks
        // queued behind it) are not counted in it. Trusting it left their answers out for good
        // ("end of the history" with only the prompts shown).
        match self.history.end() {
            Some(end) => {
                let query = TranscriptQuery {
                    before: end,
                    limit: PAGE_ENTRIES,
                    forward: true,
                };
                self.load(query, false, out);
            }
            _ => self.say(Tone::Info, "end of the history (Esc or Ctrl+F closes it)"),
        }
    }

    /// A page for the pane arrived.
    pub(crate) fn on_pane_page(&mut self, page: TranscriptPage, older: bool, _: &mut Vec<Action>) {
        self.history.loading = false;
        self.history.total = page.total;
        let rows = self.pane_rows();
        if older {
            let begin = self.history.begin().unwrap_or(u64::MAX);
            let new: Vec<TranscriptEntry> = page
                .entries
                .into_iter()
                .filter(|e| e.index < begin)
                .collect();
            if new.is_empty() {
                self.history.at_start = true;
                return;
            }
            self.history.at_start = new.first().is_some_and(|e| e.index <= 1);
            let first_load = self.history.entries.is_empty();
            let added = self.pane_text(&new, self.width).len();
            let mut entries = new;
            entries.append(&mut self.history.entries);
            entries.truncate(MAX_LOADED);
            self.history.entries = entries;
            self.history.top = if first_load {
                self.pane_lines().saturating_sub(rows)
            } else {
                (self.history.top + added).saturating_sub(rows)
            };
        } else {
            let end = self.history.end().unwrap_or(0);
            let mut new: Vec<TranscriptEntry> = page
                .entries
                .into_iter()
                .filter(|e| e.index >= end)
                .collect();
            if new.is_empty() {
                self.say(Tone::Info, "end of the history (Esc or Ctrl+F closes it)");
                return;
            }
            self.history.entries.append(&mut new);
            let excess = self.history.entries.len().saturating_sub(MAX_LOADED);
            if excess > 0 {
                let dropped: Vec<TranscriptEntry> = self.history.entries.drain(..excess).collect();
                let gone = self.pane_text(&dropped, self.width).len();
                self.history.top = self.history.top.saturating_sub(gone);
                self.history.at_start = false;
            }
            let lines = self.pane_lines();
            self.history.top = (self.history.top + rows).min(lines.saturating_sub(rows));
        }
    }

    /// Commits the last exchanges (and an unfinished request) of the opening page.
    pub(crate) fn show_opening(&mut self, page: TranscriptPage) {
        let unfinished = self
            .paused
            .as_ref()
            .map(|p| p.request)
            .or_else(|| self.task.as_ref().and_then(|t| t.follow.about()));
        let mut groups: Vec<Vec<TranscriptEntry>> = Vec::new();
        for entry in page.entries {
            match groups.last_mut() {
                Some(g) if g[0].request_id == entry.request_id => g.push(entry),
                _ => groups.push(vec![entry]),
            }
        }
        // A group cut at the page's start has no user entry.
        if groups
            .first()
            .is_some_and(|g| g[0].role != Role::User && g.len() < 2)
        {
            groups.remove(0);
        }
        let keep = match groups.last() {
            Some(g) if Some(g[0].request_id) == unfinished => OPEN_EXCHANGES + 1,
            _ => OPEN_EXCHANGES,
        };
        let skip = groups.len().saturating_sub(keep);
        let shown: Vec<TranscriptEntry> = groups.into_iter().skip(skip).flatten().collect();
        self.history.anchor = Some(shown.first().map_or(page.end, |e| e.index));
        for entry in shown {
            if let Some(task) = self.task.as_mut()
                && task.follow.about() == Some(entry.request_id)
                && entry.role == Role::User
            {
                task.text = entry.text.clone();
            }
            let cut = entry.truncated;
            self.commit(match entry.role {
                Role::User => Entry::User(entry.text),
                Role::Assistant => Entry::Answer(entry.text),
            });
            if cut {
                self.commit(Entry::Notice(Notice::new(
                    Tone::Info,
                    "(cut to fit one transcript page)",
                )));
            }
        }
    }
}
