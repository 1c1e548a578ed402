//! The live providers: the Responses API and OpenAI-compatible Chat Completions behind the
//! [`Provider`] trait. A generation is one streamed request; its body is fed to the strict
//! reducer while it arrives (previews as text grows), and only a response the reducer admitted
//! after a clean end of stream becomes a model turn — nothing runs from anything less.

mod account;
mod context;
mod errors;

use std::sync::Mutex;
use std::sync::atomic::AtomicBool;

use super::chat::{ChatReducer, request_body as chat_body};
use super::http::{
    ClientOptions, Headers, HttpClient, Limits, MimePolicy, StreamError, StreamRequest,
};
use super::redact::Redactor;
use super::responses::{ResponsesReducer, StreamProfile, request_body as responses_body};
use super::sse::SseLimits;
use super::{
    Generated, GenerationRequest, ModelTurn, NativeItem, Provider, ProviderError, ToolCall, Usage,
};
use crate::config::{Config, Provider as ProviderConfig, Secret};

pub use account::{SignInSource, SignedInAccount};
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

/// What a live provider authenticates with.
#[derive(Debug)]
pub enum Credential {
    /// An API key (or no credential, for a server that needs none): fixed headers.
    Key(Option<Secret>),
    /// The signed-in ChatGPT account: a token per generation.
    Account(Box<SignedInAccount>),
}

/// A live provider bound to one model and the exact model name it must report back.
#[derive(Debug)]
pub struct LiveProvider {
    wire: Wire,
    client: HttpClient,
    headers: Headers,
    account: Option<Box<SignedInAccount>>,
    /// The sign-in epoch whose model catalog listed the model (checked once per auth session).
    catalog_checked: Mutex<Option<(u64, String)>>,
    /// The configured model: what the catalog check of [`Self::models`]' callers and a
    /// request built outside a session name; requests carry their own binding.
    model: String,
    profile: StreamProfile,
    /// The host whose catalog rule says which models reason (`None`: Chat, which never
    /// sends reasoning parameters).
    host: Option<String>,
    /// The config's per-model reasoning settings, for the catalog's efforts.
    table: crate::config::ModelTable,
}

/// Why one attempt failed: a refused credential is kept apart, because a signed-in account
/// refreshes and tries once more.
enum Failure {
    Unauthorized(super::http::HttpError),
    Other(ProviderError),
}

impl From<ProviderError> for Failure {
    fn from(e: ProviderError) -> Self {
        Failure::Other(e)
    }
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
    /// Builds the provider of an effective config (`responses` or `chat`); `signin` is the
    /// signed-in account to use when no API key is configured.
    pub fn from_config(
        config: &Config,
        signin: Option<&SignInSource>,
    ) -> Result<Self, LiveSetupError> {
        let (wire, base) = Self::check(config, signin)?;
        let options = ClientOptions {
            ca_file: config.ca_file.clone(),
            broker: config.broker.clone(),
            ..ClientOptions::default()
        };
        let credential = match (&config.api_key, signin) {
            (Some(key), _) => Credential::Key(Some(key.value.clone())),
            // A signed-in account's token is never sent over plain http: a loopback server
            // (llama.cpp, a local proxy) gets no credential unless a key is configured.
            (None, Some(source)) if wire == Wire::Responses && base.is_tls() => {
                let roots = match &config.ca_file {
                    Some(path) => Some(std::fs::read(path).map_err(|e| {
                        LiveSetupError::SignIn(format!("AI_CA_FILE {}: {e}", path.display()))
                    })?),
                    None => None,
                };
                Credential::Account(Box::new(
                    SignedInAccount::new(
                        &source.store,
                        &config.auth_issuer,
                        source.account.clone(),
                        roots.as_deref(),
                    )
                    .map_err(LiveSetupError::SignIn)?,
                ))
            }
            (None, _) => Credential::Key(None),
        };
        let mut live = Self::new(wire, base.as_str(), credential, &options, &config.model)?;
        live.table = config.model_table.clone();
        Ok(live)
    }

