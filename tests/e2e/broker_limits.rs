//! `ash-broker`'s limits with real processes and sockets: many big uploads at once are
//! streamed within a memory bound, idle connections and slow request heads are closed, and
//! running out of file descriptors neither ends nor spins the broker.

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use crate::broker_support::Broker;
use crate::harness::{World, alive};
use crate::mock_provider::{MockProvider, MockResponse};

/// Concurrent uploads and their size: 192 MiB together, three times the bound below, so a
/// broker that holds whole bodies cannot pass.
const CLIENTS: usize = 24;
const BODY: usize = 8 * 1024 * 1024;
/// A generous functional bound; the figure under 40 × 30 MiB is in `benches/broker.rs`.
const PEAK_RSS_KIB: u64 = 64 * 1024;

#[test]
fn many_big_uploads_at_once_are_streamed_within_a_memory_bound() {
    let w = World::new();
    let mock = MockProvider::https();
    mock.keep_bodies_up_to(16);
    for _ in 0..CLIENTS {
        mock.push("/v1/responses", MockResponse::json(200, "{}"));
    }
    let broker = Broker::start(&w.ansa_home().join("runtime"), &mock);
    let url = format!("{}/responses", mock.base_url());
    let answers: Vec<String> = std::thread::scope(|s| {
        let uploads: Vec<_> = (0..CLIENTS)
            .map(|_| s.spawn(|| broker.upload(&url, BODY)))
            .collect();
        uploads.into_iter().map(|u| u.join().unwrap()).collect()
    });
    for answer in &answers {
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    }
    let seen = mock.requests_to("/v1/responses");
    assert_eq!(seen.len(), CLIENTS, "every upload was forwarded");
    for request in &seen {
        assert_eq!(request.body_len, BODY, "each body arrived whole");
        assert_eq!(request.body, b"xxxxxxxxxxxxxxxx");
    }
    let peak = broker.peak_rss_kib();
    assert!(
        peak <= PEAK_RSS_KIB,
        "the broker peaked at {peak} KiB under {CLIENTS} uploads of {BODY} bytes (bound {PEAK_RSS_KIB} KiB)"
    );
}

/// Reads from `stream` until it is closed; `None` if it stays open for `limit`.
fn closed_within(stream: &mut UnixStream, limit: Duration) -> Option<Duration> {
    let start = Instant::now();
    stream.set_read_timeout(Some(limit)).unwrap();
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return Some(start.elapsed()),
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return None;
            }
            Err(_) => return Some(start.elapsed()),
        }
    }
}

#[test]
fn idle_connections_and_slow_request_heads_are_closed() {
    let w = World::new();
    let mock = MockProvider::https();
    let broker = Broker::start(&w.ansa_home().join("runtime"), &mock);
    let silent = UnixStream::connect(&broker.socket).unwrap();
    let mut slow = UnixStream::connect(&broker.socket).unwrap();
    slow.write_all(b"POST /v1/responses HTTP/1.1\r\nhost: x\r\n")
        .unwrap();
    // A connection that had a whole exchange (a refusal) and is kept alive, idle.
    let mut kept = UnixStream::connect(&broker.socket).unwrap();
    kept.write_all(b"GET /v1/models HTTP/1.1\r\nhost: x\r\nx-ash-broker-token: nope\r\n\r\n")
        .unwrap();
    let mut reader = BufReader::new(kept.try_clone().unwrap());
    let mut status = String::new();
    reader.read_line(&mut status).unwrap();
    assert!(status.starts_with("HTTP/1.1 403"), "{status}");
    // The refusal's chunked body ends with an empty chunk.
    let mut line = String::new();
    while line != "0\r\n" {
        line.clear();
        assert!(reader.read_line(&mut line).unwrap() > 0, "closed too early");
    }
    // Limit: ash_broker's HEAD_TIMEOUT (`wire::CONNECTION_IDLE_SECS`) plus a margin.
    let limit = Duration::from_secs(ash_broker::wire::CONNECTION_IDLE_SECS + 15);
    for (name, stream) in [
        ("silent", silent),
        ("slow head", slow),
        ("idle keep-alive", kept),
    ] {
        let mut stream = stream;
        assert!(
            closed_within(&mut stream, limit).is_some(),
            "the {name} connection was still open after {limit:?}"
        );
    }
    assert!(alive(broker.child.id() as i32), "the broker still serves");
}

