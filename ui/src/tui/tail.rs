//! The streaming preview shows only its last screenful, so only the tail of the text is
//! rendered each frame: the cost of a frame stays flat however long the answer grows.

use std::borrow::Cow;

use ratatui::text::Line;

use super::Theme;
use super::markdown::render_markdown;

/// Source lines rendered for a preview, at least; far more than any terminal shows.
pub const TAIL_SOURCE_LINES: usize = 400;

/// The end of `text` worth rendering: everything when it is short, else the source from a
/// paragraph boundary about [`TAIL_SOURCE_LINES`] lines before the end, re-opening a fenced
/// code block the cut falls inside, and repeating the header of a table it falls inside (a
/// table streams as one block until it ends), so the tail renders as it would in the whole.
pub fn preview_tail(text: &str) -> Cow<'_, str> {
    let newlines = text.bytes().filter(|&b| b == b'\n').count();
    if newlines <= TAIL_SOURCE_LINES {
        return Cow::Borrowed(text);
    }
    let skip = newlines - TAIL_SOURCE_LINES;
    let mut cut = 0;
    let mut fence: Option<&str> = None;
    // The header and delimiter rows of the table the scan is in.
    let mut table: Option<(usize, usize)> = None;
    let mut previous = 0..0;
    let mut seen = 0;
    for line in text.split_inclusive('\n') {
        if seen >= skip && fence.is_none() && line.trim().is_empty() {
            return Cow::Borrowed(&text[cut + line.len()..]);
        }
        if line.trim().is_empty() {
            table = None;
        } else if fence.is_none() && table.is_none() && is_delimiter_row(line) {
            table = Some((previous.start, cut + line.len()));
        }
        previous = cut..cut + line.len();
        let trimmed = line.trim_start();
        for marker in ["```", "~~~"] {
            if trimmed.starts_with(marker) {
                fence = match fence {
                    Some(open) if open == marker => None,
                    None => Some(marker),
                    other => other,
                };
            }
        }
        cut += line.len();
        seen += 1;
        if seen >= skip + TAIL_SOURCE_LINES / 2 {
            // No paragraph boundary nearby (one huge block): cut here, re-opening a fence.
            return match (fence, table) {
                (Some(marker), _) => Cow::Owned(format!("{marker}\n{}", &text[cut..])),
                (None, Some((start, end))) if end <= cut => {
                    Cow::Owned(format!("{}{}", &text[start..end], &text[cut..]))
                }
                (None, _) => Cow::Borrowed(&text[cut..]),
            };
        }
    }
    Cow::Borrowed(text)
}

/// Rows of the streaming preview the live region shows at a terminal height: about a third
/// of the screen less the rows around it. A terminal that reflows on resize splits every row
/// of the region wider than the new width (each in two when the width halves: the preview,
/// the rule, the footer) and keeps them on screen only while the region, split, still fits
/// above the screen's bottom; whatever does not fit goes into its history as a ghost of a
/// line committed later. Half the screen left no room for the rule, footer and input hint
/// splitting too (tmux put six table rows of a 100×32 region into its history when narrowed
/// to 60 columns).
pub fn preview_rows(height: u16) -> usize {
    (usize::from(height) / 3).saturating_sub(3).max(3)
}

/// Whether `line` is a GitHub table's delimiter row (`|---|:--:|`).
fn is_delimiter_row(line: &str) -> bool {
    let line = line.trim();
    let cells: Vec<&str> = line
        .trim_start_matches('|')
        .trim_end_matches('|')
        .split('|')
        .map(str::trim)
        .collect();
    line.contains('-')
        && cells.iter().all(|c| {
            let c = c.trim_start_matches(':').trim_end_matches(':');
            !c.is_empty() && c.chars().all(|ch| ch == '-')
        })
}

/// The preview's lines: the rendered tail, at most `rows` of them (the last ones).
pub fn render_preview(text: &str, width: u16, theme: Theme, rows: usize) -> Vec<Line<'static>> {
    let mut lines = render_markdown(&preview_tail(text), width, theme);
    if lines.len() > rows {
        lines.drain(..lines.len() - rows);
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_rendered_whole() {
        assert!(matches!(
            preview_tail("a\n\nb\n"),
            Cow::Borrowed("a\n\nb\n")
        ));
    }

    #[test]
    fn long_text_is_cut_at_a_paragraph_boundary_near_the_end() {
        let text: String = (0..5000).map(|n| format!("para {n}\n\n")).collect();
        let tail = preview_tail(&text);
        assert!(tail.len() < text.len() / 10);
        assert!(tail.ends_with("para 4999\n\n"));
        assert!(tail.starts_with("para "), "{:?}", &tail[..20]);
    }

    #[test]
    fn a_cut_inside_a_code_block_reopens_the_fence() {
        let mut text = String::from("intro\n\n```rust\n");
        for n in 0..3000 {
            text.push_str(&format!("let x{n} = {n};\n"));
        }
        let tail = preview_tail(&text);
        assert!(tail.starts_with("```\n"), "{:?}", &tail[..20]);
        let plain = render_preview(&text, 80, Theme { plain: true }, 10);
        assert_eq!(plain.len(), 10);
        let last = plain.last().unwrap().to_string();
        assert!(last.contains("let x2999 = 2999;"), "{last}");
    }

    #[test]
    fn a_cut_inside_a_long_table_repeats_its_header() {
        let mut text = String::from("intro\n\n| key | value |\n|---|--:|\n");
        for n in 0..1000 {
            text.push_str(&format!("| k{n} | {n} |\n"));
        }
        let tail = preview_tail(&text);
        assert!(
            tail.starts_with("| key | value |\n|---|--:|\n| k"),
            "{:?}",
            &tail[..40]
        );
        let plain = render_preview(&text, 40, Theme { plain: true }, 5);
        let last = plain.last().unwrap().to_string();
        assert!(last.starts_with("k999") && last.contains('│'), "{last}");
        assert!(!is_delimiter_row("| a | b |") && is_delimiter_row(" :--|--: "));
    }

    #[test]
    fn the_rendered_tail_matches_the_whole_render_at_the_end() {
        let text: String = (0..2000)
            .map(|n| format!("Paragraph {n} with *emphasis* and `code`.\n\n- item {n}\n\n"))
            .collect();
        let theme = Theme { plain: false };
        let whole = render_markdown(&text, 60, theme);
        let tail = render_preview(&text, 60, theme, 30);
        assert_eq!(&whole[whole.len() - 30..], &tail[..]);
    }
}
