//! Ask mode in the TUI: the call waiting for approval is drawn above the input (its command
//! line, the edit's diff or the file actions) and the keys decide it: `y` once, `a` for the
//! session, `n` deny and then an optional reason. The typed input is left alone.

use ansa_sessions::protocol::{ApprovalRequest, CommandBody};
use ansa_sessions::{ApprovalDecision, CallId, RequestId};
use ratatui::text::{Line, Span};

use super::app::{Action, App, Entry, Notice, Tone};
use super::blocks::{INDENT, UNDER, diff_lines, truncate};
use super::input::Input;
use super::keys::Intent;
use crate::sanitize::{Form, exact, flowing};

/// Diff lines shown in an approval.
const APPROVAL_DIFF_LINES: usize = 12;

/// A call waiting for the user's decision.
#[derive(Debug, Clone)]
pub(crate) struct ApprovalPrompt {
    /// What the runtime asked.
    pub request: ApprovalRequest,
    /// `n` was pressed: the reason being typed.
    pub reason: Option<Input>,
    /// The decision was sent; waiting for the runtime to record it.
    pub sent: bool,
}

impl App {
    /// The runtime asks about a call of the followed task.
    pub(crate) fn on_approval_required(&mut self, request: ApprovalRequest) {
        let same = self.approval.as_ref().is_some_and(|a| {
            a.request.request_id == request.request_id && a.request.call_id == request.call_id
        });
        if !same {
            self.approval = Some(ApprovalPrompt {
                request,
                reason: None,
                sent: false,
            });
        }
    }

    /// An approval was recorded: the prompt goes and the decision joins the dialog.
    pub(crate) fn on_approval_decided(
        &mut self,
        request_id: RequestId,
        call_id: &CallId,
        decision: ApprovalDecision,
        reason: Option<String>,
    ) {
        let Some(prompt) = self
            .approval
            .take_if(|a| a.request.request_id == request_id && a.request.call_id == *call_id)
        else {
            return;
        };
        let summary = &prompt.request.summary;
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
        match intent {
            Intent::Insert('y' | 'Y') => self.decide(ApprovalDecision::Once, None, out),
            Intent::Insert('a' | 'A') => self.decide(ApprovalDecision::Session, None, out),
            Intent::Insert('n' | 'N') => prompt.reason = Some(Input::default()),
            Intent::Insert(_)
            | Intent::Submit
            | Intent::Newline
            | Intent::Backspace
            | Intent::Delete
            | Intent::ToggleMode => self.say(
                Tone::Info,
                "answer the approval first: y once · a for this session · n deny",
            ),
            _ => return false,
        }
        true
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
        let body = CommandBody::Approve {
            target: prompt.request.request_id,
            call: prompt.request.call_id.clone(),
            decision,
            reason,
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

/// The approval block of the live region.
pub(crate) fn lines(app: &App, width: u16) -> Vec<Line<'static>> {
    let Some(prompt) = &app.approval else {
        return Vec::new();
    };
    let theme = app.theme;
    let request = &prompt.request;
    let room = usize::from(width).saturating_sub(UNDER.len()).max(1);
    let under = |text: &str, style| {
        Line::from(vec![
            Span::raw(UNDER),
            Span::styled(truncate(&exact(text), room), style),
        ])
    };
    let mut lines = vec![Line::default()];
    let head = format!("approve? {}", request.summary);
    lines.push(Line::from(vec![
        Span::raw(INDENT),
        Span::styled("! ", theme.accent().patch(theme.bold())),
        Span::styled(
            truncate(&exact(&head), room),
            theme.accent().patch(theme.bold()),
        ),
    ]));
    if !request.argv.is_empty() {
        lines.push(under(
            &format!("$ {}", shell_words(&request.argv)),
            theme.bold(),
        ));
    }
    if let Some(cwd) = &request.cwd {
        lines.push(under(&format!("in {cwd}"), theme.dim()));
    }
    for action in &request.actions {
        lines.push(under(action, theme.dim()));
    }
    lines.extend(diff_lines(
        &request.diffs,
        APPROVAL_DIFF_LINES,
        "",
        width,
        theme,
        Form::Exact,
    ));
    let keys = match (&prompt.reason, prompt.sent) {
        (_, true) => Line::styled(format!("{UNDER}recording the decision…"), theme.dim()),
        (Some(reason), false) => Line::from(vec![
            Span::raw(UNDER),
            Span::styled("reason (optional): ", theme.dim()),
            Span::raw(flowing(reason.text()).into_owned()),
            Span::styled("▏", theme.accent()),
        ]),
        (None, false) => Line::from(vec![
            Span::raw(UNDER),
            Span::styled("y", theme.accent().patch(theme.bold())),
            Span::styled(" once · ", theme.dim()),
            Span::styled("a", theme.accent().patch(theme.bold())),
            Span::styled(" for this session · ", theme.dim()),
            Span::styled("n", theme.accent().patch(theme.bold())),
            Span::styled(" deny", theme.dim()),
        ]),
    };
    lines.push(keys);
    lines
}

/// The footer's hints while an approval waits.
pub(crate) fn hints(app: &App) -> Option<&'static [&'static str]> {
    let prompt = app.approval.as_ref().filter(|a| !a.sent)?;
    Some(match prompt.reason {
        Some(_) => &["Enter deny", "Esc back", "Ctrl+C cancel"],
        None => &["y once", "a session", "n deny", "Ctrl+C cancel"],
    })
}

/// An argv as a shell would need it typed: words with spaces or quotes are single-quoted.
fn shell_words(argv: &[String]) -> String {
    argv.iter()
        .map(|w| {
            let plain = !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
            if plain {
                w.clone()
            } else {
                format!("'{}'", w.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}
