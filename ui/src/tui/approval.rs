//! Ask mode in the TUI: the call waiting for approval is drawn above the input with its
//! whole action (command line, cwd, environment, stdin, file content, every diff line;
//! wrapped, never cut) and the keys decide it: `y` once, `a` for the session, `n` deny and
//! then an optional reason. When the action does not fit, PgDn/Space and PgUp page through
//! it, and `y`/`a` are refused until all of it has been on screen. The typed input is left
//! alone.

use std::cell::RefCell;
use std::time::{Duration, Instant};

use ansa_sessions::child::ChildId;
use ansa_sessions::protocol::{ApprovalRequest, CommandBody};
use ansa_sessions::{ApprovalDecision, CallId, RequestId};
use ratatui::text::{Line, Span};

use super::app::{Action, App, Entry, Notice, Tone};
use super::approval_body::{BodyRow, body, text_len};
use super::blocks::{INDENT, UNDER, truncate};
use super::input::Input;
use super::keys::Intent;
use crate::approval_text::visible;

/// The orchestrate-mode child an approval comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ChildLabel {
    /// The child (the decision is a `child` command naming it).
    pub id: ChildId,
    /// Its place in the `delegate` call, from 1, as its row shows it.
    pub index: u32,
}

/// A call waiting for the user's decision.
#[derive(Debug, Clone)]
pub(crate) struct ApprovalPrompt {
    /// What the runtime asked.
    pub request: ApprovalRequest,
    /// The child whose call it is; `None` for the task's own calls.
    pub child: Option<ChildLabel>,
    /// `n` was pressed: the reason being typed.
    pub reason: Option<Input>,
    /// The decision was sent; waiting for the runtime to record it.
    pub sent: bool,
    /// First screen row of the action's text asked for (clamped when drawn).
    pub top: usize,
    /// Screen rows of the text the last drawing showed: a page.
    pub page: usize,
    /// Characters of the text, from its start, that have been on screen.
    pub seen: usize,
    /// Characters of the whole text.
    pub total: usize,
    /// `y` or `a` was refused because part of the text was not yet seen.
    pub refused: bool,
    /// Before this instant the approval takes no decision: keys typed meanwhile go to the
    /// input (see [`SETTLE`]).
    pub ready_at: Instant,
    /// The text wrapped at a width, kept between drawings: an action may be megabytes.
    wrapped: RefCell<Option<(u16, Vec<BodyRow>)>>,
}

/// The part of an approval's text one drawing showed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ApprovalWindow {
    /// Its first screen row.
    pub top: usize,
    /// Its screen rows.
    pub rows: usize,
    /// The first character of the text shown.
    pub start: usize,
    /// One past the last.
    pub end: usize,
}

/// How long an approval must have been on screen, with no typing, before a key decides it.
/// Someone typing ahead (a next task, a note) when an approval appears would otherwise answer
/// it with their letters: the `a` of "please ask" approves for the session, and spaces page
/// through the action unread. Every key that types, while the approval waits, goes to the
/// input and pushes this back, so only a deliberate key after a pause decides.
pub(crate) const SETTLE: Duration = Duration::from_millis(600);

impl ApprovalPrompt {
    /// Whether a key may decide the approval now.
    pub(crate) fn ready(&self, now: Instant) -> bool {
        now >= self.ready_at
    }

    /// Whether every character of the action has been on screen.
    pub(crate) fn seen_all(&self) -> bool {
        self.seen >= self.total
    }

    /// Whether every character will have been on screen once `window` is drawn.
    fn seen_with(&self, window: Option<ApprovalWindow>) -> bool {
        self.seen_all() || window.is_some_and(|w| w.start <= self.seen && w.end >= self.total)
    }
}

