//! Usage and context (issue 44 item 7): the tokens this session used and how full its context
//! is, for the footer (one field, given way to the access mode and the sandbox at narrow
//! widths) and `/status`, and the warning before compaction is due.
//!
//! The fill against the model's window is the runtime's measure of the saved context (the
//! bytes compaction is triggered by, `runtime/compaction.rs`) as estimated tokens, a quarter
//! of the bytes like `/compact` says them; the window comes from the config
//! (`models.<model>.context_window`), `?` when it is not known.

use ansa_sessions::protocol::{ContextSize, SessionUsage, estimated_tokens};

use super::app::App;
use super::footer::{Field, Priority};
use super::model::{Entry, Notice, Tone};

/// The share of the compaction budget at which the fill turns yellow and the notice is said.
pub(crate) const WARN_PERCENT: u64 = 85;

/// What the TUI knows of the model's context window and whether it warned already.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Meter {
    /// The model's context window in tokens, when the config gives it.
    pub window: Option<u64>,
    /// Every model's window the config gives, for the model a rebinding switches to.
    pub windows: Vec<(String, u64)>,
    /// The warning was said for the current fill (said again only after the context fell
    /// below the threshold, e.g. once compacted).
    pub warned: bool,
}

/// A token count in a few characters: `950`, `12.3k`, `272k`, `4.1M`.
pub(crate) fn tokens(n: u64) -> String {
    match n {
        0..=999 => n.to_string(),
        1_000..=99_999 => format!("{:.1}k", n as f64 / 1e3),
        100_000..=999_999 => format!("{}k", n / 1_000),
        _ => format!("{:.1}M", n as f64 / 1e6),
    }
}

/// The context's share of the compaction budget, in percent.
fn budget_percent(c: ContextSize) -> u64 {
    c.bytes.saturating_mul(100) / c.budget.max(1)
}

/// Whether compaction is near: the fill is at least [`WARN_PERCENT`] of its budget.
pub(crate) fn near_compaction(c: ContextSize) -> bool {
    budget_percent(c) >= WARN_PERCENT
}

/// `ctx 41% of 272k`, or `ctx ≈12.3k of ?` when the window is not known.
fn fill_text(c: ContextSize, window: Option<u64>) -> String {
    let used = estimated_tokens(c.bytes);
    match window.filter(|w| *w > 0) {
        Some(w) => format!("ctx {}% of {}", used.saturating_mul(100) / w, tokens(w)),
        None => format!("ctx ≈{} of ?", tokens(used)),
    }
}

/// `12.3k in (9.1k cached) · 800 out`.
fn usage_text(u: SessionUsage) -> String {
    format!(
        "{} in ({} cached) · {} out",
        tokens(u.input_tokens),
        tokens(u.cached_tokens),
        tokens(u.output_tokens)
    )
}

/// The footer's usage field: the tokens and the fill, shortened to the fill alone (it says
/// when compaction is near) before the field gives way to the access mode, sandbox and state.
pub(crate) fn footer_field(app: &App) -> Option<Field> {
    let fill = app.context.map(|c| (fill_text(c, app.meter.window), c));
    let used = app.usage.map(usage_text);
    let style = match fill {
        Some((_, c)) if near_compaction(c) => app.theme.warn(),
        _ => app.theme.dim(),
    };
    match (fill, used) {
        (Some((f, _)), Some(u)) => {
            Some(Field::new(Priority::USAGE, format!("{u} · {f}"), style).short(f))
        }
        (Some((f, _)), None) => Some(Field::new(Priority::USAGE, f, style)),
        (None, Some(u)) => Some(Field::new(Priority::USAGE, u, style)),
        (None, None) => None,
    }
}

/// `/status`'s `tokens` row.
pub(crate) fn status_tokens(app: &App) -> String {
    match app.usage {
        Some(u) => usage_text(u),
        None => "none reported yet".to_owned(),
    }
}

/// `/status`'s `context` row: the fill against the window, then against the compaction
/// budget, and whether compaction is near.
pub(crate) fn status_context(app: &App) -> String {
    let Some(c) = app.context else {
        return "not known yet".to_owned();
    };
    let kib = |b: u64| {
        if b < 10 * 1024 {
            format!("{:.1} KiB", b as f64 / 1024.0)
        } else {
            format!("{} KiB", b / 1024)
        }
    };
    let used = estimated_tokens(c.bytes);
    let window = match app.meter.window.filter(|w| *w > 0) {
        Some(w) => format!(
            "≈{} tokens, {}% of the {}-token window",
            tokens(used),
            used.saturating_mul(100) / w,
            tokens(w)
        ),
        None => format!("≈{} tokens of an unknown window (?)", tokens(used)),
    };
    let near = if near_compaction(c) {
        " · compaction is near: it runs before the next turn once the budget is reached"
    } else {
        ""
    };
    format!(
        "{window} · {} of {} before compaction ({}%){near}",
        kib(c.bytes),
        kib(c.budget),
        budget_percent(c)
    )
}

impl App {
    /// After a snapshot brought the context's size: says once, in the dialog, that
    /// compaction is near; said again only after the context fell below the threshold.
    pub(crate) fn check_context_fill(&mut self) {
        let Some(c) = self.context else {
            return;
        };
        if !near_compaction(c) {
            self.meter.warned = false;
            return;
        }
        if self.meter.warned {
            return;
        }
        self.meter.warned = true;
        self.commit(Entry::Notice(Notice::new(
            Tone::Warn,
            format!(
                "the context is at {}% of its compaction budget: older turns will be \
                 summarised before a coming turn (/compact does it now)",
                budget_percent(c)
            ),
        )));
    }
}

#[cfg(test)]
mod tests;
