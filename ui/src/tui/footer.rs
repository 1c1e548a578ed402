//! The footer's layout: its fields in the order they are shown, each with a priority and
//! perhaps a shorter form. When they do not fit the width, the least important field gives
//! way first — shortened if it has a short form, else left out — until the rest fits, so the
//! access mode and the sandbox (with its Landlock ABI) stay whole at 60 columns while the key
//! hints, then the usage, go. Fields are never cut in the middle.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::wrap::display_width;

/// How much a footer field matters: a field of a lower priority gives way first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Priority(pub u8);

impl Priority {
    /// Whether calls wait for approval, and a storage failure: kept longest.
    pub const ACCESS: Priority = Priority(90);
    /// The OS sandbox and its Landlock ABI.
    pub const SANDBOX: Priority = Priority(80);
    /// The turn mode (basic, plan).
    pub const MODE: Priority = Priority(70);
    /// The session's state (idle, running 12 s).
    pub const STATE: Priority = Priority(60);
    /// Token usage and context fill.
    pub const USAGE: Priority = Priority(40);
    /// The first key hint; each later hint is one lower.
    pub const HINTS: Priority = Priority(30);
}

/// One field of the footer.
#[derive(Debug, Clone)]
pub(crate) struct Field {
    priority: Priority,
    text: String,
    short: Option<String>,
    style: Style,
}

impl Field {
    /// A field shown as `text` in `style`.
    pub fn new(priority: Priority, text: impl Into<String>, style: Style) -> Field {
        Field {
            priority,
            text: text.into(),
            short: None,
            style,
        }
    }

    /// The form shown when the whole one does not fit, before the field is left out.
    pub fn short(mut self, text: impl Into<String>) -> Field {
        self.short = Some(text.into());
        self
    }
}

/// Between two fields.
const SEPARATOR: &str = " · ";

/// What is shown of a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shown {
    Whole,
    Short,
    Left,
}

