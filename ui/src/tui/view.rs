//! What the TUI shows: the lines of committed dialog (printed into scrollback once) and the
//! live region (history pane, pending request, running tools, streaming preview, paused
//! turn, status, notice, input, footer), all as styled lines of at most the terminal width.
//!
//! Model answers go through [`render_markdown`]; user text, tool names and targets, reasons
//! and runtime messages through [`flowing`] and the word wrapper, so nothing from the
//! model, a tool or the user can reach the terminal as a control sequence.

use ansa_sessions::{Mode, Profile};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::app::App;
use super::blocks::{
    INDENT, PROMPT, fmt_duration, input_columns, notice_lines, one_line, pane_rows, tool_lines,
    truncate, user_lines,
};
use super::keys;
use super::markdown::render_markdown;
use super::model::{Entry, Notice, TaskKind, TaskState, Tone};
use super::tail::{preview_rows, render_preview};
use crate::sanitize::flowing;

/// Rows of the reasoning summary shown while the model thinks.
const REASONING_ROWS: usize = 3;

use super::footer::{self, Field, Priority};
use super::wrap::{wrap_prefixed, wrap_spans};
use crate::status::reopen_command;

/// The live region: its lines and where the cursor goes (column, row).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Live {
    /// The lines, top to bottom.
    pub lines: Vec<Line<'static>>,
    /// Cursor position within them.
    pub cursor: Option<(u16, u16)>,
    /// The part of a waiting approval's text these lines show.
    pub approval: Option<super::approval::ApprovalWindow>,
}

/// The lines an entry adds to scrollback.
pub(crate) fn entry_lines(app: &App, entry: &Entry, width: u16) -> Vec<Line<'static>> {
    let theme = app.theme;
    let mut lines = Vec::new();
    match entry {
        Entry::Header => {
            let cwd = one_line(&app.cwd);
            let model = one_line(&app.model);
            lines.extend(wrap_spans(
                &[
                    Span::styled("ansa", theme.accent().patch(theme.bold())),
                    Span::styled(format!("  {cwd}"), theme.dim()),
                    Span::styled(format!(" · {model}"), theme.dim()),
                ],
                width,
            ));
        }
        Entry::User(text) => {
            lines.push(Line::default());
            lines.extend(user_lines(text, width, theme.user(), theme));
        }
        Entry::Answer(text) | Entry::Commentary(text) => {
            lines.push(Line::default());
            lines.extend(render_markdown(text, width, theme));
        }
        Entry::Unfinished(text) => {
            lines.push(Line::default());
            lines.extend(render_markdown(text, width, theme));
            lines.push(Line::styled("(unfinished)", theme.dim()));
        }
        Entry::Tool(tool) => lines.extend(tool_lines(tool, app.now, width, theme)),
        Entry::Notice(notice) => lines.extend(notice_lines(notice, width, theme)),
    }
    lines
}

fn pane(app: &App, width: u16) -> Vec<Line<'static>> {
    let theme = app.theme;
    let h = &app.history;
    let title = match (h.begin(), h.end()) {
        (Some(b), Some(e)) => format!("history {b}–{} of {}", e - 1, h.total),
        _ if h.loading => "history: loading…".to_owned(),
        _ => "history: nothing earlier".to_owned(),
    };
    let title = format!("── {title} · PgUp/PgDn page · Ctrl+F closes ");
    let mut lines = vec![Line::styled(
        truncate(&title, usize::from(width)),
        theme.accent(),
    )];
    let text = app.pane_text(&h.entries, width);
    let rows = pane_rows(app.height);
    lines.extend(text.into_iter().skip(h.top).take(rows));
    lines
}

fn state_text(app: &App) -> (String, Style) {
    let theme = app.theme;
    if app.cursor.is_none() {
        return ("opening…".to_owned(), theme.dim());
    }
    if let Some(task) = &app.task {
        let elapsed = fmt_duration(app.now.saturating_duration_since(task.started));
        let text = match (task.cancelling, task.state) {
            (true, _) => "cancelling…".to_owned(),
            (false, TaskState::Sending) => "sending…".to_owned(),
            (false, TaskState::Queued) => format!("queued {elapsed}"),
            (false, TaskState::Running) => format!("running {elapsed}"),
        };
        return (text, theme.accent());
    }
    if app.flags.read_only {
        return ("read-only".to_owned(), theme.error());
    }
    if app.paused.is_some() {
        return ("paused".to_owned(), theme.accent());
    }
    ("idle".to_owned(), theme.dim())
}

