//! `ash-broker` (issue 19 targets), with real processes against a local HTTPS server behind a
//! delay proxy that adds 10 ms each way (a 20 ms round trip, like a near provider):
//! - process start to exit of a one-shot (its answer is one small SSE response, so this
//!   bounds the time to the first response byte): direct vs through a warm broker
//!   (target: broker ≤ 0.4× direct);
//! - TLS handshakes per 100 one-shots, direct and through the broker;
//! - the broker's peak RSS (target ≤ 16 MiB);
//! - the broker's added latency on loopback without the delay, in process with warm
//!   connections on both paths (target ≤ 1 ms p50).
//!
//! Run: `cargo build --release -p ash-broker && cargo bench -p ansa --bench broker`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "bench code: a failed unwrap is the bench failing, with its location"
)]

#[path = "../tests/support/broker.rs"]
mod broker_support;
#[path = "../tests/support/mock_provider.rs"]
mod mock_provider;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use ansa::config::Secret;
use ansa::provider::http::{
    ClientOptions, Headers, HttpClient, Limits, MimePolicy, RetryPolicy, StreamRequest,
};
use ash_broker::client::Route;
use broker_support::Broker;
use mock_provider::{MockProvider, MockResponse};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const RUNS: usize = 100;
const DELAY: Duration = Duration::from_millis(10);
const LOOPBACK_REQUESTS: usize = 300;
const BIG_CLIENTS: usize = 40;
const BIG_BODY: usize = 30 * 1024 * 1024;

fn main() {
    let exe = std::env::var_os("ANSA_BENCH_EXE")
        .map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_ansa")), PathBuf::from);
    let mock = MockProvider::https();
    let sse = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("spec/sse/responses-text.sse"),
    )
    .unwrap();
    for _ in 0..(2 * RUNS + 4 + 2 * (LOOPBACK_REQUESTS + 1)) {
        mock.push("/v1/responses", MockResponse::sse_text(&sse, 333));
    }
    let proxy = delay_proxy(mock.addr(), DELAY);
    let base = format!("https://{proxy}/v1");
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    let run = |extra: &[(&str, String)]| {
        let mut c = Command::new(&exe);
        c.arg("say hello")
            .current_dir(&ws)
            .env("ANSA_HOME", &home)
            .env("HOME", dir.path())
            .env("AI_PROVIDER", "responses")
            .env("AI_ENDPOINT", &base)
            .env("AI_API_KEY", "sk-bench")
            .env("AI_MODEL", "gpt-5.5")
            .env("AI_CA_FILE", mock.ca_file().unwrap())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        for (k, v) in extra {
            c.env(k, v);
        }
        let t = Instant::now();
        assert!(c.status().unwrap().success(), "a one-shot failed");
        t.elapsed()
    };
    let before = mock.handshakes();
    let direct: Vec<Duration> = (0..RUNS).map(|_| run(&[])).collect();
    let direct_handshakes = mock.handshakes() - before;

    let broker = Broker::start_for(&dir.path().join("runtime"), &base, mock.ca_file().unwrap());
    let env = broker.env(&broker.token);
    run(&env);
    let before = mock.handshakes();
    let brokered: Vec<Duration> = (0..RUNS).map(|_| run(&env)).collect();
    let broker_handshakes = mock.handshakes() - before;
    let (d, b) = (median(direct), median(brokered));
    println!(
        "one-shot start to exit, 20 ms round trip: direct p50 {:.1} ms, through a warm broker p50 {:.1} ms ({:.2}×)",
        ms(d),
        ms(b),
        b.as_secs_f64() / d.as_secs_f64()
    );
    println!(
        "TLS handshakes per {RUNS} one-shots: direct {direct_handshakes}, through the broker {broker_handshakes}"
    );
    println!(
        "broker peak RSS: {:.1} MiB",
        broker.peak_rss_kib() as f64 / 1024.0
    );
    drop(broker);

    // Added latency on loopback: warm connections on both paths, no delay.
    let loopback = Broker::start_for(
        &dir.path().join("runtime2"),
        &mock.base_url(),
        mock.ca_file().unwrap(),
    );
    let route = Route::from_values(loopback.socket.to_str(), Some(&loopback.token))
        .unwrap()
        .unwrap();
    let options = |broker: Option<Route>| ClientOptions {
        ca_file: mock.ca_file().map(Into::into),
        connect_timeout: Duration::from_secs(2),
        retry: RetryPolicy::NEVER,
        jitter_seed: Some(1),
        broker,
    };
    let direct = HttpClient::new(&mock.base_url(), &options(None)).unwrap();
    let through = HttpClient::new(&mock.base_url(), &options(Some(route))).unwrap();
    let d = median(timed(&direct, LOOPBACK_REQUESTS));
    let b = median(timed(&through, LOOPBACK_REQUESTS));
    println!(
        "one request on loopback with warm connections: direct p50 {:.3} ms, through the broker p50 {:.3} ms (added {:.3} ms)",
        ms(d),
        ms(b),
        ms(b.saturating_sub(d))
    );
    drop(loopback);

    // Memory under big uploads at once, on a fresh broker so its peak is theirs alone.
    mock.keep_bodies_up_to(16);
    for _ in 0..BIG_CLIENTS {
        mock.push("/v1/responses", MockResponse::json(200, "{}"));
    }
    let big = Broker::start_for(
        &dir.path().join("runtime3"),
        &mock.base_url(),
        mock.ca_file().unwrap(),
    );
    let url = format!("{}/responses", mock.base_url());
    let t = Instant::now();
    let answers: Vec<String> = std::thread::scope(|s| {
        let uploads: Vec<_> = (0..BIG_CLIENTS)
            .map(|_| s.spawn(|| big.upload(&url, BIG_BODY)))
            .collect();
        uploads.into_iter().map(|u| u.join().unwrap()).collect()
    });
    let took = t.elapsed();
    assert!(answers.iter().all(|a| a.starts_with("HTTP/1.1 200")));
    println!(
        "broker peak RSS under {BIG_CLIENTS} concurrent {} MiB uploads: {:.1} MiB (all forwarded in {:.1} s)",
        BIG_BODY / (1024 * 1024),
        big.peak_rss_kib() as f64 / 1024.0,
        took.as_secs_f64()
    );
}

