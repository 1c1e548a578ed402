//! Live-provider latency (issue 8 targets), in process against the mock provider on loopback:
//! - from the last SSE byte of a tool-call response to the tool starting (`tool_status
//!   started`: admission, journaling of the items and the synced intent, event) — ≤ 1 ms;
//! - from a text delta arriving to its preview event — ≤ 5 ms.
//!
//! Run: `cargo bench -p ansa --bench live`.

#[path = "../tests/support/mock_provider.rs"]
mod mock_provider;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ansa::config::AccessMode;
use ansa::instructions::FileExclusion;
use ansa::provider::http::ClientOptions;
use ansa::provider::live::{LiveProvider, Wire};
use ansa::runtime::{self, DEFAULT_QUEUE, Limits, RuntimeSetup};
use ansa::tools::{ToolExecutor, ToolFiles, ToolPolicy, ToolRegistry};
use ansa_sessions::protocol::{Command, CommandBody, EventBody, ToolPhase};
use ansa_sessions::{Binding, CommandId, ContextPolicy, JournalOptions, Mode, Profile, Session};
use ansa_ui::{SessionLink, ToRuntime};
use ash_engine::compute::ComputePlane;
use mock_provider::{Gate, MockChunk, MockProvider, MockResponse};

const ROUNDS: usize = 60;

fn main() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(ws.join("notes.txt"), "the secret number is 42\n").unwrap();
    let mock = MockProvider::http();
    let link = start(&mock, dir.path(), &ws);
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
        submit(&link, round);
        // Let the request reach the gate before the clock starts.
        std::thread::sleep(Duration::from_millis(20));
        let t0 = Instant::now();
        tool_gate.open();
        wait(&link, |b| {
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
        wait(&link, |b| matches!(b, EventBody::TextPreview { .. }));
        to_preview.push(t1.elapsed());
        wait(&link, |b| matches!(b, EventBody::Done { .. }));
    }
    report("last SSE byte → tool started", to_tool);
    report("text delta sent → preview event", to_preview);
    let _ = link.commands.send(ToRuntime::InputClosed);
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

fn start(mock: &MockProvider, root: &Path, ws: &Path) -> SessionLink {
    let session = Session::open_or_create_at(
        &root.join("session"),
        None,
        ws,
        Profile::Live,
        JournalOptions::default(),
    )
    .unwrap();
    let home = ansa::home::AnsaHome::at(root.join("home"));
    let provider = LiveProvider::new(
        Wire::Responses,
        &mock.base_url(),
        None,
        &ClientOptions::default(),
        "gpt-5.5",
        "gpt-5.5",
    )
    .unwrap();
    let policy = ToolPolicy {
        exec_env_deny: Vec::new(),
        access_mode: AccessMode::FullAccess,
        allow_sudo: false,
        process_timeout_ms: 10_000,
        process_output_bytes: 16_384,
    };
    let files = ToolFiles {
        exclusion: FileExclusion::new(&home, None, ws, &[]).unwrap(),
        instructions_digest: String::new(),
    };
    let tools =
        ToolExecutor::open(ws, policy, Arc::new(ComputePlane::new(2).unwrap()), files).unwrap();
    let setup = RuntimeSetup {
        session,
        provider: Box::new(provider),
        registry: ToolRegistry::standard().unwrap(),
        tools,
        prompt: ansa::prompt::Prompt::new("", ""),
        binding: Binding {
            account_hash: None,
            requested_model: "gpt-5.5".into(),
            returned_model: "gpt-5.5".into(),
            context_policy: ContextPolicy {
                compact_bytes: 1 << 30,
                max_items: None,
            },
            config_digest: "bench".into(),
            instructions_digest: "bench".into(),
        },
        limits: Limits {
            tool_rounds: 64,
            tool_calls: 256,
            compact_bytes: 1 << 30,
            queue: DEFAULT_QUEUE,
        },
        previews: true,
        evidence_dir: root.join("evidence"),
        supervisor: None,
    };
    let (link, _handle) = runtime::start(setup).unwrap();
    wait(&link, |b| matches!(b, EventBody::Snapshot(_)));
    link
}

fn submit(link: &SessionLink, n: usize) {
    let command = Command {
        turn: 0,
        command_id: CommandId::new(format!("bench-{n}")).unwrap(),
        body: CommandBody::Submit {
            text: format!("what is in notes.txt? ({n})"),
            mode: Mode::Basic,
        },
    };
    link.commands.send(ToRuntime::Command(command)).unwrap();
}

fn wait(link: &SessionLink, pred: impl Fn(&EventBody) -> bool) {
    loop {
        let event = link
            .events
            .recv_timeout(Duration::from_secs(20))
            .expect("event");
        if pred(&event.body) {
            return;
        }
        if let EventBody::TurnState { state, reason, .. } = &event.body
            && matches!(
                state,
                ansa_sessions::TurnState::Paused | ansa_sessions::TurnState::Failed
            )
        {
            panic!("turn stopped: {reason:?}");
        }
    }
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
