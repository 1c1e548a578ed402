//! Rewind in the TUI: `/rewind` (or Esc Esc on an empty input) opens three screens in the
//! live region, one after the other:
//!
//! 1. the list (`list.rs`): the session's prompts newest first, from the `checkpoints`
//!    command — time, the prompt's first line, the files its turn changed, whether its code
//!    can be restored, whether a conversation rewind already took it back;
//! 2. the scope (`scope.rs`): code and conversation, code only, or conversation only;
//! 3. the plan (`plan.rs`): a dry-run `rewind` answered by `rewind_plan` — what would be
//!    restored, recreated and deleted with line counts, what is left alone and why, and every
//!    conflict (a path changed after that turn by something else) with the choice between
//!    keeping it and taking the checkpoint's. Enter applies it; `rewind_done` closes the
//!    screens, says what was restored in the dialog, marks the rewound turns in the history
//!    pane and puts the chosen prompt back in the input for editing.
//!
//! Esc goes back one screen (from the list it leaves). Nothing here changes a file: the
//! screens only send commands and follow the events (`events.rs`).

mod events;
mod list;
pub(crate) mod model;
mod plan;
mod scope;

use std::cell::{Cell, RefCell};
use std::time::Duration;

use ansa_sessions::CommandId;
use ratatui::text::{Line, Span};

use super::app::{Action, App, Tone};
use super::blocks::{UNDER, truncate};
use super::keys::Intent;
use model::{ConflictChoice, PlanView, PromptItem, Scope};

/// Esc twice within this time on an empty input opens the rewind list.
pub(crate) const DOUBLE_ESC: Duration = Duration::from_millis(1000);

/// Which screen is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// The prompts.
    List,
    /// Code, conversation or both.
    Scope,
    /// What would change, and the conflict choice.
    Plan,
}

/// What a command sent from the screens waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wait {
    /// `checkpoints`.
    List,
    /// A dry-run `rewind`: its `rewind_plan`.
    Plan,
    /// The real `rewind`: its `rewind_done`.
    Apply,
}

/// The open rewind screens.
#[derive(Debug, Clone)]
pub(crate) struct Rewind {
    /// The screen shown.
    pub step: Step,
    /// The session's prompts, newest first (empty until `checkpoints` answers).
    pub items: Vec<PromptItem>,
    /// The highlighted prompt (the chosen one once past the list).
    pub selected: usize,
    /// The highlighted scope.
    pub scope: Scope,
    /// The plan for the chosen prompt and scope, once it arrived.
    pub plan: Option<PlanView>,
    /// What happens to the conflicts; `None` until the user chose.
    pub choice: Option<ConflictChoice>,
    /// First row of the plan asked for (clamped when drawn).
    pub top: usize,
    /// Rows of the plan the last drawing showed: a page.
    pub page: Cell<usize>,
    /// First row of the list the last drawing showed (kept so the selection stays in view).
    pub list_top: Cell<usize>,
    /// The command sent and what it waits for.
    pub waiting: Option<(CommandId, Wait)>,
    /// What went wrong last (the runtime's message), shown on the screen.
    pub problem: Option<String>,
    /// The plan's rows wrapped at a width for a conflict choice, kept between drawings: a plan
    /// may list thousands of paths.
    pub(crate) wrapped: RefCell<Option<Wrapped>>,
}

/// The plan's rows as one drawing wrapped them.
#[derive(Debug, Clone)]
pub(crate) struct Wrapped {
    /// The width they were wrapped at.
    pub width: u16,
    /// The conflict choice they show.
    pub choice: Option<ConflictChoice>,
    /// The rows.
    pub rows: Vec<Line<'static>>,
}

impl Rewind {
    fn new() -> Self {
        Rewind {
            step: Step::List,
            items: Vec::new(),
            selected: 0,
            scope: Scope::Both,
            plan: None,
            choice: None,
            top: 0,
            page: Cell::new(1),
            list_top: Cell::new(0),
            waiting: None,
            problem: None,
            wrapped: RefCell::new(None),
        }
    }

    /// The highlighted (or chosen) prompt.
    pub fn chosen(&self) -> Option<&PromptItem> {
        self.items.get(self.selected)
    }

