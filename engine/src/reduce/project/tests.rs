use super::*;

fn plane() -> ComputePlane {
    let Ok(plane) = ComputePlane::new(2) else {
        panic!("compute pool");
    };
    plane
}

fn project(bytes: &str, outcome: ExitOutcome, budget: usize) -> Projection {
    project_stream(&plane(), bytes.as_bytes(), outcome, budget)
}

#[test]
fn budgets_follow_the_outcome() {
    let success = stream_budgets(1000, ExitOutcome::Succeeded);
    assert_eq!((success.stdout, success.stderr), (500, 125));
    for outcome in [
        ExitOutcome::ExitedUnsuccessfully,
        ExitOutcome::TimedOutOrCancelled,
    ] {
        let failure = stream_budgets(1001, outcome);
        assert_eq!((failure.stdout, failure.stderr), (125, 500));
    }
}

#[test]
fn empty_and_opaque_streams_have_no_text() {
    let empty = project_stream(&plane(), b"", ExitOutcome::Succeeded, 100);
    assert_eq!(empty, Projection::default());
    assert!(!empty.retains(0));
    let opaque = project_stream(&plane(), b"ok\xff\n", ExitOutcome::Succeeded, 100);
    assert_eq!(opaque, Projection::default());
    assert!(opaque.retains(4));
    assert_eq!(opaque.flag_bits(), 0);
}

#[test]
fn plain_text_is_untouched() {
    let p = project("hello\nworld\n", ExitOutcome::Succeeded, 100);
    assert_eq!(p.text.as_deref(), Some("hello\nworld\n"));
    assert_eq!(p.flag_bits(), 0);
    assert!(!p.retains(12));
}

#[test]
fn collapse_sets_truncated_and_reduced() {
    let p = project(&"alpha\n".repeat(5), ExitOutcome::Succeeded, 100);
    assert_eq!(p.text.as_deref(), Some("alpha\n×5\n"));
    assert_eq!(p.flag_bits(), 0b011, "z:11 once retained");
    assert!(p.retains(30));
}

#[test]
fn crlf_and_collapse_set_all_three() {
    let p = project(&"alpha\r\n".repeat(5), ExitOutcome::Succeeded, 100);
    assert_eq!(p.text.as_deref(), Some("alpha\n×5\n"));
    assert_eq!(p.flag_bits(), 0b111, "z:15 once retained");
    let crlf_only = project("a\r\nb\r\n", ExitOutcome::Succeeded, 100);
    assert_eq!(crlf_only.text.as_deref(), Some("a\nb\n"));
    assert_eq!(crlf_only.flag_bits(), 0b100);
    assert!(crlf_only.retains(6));
}

#[test]
fn crlf_lines_collapse_after_normalisation() {
    // Mixed line ends are equal once normalised, so the run spans both kinds.
    let p = project("abc\r\nabc\nabc\r\nabc\n", ExitOutcome::Succeeded, 100);
    assert_eq!(p.text.as_deref(), Some("abc\n×4\n"));
}

#[test]
fn lines_then_blocks() {
    // ×N first turns each `warn\n`×10 into `warn\n×10\n`; then the 3-line blocks repeat.
    let round = format!("{}compile step\n", "warn\n".repeat(10));
    let p = project(&round.repeat(4), ExitOutcome::Succeeded, 1000);
    assert_eq!(p.text.as_deref(), Some("warn\n×10\ncompile step\n×4#3\n"));
    assert!(p.reduced && p.truncated && !p.normalized);
}

fn failing_log() -> String {
    let mut text = String::from("setup\ncommand\n");
    for i in 0..20 {
        text.push_str(&format!("noise-{i}\n"));
    }
    text.push_str("error: linking failed\n");
    for i in 0..30 {
        text.push_str(&format!("detail-{i}\n"));
    }
    text.push_str("summary\ndone\n");
    text
}

