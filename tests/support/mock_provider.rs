//! A scripted mock provider server for tests: real HTTP/1.1 and HTTP/2 on 127.0.0.1 (random
//! port), plain or HTTPS with a test CA made at start-up, on a background thread with its own
//! tokio runtime. Include it with `#[path = "../support/mock_provider.rs"] mod mock_provider;`.
//!
//! Each path (`/v1/responses`, `/v1/chat/completions`, `/v1/models`, …) has a queue of
//! [`MockResponse`]s, served in order; a request with nothing scripted gets a 404 JSON error.
//! Every request is recorded (method, path, version, headers, exact body). The server stops
//! when the [`MockProvider`] is dropped.

#![allow(dead_code)]

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::thread::JoinHandle;
use std::time::Duration;

use bytes::Bytes;
use http_body::{Body, Frame};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{Notify, mpsc, oneshot};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls;

/// A point in a response that the test opens: the server waits at it until [`Gate::open`].
#[derive(Clone, Default)]
pub struct Gate(Arc<Notify>);

impl Gate {
    /// A closed gate.
    pub fn new() -> Self {
        Gate::default()
    }

    /// Lets the waiting response go on (or the next one that reaches the gate).
    pub fn open(&self) {
        self.0.notify_one();
    }
}

/// One piece of a response body.
#[derive(Clone)]
pub struct MockChunk {
    /// Sent as one write.
    pub bytes: Vec<u8>,
    /// Waited before sending it.
    pub delay: Duration,
    /// Opened by the test before sending it.
    pub gate: Option<Gate>,
}

impl MockChunk {
    /// A chunk sent at once.
    pub fn new(bytes: impl Into<Vec<u8>>) -> Self {
        MockChunk {
            bytes: bytes.into(),
            delay: Duration::ZERO,
            gate: None,
        }
    }

    /// Sent `delay` after the previous one.
    pub fn after(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    /// Sent only once `gate` is opened.
    pub fn gated(mut self, gate: &Gate) -> Self {
        self.gate = Some(gate.clone());
        self
    }
}

/// One scripted answer.
#[derive(Clone)]
pub struct MockResponse {
    /// Status code.
    pub status: u16,
    /// Headers, in order.
    pub headers: Vec<(String, String)>,
    /// Body chunks.
    pub chunks: Vec<MockChunk>,
    /// Abort the connection after this many body bytes.
    pub drop_after: Option<usize>,
    /// After the last chunk, keep the body open without ending it (until the client leaves).
    pub stall: bool,
}

impl MockResponse {
    /// `status` with no headers and an empty body.
    pub fn new(status: u16) -> Self {
        MockResponse {
            status,
            headers: Vec::new(),
            chunks: Vec::new(),
            drop_after: None,
            stall: false,
        }
    }

    /// 200 `text/event-stream`, each item sent as one chunk.
    pub fn sse<I, C>(chunks: I) -> Self
    where
        I: IntoIterator<Item = C>,
        C: Into<Vec<u8>>,
    {
        let mut r = MockResponse::new(200).header("content-type", "text/event-stream");
        r.chunks = chunks.into_iter().map(MockChunk::new).collect();
        r
    }

    /// 200 `text/event-stream` carrying `text` cut into chunks of `size` bytes (to test parsers
    /// across chunk boundaries).
    pub fn sse_text(text: &str, size: usize) -> Self {
        MockResponse::sse(text.as_bytes().chunks(size.max(1)).map(<[u8]>::to_vec))
    }

    /// `status` with an `application/json` body.
    pub fn json(status: u16, body: &str) -> Self {
        MockResponse::new(status)
            .header("content-type", "application/json")
            .body(body)
    }

    /// An OpenAI-style error: `{"error":{"message","type","code"}}`.
    pub fn openai_error(status: u16, code: &str, message: &str) -> Self {
        let body = serde_json::json!({"error": {"message": message, "type": "invalid_request_error", "code": code}});
        MockResponse::json(status, &body.to_string())
    }

    /// A redirect to `location`.
    pub fn redirect(status: u16, location: &str) -> Self {
        MockResponse::new(status).header("location", location)
    }

    /// Adds a header.
    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    /// Removes every header called `name`.
    pub fn without_header(mut self, name: &str) -> Self {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self
    }

    /// Replaces the body with one chunk.
    pub fn body(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.chunks = vec![MockChunk::new(bytes)];
        self
    }

    /// Appends a chunk.
    pub fn chunk(mut self, chunk: MockChunk) -> Self {
        self.chunks.push(chunk);
        self
    }

