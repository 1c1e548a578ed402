//! The live providers: the Responses API and OpenAI-compatible Chat Completions behind the
//! [`Provider`] trait. A generation is one streamed request; its body is fed to the strict
//! reducer while it arrives (previews as text grows), and only a response the reducer admitted
//! after a clean end of stream becomes a model turn — nothing runs from anything less.

mod context;
mod errors;

use std::sync::atomic::AtomicBool;

use super::chat::{ChatReducer, request_body as chat_body};
use super::http::{
    ClientOptions, Headers, HttpClient, Limits, MimePolicy, StreamError, StreamRequest,
};
use super::responses::{ResponsesReducer, StreamProfile, request_body as responses_body};
use super::sse::SseLimits;
use super::{
    Generated, GenerationRequest, ModelTurn, NativeItem, Provider, ProviderError, ToolCall, Usage,
};
use crate::config::{Config, Provider as ProviderConfig, Secret};

pub use errors::LiveSetupError;

/// Which wire protocol a live provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// `POST {base}/responses`.
    Responses,
    /// `POST {base}/chat/completions`.
    Chat,
}

impl Wire {
    fn path(self) -> &'static str {
        match self {
            Wire::Responses => "/responses",
            Wire::Chat => "/chat/completions",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Wire::Responses => "responses",
            Wire::Chat => "chat",
        }
    }
}

/// A live provider bound to one model and the exact model name it must report back.
#[derive(Debug)]
pub struct LiveProvider {
    wire: Wire,
    client: HttpClient,
    headers: Headers,
    model: String,
    returned_model: String,
    profile: StreamProfile,
    reasoning: bool,
}

/// Whether OpenAI's catalog makes `model` a reasoning model (GPT-5 and later, the o-series,
/// codex models); other servers' models are taken as non-reasoning unless configured.
pub fn catalog_reasoning(host: &str, model: &str) -> bool {
    if !host.eq_ignore_ascii_case("api.openai.com") {
        return false;
    }
    let leading = |s: &str| -> Option<u32> {
        let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    };
    match model.strip_prefix("gpt-") {
        Some(rest) => leading(rest).is_some_and(|major| major >= 5),
        None => model.starts_with("codex") || model.strip_prefix('o').and_then(leading).is_some(),
    }
}

/// The host of a base URL (empty when it has none).
pub fn host_of(base_url: &str) -> String {
    reqwest::Url::parse(base_url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_owned))
        .unwrap_or_default()
}

impl LiveProvider {
    /// Builds the provider of an effective config (`responses` or `chat`).
    pub fn from_config(config: &Config) -> Result<Self, LiveSetupError> {
        let (wire, base) = Self::check(config)?;
        let key = config.api_key.as_ref().map(|k| &k.value);
        let options = ClientOptions {
            ca_file: config.ca_file.clone(),
            ..ClientOptions::default()
        };
        Ok(Self::new(
            wire,
            base.as_str(),
            key,
            &options,
            &config.model,
            &config.returned_model,
        )?
        .with_reasoning(config.reasoning))
    }

    /// Sends (or leaves out) the reasoning parameters of Responses requests, whatever the
    /// catalog says.
    pub fn with_reasoning(mut self, reasoning: bool) -> Self {
        self.reasoning = reasoning;
        self
    }

    /// The cheap checks of [`Self::from_config`] (no client is built): a live kind, and a key
    /// for the Responses API.
    pub fn check(config: &Config) -> Result<(Wire, &crate::config::Endpoint), LiveSetupError> {
        let (wire, base) = match &config.provider {
            ProviderConfig::Responses { base_url } => (Wire::Responses, base_url),
            ProviderConfig::Chat { base_url, .. } => (Wire::Chat, base_url),
            ProviderConfig::Offline => return Err(LiveSetupError::Offline),
        };
        if wire == Wire::Responses && config.api_key.is_none() {
            return Err(LiveSetupError::NoKey);
        }
        Ok((wire, base))
    }

    /// A provider for `base_url` (which must be https, or http on loopback).
    pub fn new(
        wire: Wire,
        base_url: &str,
        key: Option<&Secret>,
        options: &ClientOptions,
        model: &str,
        returned_model: &str,
    ) -> Result<Self, LiveSetupError> {
        let client = HttpClient::new(base_url, options).map_err(LiveSetupError::Http)?;
        let mut headers = Headers::new();
        if let Some(key) = key {
            headers = headers.bearer(key).map_err(LiveSetupError::Http)?;
        }
        let host = host_of(base_url);
        Ok(LiveProvider {
            wire,
            client,
            headers,
            model: model.to_owned(),
            returned_model: returned_model.to_owned(),
            profile: StreamProfile::for_host(&host),
            reasoning: catalog_reasoning(&host, model),
        })
    }

    /// The model catalog (`GET {base}/models`): model IDs in the provider's order.
    pub fn models(&self, cancel: &AtomicBool) -> Result<Vec<String>, ProviderError> {
        let body = self
            .client
            .get_json("/models", &self.headers, &Limits::json(), cancel)
            .map_err(|e| errors::from_http(e, &self.model))?;
        errors::model_ids(&body)
    }

