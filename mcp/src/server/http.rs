//! The streamable HTTP transport: rmcp's client over the workspace's reqwest (rustls).

use std::collections::{BTreeMap, HashMap};

use reqwest::header::{HeaderName, HeaderValue};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use url::Url;

use crate::config::{Secret, check_url};
use crate::server::stdio::MAX_MESSAGE_BYTES;

/// rmcp's transport for `url`, with the configured headers and bearer token; refuses a URL
/// that is neither https nor loopback http even if the config check was skipped.
pub(crate) fn transport(
    url: &Url,
    headers: &BTreeMap<String, String>,
    bearer_token: Option<&Secret>,
) -> Result<StreamableHttpClientTransport<reqwest::Client>, String> {
    check_url(url).map_err(|e| e.to_string())?;
    let mut custom = HashMap::with_capacity(headers.len());
    for (name, value) in headers {
        let name = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| format!("header name {name:?} is not valid HTTP"))?;
        let value = HeaderValue::from_str(value)
            .map_err(|_| format!("the value of header {name} is not valid HTTP"))?;
        custom.insert(name, value);
    }
    let client = reqwest::Client::builder()
        // A server's redirect must not carry the bearer token elsewhere.
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| format!("cannot build the HTTP client: {e}"))?;
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str())
        .custom_headers(custom)
        // Large results must arrive whole, as over stdio.
        .max_sse_event_size(MAX_MESSAGE_BYTES)
        .max_json_response_size(MAX_MESSAGE_BYTES);
    if let Some(token) = bearer_token {
        config = config.auth_header(token.expose());
    }
    Ok(StreamableHttpClientTransport::with_client(client, config))
}