/// Times `n` streamed requests after one warm-up.
fn timed(client: &HttpClient, n: usize) -> Vec<Duration> {
    let headers = Headers::new()
        .bearer(&Secret::new("sk-bench".into()))
        .unwrap();
    let cancel = AtomicBool::new(false);
    let request = StreamRequest {
        path: "/responses",
        headers: &headers,
        body: br#"{"model":"m","stream":true,"input":[]}"#,
        limits: Limits::streaming(),
        mime: MimePolicy::EventStream,
        cancel: &cancel,
        on_retry: None,
    };
    let once = || {
        let t = Instant::now();
        client.post_stream(&request, |_| Ok::<(), ()>(())).unwrap();
        t.elapsed()
    };
    once();
    (0..n).map(|_| once()).collect()
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// A TCP proxy to `target` that holds every chunk for `delay` in each direction.
fn delay_proxy(target: SocketAddr, delay: Duration) -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            loop {
                let Ok((client, _)) = listener.accept().await else {
                    continue;
                };
                tokio::spawn(async move {
                    let Ok(server) = tokio::net::TcpStream::connect(target).await else {
                        return;
                    };
                    let _ = client.set_nodelay(true);
                    let _ = server.set_nodelay(true);
                    let (cr, cw) = client.into_split();
                    let (sr, sw) = server.into_split();
                    tokio::spawn(pipe(cr, sw, delay));
                    pipe(sr, cw, delay).await;
                });
            }
        });
    });
    addr
}

/// Copies `from` to `to`, each chunk written `delay` after it was read (chunks stay
/// pipelined: a delay, not a bandwidth limit).
async fn pipe(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    delay: Duration,
) {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(tokio::time::Instant, Vec<u8>)>();
    tokio::spawn(async move {
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match from.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(n) => {
                    let due = tokio::time::Instant::now() + delay;
                    if tx.send((due, buf[..n].to_vec())).is_err() {
                        return;
                    }
                }
            }
        }
    });
    while let Some((due, bytes)) = rx.recv().await {
        tokio::time::sleep_until(due).await;
        if to.write_all(&bytes).await.is_err() {
            return;
        }
    }
}
