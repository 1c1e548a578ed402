//! The Responses stream state machine: one call per SSE event.

use serde_json::value::RawValue;

use super::error::{Cx, ResponsesError};
use super::items::{Body, Item, PartKind};
use super::wire::{ErrorWire, Event, ItemHead, ResponseWire, opt};
use super::{CompletedResponse, Usage};
use crate::provider::ToolCall;
use crate::provider::sse::SseEvent;

type Result<T> = std::result::Result<T, ResponsesError>;

/// Between the texts of two assistant messages (a commentary and an answer, say).
const MESSAGE_SEPARATOR: &str = "\n\n";

/// How much of the Responses stream contract a server must keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamProfile {
    /// OpenAI's own API: every event numbered from 0 and addressed by index, every lifecycle
    /// event naming the model.
    Strict,
    /// Other servers (llama.cpp's `llama-server`, …): `sequence_number`, `output_index`,
    /// `content_index` and the lifecycle `model` may be absent. What is present is still
    /// checked, items are then addressed by `item_id`, and nothing is admitted before a
    /// terminal event and a clean end of the stream.
    Compatible,
}

impl StreamProfile {
    /// The profile of a server at `host`: strict for `api.openai.com`, compatible elsewhere.
    pub fn for_host(host: &str) -> StreamProfile {
        if host.eq_ignore_ascii_case("api.openai.com") {
            StreamProfile::Strict
        } else {
            StreamProfile::Compatible
        }
    }
}

/// Reduction state between events.
#[derive(Debug)]
pub(super) struct State {
    profile: StreamProfile,
    model: String,
    events: u64,
    next_seq: u64,
    response_id: Option<String>,
    items: Vec<Item>,
    /// All assistant `output_text` so far, in arrival order.
    preview: String,
    /// The `output_index` of the message the preview's last text came from.
    preview_item: Option<u64>,
    /// Set by `response.completed`.
    completed: Option<Option<Usage>>,
}

impl State {
    pub fn new(model: String, profile: StreamProfile) -> Self {
        Self {
            profile,
            model,
            events: 0,
            next_seq: 0,
            response_id: None,
            items: Vec::new(),
            preview: String::new(),
            preview_item: None,
            completed: None,
        }
    }

    /// Reduces one event.
    /// Bytes of reasoning summary text streamed so far (cheap: no text is built).
    pub(super) fn reasoning_len(&self) -> usize {
        self.summary_parts().map(str::len).sum()
    }

    /// The reasoning summary so far, its parts a blank line apart; `None` while there is none.
    pub(super) fn reasoning_summary(&self) -> Option<String> {
        let parts: Vec<&str> = self.summary_parts().filter(|t| !t.is_empty()).collect();
        (!parts.is_empty()).then(|| parts.join("\n\n"))
    }

    fn summary_parts(&self) -> impl Iterator<Item = &str> {
        self.items.iter().flat_map(|item| match &item.body {
            Body::Reasoning { parts } => parts
                .iter()
                .filter(|p| p.kind == PartKind::SummaryText)
                .map(|p| p.text.as_str())
                .collect::<Vec<_>>(),
            _ => Vec::new(),
        })
    }

    pub fn event(&mut self, ev: SseEvent<'_>, preview: &mut dyn FnMut(&str)) -> Result<()> {
        self.events += 1;
        let mut parsed: Event<'_> =
            serde_json::from_str(ev.data).map_err(|e| ResponsesError::Json {
                at: Cx {
                    event: self.events,
                    seq: None,
                    kind: ev.event,
                }
                .at(),
                message: e.to_string(),
            })?;
        if self.profile == StreamProfile::Compatible && parsed.kind.as_str() != "error" {
            self.fill_in(&mut parsed);
        }
        let kind = parsed.kind.as_str();
        let cx = Cx {
            event: self.events,
            seq: parsed.sequence_number,
            kind,
        };
        if ev.event != "message" && ev.event != kind {
            return Err(ResponsesError::EventName {
                at: cx.at(),
                name: ev.event.to_owned(),
            });
        }
        if self.completed.is_some() {
            return Err(ResponsesError::AfterTerminal { at: cx.at() });
        }
        if kind == "error" {
            return Err(error_event(&cx, &parsed));
        }
        let seq = parsed
            .sequence_number
            .ok_or_else(|| cx.missing("sequence_number"))?;
        if seq != self.next_seq {
            return Err(ResponsesError::Sequence {
                at: cx.at(),
                expected: self.next_seq,
                got: seq,
            });
        }
        self.next_seq += 1;
        if self.response_id.is_none() && kind != "response.created" {
            return Err(ResponsesError::NotCreatedFirst { at: cx.at() });
        }
        self.dispatch(&cx, &parsed, preview)
    }

