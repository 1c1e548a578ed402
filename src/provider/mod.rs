//! Model providers behind one trait: a generation turns the saved context into a model turn.

pub mod catalog;
pub mod chat;
pub mod http;
pub mod live;
mod native;
mod offline;
pub mod reasoning;
pub mod redact;
pub mod responses;
mod scripted;
pub mod sse;
mod usage;

use std::sync::atomic::AtomicBool;

use serde::{Deserialize, Serialize};

use crate::tools::ProviderTool;

pub use native::NativeItem;
pub use offline::{OfflineProvider, offline_key};
pub use scripted::ScriptedProvider;
pub use scripted::file::{Script, ScriptError, ScriptTurn, ScriptedCall, TextTemplate, TurnKind};
pub use usage::Usage;

/// One tool call as the model emitted it; `arguments` is the raw JSON string, unvalidated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// Identifier that pairs the call with its output.
    pub call_id: String,
    /// Tool name as the model wrote it.
    pub name: String,
    /// Raw JSON arguments.
    pub arguments: String,
}

/// One item of the exact saved context a generation is built from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContextItem {
    /// The user's task or message.
    User {
        /// Its text.
        text: String,
    },
    /// A final answer of the model.
    Assistant {
        /// Its text.
        text: String,
    },
    /// A tool call the model made.
    ToolCall(ToolCall),
    /// The output that went back for a call.
    ToolOutput {
        /// The call it answers.
        call_id: String,
        /// The output text (a result document or a model-facing error).
        output: String,
    },
    /// A model output that could not be admitted, kept so the model sees what it sent.
    MalformedOutput {
        /// What the model sent.
        raw: String,
    },
    /// The environment message of the session's start (`crate::environment`), sent as a user
    /// message (for Chat, ahead of the next user message's text); kept by compaction and
    /// never regenerated.
    Environment {
        /// The message.
        text: String,
    },
    /// A message from the runtime to the model (why an output was refused, a limit...).
    Note {
        /// The message.
        text: String,
    },
    /// The summary that replaced older history at a compaction.
    Compaction {
        /// Opaque summary text.
        summary: String,
    },
    /// A provider-native item resent exactly (journaled verbatim, not tagged).
    #[serde(skip)]
    Native(NativeItem),
}

/// Everything a provider may look at for one generation; nothing else is hidden state.
#[derive(Debug, Clone, Copy)]
pub struct GenerationRequest<'a> {
    /// 0-based index of this generation within the session, counting across Resume.
    pub generation: u64,
    /// The session's id (empty outside a session): Responses requests carry it as
    /// `prompt_cache_key`, so a provider routes every request of the session to the cache
    /// that holds its prefix, and never shares that cache with another session.
    pub session_id: &'a str,
    /// The session's instructions.
    pub instructions: &'a str,
    /// History, oldest first.
    pub context: &'a [ContextItem],
    /// Tools offered in the turn's mode.
    pub tools: &'a [ProviderTool],
    /// Set when the turn is cancelled; long generations must poll it.
    pub cancel: &'a AtomicBool,
    /// The model binding in force when this request's turn started: the model, the exact
    /// model the response must report, and the reasoning parameters (live providers).
    pub model: &'a ansa_sessions::ModelBinding,
    /// Tool outputs of the session that compaction removed from `context` (they come
    /// before every output still in it).
    pub compacted_outputs: u64,
    /// Told before a live provider waits to try a failed request again.
    pub on_retry: Option<http::Notify<'a, http::Retrying>>,
    /// Told the model's reasoning summary so far each time it grows (providers that send one).
    pub on_reasoning: Option<http::Notify<'a, str>>,
}

impl GenerationRequest<'_> {
    /// Tool outputs still in the context, in order (the session's outputs from index
    /// `compacted_outputs` on).
    pub fn tool_outputs(&self) -> impl Iterator<Item = &str> {
        self.context.iter().filter_map(|item| match item {
            ContextItem::ToolOutput { output, .. } => Some(output.as_str()),
            _ => None,
        })
    }
}

/// What one generation produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelTurn {
    /// A final answer.
    Final {
        /// The answer text.
        text: String,
    },
    /// A batch of tool calls, admitted as a whole before any runs.
    ToolCalls(Vec<ToolCall>),
    /// Output that is neither; no tool may run from it.
    Malformed {
        /// What the model sent.
        raw: String,
        /// Why it is not admissible.
        reason: String,
    },
}

