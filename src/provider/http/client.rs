//! The synchronous client: a reqwest client on its own current-thread tokio runtime.

use std::fmt;
use std::io::Read;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use reqwest::Certificate;
use tokio::runtime::Runtime;

use super::broker::BrokerLink;
use super::exchange::Exchange;
use super::guard::{Stop, sleep};
use super::retry::{RetryPolicy, SplitMix64};
use super::target::Base;
use super::{
    ClientOptions, Headers, HttpError, Limits, Notify, Retrying, StreamError, StreamRequest,
};

/// Why a stream cut after bytes arrived is tried again, as a retry announces it.
pub const CONNECTION_LOST: &str = "connection lost";

/// Largest `AI_CA_FILE` read.
const CA_FILE_MAX: u64 = 4 * 1024 * 1024;

/// A finished streaming POST.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamDone {
    /// Bytes passed to `on_chunk`.
    pub bytes: u64,
    /// Attempts made (1 when the first one succeeded).
    pub attempts: u32,
}

/// An HTTP client bound to one provider base URL: TLS-verified (system roots plus
/// `AI_CA_FILE`), HTTP/2 when the server offers it (ALPN), no redirects. Remote hosts honour the
/// usual `HTTPS_PROXY`/`NO_PROXY` variables; loopback hosts never use a proxy.
///
/// Its methods block the calling thread on the client's own runtime: call them from a plain
/// thread (or `spawn_blocking`), never from inside an async task, where tokio panics; the same
/// holds for dropping the client.
pub struct HttpClient {
    base: Base,
    setup: Setup,
    /// Started on the first request (on the worker).
    runtime: OnceLock<Result<Runtime, String>>,
    /// Built on the first direct request: a session whose requests all go through the
    /// broker never loads TLS roots.
    direct: OnceLock<Result<reqwest::Client, String>>,
    broker: Option<BrokerLink>,
    retry: RetryPolicy,
    jitter: Mutex<SplitMix64>,
}

/// The two ways a request can go, handed to one attempt.
pub(crate) struct Clients<'a> {
    owner: &'a HttpClient,
}

impl Clients<'_> {
    /// The client on the broker's socket, while the broker is usable.
    pub(crate) fn broker(&self) -> Option<(&reqwest::Client, &ash_broker::client::Route)> {
        self.owner.broker.as_ref()?.usable()
    }

    /// The broker refused or is gone: go direct from now on.
    pub(crate) fn broker_down(&self) {
        if let Some(b) = &self.owner.broker {
            b.mark_down();
        }
    }

    /// The direct client (built on first use).
    pub(crate) fn direct(&self) -> Result<&reqwest::Client, HttpError> {
        self.owner.direct()
    }
}

/// What building the client needs, checked when the client is made.
struct Setup {
    certs: Vec<Certificate>,
    connect_timeout: Duration,
}

impl fmt::Debug for HttpClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpClient")
            .field("base_url", &self.base.as_str())
            .field("retry", &self.retry)
            .finish_non_exhaustive()
    }
}

impl HttpClient {
    /// A client for `base_url`: `https://`, or plain `http://` to a loopback host only.
    pub fn new(base_url: &str, options: &ClientOptions) -> Result<Self, HttpError> {
        let base = Base::parse(base_url)?;
        let certs = match &options.ca_file {
            Some(path) => read_ca_file(path)?,
            None => Vec::new(),
        };
        let jitter = match options.jitter_seed {
            Some(seed) => SplitMix64::new(seed),
            None => SplitMix64::from_clock(),
        };
        Ok(HttpClient {
            base,
            setup: Setup {
                certs,
                connect_timeout: options.connect_timeout,
            },
            runtime: OnceLock::new(),
            direct: OnceLock::new(),
            broker: options.broker.clone().map(BrokerLink::new),
            retry: options.retry,
            jitter: Mutex::new(jitter),
        })
    }

    /// The runtime every request runs on, started once.
    fn runtime(&self) -> Result<&Runtime, HttpError> {
        self.runtime
            .get_or_init(|| {
                tokio::runtime::Builder::new_current_thread()
                    .enable_io()
                    .enable_time()
                    .build()
                    .map_err(|e| format!("tokio runtime: {e}"))
            })
            .as_ref()
            .map_err(|reason| HttpError::Setup(reason.clone()))
    }

    /// The direct reqwest client, built once.
    fn direct(&self) -> Result<&reqwest::Client, HttpError> {
        let runtime = self.runtime()?;
        self.direct
            .get_or_init(|| {
                let mut builder = reqwest::Client::builder()
                    .redirect(reqwest::redirect::Policy::none())
                    .connect_timeout(self.setup.connect_timeout)
                    .user_agent(concat!("ansa/", env!("CARGO_PKG_VERSION")))
                    .referer(false)
                    .tls_certs_merge(self.setup.certs.clone());
                if self.base.is_loopback() {
                    builder = builder.no_proxy();
                }
                let _context = runtime.enter();
                builder
                    .build()
                    .map_err(|e| super::exchange::describe(&e.without_url()))
            })
            .as_ref()
            .map_err(|reason| HttpError::Setup(reason.clone()))
    }

    /// The base URL requests are made below.
    pub fn base_url(&self) -> &str {
        self.base.as_str()
    }