    fn dispatch(
        &mut self,
        cx: &Cx<'_>,
        ev: &Event<'_>,
        preview: &mut dyn FnMut(&str),
    ) -> Result<()> {
        match cx.kind {
            "response.output_text.delta" => {
                let delta = opt(&ev.delta).ok_or_else(|| cx.missing("delta"))?;
                let item = self.item(cx, ev)?;
                item.part(cx, ev.content_index, PartKind::OutputText)?
                    .text
                    .push_str(delta);
                if !delta.is_empty() {
                    // Messages are separated by a blank line, as in the final text.
                    if self.preview_item != ev.output_index && !self.preview.is_empty() {
                        self.preview.push_str(MESSAGE_SEPARATOR);
                    }
                    self.preview_item = ev.output_index;
                    self.preview.push_str(delta);
                    preview(&self.preview);
                }
                Ok(())
            }
            "response.refusal.delta" => self.delta(cx, ev, PartKind::Refusal),
            "response.reasoning_summary_text.delta" => self.delta(cx, ev, PartKind::SummaryText),
            "response.function_call_arguments.delta" => {
                let delta = opt(&ev.delta).ok_or_else(|| cx.missing("delta"))?;
                self.item(cx, ev)?.arguments(cx)?.push_str(delta);
                Ok(())
            }
            "response.output_text.done" => {
                let text = opt(&ev.text);
                self.item(cx, ev)?.text_done(
                    cx,
                    ev.content_index,
                    PartKind::OutputText,
                    text,
                    "text",
                )
            }
            "response.refusal.done" => {
                let text = opt(&ev.refusal);
                self.item(cx, ev)?.text_done(
                    cx,
                    ev.content_index,
                    PartKind::Refusal,
                    text,
                    "refusal",
                )
            }
            "response.reasoning_summary_text.done" => {
                let text = opt(&ev.text);
                self.item(cx, ev)?.text_done(
                    cx,
                    ev.summary_index,
                    PartKind::SummaryText,
                    text,
                    "text",
                )
            }
            "response.function_call_arguments.done" => {
                let arguments = opt(&ev.arguments);
                self.item(cx, ev)?.arguments_done(cx, arguments)
            }
            "response.content_part.added" => {
                self.item(cx, ev)?
                    .part_added(cx, ev.content_index, ev.part.as_ref(), false)
            }
            "response.content_part.done" => {
                self.item(cx, ev)?
                    .part_done(cx, ev.content_index, ev.part.as_ref(), false)
            }
            "response.reasoning_summary_part.added" => {
                self.item(cx, ev)?
                    .part_added(cx, ev.summary_index, ev.part.as_ref(), true)
            }
            "response.reasoning_summary_part.done" => {
                self.item(cx, ev)?
                    .part_done(cx, ev.summary_index, ev.part.as_ref(), true)
            }
            "response.output_item.added" => {
                let index = ev.output_index.ok_or_else(|| cx.missing("output_index"))?;
                if index != self.items.len() as u64 {
                    return Err(cx.protocol(format!(
                        "output_index {index} is out of order; the next item is {}",
                        self.items.len()
                    )));
                }
                let raw = ev.item.ok_or_else(|| cx.missing("item"))?;
                self.items.push(Item::added(cx, raw)?);
                Ok(())
            }
            "response.output_item.done" => {
                let raw = ev.item.ok_or_else(|| cx.missing("item"))?;
                let item = self.open_item(cx, ev.output_index)?;
                item.finish(cx, raw)
            }
            "response.created" => {
                if self.response_id.is_some() {
                    return Err(cx.protocol("a second response.created"));
                }
                let response = parse_response(cx, ev.response)?;
                let id = match opt(&response.id) {
                    Some(id) if !id.is_empty() => id,
                    _ => return Err(cx.missing("response.id")),
                };
                self.check_model(cx, &response)?;
                self.response_id = Some(id.to_owned());
                Ok(())
            }
            "response.in_progress" => {
                let response = parse_response(cx, ev.response)?;
                self.check_id(cx, opt(&response.id), "response.id")?;
                self.check_model(cx, &response)
            }
            "response.completed" => self.completed(cx, ev.response),
            "response.failed" => {
                let response = parse_response(cx, ev.response)?;
                self.check_id(cx, opt(&response.id), "response.id")?;
                let (code, message) = code_message(response.error.as_ref());
                Err(failure(cx, code, message, Failure::Failed))
            }
            "response.incomplete" => {
                let response = parse_response(cx, ev.response)?;
                self.check_id(cx, opt(&response.id), "response.id")?;
                let reason = response
                    .incomplete_details
                    .as_ref()
                    .and_then(|d| opt(&d.reason))
                    .unwrap_or("unknown");
                Err(ResponsesError::Incomplete {
                    at: cx.at(),
                    reason: reason.to_owned(),
                })
            }
            "response.metadata" => {
                // Non-executable; it only has to belong to this response.
                let id = match (opt(&ev.response_id), ev.response) {
                    (Some(id), None) => Some(id.to_owned()),
                    (None, Some(_)) => opt(&parse_response(cx, ev.response)?.id).map(str::to_owned),
                    _ => None,
                };
                self.check_id(cx, id.as_deref(), "response_id")
            }
            _ => Err(ResponsesError::UnknownEvent { at: cx.at() }),
        }
    }

