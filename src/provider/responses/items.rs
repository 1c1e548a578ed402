//! One output item while it streams: opened by `output_item.added`, grown by part and delta
//! events, closed by `output_item.done`, whose item must agree with everything streamed.

use serde_json::value::RawValue;

use super::error::{Cx, ResponsesError};
use super::wire::{ItemWire, Part, Str, opt};

type Result<T> = std::result::Result<T, ResponsesError>;

/// The kind of a content or summary part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PartKind {
    OutputText,
    Refusal,
    SummaryText,
}

impl PartKind {
    fn wire(self) -> &'static str {
        match self {
            Self::OutputText => "output_text",
            Self::Refusal => "refusal",
            Self::SummaryText => "summary_text",
        }
    }

    /// The part's text as the wire object carries it.
    fn text_of<'p>(self, part: &'p Part<'_>) -> Option<&'p str> {
        match self {
            Self::Refusal => opt(&part.refusal),
            Self::OutputText | Self::SummaryText => opt(&part.text),
        }
    }
}

/// A content part of a message, or a summary part of a reasoning item.
#[derive(Debug)]
pub(super) struct PartState {
    pub kind: PartKind,
    pub text: String,
    text_done: bool,
    done: bool,
}

/// What an item is, with its streamed state.
#[derive(Debug)]
pub(super) enum Body {
    Message {
        parts: Vec<PartState>,
    },
    FunctionCall {
        call_id: String,
        name: String,
        arguments: String,
        arguments_done: bool,
    },
    Reasoning {
        parts: Vec<PartState>,
    },
}

/// One output item.
#[derive(Debug)]
pub(super) struct Item {
    pub id: String,
    pub body: Body,
    /// The final item exactly as `output_item.done` carried it.
    pub done: Option<Box<RawValue>>,
}

fn parse_item<'r>(cx: &Cx<'_>, raw: &'r RawValue) -> Result<ItemWire<'r>> {
    serde_json::from_str(raw.get()).map_err(|e| cx.protocol(format!("invalid item: {e}")))
}

fn differs(cx: &Cx<'_>, what: &str, got: &str, streamed: &str) -> ResponsesError {
    cx.protocol(format!(
        "{what} ({} bytes) differs from what was streamed ({} bytes)",
        got.len(),
        streamed.len()
    ))
}

fn index(cx: &Cx<'_>, index: Option<u64>, field: &'static str) -> Result<u64> {
    index.ok_or_else(|| cx.missing(field))
}

