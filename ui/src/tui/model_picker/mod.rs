//! `/model` (issue 44 item 5): switching the session's model, never silently. The picker
//! asks the runtime for the provider's catalog (`models` → `model_catalog`), lists it in the
//! region above the input (↑/↓ choose, Enter select, Esc close), then for a reasoning model
//! the efforts it takes (or the provider's default); Enter sends `model`. The switch is shown
//! when the runtime says the `rebinding` is durable (`rebound`): one line in the history, and
//! the model and effort in `/status`. It applies from the next turn; a running one finishes
//! on its own model. Catalog IDs come from a server: every one is shown exactly.

use ansa_sessions::protocol::{CatalogModel, CommandBody, ModelCatalog, ModelChoice, Rebound};
use ansa_sessions::{CommandId, Effort, ModelBinding, RebindSource};
use ratatui::text::Line;

use super::app::App;
use super::keys::Intent;
use super::model::{Action, Entry, Notice, Tone};
use crate::sanitize::exact;

/// The `/model` state of the TUI: the open picker and the binding last reported.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ModelSwitch {
    /// The picker, while open.
    pub picker: Option<Picker>,
    /// The `model` command sent, until it is answered.
    pub sent: Option<CommandId>,
    /// The binding in force as the runtime last reported it (a catalog or a rebinding).
    pub current: Option<ModelBinding>,
}

/// The picker's screens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Picker {
    /// Waiting for the catalog.
    Loading(CommandId),
    /// Choosing a model.
    Models {
        /// The catalog.
        models: Vec<CatalogModel>,
        /// The highlighted row.
        selected: usize,
    },
    /// Choosing the effort of a reasoning model (row 0: the provider's default).
    Efforts {
        /// The chosen model.
        model: CatalogModel,
        /// The highlighted row.
        selected: usize,
    },
}

impl App {
    /// `/model`: asks for the catalog and opens the picker.
    pub(crate) fn open_model_picker(&mut self, out: &mut Vec<Action>) {
        let Some(command) = self.command(CommandBody::Models) else {
            self.say(
                Tone::Warn,
                "the session is still opening; try /model again in a moment",
            );
            return;
        };
        self.model_switch.picker = Some(Picker::Loading(command.command_id.clone()));
        out.push(Action::Send(command));
    }

    /// The catalog the picker asked for.
    pub(crate) fn on_model_catalog(&mut self, catalog: ModelCatalog) {
        self.model_switch.current = Some(catalog.current.clone());
        let Some(Picker::Loading(id)) = &self.model_switch.picker else {
            return;
        };
        if *id != catalog.command_id {
            return;
        }
        let selected = catalog
            .models
            .iter()
            .position(|m| m.id == catalog.current.model)
            .unwrap_or(0);
        self.model_switch.picker = Some(Picker::Models {
            models: catalog.models,
            selected,
        });
    }

    /// The runtime recorded a rebinding: one line in the history, the header's model and
    /// `/status` follow it.
    pub(crate) fn on_rebound(&mut self, rebound: Rebound) {
        if rebound.command_id.is_some() && rebound.command_id == self.model_switch.sent {
            self.model_switch.sent = None;
        }
        let when = match (rebound.source, self.task.is_some()) {
            (RebindSource::Open, _) => "for this session's next turns",
            (RebindSource::Command, true) => "from the next turn (the running one keeps its model)",
            (RebindSource::Command, false) => "from the next turn",
        };
        self.commit(Entry::Notice(Notice::new(
            Tone::Info,
            format!("model: {} → {} {when}", rebound.from, rebound.to),
        )));
        self.model = rebound.to.to_string();
        // The fill is measured against the new model's window (`?` when the config gives
        // none: the old model's would be wrong).
        self.meter.window = self
            .meter
            .windows
            .iter()
            .find(|(name, _)| *name == rebound.to.model)
            .map(|(_, w)| *w);
        self.model_switch.current = Some(rebound.to);
    }

    /// An error answering `/model`: the picker closes and the error is said. `true` when the
    /// error was the picker's.
    pub(crate) fn model_refused(&mut self, id: &CommandId, message: &str) -> bool {
        let picker = matches!(&self.model_switch.picker, Some(Picker::Loading(p)) if p == id);
        let sent = self.model_switch.sent.as_ref() == Some(id);
        if !picker && !sent {
            return false;
        }
        if picker {
            self.model_switch.picker = None;
        }
        if sent {
            self.model_switch.sent = None;
        }
        self.say(Tone::Warn, format!("/model: {message}"));
        true
    }

    /// Keys while the picker is open; `false` leaves the key to the rest of the TUI.
    pub(crate) fn model_key(&mut self, intent: Intent, out: &mut Vec<Action>) -> bool {
        let Some(picker) = self.model_switch.picker.as_mut() else {
            return false;
        };
        let rows = match picker {
            Picker::Loading(_) => 0,
            Picker::Models { models, .. } => models.len(),
            Picker::Efforts { model, .. } => model.efforts.len() + 1,
        };
        let selected = match picker {
            Picker::Loading(_) => None,
            Picker::Models { selected, .. } | Picker::Efforts { selected, .. } => Some(selected),
        };
        match (intent, selected) {
            (Intent::Dismiss, _) => self.model_switch.picker = None,
            (Intent::Up, Some(s)) => *s = s.saturating_sub(1),
            (Intent::Down, Some(s)) => *s = (*s + 1).min(rows.saturating_sub(1)),
            (Intent::PageUp, Some(s)) => *s = s.saturating_sub(10),
            (Intent::PageDown, Some(s)) => *s = (*s + 10).min(rows.saturating_sub(1)),
            (Intent::Home, Some(s)) => *s = 0,
            (Intent::End, Some(s)) => *s = rows.saturating_sub(1),
            (Intent::Submit, Some(_)) => self.model_choose(out),
            // Typing goes nowhere while the list is open: nothing is lost from the input.
            _ => {}
        }
        true
    }