fn footer(
    app: &App,
    width: u16,
    approval: Option<super::approval::ApprovalWindow>,
) -> Line<'static> {
    let theme = app.theme;
    let mode = match app.mode {
        Mode::Basic => Field::new(Priority::MODE, "basic", theme.dim()),
        Mode::Plan => Field::new(Priority::MODE, "plan", theme.accent().patch(theme.bold())),
        Mode::Orchestrate => Field::new(
            Priority::MODE,
            "orchestrate",
            theme.accent().patch(theme.bold()),
        ),
    };
    let (state, style) = state_text(app);
    // Most useful first: at 60 columns only the first two or three fit.
    let hints: &[&str] = if let Some(hints) = super::approval::hints(app, approval) {
        hints
    } else if let Some(hints) = super::rewind::hints(app) {
        hints
    } else if let Some(hints) = super::diff::hints(app) {
        hints
    } else if let Some(hints) = super::model_picker::hints(app) {
        hints
    } else if keys::slash_completion(app.input.text()).is_some() {
        &["Tab complete", "Enter run"]
    } else if !keys::slash_matches(app.input.text()).is_empty() {
        &["Enter run"]
    } else if app.output.open || app.history.open {
        &["PgUp/PgDn page", "Esc close", "Enter send"]
    } else if app.task.is_some() {
        if app.exit_after_task {
            &["exits when done", "Ctrl+C cancel"]
        } else {
            &[
                "Ctrl+C cancel",
                "Ctrl+O output",
                "Enter queue",
                "Ctrl+D exit when done",
                "Tab mode",
            ]
        }
    } else if app.paused.is_some() {
        &[
            "/resume continue",
            "/cancel drop",
            "Enter send",
            "Ctrl+D exit",
        ]
    } else {
        &[
            "Enter send",
            "/ commands",
            "Tab mode",
            "Ctrl+O output",
            "Ctrl+F history",
            "Shift+Enter newline",
            "Ctrl+D exit",
        ]
    };
    // In display order; `footer::lay_out` decides what gives way at a narrow width.
    let mut fields = vec![
        mode,
        Field::new(Priority::STATE, state.clone(), style).short(short_state(&state)),
    ];
    if app.flags.storage_failed {
        fields.push(Field::new(
            Priority::ACCESS,
            "storage failed",
            theme.error(),
        ));
    }
    // Like the sandbox, before the hints: whether calls wait for approval matters more.
    if let Some(access) = app.access.footer() {
        fields.push(Field::new(
            Priority::ACCESS,
            access,
            theme.accent().patch(theme.bold()),
        ));
    }
    if app.sandbox.configured() {
        // Before the hints, which give way first: whether commands are confined matters more.
        fields.push(match app.sandbox.refused {
            Some(_) => Field::new(
                Priority::SANDBOX,
                format!("sandbox {} unavailable: commands refused", app.sandbox.mode),
                theme.error(),
            )
            .short("sandbox refused"),
            None => Field::new(
                Priority::SANDBOX,
                format!("sandbox {}", app.sandbox.short()),
                theme.dim(),
            )
            .short(format!("sandbox {}", app.sandbox.abbreviated())),
        });
    }
    if let Some(field) = super::usage::footer_field(app) {
        fields.push(field);
    }
    for (n, hint) in hints.iter().enumerate() {
        let priority = Priority(
            Priority::HINTS
                .0
                .saturating_sub(u8::try_from(n).unwrap_or(u8::MAX)),
        );
        fields.push(Field::new(priority, *hint, theme.dim()));
    }
    footer::lay_out(&fields, width, theme.dim())
}

/// The state in a word, for a narrow footer: `running 1m 12s` → `running`.
fn short_state(state: &str) -> String {
    state.split(' ').next().unwrap_or(state).to_owned()
}