    /// Waits `delay` before every chunk but the first.
    pub fn chunk_delay(mut self, delay: Duration) -> Self {
        for c in self.chunks.iter_mut().skip(1) {
            c.delay = delay;
        }
        self
    }

    /// Declares `Content-Length` as the total of the chunks.
    pub fn with_content_length(self) -> Self {
        let n: usize = self.chunks.iter().map(|c| c.bytes.len()).sum();
        self.header("content-length", &n.to_string())
    }

    /// Aborts the connection after `bytes` body bytes.
    pub fn drop_after(mut self, bytes: usize) -> Self {
        self.drop_after = Some(bytes);
        self
    }

    /// Never ends the body after the last chunk.
    pub fn stall(mut self) -> Self {
        self.stall = true;
        self
    }
}

/// Formats one SSE event: `event: NAME\ndata: DATA\n\n`.
pub fn sse_event(name: &str, data: &str) -> String {
    format!("event: {name}\ndata: {data}\n\n")
}

/// A request as the server received it.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    /// `GET`, `POST`…
    pub method: String,
    /// Path and query.
    pub path: String,
    /// `HTTP/1.1` or `HTTP/2.0`.
    pub version: String,
    /// Headers, names in lower case, in order.
    pub headers: Vec<(String, String)>,
    /// The exact body bytes (only the first ones past [`MockProvider::keep_bodies_up_to`]).
    pub body: Vec<u8>,
    /// How many body bytes arrived.
    pub body_len: usize,
}

impl RecordedRequest {
    /// The first value of header `name`.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body parsed as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).expect("request body is JSON")
    }
}

/// Decides whether a request's bearer token (`None`: no `Authorization: Bearer`) is accepted.
pub type Authorizer = Arc<dyn Fn(Option<&str>) -> bool + Send + Sync>;

#[derive(Default)]
struct State {
    queues: Mutex<HashMap<String, VecDeque<MockResponse>>>,
    requests: Mutex<Vec<RecordedRequest>>,
    authorizer: Mutex<Option<Authorizer>>,
    /// Most body bytes recorded per request (`None`: all), so big uploads cost no memory here.
    body_cap: Mutex<Option<usize>>,
    /// TLS handshakes completed (HTTPS only).
    handshakes: std::sync::atomic::AtomicUsize,
}

/// The running server.
pub struct MockProvider {
    addr: SocketAddr,
    tls: bool,
    ca_file: Option<PathBuf>,
    ca_pem: Option<String>,
    state: Arc<State>,
    shutdown: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
    _dir: tempfile::TempDir,
}

impl MockProvider {
    /// A plain HTTP server (HTTP/1.1, and HTTP/2 with prior knowledge).
    pub fn http() -> Self {
        MockProvider::start(None)
    }

    /// An HTTPS server (ALPN `h2` and `http/1.1`) whose certificate, for `localhost` and
    /// `127.0.0.1`, is signed by a fresh test CA; see [`MockProvider::ca_file`].
    pub fn https() -> Self {
        MockProvider::start(Some(TestPki::new()))
    }