impl App {
    /// The runtime asks about a call of the followed task, or of one of its children
    /// (whose request and call IDs are its own sub-session's).
    pub(crate) fn on_approval_required(
        &mut self,
        request: ApprovalRequest,
        child: Option<ChildLabel>,
    ) {
        let same = self.approval.as_ref().is_some_and(|a| {
            a.child == child
                && a.request.request_id == request.request_id
                && a.request.call_id == request.call_id
        });
        if !same {
            self.approval = Some(ApprovalPrompt {
                child,
                total: text_len(&request),
                request,
                reason: None,
                sent: false,
                top: 0,
                page: 1,
                seen: 0,
                refused: false,
                ready_at: self.now + SETTLE,
                wrapped: RefCell::new(None),
            });
        }
    }

    /// An approval was recorded: the prompt goes and the decision joins the dialog.
    pub(crate) fn on_approval_decided(
        &mut self,
        child: Option<&ChildId>,
        request_id: RequestId,
        call_id: &CallId,
        decision: ApprovalDecision,
        reason: Option<String>,
    ) {
        let Some(prompt) = self.approval.take_if(|a| {
            a.child.as_ref().map(|c| &c.id) == child
                && a.request.request_id == request_id
                && a.request.call_id == *call_id
        }) else {
            return;
        };
        let summary = &match &prompt.child {
            Some(c) => format!("child {}: {}", c.index, prompt.request.summary),
            None => prompt.request.summary.clone(),
        };
        let (tone, text) = match (decision, reason) {
            (ApprovalDecision::Once, _) => (Tone::Info, format!("approved once: {summary}")),
            (ApprovalDecision::Session, _) => {
                (Tone::Info, format!("approved for this session: {summary}"))
            }
            (ApprovalDecision::Deny, Some(r)) => (Tone::Warn, format!("declined: {summary} — {r}")),
            (ApprovalDecision::Deny, None) => (Tone::Warn, format!("declined: {summary}")),
        };
        self.commit(Entry::Notice(Notice::new(tone, text)));
    }

    /// A key while a call waits for approval; true when the approval took it. Keys that do
    /// not edit (Ctrl+C, panes, Ctrl+L, Ctrl+D) keep their meaning.
    pub(crate) fn approval_key(&mut self, intent: Intent, out: &mut Vec<Action>) -> bool {
        let Some(prompt) = self.approval.as_mut().filter(|a| !a.sent) else {
            return false;
        };
        if let Some(reason) = prompt.reason.as_mut() {
            match intent {
                Intent::Submit => {
                    let text = reason.text().trim().to_owned();
                    let reason = (!text.is_empty()).then_some(text);
                    self.decide(ApprovalDecision::Deny, reason, out);
                }
                Intent::Dismiss => prompt.reason = None,
                Intent::Insert(c) => reason.insert_char(c),
                Intent::Backspace => reason.backspace(),
                Intent::Delete => reason.delete(),
                Intent::Left => reason.left(),
                Intent::Right => reason.right(),
                Intent::WordLeft => reason.word_left(),
                Intent::WordRight => reason.word_right(),
                Intent::Home => reason.home(),
                Intent::End => reason.end(),
                Intent::DeleteWordBack => reason.delete_word_back(),
                Intent::KillToStart => reason.kill_to_start(),
                Intent::KillToEnd => reason.kill_to_end(),
                _ => return false,
            }
            return true;
        }
        let step = prompt.page.saturating_sub(1).max(1);
        let decides = matches!(
            intent,
            Intent::Insert('y' | 'Y' | 'a' | 'A' | 'n' | 'N' | ' ')
        );
        if types(intent) && (!decides || !prompt.ready(self.now)) {
            // Typing, not answering: the key goes to the input, and the approval waits for a
            // pause before it takes a decision.
            prompt.ready_at = prompt.ready_at.max(self.now + SETTLE);
            return false;
        }
        match intent {
            Intent::Insert('y' | 'Y' | 'a' | 'A') if !prompt.request.approvable() => self.say(
                Tone::Warn,
                "this action cannot be shown whole, so it can only be denied: n",
            ),
            Intent::Insert('y' | 'Y' | 'a' | 'A') if !prompt.seen_all() => {
                prompt.refused = true;
                self.say(
                    Tone::Warn,
                    "see the whole action first: PgDn or Space shows the rest, then y or a",
                );
            }
            Intent::Insert('y' | 'Y') => self.decide(ApprovalDecision::Once, None, out),
            Intent::Insert('a' | 'A') => self.decide(ApprovalDecision::Session, None, out),
            Intent::Insert('n' | 'N') => prompt.reason = Some(Input::default()),
            Intent::PageDown | Intent::Insert(' ') => prompt.top += step,
            Intent::Down => prompt.top += 1,
            Intent::PageUp => prompt.top = prompt.top.saturating_sub(step),
            Intent::Up => prompt.top = prompt.top.saturating_sub(1),
            Intent::ToggleMode => self.say(
                Tone::Info,
                "answer the approval first: y once · a for this session · n deny",
            ),
            _ => return false,
        }
        true
    }

