//! The JSONL driver against a scripted runtime stand-in.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: a failed unwrap is the test failing, with its location"
)]

mod support;

use std::io::{self, BufReader, Cursor, Read};

use ansa_sessions::protocol::{CommandBody, ErrorCode, Event, EventBody, MAX_COMMAND_BYTES};
use ansa_sessions::{Mode, RequestId};
use ansa_ui::{ToRuntime, UiError, run_jsonl};
use support::{ClosedPipe, Runtime, SharedBuf, open_input, spawn};

const SUBMIT: &str = r#"{"schema_version":1,"session":"offline","incarnation":"inc-1","turn":0,"command_id":"c-1","type":"submit","text":"Explain the build","mode":"plan"}"#;

/// A runtime that answers submits, reports rejected lines, and stops after input closes.
fn serve(rt: &mut Runtime) {
    rt.snapshot(0);
    let mut request = 0;
    while let Some(msg) = rt.recv() {
        match msg {
            ToRuntime::Command(c) => {
                request += 1;
                rt.accept(&c, request);
                rt.answer(request, &format!("answer {request}"));
            }
            ToRuntime::Rejected { message, .. } => {
                rt.emit(EventBody::Error {
                    command_id: None,
                    code: ErrorCode::ParseError,
                    message,
                });
            }
            ToRuntime::InputClosed => break,
            ToRuntime::Interrupt => {}
        }
    }
}

fn run(input: impl io::BufRead + Send + 'static) -> (Vec<String>, String, Vec<ToRuntime>) {
    let (link, runtime) = spawn(serve);
    let mut out = Vec::new();
    let errors = SharedBuf::default();
    run_jsonl(link, input, &mut out, errors.clone()).unwrap();
    let log = runtime.join().unwrap();
    let out = String::from_utf8(out).unwrap();
    (out.lines().map(str::to_owned).collect(), errors.text(), log)
}

fn events(lines: &[String]) -> Vec<Event> {
    let events: Vec<Event> = lines.iter().map(|l| Event::parse(l).unwrap()).collect();
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e.stream_sequence, i as u64 + 1, "contiguous sequence");
    }
    events
}

#[test]
fn round_trip_snapshot_first_commands_parsed_errors_rejected() {
    let wrong_incarnation = SUBMIT.replace("inc-1", "old").replace("c-1", "c-2");
    let input = format!("{SUBMIT}\n\n   \nnot json\n{wrong_incarnation}\n");
    let (lines, errors, log) = run(Cursor::new(input));

    assert_eq!(
        lines[0],
        r#"{"stream_sequence":1,"type":"snapshot","session":"offline","incarnation":"inc-1","mode":"basic","transcript_size":0,"request_id":null,"turn":0,"resume_available":false,"state":null,"durable":true,"storage_failed":false,"read_only":false,"preview":null,"through_sequence":1}"#
    );
    let events = events(&lines);
    assert!(events.iter().any(|e| matches!(
        &e.body,
        EventBody::TextDelta { text, request_id: RequestId(1) } if text == "answer 1"
    )));

    assert_eq!(log.len(), 4, "{log:?}");
    let ToRuntime::Command(c) = &log[0] else {
        panic!("{log:?}")
    };
    assert_eq!(c.command_id.as_str(), "c-1");
    assert_eq!(
        c.body,
        CommandBody::Submit {
            text: "Explain the build".into(),
            mode: Mode::Plan,
            mentions: Vec::new(),
        }
    );
    assert!(matches!(&log[1], ToRuntime::Rejected { line: 4, message }
        if message.starts_with("command is not a valid JSON object")));
    assert!(matches!(&log[2], ToRuntime::Rejected { line: 5, message }
        if message.contains("incarnation `old` does not match")));
    assert_eq!(log[3], ToRuntime::InputClosed);

    let err_lines: Vec<&str> = errors.lines().collect();
    assert_eq!(err_lines.len(), 2, "{errors}");
    assert!(err_lines[0].starts_with("ansa: input line 4: command is not a valid JSON object"));
    assert!(err_lines[1].starts_with("ansa: input line 5: incarnation `old`"));
    // The runtime's parse_error events reach the output too.
    assert_eq!(
        events
            .iter()
            .filter(|e| matches!(e.body, EventBody::Error { .. }))
            .count(),
        2
    );
}

#[test]
fn overlong_line_is_skipped_without_buffering_and_the_next_line_works() {
    let long = 16 * MAX_COMMAND_BYTES;
    let input = io::repeat(b'x')
        .take(long as u64)
        .chain(Cursor::new(format!("\n{SUBMIT}\n")));
    let (lines, errors, log) = run(BufReader::new(input));

    let expected = format!(
        "command is {long} bytes long; at most {MAX_COMMAND_BYTES} bytes per line are accepted"
    );
    assert_eq!(
        log[0],
        ToRuntime::Rejected {
            line: 1,
            message: expected.clone()
        }
    );
    assert!(matches!(&log[1], ToRuntime::Command(c) if c.command_id.as_str() == "c-1"));
    assert_eq!(log[2], ToRuntime::InputClosed);
    assert_eq!(errors, format!("ansa: input line 1: {expected}\n"));
    assert!(events(&lines).len() > 3);
}

#[test]
fn a_line_of_exactly_the_limit_is_parsed_not_rejected_as_too_long() {
    let mut line = SUBMIT.to_owned();
    line.push_str(&" ".repeat(MAX_COMMAND_BYTES - line.len()));
    let (_, errors, log) = run(Cursor::new(format!("{line}\r\n")));
    assert!(errors.is_empty(), "{errors}");
    assert!(matches!(&log[0], ToRuntime::Command(_)), "{log:?}");
}

