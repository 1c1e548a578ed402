//! The rewind plan: what the chosen rewind would do before anything changes — the counts,
//! the conflicts with the choice for them, the paths to restore, recreate and delete with
//! their line counts, the paths left alone and why, and what happens to the conversation.
//! Every path is in the exact form (a control or BiDi character in a name shows) and
//! hard-wrapped, never cut, like an approval's text; PgDn/Space and PgUp page through it.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::super::app::App;
use super::super::approval_body::wrap_text;
use super::super::blocks::{UNDER, one_line};
use super::super::wrap::wrap_prefixed;
use super::model::{ConflictChoice, PathKind, PlanView, PlannedPath, Scope};
use super::{Body, Rewind, Wait, Wrapped, frame, key_line};
use crate::sanitize::exact;

/// One row of the plan before wrapping.
struct Row {
    style: Style,
    mark: &'static str,
    text: String,
    /// Words, wrapped at spaces; otherwise a path, broken wherever the width falls.
    prose: bool,
}

/// The plan screen in at most `room` rows.
pub(super) fn lines(app: &App, rewind: &Rewind, width: u16, room: usize) -> Vec<Line<'static>> {
    let theme = app.theme;
    let Some(item) = rewind.chosen() else {
        return Vec::new();
    };
    let undo = item.undo.is_some();
    let title = if undo {
        format!("undo the rewind to turn {} · code only", item.turn)
    } else {
        format!(
            "rewind plan · turn {} · {}",
            item.turn,
            rewind.scope.label()
        )
    };
    let conflicts = rewind.plan.as_ref().map_or(0, |p| p.conflicts.len());
    let keys = if rewind.waits_for(Wait::Apply) {
        Line::styled(format!("{UNDER}rewinding…"), theme.accent())
    } else if rewind.waits_for(Wait::Plan) || rewind.plan.is_none() {
        key_line(app, width, &[("Esc", "back")])
    } else if conflicts > 0 {
        key_line(
            app,
            width,
            &[
                ("Enter", "rewind"),
                ("k", "keep theirs"),
                ("t", "take the checkpoint's"),
                ("Esc", "back"),
            ],
        )
    } else {
        key_line(app, width, &[("Enter", "rewind"), ("Esc", "back")])
    };
    let Some(plan) = rewind.plan.as_ref() else {
        let text = if rewind.waits_for(Wait::Plan) {
            "making the plan (nothing changes yet)…"
        } else {
            "no plan"
        };
        let body = [Line::styled(format!("{UNDER}{text}"), theme.dim())];
        let body = Body {
            rows: &body,
            top: 0,
            keep: None,
        };
        return frame(app, width, room, &title, body, keys).0;
    };
    let mut cache = rewind.wrapped.borrow_mut();
    if cache
        .as_ref()
        .is_none_or(|w| w.width != width || w.choice != rewind.choice)
    {
        let rows = rows(app, plan, rewind.scope, rewind.choice, undo);
        *cache = Some(Wrapped {
            width,
            choice: rewind.choice,
            rows: wrap(&rows, width),
        });
    }
    let body: &[Line<'static>] = cache.as_ref().map_or(&[], |w| &w.rows);
    let body = Body {
        rows: body,
        top: rewind.top,
        keep: None,
    };
    let (lines, _, rows) = frame(app, width, room, &title, body, keys);
    rewind.page.set(rows);
    lines
}