    fn body(&self, request: &GenerationRequest<'_>) -> Result<Vec<u8>, ProviderError> {
        let encoded = match self.wire {
            Wire::Responses => responses_body(
                &self.model,
                request.instructions,
                &context::responses_input(request.context),
                request.tools,
                self.reasoning,
            ),
            Wire::Chat => chat_body(
                &self.model,
                request.instructions,
                &context::chat_messages(request.context),
                request.tools,
            ),
        };
        encoded.map_err(|e| ProviderError::Rejected(format!("cannot encode the request: {e}")))
    }

    fn stream<R>(
        &self,
        request: &GenerationRequest<'_>,
        reducer: &mut R,
        mut push: impl FnMut(&mut R, &[u8]) -> Result<(), String>,
    ) -> Result<(), ProviderError> {
        let body = self.body(request)?;
        let mime = match self.wire {
            // A missing MIME is tolerated only on the exact Responses POST with HTTP 200.
            Wire::Responses => MimePolicy::EventStreamOrMissing,
            Wire::Chat => MimePolicy::EventStream,
        };
        let stream = StreamRequest {
            path: self.wire.path(),
            headers: &self.headers,
            body: &body,
            limits: Limits::streaming(),
            mime,
            cancel: request.cancel,
        };
        match self
            .client
            .post_stream(&stream, |chunk| push(reducer, chunk))
        {
            Ok(_) => Ok(()),
            Err(e) if e.is_cancelled() => Err(ProviderError::Cancelled),
            Err(StreamError::Callback(reason)) => Err(ProviderError::Inadmissible(format!(
                "the {} stream was rejected: {reason}; nothing from it was used",
                self.wire.name()
            ))),
            Err(StreamError::Interrupted { error, .. }) => {
                Err(ProviderError::Inadmissible(format!(
                    "the {} stream broke before it completed ({error}); nothing from it was used, resume to retry",
                    self.wire.name()
                )))
            }
            Err(StreamError::Request(e)) => Err(errors::from_http(e, &self.model)),
        }
    }
}

impl Provider for LiveProvider {
    fn name(&self) -> &str {
        self.wire.name()
    }

    fn generate(
        &self,
        request: &GenerationRequest<'_>,
        preview: &mut dyn FnMut(&str),
    ) -> Result<ModelTurn, ProviderError> {
        self.generate_full(request, preview).map(|g| g.turn)
    }

    fn generate_full(
        &self,
        request: &GenerationRequest<'_>,
        preview: &mut dyn FnMut(&str),
    ) -> Result<Generated, ProviderError> {
        match self.wire {
            Wire::Responses => {
                let mut reducer = ResponsesReducer::with_profile(
                    &self.returned_model,
                    SseLimits::default(),
                    self.profile,
                );
                self.stream(request, &mut reducer, |r, chunk| {
                    r.push(chunk, &mut *preview).map_err(|e| e.to_string())
                })?;
                let done = reducer.finish().map_err(errors::from_responses)?;
                let native = done
                    .output_items
                    .into_iter()
                    .map(NativeItem::from_raw)
                    .collect();
                Ok(Generated {
                    turn: turn(done.text, done.refusal, done.tool_calls),
                    native,
                    usage: done.usage,
                })
            }
            Wire::Chat => {
                let mut reducer = ChatReducer::new(&self.returned_model);
                self.stream(request, &mut reducer, |r, chunk| {
                    r.push(chunk, &mut *preview).map_err(|e| e.to_string())
                })?;
                let done = reducer.finish().map_err(errors::from_chat)?;
                let native = context::chat_native(done.text.clone(), &done.tool_calls)?;
                Ok(Generated {
                    turn: turn(done.text, done.refusal, done.tool_calls),
                    native: vec![native],
                    usage: done.usage,
                })
            }
        }
    }

    fn summarize(
        &self,
        request: &GenerationRequest<'_>,
    ) -> Option<Result<(String, Option<Usage>), ProviderError>> {
        let summary = GenerationRequest {
            tools: &[],
            ..*request
        };
        Some(
            self.generate_full(&summary, &mut |_| {})
                .and_then(|g| match g.turn {
                    ModelTurn::Final { text } => Ok((text, g.usage)),
                    _ => Err(ProviderError::Inadmissible(
                        "the compaction request did not answer with a summary".into(),
                    )),
                }),
        )
    }
}

/// The runtime's view of an admitted response: tool calls win; otherwise the text, or the
/// refusal as the answer; nothing at all is inadmissible.
fn turn(text: Option<String>, refusal: Option<String>, calls: Vec<ToolCall>) -> ModelTurn {
    if !calls.is_empty() {
        return ModelTurn::ToolCalls(calls);
    }
    match (text, refusal) {
        (Some(text), _) => ModelTurn::Final { text },
        (None, Some(refusal)) => ModelTurn::Final {
            text: format!("The model refused: {refusal}"),
        },
        (None, None) => ModelTurn::Malformed {
            raw: String::new(),
            reason: "the response had neither text nor tool calls".into(),
        },
    }
}
