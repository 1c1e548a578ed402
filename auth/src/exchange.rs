//! Code exchange and refresh at the token endpoint (oauth2 crate), always for the issued client
//! and the resource, with the fields Sign in with ChatGPT adds (`id_token`,
//! `earliest_refresh_at`) kept.
//!
//! A refresh that was sent but got no answer is *uncertain*: the server may have rotated the
//! refresh token, so the old one is never sent again and a new sign-in is needed.

use oauth2::basic::{
    BasicErrorResponse, BasicErrorResponseType, BasicRevocationErrorResponse,
    BasicTokenIntrospectionResponse, BasicTokenType,
};
use oauth2::{
    AuthorizationCode, Client, ClientId, EndpointNotSet, EndpointSet, ExtraTokenFields,
    PkceCodeVerifier, RedirectUrl, RefreshToken, RequestTokenError, StandardRevocableToken,
    StandardTokenResponse, TokenResponse, TokenUrl,
};
use serde::{Deserialize, Serialize};

use super::authorize::RESOURCE;
use super::discovery::Discovery;
use super::http::{Http, HttpError};

/// The fields a SIWC token response adds to OAuth 2.0's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SiwcFields {
    /// The OpenID Connect id_token.
    pub id_token: Option<String>,
    /// The earliest time the server accepts a refresh, Unix seconds.
    pub earliest_refresh_at: Option<u64>,
}

impl ExtraTokenFields for SiwcFields {}

/// A token response with the SIWC fields.
pub(crate) type SiwcResponse = StandardTokenResponse<SiwcFields, BasicTokenType>;

type SiwcClient = Client<
    BasicErrorResponse,
    SiwcResponse,
    BasicTokenIntrospectionResponse,
    StandardRevocableToken,
    BasicRevocationErrorResponse,
    EndpointNotSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointSet,
>;

/// What a successful exchange or refresh gave.
#[derive(Clone, PartialEq, Eq)]
pub struct Tokens {
    /// Bearer token for the API.
    pub access_token: String,
    /// The next refresh token (rotated), when one was issued.
    pub refresh_token: Option<String>,
    /// The id_token, to verify before anything is saved.
    pub id_token: Option<String>,
    /// Seconds until the access token expires.
    pub expires_in: Option<u64>,
    /// Granted scopes.
    pub scope: Vec<String>,
    /// Unix seconds before which a refresh is refused.
    pub earliest_refresh_at: Option<u64>,
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokens")
            .field("expires_in", &self.expires_in)
            .field("scope", &self.scope)
            .field("earliest_refresh_at", &self.earliest_refresh_at)
            .finish_non_exhaustive()
    }
}

/// Why no tokens came back.
#[derive(Debug, thiserror::Error)]
pub enum ExchangeError {
    /// The grant is gone (`invalid_grant`, a reused, expired or invalidated refresh token):
    /// a new sign-in is needed.
    #[error("the sign-in has ended ({code}{}); run `ansa --login`", detail.as_deref().map(|d| format!(": {d}")).unwrap_or_default())]
    Ended {
        /// The server's error code.
        code: String,
        /// Its description.
        detail: Option<String>,
    },
    /// The request was sent and no answer came: its outcome is unknown
    /// (`auth_refresh_uncertain`); the old refresh token must not be used again.
    #[error(
        "auth_refresh_uncertain: the token request to {0} got no answer, so its outcome is unknown; the old token is not reused: run `ansa --login`"
    )]
    Uncertain(String),
    /// The request never left (the issuer is unreachable); nothing changed, try again later.
    #[error("the issuer is unreachable ({0}); nothing changed, try again")]
    Unreachable(String),
    /// The server refused the request for another reason.
    #[error("the issuer refused the token request ({code}{}); run `ansa --login`", detail.as_deref().map(|d| format!(": {d}")).unwrap_or_default())]
    Refused {
        /// The server's error code.
        code: String,
        /// Its description.
        detail: Option<String>,
    },
    /// The answer is not a token response.
    #[error("the issuer's token response is not valid: {0}")]
    Malformed(String),
}

fn client(discovery: &Discovery, client_id: &str) -> SiwcClient {
    Client::new(ClientId::new(client_id.to_owned()))
        .set_token_uri(TokenUrl::from_url(discovery.token_endpoint.clone()))
}

/// Redeems `code` with the PKCE `verifier`, for the issued `client_id`.
pub async fn exchange_code(
    http: &Http,
    discovery: &Discovery,
    client_id: &str,
    code: &str,
    redirect_uri: &str,
    verifier: PkceCodeVerifier,
) -> Result<Tokens, ExchangeError> {
    let redirect = RedirectUrl::new(redirect_uri.to_owned())
        .map_err(|e| ExchangeError::Malformed(format!("redirect URI: {e}")))?;
    let answer = client(discovery, client_id)
        .set_redirect_uri(redirect)
        .exchange_code(AuthorizationCode::new(code.to_owned()))
        .set_pkce_verifier(verifier)
        .add_extra_param("resource", RESOURCE)
        .request_async(http)
        .await;
    tokens(answer, false)
}

/// Spends `refresh_token` (once) for new tokens.
pub async fn refresh(
    http: &Http,
    discovery: &Discovery,
    client_id: &str,
    refresh_token: &str,
) -> Result<Tokens, ExchangeError> {
    let token = RefreshToken::new(refresh_token.to_owned());
    let answer = client(discovery, client_id)
        .exchange_refresh_token(&token)
        .add_extra_param("resource", RESOURCE)
        .request_async(http)
        .await;
    tokens(answer, true)
}

/// Refresh-token error codes that end a sign-in (RFC 6749 `invalid_grant` and the ones
/// ChatGPT's issuer names).
const ENDING: [&str; 4] = [
    "refresh_token_expired",
    "refresh_token_reused",
    "refresh_token_invalidated",
    "invalid_grant",
];

fn tokens(
    answer: Result<SiwcResponse, RequestTokenError<HttpError, BasicErrorResponse>>,
    refreshing: bool,
) -> Result<Tokens, ExchangeError> {
    let response = answer.map_err(|e| match e {
        RequestTokenError::ServerResponse(r) => {
            let code = match r.error() {
                BasicErrorResponseType::Extension(other) => other.clone(),
                known => known.as_ref().to_owned(),
            };
            let detail = r.error_description().cloned();
            if ENDING.contains(&code.as_str()) {
                ExchangeError::Ended { code, detail }
            } else {
                ExchangeError::Refused { code, detail }
            }
        }
        RequestTokenError::Request(h) if h.sent && refreshing => ExchangeError::Uncertain(h.url),
        RequestTokenError::Request(h) => ExchangeError::Unreachable(h.to_string()),
        RequestTokenError::Parse(e, _) => ExchangeError::Malformed(e.to_string()),
        RequestTokenError::Other(o) => ExchangeError::Malformed(o),
    })?;
    Ok(tokens_of(&response))
}

/// The fields of a token response ansa keeps.
pub(crate) fn tokens_of(response: &SiwcResponse) -> Tokens {
    Tokens {
        access_token: response.access_token().secret().clone(),
        refresh_token: response.refresh_token().map(|t| t.secret().clone()),
        id_token: response.extra_fields().id_token.clone(),
        expires_in: response.expires_in().map(|d| d.as_secs()),
        scope: response
            .scopes()
            .map(|s| s.iter().map(|s| s.to_string()).collect())
            .unwrap_or_default(),
        earliest_refresh_at: response.extra_fields().earliest_refresh_at,
    }
}
