//! The saved context as a live request: native items are re-sent exactly (except reasoning the
//! host cannot read back), the runtime's own items become messages, and items the native ones
//! already carry are skipped.

use super::super::chat::ChatMessage;
use super::super::responses::ResponsesInput;
use super::super::{ContextItem, NativeItem, ProviderError, ToolCall};

/// The `input` of a Responses request.
pub fn responses_input(context: &[ContextItem]) -> Vec<ResponsesInput> {
    let mut out = Vec::with_capacity(context.len());
    for item in context {
        match item {
            ContextItem::User { text } | ContextItem::Environment { text } => {
                out.push(ResponsesInput::User(text.clone()))
            }
            // Reasoning the host cannot read back is kept in the journal, never re-sent.
            ContextItem::Native(n) if super::super::reasoning::uncarried(n) => {}
            ContextItem::Native(n) => out.push(ResponsesInput::Output(n.to_raw())),
            ContextItem::ToolOutput { call_id, output } => {
                out.push(ResponsesInput::FunctionCallOutput {
                    call_id: call_id.clone(),
                    output: output.clone(),
                })
            }
            ContextItem::Note { text } => out.push(ResponsesInput::Developer(text.clone())),
            ContextItem::Compaction { summary } => out.push(ResponsesInput::Developer(format!(
                "Summary of the earlier conversation:\n{summary}"
            ))),
            // Carried by the native items of the same generation.
            ContextItem::Assistant { .. }
            | ContextItem::ToolCall(_)
            | ContextItem::MalformedOutput { .. } => {}
        }
    }
    out
}

/// The `messages` of a Chat Completions request (after the system message).
pub fn chat_messages(context: &[ContextItem]) -> Vec<ChatMessage> {
    let mut out = Vec::with_capacity(context.len());
    let mut environment: Option<&str> = None;
    for item in context {
        if let Some(env) = environment.take() {
            // Many chat templates want roles to alternate: the environment rides with the
            // user message that follows it.
            match item {
                ContextItem::User { text } => {
                    out.push(ChatMessage::User(format!("{env}\n{text}")));
                    continue;
                }
                _ => out.push(ChatMessage::User(env.to_owned())),
            }
        }
        match item {
            ContextItem::Environment { text } => environment = Some(text),
            ContextItem::User { text } => out.push(ChatMessage::User(text.clone())),
            ContextItem::Native(n) => {
                if let Some(m) = chat_assistant(n) {
                    out.push(m);
                }
            }
            ContextItem::ToolOutput { call_id, output } => out.push(ChatMessage::Tool {
                tool_call_id: call_id.clone(),
                content: output.clone(),
            }),
            ContextItem::Note { text } => out.push(ChatMessage::System(text.clone())),
            ContextItem::Compaction { summary } => out.push(ChatMessage::System(format!(
                "Summary of the earlier conversation:\n{summary}"
            ))),
            ContextItem::Assistant { .. }
            | ContextItem::ToolCall(_)
            | ContextItem::MalformedOutput { .. } => {}
        }
    }
    if let Some(env) = environment {
        out.push(ChatMessage::User(env.to_owned()));
    }
    out
}

/// The assistant message a Chat completion stands for, as journaled.
pub fn chat_native(text: Option<String>, calls: &[ToolCall]) -> Result<NativeItem, ProviderError> {
    let message = ChatMessage::Assistant {
        content: text,
        tool_calls: calls.to_vec(),
    };
    serde_json::to_string(&message)
        .map_err(|e| e.to_string())
        .and_then(|json| NativeItem::from_json(json).map_err(|e| e.to_string()))
        .map_err(|e| ProviderError::Rejected(format!("cannot keep the assistant message: {e}")))
}

/// Reads a journaled Chat assistant message back.
fn chat_assistant(n: &NativeItem) -> Option<ChatMessage> {
    #[derive(serde::Deserialize)]
    struct Wire {
        content: Option<String>,
        #[serde(default)]
        tool_calls: Vec<WireCall>,
    }
    #[derive(serde::Deserialize)]
    struct WireCall {
        id: String,
        function: WireFunction,
    }
    #[derive(serde::Deserialize)]
    struct WireFunction {
        name: String,
        arguments: String,
    }
    let wire: Wire = serde_json::from_str(n.get()).ok()?;
    Some(ChatMessage::Assistant {
        content: wire.content,
        tool_calls: wire
            .tool_calls
            .into_iter()
            .map(|c| ToolCall {
                call_id: c.id,
                name: c.function.name,
                arguments: c.function.arguments,
            })
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env() -> ContextItem {
        ContextItem::Environment {
            text: "<environment>\ncwd: /w\n</environment>\n".into(),
        }
    }

    #[test]
    fn chat_carries_the_environment_in_the_next_user_message_and_responses_as_its_own() {
        let items = [
            env(),
            ContextItem::User {
                text: "fix it".into(),
            },
        ];
        assert_eq!(
            chat_messages(&items),
            [ChatMessage::User(
                "<environment>\ncwd: /w\n</environment>\n\nfix it".into()
            )]
        );
        assert_eq!(responses_input(&items).len(), 2);
        // Alone, it is still sent.
        assert_eq!(
            chat_messages(&[env()]),
            [ChatMessage::User(
                "<environment>\ncwd: /w\n</environment>\n".into()
            )]
        );
        let note = ContextItem::Note { text: "n".into() };
        assert_eq!(chat_messages(&[env(), note]).len(), 2);
    }
}
