//! A long answer is readable while it streams: once the preview no longer fits the live
//! region, its finished blocks (every top-level Markdown block but the last, which may still
//! grow) move into the dialog, and the live region keeps only the rest. Committed text is
//! never redrawn; the end of the turn commits the rest, or marks it unfinished.

use pulldown_cmark::{Event, Options, Parser};

use super::app::App;
use super::model::Entry;

impl App {
    /// Moves the preview's finished blocks into the dialog when the preview outgrew the rows
    /// it may use.
    pub(crate) fn stream_finished_blocks(&mut self) {
        let budget = usize::from(self.height) / 2;
        let Some(p) = self.preview.as_mut().filter(|p| !p.discarded) else {
            return;
        };
        let rest = &p.text[p.shown..];
        // A rest that is one long block (an open code fence) is looked at again only after it
        // grew by a quarter, so a long stream costs O(n log n) here, not a parse per delta.
        if p.stuck > 0 && rest.len() < p.stuck + p.stuck / 4 {
            return;
        }
        // Source lines are a cheap lower bound of the rendered rows.
        if rest.lines().count() <= budget.max(1) {
            return;
        }
        let cut = finished_prefix(rest);
        if cut == 0 {
            p.stuck = rest.len();
            return;
        }
        let block = rest[..cut].to_owned();
        p.shown += cut;
        p.stuck = 0;
        self.commit(Entry::Answer(block));
    }
}

/// The length of `text`'s finished part: up to the start of its last top-level block (0 when
/// it has at most one).
pub(crate) fn finished_prefix(text: &str) -> usize {
    let options = Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TABLES;
    let mut depth = 0usize;
    let mut last_start = 0;
    for (event, range) in Parser::new_ext(text, options).into_offset_iter() {
        match event {
            Event::Start(_) => {
                if depth == 0 {
                    last_start = range.start;
                }
                depth += 1;
            }
            Event::End(_) => depth = depth.saturating_sub(1),
            // A rule is a whole top-level block in one event.
            Event::Rule if depth == 0 => last_start = range.start,
            _ => {}
        }
    }
    last_start
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_blocks_followed_by_another_are_finished() {
        assert_eq!(finished_prefix("one paragraph"), 0);
        let text = "# Title\n\nFirst para.\n\nSecond, still gro";
        assert_eq!(&text[..finished_prefix(text)], "# Title\n\nFirst para.\n\n");
        // An open code fence swallows everything after it: nothing past its start is done.
        let fenced = "Intro.\n\n```\nfn a() {}\n\nfn b() {}\n";
        assert_eq!(&fenced[..finished_prefix(fenced)], "Intro.\n\n");
        // A list is one block until something else starts.
        let list = "- a\n\n- b\n\n- c";
        assert_eq!(finished_prefix(list), 0);
    }
}