    /// POSTs `request.body` to `request.path` and passes the response body to `on_chunk`, on
    /// the calling thread, chunk by chunk as it arrives. The response must be 200 with
    /// `text/event-stream` (see [`MimePolicy`](super::MimePolicy)).
    ///
    /// Failed attempts are retried per the client's [`RetryPolicy`] only while nothing has
    /// reached `on_chunk`; once a byte has, a failure is [`StreamError::Interrupted`]. A stream
    /// that ends early is not an error here: the caller's parser decides.
    pub fn post_stream<E>(
        &self,
        request: &StreamRequest<'_>,
        on_chunk: impl FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<StreamDone, StreamError<E>> {
        self.attempts(request, None, on_chunk)
    }

    /// [`Self::post_stream`] for a caller that can start over: a transfer cut after bytes
    /// reached `on_chunk` (the connection lost mid-body) is retried too, within the same
    /// [`RetryPolicy`], after `restart` was called so the caller forgets the cut attempt's
    /// bytes. Only for requests whose effect is stateless (a model generation: nothing ran
    /// from the cut response).
    pub fn post_stream_restarting<E>(
        &self,
        request: &StreamRequest<'_>,
        restart: &mut dyn FnMut(),
        on_chunk: impl FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<StreamDone, StreamError<E>> {
        self.attempts(request, Some(restart), on_chunk)
    }

    fn attempts<E>(
        &self,
        request: &StreamRequest<'_>,
        mut restart: Option<&mut dyn FnMut()>,
        mut on_chunk: impl FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<StreamDone, StreamError<E>> {
        let url = self.base.join(request.path).map_err(StreamError::Request)?;
        let mut attempts = 0;
        let mut waited = Duration::ZERO;
        loop {
            attempts += 1;
            let exchange = Exchange::new(&url, request.headers, request.limits, request.cancel);
            let clients = Clients { owner: self };
            let outcome = self.runtime()?.block_on(exchange.stream(
                &clients,
                url.clone(),
                request,
                &mut on_chunk,
            ));
            let failure = match outcome {
                Ok(bytes) => return Ok(StreamDone { bytes, attempts }),
                Err(failure) => failure,
            };
            let (error, cut) = match (&failure, restart.is_some()) {
                (StreamError::Request(e), _) => (e, false),
                (StreamError::Interrupted { error, .. }, true) => (error, true),
                _ => return Err(failure),
            };
            let notify = |delay| {
                if let Some(Notify(on_retry)) = request.on_retry {
                    on_retry(&Retrying {
                        attempt: attempts + 1,
                        of: self.retry.max_attempts,
                        delay,
                        reason: match cut {
                            true => CONNECTION_LOST.to_owned(),
                            false => error.retry_reason(),
                        },
                    });
                }
            };
            if !self.wait_to_retry(error, attempts, &mut waited, request.cancel, notify)? {
                return Err(failure);
            }
            if cut && let Some(restart) = restart.as_mut() {
                restart();
            }
        }
    }

    /// GETs the JSON document at `path` (e.g. `/models`): 200 with `application/json`, at most
    /// `limits.max_body_bytes`. Retried per the client's [`RetryPolicy`].
    pub fn get_json(
        &self,
        path: &str,
        headers: &Headers,
        limits: &Limits,
        cancel: &AtomicBool,
    ) -> Result<Vec<u8>, HttpError> {
        let url = self.base.join(path)?;
        let mut attempts = 0;
        let mut waited = Duration::ZERO;
        loop {
            attempts += 1;
            let exchange = Exchange::new(&url, headers, *limits, cancel);
            let clients = Clients { owner: self };
            match self
                .runtime()?
                .block_on(exchange.json(&clients, url.clone()))
            {
                Ok(body) => return Ok(body),
                Err(error) => {
                    if !self.wait_to_retry(&error, attempts, &mut waited, cancel, |_| {})? {
                        return Err(error);
                    }
                }
            }
        }
    }

    /// Waits before the next attempt when the policy allows one (`Ok(true)`, after telling
    /// `notify` the wait); `Ok(false)` means give up with the error.
    fn wait_to_retry(
        &self,
        error: &HttpError,
        attempts: u32,
        waited: &mut Duration,
        cancel: &AtomicBool,
        notify: impl FnOnce(Duration),
    ) -> Result<bool, HttpError> {
        let delay = {
            let mut jitter = self.jitter.lock().unwrap_or_else(|p| p.into_inner());
            self.retry.delay(error, attempts, *waited, &mut *jitter)
        };
        let Some(delay) = delay else {
            return Ok(false);
        };
        notify(delay);
        match self.runtime()?.block_on(sleep(delay, cancel)) {
            Ok(()) => {
                *waited += delay;
                Ok(true)
            }
            Err(Stop::Cancelled | Stop::Timeout | Stop::Deadline) => Err(HttpError::Cancelled),
        }
    }
}

impl<E> From<HttpError> for StreamError<E> {
    fn from(error: HttpError) -> Self {
        StreamError::Request(error)
    }
}

/// The PEM certificates of `path`.
fn read_ca_file(path: &Path) -> Result<Vec<Certificate>, HttpError> {
    let fail = |reason: String| HttpError::CaFile {
        path: path.to_path_buf(),
        reason,
    };
    let file = std::fs::File::open(path).map_err(|e| fail(e.to_string()))?;
    let mut pem = Vec::new();
    file.take(CA_FILE_MAX + 1)
        .read_to_end(&mut pem)
        .map_err(|e| fail(e.to_string()))?;
    if pem.len() as u64 > CA_FILE_MAX {
        return Err(fail(format!("larger than {CA_FILE_MAX} bytes")));
    }
    let certs = Certificate::from_pem_bundle(&pem)
        .map_err(|e| fail(format!("not a PEM certificate bundle ({e})")))?;
    if certs.is_empty() {
        return Err(fail("no PEM certificate in it".into()));
    }
    Ok(certs)
}
