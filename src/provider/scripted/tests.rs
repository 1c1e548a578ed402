use std::sync::atomic::AtomicBool;

use super::*;
use crate::provider::{ContextItem, Script, ScriptError, TextTemplate};

fn provider(text: &str) -> ScriptedProvider {
    ScriptedProvider::new(Script::parse("s.json", text).unwrap())
}

fn parse_err(text: &str) -> ScriptError {
    Script::parse("s.json", text).unwrap_err()
}

fn run(
    provider: &ScriptedProvider,
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
    let turn = provider.generate(&request, &mut |text: &str| previews.push(text.to_owned()));
    (turn, previews)
}

const SCRIPT: &str = r#"{"turns":[
  {"tool_calls":[{"name":"read","arguments":{"paths":["a"],"mode":"lines","offset":1,"length":5}},
                 {"name":"get_test_value","arguments":"{bad json","call_id":"mine"}]},
  {"raw":"<garbage>"},
  {"delay_ms":5,"text":"got: {{tool_output:1}} and {{tool_output:0}}!"}
]}"#;

#[test]
fn every_turn_kind_replays_by_generation() {
    let p = provider(SCRIPT);
    let (turn, previews) = run(&p, 0, &[]);
    let ModelTurn::ToolCalls(calls) = turn.unwrap() else {
        panic!("expected tool calls")
    };
    assert!(previews.is_empty());
    assert_eq!(calls[0].call_id, "call-0-0");
    assert_eq!(calls[0].name, "read");
    assert_eq!(
        calls[0].arguments,
        r#"{"length":5,"mode":"lines","offset":1,"paths":["a"]}"#
    );
    assert_eq!(
        (calls[1].call_id.as_str(), calls[1].arguments.as_str()),
        ("mine", "{bad json")
    );

    let (turn, _) = run(&p, 1, &[]);
    let ModelTurn::Malformed { raw, reason } = turn.unwrap() else {
        panic!("expected malformed")
    };
    assert_eq!(raw, "<garbage>");
    assert!(reason.contains("turns[1]"));

    let context = [
        ContextItem::ToolOutput {
            call_id: "call-0-0".into(),
            output: "A".into(),
        },
        ContextItem::Assistant {
            text: "ignored".into(),
        },
        ContextItem::ToolOutput {
            call_id: "mine".into(),
            output: "B".into(),
        },
    ];
    let (turn, previews) = run(&p, 2, &context);
    assert_eq!(
        turn.unwrap(),
        ModelTurn::Final {
            text: "got: B and A!".into()
        }
    );
    assert_eq!(previews, ["got:", "got: B", "got: B and", "got: B and A!"]);
}

