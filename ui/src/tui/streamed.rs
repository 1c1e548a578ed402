//! A long answer is readable while it streams: once the preview no longer fits the live
//! region, its finished blocks (every top-level Markdown block but the last, which may still
//! grow) move into the dialog, and the live region keeps only the rest. Committed text is
//! never redrawn; the end of the turn commits the rest, or marks it unfinished.
//!
//! Only whole lines are looked at: a provider's chunk often ends inside a line (a table row's
//! opening `|`, a fence's first backtick), and such a fragment can parse as the start of a new
//! block and make the one before it look finished. A table therefore ends at its first whole
//! non-table line (or the end of the answer), never at half a row.

use pulldown_cmark::{Event, Options, Parser, Tag};

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

/// The length of `text`'s finished part: up to the start of the last top-level block of its
/// whole lines (0 when they hold at most one); the unfinished last line counts as part of
/// that block, whatever it parses as alone. A paragraph, heading or table followed by a blank
/// line is finished too: nothing after a blank line can continue one.
pub(crate) fn finished_prefix(text: &str) -> usize {
    let text = &text[..text.rfind('\n').map_or(0, |at| at + 1)];
    let options = Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TABLES;
    let mut depth = 0usize;
    let mut last_start = 0;
    let mut closes_at_blank = false;
    for (event, range) in Parser::new_ext(text, options).into_offset_iter() {
        match event {
            Event::Start(tag) => {
                if depth == 0 {
                    last_start = range.start;
                    closes_at_blank =
                        matches!(tag, Tag::Paragraph | Tag::Heading { .. } | Tag::Table(_));
                }
                depth += 1;
            }
            Event::End(_) => depth = depth.saturating_sub(1),
            // A rule is a whole top-level block in one event.
            Event::Rule if depth == 0 => {
                last_start = range.start;
                closes_at_blank = true;
            }
            _ => {}
        }
    }
    if closes_at_blank && ends_with_blank_line(text) {
        return text.len();
    }
    last_start
}

/// Whether the last whole line of `text` is blank (only spaces and tabs).
fn ends_with_blank_line(text: &str) -> bool {
    let Some(body) = text.strip_suffix('\n') else {
        return false;
    };
    let last = body.rsplit('\n').next().unwrap_or("");
    body.contains('\n') && last.trim().is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_blocks_followed_by_another_are_finished() {
        assert_eq!(finished_prefix("one paragraph"), 0);
        let text = "# Title\n\nFirst para.\n\nSecond, still gro";
        assert_eq!(&text[..finished_prefix(text)], "# Title\n\nFirst para.\n\n");
        // Without the blank line, the next line may still continue the paragraph.
        let text = "# Title\n\nFirst para.\nstill gro";
        assert_eq!(&text[..finished_prefix(text)], "# Title\n\n");
        let text = "# Title\n\nFirst para.\n\nSecond, done.\n";
        assert_eq!(&text[..finished_prefix(text)], "# Title\n\nFirst para.\n\n");
        // An open code fence swallows everything after it: nothing past its start is done.
        let fenced = "Intro.\n\n```\nfn a() {}\n\nfn b() {}\n";
        assert_eq!(&fenced[..finished_prefix(fenced)], "Intro.\n\n");
        // A list is one block until something else starts.
        let list = "- a\n\n- b\n\n- c";
        assert_eq!(finished_prefix(list), 0);
    }

    #[test]
    fn a_table_is_not_finished_by_half_a_row() {
        let table = "Intro.\n\n| key | value |\n|---|---|\n| port | 8080 |\n";
        // A chunk that ends right after the next row's `|` parses as a paragraph after the
        // table; the table is still the block that grows.
        let chunked = format!("{table}|");
        assert_eq!(&chunked[..finished_prefix(&chunked)], "Intro.\n\n");
        let chunked = format!("{table}| time");
        assert_eq!(&chunked[..finished_prefix(&chunked)], "Intro.\n\n");
        // A whole line that is not a row ends it.
        let ended = format!("{table}\nAfter the table.\n");
        assert_eq!(&ended[..finished_prefix(&ended)], format!("{table}\n"));
    }
}