#[test]
fn focus_only_for_unsuccessful_exits() {
    let text = failing_log();
    let failed = project(&text, ExitOutcome::ExitedUnsuccessfully, 10_000);
    let focused = failed.text.clone().unwrap_or_default();
    assert!(
        focused.contains("⋯18\n") && focused.contains("⋯24\n"),
        "{focused}"
    );
    assert_eq!(failed.flag_bits(), 0b011);
    for outcome in [ExitOutcome::Succeeded, ExitOutcome::TimedOutOrCancelled] {
        let p = project(&text, outcome, 10_000);
        assert_eq!(p.text.as_deref(), Some(text.as_str()), "{outcome:?}");
        assert_eq!(p.flag_bits(), 0);
    }
}

#[test]
fn cut_without_reduction() {
    let text = format!("{}\nend\n", "x".repeat(100));
    let p = project(&text, ExitOutcome::Succeeded, 25);
    // content 20 → head 10, tail 10.
    assert_eq!(p.text.as_deref(), Some("xxxxxxxxxx\n...\nxxxxx\nend\n"));
    assert_eq!(p.flag_bits(), 0b001);
    assert!(
        p.retains(text.len() as u64),
        "a cut retains (docs/protocol.md decision 4)"
    );
    let tiny = project(&text, ExitOutcome::Succeeded, 7);
    assert_eq!(tiny.text, None);
    assert!(tiny.truncated && tiny.retains(text.len() as u64));
    let fits = project("ok\n", ExitOutcome::Succeeded, 3);
    assert_eq!(fits.text.as_deref(), Some("ok\n"));
    assert!(!fits.truncated);
}

#[test]
fn samples_cut_like_the_whole_text() {
    let text: String = (0..300).map(|i| format!("{i}:é€😀 line\n")).collect();
    let bytes = text.as_bytes();
    let len = bytes.len();
    for budget in (0..600).chain([len - 1, len, len + 5]) {
        let (head_size, tail_size) = sample_sizes(budget);
        let sample = StreamSample {
            head: &bytes[..head_size.min(len)],
            tail: &bytes[len - tail_size.min(len)..],
            len: len as u64,
            utf8: true,
        };
        let Ok(p) = project_sample(&sample, budget) else {
            panic!("budget {budget}");
        };
        let expected = head_tail(&text, budget).render().map(Cow::into_owned);
        assert_eq!(p.text, expected, "budget {budget}");
        assert_eq!(p.truncated, budget < len, "budget {budget}");
        assert!(!p.reduced && !p.normalized);
    }
}

#[test]
fn samples_report_what_they_cannot_do() {
    let bytes = "0123456789".repeat(10);
    let bytes = bytes.as_bytes();
    let sample = |head: usize, tail: usize| StreamSample {
        head: &bytes[..head],
        tail: &bytes[100 - tail..],
        len: 100,
        utf8: true,
    };
    // budget 25: content 20 → head needs 11 bytes (10 + the boundary byte), tail 10.
    assert!(project_sample(&sample(11, 10), 25).is_ok());
    assert!(matches!(
        project_sample(&sample(10, 10), 25),
        Err(SampleError::TooShort { part: "head", .. })
    ));
    assert!(matches!(
        project_sample(&sample(11, 9), 25),
        Err(SampleError::TooShort { part: "tail", .. })
    ));
    assert!(matches!(
        project_sample(&sample(40, 40), 100),
        Err(SampleError::TooShort {
            part: "head+tail",
            ..
        })
    ));
    let whole = project_sample(&sample(60, 40), 100).map(|p| p.text);
    assert_eq!(whole, Ok(Some(String::from_utf8_lossy(bytes).into_owned())));
    let too_long = StreamSample {
        len: 50,
        ..sample(60, 0)
    };
    assert!(matches!(
        project_sample(&too_long, 100),
        Err(SampleError::Inconsistent { .. })
    ));
    let opaque = StreamSample {
        utf8: false,
        ..sample(11, 10)
    };
    assert_eq!(project_sample(&opaque, 25), Ok(Projection::default()));
    let lying = StreamSample {
        head: b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff",
        ..sample(11, 10)
    };
    assert_eq!(project_sample(&lying, 25), Err(SampleError::NotUtf8));
    let tiny = project_sample(&sample(11, 10), 7);
    assert_eq!(tiny.map(|p| (p.text, p.truncated)), Ok((None, true)));
}