    fn start(pki: Option<TestPki>) -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        listener.set_nonblocking(true).expect("nonblocking");
        let addr = listener.local_addr().expect("local addr");
        let (ca_file, ca_pem, acceptor) = match pki {
            Some(pki) => {
                let path = dir.path().join("test-ca.pem");
                std::fs::write(&path, &pki.ca_pem).expect("write CA");
                (Some(path), Some(pki.ca_pem.clone()), Some(pki.acceptor()))
            }
            None => (None, None, None),
        };
        let state = Arc::new(State::default());
        let (shutdown, stop) = oneshot::channel();
        let served = Arc::clone(&state);
        let thread = std::thread::Builder::new()
            .name(format!("mock-provider-{}", addr.port()))
            .spawn(move || serve(listener, acceptor, served, stop))
            .expect("spawn server thread");
        MockProvider {
            addr,
            tls: ca_file.is_some(),
            ca_file,
            ca_pem,
            state,
            shutdown: Some(shutdown),
            thread: Some(thread),
            _dir: dir,
        }
    }

    /// `http://127.0.0.1:PORT` or `https://127.0.0.1:PORT`.
    pub fn origin(&self) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://{}", self.addr)
    }

    /// The provider base URL: the origin plus `/v1`.
    pub fn base_url(&self) -> String {
        format!("{}/v1", self.origin())
    }

    /// The same base URL with the host name `localhost`.
    pub fn localhost_base_url(&self) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://localhost:{}/v1", self.addr.port())
    }

    /// The socket address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The test CA as a PEM file (HTTPS only), for `AI_CA_FILE`.
    pub fn ca_file(&self) -> Option<&Path> {
        self.ca_file.as_deref()
    }

    /// The test CA in PEM (HTTPS only).
    pub fn ca_pem(&self) -> Option<&str> {
        self.ca_pem.as_deref()
    }

    /// Accepts only requests whose bearer token `accept` approves; the others get a 401 (and
    /// take nothing from the queues), like the real API with a bad or expired token.
    pub fn require_bearer(&self, accept: impl Fn(Option<&str>) -> bool + Send + Sync + 'static) {
        *lock(&self.state.authorizer) = Some(Arc::new(accept));
    }

    /// Records at most `bytes` of each request body from now on (the length still counts all).
    pub fn keep_bodies_up_to(&self, bytes: usize) {
        *lock(&self.state.body_cap) = Some(bytes);
    }

    /// Queues `response` for the next request to `path` (e.g. `/v1/responses`).
    pub fn push(&self, path: &str, response: MockResponse) -> &Self {
        lock(&self.state.queues)
            .entry(path.to_string())
            .or_default()
            .push_back(response);
        self
    }

    /// Scripted responses for `path` not served yet.
    pub fn pending(&self, path: &str) -> usize {
        lock(&self.state.queues).get(path).map_or(0, VecDeque::len)
    }

    /// TLS handshakes completed so far (each one a new connection).
    pub fn handshakes(&self) -> usize {
        self.state
            .handshakes
            .load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.state.requests).clone()
    }

    /// The requests to `path` so far.
    pub fn requests_to(&self, path: &str) -> Vec<RecordedRequest> {
        self.requests()
            .into_iter()
            .filter(|r| r.path == path)
            .collect()
    }
}

impl Drop for MockProvider {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The accept loop, on the server thread; returns (dropping every connection) on shutdown.
fn serve(
    listener: std::net::TcpListener,
    acceptor: Option<TlsAcceptor>,
    state: Arc<State>,
    mut stop: oneshot::Receiver<()>,
) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("server runtime");
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::from_std(listener).expect("tokio listener");
        loop {
            tokio::select! {
                _ = &mut stop => break,
                accepted = listener.accept() => {
                    let Ok((tcp, _)) = accepted else { continue };
                    // Like real API servers: no Nagle delay between a response's chunks.
                    let _ = tcp.set_nodelay(true);
                    let state = Arc::clone(&state);
                    let acceptor = acceptor.clone();
                    tokio::spawn(async move {
                        match acceptor {
                            Some(acceptor) => {
                                // A client that refuses the certificate ends here.
                                if let Ok(tls) = acceptor.accept(tcp).await {
                                    state.handshakes.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                                    connection(tls, state).await;
                                }
                            }
                            None => connection(tcp, state).await,
                        }
                    });
                }
            }
        }
    });
}

async fn connection<S>(io: S, state: Arc<State>)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let service = service_fn(move |req| {
        let state = Arc::clone(&state);
        async move { Ok::<_, Infallible>(answer(req, state).await) }
    });
    let _ = auto::Builder::new(TokioExecutor::new())
        .serve_connection(TokioIo::new(io), service)
        .await;
}

