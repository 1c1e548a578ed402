//! How live failures reach the runtime: auth, context length, unavailable (retried already),
//! inadmissible (the stream broke the protocol), rejected.

use super::super::ProviderError;
use super::super::chat::ChatError;
use super::super::http::HttpError;
use super::super::responses::ResponsesError;

/// A live provider that could not be built.
#[derive(Debug, thiserror::Error)]
pub enum LiveSetupError {
    /// The config selects the offline provider.
    #[error("the config selects the offline provider; use --offline")]
    Offline,
    /// The Responses API needs a key.
    #[error(
        "no API key and not signed in: run `ansa --login` (Sign in with ChatGPT), or set AI_API_KEY (or OPENAI_API_KEY) for the responses provider, or run with --offline"
    )]
    NoKey,
    /// The HTTP client could not be set up (URL policy, CA file, TLS).
    #[error(transparent)]
    Http(HttpError),
    /// The signed-in account's store or sign-in client could not be set up.
    #[error("the sign-in cannot be used: {0}")]
    SignIn(String),
}

/// Maps a request for `model` that failed before its stream started (retries already spent).
pub fn from_http(e: HttpError, model: &str) -> ProviderError {
    match e {
        e @ HttpError::UnsupportedParameter { .. } => ProviderError::Rejected(format!(
            "{e}; this model does not take reasoning parameters: set \"models\": {{\"{model}\": {{\"reasoning\": false}}}} in ~/.ansa/config.json (or the project's .ansa/config.json), then resume"
        )),
        HttpError::Cancelled => ProviderError::Cancelled,
        e @ HttpError::Auth { .. } => ProviderError::Auth(format!(
            "{e}; check AI_API_KEY / OPENAI_API_KEY, then resume"
        )),
        e @ HttpError::ContextLength { .. } => ProviderError::ContextLength(e.to_string()),
        e @ (HttpError::Rejected { .. }
        | HttpError::QuotaExceeded { .. }
        | HttpError::BadUrl { .. }
        | HttpError::InsecureUrl { .. }
        | HttpError::InvalidHeader { .. }) => ProviderError::Rejected(e.to_string()),
        e => ProviderError::Unavailable(format!("{e}; resume to try again")),
    }
}

/// Maps a Responses stream that was not admitted.
pub fn from_responses(e: ResponsesError) -> ProviderError {
    if e.is_context_length_exceeded() {
        return ProviderError::ContextLength(e.to_string());
    }
    ProviderError::Inadmissible(format!(
        "the response was not admitted: {e}; nothing from it was used, resume to retry"
    ))
}

/// Maps a Chat Completions stream that was not admitted.
pub fn from_chat(e: ChatError) -> ProviderError {
    if e.is_context_length_exceeded() {
        return ProviderError::ContextLength(e.to_string());
    }
    ProviderError::Inadmissible(format!(
        "the completion was not admitted: {e}; nothing from it was used, resume to retry"
    ))
}

/// The model IDs of a `GET /models` answer (`{"data":[{"id":…},…]}`).
pub fn model_ids(body: &[u8]) -> Result<Vec<String>, ProviderError> {
    #[derive(serde::Deserialize)]
    struct List {
        data: Vec<Entry>,
    }
    #[derive(serde::Deserialize)]
    struct Entry {
        id: String,
    }
    let list: List = serde_json::from_slice(body).map_err(|e| {
        ProviderError::Inadmissible(format!(
            "the model catalog is not the expected {{\"data\":[{{\"id\":…}}]}} JSON: {e}"
        ))
    })?;
    Ok(list.data.into_iter().map(|e| e.id).collect())
}