    /// A drawing showed `window` of the approval's text: it counts as seen when it follows
    /// on from what was seen before.
    pub(crate) fn approval_drawn(&mut self, window: ApprovalWindow) {
        let Some(prompt) = self.approval.as_mut() else {
            return;
        };
        prompt.top = window.top;
        prompt.page = window.rows.max(1);
        if window.start <= prompt.seen {
            prompt.seen = prompt.seen.max(window.end);
        }
    }

    fn decide(
        &mut self,
        decision: ApprovalDecision,
        reason: Option<String>,
        out: &mut Vec<Action>,
    ) {
        let Some(prompt) = self.approval.as_ref() else {
            return;
        };
        let approve = CommandBody::Approve {
            target: prompt.request.request_id,
            call: prompt.request.call_id.clone(),
            decision,
            reason,
        };
        // A child's call is decided by a `child` command naming it: a plain `approve` never
        // reaches a child.
        let body = match &prompt.child {
            Some(c) => CommandBody::Child {
                child: c.id.clone(),
                command: Box::new(approve),
            },
            None => approve,
        };
        if let Some(command) = self.command(body) {
            out.push(Action::Send(command));
            if let Some(prompt) = self.approval.as_mut() {
                prompt.sent = true;
                prompt.reason = None;
            }
        }
    }
}

