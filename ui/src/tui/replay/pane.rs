//! The history pane's text with each turn's steps: the commentary and tool rows of a turn
//! (from the `story` pages the pane loads) go between its prompt and its answer, drawn by the
//! same path as the expanded exchanges of the opening and the live dialog.

use ansa_sessions::protocol::TurnStory;
use ansa_sessions::{Role, TranscriptEntry};
use ratatui::text::Line;

use super::super::app::App;
use super::super::blocks::history_lines;
use super::super::model::{Entry, Notice, Tone};
use super::super::view::entry_lines;
use super::step_entry;

impl App {
    /// The pane's lines for `entries` (loaded, contiguous, oldest first), turn by turn: the
    /// prompt, the turn's steps when the pane holds its story, then the answer.
    pub(crate) fn pane_text(&self, entries: &[TranscriptEntry], width: u16) -> Vec<Line<'static>> {
        let (theme, rewound) = (self.theme, &self.history.rewound);
        let mut lines = Vec::new();
        // Each turn once, its prompt, steps and answer together: a task queued behind a
        // running one is journaled (and so in the transcript) before the running one's
        // answer, and grouping only neighbours drew every such turn's tool rows twice (once
        // after its prompt, once before its answer) and the answers apart from their prompts.
        let mut turns: Vec<Vec<TranscriptEntry>> = Vec::new();
        for entry in entries {
            match turns
                .iter_mut()
                .find(|t| t[0].request_id == entry.request_id)
            {
                Some(turn) => turn.push(entry.clone()),
                None => turns.push(vec![entry.clone()]),
            }
        }
        for turn in &turns {
            let split = turn
                .iter()
                .position(|e| e.role == Role::Assistant)
                .unwrap_or(turn.len());
            let (prompts, answers) = turn.split_at(split);
            lines.extend(history_lines(prompts, rewound, width, theme));
            if let Some(story) = self.history.stories.get(&turn[0].request_id) {
                let taken_back = story.rewound
                    || rewound.contains(&story.request_id)
                    || turn.iter().any(|e| e.rewound);
                let mut steps = self.step_lines(story, width);
                if taken_back {
                    for span in steps.iter_mut().flat_map(|l| l.spans.iter_mut()) {
                        span.style = span.style.patch(theme.dim());
                    }
                }
                lines.extend(steps);
            }
            lines.extend(history_lines(answers, rewound, width, theme));
        }
        lines
    }

    /// A turn's steps as the dialog draws them.
    fn step_lines(&self, story: &TurnStory, width: u16) -> Vec<Line<'static>> {
        let mut entries: Vec<Entry> = story
            .steps
            .iter()
            .map(|step| step_entry(step, self.now))
            .collect();
        if story.omitted > 0 {
            entries.push(Entry::Notice(Notice::new(
                Tone::Info,
                format!("… {} more steps of this turn are not shown", story.omitted),
            )));
        }
        entries
            .iter()
            .flat_map(|entry| entry_lines(self, entry, width))
            .collect()
    }
}