/// The `/status` row of the OS sandbox: mode, enforced ABI, what it allows, or why commands
/// cannot run.
fn sandbox_text(sandbox: &super::SandboxInfo) -> String {
    if sandbox.mode.is_empty() {
        return "—".to_owned();
    }
    if !sandbox.configured() {
        return "off: commands run with your full rights (--sandbox workspace-write confines them)"
            .to_owned();
    }
    match &sandbox.refused {
        Some(reason) => format!(
            "{} · NOT ENFORCEABLE, commands are refused: {reason}",
            sandbox.short()
        ),
        None => format!("{} · {}", sandbox.short(), sandbox.description),
    }
}

/// The `/status` panel within `room` rows (its blank line above included). When the wrapped
/// panel does not fit (60×20 with the usage rows), each row is cut to one line and the rows
/// that still do not fit are left out from the bottom, saying how many, so the title and the
/// model, which come first, are never the rows the region trims from its top.
fn status_lines(app: &App, width: u16, room: usize) -> Vec<Line<'static>> {
    let theme = app.theme;
    let profile = app.cursor.as_ref().map(|c| c.context().session);
    let hint = (!app.session_hint.is_empty()).then_some(app.session_hint.as_str());
    let session = match profile {
        Some(p) => format!("{} · continue with {}", p.as_str(), reopen_command(p, hint)),
        None => "opening…".to_owned(),
    };
    let mode = match app.mode {
        Mode::Basic => "basic",
        Mode::Plan => "plan",
        Mode::Orchestrate => "orchestrate",
    };
    let request = app
        .task
        .as_ref()
        .and_then(|t| t.follow.about())
        .or(app.paused.as_ref().map(|p| p.request))
        .map_or("none".to_owned(), |r| r.to_string());
    let mut journal = vec!["durable"];
    if app.flags.storage_failed {
        journal = vec!["storage failed"];
    }
    if app.flags.read_only {
        journal.push("read-only");
    }
    let or_unknown = |s: &str| {
        if s.is_empty() {
            "—".to_owned()
        } else {
            s.to_owned()
        }
    };
    use super::status_fit::Row;
    // Left out first when the panel does not fit: what is seldom news (no request, the turn
    // number, a durable journal), then the running request's id, then what the user set up
    // and knows.
    let journal_row = match journal.as_slice() {
        ["durable"] => Row::spare("journal", journal.join(", "), 2),
        _ => Row::kept("journal", journal.join(", ")),
    };
    let rows = vec![
        Row::kept("model", super::model_picker::status_text(app)),
        Row::spare("provider", or_unknown(&app.provider), 5),
        Row::spare("auth", or_unknown(&app.credentials), 4),
        Row::kept("sandbox", sandbox_text(&app.sandbox)),
        Row::spare("cwd", or_unknown(&app.cwd), 6),
        Row::kept("session", session),
        Row::kept("mode", format!("{mode} · {}", app.access.status())),
        Row::kept("state", state_text(app).0),
        Row::spare(
            "request",
            request.clone(),
            if request == "none" { 0 } else { 3 },
        ),
        Row::spare("turn", app.turn().to_string(), 1),
        Row::kept("tokens", super::usage::status_tokens(app)),
        Row::kept("context", super::usage::status_context(app)),
        journal_row,
    ];
    super::status_fit::lines(rows, width, room, theme)
}