#[test]
fn the_generation_counter_is_the_only_state() {
    let p = provider(r#"{"turns":[{"text":"zero"},{"text":"one"}]}"#);
    assert_eq!(
        run(&p, 1, &[]).0.unwrap(),
        ModelTurn::Final { text: "one".into() }
    );
    assert_eq!(
        run(&p, 0, &[]).0.unwrap(),
        ModelTurn::Final {
            text: "zero".into()
        }
    );
    assert_eq!(
        run(&p, 1, &[]).0.unwrap(),
        ModelTurn::Final { text: "one".into() }
    );
}

#[test]
fn running_out_of_turns_is_an_error() {
    let p = provider(r#"{"turns":[{"text":"only"}]}"#);
    let err = run(&p, 1, &[]).0.unwrap_err();
    assert_eq!(
        err,
        ProviderError::ScriptExhausted {
            file: "s.json".into(),
            generation: 1,
            turns: 1
        }
    );
    assert!(err.to_string().contains("only 1 turns"));
}

#[test]
fn missing_tool_output_is_an_error() {
    let p = provider(r#"{"turns":[{"text":"{{tool_output:3}}"}]}"#);
    let err = run(&p, 0, &[]).0.unwrap_err();
    assert_eq!(
        err,
        ProviderError::MissingToolOutput {
            file: "s.json".into(),
            turn: 0,
            index: 3,
            available: 0
        }
    );
    assert_eq!(
        err.to_string(),
        "script s.json: turns[0].text uses {{tool_output:3}}, but the session has only 0 tool outputs so far"
    );
}

#[test]
fn cancellation_interrupts_a_delay() {
    let p = provider(r#"{"turns":[{"delay_ms":600000,"text":"late"}]}"#);
    let cancel = AtomicBool::new(true);
    let request = GenerationRequest {
        generation: 0,
        session_id: "",
        instructions: "",
        context: &[],
        tools: &[],
        cancel: &cancel,
        model: &crate::provider::test_model(),
        compacted_outputs: 0,
        on_retry: None,
        on_reasoning: None,
    };
    assert_eq!(
        p.generate(&request, &mut |_| {}),
        Err(ProviderError::Cancelled)
    );
}

#[test]
fn templates_keep_unrelated_braces() {
    let template = TextTemplate::parse("{{x}} {tool_output:1} {{tool_output:0}}").unwrap();
    assert_eq!(
        template.render(&["out"]).unwrap(),
        "{{x}} {tool_output:1} out"
    );
    assert!(TextTemplate::parse("{{tool_output:}}").is_err());
    assert!(TextTemplate::parse("{{tool_output:+1}}").is_err());
    assert!(
        TextTemplate::parse("a {{tool_output:1")
            .unwrap_err()
            .contains("unterminated placeholder at byte 2")
    );
}

#[test]
fn malformed_scripts_name_file_turn_and_field() {
    let err = parse_err("{\"turns\": [\n{\"text\": }]}");
    let ScriptError::Json { line, column, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!((*line, *column), (2, 10));
    assert!(
        err.to_string()
            .starts_with("script s.json: not valid JSON at line 2, column 10")
    );

    let cases: &[(&str, Option<usize>, &str, &str)] = &[
        (r#"[]"#, None, "the script", "must be an object"),
        (
            r#"{"turns":[],"x":1}"#,
            None,
            "the script",
            "unknown field `x` (allowed: turns, models, children)",
        ),
        (r#"{}"#, None, "the script", "missing `turns`"),
        (r#"{"turns":[]}"#, None, "turns", "has no turns"),
        (
            r#"{"turns":[{"text":"a"},{"delay_ms":3}]}"#,
            Some(1),
            "turns[1]",
            "needs one of `text`, `tool_calls` or `raw`",
        ),
        (
            r#"{"turns":[{"text":"a","raw":"b"}]}"#,
            Some(0),
            "turns[0]",
            "has text and raw; a turn has exactly one of them",
        ),
        (
            r#"{"turns":[{"text":5}]}"#,
            Some(0),
            "turns[0].text",
            "must be a string",
        ),
        (
            r#"{"turns":[{"text":"{{tool_output:x}}"}]}"#,
            Some(0),
            "turns[0].text",
            "placeholder {{tool_output:x}} needs a 0-based number",
        ),
        (
            r#"{"turns":[{"raw":"r","delay_ms":-1}]}"#,
            Some(0),
            "turns[0].delay_ms",
            "must be an integer 0..=600000",
        ),
        (
            r#"{"turns":[{"raw":"r","usage":{"input":-1}}]}"#,
            Some(0),
            "turns[0].usage.input",
            "must be a non-negative integer",
        ),
        (
            r#"{"turns":[{"raw":"r","usage":{"cached":1}}]}"#,
            Some(0),
            "turns[0].usage",
            "unknown field `cached` (allowed: input, output)",
        ),
        (
            r#"{"turns":[{"raw":"r","speed":1}]}"#,
            Some(0),
            "turns[0]",
            "unknown field `speed` (allowed: text, tool_calls, raw, delay_ms, usage)",
        ),
        (
            r#"{"turns":[{"tool_calls":[]}]}"#,
            Some(0),
            "turns[0].tool_calls",
            "must be a non-empty array of calls",
        ),
        (
            r#"{"turns":[{"tool_calls":[{"name":"read"}]}]}"#,
            Some(0),
            "turns[0].tool_calls[0]",
            "missing `arguments`",
        ),
        (
            r#"{"turns":[{"text":"a"},{"tool_calls":[{"name":1,"arguments":{}}]}]}"#,
            Some(1),
            "turns[1].tool_calls[0].name",
            "must be a string",
        ),
        (
            r#"{"turns":[{"tool_calls":[{"name":"a","arguments":{},"call_id":"c"},{"name":"b","arguments":{},"call_id":"c"}]}]}"#,
            Some(0),
            "turns[0].tool_calls[1].call_id",
            "must be non-empty and unique in the turn",
        ),
    ];
    for (text, turn, field, reason) in cases {
        let expected = ScriptError::Invalid {
            file: "s.json".into(),
            turn: *turn,
            field: (*field).into(),
            reason: (*reason).into(),
        };
        assert_eq!(parse_err(text), expected, "{text}");
    }
    assert_eq!(
        parse_err(r#"{"turns":[{"text":5}]}"#).to_string(),
        "script s.json: turns[0].text: must be a string"
    );
}

#[test]
fn load_reports_unreadable_files() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.json");
    let err = ScriptedProvider::load(&missing).unwrap_err();
    assert!(matches!(err, ScriptError::Read { .. }));
    assert!(err.to_string().contains("nope.json: cannot read it"));
    let path = dir.path().join("s.json");
    std::fs::write(&path, r#"{"turns":[{"text":"hi"}]}"#).unwrap();
    assert_eq!(
        ScriptedProvider::load(&path).unwrap().script().turns.len(),
        1
    );
}

#[test]
fn a_script_offers_a_model_catalog_with_efforts() {
    let script = Script::parse(
        "s.json",
        r#"{"models":[{"id":"a"},{"id":"b","efforts":["low","high"]}],"turns":[{"text":"x"}]}"#,
    )
    .unwrap();
    let models = script.models.unwrap();
    assert_eq!(models[0].id, "a");
    assert!(models[0].efforts.is_empty());
    assert_eq!(
        models[1].efforts,
        [ansa_sessions::Effort::Low, ansa_sessions::Effort::High]
    );
    let bad = Script::parse(
        "s.json",
        r#"{"models":[{"id":"b","efforts":["extreme"]}],"turns":[{"text":"x"}]}"#,
    )
    .unwrap_err();
    assert!(bad.to_string().contains("models[0].efforts"), "{bad}");
}

#[test]
fn a_turn_reports_its_usage_and_a_turn_without_reports_none() {
    let p = provider(r#"{"turns":[{"usage":{"input":800,"output":300},"text":"a"},{"text":"b"}]}"#);
    let cancel = AtomicBool::new(false);
    let generated = |generation| {
        let request = GenerationRequest {
            generation,
            session_id: "",
            instructions: "",
            context: &[],
            tools: &[],
            cancel: &cancel,
            model: &crate::provider::test_model(),
            compacted_outputs: 0,
            on_retry: None,
            on_reasoning: None,
        };
        p.generate_full(&request, &mut |_: &str| {}).unwrap()
    };
    let first = generated(0);
    assert_eq!(first.turn, ModelTurn::Final { text: "a".into() });
    let usage = first.usage.expect("reported");
    assert_eq!(
        (usage.input_tokens, usage.output_tokens, usage.total_tokens),
        (800, 300, 1100)
    );
    assert_eq!(generated(1).usage, None);
}