/// The footer line of `fields` (in display order) within `width` columns, `separator` in
/// `dim` between them.
pub(crate) fn lay_out(fields: &[Field], width: u16, dim: Style) -> Line<'static> {
    let mut shown = vec![Shown::Whole; fields.len()];
    let text = |i: usize, s: &[Shown]| match s[i] {
        Shown::Whole => Some(fields[i].text.as_str()),
        Shown::Short => fields[i].short.as_deref(),
        Shown::Left => None,
    };
    let used = |s: &[Shown]| {
        let widths: Vec<usize> = (0..fields.len())
            .filter_map(|i| text(i, s))
            .map(display_width)
            .collect();
        widths.iter().sum::<usize>() + display_width(SEPARATOR) * widths.len().saturating_sub(1)
    };
    // The least important field matching `pick`; among equals, the rightmost.
    let lowest = |s: &[Shown], pick: &dyn Fn(usize, Shown) -> bool| {
        (0..fields.len())
            .filter(|&i| pick(i, s[i]))
            .min_by_key(|&i| (fields[i].priority, std::cmp::Reverse(i)))
    };
    while used(&shown) > usize::from(width) {
        // First what matters less than the state gives way, shortened, then left out; then
        // every other field is shortened; only then are fields left out.
        let minor = |i: usize, s: Shown| s != Shown::Left && fields[i].priority < Priority::STATE;
        let shortens = |i: usize, s: Shown| s == Shown::Whole && fields[i].short.is_some();
        if let Some(i) = lowest(&shown, &minor) {
            shown[i] = match (shown[i], &fields[i].short) {
                (Shown::Whole, Some(_)) => Shown::Short,
                _ => Shown::Left,
            };
        } else if let Some(i) = lowest(&shown, &shortens) {
            shown[i] = Shown::Short;
        } else if let Some(i) = lowest(&shown, &|_, s| s != Shown::Left) {
            shown[i] = Shown::Left;
        } else {
            break;
        }
    }
    // Giving way goes by priority, so a long field that was then shortened may have pushed
    // out shorter, less important ones that fit beside its short form (a key hint beside the
    // shortened usage at 60 columns): bring them back, most important first, whole if that
    // fits else short, stopping at the first that fits in neither form.
    let mut left: Vec<usize> = (0..fields.len())
        .filter(|&i| shown[i] == Shown::Left)
        .collect();
    left.sort_by_key(|&i| (std::cmp::Reverse(fields[i].priority), i));
    for i in left {
        let forms = [Shown::Whole, Shown::Short];
        let fits = forms.into_iter().find(|&form| {
            if form == Shown::Short && fields[i].short.is_none() {
                return false;
            }
            let mut tried = shown.clone();
            tried[i] = form;
            used(&tried) <= usize::from(width)
        });
        match fits {
            Some(form) => shown[i] = form,
            None => break,
        }
    }
    let mut spans = Vec::new();
    for (i, field) in fields.iter().enumerate() {
        let Some(t) = text(i, &shown) else {
            continue;
        };
        if !spans.is_empty() {
            spans.push(Span::styled(SEPARATOR, dim));
        }
        spans.push(Span::styled(t.to_owned(), field.style));
    }
    Line::from(spans)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(line: &Line<'_>) -> String {
        line.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn a_hint_pushed_out_before_a_long_field_was_shortened_comes_back_if_it_fits() {
        let s = Style::default();
        let fields = [
            Field::new(Priority::MODE, "basic", s),
            Field::new(Priority::STATE, "idle", s),
            Field::new(Priority::ACCESS, "ask", s),
            Field::new(
                Priority::USAGE,
                "48.2k in (31.5k cached) · 1.9k out · ctx 36% of 272k",
                s,
            )
            .short("ctx 36% of 272k"),
            Field::new(Priority::HINTS, "Enter send", s),
            Field::new(Priority(Priority::HINTS.0 - 1), "/ commands", s),
            Field::new(Priority(Priority::HINTS.0 - 2), "Tab mode", s),
        ];
        let at = |w| plain(&lay_out(&fields, w, s));
        // The usage gives way to its short form only after every hint was left out; the first
        // hint fits beside it again, the second does not, and none after it is tried.
        assert_eq!(at(60), "basic · idle · ask · ctx 36% of 272k · Enter send");
        assert_eq!(
            at(120),
            "basic · idle · ask · 48.2k in (31.5k cached) · 1.9k out · ctx 36% of 272k · Enter send · / commands · Tab mode"
        );
        assert_eq!(at(36), "basic · idle · ask · ctx 36% of 272k");
    }

    #[test]
    fn the_least_important_field_gives_way_first_shortened_then_left_out() {
        let s = Style::default();
        let fields = [
            Field::new(Priority::MODE, "basic", s),
            Field::new(Priority::STATE, "running 1m 2s", s).short("running"),
            Field::new(Priority::ACCESS, "ask", s),
            Field::new(
                Priority::SANDBOX,
                "sandbox workspace-write · Landlock ABI 7",
                s,
            )
            .short("sandbox workspace-write · ABI 7"),
            Field::new(Priority::HINTS, "Ctrl+C cancel", s),
            Field::new(Priority(Priority::HINTS.0 - 1), "Ctrl+O output", s),
        ];
        let at = |w| plain(&lay_out(&fields, w, s));
        assert_eq!(
            at(120),
            "basic · running 1m 2s · ask · sandbox workspace-write · Landlock ABI 7 · Ctrl+C cancel · Ctrl+O output"
        );
        assert_eq!(
            at(86),
            "basic · running 1m 2s · ask · sandbox workspace-write · Landlock ABI 7 · Ctrl+C cancel"
        );
        assert_eq!(
            at(60),
            "basic · running · ask · sandbox workspace-write · ABI 7"
        );
        assert_eq!(at(40), "ask · sandbox workspace-write · ABI 7");
        for w in [20, 40, 60, 80, 120] {
            assert!(
                display_width(&at(w)) <= usize::from(w) || at(w) == "ask",
                "{w}"
            );
        }
    }
}
