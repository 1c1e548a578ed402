use super::*;

/// An owned copy of an event, for comparisons.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Owned {
    event: String,
    data: String,
    id: Option<String>,
}

fn ev(event: &str, data: &str, id: Option<&str>) -> Owned {
    Owned {
        event: event.into(),
        data: data.into(),
        id: id.map(Into::into),
    }
}

/// Frames `chunks` in order, then finishes.
fn frame_chunks(limits: SseLimits, chunks: &[&[u8]]) -> Result<Vec<Owned>, SseError> {
    let mut framer = SseFramer::new(limits);
    let mut events = Vec::new();
    let mut out = |e: SseEvent<'_>| -> Result<(), SseError> {
        events.push(Owned {
            event: e.event.into(),
            data: e.data.into(),
            id: e.id.map(Into::into),
        });
        Ok(())
    };
    for chunk in chunks {
        framer.push(chunk, &mut out)?;
    }
    framer.finish()?;
    Ok(events)
}

fn frame(input: &[u8]) -> Result<Vec<Owned>, SseError> {
    frame_chunks(SseLimits::default(), &[input])
}

/// Every split into two chunks and 1-byte chunks give the same result as one chunk.
fn assert_split_invariant(input: &[u8], limits: SseLimits) -> Result<Vec<Owned>, SseError> {
    let whole = frame_chunks(limits, &[input]);
    for k in 0..=input.len() {
        let split = frame_chunks(limits, &[&input[..k], &input[k..]]);
        assert_eq!(split, whole, "split at byte {k}");
    }
    let bytes: Vec<&[u8]> = input.chunks(1).collect();
    assert_eq!(frame_chunks(limits, &bytes), whole, "1-byte chunks");
    whole
}

#[test]
fn basic_fields_and_multiline_data() {
    let input = b"event: a\ndata: one\ndata:two\ndata\nid: 7\n\ndata: x\n\n";
    let events = assert_split_invariant(input, SseLimits::default()).unwrap();
    assert_eq!(
        events,
        vec![
            ev("a", "one\ntwo\n", Some("7")),
            ev("message", "x", Some("7"))
        ]
    );
}

#[test]
fn line_endings_crlf_cr_mixed() {
    let lf = b"event: e\ndata: 1\ndata: 2\n\ndata: 3\n\n".to_vec();
    let crlf = b"event: e\r\ndata: 1\r\ndata: 2\r\n\r\ndata: 3\r\n\r\n".to_vec();
    let cr = b"event: e\rdata: 1\rdata: 2\r\rdata: 3\r\r".to_vec();
    let mixed = b"event: e\r\ndata: 1\rdata: 2\n\r\ndata: 3\r\n\n".to_vec();
    let expected = vec![ev("e", "1\n2", None), ev("message", "3", None)];
    for input in [lf, crlf, cr, mixed] {
        assert_eq!(
            assert_split_invariant(&input, SseLimits::default()).unwrap(),
            expected
        );
    }
}

#[test]
fn comments_colonless_fields_and_space_stripping() {
    let input = b": keep-alive\n:\ndata\n\ndata:  two spaces\nunknown: x\nretry: 1500\n\n";
    let events = assert_split_invariant(input, SseLimits::default()).unwrap();
    assert_eq!(
        events,
        vec![ev("message", "", None), ev("message", " two spaces", None)]
    );
    let mut framer = SseFramer::default();
    framer
        .push(
            b"retry: 1500\nretry: x\n\n",
            &mut |_| Ok::<(), SseError>(()),
        )
        .unwrap();
    assert_eq!(framer.retry(), Some(1500));
}

#[test]
fn event_without_data_is_not_dispatched_and_resets_the_name() {
    let input = b"event: lonely\n\ndata: d\n\n";
    assert_eq!(frame(input).unwrap(), vec![ev("message", "d", None)]);
}

#[test]
fn id_persists_and_null_ids_are_ignored() {
    let input = b"id: 1\ndata: a\n\ndata: b\n\nid: x\0y\ndata: c\n\nid\ndata: d\n\n";
    assert_eq!(
        frame(input).unwrap(),
        vec![
            ev("message", "a", Some("1")),
            ev("message", "b", Some("1")),
            ev("message", "c", Some("1")),
            ev("message", "d", None),
        ]
    );
}

