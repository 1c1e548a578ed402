//! The forms a credential is found in. The expected encodings were made independently
//! (Python's `urllib.parse` and `base64`), not with this module's encoder.

use super::*;

const KEY: &str = "sk-proj-Zx9/Q+w=Ab_cD-e~fG.h1";

fn redact(text: &str) -> String {
    Redactor::new([KEY]).redact(text)
}

#[test]
fn written_out_percent_and_json_forms_are_redacted() {
    for form in [
        KEY,
        "%73%6B%2D%70%72%6F%6A%2D%5A%78%39%2F%51%2B%77%3D%41%62%5F%63%44%2D%65%7E%66%47%2E%68%31",
        "%73%6b%2d%70%72%6f%6a%2d%5a%78%39%2f%51%2b%77%3d%41%62%5f%63%44%2d%65%7e%66%47%2e%68%31",
        "sk-proj-Zx9%2fQ%2bw%3dAb_cD-e~fG.h1",
        "sk-proj-Zx9%2FQ%2Bw%3DAb_cD-e~fG.h1",
        r"\u0073\u006b\u002d\u0070\u0072\u006f\u006a\u002d\u005a\u0078\u0039\u002f\u0051\u002b\u0077\u003d\u0041\u0062\u005f\u0063\u0044\u002d\u0065\u007e\u0066\u0047\u002e\u0068\u0031",
        r"s\u006B-\u0070r\u006Fj\u002DZ\u00789\u002FQ\u002Bw\u003DA\u0062_\u0063D\u002De\u007Ef\u0047.\u00681",
        r"sk-proj-Zx9\/Q+w=Ab_cD-e~fG.h1",
    ] {
        assert_eq!(
            redact(&format!("key [{form}] bad")),
            "key [<redacted>] bad",
            "{form}"
        );
    }
}

#[test]
fn base64_forms_at_every_alignment_are_redacted() {
    for (form, left) in [
        ("c2stcHJvai1aeDkvUSt3PUFiX2NELWV+ZkcuaDE=", ""),
        ("c2stcHJvai1aeDkvUSt3PUFiX2NELWV-ZkcuaDE", ""),
        ("c2stcHJvai1aeDkvUSt3PUFiX2NELWV%2BZkcuaDE%3D", ""),
        // base64("user:" + key): the key starts 2 bytes into a group.
        ("dXNlcjpzay1wcm9qLVp4OS9RK3c9QWJfY0QtZX5mRy5oMQ==", "dXNlcj"),
        // URL-safe base64("a" + key + "zz"): 1 byte into a group, text after it.
        ("YXNrLXByb2otWng5L1Erdz1BYl9jRC1lfmZHLmgxeno=", "Y"),
        // base64("ab" + key + "z").
        ("YWJzay1wcm9qLVp4OS9RK3c9QWJfY0QtZX5mRy5oMXo=", "YW"),
    ] {
        let out = redact(&format!("auth {form} end"));
        assert!(
            out.starts_with(&format!("auth {left}<redacted>")),
            "{form}: {out}"
        );
        assert!(
            out.ends_with(" end") && out.len() < form.len() + 20,
            "{form}: {out}"
        );
    }
    // Two forms back to back are both found.
    assert_eq!(
        redact("c2stcHJvai1aeDkvUSt3PUFiX2NELWV+ZkcuaDEc2stcHJvai1aeDkvUSt3PUFiX2NELWV+ZkcuaDE"),
        "<redacted><redacted>"
    );
    // What follows the key may leave a character or two: they carry none of its bits.
    assert_eq!(
        redact("Basic dXNlcjpzay1wcm9qLVp4OS9RK3c9QWJfY0QtZX5mRy5oMQ=="),
        "Basic dXNlcj<redacted>"
    );
}

#[test]
fn other_text_and_short_or_no_secrets_are_left_alone() {
    let text = "rate limited: 50% of quota, retry in 2s \\u0041 +x";
    assert_eq!(redact(text), text);
    assert_eq!(Redactor::new(["abc"]).redact("abc"), "abc");
    assert_eq!(Redactor::new(None).redact(KEY), KEY);
    assert_eq!(redact(&format!("x{KEY}")), "x<redacted>");
    // Non-ASCII text around a match stays whole.
    assert_eq!(redact(&format!("é{KEY}é")), "é<redacted>é");
}

#[test]
fn a_non_ascii_secret_is_found_escaped() {
    let r = Redactor::new(["pässwörd-😀"]);
    assert_eq!(
        r.redact(r"x p\u00e4ssw%C3%B6rd-\ud83d\ude00 y"),
        "x <redacted> y"
    );
}

#[test]
fn a_credential_split_by_control_characters_or_cut_short_is_still_redacted() {
    let key = "sk-proj-Zx9/Q+w=Ab_cD-e~fG.h1";
    let r = Redactor::new([key]);
    let split = format!("Unauthorized: key\n{}\n{}", &key[..15], &key[15..]);
    assert_eq!(r.redact(&split), "Unauthorized: key<redacted>");
    let nul = format!("{}\0{}", &key[..5], &key[5..]);
    assert_eq!(r.redact(&nul), "<redacted>");
    // A body cut at its size limit in the middle of the key.
    let cut = format!("(HTTP 401): {}", &key[..key.len() - 1]);
    assert_eq!(r.redact(&cut), "(HTTP 401): <redacted>");
    assert_eq!(
        r.redact("(HTTP 401): sk-"),
        "(HTTP 401): sk-",
        "shorter than 4 bytes"
    );
}
