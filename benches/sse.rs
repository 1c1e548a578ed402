//! Benchmarks of the streaming protocol layer (issue 8 target: SSE reduction ≥ 200 MB/s of event
//! data):
//! - SSE framing alone, and full Responses reduction, of a ~50 MB synthetic stream of
//!   `output_text.delta` events fed in 16 KiB chunks (MB/s of stream bytes, 1 MB = 10^6 bytes);
//! - the same answer as a Chat Completions stream;
//! - the recorded fixtures of `spec/sse/` reduced over and over;
//! - latency from pushing the last byte to holding the completed response (µs).
//!
//! Run: `cargo bench -p ansa --bench sse`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use ansa::provider::chat::ChatReducer;
use ansa::provider::responses::ResponsesReducer;
use ansa::provider::sse::{SseError, SseEvent, SseFramer};

const CHUNK: usize = 16 * 1024;
const TARGET: usize = 50_000_000;
const RUNS: usize = 9;
const MODEL: &str = "gpt-5.5";
const RESP: &str = "resp_692c2220873a0000c6d07ef7b77e90d34283fefc63f0cd0e";
const MSG: &str = "msg_692c222081220e087835b92558589eaf4283fefc63f0cd0e";

fn main() {
    let responses = synthetic_responses(TARGET);
    let chat = synthetic_chat(TARGET);
    println!(
        "synthetic streams: responses {:.1} MB, chat {:.1} MB, {} KiB chunks",
        mb(responses.len()),
        mb(chat.len()),
        CHUNK / 1024
    );
    framing(&responses);
    responses_reduction(&responses);
    chat_reduction(&chat);
    fixtures();
    fixture_latency();
}

fn mb(bytes: usize) -> f64 {
    bytes as f64 / 1e6
}

fn p50<T: PartialOrd + Copy>(mut values: Vec<T>) -> T {
    values.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    values[values.len() / 2]
}

