//! `/sessions` in the TUI: the sessions table a page at a time, printed into the dialog; each
//! `/sessions` shows the next page and starts over after the last.

use ansa_sessions::SessionStore;
use ansa_sessions::catalog;

use super::table::table_lines;

/// Rows per `/sessions` page.
pub const PAGE: usize = 20;

/// Where `/sessions` is in the list of the home's sessions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionsPager {
    store: SessionStore,
    next: usize,
}

impl SessionsPager {
    /// A pager over the sessions of the ansa home at `root`.
    pub fn new(root: impl Into<std::path::PathBuf>) -> Self {
        SessionsPager {
            store: SessionStore::at(root),
            next: 0,
        }
    }

    /// The next page as lines fitted to `width` columns (headings first, then a line that
    /// says where the page is), read afresh from the catalog; `Err` says why it could not be.
    pub fn next_page(&mut self, now_ms: u64, width: usize) -> Result<Vec<String>, String> {
        let rows = catalog::list(&self.store).map_err(|e| e.to_string())?;
        if rows.is_empty() {
            self.next = 0;
            return Ok(vec!["no sessions yet".to_owned()]);
        }
        let start = if self.next >= rows.len() {
            0
        } else {
            self.next
        };
        let end = (start + PAGE).min(rows.len());
        let mut lines = table_lines(&rows[start..end], now_ms, Some(width));
        let more = match end < rows.len() {
            true => format!(
                " · /sessions again for the next {}",
                PAGE.min(rows.len() - end)
            ),
            false => String::new(),
        };
        lines.push(format!(
            "sessions {}–{end} of {}{more} · ansa --resume ID opens one",
            start + 1,
            rows.len()
        ));
        self.next = if end < rows.len() { end } else { 0 };
        Ok(lines)
    }
}
