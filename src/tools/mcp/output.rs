//! An MCP call's result for the model: text as text, structured content as JSON, images and
//! audio described (type and size) and kept as retained values, embedded resources by URI
//! and text, `isError` as a failed result the model reads. A result over the tool-output
//! budget is cut at line boundaries like exec output and kept whole as `@N` for `evidence`:
//! nothing is cut silently. The blocks arrive decoded by the client crate
//! (`ansa_mcp::Content`, base64 already undone): this module only renders them.

use std::fmt::Write as _;

use ansa_mcp::Content;
use serde_json::Value;

use crate::tools::report::tail;
use crate::tools::view::plan_cut;

/// Keeps bytes as a retained value and answers its `@N` alias, or why it could not.
pub type RetainFn<'a> = &'a mut dyn FnMut(Vec<u8>) -> Result<u64, String>;

/// A rendered result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpOutput {
    /// What the model receives.
    pub text: String,
    /// What a person reads in the output viewer.
    pub readable: String,
    /// One line for the tool row.
    pub summary: String,
    /// The last non-empty lines of the content, for under the tool row.
    pub tail: Vec<String>,
    /// How many non-empty lines the content has (the row says how many the tail leaves out).
    pub lines: u64,
    /// The model got part of the result inline, the whole of it as `@N` (or not kept).
    pub cut: bool,
    /// Whether the server flagged the result as an error.
    pub is_error: bool,
    /// The retained values made for it (media, binary resources, a cut result), in order.
    pub retained: Vec<u64>,
}

/// What the viewer keeps of a very large result: the model's view instead of all of it.
const READABLE_MAX: usize = 1 << 20;

/// Renders a result within `budget` bytes of text for the model.
///
/// It takes the result by value: a large one (a 50 MB file read) is moved into the text and
/// then into the store, and each block is freed once appended, so the result is not held
/// twice or three times at once.
pub fn render(
    is_error: bool,
    content: Vec<Content>,
    structured: Option<Value>,
    budget: usize,
    retain: RetainFn<'_>,
) -> McpOutput {
    let mut retained = Vec::new();
    let mut body = String::new();
    let mut media = 0usize;
    let blocks = content.len();
    // Decided while the blocks are at hand (they are freed as they are appended), and only
    // for a result the viewer keeps: it parses the text blocks.
    let text_bytes: usize = content
        .iter()
        .map(|c| match c {
            Content::Text(t) => t.len(),
            _ => 0,
        })
        .sum();
    let repeats = text_bytes <= READABLE_MAX
        && structured
            .as_ref()
            .is_some_and(|structured| repeats_text(&content, structured));
    for block in content {
        if !body.is_empty() && !body.ends_with('\n') {
            body.push('\n');
        }
        match block {
            Content::Text(text) if body.is_empty() => body = text,
            Content::Text(text) => body.push_str(&text),
            Content::Image { mime, data } => {
                media += 1;
                let size = data.len();
                let kept = keep(data, retain, &mut retained);
                let _ = write!(body, "[image: {mime}, {size} bytes, {kept}]");
            }
            Content::Audio { mime, data } => {
                media += 1;
                let size = data.len();
                let kept = keep(data, retain, &mut retained);
                let _ = write!(body, "[audio: {mime}, {size} bytes, {kept}]");
            }
            Content::Resource {
                uri,
                mime,
                text,
                blob,
            } => {
                let mime = mime.as_deref().unwrap_or("type not given");
                match (text, blob) {
                    (Some(text), _) => {
                        let _ = write!(body, "[resource {uri} ({mime})]\n{text}");
                    }
                    (None, Some(blob)) => {
                        let size = blob.len();
                        let kept = keep(blob, retain, &mut retained);
                        let _ = write!(body, "[resource {uri} ({mime}), {size} bytes, {kept}]");
                    }
                    (None, None) => {
                        let _ = write!(body, "[resource {uri} ({mime}), no content]");
                    }
                }
            }
            Content::ResourceLink { uri, name, mime } => {
                let mime = mime.as_deref().unwrap_or("type not given");
                let _ = write!(body, "[resource link {name}: {uri} ({mime})]");
            }
        }
    }
    let content_end = body.len();
    // What a person reads of the structured content: one line when it only repeats the text
    // (servers are asked to send both; its JSON on one line is a wall of escaped text,
    // unreadable at any width), else pretty-printed, if the viewer keeps it at all.
    let mut readable_structured = None;
    if let Some(structured) = structured {
        if !body.is_empty() && !body.ends_with('\n') {
            body.push('\n');
        }
        // Serialized on its own and the value freed before the text grows by exactly its
        // size: writing it into the text directly grows it by doubling.
        let json = structured.to_string();
        if repeats {
            readable_structured = Some(
                "structured content (JSON): the same as the text above (Tab shows it as the model got it)"
                    .to_owned(),
            );
        } else if content_end + json.len() <= READABLE_MAX {
            let pretty = serde_json::to_string_pretty(&structured).unwrap_or_else(|_| json.clone());
            readable_structured = Some(format!("structured content (JSON):\n{pretty}"));
        }
        drop(structured);
        let label = "structured content (JSON):\n";
        body.reserve_exact(label.len() + json.len());
        body.push_str(label);
        body.push_str(&json);
    }
    if body.is_empty() {
        body.push_str("(the tool returned no content)");
    }
    let summary = summary(is_error, blocks, media, body.len());
    let shown = &body[..content_end];
    let tail = tail(shown);
    let lines = shown.lines().filter(|l| !l.trim().is_empty()).count() as u64;
    let readable = if body.len() <= READABLE_MAX {
        match readable_structured {
            Some(structured) => {
                let mut out = shown.to_owned();
                if !out.is_empty() && !out.ends_with('\n') {
                    out.push('\n');
                }
                out.push_str(&structured);
                out
            }
            None => body.clone(),
        }
    } else {
        String::new()
    };
    let cut = body.len() > budget;
    let mut text = if !cut {
        body
    } else {
        let total = body.len();
        // The kept lines are chosen before the whole text moves into the store (no copy of
        // it); the note names its `@N` once the store has given one.
        let planned = plan_cut(&body, budget, is_error, "the result");
        let head = body[..body.floor_char_boundary(budget)].to_owned();
        match retain(body.into_bytes()) {
            Ok(alias) => {
                retained.push(alias);
                let view = planned.view(alias);
                format!("{}\n{}", view.text.trim_end_matches('\n'), view.note)
            }
            Err(why) => {
                // Never silently: the model learns how much it does not see, and why.
                let cut = head.as_str();
                format!(
                    "{cut}\n⋯ the result is {total} bytes; only the first {} are shown and the rest could not be kept ({why}) ⋯",
                    cut.len()
                )
            }
        }
    };
    if is_error {
        text = format!("The MCP tool reported an error (isError):\n{text}");
    }
    let readable = if readable.is_empty() {
        text.clone()
    } else {
        readable
    };
    McpOutput {
        text,
        readable,
        summary,
        tail,
        lines,
        cut,
        is_error,
        retained,
    }
}