#[test]
fn non_utf8_line_is_rejected_clearly() {
    let mut input = b"{\"text\":\"\xff\xfe\"}\n".to_vec();
    input.extend_from_slice(SUBMIT.as_bytes());
    let (_, errors, log) = run(Cursor::new(input));
    assert!(matches!(&log[0], ToRuntime::Rejected { line: 1, message }
        if message.contains("not valid UTF-8") && message.contains("offset 9")));
    assert!(matches!(&log[1], ToRuntime::Command(_)));
    assert!(errors.starts_with("ansa: input line 1: line is not valid UTF-8"));
}

#[test]
fn empty_input_closes_input_and_prints_only_the_snapshot() {
    let (lines, errors, log) = run(Cursor::new(Vec::new()));
    assert_eq!(log, vec![ToRuntime::InputClosed]);
    assert_eq!(lines.len(), 1);
    assert!(matches!(events(&lines)[0].body, EventBody::Snapshot(_)));
    assert!(errors.is_empty());
}

#[test]
fn broken_pipe_on_output_closes_input_once_and_returns_ok() {
    let (link, runtime) = spawn(|rt| {
        rt.snapshot(0);
        let c = rt.command();
        rt.accept(&c, 1); // the client's pipe is gone: this write fails
        rt.input_closed();
        // Accepted work finishes; the driver drains these events without writing them.
        rt.answer(1, "nobody reads this");
        assert_eq!(rt.recv(), None, "nothing after InputClosed");
    });
    // Input stays open (a client that is still connected but stopped reading).
    let (input, keep_open) = open_input(format!("{SUBMIT}\n").as_bytes());
    let mut out = ClosedPipe {
        ok_writes: 1,
        written: Vec::new(),
    };
    run_jsonl(link, BufReader::new(input), &mut out, SharedBuf::default()).unwrap();
    let log = runtime.join().unwrap();
    assert_eq!(log.len(), 2, "{log:?}");
    assert_eq!(log[1], ToRuntime::InputClosed);
    assert!(
        String::from_utf8(out.written)
            .unwrap()
            .contains("\"snapshot\"")
    );
    drop(keep_open);
}

#[test]
fn runtime_that_stops_while_input_is_open_is_an_error() {
    let (link, runtime) = spawn(|rt| rt.snapshot(0));
    let (input, keep_open) = open_input(b"");
    let err = run_jsonl(
        link,
        BufReader::new(input),
        Vec::new(),
        SharedBuf::default(),
    );
    assert!(
        matches!(&err, Err(UiError::RuntimeStopped { when }) if when.contains("input was still open")),
        "{err:?}"
    );
    runtime.join().unwrap();
    drop(keep_open);
}

#[test]
fn runtime_that_stops_before_its_snapshot_or_starts_with_another_event_is_an_error() {
    let (link, runtime) = spawn(|_| {});
    let err = run_jsonl(
        link,
        Cursor::new(Vec::new()),
        Vec::new(),
        SharedBuf::default(),
    );
    assert!(
        matches!(&err, Err(UiError::RuntimeStopped { when }) if when.contains("first snapshot")),
        "{err:?}"
    );
    runtime.join().unwrap();

    let (link, runtime) = spawn(|rt| {
        rt.emit(EventBody::ResyncRequired { reason: "x".into() });
        rt.input_closed();
    });
    let err = run_jsonl(
        link,
        Cursor::new(Vec::new()),
        Vec::new(),
        SharedBuf::default(),
    );
    assert!(
        matches!(&err, Err(UiError::Protocol(m)) if m.contains("resync_required")),
        "{err:?}"
    );
    runtime.join().unwrap();
}

#[test]
fn failing_input_is_reported_after_the_runtime_finishes() {
    struct Failing;
    impl Read for Failing {
        fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
            Err(io::Error::other("terminal vanished"))
        }
    }
    let (link, runtime) = spawn(serve);
    let err = run_jsonl(
        link,
        BufReader::new(Failing),
        Vec::new(),
        SharedBuf::default(),
    );
    assert!(
        matches!(&err, Err(UiError::Io { what, .. }) if what.contains("reading commands")),
        "{err:?}"
    );
    assert_eq!(runtime.join().unwrap(), vec![ToRuntime::InputClosed]);
}

#[test]
fn events_carry_no_raw_character_a_terminal_acts_on_and_the_same_text() {
    const HOSTILE: &str = "a\x1b[2J b\u{9b}2J c\u{202e}d \u{2028} e\x7f \u{e0041}";
    let (link, runtime) = spawn(|rt| {
        rt.snapshot(0);
        while let Some(msg) = rt.recv() {
            match msg {
                ToRuntime::Command(c) => {
                    rt.accept(&c, 1);
                    rt.answer(1, HOSTILE);
                }
                ToRuntime::InputClosed => break,
                _ => {}
            }
        }
    });
    let mut out = Vec::new();
    run_jsonl(
        link,
        Cursor::new(format!("{SUBMIT}\n")),
        &mut out,
        io::sink(),
    )
    .unwrap();
    runtime.join().unwrap();
    let text = String::from_utf8(out).unwrap();
    assert!(
        text.chars()
            .all(|c| c == '\n' || (c.is_ascii() && !c.is_ascii_control())),
        "{text:?}"
    );
    assert!(
        text.contains(r"\u009b2J") && text.contains(r"\u202e"),
        "{text}"
    );
    let lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let answer = events(&lines).into_iter().find_map(|e| match e.body {
        EventBody::TextDelta { text, .. } => Some(text),
        _ => None,
    });
    assert_eq!(answer.as_deref(), Some(HOSTILE), "the value is unchanged");
}
