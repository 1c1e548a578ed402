//! An MCP call's result for the model: text as text, structured content as JSON, images and
//! audio described (type and size) and kept as retained values, embedded resources by URI
//! and text, `isError` as a failed result the model reads. A result over the tool-output
//! budget is cut at line boundaries like exec output and kept whole as `@N` for `evidence`:
//! nothing is cut silently.

use std::fmt::Write as _;

use serde_json::Value;

use crate::tools::view::plan_cut;

/// One content block of a result (the client crate's `Content`, without its types).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpContent {
    /// Text.
    Text(String),
    /// An image.
    Image {
        /// Its MIME type.
        mime: String,
        /// Its bytes.
        data: Vec<u8>,
    },
    /// Audio.
    Audio {
        /// Its MIME type.
        mime: String,
        /// Its bytes.
        data: Vec<u8>,
    },
    /// An embedded resource.
    Resource {
        /// Its URI.
        uri: String,
        /// Its MIME type, if given.
        mime: Option<String>,
        /// Its text, for a text resource.
        text: Option<String>,
        /// Its bytes, for a binary resource.
        blob: Option<Vec<u8>>,
    },
    /// A link to a resource (not its content).
    ResourceLink {
        /// Its URI.
        uri: String,
        /// Its name.
        name: String,
        /// Its MIME type, if given.
        mime: Option<String>,
    },
}

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
    content: Vec<McpContent>,
    structured: Option<Value>,
    budget: usize,
    retain: RetainFn<'_>,
) -> McpOutput {
    let mut retained = Vec::new();
    let mut body = String::new();
    let mut media = 0usize;
    let blocks = content.len();
    for block in content {
        if !body.is_empty() && !body.ends_with('\n') {
            body.push('\n');
        }
        match block {
            McpContent::Text(text) if body.is_empty() => body = text,
            McpContent::Text(text) => body.push_str(&text),
            McpContent::Image { mime, data } => {
                media += 1;
                let size = data.len();
                let kept = keep(data, retain, &mut retained);
                let _ = write!(body, "[image: {mime}, {size} bytes, {kept}]");
            }
            McpContent::Audio { mime, data } => {
                media += 1;
                let size = data.len();
                let kept = keep(data, retain, &mut retained);
                let _ = write!(body, "[audio: {mime}, {size} bytes, {kept}]");
            }
            McpContent::Resource {
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
            McpContent::ResourceLink { uri, name, mime } => {
                let mime = mime.as_deref().unwrap_or("type not given");
                let _ = write!(body, "[resource link {name}: {uri} ({mime})]");
            }
        }
    }
    if let Some(structured) = structured {
        if !body.is_empty() && !body.ends_with('\n') {
            body.push('\n');
        }
        // Serialized on its own and the value freed before the text grows by exactly its
        // size: writing it into the text directly grows it by doubling.
        let json = structured.to_string();
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
    let readable = if body.len() <= READABLE_MAX {
        body.clone()
    } else {
        String::new()
    };
    let mut text = if body.len() <= budget {
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
        is_error,
        retained,
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

fn summary(is_error: bool, blocks: usize, media: usize, bytes: usize) -> String {
    let what = if is_error { "tool error" } else { "returned" };
    let plural = if blocks == 1 { "" } else { "s" };
    let mut s = format!("{what}: {blocks} block{plural}, {bytes} bytes");
    if media > 0 {
        let _ = write!(s, ", {media} media kept");
    }
    s
}