    fn waits_for(&self, what: Wait) -> bool {
        self.waiting.as_ref().is_some_and(|(_, w)| *w == what)
    }

    fn set_plan(&mut self, plan: Option<PlanView>) {
        self.plan = plan;
        self.top = 0;
        *self.wrapped.borrow_mut() = None;
    }
}

impl App {
    /// `/rewind`, or Esc Esc on an empty input: open the list and ask for the prompts.
    pub(crate) fn open_rewind(&mut self, out: &mut Vec<Action>) {
        if self.task.is_some() {
            self.say(
                Tone::Warn,
                "a task is running; /rewind works when it has ended (Ctrl+C cancels it)",
            );
            return;
        }
        if self.cursor.is_none() {
            self.say(
                Tone::Info,
                "the session is still opening; try again in a moment",
            );
            return;
        }
        self.status_open = false;
        self.history.open = false;
        self.output.open = false;
        self.notice = None;
        self.rewind = Some(Rewind::new());
        self.send_rewind(events::Ask::List, out);
    }

    /// Whether an Esc now is the second of Esc Esc on an empty input (and notes this one).
    pub(crate) fn double_esc(&mut self) -> bool {
        let second = self
            .last_esc
            .is_some_and(|at| self.now.saturating_duration_since(at) <= DOUBLE_ESC);
        if second || !self.input.text().is_empty() {
            self.last_esc = None;
            return second && self.input.text().is_empty();
        }
        self.last_esc = Some(self.now);
        false
    }

    /// A key while the rewind screens are open; true when they took it. Ctrl+C, Ctrl+D and
    /// Ctrl+L keep their meaning.
    pub(crate) fn rewind_key(&mut self, intent: Intent, out: &mut Vec<Action>) -> bool {
        let Some(rewind) = self.rewind.as_mut() else {
            return false;
        };
        if matches!(
            intent,
            Intent::Interrupt | Intent::FinishThenExit | Intent::Repaint
        ) {
            return false;
        }
        match rewind.step {
            Step::List => self.list_key(intent, out),
            Step::Scope => self.scope_key(intent, out),
            Step::Plan => self.plan_key(intent, out),
        }
        true
    }

    fn list_key(&mut self, intent: Intent, out: &mut Vec<Action>) {
        let Some(rewind) = self.rewind.as_mut() else {
            return;
        };
        let last = rewind.items.len().saturating_sub(1);
        let page = list::page_items(self.height);
        match intent {
            Intent::Dismiss => self.rewind = None,
            Intent::Up | Intent::Insert('k') => rewind.selected = rewind.selected.saturating_sub(1),
            Intent::Down | Intent::Insert('j') => rewind.selected = (rewind.selected + 1).min(last),
            Intent::PageUp => rewind.selected = rewind.selected.saturating_sub(page),
            Intent::PageDown | Intent::Insert(' ') => {
                rewind.selected = (rewind.selected + page).min(last)
            }
            Intent::Home => rewind.selected = 0,
            Intent::End => rewind.selected = last,
            Intent::Submit if rewind.waits_for(Wait::List) => {}
            Intent::Submit => match rewind.chosen() {
                // Undoing a rewind restores code only: straight to its plan.
                Some(item) if item.undo.is_some() => {
                    let ask = events::Ask::Plan {
                        target: item.request,
                        scope: Scope::Code,
                        undo: item.undo.clone(),
                    };
                    rewind.scope = Scope::Code;
                    self.plan_for(ask, out);
                }
                Some(item) => {
                    rewind.scope = if item.restorable {
                        Scope::Both
                    } else {
                        Scope::Conversation
                    };
                    rewind.problem = None;
                    rewind.step = Step::Scope;
                }
                None => self.say(Tone::Info, "no prompt to rewind to (Esc leaves)"),
            },
            _ => self.say(
                Tone::Info,
                "choose a prompt: ↑/↓ or j/k, Enter · Esc leaves the rewind",
            ),
        }
    }