/// Records the request and answers with the next scripted response for its path.
async fn answer(req: Request<Incoming>, state: Arc<State>) -> Response<ChannelBody> {
    let (parts, mut incoming) = req.into_parts();
    let mut body = Vec::new();
    let mut body_len = 0;
    let cap = lock(&state.body_cap).unwrap_or(usize::MAX);
    while let Some(frame) = std::future::poll_fn(|cx| Pin::new(&mut incoming).poll_frame(cx)).await
    {
        match frame {
            Ok(frame) => {
                if let Ok(data) = frame.into_data() {
                    body_len += data.len();
                    let keep = data.len().min(cap.saturating_sub(body.len()));
                    body.extend_from_slice(&data[..keep]);
                }
            }
            Err(_) => break,
        }
    }
    let path = parts.uri.path().to_string();
    lock(&state.requests).push(RecordedRequest {
        method: parts.method.to_string(),
        path: parts
            .uri
            .path_and_query()
            .map_or(path.clone(), |p| p.to_string()),
        version: format!("{:?}", parts.version),
        headers: parts
            .headers
            .iter()
            .map(|(n, v)| {
                (
                    n.as_str().to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect(),
        body,
        body_len,
    });
    let authorizer = lock(&state.authorizer).clone();
    let bearer = parts
        .headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    let refused = authorizer.is_some_and(|accept| !accept(bearer));
    let scripted = if refused {
        // Like servers that echo what they were sent, percent-encoded and JSON-escaped: the
        // client must not show or journal the token in any form.
        let token = bearer.unwrap_or("");
        let percent: String = token.bytes().map(|b| format!("%{b:02X}")).collect();
        let escaped: String = token
            .chars()
            .map(|c| format!("\\u{:04x}", c as u32))
            .collect();
        Some(MockResponse::openai_error(
            401,
            "invalid_api_key",
            &format!("mock: the bearer token {percent} ({escaped}) is not accepted"),
        ))
    } else {
        lock(&state.queues)
            .get_mut(&path)
            .and_then(VecDeque::pop_front)
    };
    let script = scripted.unwrap_or_else(|| {
        let msg = format!("mock: nothing scripted for {} {path}", parts.method);
        MockResponse::openai_error(404, "mock_unscripted", &msg)
    });
    let (tx, rx) = mpsc::channel(4);
    let mut builder = Response::builder().status(script.status);
    for (name, value) in &script.headers {
        builder = builder.header(name, value);
    }
    tokio::spawn(produce(script, tx));
    builder
        .body(ChannelBody(rx))
        .expect("scripted response is valid")
}

/// Sends the scripted body: chunks with their delays and gates, then ends, aborts or stalls.
async fn produce(script: MockResponse, tx: mpsc::Sender<Result<Bytes, io::Error>>) {
    let mut budget = script.drop_after.unwrap_or(usize::MAX);
    for chunk in script.chunks {
        if let Some(gate) = &chunk.gate {
            gate.0.notified().await;
        }
        if !chunk.delay.is_zero() {
            tokio::time::sleep(chunk.delay).await;
        }
        let take = chunk.bytes.len().min(budget);
        budget -= take;
        if take > 0
            && tx
                .send(Ok(Bytes::from(chunk.bytes[..take].to_vec())))
                .await
                .is_err()
        {
            return;
        }
        if take < chunk.bytes.len() {
            break;
        }
    }
    if script.drop_after.is_some() && budget == 0 {
        let _ = tx
            .send(Err(io::Error::new(
                io::ErrorKind::ConnectionAborted,
                "mock: drop",
            )))
            .await;
        return;
    }
    if script.stall {
        tx.closed().await;
    }
}

/// A response body fed by the producer task.
struct ChannelBody(mpsc::Receiver<Result<Bytes, io::Error>>);

impl Body for ChannelBody {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        self.get_mut()
            .0
            .poll_recv(cx)
            .map(|item| item.map(|r| r.map(Frame::data)))
    }
}

/// A test CA and a server certificate for `localhost` and `127.0.0.1` signed by it.
struct TestPki {
    ca_pem: String,
    cert_der: Vec<u8>,
    key_der: Vec<u8>,
}

impl TestPki {
    fn new() -> Self {
        use rcgen::{
            BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer,
            KeyPair, KeyUsagePurpose,
        };
        let ca_key = KeyPair::generate().expect("CA key");
        let mut ca = CertificateParams::new(Vec::<String>::new()).expect("CA params");
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca.distinguished_name
            .push(DnType::CommonName, "ansa mock provider test CA");
        ca.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::CrlSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        let ca_cert = ca.self_signed(&ca_key).expect("CA cert");
        let issuer = Issuer::new(ca, ca_key);
        let key = KeyPair::generate().expect("server key");
        let mut leaf =
            CertificateParams::new(vec!["localhost".to_string(), "127.0.0.1".to_string()])
                .expect("server params");
        leaf.distinguished_name
            .push(DnType::CommonName, "localhost");
        leaf.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        let cert = leaf.signed_by(&key, &issuer).expect("server cert");
        TestPki {
            ca_pem: ca_cert.pem(),
            cert_der: cert.der().to_vec(),
            key_der: key.serialize_der(),
        }
    }

    fn acceptor(&self) -> TlsAcceptor {
        use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
        let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .expect("TLS versions")
            .with_no_client_auth()
            .with_single_cert(
                vec![CertificateDer::from(self.cert_der.clone())],
                PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(self.key_der.clone())),
            )
            .expect("server TLS config");
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        TlsAcceptor::from(Arc::new(config))
    }
}

/// Runs `f` on a plain thread and waits at most `limit` for it (a hung client fails the test
/// instead of hanging it).
pub fn within<T: Send + 'static>(limit: Duration, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(limit)
        .unwrap_or_else(|_| panic!("did not finish within {limit:?}"))
}
