//! The Chat Completions stream state machine: one call per SSE event.

use serde::Deserialize;

use super::error::ChatError;
use super::{ChatCompletion, FinishReason};
use crate::provider::ToolCall;
use crate::provider::Usage;
use crate::provider::responses::wire::{Str, opt};
use crate::provider::sse::SseEvent;

type Result<T> = std::result::Result<T, ChatError>;

#[derive(Debug, Deserialize)]
struct Chunk<'a> {
    #[serde(borrow)]
    id: Option<Str<'a>>,
    #[serde(borrow)]
    object: Option<Str<'a>>,
    #[serde(borrow)]
    model: Option<Str<'a>>,
    #[serde(borrow)]
    choices: Option<Vec<Choice<'a>>>,
    usage: Option<UsageWire>,
    error: Option<ErrorWire>,
}

#[derive(Debug, Deserialize)]
struct Choice<'a> {
    index: Option<u64>,
    #[serde(borrow)]
    delta: Option<Delta<'a>>,
    #[serde(borrow)]
    finish_reason: Option<Str<'a>>,
}

#[derive(Debug, Deserialize)]
struct Delta<'a> {
    #[serde(borrow)]
    role: Option<Str<'a>>,
    #[serde(borrow)]
    content: Option<Str<'a>>,
    #[serde(borrow)]
    refusal: Option<Str<'a>>,
    #[serde(borrow)]
    tool_calls: Option<Vec<CallDelta<'a>>>,
}

#[derive(Debug, Deserialize)]
struct CallDelta<'a> {
    index: Option<u64>,
    #[serde(borrow)]
    id: Option<Str<'a>>,
    #[serde(rename = "type", borrow)]
    kind: Option<Str<'a>>,
    #[serde(borrow)]
    function: Option<FunctionDelta<'a>>,
}

#[derive(Debug, Deserialize)]
struct FunctionDelta<'a> {
    #[serde(borrow)]
    name: Option<Str<'a>>,
    #[serde(borrow)]
    arguments: Option<Str<'a>>,
}

#[derive(Debug, Deserialize)]
struct UsageWire {
    prompt_tokens: u64,
    completion_tokens: u64,
    total_tokens: u64,
    prompt_tokens_details: Option<PromptDetails>,
    completion_tokens_details: Option<CompletionDetails>,
}

#[derive(Debug, Deserialize)]
struct PromptDetails {
    cached_tokens: Option<u64>,
}

#[derive(Debug, Deserialize)]
struct CompletionDetails {
    reasoning_tokens: Option<u64>,
}

/// Compatible servers send `code` as a string, a number or null.
#[derive(Debug, Deserialize)]
struct ErrorWire {
    code: Option<serde_json::Value>,
    message: Option<String>,
}

/// Reduction state between chunks.
#[derive(Debug)]
pub(super) struct State {
    model: String,
    chunks: u64,
    id: Option<String>,
    text: String,
    refusal: String,
    calls: Vec<ToolCall>,
    finish: Option<FinishReason>,
    usage: Option<Usage>,
    done: bool,
}

impl State {
    pub fn new(model: String) -> Self {
        Self {
            model,
            chunks: 0,
            id: None,
            text: String::new(),
            refusal: String::new(),
            calls: Vec::new(),
            finish: None,
            usage: None,
            done: false,
        }
    }

    fn protocol(&self, message: impl Into<String>) -> ChatError {
        ChatError::Protocol {
            chunk: self.chunks,
            message: message.into(),
        }
    }

    fn missing(&self, field: &'static str) -> ChatError {
        ChatError::MissingField {
            chunk: self.chunks,
            field,
        }
    }