    fn scope_key(&mut self, intent: Intent, out: &mut Vec<Action>) {
        let Some(rewind) = self.rewind.as_mut() else {
            return;
        };
        let at = Scope::ALL
            .iter()
            .position(|s| *s == rewind.scope)
            .unwrap_or(0);
        match intent {
            Intent::Dismiss => {
                rewind.problem = None;
                rewind.step = Step::List;
            }
            Intent::Up | Intent::Insert('k') => rewind.scope = Scope::ALL[at.saturating_sub(1)],
            Intent::Down | Intent::Insert('j') => {
                rewind.scope = Scope::ALL[(at + 1).min(Scope::ALL.len() - 1)]
            }
            Intent::Insert(c @ '1'..='3') => {
                let i = usize::from(c as u8 - b'1');
                rewind.scope = Scope::ALL[i];
            }
            Intent::Submit => {
                let Some(item) = rewind.chosen() else {
                    return;
                };
                if rewind.scope.code() && !item.restorable {
                    rewind.problem = Some(
                        "the files of this turn cannot be restored (no checkpoint was kept); \
                         only the conversation can go back"
                            .to_owned(),
                    );
                    return;
                }
                let ask = events::Ask::Plan {
                    target: item.request,
                    scope: rewind.scope,
                    undo: None,
                };
                self.plan_for(ask, out);
            }
            _ => self.say(
                Tone::Info,
                "choose what goes back: ↑/↓ or 1–3, Enter · Esc goes back",
            ),
        }
    }

    /// Shows the plan screen and asks for the plan of `ask`.
    fn plan_for(&mut self, ask: events::Ask, out: &mut Vec<Action>) {
        if let Some(rewind) = self.rewind.as_mut() {
            rewind.problem = None;
            rewind.choice = None;
            rewind.set_plan(None);
            rewind.step = Step::Plan;
        }
        self.send_rewind(ask, out);
    }

    fn plan_key(&mut self, intent: Intent, out: &mut Vec<Action>) {
        let Some(rewind) = self.rewind.as_mut() else {
            return;
        };
        let step = rewind.page.get().saturating_sub(1).max(1);
        let applying = rewind.waits_for(Wait::Apply);
        match intent {
            Intent::PageDown | Intent::Insert(' ') => rewind.top += step,
            Intent::Down => rewind.top += 1,
            Intent::PageUp => rewind.top = rewind.top.saturating_sub(step),
            Intent::Up => rewind.top = rewind.top.saturating_sub(1),
            Intent::Home => rewind.top = 0,
            Intent::End => rewind.top = usize::MAX / 2,
            _ if applying => self.say(Tone::Info, "the rewind is being applied…"),
            Intent::Dismiss => {
                rewind.waiting = None;
                rewind.problem = None;
                rewind.set_plan(None);
                // An undo has no scope to choose: back to the list.
                let undo = rewind.chosen().is_some_and(|i| i.undo.is_some());
                rewind.step = if undo { Step::List } else { Step::Scope };
            }
            Intent::Insert('k' | 'K') => rewind.choice = Some(ConflictChoice::KeepTheirs),
            Intent::Insert('t' | 'T') => rewind.choice = Some(ConflictChoice::TakeCheckpoint),
            Intent::Submit => {
                let Some(plan) = rewind.plan.as_ref().filter(|_| rewind.waiting.is_none()) else {
                    self.say(Tone::Info, "the plan is still being made");
                    return;
                };
                if !plan.conflicts.is_empty() && rewind.choice.is_none() {
                    rewind.problem = Some(
                        "choose for the conflicts first: k keeps theirs, t takes the \
                         checkpoint's"
                            .to_owned(),
                    );
                    return;
                }
                let Some(item) = rewind.chosen() else {
                    return;
                };
                let ask = events::Ask::Apply {
                    target: item.request,
                    scope: rewind.scope,
                    choice: rewind.choice.unwrap_or(ConflictChoice::KeepTheirs),
                    undo: item.undo.clone(),
                };
                rewind.problem = None;
                self.send_rewind(ask, out);
            }
            _ => self.say(
                Tone::Info,
                "Enter rewinds · k/t choose for conflicts · PgDn/PgUp page · Esc goes back",
            ),
        }
    }
}

/// The body rows a rewind screen shows and which of them must stay in view.
pub(crate) struct Body<'a> {
    /// Every row.
    pub rows: &'a [Line<'static>],
    /// The first row asked for (clamped when drawn).
    pub top: usize,
    /// Rows `start..end` are brought into view (the list's selection).
    pub keep: Option<(usize, usize)>,
}