    /// The cheap checks of [`Self::from_config`] (no client is built, no network): a live
    /// kind, and for the Responses API over https a key or a sign-in (a local server on
    /// `http://` loopback needs neither).
    pub fn check<'c>(
        config: &'c Config,
        signin: Option<&SignInSource>,
    ) -> Result<(Wire, &'c crate::config::Endpoint), LiveSetupError> {
        let (wire, base) = match &config.provider {
            ProviderConfig::Responses { base_url } => (Wire::Responses, base_url),
            ProviderConfig::Chat { base_url, .. } => (Wire::Chat, base_url),
            ProviderConfig::Offline => return Err(LiveSetupError::Offline),
        };
        if wire == Wire::Responses && base.is_tls() && config.api_key.is_none() && signin.is_none()
        {
            return Err(LiveSetupError::NoKey);
        }
        Ok((wire, base))
    }

    /// Whether requests use the signed-in account (no API key was configured).
    pub fn signed_in(&self) -> bool {
        self.account.is_some()
    }

    /// A provider for `base_url` (which must be https, or http on loopback).
    pub fn new(
        wire: Wire,
        base_url: &str,
        credential: Credential,
        options: &ClientOptions,
        model: &str,
    ) -> Result<Self, LiveSetupError> {
        let client = HttpClient::new(base_url, options).map_err(LiveSetupError::Http)?;
        let (headers, account) = match credential {
            Credential::Key(Some(key)) => (
                Headers::new().bearer(&key).map_err(LiveSetupError::Http)?,
                None,
            ),
            Credential::Key(None) => (Headers::new(), None),
            Credential::Account(account) => (Headers::new(), Some(account)),
        };
        let host = host_of(base_url);
        Ok(LiveProvider {
            wire,
            client,
            headers,
            account,
            catalog_checked: Mutex::new(None),
            model: model.to_owned(),
            profile: StreamProfile::for_host(&host),
            host: (wire == Wire::Responses).then_some(host),
            table: crate::config::ModelTable::default(),
        })
    }

    /// The model catalog (`GET {base}/models`): model IDs in the provider's order.
    pub fn models(&self, cancel: &AtomicBool) -> Result<Vec<String>, ProviderError> {
        self.authorized(&self.model, cancel, |headers, cancel, _| {
            self.catalog(headers, cancel)
        })
    }

    fn catalog(&self, headers: &Headers, cancel: &AtomicBool) -> Result<Vec<String>, Failure> {
        let body = self
            .client
            .get_json("/models", headers, &Limits::json(), cancel)
            .map_err(|e| self.http_failure(e, &self.model))?;
        Ok(errors::model_ids(&body)?)
    }

    /// Runs `attempt` with this provider's credential. A signed-in account gets a token
    /// (refreshed when due), and a refused token one refresh and one more attempt; a
    /// sign-out while an attempt runs stops it.
    fn authorized<T>(
        &self,
        model: &str,
        cancel: &AtomicBool,
        mut attempt: impl FnMut(&Headers, &AtomicBool, Option<u64>) -> Result<T, Failure>,
    ) -> Result<T, ProviderError> {
        let Some(account) = &self.account else {
            return attempt(&self.headers, cancel, None)
                .map_err(|f| self.final_failure(f, &self.headers, model));
        };
        let mut force = false;
        loop {
            let grant = account.token(force)?;
            let headers = Headers::new()
                .bearer(&grant.token)
                .map_err(|e| ProviderError::Auth(e.to_string()))?;
            let watched =
                account.watched(cancel, |stop| attempt(&headers, stop, Some(grant.epoch)));
            if watched.signed_out {
                return Err(ProviderError::Auth(format!(
                    "signed out of {} while a request was running; it was stopped: run `ansa --login`, then resume",
                    account.store().display()
                )));
            }
            match watched.out {
                Err(Failure::Unauthorized(_)) if !force => force = true,
                other => return other.map_err(|f| self.final_failure(f, &headers, model)),
            }
        }
    }

    /// A failure as the runtime sees it, once no attempt is left: whatever part of its text
    /// came from the server (an error body, an error event of the stream) is searched for the
    /// credential the attempt sent, in any encoding.
    fn final_failure(&self, f: Failure, sent: &Headers, model: &str) -> ProviderError {
        let redactor = Redactor::new(sent.secret());
        let e = match f {
            Failure::Other(e) => e,
            Failure::Unauthorized(e) if self.account.is_some() => ProviderError::Auth(format!(
                "{e}; the token was refused even after a refresh: run `ansa --login`, then resume"
            )),
            Failure::Unauthorized(e) => errors::from_http(e, model),
        };
        e.redacted(&redactor)
    }

    fn http_failure(&self, e: super::http::HttpError, model: &str) -> Failure {
        match e {
            e @ super::http::HttpError::Auth { .. } => Failure::Unauthorized(e),
            e => Failure::Other(errors::from_http(e, model)),
        }
    }

    /// The model catalog check of a signed-in account, once per sign-in epoch: the model must
    /// be one the account may use.
    fn check_catalog(
        &self,
        headers: &Headers,
        cancel: &AtomicBool,
        epoch: u64,
        model: &str,
    ) -> Result<(), Failure> {
        let seen = self.catalog_checked.lock().is_ok_and(|checked| {
            checked
                .as_ref()
                .is_some_and(|(e, m)| *e == epoch && m == model)
        });
        if seen {
            return Ok(());
        }
        let ids = self.catalog(headers, cancel)?;
        if !ids.iter().any(|id| id == model) {
            let shown: Vec<&str> = ids.iter().take(12).map(String::as_str).collect();
            return Err(Failure::Other(ProviderError::Rejected(format!(
                "the model `{}` is not in the signed-in account's catalog ({}{}); choose one with --model or \"model\" in the config",
                model,
                shown.join(", "),
                if ids.len() > shown.len() { ", …" } else { "" }
            ))));
        }
        if let Ok(mut checked) = self.catalog_checked.lock() {
            *checked = Some((epoch, model.to_owned()));
        }
        Ok(())
    }

    fn body(&self, request: &GenerationRequest<'_>) -> Result<Vec<u8>, ProviderError> {
        let encoded = match self.wire {
            Wire::Responses => responses_body(
                &request.model.model,
                request.session_id,
                request.instructions,
                &context::responses_input(request.context),
                request.tools,
                request.model.reasoning.then_some(request.model.effort),
            ),
            Wire::Chat => chat_body(
                &request.model.model,
                request.instructions,
                &context::chat_messages(request.context),
                request.tools,
            ),
        };
        encoded.map_err(|e| ProviderError::Rejected(format!("cannot encode the request: {e}")))
    }

    /// Streams one generation into `reducer`. A stream cut before it completed is started
    /// again with a fresh reducer (`fresh`): generation is stateless and nothing ran from the
    /// cut attempt, so this is safe within the transport's retry policy.
    fn stream<R>(
        &self,
        headers: &Headers,
        request: &GenerationRequest<'_>,
        reducer: &mut R,
        fresh: &dyn Fn() -> R,
        mut push: impl FnMut(&mut R, &[u8]) -> Result<(), String>,
    ) -> Result<(), Failure> {
        let body = self.body(request)?;
        let mime = match self.wire {
            // A missing MIME is tolerated only on the exact Responses POST with HTTP 200.
            Wire::Responses => MimePolicy::EventStreamOrMissing,
            Wire::Chat => MimePolicy::EventStream,
        };
        let stream = StreamRequest {
            path: self.wire.path(),
            headers,
            body: &body,
            limits: Limits::streaming(),
            mime,
            cancel: request.cancel,
            on_retry: request.on_retry,
        };
        let reducer = std::cell::RefCell::new(reducer);
        let mut restart = || **reducer.borrow_mut() = fresh();
        match self
            .client
            .post_stream_restarting(&stream, &mut restart, |chunk| {
                push(&mut reducer.borrow_mut(), chunk)
            }) {
            Ok(_) => Ok(()),
            Err(e) if e.is_cancelled() => Err(ProviderError::Cancelled.into()),
            Err(StreamError::Callback(reason)) => Err(ProviderError::Inadmissible(format!(
                "the {} stream was rejected: {reason}; nothing from it was used",
                self.wire.name()
            ))
            .into()),
            Err(StreamError::Interrupted { error, .. }) => {
                Err(ProviderError::Inadmissible(format!(
                    "the {} stream broke before it completed ({error}) and retrying did not help; nothing from it was used, resume to retry",
                    self.wire.name()
                ))
                .into())
            }
            Err(StreamError::Request(e)) => Err(self.http_failure(e, &request.model.model)),
        }
    }

    /// One generation with `headers`. A retry after a cut stream previews again from the
    /// start: what the cut attempt already previewed is not previewed twice (a frontend that
    /// committed it keeps it), only text beyond it or different from it.
    fn generate_once(
        &self,
        headers: &Headers,
        request: &GenerationRequest<'_>,
        preview: &mut dyn FnMut(&str),
    ) -> Result<Generated, Failure> {
        let mut previewed = String::new();
        let mut preview = |text: &str| {
            if previewed.starts_with(text) {
                return;
            }
            previewed.clear();
            previewed.push_str(text);
            preview(text);
        };
        match self.wire {
            Wire::Responses => {
                let fresh = || {
                    ResponsesReducer::with_profile(
                        &request.model.returned_model,
                        SseLimits::default(),
                        self.profile,
                    )
                };
                let mut reducer = fresh();
                let mut reasoning_seen = 0;
                self.stream(headers, request, &mut reducer, &fresh, |r, chunk| {
                    r.push(chunk, &mut preview).map_err(|e| e.to_string())?;
                    // A restarted stream's summary starts again from nothing.
                    reasoning_seen = reasoning_seen.min(r.reasoning_len());
                    if let Some(super::http::Notify(on_reasoning)) = request.on_reasoning
                        && r.reasoning_len() > reasoning_seen
                    {
                        reasoning_seen = r.reasoning_len();
                        if let Some(summary) = r.reasoning_summary() {
                            on_reasoning(&summary);
                        }
                    }
                    Ok(())
                })?;
                let done = reducer.finish().map_err(errors::from_responses)?;
                let native = done
                    .output_items
                    .into_iter()
                    .map(NativeItem::from_raw)
                    .collect();
                let (turn, commentary) = turn(done.text, done.refusal, done.tool_calls);
                Ok(Generated {
                    turn,
                    commentary,
                    native,
                    usage: done.usage,
                })
            }
            Wire::Chat => {
                let fresh = || ChatReducer::new(&request.model.returned_model);
                let mut reducer = fresh();
                self.stream(headers, request, &mut reducer, &fresh, |r, chunk| {
                    r.push(chunk, &mut preview).map_err(|e| e.to_string())
                })?;
                let done = reducer.finish().map_err(errors::from_chat)?;
                let native = context::chat_native(done.text.clone(), &done.tool_calls)?;
                let (turn, commentary) = turn(done.text, done.refusal, done.tool_calls);
                Ok(Generated {
                    turn,
                    commentary,
                    native: vec![native],
                    usage: done.usage,
                })
            }
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
        self.authorized(
            &request.model.model,
            request.cancel,
            |headers, cancel, epoch| {
                if let Some(epoch) = epoch {
                    self.check_catalog(headers, cancel, epoch, &request.model.model)?;
                }
                let request = GenerationRequest { cancel, ..*request };
                self.generate_once(headers, &request, &mut *preview)
            },
        )
    }

    fn catalog(
        &self,
        cancel: &AtomicBool,
    ) -> Result<Option<Vec<ansa_sessions::protocol::CatalogModel>>, ProviderError> {
        let ids = self.models(cancel)?;
        Ok(Some(super::catalog::entries(
            self.host.as_deref(),
            &self.table,
            ids,
        )))
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

/// The runtime's view of an admitted response: tool calls win (their text is commentary);
/// otherwise the text, or the refusal as the answer; nothing at all is inadmissible.
fn turn(
    text: Option<String>,
    refusal: Option<String>,
    calls: Vec<ToolCall>,
) -> (ModelTurn, Option<String>) {
    if !calls.is_empty() {
        let commentary = text.filter(|t| !t.trim().is_empty());
        return (ModelTurn::ToolCalls(calls), commentary);
    }
    let turn = match (text, refusal) {
        (Some(text), _) => ModelTurn::Final { text },
        (None, Some(refusal)) => ModelTurn::Final {
            text: format!("The model refused: {refusal}"),
        },
        (None, None) => ModelTurn::Malformed {
            raw: String::new(),
            reason: "the response had neither text nor tool calls".into(),
        },
    };
    (turn, None)
}
