//! The rewind scope: for the chosen prompt, restore code and conversation, code only, or
//! conversation only. A turn whose code cannot be restored offers the conversation only.

use ratatui::text::{Line, Span};

use super::super::app::App;
use super::super::blocks::{INDENT, UNDER, one_line};
use super::super::wrap::wrap_prefixed;
use super::model::Scope;
use super::{Body, Rewind, frame, key_line};

/// Indent of a choice's help, under its label.
const HANG: &str = "       ";

/// The scope screen in at most `room` rows.
pub(super) fn lines(app: &App, rewind: &Rewind, width: u16, room: usize) -> Vec<Line<'static>> {
    let theme = app.theme;
    let Some(item) = rewind.chosen() else {
        return Vec::new();
    };
    let mut body = wrap_prefixed(
        &[Span::styled(one_line(&item.prompt), theme.user())],
        width,
        &[Span::styled(
            format!("{INDENT}{} › ", one_line(&item.time)),
            theme.dim(),
        )],
        &[Span::raw(UNDER)],
    );
    body.push(Line::default());
    for (i, scope) in Scope::ALL.into_iter().enumerate() {
        let chosen = scope == rewind.scope;
        let blocked = scope.code() && !item.restorable;
        let (mark, style) = match (chosen, blocked) {
            (true, _) => ("› ", theme.accent().patch(theme.bold())),
            (false, true) => ("  ", theme.dim()),
            (false, false) => ("  ", ratatui::style::Style::default()),
        };
        let help = if blocked {
            "not restorable: no checkpoint of this turn's files was kept"
        } else {
            scope.help()
        };
        body.push(Line::from(vec![
            Span::raw(INDENT),
            Span::styled(mark, theme.accent()),
            Span::styled(format!("{}. {}", i + 1, scope.label()), style),
        ]));
        body.extend(wrap_prefixed(
            &[Span::styled(help, theme.dim())],
            width,
            &[Span::raw(HANG)],
            &[Span::raw(HANG)],
        ));
    }
    let title = format!("rewind · what goes back · turn {}", item.turn);
    let keys = key_line(
        app,
        width,
        &[
            ("Enter", "show the plan"),
            ("↑/↓ 1–3", "choose"),
            ("Esc", "back"),
        ],
    );
    let body = Body {
        rows: &body,
        top: 0,
        keep: None,
    };
    frame(app, width, room, &title, body, keys).0
}