/// The part above the input: pane, pending text, tools, preview, paused turn, status, notice.
fn upper(app: &App, width: u16, room: usize) -> Vec<Line<'static>> {
    let theme = app.theme;
    let mut lines = Vec::new();
    if app.output.open {
        lines.extend(super::viewer::lines(app, width));
    } else if app.history.open {
        lines.extend(pane(app, width));
    }
    if let Some(task) = &app.task
        && !task.follow.accepted()
        && task.kind == TaskKind::Submit
    {
        lines.push(Line::default());
        lines.extend(user_lines(&task.text, width, theme.dim(), theme));
    }
    for tool in &app.tools {
        lines.extend(tool_lines(tool, app.now, width, theme));
    }
    lines.extend(app.children.lines(app.now, width, theme));
    if let Some(reasoning) = app.reasoning.as_ref().filter(|_| app.task.is_some()) {
        // The last few rows only: it is context for the wait, not something to read back.
        let rendered = wrap_prefixed(
            &[Span::styled(
                flowing(reasoning).into_owned(),
                theme.dim().patch(theme.italic()),
            )],
            width,
            &[Span::styled(format!("{INDENT}thinking: "), theme.dim())],
            &[Span::raw(INDENT)],
        );
        let skip = rendered.len().saturating_sub(REASONING_ROWS);
        lines.extend(rendered.into_iter().skip(skip));
    }
    if let Some(preview) = &app.preview
        && !preview.rest().trim().is_empty()
    {
        lines.push(Line::default());
        // Only the tail can be on screen: the region is at most the terminal's height.
        lines.extend(render_preview(
            preview.rest(),
            width,
            theme,
            preview_rows(app.height),
        ));
        if preview.discarded {
            lines.push(Line::styled("(unfinished)", theme.dim()));
        }
    }
    for queued in &app.queued {
        let text = format!("queued: {}", one_line(&queued.text));
        lines.push(Line::styled(
            truncate(&format!("{INDENT}{text}"), usize::from(width)),
            theme.dim(),
        ));
    }
    if let Some(retry) = app.retry.as_ref().filter(|_| app.task.is_some()) {
        let left = retry.until.saturating_duration_since(app.now);
        let text =
            crate::retry_text::retrying(&one_line(&retry.reason), retry.attempt, retry.of, left);
        lines.extend(notice_lines(&Notice::new(Tone::Warn, text), width, theme));
    }
    if let Some(paused) = &app.paused
        && app.task.is_none()
    {
        let text = match &paused.reason {
            Some(reason) => format!(
                "request {} is paused: {reason} — /resume continues it, /cancel drops it",
                paused.request
            ),
            None => format!(
                "request {} is paused — /resume continues it, /cancel drops it",
                paused.request
            ),
        };
        lines.push(Line::default());
        lines.extend(notice_lines(&Notice::new(Tone::Warn, text), width, theme));
    }
    // What comes below the status panel is drawn first, so the panel knows its room.
    let mut below = Vec::new();
    if let Some(notice) = &app.notice {
        below.extend(notice_lines(notice, width, theme));
    }
    below.extend(slash_menu(app, width));
    below.extend(super::mention::menu(app, width));
    if app.status_open {
        lines.push(Line::default());
        lines.extend(status_lines(app, width, room.saturating_sub(below.len())));
    }
    lines.extend(below);
    lines
}

/// The commands a partly typed `/word` may be, each with its help; Tab completes.
fn slash_menu(app: &App, width: u16) -> Vec<Line<'static>> {
    let theme = app.theme;
    let matches = keys::slash_matches(app.input.text());
    let prompts = super::prompts::menu_rows(app);
    if matches.is_empty() && prompts.is_empty() {
        return Vec::new();
    }
    let mut lines = vec![Line::default()];
    // One column for every command, so it neither moves as the list narrows nor runs a long
    // name (`/orchestrate`) into its help.
    let column = keys::SLASH_COMMANDS
        .iter()
        .map(|(name, _)| name.len() + 1)
        .max()
        .unwrap_or(10);
    for (name, help) in matches {
        let room = usize::from(width)
            .saturating_sub(INDENT.len() + column)
            .max(1);
        lines.push(Line::from(vec![
            Span::raw(INDENT),
            Span::styled(format!("{name:<column$}"), theme.accent()),
            Span::styled(truncate(help, room), theme.dim()),
        ]));
    }
    lines.extend(super::prompts::menu_lines(app, &prompts, width));
    if keys::slash_completion(app.input.text()).is_some() {
        lines.push(Line::styled(format!("{INDENT}Tab completes"), theme.dim()));
    }
    lines
}