#[test]
fn bom_only_at_start() {
    let input = b"\xEF\xBB\xBFdata: a\n\n";
    let events = assert_split_invariant(input, SseLimits::default()).unwrap();
    assert_eq!(events, vec![ev("message", "a", None)]);
    // A second BOM is part of the field name, so the line is an unknown field.
    let twice = b"\xEF\xBB\xBF\xEF\xBB\xBFdata: a\n\ndata: b\n\n";
    assert_eq!(frame(twice).unwrap(), vec![ev("message", "b", None)]);
    // A character that shares the BOM's first bytes is not a BOM.
    let near = "\u{FEC0}: comment\ndata: c\n\n".as_bytes();
    assert_eq!(
        assert_split_invariant(near, SseLimits::default()).unwrap(),
        vec![ev("message", "c", None)]
    );
}

#[test]
fn truncated_streams() {
    for input in [
        &b"data: a\n\ndata: b"[..],
        b"data: a\n\ndata: b\n",
        b"data: a\n\nevent: x\n",
        b"\xEF\xBB",
        b"data: a\n\n: unterminated comment",
    ] {
        let err = frame(input).unwrap_err();
        assert!(matches!(err, SseError::Truncated { .. }), "{err}");
        for k in 0..=input.len() {
            let split = frame_chunks(SseLimits::default(), &[&input[..k], &input[k..]]);
            assert_eq!(split, Err(err.clone()), "split at {k}");
        }
    }
    let err = frame(b"data: a\n\ndata: b\n").unwrap_err();
    assert_eq!(
        err,
        SseError::Truncated {
            line: 4,
            offset: 17,
            unterminated_bytes: 0,
            pending_data_lines: 1
        }
    );
    // A final comment line or trailing CR is not a truncated event.
    assert!(frame(b"data: a\n\n: bye\n").is_ok());
    assert!(frame(b"data: a\r\r").is_ok());
    assert!(frame(b"").is_ok());
}

#[test]
fn limits_are_enforced_with_locations() {
    let limits = SseLimits {
        max_line_bytes: 10,
        max_event_bytes: 16,
    };
    // data: 12345 is 11 bytes.
    let err = frame_chunks(limits, &[b"data: 1\n\ndata: 12345\n\n"]).unwrap_err();
    assert_eq!(
        err,
        SseError::LineTooLong {
            line: 3,
            offset: 9,
            limit: 10
        }
    );
    assert!(err.to_string().contains("max_line_bytes"), "{err}");
    // The same across chunks, including a line that never ends.
    for input in [
        &b"data: 1\n\ndata: 12345\n\n"[..],
        b"data: 1\n\ndata: 12345",
    ] {
        for k in 0..=input.len() {
            let got = frame_chunks(limits, &[&input[..k], &input[k..]]).unwrap_err();
            assert_eq!(got, err, "split at {k}");
        }
    }
    // Two 8-byte lines are within the line limit but make a 16+ byte event.
    let err = frame_chunks(limits, &[b"data: ab\ndata: cd\ndata: e\n\n"]).unwrap_err();
    assert_eq!(
        err,
        SseError::EventTooLarge {
            line: 3,
            offset: 18,
            limit: 16
        }
    );
    assert!(err.to_string().contains("max_event_bytes"), "{err}");
    // The event budget resets at each blank line.
    assert!(frame_chunks(limits, &[b"data: ab\ndata: cd\n\ndata: ef\n\n"]).is_ok());
}

#[test]
fn invalid_utf8_is_an_error() {
    let input = b"data: ok\n\ndata: a\xFFb\n\n";
    let err = frame(input).unwrap_err();
    assert_eq!(
        err,
        SseError::InvalidUtf8 {
            line: 3,
            offset: 17
        }
    );
    for k in 0..=input.len() {
        let got = frame_chunks(SseLimits::default(), &[&input[..k], &input[k..]]).unwrap_err();
        assert_eq!(got, err, "split at {k}");
    }
    // A multi-byte character split across chunks is fine.
    let text = "data: é→😀\n\n".as_bytes();
    assert_eq!(
        assert_split_invariant(text, SseLimits::default()).unwrap(),
        vec![ev("message", "é→😀", None)]
    );
}

#[test]
fn callback_error_stops_the_framer() {
    let mut framer = SseFramer::default();
    let mut out = |e: SseEvent<'_>| {
        if e.data == "stop" {
            Err(SseError::Closed)
        } else {
            Ok(())
        }
    };
    assert!(framer.push(b"data: stop\n\n", &mut out).is_err());
    assert_eq!(framer.push(b"data: x\n\n", &mut out), Err(SseError::Closed));
    assert_eq!(framer.finish(), Err(SseError::Closed));
}

#[test]
fn finish_twice_is_closed() {
    let mut framer = SseFramer::default();
    assert_eq!(framer.finish(), Ok(()));
    assert_eq!(framer.finish(), Err(SseError::Closed));
}
