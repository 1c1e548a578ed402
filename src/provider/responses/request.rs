//! The request body of one Responses generation.

use serde::{Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

use ansa_sessions::Effort;

use crate::provider::ToolCall;
use crate::tools::ProviderTool;

/// One element of the request's `input`.
#[derive(Debug, Clone)]
pub enum ResponsesInput {
    /// `{"role":"user","content":text}`.
    User(String),
    /// `{"role":"assistant","content":text}`: an assistant answer whose output items are not
    /// kept (prefer [`ResponsesInput::Output`] when they are).
    Assistant(String),
    /// `{"role":"developer","content":text}`: a runtime note to the model.
    Developer(String),
    /// A prior output item, re-sent byte for byte as `output_item.done` carried it (reasoning
    /// items keep their `encrypted_content`).
    Output(Box<RawValue>),
    /// `{"type":"function_call","call_id","name","arguments"}`: a call whose raw item is not
    /// kept (prefer [`ResponsesInput::Output`] when it is).
    FunctionCall(ToolCall),
    /// `{"type":"function_call_output","call_id","output"}`: a tool's result.
    FunctionCallOutput {
        /// The call it answers.
        call_id: String,
        /// The result text.
        output: String,
    },
}

#[derive(Serialize)]
struct Message<'a> {
    role: &'static str,
    content: &'a str,
}

#[derive(Serialize)]
struct FunctionCall<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    call_id: &'a str,
    name: &'a str,
    arguments: &'a str,
}

#[derive(Serialize)]
struct FunctionCallOutput<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    call_id: &'a str,
    output: &'a str,
}

impl Serialize for ResponsesInput {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let message = |role, content| Message { role, content };
        match self {
            Self::User(text) => message("user", text).serialize(serializer),
            Self::Assistant(text) => message("assistant", text).serialize(serializer),
            Self::Developer(text) => message("developer", text).serialize(serializer),
            Self::Output(raw) => raw.serialize(serializer),
            Self::FunctionCall(call) => FunctionCall {
                kind: "function_call",
                call_id: &call.call_id,
                name: &call.name,
                arguments: &call.arguments,
            }
            .serialize(serializer),
            Self::FunctionCallOutput { call_id, output } => FunctionCallOutput {
                kind: "function_call_output",
                call_id,
                output,
            }
            .serialize(serializer),
        }
    }
}

#[derive(Serialize)]
struct Reasoning {
    #[serde(skip_serializing_if = "Option::is_none")]
    effort: Option<&'static str>,
    summary: &'static str,
}

#[derive(Serialize)]
struct Tool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    name: &'a str,
    description: &'a str,
    strict: bool,
    parameters: &'a Value,
}

#[derive(Serialize)]
struct Body<'a> {
    model: &'a str,
    stream: bool,
    store: bool,
    #[serde(skip_serializing_if = "str::is_empty")]
    prompt_cache_key: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    include: Option<[&'static str; 1]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reasoning: Option<Reasoning>,
    #[serde(skip_serializing_if = "str::is_empty")]
    instructions: &'a str,
    input: &'a [ResponsesInput],
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Tool<'a>>,
}

/// The JSON body of a streaming, stateless (`store:false`) Responses request. For a reasoning
/// model (`reasoning` is `Some`) it asks for re-sendable reasoning
/// (`include:["reasoning.encrypted_content"]`), reasoning summaries and the chosen
/// `reasoning.effort` (when one was chosen); for others all are left out, since servers
/// reject them there. `instructions` is omitted when empty, `tools` when there are none;
/// every standard tool is strict (an MCP tool whose schema is not, is sent non-strict). `prompt_cache_key` (the session's id; omitted when empty) keeps a
/// session's requests on the provider cache that holds their common prefix: the
/// instructions, the tools and the earlier input, which a session sends byte-identical
/// request after request.
pub fn request_body(
    model: &str,
    prompt_cache_key: &str,
    instructions: &str,
    input: &[ResponsesInput],
    tools: &[ProviderTool],
    reasoning: Option<Option<Effort>>,
) -> Result<Vec<u8>, serde_json::Error> {
    serde_json::to_vec(&Body {
        model,
        stream: true,
        store: false,
        prompt_cache_key,
        include: reasoning.map(|_| ["reasoning.encrypted_content"]),
        reasoning: reasoning.map(|effort| Reasoning {
            effort: effort.map(Effort::as_str),
            summary: "auto",
        }),
        instructions,
        input,
        tools: tools
            .iter()
            .map(|tool| Tool {
                kind: "function",
                name: &tool.name,
                description: &tool.description,
                strict: tool.strict,
                parameters: &tool.parameters,
            })
            .collect(),
    })
}