/// A rewind screen in at most `room` rows: its title, a window of the body, a position line
/// when paged, the problem if any, and the key line. Returns the lines, the first body row
/// shown and how many body rows fit.
pub(crate) fn frame(
    app: &App,
    width: u16,
    room: usize,
    title: &str,
    body: Body<'_>,
    keys: Line<'static>,
) -> (Vec<Line<'static>>, usize, usize) {
    let Body {
        rows: body,
        top,
        keep,
    } = body;
    let theme = app.theme;
    let problem = app
        .rewind
        .as_ref()
        .and_then(|r| r.problem.as_deref())
        .map(|p| {
            super::blocks::notice_lines(
                &super::model::Notice::new(Tone::Warn, p.to_owned()),
                width,
                theme,
            )
        })
        .unwrap_or_default();
    let mut lines = vec![Line::styled(
        truncate(&format!("── {title} "), usize::from(width)),
        theme.accent(),
    )];
    let fixed = lines.len() + problem.len() + 1;
    let paged = body.len() + fixed > room;
    let rows = if paged {
        room.saturating_sub(fixed + 1).max(1)
    } else {
        body.len()
    };
    let mut top = top;
    if let Some((start, end)) = keep {
        if start < top {
            top = start;
        } else if end > top + rows {
            top = end.saturating_sub(rows);
        }
    }
    let top = top.min(body.len().saturating_sub(rows));
    let shown = &body[top..(top + rows).min(body.len())];
    lines.extend(shown.iter().cloned());
    if paged {
        let end = top + shown.len();
        let mut at = format!("{UNDER}rows {}–{end} of {}", top + 1, body.len());
        if end < body.len() {
            at.push_str(" · PgDn/Space more");
        }
        if top > 0 {
            at.push_str(" · PgUp back");
        }
        lines.push(Line::styled(
            truncate(&at, usize::from(width)),
            theme.accent(),
        ));
    }
    lines.extend(problem);
    lines.push(keys);
    (lines, top, rows)
}

/// A key line: `(key, what)` pairs, keys bold, cut to the width.
pub(crate) fn key_line(app: &App, width: u16, pairs: &[(&str, &str)]) -> Line<'static> {
    let theme = app.theme;
    let strong = theme.accent().patch(theme.bold());
    let mut spans = vec![Span::raw(UNDER)];
    let mut used = UNDER.len();
    for (i, (key, what)) in pairs.iter().enumerate() {
        let sep = if i == 0 { "" } else { " · " };
        let w = super::wrap::display_width(sep)
            + super::wrap::display_width(key)
            + 1
            + super::wrap::display_width(what);
        if used + w > usize::from(width) {
            break;
        }
        used += w;
        spans.push(Span::styled(sep, theme.dim()));
        spans.push(Span::styled((*key).to_owned(), strong));
        spans.push(Span::styled(format!(" {what}"), theme.dim()));
    }
    Line::from(spans)
}

/// The rewind screen for the live region, in at most `room` rows (empty when closed).
pub(crate) fn lines(app: &App, width: u16, room: usize) -> Vec<Line<'static>> {
    let Some(rewind) = &app.rewind else {
        return Vec::new();
    };
    match rewind.step {
        Step::List => list::lines(app, rewind, width, room),
        Step::Scope => scope::lines(app, rewind, width, room),
        Step::Plan => plan::lines(app, rewind, width, room),
    }
}

/// The footer's hints while the rewind screens are open.
pub(crate) fn hints(app: &App) -> Option<&'static [&'static str]> {
    let rewind = app.rewind.as_ref()?;
    Some(match rewind.step {
        Step::List => &["Enter choose", "↑/↓ move", "Esc leave"],
        Step::Scope => &["Enter plan", "↑/↓ or 1–3", "Esc back"],
        Step::Plan if rewind.waits_for(Wait::Apply) => &["rewinding…"],
        Step::Plan if rewind.waiting.is_some() || rewind.plan.is_none() => &["Esc back"],
        Step::Plan => &["Enter rewind", "PgDn/PgUp page", "Esc back"],
    })
}
