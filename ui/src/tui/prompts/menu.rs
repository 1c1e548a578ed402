//! Prompt files in the TUI: loading them at start (skipped files noted once), their rows in
//! the `/` list under the built-in commands, and Tab completing a prompt's name.

use ratatui::text::{Line, Span};

use super::{PromptDirs, Prompts};
use crate::tui::app::{App, Entry, Notice, Tone};
use crate::tui::blocks::{INDENT, truncate};
use crate::tui::keys::{self, Intent, SLASH_COMMANDS};

impl App {
    /// Reads the prompt files; what was skipped, and why, joins the dialog once.
    pub(crate) fn set_prompts(&mut self, dirs: &PromptDirs) {
        let mut builtin: Vec<&str> = SLASH_COMMANDS.iter().map(|(n, _)| &n[1..]).collect();
        builtin.push("quit");
        self.prompts = Prompts::load(dirs, &builtin);
        for note in self.prompts.notes.clone() {
            self.commit(Entry::Notice(Notice::new(Tone::Warn, note)));
        }
    }

    /// Tab on a partly typed `/word` that only one prompt (and no built-in) can be: its name.
    pub(crate) fn prompt_key(&mut self, intent: Intent) -> bool {
        if intent != Intent::ToggleMode || keys::slash_completion(self.input.text()).is_some() {
            return false;
        }
        let matches = self.prompts.matching(self.input.text());
        let [only] = matches.as_slice() else {
            return false;
        };
        if !keys::slash_matches(self.input.text()).is_empty() {
            return false;
        }
        let done = format!("/{} ", only.name);
        self.input.set(&done);
        true
    }
}

/// The prompts the input's `/word` may be: name and first line.
pub(crate) fn menu_rows(app: &App) -> Vec<(String, String)> {
    app.prompts
        .matching(app.input.text())
        .into_iter()
        .map(|p| (format!("/{}", p.name), p.summary.clone()))
        .collect()
}

/// The list rows of `rows`, like the built-in commands' but marked as prompt files.
pub(crate) fn menu_lines(app: &App, rows: &[(String, String)], width: u16) -> Vec<Line<'static>> {
    let theme = app.theme;
    let name_width = rows
        .iter()
        .map(|(n, _)| n.len())
        .max()
        .unwrap_or(0)
        .clamp(10, 24);
    rows.iter()
        .map(|(name, summary)| {
            let room = usize::from(width)
                .saturating_sub(INDENT.len() + name_width + 1)
                .max(1);
            Line::from(vec![
                Span::raw(INDENT),
                Span::styled(
                    format!("{:<name_width$} ", truncate(name, name_width)),
                    theme.accent(),
                ),
                Span::styled(truncate(&format!("prompt · {summary}"), room), theme.dim()),
            ])
        })
        .collect()
}
