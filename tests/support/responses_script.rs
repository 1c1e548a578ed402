//! Real-shape Responses streams for scripted model turns: function calls, or a final text.
//! Event order and fields follow `spec/sse/responses-tool.sse` and `responses-text.sse`.

#![allow(dead_code)]

use serde_json::{Value, json};

/// One scripted generation.
pub enum Turn {
    /// Function calls `(name, arguments JSON)`, in order.
    Calls(Vec<(&'static str, Value)>),
    /// A final answer.
    Text(&'static str),
}

fn event(seq: &mut u64, kind: &str, mut data: Value) -> String {
    data["type"] = json!(kind);
    data["sequence_number"] = json!(*seq);
    *seq += 1;
    format!("event: {kind}\ndata: {data}\n\n")
}

fn response(id: &str, status: &str, output: Vec<Value>) -> Value {
    json!({
        "id": id, "object": "response", "created_at": 1764500000, "status": status,
        "error": null, "incomplete_details": null, "model": "gpt-5.5", "output": output,
        "usage": if status == "completed" {
            json!({"input_tokens": 1000, "input_tokens_details": {"cached_tokens": 0},
                   "output_tokens": 20, "output_tokens_details": {"reasoning_tokens": 0},
                   "total_tokens": 1020})
        } else { Value::Null }
    })
}

/// The SSE body of generation number `n` of a script.
pub fn stream(n: usize, turn: &Turn) -> String {
    let id = format!("resp_{n:04}");
    let mut seq = 0;
    let mut out = event(
        &mut seq,
        "response.created",
        json!({"response": response(&id, "in_progress", vec![])}),
    );
    let items: Vec<Value> = match turn {
        Turn::Calls(calls) => calls
            .iter()
            .enumerate()
            .map(|(k, (name, args))| {
                json!({"id": format!("fc_{n:04}_{k}"), "type": "function_call", "status": "completed",
                       "arguments": args.to_string(), "call_id": format!("call_{n:04}_{k}"), "name": name})
            })
            .collect(),
        Turn::Text(text) => vec![json!({
            "id": format!("msg_{n:04}"), "type": "message", "status": "completed", "role": "assistant",
            "content": [{"type": "output_text", "annotations": [], "logprobs": [], "text": text}]
        })],
    };
    for (index, item) in items.iter().enumerate() {
        let mut added = item.clone();
        added["status"] = json!("in_progress");
        if added["type"] == "function_call" {
            added["arguments"] = json!("");
        } else {
            added["content"] = json!([]);
        }
        out += &event(
            &mut seq,
            "response.output_item.added",
            json!({"output_index": index, "item": added}),
        );
        if item["type"] == "function_call" {
            out += &event(
                &mut seq,
                "response.function_call_arguments.delta",
                json!({"item_id": item["id"], "output_index": index, "delta": item["arguments"]}),
            );
            out += &event(
                &mut seq,
                "response.function_call_arguments.done",
                json!({"item_id": item["id"], "output_index": index, "arguments": item["arguments"]}),
            );
        } else {
            let text = item["content"][0]["text"].clone();
            out += &event(
                &mut seq,
                "response.content_part.added",
                json!({"item_id": item["id"], "output_index": index, "content_index": 0,
                       "part": {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}}),
            );
            out += &event(
                &mut seq,
                "response.output_text.delta",
                json!({"item_id": item["id"], "output_index": index, "content_index": 0, "delta": text, "logprobs": []}),
            );
            out += &event(
                &mut seq,
                "response.output_text.done",
                json!({"item_id": item["id"], "output_index": index, "content_index": 0, "text": text, "logprobs": []}),
            );
            out += &event(
                &mut seq,
                "response.content_part.done",
                json!({"item_id": item["id"], "output_index": index, "content_index": 0, "part": item["content"][0]}),
            );
        }
        out += &event(
            &mut seq,
            "response.output_item.done",
            json!({"output_index": index, "item": item}),
        );
    }
    out += &event(
        &mut seq,
        "response.completed",
        json!({"response": response(&id, "completed", items)}),
    );
    out
}
