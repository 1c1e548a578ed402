//! The rewind list: the session's prompts, newest first, two rows each — the time, the
//! prompt's first line and a note (how many files its turn changed, whether its code can be
//! restored, whether it was rewound), then the changed paths. The selection stays in view.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::super::app::App;
use super::super::blocks::{INDENT, UNDER, one_line, truncate};
use super::super::wrap::display_width;
use super::model::PromptItem;
use super::{Body, Rewind, Wait, frame, key_line};
use crate::sanitize::exact;

/// Rows each prompt takes.
const ITEM_ROWS: usize = 2;

/// Prompts PgUp/PgDn move by at a terminal height (about a screen of them).
pub(super) fn page_items(height: u16) -> usize {
    (usize::from(height).saturating_sub(8) / ITEM_ROWS).max(1)
}

/// The list screen in at most `room` rows.
pub(super) fn lines(app: &App, rewind: &Rewind, width: u16, room: usize) -> Vec<Line<'static>> {
    let theme = app.theme;
    let mut body = Vec::new();
    if rewind.waits_for(Wait::List) {
        body.push(Line::styled(
            format!("{INDENT}loading the session's prompts…"),
            theme.dim(),
        ));
    } else if rewind.items.is_empty() && rewind.problem.is_none() {
        body.push(Line::styled(
            format!("{INDENT}no prompts in this session yet"),
            theme.dim(),
        ));
    }
    let first = body.len();
    // The times in one column: as wide as the widest.
    let time_width = rewind
        .items
        .iter()
        .map(|i| display_width(&one_line(&i.time)))
        .max()
        .unwrap_or(0);
    for (i, item) in rewind.items.iter().enumerate() {
        body.extend(item_lines(
            app,
            item,
            i == rewind.selected,
            time_width,
            width,
        ));
    }
    let keep = (!rewind.items.is_empty()).then(|| {
        let start = first + rewind.selected * ITEM_ROWS;
        (start, start + ITEM_ROWS)
    });
    let title = match rewind.items.len() {
        0 => "rewind · the session's prompts".to_owned(),
        n => format!(
            "rewind · prompt {} of {n} · newest first",
            rewind.selected + 1
        ),
    };
    let keys = key_line(
        app,
        width,
        &[("Enter", "choose"), ("↑/↓ j/k", "move"), ("Esc", "leave")],
    );
    let body = Body {
        rows: &body,
        top: rewind.list_top.get(),
        keep,
    };
    let (lines, top, _) = frame(app, width, room, &title, body, keys);
    rewind.list_top.set(top);
    lines
}

/// One prompt's two rows.
fn item_lines(
    app: &App,
    item: &PromptItem,
    selected: bool,
    time_width: usize,
    width: u16,
) -> Vec<Line<'static>> {
    let theme = app.theme;
    let width = usize::from(width);
    let (mark, text_style) = match (selected, item.rewound) {
        (true, _) => ("› ", theme.accent().patch(theme.bold())),
        (false, true) => ("  ", theme.dim()),
        (false, false) => ("  ", Style::default()),
    };
    let mut notes = Vec::new();
    let changed = item.files.len() as u64 + item.more_files;
    notes.push(match changed {
        0 => "no file changes".to_owned(),
        1 => "1 file".to_owned(),
        n => format!("{n} files"),
    });
    if !item.restorable {
        notes.push("code not restorable".to_owned());
    }
    if item.rewound {
        notes.push("↺ rewound".to_owned());
    }
    let note = format!("  {}", notes.join(" · "));
    let time = one_line(&item.time);
    let pad = time_width.saturating_sub(display_width(&time));
    let time = format!("{}{time}", " ".repeat(pad));
    let lead = display_width(mark) + display_width(&time) + 2;
    let room = width.saturating_sub(lead + display_width(&note)).max(8);
    let prompt = match item.undo {
        Some(_) => format!(
            "↶ undo the rewind to turn {}: {}",
            item.turn,
            one_line(&item.prompt)
        ),
        None => one_line(&item.prompt),
    };
    let prompt = truncate(&prompt, room);
    let note_style = if item.restorable {
        theme.dim()
    } else {
        theme.warn()
    };
    let head = Line::from(vec![
        Span::styled(mark, theme.accent()),
        Span::styled(time, theme.dim()),
        Span::raw("  "),
        Span::styled(prompt, text_style),
        Span::styled(note, note_style),
    ]);
    let files = files_text(item, width.saturating_sub(UNDER.len()));
    let under = Line::from(vec![Span::raw(UNDER), Span::styled(files, theme.dim())]);
    vec![truncate_line(head, width), under]
}