    /// Enter in the picker: a reasoning model asks for its effort next; otherwise `model` is
    /// sent.
    fn model_choose(&mut self, out: &mut Vec<Action>) {
        let choice = match self.model_switch.picker.take() {
            Some(Picker::Models { models, selected }) => match models.into_iter().nth(selected) {
                Some(model) if !model.efforts.is_empty() => {
                    let current = self.model_switch.current.as_ref();
                    let selected = current
                        .filter(|c| c.model == model.id)
                        .and_then(|c| c.effort)
                        .and_then(|e| model.efforts.iter().position(|x| *x == e))
                        .map_or(0, |i| i + 1);
                    self.model_switch.picker = Some(Picker::Efforts { model, selected });
                    return;
                }
                Some(model) => ModelChoice {
                    model: model.id,
                    effort: None,
                },
                None => return,
            },
            Some(Picker::Efforts { model, selected }) => ModelChoice {
                effort: selected
                    .checked_sub(1)
                    .and_then(|i| model.efforts.get(i).copied()),
                model: model.id,
            },
            other => {
                self.model_switch.picker = other;
                return;
            }
        };
        let Some(command) = self.command(CommandBody::Model(choice)) else {
            return;
        };
        self.model_switch.sent = Some(command.command_id.clone());
        out.push(Action::Send(command));
    }
}

/// The `/status` row of the model: the model in force and its reasoning effort.
pub(crate) fn status_text(app: &App) -> String {
    match &app.model_switch.current {
        Some(b) => {
            let effort = match (b.reasoning, b.effort) {
                (_, Some(e)) => format!("effort {e}"),
                (true, None) => "effort: the provider's default".to_owned(),
                (false, None) => "no reasoning effort".to_owned(),
            };
            let returned = if b.returned_model == b.model {
                String::new()
            } else {
                format!(" · answers as {}", b.returned_model)
            };
            format!("{} · {effort}{returned} · /model switches", b.model)
        }
        None if app.model.is_empty() => "—".to_owned(),
        None => format!("{} · /model switches", app.model),
    }
}

/// The footer's hints while the picker is open.
pub(crate) fn hints(app: &App) -> Option<&'static [&'static str]> {
    app.model_switch.picker.as_ref()?;
    Some(&["↑/↓ choose", "Enter select", "Esc close"])
}

/// The picker in at most `room` rows (the highlighted row always among them).
pub(crate) fn lines(app: &App, width: u16, room: usize) -> Vec<Line<'static>> {
    let theme = app.theme;
    let Some(picker) = &app.model_switch.picker else {
        return Vec::new();
    };
    let (title, rows, selected) = match picker {
        Picker::Loading(_) => {
            return vec![Line::styled(
                "  /model: reading the provider's model catalog…",
                theme.dim(),
            )];
        }
        Picker::Models { models, selected } => {
            let current = app.model_switch.current.as_ref();
            let rows: Vec<String> = models
                .iter()
                .map(|m| {
                    let mark = if current.is_some_and(|c| c.model == m.id) {
                        " (current)"
                    } else {
                        ""
                    };
                    let efforts = if m.efforts.is_empty() {
                        String::new()
                    } else {
                        format!(" · reasons: {}", effort_list(&m.efforts))
                    };
                    format!("{}{mark}{efforts}", exact(&m.id))
                })
                .collect();
            let count = match models.len() {
                1 => "1 model".to_owned(),
                n => format!("{n} models"),
            };
            let title = format!("  /model · {count} · the next turn uses the one chosen");
            (title, rows, *selected)
        }
        Picker::Efforts { model, selected } => {
            let rows = std::iter::once("the provider's default".to_owned())
                .chain(model.efforts.iter().map(|e| e.as_str().to_owned()))
                .collect();
            (
                format!("  /model {} · reasoning effort", exact(&model.id)),
                rows,
                *selected,
            )
        }
    };
    let page = room.saturating_sub(1).max(1);
    let top = selected
        .saturating_sub(page.saturating_sub(1))
        .min(rows.len().saturating_sub(page));
    let mut out = vec![Line::styled(cut(&title, width), theme.accent())];
    for (i, row) in rows.iter().enumerate().skip(top).take(page) {
        let (marker, style) = if i == selected {
            ("› ", theme.accent().patch(theme.bold()))
        } else {
            ("  ", ratatui::style::Style::default())
        };
        out.push(Line::styled(cut(&format!("  {marker}{row}"), width), style));
    }
    out
}

fn effort_list(efforts: &[Effort]) -> String {
    efforts
        .iter()
        .map(|e| e.as_str())
        .collect::<Vec<_>>()
        .join("/")
}

/// `text` cut to `width` columns (one row per entry; a long ID ends with `…`).
fn cut(text: &str, width: u16) -> String {
    let width = usize::from(width);
    if unicode_width::UnicodeWidthStr::width(text) <= width {
        return text.to_owned();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push('…');
    out
}

#[cfg(test)]
mod tests;