    /// For a compatible server: the numbering it left out, inferred from the stream so far
    /// (the next sequence number; the item named by `item_id`; its latest part).
    fn fill_in(&self, ev: &mut Event<'_>) {
        ev.sequence_number.get_or_insert(self.next_seq);
        let kind = ev.kind.as_str();
        if ev.output_index.is_none() {
            ev.output_index = if kind == "response.output_item.added" {
                Some(self.items.len() as u64)
            } else {
                let id = opt(&ev.item_id).map(str::to_owned).or_else(|| {
                    ev.item
                        .and_then(|raw| serde_json::from_str::<ItemHead<'_>>(raw.get()).ok())
                        .and_then(|head| opt(&head.id).map(str::to_owned))
                });
                id.and_then(|id| {
                    self.items
                        .iter()
                        .rposition(|i| i.id == id && i.done.is_none())
                })
                .map(|i| i as u64)
            };
        }
        let summary = kind.starts_with("response.reasoning_summary");
        let slot = if summary {
            &mut ev.summary_index
        } else {
            &mut ev.content_index
        };
        if slot.is_none()
            && let Some(item) = ev
                .output_index
                .and_then(|i| self.items.get(usize::try_from(i).ok()?))
        {
            let parts = item.part_count(summary) as u64;
            let adds = kind.ends_with("_part.added");
            *slot = Some(if adds { parts } else { parts.saturating_sub(1) });
        }
    }

    /// A refusal or reasoning-summary delta.
    fn delta(&mut self, cx: &Cx<'_>, ev: &Event<'_>, kind: PartKind) -> Result<()> {
        let delta = opt(&ev.delta).ok_or_else(|| cx.missing("delta"))?;
        let at = if kind == PartKind::SummaryText {
            ev.summary_index
        } else {
            ev.content_index
        };
        self.item(cx, ev)?.part(cx, at, kind)?.text.push_str(delta);
        Ok(())
    }

    /// The open item at `output_index`.
    fn open_item(&mut self, cx: &Cx<'_>, index: Option<u64>) -> Result<&mut Item> {
        let index = index.ok_or_else(|| cx.missing("output_index"))?;
        let item = usize::try_from(index)
            .ok()
            .and_then(|i| self.items.get_mut(i))
            .ok_or_else(|| cx.protocol(format!("output_index {index} names no added item")))?;
        if item.done.is_some() {
            return Err(cx.protocol(format!(
                "item `{}` at output_index {index} is already done",
                item.id
            )));
        }
        Ok(item)
    }

    /// The open item an item-level event addresses, by `output_index` and `item_id`.
    fn item(&mut self, cx: &Cx<'_>, ev: &Event<'_>) -> Result<&mut Item> {
        let item_id = opt(&ev.item_id).ok_or_else(|| cx.missing("item_id"))?;
        let item = self.open_item(cx, ev.output_index)?;
        if item.id != item_id {
            return Err(cx.protocol(format!(
                "item_id `{item_id}` is not the item `{}` at that output_index",
                item.id
            )));
        }
        Ok(item)
    }

    fn check_id(&self, cx: &Cx<'_>, got: Option<&str>, field: &'static str) -> Result<()> {
        let got = got.ok_or_else(|| cx.missing(field))?;
        match &self.response_id {
            Some(expected) if expected == got => Ok(()),
            expected => Err(ResponsesError::ResponseId {
                at: cx.at(),
                expected: expected.clone().unwrap_or_default(),
                got: got.to_owned(),
            }),
        }
    }

    fn check_model(&self, cx: &Cx<'_>, response: &ResponseWire<'_>) -> Result<()> {
        let got = match (opt(&response.model), self.profile) {
            (Some(got), _) => got,
            (None, StreamProfile::Compatible) => return Ok(()),
            (None, StreamProfile::Strict) => return Err(cx.missing("response.model")),
        };
        if got != self.model {
            return Err(ResponsesError::Model {
                at: cx.at(),
                expected: self.model.clone(),
                got: got.to_owned(),
            });
        }
        Ok(())
    }

    /// `response.completed`: every item is done and the final output lists exactly them.
    fn completed(&mut self, cx: &Cx<'_>, raw: Option<&RawValue>) -> Result<()> {
        let response = parse_response(cx, raw)?;
        self.check_id(cx, opt(&response.id), "response.id")?;
        self.check_model(cx, &response)?;
        if let Some(status) = opt(&response.status).filter(|s| *s != "completed") {
            return Err(cx.protocol(format!("response.completed with status `{status}`")));
        }
        if let Some(open) = self.items.iter().find(|i| i.done.is_none()) {
            return Err(cx.protocol(format!(
                "item `{}` was never closed by output_item.done",
                open.id
            )));
        }
        let output = response
            .output
            .as_ref()
            .ok_or_else(|| cx.missing("response.output"))?;
        if output.len() != self.items.len() {
            return Err(cx.protocol(format!(
                "response.output lists {} items, but {} were streamed",
                output.len(),
                self.items.len()
            )));
        }
        for (index, (raw, item)) in output.iter().zip(&self.items).enumerate() {
            let head: ItemHead<'_> = serde_json::from_str(raw.get())
                .map_err(|e| cx.protocol(format!("response.output[{index}]: {e}")))?;
            if head.kind.as_str() != item.type_name() || opt(&head.id) != Some(item.id.as_str()) {
                return Err(cx.protocol(format!(
                    "response.output[{index}] is not the streamed item `{}`",
                    item.id
                )));
            }
        }
        let usage = response.usage.map(|u| Usage {
            input_tokens: u.input_tokens,
            output_tokens: u.output_tokens,
            total_tokens: u.total_tokens,
            cached_tokens: u.input_tokens_details.and_then(|d| d.cached_tokens),
            reasoning_tokens: u.output_tokens_details.and_then(|d| d.reasoning_tokens),
        });
        self.completed = Some(usage);
        Ok(())
    }

    /// The admitted response, or why there is none.
    pub fn into_completed(self) -> Result<CompletedResponse> {
        let (Some(usage), Some(id)) = (self.completed, self.response_id) else {
            return Err(ResponsesError::NoTerminal {
                events: self.events,
            });
        };
        let mut text = String::new();
        let mut refusal = String::new();
        let mut tool_calls = Vec::new();
        let mut output_items = Vec::with_capacity(self.items.len());
        for item in self.items {
            match item.body {
                Body::Message { parts } => {
                    let mut message = String::new();
                    for part in parts {
                        match part.kind {
                            PartKind::OutputText => message.push_str(&part.text),
                            PartKind::Refusal => refusal.push_str(&part.text),
                            PartKind::SummaryText => {}
                        }
                    }
                    if !message.is_empty() && !text.is_empty() {
                        text.push_str(MESSAGE_SEPARATOR);
                    }
                    text.push_str(&message);
                }
                Body::FunctionCall {
                    call_id,
                    name,
                    arguments,
                    ..
                } => tool_calls.push(ToolCall {
                    call_id,
                    name,
                    arguments,
                }),
                Body::Reasoning { .. } => {}
            }
            // `completed` is only set once every item is done.
            output_items.extend(item.done);
        }
        Ok(CompletedResponse {
            id,
            model: self.model,
            output_items,
            text: (!text.is_empty()).then_some(text),
            refusal: (!refusal.is_empty()).then_some(refusal),
            tool_calls,
            usage,
        })
    }
}

fn parse_response<'r>(cx: &Cx<'_>, raw: Option<&'r RawValue>) -> Result<ResponseWire<'r>> {
    let raw = raw.ok_or_else(|| cx.missing("response"))?;
    serde_json::from_str(raw.get())
        .map_err(|e| cx.protocol(format!("invalid response object: {e}")))
}

#[derive(Clone, Copy)]
enum Failure {
    Failed,
    Api,
}

/// A typed error from an error's code and message; context-length errors get their own variant.
fn failure(
    cx: &Cx<'_>,
    code: Option<&str>,
    message: Option<&str>,
    kind: Failure,
) -> ResponsesError {
    let message = message.unwrap_or("(no message)").to_owned();
    if code == Some("context_length_exceeded") {
        return ResponsesError::ContextLengthExceeded {
            at: cx.at(),
            message,
        };
    }
    let code = code.map(str::to_owned);
    match kind {
        Failure::Failed => ResponsesError::Failed {
            at: cx.at(),
            code,
            message,
        },
        Failure::Api => ResponsesError::Api {
            at: cx.at(),
            code,
            message,
        },
    }
}

/// The error object's code and message.
fn code_message<'e>(error: Option<&'e ErrorWire<'_>>) -> (Option<&'e str>, Option<&'e str>) {
    (
        error.and_then(|e| opt(&e.code)),
        error.and_then(|e| opt(&e.message)),
    )
}

/// An `error` event: flat `code`/`message`, or a nested `error` object.
fn error_event(cx: &Cx<'_>, ev: &Event<'_>) -> ResponsesError {
    let (code, message) = match &ev.error {
        Some(nested) => code_message(Some(nested)),
        None => (opt(&ev.code), opt(&ev.message)),
    };
    failure(cx, code, message, Failure::Api)
}