/// The changed paths (exact form: a control character in a name shows) joined by `, `, as
/// many as fit in `room` columns, then how many more there are.
fn files_text(item: &PromptItem, room: usize) -> String {
    if item.files.is_empty() && item.more_files == 0 {
        return String::new();
    }
    let total = item.files.len() as u64 + item.more_files;
    let mut out = String::new();
    let mut shown = 0u64;
    for path in &item.files {
        let path = exact(path);
        let sep = if out.is_empty() { "" } else { ", " };
        let left = total - shown - 1;
        let tail = if left > 0 {
            format!(", … {left} more")
        } else {
            String::new()
        };
        if display_width(&out) + sep.len() + display_width(&path) + display_width(&tail) > room {
            break;
        }
        out.push_str(sep);
        out.push_str(&path);
        shown += 1;
    }
    if shown == 0 {
        // Not even one whole path fits: the first one, cut.
        let first = item.files.first().map(|p| exact(p).into_owned());
        let more = total.saturating_sub(1);
        let tail = if more > 0 {
            format!(" … {more} more")
        } else {
            String::new()
        };
        let cut = truncate(
            &first.unwrap_or_default(),
            room.saturating_sub(display_width(&tail)),
        );
        return format!("{cut}{tail}");
    }
    if shown < total {
        out.push_str(&format!(", … {} more", total - shown));
    }
    out
}

/// A line cut to `width` columns (its spans kept as far as they fit).
fn truncate_line(line: Line<'static>, width: usize) -> Line<'static> {
    let mut used = 0;
    let mut spans = Vec::new();
    for span in line.spans {
        let w = display_width(&span.content);
        if used + w <= width {
            used += w;
            spans.push(span);
            continue;
        }
        let left = width.saturating_sub(used);
        if left > 0 {
            spans.push(Span::styled(truncate(&span.content, left), span.style));
        }
        break;
    }
    Line::from(spans)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ansa_sessions::RequestId;

    fn item(files: &[&str], more: u64) -> PromptItem {
        PromptItem {
            request: RequestId(1),
            turn: 1,
            time: "14:03".into(),
            prompt: "p".into(),
            files: files.iter().map(|s| (*s).to_owned()).collect(),
            more_files: more,
            restorable: true,
            rewound: false,
            undo: None,
        }
    }

    #[test]
    fn the_files_fit_the_room_and_say_how_many_more() {
        let it = item(&["src/a.rs", "src/b.rs", "src/longer_name.rs"], 0);
        assert_eq!(
            files_text(&it, 80),
            "src/a.rs, src/b.rs, src/longer_name.rs"
        );
        assert_eq!(files_text(&it, 30), "src/a.rs, src/b.rs, … 1 more");
        assert_eq!(files_text(&it, 27), "src/a.rs, … 2 more");
        assert_eq!(files_text(&item(&["a"], 41), 80), "a, … 41 more");
        let long = "d/".repeat(40);
        let text = files_text(&item(&[&long, "b"], 0), 20);
        assert!(display_width(&text) <= 20, "{text}");
        assert!(text.ends_with("… 1 more"), "{text}");
        assert_eq!(files_text(&item(&[], 0), 20), "");
    }

    #[test]
    fn a_hostile_path_shows_its_escape_visibly() {
        let it = item(&["evil\u{1b}[2J\u{202e}txt.rs"], 0);
        assert_eq!(files_text(&it, 80), "evil␛[2J<U+202E>txt.rs");
    }
}