/// The live region for the app's terminal size: the upper part (trimmed from the top so the
/// whole region fits the screen, keeping a long preview's tail), a blank line, the input (at
/// most half the screen, scrolled to the cursor), a rule and the footer.
pub(crate) fn live(app: &App) -> Live {
    let width = app.width.max(1);
    let height = usize::from(app.height.max(1));
    let theme = app.theme;
    let blank = height >= 4;
    let rule = height >= 3;
    let footer_row = height >= 2;
    let chrome = usize::from(blank) + usize::from(rule) + usize::from(footer_row);
    let layout = app.input.layout(input_columns(width));
    let max_input = (height / 2).min(height - chrome).max(1);
    let first = usize::from(layout.row).saturating_sub(max_input - 1);
    let mut bottom: Vec<Line<'static>> = Vec::new();
    if blank {
        bottom.push(Line::default());
    }
    let input_top = bottom.len();
    for (i, range) in layout.rows.iter().enumerate().skip(first).take(max_input) {
        let prefix = if i == 0 {
            Span::styled(PROMPT, theme.accent())
        } else {
            Span::raw(INDENT)
        };
        let text = &app.input.text()[range.clone()];
        bottom.push(Line::from(vec![prefix, Span::raw(text.to_owned())]));
    }
    if app.input.text().is_empty()
        && let Some(line) = bottom.get_mut(input_top)
    {
        let hint = if !app.queued.is_empty() {
            "Enter queues another · ↑ edits the last queued"
        } else if app.task.is_some() {
            "type ahead · Enter queues the next task"
        } else {
            "type a task · /help"
        };
        line.spans.push(Span::styled(hint, theme.dim()));
    }
    // The rule goes below the input: when idle nothing of the region above the cursor is
    // wider than a blank line, so a terminal that reflows on resize has nothing to rewrap.
    if rule {
        bottom.push(Line::styled("─".repeat(usize::from(width)), theme.dim()));
    }
    let room = height.saturating_sub(bottom.len() + usize::from(footer_row));
    // A waiting approval comes last above the input and gets the room first: its text is
    // paged to fit, and what is above it gives way.
    let (approval, window) = super::approval::lines(app, width, room);
    // The footer's keys follow what this drawing shows of the approval.
    if footer_row {
        bottom.push(footer(app, width, window));
    }
    let mut lines = if app.model_switch.picker.is_some() {
        // The picker takes the region above the input, like the diff pane.
        let notice = app
            .notice
            .as_ref()
            .map(|n| notice_lines(n, width, theme))
            .unwrap_or_default();
        let mut lines = super::model_picker::lines(app, width, room.saturating_sub(notice.len()));
        lines.extend(notice);
        lines
    } else if app.diff.is_some() {
        // The diff pane takes the region above the input, like the rewind screens.
        let notice = app
            .notice
            .as_ref()
            .map(|n| notice_lines(n, width, theme))
            .unwrap_or_default();
        let mut lines = super::diff::lines(app, width, room.saturating_sub(notice.len()));
        lines.extend(notice);
        lines
    } else if app.rewind.is_some() {
        // The rewind screens take the region above the input; a notice stays under them.
        let notice = app
            .notice
            .as_ref()
            .map(|n| notice_lines(n, width, theme))
            .unwrap_or_default();
        let mut lines = super::rewind::lines(app, width, room.saturating_sub(notice.len()));
        lines.extend(notice);
        lines
    } else {
        upper(app, width, room.saturating_sub(approval.len()))
    };
    let room_above = room.saturating_sub(approval.len());
    if lines.len() > room_above {
        lines.drain(..lines.len() - room_above);
    }
    lines.extend(approval);
    if lines.len() > room {
        lines.drain(..lines.len() - room);
    }
    let row = lines.len() + input_top + usize::from(layout.row) - first;
    let col = 2 + usize::from(layout.col);
    lines.extend(bottom);
    let cursor = (row < lines.len()).then(|| {
        (
            u16::try_from(col).unwrap_or(u16::MAX).min(width - 1),
            u16::try_from(row).unwrap_or(u16::MAX),
        )
    });
    Live {
        lines,
        cursor,
        approval: window,
    }
}

/// How to continue this session after the TUI has ended.
pub(crate) fn continue_line(app: &App) -> String {
    let profile = app
        .cursor
        .as_ref()
        .map_or(Profile::Live, |c| c.context().session);
    let hint = (!app.session_hint.is_empty()).then_some(app.session_hint.as_str());
    format!("ansa: continue with: {}", reopen_command(profile, hint))
}