/// A generation that failed; the turn pauses (or ends, when cancelled).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProviderError {
    /// The cancel flag was raised during generation.
    #[error("generation cancelled")]
    Cancelled,
    /// The script has no turn for this generation.
    #[error(
        "script {file}: generation {generation} needs turn {generation}, but the script has only {turns} turns; add turns or end the session earlier"
    )]
    ScriptExhausted {
        /// Script file.
        file: String,
        /// Requested generation (0-based).
        generation: u64,
        /// Number of turns in the script.
        turns: usize,
    },
    /// An orchestrate-mode child that no `children` entry of the script addresses.
    #[error(
        "script {file}: no entry of `children` is for child {index} (task {task:?}); add one with \"index\": {index} or a \"task\" text it contains"
    )]
    ScriptHasNoChild {
        /// Script file.
        file: String,
        /// The child's place in its call, from 1.
        index: u32,
        /// The start of its task.
        task: String,
    },
    /// A `{{tool_output:K}}` placeholder points past the outputs of the session.
    #[error(
        "script {file}: turns[{turn}].text uses {{{{tool_output:{index}}}}}, but the session has only {available} tool outputs so far"
    )]
    MissingToolOutput {
        /// Script file.
        file: String,
        /// Turn index.
        turn: usize,
        /// Requested output index.
        index: usize,
        /// Outputs available.
        available: usize,
    },
    /// The offline provider needs a user task in the context.
    #[error("offline provider: the context has no user task to answer")]
    NoTask,
    /// The provider refused the credentials (HTTP 401/403): log in again or fix the key.
    #[error("{0}")]
    Auth(String),
    /// The request is longer than the model's context window.
    #[error("{0}")]
    ContextLength(String),
    /// The provider could not be reached or failed, after retries; Resume retries safely.
    #[error("{0}")]
    Unavailable(String),
    /// The response was cut or broke the protocol; nothing from it was admitted.
    #[error("{0}")]
    Inadmissible(String),
    /// The provider rejected the request (a 4xx other than auth and context length).
    #[error("{0}")]
    Rejected(String),
}

impl ProviderError {
    /// The same error with every form of the credentials `redactor` knows taken out of its
    /// text (text that came from a server).
    pub fn redacted(self, redactor: &redact::Redactor) -> ProviderError {
        match self {
            ProviderError::Auth(s) => ProviderError::Auth(redactor.redact(&s)),
            ProviderError::ContextLength(s) => ProviderError::ContextLength(redactor.redact(&s)),
            ProviderError::Unavailable(s) => ProviderError::Unavailable(redactor.redact(&s)),
            ProviderError::Inadmissible(s) => ProviderError::Inadmissible(redactor.redact(&s)),
            ProviderError::Rejected(s) => ProviderError::Rejected(redactor.redact(&s)),
            other @ (ProviderError::Cancelled
            | ProviderError::ScriptExhausted { .. }
            | ProviderError::ScriptHasNoChild { .. }
            | ProviderError::MissingToolOutput { .. }
            | ProviderError::NoTask) => other,
        }
    }
}

/// The instructions of a live compaction request.
pub const COMPACTION_PROMPT: &str = "Summarise the conversation so far for your own later use: the user's goals, decisions made, files and commands involved, results of tool calls that still matter, and open questions. Be complete but concise; the summary replaces this history.";

/// A generation's result: the model turn, the provider-native items that carry it (resent
/// exactly in later requests; empty for offline providers), and usage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generated {
    /// What the model did.
    pub turn: ModelTurn,
    /// The model's own words that came with tool calls (a preamble or commentary); the
    /// frontends show them in the dialog, the context already holds them in `native`.
    pub commentary: Option<String>,
    /// The provider's own output items, in order.
    pub native: Vec<NativeItem>,
    /// Token usage, when reported.
    pub usage: Option<Usage>,
}

/// A model behind the agent loop.
pub trait Provider: Send + Sync {
    /// Short name for logs and the session binding (`offline`, `scripted`, `responses`…).
    fn name(&self) -> &str;

    /// Generates one model turn; `preview` receives the whole provisional text so far, each time it grows.
    fn generate(
        &self,
        request: &GenerationRequest<'_>,
        preview: &mut dyn FnMut(&str),
    ) -> Result<ModelTurn, ProviderError>;

    /// Summarises older history for compaction: `request.context` is the history to
    /// summarise, no tools are offered. `None` means this provider has no summariser and the
    /// runtime uses the offline form; live adapters send an ordinary request with
    /// [`COMPACTION_PROMPT`].
    fn summarize(
        &self,
        request: &GenerationRequest<'_>,
    ) -> Option<Result<(String, Option<Usage>), ProviderError>> {
        let _ = request;
        None
    }

    /// The models this provider can be asked for (`GET /models` for live providers), each
    /// with the reasoning efforts it takes; `None`: only the session's own model (offline).
    fn catalog(
        &self,
        cancel: &AtomicBool,
    ) -> Result<Option<Vec<ansa_sessions::protocol::CatalogModel>>, ProviderError> {
        let _ = cancel;
        Ok(None)
    }

    /// The model of an orchestrate-mode child: `index` is its place in the `delegate` call
    /// (from 1) and `task` its instruction. `Ok(None)`, the default, means the child uses this
    /// same provider (the same model and binding); a scripted provider answers with the
    /// script the file gives that child.
    fn for_child(
        &self,
        index: u32,
        task: &str,
    ) -> Result<Option<std::sync::Arc<dyn Provider>>, ProviderError> {
        let _ = (index, task);
        Ok(None)
    }

    /// [`Provider::generate`] with the native items and usage; live adapters override this.
    fn generate_full(
        &self,
        request: &GenerationRequest<'_>,
        preview: &mut dyn FnMut(&str),
    ) -> Result<Generated, ProviderError> {
        self.generate(request, preview).map(|turn| Generated {
            turn,
            commentary: None,
            native: Vec::new(),
            usage: None,
        })
    }
}

/// A model binding for unit tests of providers that ignore it.
#[cfg(test)]
pub(crate) fn test_model() -> ansa_sessions::ModelBinding {
    ansa_sessions::ModelBinding {
        model: "test".into(),
        returned_model: "test".into(),
        reasoning: false,
        effort: None,
    }
}
