//! The device sign-in (RFC 8628) for machines without a browser: the user opens the
//! verification URL elsewhere and confirms the code; ansa polls the token endpoint (every
//! `interval` seconds, 5 when the issuer names none, slower after `slow_down`). The device
//! authorization asks for ansa's own registration like the browser flow does and gets the
//! issued client ID back; every later request uses that one.

use std::time::Duration;

use oauth2::basic::{
    BasicErrorResponse, BasicRevocationErrorResponse, BasicTokenIntrospectionResponse,
};
use oauth2::{
    Client, ClientId, DeviceAuthorizationResponse, DeviceAuthorizationUrl, EndpointNotSet,
    EndpointSet, ExtraDeviceAuthorizationFields, RequestTokenError, Scope, StandardRevocableToken,
    TokenUrl,
};
use serde::{Deserialize, Serialize};

use super::authorize::{AGENT_NAME, DYNAMIC_CLIENT_ID, RESOURCE, SCOPES};
use super::credentials::Credentials;
use super::dir::AuthDir;
use super::discovery::Discovery;
use super::exchange::{SiwcResponse, tokens_of};
use super::host::HostId;
use super::http::Http;
use super::signin::{Completion, DeviceError, SignInError, SignedIn, complete};

/// What the user must do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceCode {
    /// Where to go.
    pub verification_uri: String,
    /// The same with the code filled in, when offered.
    pub verification_uri_complete: Option<String>,
    /// The code to confirm there.
    pub user_code: String,
    /// How long the code is valid.
    pub expires_in: Duration,
}

/// The fields a SIWC device authorization adds: the issued client.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SiwcDeviceFields {
    /// The client ID the issuer registered for this host.
    pub client_id: Option<String>,
}

impl ExtraDeviceAuthorizationFields for SiwcDeviceFields {}

type DeviceClient = Client<
    BasicErrorResponse,
    SiwcResponse,
    BasicTokenIntrospectionResponse,
    StandardRevocableToken,
    BasicRevocationErrorResponse,
    EndpointNotSet,
    EndpointSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointSet,
>;

fn client(discovery: &Discovery, device: &oauth2::url::Url, id: &str) -> DeviceClient {
    Client::new(ClientId::new(id.to_owned()))
        .set_device_authorization_url(DeviceAuthorizationUrl::from_url(device.clone()))
        .set_token_uri(TokenUrl::from_url(discovery.token_endpoint.clone()))
}

/// Runs a device sign-in against `issuer` (discovery fetched here) into `store`; `show`
/// receives what the user must do. `wait` bounds the polling.
pub async fn sign_in_device(
    issuer: &str,
    store: &AuthDir,
    http: &Http,
    wait: Duration,
    show: impl FnOnce(&DeviceCode),
) -> Result<SignedIn, SignInError> {
    let discovery = super::signin::discover(http, issuer).await?;
    let device_url = discovery
        .device_authorization_endpoint
        .clone()
        .ok_or(SignInError::Device(DeviceError::Unavailable))?;
    let host = HostId::load_or_create(store)?;
    let previous = Credentials::load(store).ok().flatten();
    let details: DeviceAuthorizationResponse<SiwcDeviceFields> =
        client(&discovery, &device_url, DYNAMIC_CLIENT_ID)
            .exchange_device_code()
            .add_scopes(SCOPES.iter().map(|s| Scope::new((*s).to_owned())))
            .add_extra_param("ext_agent_host_id", host.as_str().to_owned())
            .add_extra_param("agent_name_hint", AGENT_NAME)
            .add_extra_param("resource", RESOURCE)
            .request_async(http)
            .await
            .map_err(|e| SignInError::Device(DeviceError::Ended(describe(e))))?;
    let client_id = details
        .extra_fields()
        .client_id
        .clone()
        .ok_or(SignInError::Device(DeviceError::NoClientId))?;
    show(&DeviceCode {
        verification_uri: details.verification_uri().to_string(),
        verification_uri_complete: details
            .verification_uri_complete()
            .map(|u| u.secret().clone()),
        user_code: details.user_code().secret().clone(),
        expires_in: details.expires_in(),
    });
    let tokens = client(&discovery, &device_url, &client_id)
        .exchange_device_access_token(&details)
        .add_extra_param("resource", RESOURCE)
        .request_async(http, tokio::time::sleep, Some(wait))
        .await
        .map_err(|e| SignInError::Device(DeviceError::Ended(describe(e))))?;
    complete(
        Completion {
            store,
            http,
            discovery: &discovery,
            issuer,
            client_id,
            nonce: None,
            previous: previous.as_ref(),
        },
        tokens_of(&tokens),
    )
    .await
}

fn describe<RE: std::error::Error, T: oauth2::ErrorResponse>(
    e: RequestTokenError<RE, T>,
) -> String {
    match e {
        RequestTokenError::ServerResponse(r) => r.to_string(),
        RequestTokenError::Request(e) => e.to_string(),
        RequestTokenError::Parse(e, _) => format!("an answer that does not parse ({e})"),
        RequestTokenError::Other(o) => o,
    }
}
