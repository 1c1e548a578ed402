use std::borrow::Cow;

use super::*;

#[test]
fn clean_text_is_borrowed() {
    let text = "plain\ttext\nwith ünïcödé, 漢字, 👨\u{200d}👩 and 🦀";
    assert!(matches!(flowing(text), Cow::Borrowed(_)));
    let line = "run sh -c 'echo hi' — ünïcödé 漢字";
    assert!(matches!(exact(line), Cow::Borrowed(_)));
    assert!(matches!(
        json_line(r#"{"a":"é 漢字 \u001b"}"#),
        Cow::Borrowed(_)
    ));
}

#[test]
fn c0_controls_become_their_control_pictures() {
    assert_eq!(exact("a\x1b[2K\x1b[1A\x1b[2Kb"), "a␛[2K␛[1A␛[2Kb");
    assert_eq!(exact("\0\x01\x07\x08\x0b\x0c\x18\x1a\x1f"), "␀␁␇␈␋␌␘␚␟");
    assert_eq!(exact("del\x7f"), "del␡");
    assert_eq!(exact("one\ntwo\tthree\r\n"), "one␊two␉three␍␊");
    assert_eq!(
        flowing("bell\x07 back\x08space nul\0"),
        "bell␇ back␈space nul␀"
    );
}

#[test]
fn c1_bidi_and_invisible_characters_are_named() {
    assert_eq!(exact("x\u{9b}2Jy"), "x<U+009B>2Jy");
    assert_eq!(
        exact("a\u{85}b\u{9d}0;t\u{9c}"),
        "a<U+0085>b<U+009D>0;t<U+009C>"
    );
    assert_eq!(
        exact("user\u{202e} \u{2066}// admin\u{2069}"),
        "user<U+202E> <U+2066>// admin<U+2069>"
    );
    assert_eq!(
        exact("p\u{200b}a\u{ad}y\u{feff}"),
        "p<U+200B>a<U+00AD>y<U+FEFF>"
    );
    assert_eq!(exact("ok\u{e0069}"), "ok<U+E0069>");
    assert_eq!(exact("\u{3164}\u{115f}"), "<U+3164><U+115F>");
    assert_eq!(exact("a\u{2028}b"), "a<U+2028>b");
    // Joiners stay in both forms.
    assert_eq!(exact("👨\u{200d}👩"), "👨\u{200d}👩");
}

#[test]
fn flowing_text_keeps_lines_and_drops_only_colour() {
    assert_eq!(flowing("a\x1b[1;31mred\x1b[0m b\x1b[m"), "ared b");
    assert_eq!(flowing("\x1b[38:2:255:0:0mtrue"), "true");
    assert_eq!(flowing("line one\r\nline two\r\n"), "line one\nline two\n");
    assert_eq!(flowing("a\u{2028}b\u{2029}c"), "a\nb\nc");
    // Everything that is not colour is shown.
    assert_eq!(flowing("up\x1b[1A\x1b[2K"), "up␛[1A␛[2K");
    assert_eq!(
        flowing("echo safe\r\x1b[Krm -rf ~"),
        "echo safe␍␛[Krm -rf ~"
    );
    assert_eq!(
        flowing("\x1b]8;;http://evil\x07link\x1b]8;;\x1b\\"),
        "␛]8;;http://evil␇link␛]8;;␛\\"
    );
    assert_eq!(flowing("\x1b]52;c;cm0g\x07"), "␛]52;c;cm0g␇");
    // Not SGR: a private parameter, an intermediate, or no final `m`.
    assert_eq!(flowing("\x1b[?25l\x1b[1 m\x1b[12"), "␛[?25l␛[1 m␛[12");
    assert_eq!(flowing("end\x1b"), "end␛");
    // C1 CSI is never colour here.
    assert_eq!(flowing("\u{9b}31mx"), "<U+009B>31mx");
}

#[test]
fn exact_text_shows_colour_too() {
    assert_eq!(exact("\x1b[31mred"), "␛[31mred");
}

#[test]
fn output_is_stable() {
    for text in [
        "a\x1b[2K\nb\r\tc\u{9b}\u{202e}\u{2028}\x7f",
        "\x1b[31m\r\r\n\u{e0041}",
    ] {
        let once = exact(text);
        assert!(matches!(exact(&once), Cow::Borrowed(_)), "{once:?}");
        let once = flowing(text);
        assert!(matches!(flowing(&once), Cow::Borrowed(_)), "{once:?}");
    }
}

#[test]
fn json_keeps_its_value_and_loses_raw_controls() {
    let value = serde_json::json!({
        "text": "a\x1b[2Jb\u{9b}c\u{202e}d\u{2028}e\x7f\u{e0041}\n漢",
    });
    let line = serde_json::to_string(&value).unwrap();
    let safe = json_line(&line);
    assert!(
        safe.chars()
            .all(|c| c.is_ascii() && !c.is_ascii_control() || c == '漢'),
        "{safe}"
    );
    assert!(
        safe.contains(r"\u009b") && safe.contains(r"\udb40\udc41"),
        "{safe}"
    );
    let back: serde_json::Value = serde_json::from_str(&safe).unwrap();
    assert_eq!(back, value);
}