/// Whether `structured` says nothing the text blocks do not: one of them is its JSON, or
/// every value in it is a string that is one of them whole.
fn repeats_text(content: &[Content], structured: &Value) -> bool {
    let texts: Vec<&str> = content
        .iter()
        .filter_map(|c| match c {
            Content::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    if texts
        .iter()
        .any(|t| serde_json::from_str::<Value>(t).is_ok_and(|v| &v == structured))
    {
        return true;
    }
    let mut leaves = Vec::new();
    string_leaves(structured, &mut leaves)
        && !leaves.is_empty()
        && leaves.iter().all(|leaf| texts.contains(leaf))
}

/// Collects every string in `value`; false when it holds a number, a boolean or null.
fn string_leaves<'a>(value: &'a Value, out: &mut Vec<&'a str>) -> bool {
    match value {
        Value::String(s) => {
            out.push(s);
            true
        }
        Value::Array(items) => items.iter().all(|v| string_leaves(v, out)),
        Value::Object(fields) => fields.values().all(|v| string_leaves(v, out)),
        Value::Null | Value::Bool(_) | Value::Number(_) => false,
    }
}

/// Retains `bytes` and says where they are, or why they are not kept.
fn keep(bytes: Vec<u8>, retain: RetainFn<'_>, retained: &mut Vec<u64>) -> String {
    match retain(bytes) {
        Ok(alias) => {
            retained.push(alias);
            format!("kept as @{alias}: read its bytes with evidence kind \"bytes\"")
        }
        Err(why) => format!("not kept: {why}"),
    }
}

/// `1 block, 24 bytes` (`tool error: …` for `isError`): short, so that a 60-column row keeps
/// room for the server and tool names before it.
fn summary(is_error: bool, blocks: usize, media: usize, bytes: usize) -> String {
    let plural = if blocks == 1 { "" } else { "s" };
    let mut s = format!("{blocks} block{plural}, {bytes} bytes");
    if is_error {
        s = format!("tool error: {s}");
    }
    if media > 0 {
        let _ = write!(s, ", {media} media kept");
    }
    s
}