fn p95<T: PartialOrd + Copy>(mut values: Vec<T>) -> T {
    values.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    values[(values.len() - 1) * 95 / 100]
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// Token-sized deltas with the occasional escape, as real streams have.
fn deltas() -> impl Iterator<Item = String> {
    const WORDS: [&str; 12] = [
        " the",
        " stream",
        "ing",
        " reducer",
        " checks",
        " every",
        " event",
        ".",
        "\n",
        " \"quoted\"",
        " 42",
        " fn main() {",
    ];
    (0..).map(|i: usize| WORDS[i % WORDS.len()].to_owned())
}

fn json(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

fn synthetic_responses(target: usize) -> Vec<u8> {
    let response = |status: &str, output: &str, usage: &str| {
        format!(
            r#"{{"id":"{RESP}","object":"response","created_at":1764500000,"status":"{status}","error":null,"incomplete_details":null,"instructions":null,"model":"{MODEL}","output":[{output}],"store":false,"usage":{usage}}}"#
        )
    };
    let mut out = String::with_capacity(target + (target / 4));
    let mut seq = 0;
    let mut event = |out: &mut String, kind: &str, body: &str| {
        out.push_str(&format!(
            "event: {kind}\ndata: {{\"type\":\"{kind}\",\"sequence_number\":{seq},{body}}}\n\n"
        ));
        seq += 1;
    };
    event(
        &mut out,
        "response.created",
        &format!(r#""response":{}"#, response("in_progress", "", "null")),
    );
    event(
        &mut out,
        "response.in_progress",
        &format!(r#""response":{}"#, response("in_progress", "", "null")),
    );
    event(
        &mut out,
        "response.output_item.added",
        &format!(
            r#""output_index":0,"item":{{"id":"{MSG}","type":"message","status":"in_progress","content":[],"role":"assistant"}}"#
        ),
    );
    event(
        &mut out,
        "response.content_part.added",
        &format!(
            r#""item_id":"{MSG}","output_index":0,"content_index":0,"part":{{"type":"output_text","annotations":[],"logprobs":[],"text":""}}"#
        ),
    );
    let mut text = String::new();
    for delta in deltas() {
        if out.len() >= target {
            break;
        }
        text.push_str(&delta);
        let pad = "x".repeat(16usize.saturating_sub(delta.len()).max(1));
        event(
            &mut out,
            "response.output_text.delta",
            &format!(
                r#""item_id":"{MSG}","output_index":0,"content_index":0,"delta":{},"logprobs":[],"obfuscation":"{pad}""#,
                json(&delta)
            ),
        );
    }
    let text = json(&text);
    let part = format!(r#"{{"type":"output_text","annotations":[],"logprobs":[],"text":{text}}}"#);
    let item = format!(
        r#"{{"id":"{MSG}","type":"message","status":"completed","content":[{part}],"role":"assistant"}}"#
    );
    event(
        &mut out,
        "response.output_text.done",
        &format!(
            r#""item_id":"{MSG}","output_index":0,"content_index":0,"text":{text},"logprobs":[]"#
        ),
    );
    event(
        &mut out,
        "response.content_part.done",
        &format!(r#""item_id":"{MSG}","output_index":0,"content_index":0,"part":{part}"#),
    );
    event(
        &mut out,
        "response.output_item.done",
        &format!(r#""output_index":0,"item":{item}"#),
    );
    let usage = r#"{"input_tokens":131,"input_tokens_details":{"cached_tokens":0},"output_tokens":26,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":157}"#;
    event(
        &mut out,
        "response.completed",
        &format!(r#""response":{}"#, response("completed", &item, usage)),
    );
    out.into_bytes()
}

fn synthetic_chat(target: usize) -> Vec<u8> {
    let mut out = String::with_capacity(target + 1024);
    let chunk = |out: &mut String, delta: &str, finish: &str| {
        out.push_str(&format!(
            r#"data: {{"id":"chatcmpl-iLJXgucAey3Yj1ivhNLY7yeKJoKf8","object":"chat.completion.chunk","created":1764500000,"model":"{MODEL}","service_tier":"default","system_fingerprint":"fp_8b93e83190","choices":[{{"index":0,"delta":{delta},"logprobs":null,"finish_reason":{finish}}}],"usage":null,"obfuscation":"NQafAh04"}}"#
        ));
        out.push_str("\n\n");
    };
    chunk(
        &mut out,
        r#"{"role":"assistant","content":"","refusal":null}"#,
        "null",
    );
    for delta in deltas() {
        if out.len() >= target {
            break;
        }
        chunk(
            &mut out,
            &format!(r#"{{"content":{}}}"#, json(&delta)),
            "null",
        );
    }
    chunk(&mut out, "{}", r#""stop""#);
    out.push_str("data: [DONE]\n\n");
    out.into_bytes()
}

fn framing(stream: &[u8]) {
    let mut rates = Vec::new();
    for _ in 0..RUNS {
        let start = Instant::now();
        let mut framer = SseFramer::default();
        let mut data = 0usize;
        let mut count = |e: SseEvent<'_>| -> Result<(), SseError> {
            data += e.data.len();
            Ok(())
        };
        for chunk in stream.chunks(CHUNK) {
            framer
                .push(chunk, &mut count)
                .unwrap_or_else(|e| panic!("{e}"));
        }
        framer.finish().unwrap_or_else(|e| panic!("{e}"));
        black_box(data);
        rates.push(mb(stream.len()) / start.elapsed().as_secs_f64());
    }
    println!(
        "SSE framing only (synthetic responses): p50 {:.0} MB/s",
        p50(rates)
    );
}

fn responses_reduction(stream: &[u8]) {
    let (body, last) = stream.split_at(stream.len() - 1);
    let (mut rates, mut latencies) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        let mut previews = 0usize;
        let mut preview = |text: &str| previews += text.len() & 1;
        let start = Instant::now();
        let mut reducer = ResponsesReducer::new(MODEL);
        for chunk in body.chunks(CHUNK) {
            reducer
                .push(chunk, &mut preview)
                .unwrap_or_else(|e| panic!("{e}"));
        }
        let tail = Instant::now();
        reducer
            .push(last, &mut preview)
            .unwrap_or_else(|e| panic!("{e}"));
        let done = reducer.finish().unwrap_or_else(|e| panic!("{e}"));
        let end = Instant::now();
        black_box((done, previews));
        rates.push(mb(stream.len()) / (end - start).as_secs_f64());
        latencies.push(us(end - tail));
    }
    println!(
        "Responses reduction (synthetic, {:.1} MB): p50 {:.0} MB/s; last byte -> CompletedResponse p50 {:.0} µs (final events carry the whole text)",
        mb(stream.len()),
        p50(rates),
        p50(latencies)
    );
}

fn chat_reduction(stream: &[u8]) {
    let mut rates = Vec::new();
    for _ in 0..RUNS {
        let mut preview = |text: &str| {
            black_box(text.len());
        };
        let start = Instant::now();
        let mut reducer = ChatReducer::new(MODEL);
        for chunk in stream.chunks(CHUNK) {
            reducer
                .push(chunk, &mut preview)
                .unwrap_or_else(|e| panic!("{e}"));
        }
        black_box(reducer.finish().unwrap_or_else(|e| panic!("{e}")));
        rates.push(mb(stream.len()) / start.elapsed().as_secs_f64());
    }
    println!(
        "Chat reduction (synthetic, {:.1} MB): p50 {:.0} MB/s",
        mb(stream.len()),
        p50(rates)
    );
}

fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/spec/sse/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn reduce_fixture(name: &str, bytes: &[u8]) {
    let mut preview = |text: &str| {
        black_box(text.len());
    };
    if name.starts_with("chat") {
        let mut reducer = ChatReducer::new(MODEL);
        reducer
            .push(bytes, &mut preview)
            .unwrap_or_else(|e| panic!("{e}"));
        black_box(reducer.finish().unwrap_or_else(|e| panic!("{e}")));
    } else {
        let mut reducer = ResponsesReducer::new(MODEL);
        reducer
            .push(bytes, &mut preview)
            .unwrap_or_else(|e| panic!("{e}"));
        black_box(reducer.finish().unwrap_or_else(|e| panic!("{e}")));
    }
}

const FIXTURES: [&str; 6] = [
    "responses-text.sse",
    "responses-tool.sse",
    "responses-refusal.sse",
    "chat-text.sse",
    "chat-tool.sse",
    "chat-refusal.sse",
];

fn fixtures() {
    for name in FIXTURES {
        let bytes = fixture(name);
        let repeats = 20_000_000 / bytes.len();
        let mut rates = Vec::new();
        for _ in 0..RUNS {
            let start = Instant::now();
            for _ in 0..repeats {
                reduce_fixture(name, &bytes);
            }
            rates.push(mb(bytes.len() * repeats) / start.elapsed().as_secs_f64());
        }
        println!(
            "fixture {name:<22} reduced x{repeats}: p50 {:.0} MB/s",
            p50(rates)
        );
    }
}

fn fixture_latency() {
    for name in FIXTURES {
        let bytes = fixture(name);
        let (body, last) = bytes.split_at(bytes.len() - 1);
        let mut latencies = Vec::new();
        let mut preview = |text: &str| {
            black_box(text.len());
        };
        for _ in 0..5_000 {
            if name.starts_with("chat") {
                let mut reducer = ChatReducer::new(MODEL);
                reducer
                    .push(body, &mut preview)
                    .unwrap_or_else(|e| panic!("{e}"));
                let start = Instant::now();
                reducer
                    .push(last, &mut preview)
                    .unwrap_or_else(|e| panic!("{e}"));
                black_box(reducer.finish().unwrap_or_else(|e| panic!("{e}")));
                latencies.push(us(start.elapsed()));
            } else {
                let mut reducer = ResponsesReducer::new(MODEL);
                reducer
                    .push(body, &mut preview)
                    .unwrap_or_else(|e| panic!("{e}"));
                let start = Instant::now();
                reducer
                    .push(last, &mut preview)
                    .unwrap_or_else(|e| panic!("{e}"));
                black_box(reducer.finish().unwrap_or_else(|e| panic!("{e}")));
                latencies.push(us(start.elapsed()));
            }
        }
        println!(
            "fixture {name:<22} last byte -> completed: p50 {:.2} µs, p95 {:.2} µs",
            p50(latencies.clone()),
            p95(latencies)
        );
    }
}
