//! oauth2's HTTP client, on the workspace's reqwest: no redirects followed (a token endpoint
//! that redirects is refused, as the oauth2 crate advises against SSRF), bounded time and body.

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use oauth2::{AsyncHttpClient, HttpRequest, HttpResponse};

/// The longest an exchange may take.
const TIMEOUT: Duration = Duration::from_secs(30);

/// The largest response body read.
const MAX_BODY: usize = 1 << 20;

/// Why a request got no answer; `sent` tells whether the server may have acted on it.
#[derive(Debug, thiserror::Error)]
#[error("{url}: {reason}")]
pub struct HttpError {
    /// The URL.
    pub url: String,
    /// What failed.
    pub reason: String,
    /// The request may have reached the server (its outcome is unknown).
    pub sent: bool,
}

/// The client used for every call to the issuer.
#[derive(Debug, Clone)]
pub struct Http {
    client: reqwest::Client,
}

impl Http {
    /// A client with the platform's roots, no redirects, a 30 s timeout.
    pub fn new() -> Result<Http, HttpError> {
        Self::with_roots(None)
    }

    /// [`Self::new`], also trusting the PEM certificates in `extra` (a test issuer's CA, or
    /// the user's `AI_CA_FILE`).
    pub fn with_roots(extra: Option<&[u8]>) -> Result<Http, HttpError> {
        let setup = |reason: String| HttpError {
            url: String::new(),
            reason,
            sent: false,
        };
        // No idle connections are kept: a request on a connection the server already closed
        // would fail after being written, and a refresh must only be called uncertain when
        // the server may really have acted on it.
        let mut builder = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .pool_max_idle_per_host(0)
            .timeout(TIMEOUT);
        if let Some(pem) = extra {
            let certs = reqwest::Certificate::from_pem_bundle(pem)
                .map_err(|e| setup(format!("the extra roots are not PEM certificates: {e}")))?;
            for cert in certs {
                builder = builder.add_root_certificate(cert);
            }
        }
        let client = builder
            .build()
            .map_err(|e| setup(format!("cannot set up the HTTP client: {e}")))?;
        Ok(Http { client })
    }

    /// GETs `url`, returning the body of a 200 answer.
    pub async fn get(&self, url: &str) -> Result<Vec<u8>, HttpError> {
        let fail = |reason: String, sent| HttpError {
            url: url.to_owned(),
            reason,
            sent,
        };
        let response = self
            .client
            .get(url)
            .send()
            .await
            .map_err(|e| fail(e.to_string(), false))?;
        let status = response.status();
        let body = read_body(response).await.map_err(|r| fail(r, true))?;
        if status != reqwest::StatusCode::OK {
            return Err(fail(format!("answered HTTP {}", status.as_u16()), true));
        }
        Ok(body)
    }
}

async fn read_body(mut response: reqwest::Response) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| e.to_string())? {
        if body.len() + chunk.len() > MAX_BODY {
            return Err(format!("the answer is larger than {MAX_BODY} bytes"));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

impl<'c> AsyncHttpClient<'c> for Http {
    type Error = HttpError;
    type Future = Pin<Box<dyn Future<Output = Result<HttpResponse, HttpError>> + Send + 'c>>;

    fn call(&'c self, request: HttpRequest) -> Self::Future {
        Box::pin(async move {
            let url = request.uri().to_string();
            let fail = |reason: String, sent| HttpError {
                url: url.clone(),
                reason,
                sent,
            };
            let (parts, body) = request.into_parts();
            let mut builder = self.client.request(parts.method, url.as_str()).body(body);
            for (name, value) in &parts.headers {
                builder = builder.header(name, value);
            }
            let response = builder.send().await.map_err(|e| {
                // A request that was written may have been acted on.
                let sent = !(e.is_connect() || e.is_builder());
                fail(e.to_string(), sent)
            })?;
            let status = response.status();
            let headers = response.headers().clone();
            let body = read_body(response).await.map_err(|r| fail(r, true))?;
            let mut answer = HttpResponse::new(body);
            *answer.status_mut() = status;
            *answer.headers_mut() = headers;
            Ok(answer)
        })
    }
}
