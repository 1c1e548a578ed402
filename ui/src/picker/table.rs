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

/// What the prompt column says of a session without turns.
pub const EMPTY_MARK: &str = "(empty: no turns)";

/// The headings of the compact table (narrow terminals).
const COMPACT_HEADINGS: [&str; 8] = [
    "ID",
    "ACTIVE",
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
/// terminal too narrow for every column leaves out the size, then the model, then the cwd;
/// narrower still, the table turns compact — one space between columns, `ACTIVE` as `2h`,
/// short state words — so the ID, last activity, state, turns and a cut prompt still fit at
/// 60 columns). `now_ms` is the clock the "last active" column counts from (milliseconds
/// since the Unix epoch), so the same rows and clock always give the same bytes.
pub fn table_lines(rows: &[Listed], now_ms: u64, width: Option<usize>) -> Vec<String> {
    match layout(rows, now_ms, width, false) {
        Ok(lines) => lines,
        Err(Narrow(_)) => match layout(rows, now_ms, width, true) {
            Ok(lines) | Err(Narrow(lines)) => lines,
        },
    }
}

/// The prompt got fewer than [`PROMPT_MIN`] columns: the lines as laid out anyway.
struct Narrow(Vec<String>);

/// Lays the table out, `compact` or not; `Err` when the prompt could not get its minimum.
fn layout(
    rows: &[Listed],
    now_ms: u64,
    width: Option<usize>,
    compact: bool,
) -> Result<Vec<String>, Narrow> {
    let sep = if compact { 1 } else { 2 };
    let cells: Vec<[String; 8]> = rows.iter().map(|r| cells(r, now_ms, compact)).collect();
    let heading = match compact {
        false => HEADINGS.map(str::to_owned),
        true => COMPACT_HEADINGS.map(str::to_owned),
    };
    let mut widths = [0usize; 8];
    for row in std::iter::once(&heading).chain(&cells) {
        for (i, c) in row.iter().enumerate() {
            widths[i] = widths[i].max(c.width());
        }
    }
    widths[2] = widths[2].min(CWD_MAX);
    widths[5] = widths[5].min(MODEL_MAX);
    widths[7] = widths[7].min(PROMPT_UNFITTED);
    let mut shown = [true; 8];
    let mut narrow = false;
    if let Some(total) = width {
        let fixed = |widths: &[usize; 8], shown: &[bool; 8]| {
            (0..7)
                .filter(|&i| shown[i])
                .map(|i| widths[i] + sep)
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
        let room = total.saturating_sub(fixed(&widths, &shown));
        narrow = room < PROMPT_MIN;
        widths[7] = room.max(1);
    }
    let mut out = Vec::with_capacity(cells.len() + 1);
    for row in std::iter::once(&heading).chain(cells.iter()) {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            if !shown[i] {
                continue;
            }
            if i > 0 {
                line.push_str(&" ".repeat(sep));
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
    match narrow {
        true => Err(Narrow(out)),
        false => Ok(out),
    }
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

/// A state in at most nine columns, for the compact table.
fn short_state_label(state: ListedState) -> &'static str {
    match state {
        ListedState::RunningElsewhere => "running",
        ListedState::OpenElsewhere => "open",
        ListedState::Interrupted => "stopped",
        other => state_label(other),
    }
}

fn cells(r: &Listed, now_ms: u64, compact: bool) -> [String; 8] {
    // Everything but the ID and the numbers came from files a model or a user wrote.
    let prompt = match (&r.damage, &r.first_prompt) {
        (Some(d), _) => format!("damaged: {d}"),
        (None, Some(p)) => p.clone(),
        (None, None) if r.turns == 0 => EMPTY_MARK.to_owned(),
        (None, None) => String::new(),
    };
    [
        r.id.to_string(),
        match compact {
            false => ago(now_ms.saturating_sub(r.last_activity_ms)),
            true => short_ago(now_ms.saturating_sub(r.last_activity_ms)),
        },
        r.cwd
            .as_ref()
            .map_or_else(|| "?".to_owned(), |c| one_line(&c.display().to_string())),
        match compact {
            false => state_label(r.state),
            true => short_state_label(r.state),
        }
        .to_owned(),
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

/// [`ago`] in at most four columns: `now`, `12m`, `5h`, `3d`.
fn short_ago(ms: u64) -> String {
    let s = ms / 1000;
    match s {
        0..60 => "now".to_owned(),
        60..3600 => format!("{}m", s / 60),
        3600..86_400 => format!("{}h", s / 3600),
        _ => format!("{}d", s / 86_400),
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

    #[test]
    fn at_60_columns_the_id_activity_state_turns_and_a_cut_prompt_stay() {
        let mut running = row("run the whole test suite and report every failure");
        running.state = ListedState::RunningElsewhere;
        running.turns = 1234;
        let mut interrupted = row("refactor the lexer");
        interrupted.state = ListedState::Interrupted;
        let mut rows = [
            row("fix the parser and then write the tests for it"),
            running,
            interrupted,
        ];
        let now = 10_000_000;
        for r in &mut rows {
            r.last_activity_ms = now - 2 * 3_600_000;
        }
        // `/sessions` at 60 columns has 56 (a notice's indent), the picker 58.
        for width in [56, 58, 60] {
            let lines = table_lines(&rows, now, Some(width));
            for line in &lines {
                assert!(line.width() <= width, "{width}: {line:?}");
            }
            for heading in ["ID", "ACTIVE", "STATE", "TURNS"] {
                assert!(lines[0].contains(heading), "{width}: {}", lines[0]);
            }
            for (line, (state, turns, prompt)) in lines[1..].iter().zip([
                ("paused", "3", "fix"),
                ("running", "1234", "run"),
                ("stopped", "3", "ref"),
            ]) {
                let words: Vec<&str> = line.split_whitespace().collect();
                assert_eq!(words[0], "20261205-041138-068646-0cbf06", "{width}: {line}");
                assert_eq!(words[1], "2h", "{width}: {line}");
                assert_eq!(words[2], state, "{width}: {line}");
                assert_eq!(words[3], turns, "{width}: {line}");
                assert!(words[4].starts_with(prompt), "{width}: {line}");
                assert!(line.ends_with('…'), "the prompt is cut: {line}");
            }
        }
        // Wide enough for the ordinary layout, it is unchanged.
        let wide = table_lines(&rows, now, Some(100));
        assert!(wide[0].contains("LAST ACTIVE"), "{}", wide[0]);
        assert!(wide[2].contains("running elsewhere"), "{}", wide[2]);
    }

    #[test]
    fn a_session_without_turns_is_marked_empty() {
        let mut empty = row("");
        empty.first_prompt = None;
        empty.turns = 0;
        empty.state = ListedState::New;
        let lines = table_lines(&[empty], 0, None);
        assert!(lines[1].ends_with(EMPTY_MARK), "{}", lines[1]);
    }
}
