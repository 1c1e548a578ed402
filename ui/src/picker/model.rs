//! The picker's state: every row, this directory, the filter typed so far and the selection.
//! Keys change it; the screen draws it.

use std::path::PathBuf;

use ansa_sessions::SessionId;
use ansa_sessions::catalog::Listed;
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// What a key did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Keep picking.
    Stay,
    /// Open this session.
    Open(SessionId),
    /// Leave without opening anything.
    Leave,
}

/// The picker over a list of sessions.
#[derive(Debug, Clone)]
pub struct Picker {
    rows: Vec<Listed>,
    cwd: PathBuf,
    all: bool,
    filter: String,
    shown: Vec<usize>,
    selected: usize,
}

impl Picker {
    /// A picker over `rows` (newest first) that starts with the sessions of `cwd`.
    pub fn new(rows: Vec<Listed>, cwd: PathBuf) -> Picker {
        let mut p = Picker {
            rows,
            cwd,
            all: false,
            filter: String::new(),
            shown: Vec::new(),
            selected: 0,
        };
        p.refilter();
        p
    }

    /// The rows that pass the directory and the filter, in order.
    pub fn shown(&self) -> impl ExactSizeIterator<Item = &Listed> {
        self.shown.iter().map(|&i| &self.rows[i])
    }

    /// How many rows pass.
    pub fn shown_len(&self) -> usize {
        self.shown.len()
    }

    /// The index (among the shown rows) of the selected one.
    pub fn selected(&self) -> usize {
        self.selected
    }

    /// Whether every directory's sessions are shown (else only this directory's).
    pub fn all(&self) -> bool {
        self.all
    }

    /// The directory the picker started in.
    pub fn cwd(&self) -> &std::path::Path {
        &self.cwd
    }

    /// The filter typed so far.
    pub fn filter(&self) -> &str {
        &self.filter
    }

    /// Applies one key: type to filter, Backspace, Up/Down/PgUp/PgDn/Home/End to move, Tab
    /// for every directory, Enter to open, Esc or Ctrl+C to leave. `page` is how many rows
    /// one page shows.
    pub fn key(&mut self, key: KeyEvent, page: usize) -> Step {
        if key.kind == KeyEventKind::Release {
            return Step::Stay;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Esc => return Step::Leave,
            KeyCode::Char('c' | 'd') if ctrl => return Step::Leave,
            KeyCode::Enter => {
                return match self.shown.get(self.selected) {
                    Some(&i) => Step::Open(self.rows[i].id.clone()),
                    None => Step::Stay,
                };
            }
            KeyCode::Tab | KeyCode::BackTab => {
                self.all = !self.all;
                self.refilter();
            }
            KeyCode::Up => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down => self.select(self.selected.saturating_add(1)),
            KeyCode::PageUp => self.selected = self.selected.saturating_sub(page.max(1)),
            KeyCode::PageDown => self.select(self.selected.saturating_add(page.max(1))),
            KeyCode::Home => self.selected = 0,
            KeyCode::End => self.select(usize::MAX),
            KeyCode::Backspace if self.filter.pop().is_some() => self.refilter(),
            KeyCode::Char('u') if ctrl => {
                self.filter.clear();
                self.refilter();
            }
            KeyCode::Char(c) if !ctrl && !c.is_control() => {
                self.filter.push(c);
                self.refilter();
            }
            _ => {}
        }
        Step::Stay
    }

    fn select(&mut self, index: usize) {
        self.selected = index.min(self.shown.len().saturating_sub(1));
    }

    fn refilter(&mut self) {
        let words: Vec<String> = self
            .filter
            .split_whitespace()
            .map(str::to_lowercase)
            .collect();
        self.shown = (0..self.rows.len())
            .filter(|&i| {
                let r = &self.rows[i];
                (self.all || r.cwd.as_deref() == Some(self.cwd.as_path()))
                    && words.iter().all(|w| matches(r, w))
            })
            .collect();
        // A session without turns (a TUI opened and left) is rarely the one to go back to:
        // the newest with turns is preselected, the empty ones stay listed and marked.
        self.selected = self
            .shown
            .iter()
            .position(|&i| self.rows[i].turns > 0)
            .unwrap_or(0);
    }
}

/// Whether `word` (lower case) occurs in the row's ID, prompt, model, cwd or damage.
fn matches(r: &Listed, word: &str) -> bool {
    let has = |s: &str| s.to_lowercase().contains(word);
    has(r.id.as_str())
        || r.first_prompt.as_deref().is_some_and(has)
        || r.model.as_deref().is_some_and(has)
        || r.cwd
            .as_ref()
            .is_some_and(|c| has(&c.display().to_string()))
        || r.damage.as_deref().is_some_and(has)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use ansa_sessions::SessionId;
    use ansa_sessions::catalog::{Listed, ListedState};
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    use super::{Picker, Step};

    fn row(id: &str, turns: u64, prompt: Option<&str>) -> Listed {
        Listed {
            id: SessionId::parse(id).expect("id"),
            dir: PathBuf::from("/h/sessions").join(id),
            cwd: Some(PathBuf::from("/w")),
            profile: None,
            last_activity_ms: 0,
            turns,
            state: match turns {
                0 => ListedState::New,
                _ => ListedState::Done,
            },
            model: None,
            first_prompt: prompt.map(str::to_owned),
            bytes: 0,
            damage: None,
        }
    }

    #[test]
    fn the_newest_session_with_turns_is_preselected_not_an_empty_one() {
        let rows = vec![
            row("20261205-050000-000003-aaaaaa", 0, None),
            row("20261205-050000-000002-bbbbbb", 0, None),
            row("20261205-040000-000001-cccccc", 2, Some("fix the parser")),
            row("20261205-030000-000000-dddddd", 5, Some("older work")),
        ];
        let mut p = Picker::new(rows.clone(), PathBuf::from("/w"));
        assert_eq!(p.selected(), 2);
        let enter = KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE);
        assert_eq!(p.key(enter, 10), Step::Open(rows[2].id.clone()));
        // Filtering keeps the rule: `a` leaves the empty aaaaaa and "fix the parser".
        p.key(KeyEvent::new(KeyCode::Char('a'), KeyModifiers::NONE), 10);
        assert_eq!(p.shown_len(), 2);
        assert_eq!(p.selected(), 1);
        // With only empty sessions shown, the first is selected.
        let only_empty = vec![
            row("20261205-050000-000003-aaaaaa", 0, None),
            row("20261205-050000-000002-bbbbbb", 0, None),
        ];
        assert_eq!(Picker::new(only_empty, PathBuf::from("/w")).selected(), 0);
    }
}
