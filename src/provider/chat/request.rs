//! The request body of one Chat Completions generation.

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::provider::ToolCall;
use crate::tools::ProviderTool;

/// One element of the request's `messages` (after the system message of the instructions).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChatMessage {
    /// `{"role":"system","content":text}`: a runtime note to the model.
    System(String),
    /// `{"role":"user","content":text}`.
    User(String),
    /// `{"role":"assistant","content":text-or-null,"tool_calls":[…]}`; the calls are re-sent
    /// exactly as received (`tool_calls` is omitted when empty).
    Assistant {
        /// The text the model wrote, if any.
        content: Option<String>,
        /// The calls it made.
        tool_calls: Vec<ToolCall>,
    },
    /// `{"role":"tool","tool_call_id","content"}`: a tool's result.
    Tool {
        /// The call it answers.
        tool_call_id: String,
        /// The result text.
        content: String,
    },
}

#[derive(Serialize)]
struct WireCall<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: WireFunction<'a>,
}

#[derive(Serialize)]
struct WireFunction<'a> {
    name: &'a str,
    arguments: &'a str,
}

/// The calls of an assistant message, serialized without an intermediate vector.
struct Calls<'a>(&'a [ToolCall]);

impl Serialize for Calls<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|call| WireCall {
            id: &call.call_id,
            kind: "function",
            function: WireFunction {
                name: &call.name,
                arguments: &call.arguments,
            },
        }))
    }
}

impl Serialize for ChatMessage {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        match self {
            Self::System(text) => {
                map.serialize_entry("role", "system")?;
                map.serialize_entry("content", text)?;
            }
            Self::User(text) => {
                map.serialize_entry("role", "user")?;
                map.serialize_entry("content", text)?;
            }
            Self::Assistant {
                content,
                tool_calls,
            } => {
                map.serialize_entry("role", "assistant")?;
                map.serialize_entry("content", content)?;
                if !tool_calls.is_empty() {
                    map.serialize_entry("tool_calls", &Calls(tool_calls))?;
                }
            }
            Self::Tool {
                tool_call_id,
                content,
            } => {
                map.serialize_entry("role", "tool")?;
                map.serialize_entry("tool_call_id", tool_call_id)?;
                map.serialize_entry("content", content)?;
            }
        }
        map.end()
    }
}

/// The messages: the instructions as a system message (when not empty), then the rest.
struct Messages<'a> {
    instructions: &'a str,
    rest: &'a [ChatMessage],
}

impl Serialize for Messages<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let system = (!self.instructions.is_empty())
            .then(|| ChatMessage::System(self.instructions.to_owned()));
        serializer.collect_seq(system.iter().chain(self.rest))
    }
}

#[derive(Serialize)]
struct StreamOptions {
    include_usage: bool,
}

#[derive(Serialize)]
struct Tool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    function: ToolFunction<'a>,
}

#[derive(Serialize)]
struct ToolFunction<'a> {
    name: &'a str,
    description: &'a str,
    parameters: &'a Value,
    strict: bool,
}

#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    stream: bool,
    stream_options: StreamOptions,
    messages: Messages<'a>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Tool<'a>>,
}

/// The JSON body of a streaming Chat Completions request that asks for a final usage chunk.
/// `instructions` becomes the leading system message (omitted when empty); `tools` is omitted
/// when there are none; every standard tool is strict (an MCP tool whose schema is not, is sent non-strict).
pub fn request_body(
    model: &str,
    instructions: &str,
    messages: &[ChatMessage],
    tools: &[ProviderTool],
) -> Result<Vec<u8>, serde_json::Error> {
    serde_json::to_vec(&Body {
        model,
        stream: true,
        stream_options: StreamOptions {
            include_usage: true,
        },
        messages: Messages {
            instructions,
            rest: messages,
        },
        tools: tools
            .iter()
            .map(|tool| Tool {
                kind: "function",
                function: ToolFunction {
                    name: &tool.name,
                    description: &tool.description,
                    parameters: &tool.parameters,
                    strict: tool.strict,
                },
            })
            .collect(),
    })
}
