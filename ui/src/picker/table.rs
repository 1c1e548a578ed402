//! The one sessions table: `ansa sessions`, `/sessions` and the `--resume` picker all format
//! their rows here, so the columns read the same everywhere.

use ansa_sessions::catalog::{Listed, ListedState};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::sanitize::exact;

/// Column headings, in order.
pub const HEADINGS: [&str; 8] = [
    "ID",
    "LAST ACTIVE",
    "CWD",
    "STATE",
    "TURNS",
    "MODEL",
    "SIZE",
    "FIRST PROMPT",
];

/// Widest a column other than the prompt gets.
const CWD_MAX: usize = 32;
const MODEL_MAX: usize = 20;
/// The prompt's width when the table is not fitted to a terminal.
const PROMPT_UNFITTED: usize = 60;
/// The prompt column never gets narrower than this while other columns can give way.
const PROMPT_MIN: usize = 24;
/// The narrowest the cwd and model columns get to make room for the prompt.
const NARROWEST: usize = 6;

/// The table's lines (headings first), each fitted to `width` columns when given (a
/// terminal too narrow for every column leaves out the size, then the model, then the cwd).
/// `now_ms` is the clock the "last active" column counts from (milliseconds since the Unix
/// epoch), so the same rows and clock always give the same bytes.
pub fn table_lines(rows: &[Listed], now_ms: u64, width: Option<usize>) -> Vec<String> {
    let cells: Vec<[String; 8]> = rows.iter().map(|r| cells(r, now_ms)).collect();
    let mut widths = [0usize; 8];
    for (i, h) in HEADINGS.iter().enumerate() {
        widths[i] = h.width();
    }
    for row in &cells {
        for (i, c) in row.iter().enumerate() {
            widths[i] = widths[i].max(c.width());
        }
    }
    widths[2] = widths[2].min(CWD_MAX);
    widths[5] = widths[5].min(MODEL_MAX);
    widths[7] = widths[7].min(PROMPT_UNFITTED);
    let mut shown = [true; 8];
    if let Some(total) = width {
        let fixed = |widths: &[usize; 8], shown: &[bool; 8]| {
            (0..7)
                .filter(|&i| shown[i])
                .map(|i| widths[i] + 2)
                .sum::<usize>()
        };
        // The cwd gives way first (down to its last few characters), then the model; on a
        // narrow terminal the size, the model and the cwd are left out, in that order.
        for column in [2, 5] {
            let room = total.saturating_sub(fixed(&widths, &shown));
            if room < PROMPT_MIN {
                let short = PROMPT_MIN - room;
                widths[column] = widths[column].saturating_sub(short).max(NARROWEST);
            }
        }
        for column in [6, 5, 2] {
            if total.saturating_sub(fixed(&widths, &shown)) < PROMPT_MIN {
                shown[column] = false;
            }
        }
        widths[7] = total.saturating_sub(fixed(&widths, &shown)).max(1);
    }
    let mut out = Vec::with_capacity(cells.len() + 1);
    let heading = HEADINGS.map(str::to_owned);
    for row in std::iter::once(&heading).chain(cells.iter()) {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            if !shown[i] {
                continue;
            }
            if i > 0 {
                line.push_str("  ");
            }
            let text = match i {
                2 => cut_left(cell, widths[i]),
                _ => cut(cell, widths[i]),
            };
            let pad = widths[i].saturating_sub(text.width());
            let last = i == row.len() - 1;
            match i {
                4 | 6 => {
                    line.push_str(&" ".repeat(pad));
                    line.push_str(&text);
                }
                _ => {
                    line.push_str(&text);
                    if !last {
                        line.push_str(&" ".repeat(pad));
                    }
                }
            }
        }
        out.push(match width {
            Some(w) => cut(line.trim_end(), w),
            None => line.trim_end().to_owned(),
        });
    }
    out
}

/// A state as the table says it.
pub fn state_label(state: ListedState) -> &'static str {
    match state {
        ListedState::New => "new",
        ListedState::Done => "done",
        ListedState::Paused => "paused",
        ListedState::Cancelled => "cancelled",
        ListedState::Failed => "failed",
        ListedState::Interrupted => "interrupted",
        ListedState::RunningElsewhere => "running elsewhere",
        ListedState::OpenElsewhere => "open elsewhere",
        ListedState::ReadOnly => "read-only",
    }
}

