//! Exec streams for the model: when the engine had to cut a stream to its budget (a byte-exact
//! head/tail with `...` between, ASH/1 §5), the view cuts the retained output at line
//! boundaries instead, within the same budget, and says how many lines and bytes it left out,
//! which `evidence` call reads them, and (for a failed command) which left-out lines look like
//! the failure.
//!
//! A stream the reducers alone made fit (`×N`, `×N#K`, `⋯N`) is shown as the engine projected
//! it; the legend explains the markers and the full text stays in `ro`/`re`.

use std::fmt::Write as _;

use ash_engine::ason::{Atom, Cell, Value};
use ash_engine::protocol::{ExecResult, ExitKind};
use ash_engine::reduce::{
    ExitOutcome, failure_focus, is_anchor, normalize, repeat_blocks, repeat_lines, stream_budgets,
};

use super::ViewContext;

/// Retained streams larger than this are shown as the engine projected them.
const MAX_REVIEWED: u64 = 64 << 20;

/// Left-out lines that look like a failure, listed at most.
const LISTED_ANCHORS: usize = 5;

/// Bytes of one listed line, at most.
const ANCHOR_BYTES: usize = 240;

/// One stream's line-boundary view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StreamView {
    /// The kept first lines, then the kept last lines, with the marker between.
    pub text: String,
    /// The note naming what was left out and how to read it.
    pub note: String,
}

/// Replaces the `o`/`e` cells of an exec record with line-boundary views where the engine cut.
pub(super) fn reshape(
    value: &mut Value,
    exec: &ExecResult,
    cx: &ViewContext<'_>,
    more: &mut Vec<String>,
) {
    let Value::Record(record) = value else { return };
    let outcome = match (exec.kind, exec.code) {
        (ExitKind::Exited, Some(0)) => ExitOutcome::Succeeded,
        (ExitKind::Exited | ExitKind::Signaled, _) => ExitOutcome::ExitedUnsuccessfully,
        _ => ExitOutcome::TimedOutOrCancelled,
    };
    let budgets = stream_budgets(cx.exec_limit, outcome);
    let streams = [
        ("o", "stdout", exec.stdout_ref, budgets.stdout),
        ("e", "stderr", exec.stderr_ref, budgets.stderr),
    ];
    for (column, name, reference, budget) in streams {
        let Some(reference) = reference else { continue };
        let Some(raw) = retained_text(cx, reference) else {
            more.push(format!(
                "{name} is kept whole as @{reference} but is not shown as text (not UTF-8, or very large): read it with evidence kind \"bytes\"."
            ));
            continue;
        };
        let Some(view) = line_view(cx, &raw, outcome, budget, name, reference) else {
            let lines = raw.lines().count();
            if let Some(at) = record.cols.iter().position(|c| c == column)
                && let Cell::Atom(Atom::Text(shown)) = &record.row[at]
                && let Some(annotated) = annotate_gaps(shown, lines)
            {
                record.row[at] = Cell::Atom(Atom::text(annotated));
            }
            more.push(format!(
                "{name} as shown is shortened or normalized (markers ×N, ⋯N; CRLF as LF); all {lines} lines are @{reference}: evidence {} or kind \"search\".",
                super::evidence_lines(reference, 1, None)
            ));
            continue;
        };
        if let Some(at) = record.cols.iter().position(|c| c == column) {
            record.row[at] = Cell::Atom(Atom::text(view.text));
        }
        more.push(view.note);
    }
}

/// A reduced text with each `⋯G` gap marker followed by the retained lines it stands for,
/// `⋯G (lines A-B)`, so an `evidence` call can read them without counting. The raw line of
/// every shown line is followed through the markers (`×N` repeats the line above N times in
/// all, `×N#K` the K lines above N times); when the count does not come out at `total` the
/// text is left as it is.
pub(super) fn annotate_gaps(shown: &str, total: usize) -> Option<String> {
    let mut out = String::with_capacity(shown.len() + 64);
    let mut raw = 0usize;
    let mut kept = 0usize;
    let mut changed = false;
    for line in shown.split_inclusive('\n') {
        let body = line.trim_end_matches('\n');
        if let Some(n) = body.strip_prefix('⋯').and_then(|g| g.parse::<usize>().ok()) {
            out.push_str(&format!("⋯{n} (lines {}-{})\n", raw + 1, raw + n));
            raw += n;
            changed = true;
            continue;
        }
        if let Some(rest) = body.strip_prefix('×') {
            let (n, k) = match rest.split_once('#') {
                Some((n, k)) => (n.parse::<usize>().ok()?, k.parse::<usize>().ok()?),
                None => (rest.parse::<usize>().ok()?, 1),
            };
            if n < 2 || k == 0 || k > kept {
                return None;
            }
            raw += (n - 1) * k;
            out.push_str(line);
            continue;
        }
        raw += 1;
        kept += 1;
        out.push_str(line);
    }
    (changed && raw == total).then_some(out)
}