/// The approval block of the live region in at most `room` rows when it can (the text
/// paged to fit), and the part of the text it shows — `None` when nothing of the text can be
/// counted as on screen.
pub(crate) fn lines(
    app: &App,
    width: u16,
    room: usize,
) -> (Vec<Line<'static>>, Option<ApprovalWindow>) {
    let Some(prompt) = &app.approval else {
        return (Vec::new(), None);
    };
    let theme = app.theme;
    let request = &prompt.request;
    let strong = theme.accent().patch(theme.bold());
    let mut lines = vec![Line::default()];
    let head = match &prompt.child {
        Some(c) => format!("approve? child {}: {}", c.index, visible(&request.summary)),
        None => format!("approve? {}", visible(&request.summary)),
    };
    let head_room = usize::from(width).saturating_sub(INDENT.len() + 2).max(1);
    lines.push(Line::from(vec![
        Span::raw(INDENT),
        Span::styled("! ", strong),
        Span::styled(truncate(&head, head_room), strong),
    ]));
    let mut cache = prompt.wrapped.borrow_mut();
    if cache.as_ref().is_none_or(|(at, _)| *at != width) {
        *cache = Some((width, body(request, width, theme).0));
    }
    let text: &[BodyRow] = cache.as_ref().map_or(&[], |(_, rows)| rows);
    // The head, the key line, and a position line when the text is paged.
    let fixed = lines.len() + 1;
    let paged = text.len() + fixed > room;
    let rows = if paged {
        room.saturating_sub(fixed + 1).max(1)
    } else {
        text.len()
    };
    let top = prompt.top.min(text.len().saturating_sub(rows));
    let shown = &text[top..(top + rows).min(text.len())];
    lines.extend(shown.iter().map(|r| r.line.clone()));
    let window = match (shown.first(), shown.last()) {
        (Some(first), Some(last)) => Some(ApprovalWindow {
            top,
            rows,
            start: first.start,
            end: last.end,
        }),
        _ => None,
    };
    if paged {
        let end = top + shown.len();
        let mut at = format!("{UNDER}rows {}–{end} of {}", top + 1, text.len());
        if end < text.len() {
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
    let keys = match (&prompt.reason, prompt.sent) {
        (_, true) => Line::styled(format!("{UNDER}recording the decision…"), theme.dim()),
        (Some(reason), false) => Line::from(vec![
            Span::raw(UNDER),
            Span::styled("reason (optional): ", theme.dim()),
            Span::raw(crate::sanitize::flowing(reason.text()).into_owned()),
            Span::styled("▏", theme.accent()),
        ]),
        (None, false) if !prompt.ready(app.now) => Line::from(vec![
            Span::raw(UNDER),
            Span::styled(
                "typing goes to your input · y, a, n answer after a pause",
                theme.dim(),
            ),
        ]),
        (None, false) if !request.approvable() => Line::from(vec![
            Span::raw(UNDER),
            Span::styled("n", strong),
            Span::styled(
                " deny (the only choice: it cannot be shown whole)",
                theme.dim(),
            ),
        ]),
        (None, false) if !prompt.seen_with(window) => {
            let wait = if prompt.refused {
                Span::styled("y/a refused until all is seen", theme.warn())
            } else {
                Span::styled("y/a once all is seen", theme.dim())
            };
            Line::from(vec![
                Span::raw(UNDER),
                Span::styled("PgDn", strong),
                Span::styled(" shows the rest · ", theme.dim()),
                wait,
                Span::styled(" · ", theme.dim()),
                Span::styled("n", strong),
                Span::styled(" deny", theme.dim()),
            ])
        }
        (None, false) => Line::from(vec![
            Span::raw(UNDER),
            Span::styled("y", strong),
            Span::styled(" once · ", theme.dim()),
            Span::styled("a", strong),
            Span::styled(" for this session · ", theme.dim()),
            Span::styled("n", strong),
            Span::styled(" deny", theme.dim()),
        ]),
    };
    lines.push(keys);
    // Rows the live region trims from the top are not on screen; count nothing then.
    let window = window.filter(|_| lines.len() <= room);
    (lines, window)
}

/// The footer's hints while an approval waits.
pub(crate) fn hints(app: &App, window: Option<ApprovalWindow>) -> Option<&'static [&'static str]> {
    let prompt = app.approval.as_ref().filter(|a| !a.sent)?;
    Some(match prompt.reason {
        Some(_) => &["Enter deny", "Esc back", "Ctrl+C cancel"],
        None if !prompt.ready(app.now) => &["PgDn more", "Ctrl+C cancel"],
        None if !prompt.request.approvable() => &["n deny", "Ctrl+C cancel"],
        None if !prompt.seen_with(window) => &["PgDn/Space more", "n deny", "Ctrl+C cancel"],
        None => &[
            "y once",
            "a session",
            "n deny",
            "PgUp/PgDn scroll",
            "Ctrl+C cancel",
        ],
    })
}

/// Whether `intent` types into the input (rather than moving through the approval or the
/// screen): such a key never decides an approval that appeared while the user was typing.
fn types(intent: Intent) -> bool {
    matches!(
        intent,
        Intent::Insert(_)
            | Intent::Newline
            | Intent::Submit
            | Intent::Backspace
            | Intent::Delete
            | Intent::DeleteWordBack
            | Intent::KillToStart
            | Intent::KillToEnd
    )
}