/// The CPU time `pid` used so far, in clock ticks (user + system).
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let rest = &stat[stat.rfind(')').unwrap() + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3; utime and stime are fields 14 and 15.
    fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
}

#[test]
fn running_out_of_descriptors_neither_ends_nor_spins_the_broker() {
    let w = World::new();
    let mock = MockProvider::https();
    mock.push("/v1/responses", MockResponse::json(200, "{}"));
    // 40 descriptors: about a dozen go to the runtime, the listener, the lock, the lease and
    // the parent's stat file, so the held connections below exhaust the rest.
    let broker = Broker::start_limited(&w.ansa_home().join("runtime"), &mock, 40);
    let pid = broker.child.id();
    let held: Vec<UnixStream> = (0..90)
        .map(|_| UnixStream::connect(&broker.socket).unwrap())
        .collect();
    // Several parent checks (every 100 ms) while the broker is out of descriptors.
    std::thread::sleep(Duration::from_millis(700));
    let before = cpu_ticks(pid);
    std::thread::sleep(Duration::from_secs(2));
    let used = cpu_ticks(pid) - before;
    assert!(
        alive(pid as i32),
        "the broker exited when it ran out of descriptors"
    );
    // A loop retrying `accept` at once would burn about 200 ticks (100 per second).
    assert!(
        used < 60,
        "the broker used {used} ticks of CPU in 2 s while out of descriptors"
    );
    drop(held);
    let url = format!("{}/responses", mock.base_url());
    let answer = broker.upload(&url, 2);
    assert!(
        answer.starts_with("HTTP/1.1 200"),
        "it serves again once descriptors are free: {answer}"
    );
    assert_eq!(mock.requests_to("/v1/responses").len(), 1);
}

#[test]
fn a_body_without_a_declared_length_is_refused_before_forwarding() {
    let w = World::new();
    let mock = MockProvider::https();
    mock.push("/v1/responses", MockResponse::json(200, "{}"));
    let broker = Broker::start(&w.ansa_home().join("runtime"), &mock);
    let answer = broker.raw(&format!(
        "POST /v1/responses HTTP/1.1\r\nhost: x\r\nx-ash-broker-token: {}\r\nx-ash-broker-url: {}/responses\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{{}}\r\n0\r\n\r\n",
        broker.token,
        mock.base_url()
    ));
    assert!(answer.starts_with("HTTP/1.1 411"), "{answer}");
    assert!(
        answer.contains("x-ash-broker-refused: a request body needs a content-length"),
        "{answer}"
    );
    assert!(
        mock.requests_to("/v1/responses").is_empty(),
        "nothing was forwarded"
    );
}

#[test]
fn a_request_that_waits_too_long_for_an_upload_slot_is_refused_and_may_go_direct() {
    let w = World::new();
    let mock = MockProvider::https();
    let broker = Broker::start(&w.ansa_home().join("runtime"), &mock);
    let url = format!("{}/responses", mock.base_url());
    let stop = std::sync::atomic::AtomicBool::new(false);
    // ash_broker's MAX_UPLOADS bodies that keep arriving a byte at a time (never stalled long
    // enough to be abandoned, never finished): every upload slot stays taken.
    let answer = std::thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| {
                let mut stream = UnixStream::connect(&broker.socket).unwrap();
                let head = format!(
                    "POST /v1/responses HTTP/1.1\r\nhost: x\r\nx-ash-broker-token: {}\r\nx-ash-broker-url: {url}\r\ncontent-length: 1000\r\n\r\n",
                    broker.token
                );
                stream.write_all(head.as_bytes()).unwrap();
                while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                    if stream.write_all(b"x").is_err() {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(500));
                }
            });
        }
        std::thread::sleep(Duration::from_secs(1));
        let answer = broker.upload(&url, 2);
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        answer
    });
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(
        answer.contains("x-ash-broker-refused: the broker is busy"),
        "a refusal, so the client sends it directly: {answer}"
    );
}
