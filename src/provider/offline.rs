//! The offline provider: calls `get_test_value` for the task, then answers from the real result.

use super::{ContextItem, GenerationRequest, ModelTurn, Provider, ProviderError, ToolCall};
use crate::tools::TestValue;

const TOOL: &str = "get_test_value";

/// Deterministic, network-free provider proving a full round trip through the loop and a tool.
#[derive(Debug, Clone, Copy, Default)]
pub struct OfflineProvider;

/// The `get_test_value` key the offline provider derives from a task.
pub fn offline_key(task: &str) -> String {
    let hash = blake3::hash(task.trim().as_bytes());
    let hex: String = hash.as_bytes()[..6]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("task-{hex}")
}

impl Provider for OfflineProvider {
    fn name(&self) -> &str {
        "offline"
    }

    fn generate(
        &self,
        request: &GenerationRequest<'_>,
        preview: &mut dyn FnMut(&str),
    ) -> Result<ModelTurn, ProviderError> {
        let context = request.context;
        let Some(task_at) = context
            .iter()
            .rposition(|item| matches!(item, ContextItem::User { .. }))
        else {
            return Err(ProviderError::NoTask);
        };
        let ContextItem::User { text: task } = &context[task_at] else {
            return Err(ProviderError::NoTask);
        };
        let key = offline_key(task);
        // Only a call made for the current task counts; earlier tasks' results are history.
        let since_task = &context[task_at + 1..];
        let answered = since_task.iter().rev().find_map(|item| match item {
            ContextItem::ToolOutput { call_id, output } => since_task
                .iter()
                .any(|c| matches!(c, ContextItem::ToolCall(call) if call.call_id == *call_id && call.name == TOOL))
                .then_some(output.as_str()),
            _ => None,
        });
        match answered {
            None => {
                let arguments = serde_json::json!({ "key": key }).to_string();
                let call_id = format!("offline-{}", request.generation);
                Ok(ModelTurn::ToolCalls(vec![ToolCall {
                    call_id,
                    name: TOOL.to_owned(),
                    arguments,
                }]))
            }
            Some(output) => {
                let text = answer(&key, output);
                preview(&text);
                Ok(ModelTurn::Final { text })
            }
        }
    }
}

/// Builds the final answer from what the tool actually returned, including a tool error.
fn answer(key: &str, output: &str) -> String {
    match serde_json::from_str::<TestValue>(output) {
        Ok(result) if result.key == key => format!("The test value for {key} is {}.", result.value),
        Ok(result) => format!(
            "get_test_value answered for key {} instead of {key}: {}.",
            result.key, result.value
        ),
        Err(_) => format!("get_test_value did not return a value for {key}; it said: {output}"),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use super::*;
    use crate::tools::{Mode, ToolArgs, ToolRegistry, execute_get_test_value, test_value};

    fn generate(
        generation: u64,
        context: &[ContextItem],
    ) -> (Result<ModelTurn, ProviderError>, Vec<String>) {
        let cancel = AtomicBool::new(false);
        let request = GenerationRequest {
            generation,
            session_id: "",
            instructions: "",
            context,
            tools: &[],
            cancel: &cancel,
            model: &crate::provider::test_model(),
            compacted_outputs: 0,
            on_retry: None,
            on_reasoning: None,
        };
        let mut previews = Vec::new();
        let turn =
            OfflineProvider.generate(&request, &mut |text: &str| previews.push(text.to_owned()));
        (turn, previews)
    }

    #[test]
    fn round_trip_through_the_real_tool() {
        let registry = ToolRegistry::offline().unwrap();
        let mut context = vec![ContextItem::User {
            text: "say hi".into(),
        }];
        let (turn, _) = generate(0, &context);
        let ModelTurn::ToolCalls(calls) = turn.unwrap() else {
            panic!("expected a tool call")
        };
        assert_eq!(calls.len(), 1);
        let call = &calls[0];
        assert_eq!(
            (call.call_id.as_str(), call.name.as_str()),
            ("offline-0", "get_test_value")
        );
        let admitted = registry
            .admit(Mode::Plan, &call.name, &call.arguments)
            .unwrap();
        let ToolArgs::GetTestValue(args) = admitted.args else {
            panic!("wrong args")
        };
        assert_eq!(args.key, offline_key("say hi"));
        let output = execute_get_test_value(&args.key);
        context.push(ContextItem::ToolCall(call.clone()));
        context.push(ContextItem::ToolOutput {
            call_id: call.call_id.clone(),
            output,
        });

        let (turn, previews) = generate(1, &context);
        let expected = format!(
            "The test value for {} is {}.",
            args.key,
            test_value(&args.key)
        );
        assert_eq!(
            turn.unwrap(),
            ModelTurn::Final {
                text: expected.clone()
            }
        );
        assert_eq!(previews, vec![expected]);
    }

    #[test]
    fn answer_reflects_a_tool_error() {
        let call = ToolCall {
            call_id: "offline-0".into(),
            name: TOOL.into(),
            arguments: "{}".into(),
        };
        let context = vec![
            ContextItem::User { text: "t".into() },
            ContextItem::ToolCall(call),
            ContextItem::ToolOutput {
                call_id: "offline-0".into(),
                output: "boom".into(),
            },
        ];
        let (turn, _) = generate(1, &context);
        let ModelTurn::Final { text } = turn.unwrap() else {
            panic!("expected final")
        };
        assert!(text.ends_with("it said: boom"), "{text}");
    }

    #[test]
    fn a_new_task_calls_the_tool_again() {
        let call = ToolCall {
            call_id: "offline-0".into(),
            name: TOOL.into(),
            arguments: "{}".into(),
        };
        let context = vec![
            ContextItem::User {
                text: "first".into(),
            },
            ContextItem::ToolCall(call),
            ContextItem::ToolOutput {
                call_id: "offline-0".into(),
                output: execute_get_test_value("x"),
            },
            ContextItem::Assistant {
                text: "done".into(),
            },
            ContextItem::User {
                text: "second".into(),
            },
        ];
        let (turn, _) = generate(2, &context);
        let ModelTurn::ToolCalls(calls) = turn.unwrap() else {
            panic!("expected a tool call")
        };
        assert_eq!(calls[0].call_id, "offline-2");
        assert!(calls[0].arguments.contains(&offline_key("second")));
    }

    #[test]
    fn keys_are_deterministic() {
        assert_eq!(offline_key("a task"), offline_key(" a task\n"));
        assert_ne!(offline_key("a"), offline_key("b"));
        assert_eq!(offline_key("a").len(), "task-".len() + 12);
    }

    #[test]
    fn no_task_is_an_error() {
        assert_eq!(generate(0, &[]).0, Err(ProviderError::NoTask));
    }
}