/// Every row of the plan, in the order shown: what happens, the conflicts and their choice
/// (first, so they are never below the fold), the paths, the conversation.
fn rows(
    app: &App,
    plan: &PlanView,
    scope: Scope,
    choice: Option<ConflictChoice>,
    undo: bool,
) -> Vec<Row> {
    let theme = app.theme;
    let row = |style: Style, mark: &'static str, text: String| Row {
        style,
        mark,
        text,
        prose: true,
    };
    let path_row = |style: Style, mark: &'static str, text: String| Row {
        style,
        mark,
        text,
        prose: false,
    };
    let mut rows = Vec::new();
    if scope.code() {
        let added: u64 = plan
            .restore
            .iter()
            .chain(&plan.recreate)
            .map(|p| p.added)
            .sum();
        let removed: u64 = plan
            .restore
            .iter()
            .chain(&plan.delete)
            .map(|p| p.removed)
            .sum();
        let summary = if plan.no_changes() {
            "no file changes: the files are already as they were then".to_owned()
        } else {
            format!(
                "restore {} · recreate {} · delete {} · +{added} −{removed} lines",
                plan.restore.len(),
                plan.recreate.len(),
                plan.delete.len()
            )
        };
        rows.push(row(theme.bold(), "", summary));
    } else {
        rows.push(row(
            theme.bold(),
            "",
            "files: none change (conversation only)".to_owned(),
        ));
    }
    let n = plan.conflicts.len();
    if n > 0 {
        rows.push(row(
            theme.warn(),
            "",
            format!(
                "{n} conflict{}: changed after that turn by something other than this session",
                plural(n)
            ),
        ));
        let keys = if n == 1 {
            "k keep theirs · t take the checkpoint's".to_owned()
        } else {
            format!(
                "k keep theirs · t take the checkpoint's — one choice for all {n} (a rewind \
                 applies one to every conflict)"
            )
        };
        rows.push(row(theme.warn(), "  ", keys));
        let chosen = match choice {
            Some(c) => row(theme.accent(), "  ", format!("chosen: {}", c.label())),
            None => row(theme.warn(), "  ", "chosen: nothing yet".to_owned()),
        };
        rows.push(chosen);
        for path in &plan.conflicts {
            rows.push(path_row(theme.warn(), "  ! ", exact(path).into_owned()));
        }
    }
    let sections: [(&str, &'static str, Style, &[PlannedPath]); 3] = [
        ("restore", "  ~ ", Style::default(), &plan.restore),
        ("recreate", "  + ", theme.added(), &plan.recreate),
        ("delete", "  − ", theme.removed(), &plan.delete),
    ];
    for (name, mark, style, paths) in sections {
        if paths.is_empty() {
            continue;
        }
        rows.push(row(theme.dim(), "", format!("{name} ({}):", paths.len())));
        for p in paths {
            rows.push(path_row(style, mark, path_text(p)));
        }
    }
    if !plan.not_restorable.is_empty() {
        rows.push(row(
            theme.dim(),
            "",
            format!(
                "not restorable, left as they are ({}):",
                plan.not_restorable.len()
            ),
        ));
        for u in &plan.not_restorable {
            let text = format!("{} — {}", exact(&u.path), one_line(&u.reason));
            rows.push(path_row(theme.dim(), "  · ", text));
        }
    }
    if !plan.changed_not_restored.is_empty() {
        rows.push(row(
            theme.dim(),
            "",
            "changed, not restored (version control and ansa state are never restored):".to_owned(),
        ));
        for (path, n) in &plan.changed_not_restored {
            let paths = if *n == 1 { "path" } else { "paths" };
            let text = format!("{} — {n} {paths} changed", exact(path));
            rows.push(path_row(theme.dim(), "  · ", text));
        }
    }
    if !plan.unkept.is_empty() {
        rows.push(row(
            theme.dim(),
            "",
            format!(
                "current version never kept, lost for good ({}):",
                plan.unkept.len()
            ),
        ));
        for path in &plan.unkept {
            rows.push(path_row(theme.removed(), "  ! ", exact(path).into_owned()));
        }
    }
    let conversation = if scope.conversation() {
        let marked = match plan.rewound.len() {
            0 => "the turns from here on were rewound already".to_owned(),
            1 => "this turn is marked rewound".to_owned(),
            n => format!("this turn and the {} after it are marked rewound", n - 1),
        };
        format!(
            "conversation: the context goes back to before this prompt; {marked}; the prompt \
             returns to the input"
        )
    } else if undo {
        "conversation: goes on as it is".to_owned()
    } else {
        "conversation: goes on as it is; the prompt returns to the input".to_owned()
    };
    rows.push(row(theme.dim(), "", conversation));
    rows
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// A planned path with its kind and line counts: `src/a.rs  +3 −2`, `assets/ (directory)`.
fn path_text(p: &PlannedPath) -> String {
    let mut text = exact(&p.path).into_owned();
    match p.kind {
        PathKind::File => {}
        PathKind::Dir => text.push_str(" (directory)"),
        PathKind::Symlink => text.push_str(" (symlink)"),
    }
    match (p.added, p.removed) {
        (0, 0) => {}
        (a, 0) => text.push_str(&format!("  +{a}")),
        (0, r) => text.push_str(&format!("  −{r}")),
        (a, r) => text.push_str(&format!("  +{a} −{r}")),
    }
    text
}

/// The rows hard-wrapped at `width` (under the screen's indent), every character kept.
fn wrap(rows: &[Row], width: u16) -> Vec<Line<'static>> {
    let room = usize::from(width).saturating_sub(UNDER.len()).max(1);
    let mut out = Vec::new();
    for row in rows {
        if row.prose {
            let hang = " ".repeat(UNDER.len() + row.mark.len());
            out.extend(wrap_prefixed(
                &[Span::styled(row.text.as_str(), row.style)],
                width,
                &[Span::raw(UNDER), Span::styled(row.mark, row.style)],
                &[Span::raw(hang)],
            ));
            continue;
        }
        for (piece, _, _) in wrap_text(row.mark, &row.text, room) {
            out.push(Line::from(vec![
                Span::raw(UNDER),
                Span::styled(piece, row.style),
            ]));
        }
    }
    out
}