impl Item {
    /// Opens the item announced by `output_item.added`.
    pub fn added(cx: &Cx<'_>, raw: &RawValue) -> Result<Self> {
        let wire = parse_item(cx, raw)?;
        let id = match opt(&wire.id) {
            Some(id) if !id.is_empty() => id.to_owned(),
            _ => return Err(cx.missing("item.id")),
        };
        let body = match wire.kind.as_str() {
            "message" => {
                if opt(&wire.role) != Some("assistant") {
                    return Err(cx.protocol(format!(
                        "message item `{id}` has role {:?}, expected \"assistant\"",
                        opt(&wire.role)
                    )));
                }
                if wire.content.as_ref().is_some_and(|c| !c.is_empty()) {
                    return Err(cx.protocol(format!(
                        "message item `{id}` is added with content; parts must stream"
                    )));
                }
                Body::Message { parts: Vec::new() }
            }
            "function_call" => {
                let required = |s: &Option<Str<'_>>, field| match opt(s) {
                    Some(v) if !v.is_empty() => Ok(v.to_owned()),
                    _ => Err(cx.missing(field)),
                };
                Body::FunctionCall {
                    call_id: required(&wire.call_id, "item.call_id")?,
                    name: required(&wire.name, "item.name")?,
                    arguments: opt(&wire.arguments).unwrap_or_default().to_owned(),
                    arguments_done: false,
                }
            }
            "reasoning" => {
                if wire.summary.as_ref().is_some_and(|s| !s.is_empty()) {
                    return Err(cx.protocol(format!(
                        "reasoning item `{id}` is added with a summary; parts must stream"
                    )));
                }
                Body::Reasoning { parts: Vec::new() }
            }
            other => {
                return Err(ResponsesError::UnknownItem {
                    at: cx.at(),
                    item_type: other.to_owned(),
                });
            }
        };
        Ok(Self {
            id,
            body,
            done: None,
        })
    }

    /// The item's wire `type`.
    pub fn type_name(&self) -> &'static str {
        match self.body {
            Body::Message { .. } => "message",
            Body::FunctionCall { .. } => "function_call",
            Body::Reasoning { .. } => "reasoning",
        }
    }

    /// How many parts of the kind (`summary`: reasoning summary parts) were added so far.
    pub fn part_count(&self, summary: bool) -> usize {
        match (&self.body, summary) {
            (Body::Message { parts }, false) | (Body::Reasoning { parts }, true) => parts.len(),
            _ => 0,
        }
    }

    /// The parts of a message (`summary == false`) or of a reasoning item (`summary == true`).
    fn parts_mut(&mut self, cx: &Cx<'_>, summary: bool) -> Result<&mut Vec<PartState>> {
        let kind = self.type_name();
        match (&mut self.body, summary) {
            (Body::Message { parts }, false) | (Body::Reasoning { parts }, true) => Ok(parts),
            _ => Err(cx.protocol(format!(
                "`{}` does not apply to {kind} item `{}`",
                cx.kind, self.id
            ))),
        }
    }

    /// `content_part.added` / `reasoning_summary_part.added`.
    pub fn part_added(
        &mut self,
        cx: &Cx<'_>,
        at: Option<u64>,
        part: Option<&Part<'_>>,
        summary: bool,
    ) -> Result<()> {
        let field = if summary {
            "summary_index"
        } else {
            "content_index"
        };
        let at = index(cx, at, field)?;
        let part = part.ok_or_else(|| cx.missing("part"))?;
        let kind = match (part.kind.as_str(), summary) {
            ("output_text", false) => PartKind::OutputText,
            ("refusal", false) => PartKind::Refusal,
            ("summary_text", true) => PartKind::SummaryText,
            (other, _) => return Err(cx.protocol(format!("unsupported part type `{other}`"))),
        };
        let text = kind.text_of(part).unwrap_or_default().to_owned();
        let parts = self.parts_mut(cx, summary)?;
        if at != parts.len() as u64 {
            return Err(cx.protocol(format!(
                "{field} {at} is out of order; the next part is {}",
                parts.len()
            )));
        }
        parts.push(PartState {
            kind,
            text,
            text_done: false,
            done: false,
        });
        Ok(())
    }

    /// The open part at `at` for a delta or text-done event of `kind`.
    pub fn part(&mut self, cx: &Cx<'_>, at: Option<u64>, kind: PartKind) -> Result<&mut PartState> {
        let summary = kind == PartKind::SummaryText;
        let field = if summary {
            "summary_index"
        } else {
            "content_index"
        };
        let at = index(cx, at, field)?;
        let parts = self.parts_mut(cx, summary)?;
        let part = usize::try_from(at)
            .ok()
            .and_then(|i| parts.get_mut(i))
            .ok_or_else(|| cx.protocol(format!("{field} {at} names no added part")))?;
        if part.kind != kind {
            return Err(cx.protocol(format!(
                "part {at} is a `{}` part, not `{}`",
                part.kind.wire(),
                kind.wire()
            )));
        }
        if part.text_done {
            return Err(cx.protocol(format!("part {at}'s text is already done")));
        }
        Ok(part)
    }

    /// `output_text.done` / `refusal.done` / `reasoning_summary_text.done`.
    pub fn text_done(
        &mut self,
        cx: &Cx<'_>,
        at: Option<u64>,
        kind: PartKind,
        text: Option<&str>,
        field: &'static str,
    ) -> Result<()> {
        let part = self.part(cx, at, kind)?;
        let text = text.ok_or_else(|| cx.missing(field))?;
        if text != part.text {
            return Err(differs(cx, field, text, &part.text));
        }
        part.text_done = true;
        Ok(())
    }

    /// `content_part.done` / `reasoning_summary_part.done`.
    pub fn part_done(
        &mut self,
        cx: &Cx<'_>,
        at: Option<u64>,
        part: Option<&Part<'_>>,
        summary: bool,
    ) -> Result<()> {
        let wire = part.ok_or_else(|| cx.missing("part"))?;
        let field = if summary {
            "summary_index"
        } else {
            "content_index"
        };
        let at = index(cx, at, field)?;
        let parts = self.parts_mut(cx, summary)?;
        let part = usize::try_from(at)
            .ok()
            .and_then(|i| parts.get_mut(i))
            .ok_or_else(|| cx.protocol(format!("{field} {at} names no added part")))?;
        if part.done || !part.text_done {
            return Err(cx.protocol(format!(
                "part {at} cannot close: {}",
                if part.done {
                    "it is already done"
                } else {
                    "its text has no done event yet"
                }
            )));
        }
        if wire.kind.as_str() != part.kind.wire() || part.kind.text_of(wire) != Some(&part.text) {
            return Err(cx.protocol(format!(
                "part {at} differs from the `{}` part that was streamed",
                part.kind.wire()
            )));
        }
        part.done = true;
        Ok(())
    }

    /// The arguments of an open function call, for a delta.
    pub fn arguments(&mut self, cx: &Cx<'_>) -> Result<&mut String> {
        let (kind, id) = (self.type_name(), &self.id);
        match &mut self.body {
            Body::FunctionCall {
                arguments,
                arguments_done: false,
                ..
            } => Ok(arguments),
            Body::FunctionCall { .. } => Err(cx.protocol(format!(
                "the arguments of function call `{id}` are already done"
            ))),
            _ => Err(cx.protocol(format!(
                "`{}` does not apply to {kind} item `{id}`",
                cx.kind
            ))),
        }
    }

    /// `function_call_arguments.done`.
    pub fn arguments_done(&mut self, cx: &Cx<'_>, done: Option<&str>) -> Result<()> {
        let done = done.ok_or_else(|| cx.missing("arguments"))?;
        let streamed = self.arguments(cx)?;
        if done != streamed.as_str() {
            return Err(differs(cx, "arguments", done, streamed));
        }
        if let Body::FunctionCall { arguments_done, .. } = &mut self.body {
            *arguments_done = true;
        }
        Ok(())
    }

    /// `output_item.done`: the final item must agree with the streamed one.
    pub fn finish(&mut self, cx: &Cx<'_>, raw: &RawValue) -> Result<()> {
        let wire = parse_item(cx, raw)?;
        if wire.kind.as_str() != self.type_name() || opt(&wire.id) != Some(self.id.as_str()) {
            return Err(cx.protocol(format!(
                "the done item ({} `{}`) is not the added {} `{}`",
                wire.kind.as_str(),
                opt(&wire.id).unwrap_or_default(),
                self.type_name(),
                self.id
            )));
        }
        if let Some(status) = opt(&wire.status).filter(|s| *s != "completed") {
            return Err(cx.protocol(format!("item `{}` ends with status `{status}`", self.id)));
        }
        match &self.body {
            Body::Message { parts } => {
                if opt(&wire.role) != Some("assistant") {
                    return Err(
                        cx.protocol(format!("message `{}` lost its assistant role", self.id))
                    );
                }
                check_parts(cx, &self.id, parts, wire.content.as_deref(), "content")?;
            }
            Body::FunctionCall {
                call_id,
                name,
                arguments,
                arguments_done,
            } => {
                if !arguments_done {
                    return Err(cx.protocol(format!(
                        "function call `{}` ends before function_call_arguments.done",
                        self.id
                    )));
                }
                if opt(&wire.call_id) != Some(call_id) || opt(&wire.name) != Some(name) {
                    return Err(cx.protocol(format!(
                        "function call `{}` changed its call_id or name",
                        self.id
                    )));
                }
                let done = opt(&wire.arguments).unwrap_or_default();
                if done != arguments {
                    return Err(differs(cx, "item arguments", done, arguments));
                }
            }
            Body::Reasoning { parts } => {
                // Without `encrypted_content` (llama.cpp, vLLM, a model not asked for it) the
                // item is admitted and kept, but never re-sent (`provider::reasoning`).
                check_parts(cx, &self.id, parts, wire.summary.as_deref(), "summary")?;
            }
        }
        self.done = Some(raw.to_owned());
        Ok(())
    }
}

/// Every streamed part is done and the final item lists exactly those parts.
fn check_parts(
    cx: &Cx<'_>,
    id: &str,
    parts: &[PartState],
    wire: Option<&[Part<'_>]>,
    field: &str,
) -> Result<()> {
    if let Some(open) = parts.iter().position(|p| !p.done) {
        return Err(cx.protocol(format!("item `{id}` ends while part {open} is still open")));
    }
    let wire = wire.unwrap_or_default();
    let same = wire.len() == parts.len()
        && wire.iter().zip(parts).all(|(w, p)| {
            w.kind.as_str() == p.kind.wire() && p.kind.text_of(w) == Some(p.text.as_str())
        });
    if !same {
        return Err(cx.protocol(format!(
            "item `{id}`'s final {field} differs from the {} parts that were streamed",
            parts.len()
        )));
    }
    Ok(())
}
