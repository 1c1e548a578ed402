//! Environment, stdin, output projection and retention.

use super::*;

#[test]
fn environment_deltas_set_remove_and_clear() {
    let mut h = Harness::new();
    let show = quote("echo \"A=${A-unset} HOME=${HOME-unset}\"");
    let set = exec(
        1,
        "sh",
        &format!("[-c,{show}]"),
        "[\"A=1 2\",-HOME]",
        "~",
        0,
        4096,
        30_000,
    );
    let (r, _) = h.ask(&set);
    assert_eq!(data(&r).stdout.as_deref(), Some("A=1 2 HOME=unset\n"));
    let cleared = exec(
        2,
        "sh",
        &format!("[-c,{}]", quote("env")),
        "[\"B=2\"]",
        "~",
        1,
        4096,
        30_000,
    );
    let (r, _) = h.ask(&cleared);
    let out = data(&r).stdout.clone().expect("env output");
    assert!(out.contains("B=2\n"), "{out}");
    assert!(
        !out.contains("HOME="),
        "a cleared environment inherits nothing: {out}"
    );
}

#[test]
fn stdin_from_text_and_from_a_reference() {
    let mut h = Harness::new();
    let (r, _) = h.ask(&exec(1, "cat", "[]", "[]", "\"piped\\n\"", 0, 4096, 30_000));
    assert_eq!(data(&r).stdout.as_deref(), Some("piped\n"));
    let alias = h
        .session
        .store_mut()
        .retain(b"from the store\n".to_vec())
        .expect("retain");
    let (r, _) = h.ask(&exec(
        2,
        "cat",
        "[]",
        "[]",
        &format!("@{alias}"),
        0,
        4096,
        30_000,
    ));
    assert_eq!(data(&r).stdout.as_deref(), Some("from the store\n"));
    let (r, _) = h.ask(&exec(3, "cat", "[]", "[]", "@99", 0, 4096, 30_000));
    assert_eq!(
        r.error.as_ref().map(|e| e.code.as_u16()),
        Some(700),
        "unknown stdin reference"
    );
}

#[test]
fn non_utf8_output_has_no_text_and_is_retained_exactly() {
    let mut h = Harness::new();
    let (r, text) = h.ask(&sh(1, "printf 'a\\377b'"));
    let d = data(&r);
    assert_eq!(d.stdout, None);
    let alias = d.stdout_ref.expect("retained");
    assert_eq!(h.retained(alias), b"a\xffb");
    // Shown without text: truncated and reduced as well as retained (the reference's bits).
    assert!(text.ends_with("z:11\nr:~\n"), "{text}");
}

#[test]
fn repeated_lines_collapse_and_crlf_normalises_with_the_source_retained() {
    let mut h = Harness::new();
    let (r, text) = h.ask(&sh(1, "for i in 1 2 3 4 5; do echo alpha; done"));
    assert_eq!(data(&r).stdout.as_deref(), Some("alpha\n×5\n"));
    assert!(
        text.ends_with("z:11\nr:~\n"),
        "a pure ×N collapse is z:11: {text}"
    );
    let alias = data(&r).stdout_ref.expect("retained");
    assert_eq!(h.retained(alias), b"alpha\n".repeat(5));

    let (r, text) = h.ask(&sh(2, "for i in 1 2 3 4 5; do printf 'beta\\r\\n'; done"));
    assert_eq!(data(&r).stdout.as_deref(), Some("beta\n×5\n"));
    assert!(
        text.ends_with("z:15\nr:~\n"),
        "CRLF + collapse is z:15: {text}"
    );
}

#[test]
fn failure_focus_applies_only_to_unsuccessful_exits() {
    let mut h = Harness::new();
    let log = "for i in $(seq 1 40); do echo noise-$i; done; echo 'error: boom'; for i in $(seq 1 40); do echo tail-$i; done";
    let (ok, _) = h.ask(&sh(1, log));
    let (failed, _) = h.ask(&sh(2, &format!("{log}; exit 1")));
    let ok_text = data(&ok).stdout.clone().expect("text");
    let failed_text = data(&failed).stdout.clone().expect("text");
    assert!(
        !ok_text.contains('⋯'),
        "success keeps the head/tail path: {ok_text}"
    );
    assert!(
        failed_text.contains("error: boom") && failed_text.contains('⋯'),
        "{failed_text}"
    );
}

#[test]
fn budgets_split_by_outcome() {
    let mut h = Harness::new();
    // tok 64 → L 256: success gives stdout 128 bytes and stderr 32; failure the reverse.
    let script = "seq 1 200; seq 1 200 >&2";
    let ok = exec(
        1,
        "sh",
        &format!("[-c,{}]", quote(script)),
        "[]",
        "~",
        0,
        64,
        30_000,
    );
    let bad = exec(
        2,
        "sh",
        &format!("[-c,{}]", quote(&format!("{script}; exit 1"))),
        "[]",
        "~",
        0,
        64,
        30_000,
    );
    for (request, out_budget, err_budget) in [(ok, 128, 32), (bad, 32, 128)] {
        let (r, text) = h.ask(&request);
        assert!(text.len() <= 256, "the answer fits L: {}", text.len());
        let d = data(&r);
        assert!(
            d.stdout.as_ref().map_or(0, String::len) <= out_budget,
            "{d:?}"
        );
        assert!(
            d.stderr.as_ref().map_or(0, String::len) <= err_budget,
            "{d:?}"
        );
        let (ro, re) = (
            d.stdout_ref.expect("cut stdout retained"),
            d.stderr_ref.expect("cut stderr retained"),
        );
        let expected: Vec<u8> = (1..=200)
            .flat_map(|n| format!("{n}\n").into_bytes())
            .collect();
        assert_eq!(h.retained(ro), expected);
        assert_eq!(h.retained(re), expected);
    }
}