    /// Reduces one SSE event.
    pub fn event(&mut self, ev: SseEvent<'_>, preview: &mut dyn FnMut(&str)) -> Result<()> {
        self.chunks += 1;
        let chunk = self.chunks;
        if self.done {
            return Err(ChatError::AfterDone { chunk });
        }
        if ev.event != "message" {
            return Err(ChatError::UnknownEvent {
                chunk,
                name: ev.event.to_owned(),
            });
        }
        if ev.data == "[DONE]" {
            if self.finish.is_none() {
                return Err(self.protocol("data: [DONE] before any finish_reason"));
            }
            self.done = true;
            return Ok(());
        }
        let parsed: Chunk<'_> = serde_json::from_str(ev.data).map_err(|e| ChatError::Json {
            chunk,
            message: e.to_string(),
        })?;
        if let Some(error) = parsed.error {
            return Err(api_error(chunk, error));
        }
        self.check_identity(&parsed)?;
        let choices = parsed.choices.ok_or_else(|| self.missing("choices"))?;
        if choices.len() > 1 {
            return Err(self.protocol(format!("{} choices; only one was requested", choices.len())));
        }
        if let Some(choice) = choices.into_iter().next() {
            self.choice(choice, preview)?;
        }
        if let Some(u) = parsed.usage {
            self.usage = Some(Usage {
                input_tokens: u.prompt_tokens,
                output_tokens: u.completion_tokens,
                total_tokens: u.total_tokens,
                cached_tokens: u.prompt_tokens_details.and_then(|d| d.cached_tokens),
                reasoning_tokens: u.completion_tokens_details.and_then(|d| d.reasoning_tokens),
            });
        }
        Ok(())
    }

    /// Same completion id on every chunk, the bound model, the chunk object type.
    fn check_identity(&mut self, parsed: &Chunk<'_>) -> Result<()> {
        let chunk = self.chunks;
        let id = opt(&parsed.id).ok_or_else(|| self.missing("id"))?;
        match &self.id {
            None => self.id = Some(id.to_owned()),
            Some(expected) if expected == id => {}
            Some(expected) => {
                return Err(ChatError::Id {
                    chunk,
                    expected: expected.clone(),
                    got: id.to_owned(),
                });
            }
        }
        let model = opt(&parsed.model).ok_or_else(|| self.missing("model"))?;
        if model != self.model {
            return Err(ChatError::Model {
                chunk,
                expected: self.model.clone(),
                got: model.to_owned(),
            });
        }
        if let Some(object) = opt(&parsed.object).filter(|o| *o != "chat.completion.chunk") {
            return Err(self.protocol(format!("object `{object}` is not chat.completion.chunk")));
        }
        Ok(())
    }

    fn choice(&mut self, choice: Choice<'_>, preview: &mut dyn FnMut(&str)) -> Result<()> {
        if self.finish.is_some() {
            return Err(self.protocol("a choice after the finish_reason"));
        }
        if let Some(index) = choice.index.filter(|i| *i != 0) {
            return Err(self.protocol(format!("choice index {index}; only choice 0 exists")));
        }
        if let Some(delta) = choice.delta {
            if let Some(role) = opt(&delta.role).filter(|r| *r != "assistant") {
                return Err(self.protocol(format!("delta role `{role}` is not assistant")));
            }
            if let Some(content) = opt(&delta.content).filter(|c| !c.is_empty()) {
                self.text.push_str(content);
                preview(&self.text);
            }
            if let Some(refusal) = opt(&delta.refusal) {
                self.refusal.push_str(refusal);
            }
            for call in delta.tool_calls.into_iter().flatten() {
                self.call(call)?;
            }
        }
        if let Some(reason) = opt(&choice.finish_reason) {
            let chunk = self.chunks;
            self.finish = Some(match reason {
                "stop" => FinishReason::Stop,
                "tool_calls" if !self.calls.is_empty() => FinishReason::ToolCalls,
                "tool_calls" => return Err(self.protocol("finish_reason tool_calls without calls")),
                "length" => return Err(ChatError::Length { chunk }),
                "content_filter" => return Err(ChatError::ContentFilter { chunk }),
                other => {
                    return Err(ChatError::UnknownFinishReason {
                        chunk,
                        reason: other.to_owned(),
                    });
                }
            });
        }
        Ok(())
    }

    /// One `delta.tool_calls[]` entry: a new call opens the next index with its id and name;
    /// later entries for an index append to its arguments.
    fn call(&mut self, delta: CallDelta<'_>) -> Result<()> {
        let chunk = self.chunks;
        let index = delta
            .index
            .ok_or_else(|| self.missing("tool_calls.index"))?;
        if let Some(kind) = opt(&delta.kind).filter(|k| *k != "function") {
            return Err(self.protocol(format!("tool call type `{kind}` is not function")));
        }
        let id = opt(&delta.id).filter(|s| !s.is_empty());
        let (name, arguments) = match &delta.function {
            Some(f) => (
                opt(&f.name).filter(|s| !s.is_empty()),
                opt(&f.arguments).unwrap_or_default(),
            ),
            None => (None, ""),
        };
        let next = self.calls.len() as u64;
        if index == next {
            let id = id.ok_or_else(|| self.missing("tool_calls.id"))?;
            let name = name.ok_or_else(|| self.missing("tool_calls.function.name"))?;
            self.calls.push(ToolCall {
                call_id: id.to_owned(),
                name: name.to_owned(),
                arguments: arguments.to_owned(),
            });
            return Ok(());
        }
        let Some(call) = usize::try_from(index)
            .ok()
            .and_then(|i| self.calls.get_mut(i))
        else {
            return Err(ChatError::ToolCallIndex {
                chunk,
                expected: next,
                got: index,
            });
        };
        if id.is_some_and(|id| id != call.call_id) || name.is_some_and(|n| n != call.name) {
            return Err(ChatError::Protocol {
                chunk,
                message: format!("tool call {index} changed its id or function name"),
            });
        }
        call.arguments.push_str(arguments);
        Ok(())
    }

    /// The admitted completion, or why there is none.
    pub fn into_completion(self) -> Result<ChatCompletion> {
        let (true, Some(id), Some(finish_reason)) = (self.done, self.id, self.finish) else {
            return Err(ChatError::NoDone {
                chunks: self.chunks,
            });
        };
        Ok(ChatCompletion {
            id,
            model: self.model,
            text: (!self.text.is_empty()).then_some(self.text),
            refusal: (!self.refusal.is_empty()).then_some(self.refusal),
            tool_calls: self.calls,
            usage: self.usage,
            finish_reason,
        })
    }
}

fn api_error(chunk: u64, error: ErrorWire) -> ChatError {
    let code = match error.code {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::String(code)) => Some(code),
        Some(other) => Some(other.to_string()),
    };
    let message = error.message.unwrap_or_else(|| "(no message)".to_owned());
    if code.as_deref() == Some("context_length_exceeded") {
        return ChatError::ContextLengthExceeded { chunk, message };
    }
    ChatError::Api {
        chunk,
        code,
        message,
    }
}