fn retained_text(cx: &ViewContext<'_>, reference: u64) -> Option<String> {
    let body = cx.store.get(reference)?;
    if body.len() > MAX_REVIEWED {
        return None;
    }
    String::from_utf8(body.read_all().ok()?).ok()
}

/// The line-boundary view of `raw` when the engine's projection had to cut it, else `None`.
fn line_view(
    cx: &ViewContext<'_>,
    raw: &str,
    outcome: ExitOutcome,
    budget: usize,
    name: &str,
    reference: u64,
) -> Option<StreamView> {
    let normalized = normalize(raw);
    let lines = repeat_lines(cx.plane, &normalized);
    let blocks = repeat_blocks(cx.plane, &lines);
    let reduced = match outcome {
        ExitOutcome::ExitedUnsuccessfully => failure_focus(cx.plane, &blocks).len(),
        _ => blocks.len(),
    };
    if reduced <= budget {
        return None;
    }
    Some(cut_lines(
        &normalized,
        budget,
        outcome == ExitOutcome::ExitedUnsuccessfully,
        name,
        reference,
    ))
}

/// Lines kept from each end of a cut stream, at most: the stated rule of every cut.
pub const END_LINES: usize = 40;

/// Keeps whole lines by one rule: the first [`END_LINES`] lines (fewer when they pass half
/// the budget) and the last [`END_LINES`] (fewer when they pass the rest); marks the gap and
/// names it.
pub(crate) fn cut_lines(
    text: &str,
    budget: usize,
    failed: bool,
    name: &str,
    reference: u64,
) -> StreamView {
    plan_cut(text, budget, failed, name).view(reference)
}

/// A cut made before the whole text has its `@N`: the kept lines are chosen and copied, so
/// the text itself can be handed to the store (moved, not copied) before the note names it.
pub(crate) struct PlannedCut {
    text: String,
    name: String,
    head: usize,
    tail: usize,
    total: usize,
    anchors: Vec<String>,
}

impl PlannedCut {
    /// The view, its note naming the whole text as `@reference`.
    pub(crate) fn view(self, reference: u64) -> StreamView {
        let PlannedCut {
            text,
            name,
            head,
            tail,
            total,
            anchors,
        } = self;
        let (first, left) = (head + 1, tail - head);
        let mut note = format!(
            "{name}: kept lines {} and {} of {total} (the rule: the first and last {END_LINES} lines, fewer when longer than half the budget each); the whole output is @{reference}: read the left-out lines with evidence {} or search it with kind \"search\".",
            span(1, head),
            span(tail + 1, total),
            super::evidence_lines(reference, first as u64, Some(left as u64))
        );
        if !anchors.is_empty() {
            let _ = write!(
                note,
                " Left-out lines that look like the failure: {}",
                anchors.join(" | ")
            );
        }
        StreamView { text, note }
    }
}

/// The cut of [`cut_lines`] without its reference.
pub(crate) fn plan_cut(text: &str, budget: usize, failed: bool, name: &str) -> PlannedCut {
    let starts: Vec<usize> = std::iter::once(0)
        .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1))
        .filter(|&i| i < text.len())
        .collect();
    let total = starts.len();
    let end_of = |line: usize| starts.get(line + 1).copied().unwrap_or(text.len());
    let half = budget / 2;
    let mut head = 0;
    while head < total.min(END_LINES) && end_of(head) <= half {
        head += 1;
    }
    let head_bytes = if head == 0 { 0 } else { end_of(head - 1) };
    let room = budget.saturating_sub(head_bytes);
    let mut tail = total;
    while tail > head && total - tail < END_LINES && text.len() - starts[tail - 1] <= room {
        tail -= 1;
    }
    let tail_start = if tail < total {
        starts[tail]
    } else {
        text.len()
    };
    let (first, left) = (head + 1, tail - head);
    let left_bytes = tail_start - head_bytes;
    let mut out = String::with_capacity(budget + 160);
    out.push_str(&text[..head_bytes]);
    let _ = writeln!(
        out,
        "⋯ lines {first}-{tail} of {name} left out ({left} lines, {left_bytes} bytes) ⋯"
    );
    out.push_str(&text[tail_start..]);
    let anchors = if failed {
        (head..tail)
            .filter(|&i| is_anchor(&text.as_bytes()[starts[i]..end_of(i)]))
            .take(LISTED_ANCHORS)
            .map(|i| {
                let line = text[starts[i]..end_of(i)].trim_end_matches('\n');
                let shown = &line[..line.floor_char_boundary(ANCHOR_BYTES)];
                format!("{}: {shown}", i + 1)
            })
            .collect()
    } else {
        Vec::new()
    };
    PlannedCut {
        text: out,
        name: name.to_owned(),
        head,
        tail,
        total,
        anchors,
    }
}

/// Lines `a` to `b` in words (`none` when empty).
fn span(a: usize, b: usize) -> String {
    match b.checked_sub(a) {
        None => "none".to_owned(),
        Some(0) => format!("{a}"),
        Some(_) => format!("{a}-{b}"),
    }
}
