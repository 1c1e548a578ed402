//! Live-provider latency (issue 8 targets), in process against the mock provider on loopback:
//! - from the last SSE byte of a tool-call response to the tool starting (`tool_status
//!   started`: admission, journaling of the items and the synced intent, event) — ≤ 1 ms;
//! - from a text delta arriving to its preview event — ≤ 5 ms.
//!
//! Run: `cargo bench -p ansa --bench live`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

#[path = "../tests/support/live_runtime.rs"]
mod live_runtime;
#[path = "../tests/support/mock_provider.rs"]
mod mock_provider;

use std::path::Path;
use std::time::{Duration, Instant};

use ansa::provider::live::Wire;
use ansa_sessions::protocol::{EventBody, ToolPhase};
use mock_provider::{Gate, MockChunk, MockProvider, MockResponse};

const ROUNDS: usize = 60;

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join("notes.txt"), "the secret number is 42\n").unwrap();
    let mock = MockProvider::http();
    let link = live_runtime::start(&mock.base_url(), Wire::Responses, dir.path(), &ws, 1 << 30);
    let tool = fixture("responses-tool.sse");
    let text = fixture("responses-text.sse");
    let (tool_head, tool_tail) = split_before_last_event(&tool);
    let (text_head, text_delta, text_rest) =
        split_around_first(&text, "response.output_text.delta");
    let mut to_tool = Vec::new();
    let mut to_preview = Vec::new();
    for round in 0..ROUNDS {
        let tool_gate = Gate::new();
        let preview_gate = Gate::new();
        mock.push(
            "/v1/responses",
            MockResponse::sse([tool_head.clone()])
                .chunk(MockChunk::new(tool_tail.clone()).gated(&tool_gate)),
        );
        mock.push(
            "/v1/responses",
            MockResponse::sse([text_head.clone()])
                .chunk(MockChunk::new(text_delta.clone()).gated(&preview_gate))
                .chunk(MockChunk::new(text_rest.clone())),
        );
        live_runtime::submit(
            &link,
            &format!("bench-{round}"),
            &format!("what is in notes.txt? ({round})"),
        );
        // Let the request reach the gate before the clock starts.
        std::thread::sleep(Duration::from_millis(20));
        let t0 = Instant::now();
        tool_gate.open();
        live_runtime::wait(&link, |b| {
            matches!(
                b,
                EventBody::ToolStatus {
                    status: ToolPhase::Started,
                    ..
                }
            )
        });
        to_tool.push(t0.elapsed());
        std::thread::sleep(Duration::from_millis(20));
        let t1 = Instant::now();
        preview_gate.open();
        live_runtime::wait(&link, |b| matches!(b, EventBody::TextPreview { .. }));
        to_preview.push(t1.elapsed());
        live_runtime::wait(&link, |b| matches!(b, EventBody::Done { .. }));
    }
    report("last SSE byte → tool started", to_tool);
    report("text delta sent → preview event", to_preview);
    live_runtime::close(link);
}

fn fixture(name: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("spec/sse")
            .join(name),
    )
    .unwrap()
}

fn split_before_last_event(stream: &str) -> (Vec<u8>, Vec<u8>) {
    let at = stream.trim_end().rfind("\n\nevent: ").unwrap() + 2;
    (
        stream.as_bytes()[..at].to_vec(),
        stream.as_bytes()[at..].to_vec(),
    )
}

fn split_around_first(stream: &str, kind: &str) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let start = stream.find(&format!("event: {kind}\n")).unwrap();
    let end = start + stream[start..].find("\n\n").unwrap() + 2;
    (
        stream.as_bytes()[..start].to_vec(),
        stream.as_bytes()[start..end].to_vec(),
        stream.as_bytes()[end..].to_vec(),
    )
}

fn report(name: &str, mut times: Vec<Duration>) {
    times.sort();
    let p = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize].as_secs_f64() * 1e3;
    println!(
        "{name}: n={} p50={:.3} ms p95={:.3} ms min={:.3} ms",
        times.len(),
        p(0.5),
        p(0.95),
        p(0.0)
    );
}