fn cells(r: &Listed, now_ms: u64) -> [String; 8] {
    // Everything but the ID and the numbers came from files a model or a user wrote.
    let prompt = match (&r.damage, &r.first_prompt) {
        (Some(d), _) => format!("damaged: {d}"),
        (None, Some(p)) => p.clone(),
        (None, None) => String::new(),
    };
    [
        r.id.to_string(),
        ago(now_ms.saturating_sub(r.last_activity_ms)),
        r.cwd
            .as_ref()
            .map_or_else(|| "?".to_owned(), |c| one_line(&c.display().to_string())),
        state_label(r.state).to_owned(),
        r.turns.to_string(),
        r.model.as_deref().map_or_else(String::new, one_line),
        size(r.bytes),
        one_line(&prompt),
    ]
}

/// `text` sanitised ([`exact`]) and kept on one line.
fn one_line(text: &str) -> String {
    exact(text).split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A past duration in the largest unit that fits.
pub fn ago(ms: u64) -> String {
    let s = ms / 1000;
    match s {
        0..60 => "just now".to_owned(),
        60..3600 => format!("{} min ago", s / 60),
        3600..86_400 => format!("{} h ago", s / 3600),
        86_400..172_800 => "1 day ago".to_owned(),
        _ => format!("{} days ago", s / 86_400),
    }
}

/// Bytes in binary units with one decimal.
pub fn size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// `text` cut to `width` columns, ending in `…` when cut.
pub fn cut(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_owned();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        out.push(c);
        used += w;
    }
    if width > 0 {
        out.push('…');
    }
    out
}

/// `text` cut from the left to `width` columns (a path keeps its end), starting with `…`.
fn cut_left(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_owned();
    }
    let mut kept: Vec<char> = Vec::new();
    let mut used = 0;
    for c in text.chars().rev() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        kept.push(c);
        used += w;
    }
    let mut out = String::from("…");
    out.extend(kept.into_iter().rev());
    out
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use ansa_sessions::{Profile, SessionId};
    use unicode_width::UnicodeWidthStr;

    use super::*;

    fn row(prompt: &str) -> Listed {
        Listed {
            id: SessionId::parse("20261205-041138-068646-0cbf06").expect("id"),
            dir: PathBuf::from("/h/sessions/x"),
            cwd: Some(PathBuf::from("/home/dev/a/rather/long/path/to/the/project")),
            profile: Some(Profile::Offline),
            last_activity_ms: 1_000_000 - 7_200_000 / 1000,
            turns: 3,
            state: ListedState::Paused,
            model: Some("gpt-5.1-codex-max-preview-long".into()),
            first_prompt: Some(prompt.into()),
            bytes: 5 * 1024 * 1024 + 300 * 1024,
            damage: None,
        }
    }

    #[test]
    fn rows_are_sanitised_fitted_and_the_same_every_time() {
        let rows = [row(
            "fix \u{1b}[2Kthe\u{202e} parser and then write the tests for it",
        )];
        let a = table_lines(&rows, 1_000_000, Some(80));
        assert_eq!(a, table_lines(&rows, 1_000_000, Some(80)), "deterministic");
        assert_eq!(a.len(), 2);
        for line in &a {
            assert!(line.width() <= 80, "{line:?}");
            assert!(
                !line.contains('\u{1b}') && !line.contains('\u{202e}'),
                "{line:?}"
            );
        }
        assert!(a[1].contains("␛[2Kthe<U+202E>"), "{}", a[1]);
        assert!(a[1].contains("paused"), "{}", a[1]);
        assert!(!a[0].contains("SIZE"), "left out at 80 columns: {}", a[0]);
        assert!(a[1].contains('…'), "the prompt is cut: {}", a[1]);
        let unfitted = table_lines(&rows, 1_000_000, None);
        assert!(
            unfitted[1].contains("…rather/long/path/to/the/project  "),
            "a path keeps its end: {}",
            unfitted[1]
        );
        assert!(unfitted[1].contains("5.3 MiB"), "{}", unfitted[1]);
        let wide = table_lines(&rows, 1_000_000, Some(160));
        assert!(
            wide[0].contains("SIZE") && wide[0].contains("MODEL"),
            "{}",
            wide[0]
        );
    }

    #[test]
    fn damage_takes_the_prompts_place() {
        let mut r = row("never shown");
        r.state = ListedState::ReadOnly;
        r.damage = Some("journal part 000001 line 3 (byte 512): checksum mismatch".into());
        let lines = table_lines(&[r], 0, None);
        assert!(lines[1].contains("read-only"), "{}", lines[1]);
        assert!(
            lines[1].contains("damaged: journal part 000001"),
            "{}",
            lines[1]
        );
    }
}
