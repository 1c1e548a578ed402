//! Handshake and approval challenge validation.

use super::doc;
use crate::protocol::*;

fn hs(row: &str) -> String {
    format!("t:0\ni:7\na{{ap,al,ah,zp,zl,zh,frm,out,ops,cap,root,n}}:\n{row}\n")
}

const OK: &str = "1,0,0,1,0,0,1048576,65536,1023,15,.,nonce-7";

fn parse(text: &str) -> Result<HandshakeRequest, HandshakeError> {
    HandshakeRequest::from_document(&doc(text))
}

#[test]
fn handshake_request_bounds() {
    for row in [
        "1,0,0,1,0,0,256,1,0,0,a,n",
        "1,0,9,1,0,9,8388608,18446744073709551615,65535,255,.,n",
    ] {
        let req = parse(&hs(row)).expect(row);
        assert_eq!(req.encode(), hs(row));
    }
    let root_max = "r".repeat(4096);
    let nonce_max = "n".repeat(128);
    assert!(
        parse(&hs(&format!(
            "1,0,0,1,0,0,256,1,0,0,{root_max},{nonce_max}"
        )))
        .is_ok()
    );
}

#[test]
fn handshake_request_violations() {
    let root_long = "r".repeat(4097);
    let nonce_long = "n".repeat(129);
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "ash low > high",
            hs("1,1,0,1,0,0,1048576,65536,1023,15,.,n"),
            "a.al",
        ),
        (
            "ason low > high",
            hs("1,0,0,1,2,1,1048576,65536,1023,15,.,n"),
            "a.zl",
        ),
        ("frm 255", hs("1,0,0,1,0,0,255,65536,1023,15,.,n"), "a.frm"),
        (
            "frm over 8 MiB",
            hs("1,0,0,1,0,0,8388609,65536,1023,15,.,n"),
            "a.frm",
        ),
        ("out 0", hs("1,0,0,1,0,0,1048576,0,1023,15,.,n"), "a.out"),
        (
            "empty root",
            hs("1,0,0,1,0,0,1048576,65536,1023,15,\"\",n"),
            "a.root",
        ),
        (
            "long root",
            hs(&format!("1,0,0,1,0,0,1048576,65536,1023,15,{root_long},n")),
            "a.root",
        ),
        (
            "empty nonce",
            hs("1,0,0,1,0,0,1048576,65536,1023,15,.,\"\""),
            "a.n",
        ),
        (
            "long nonce",
            hs(&format!("1,0,0,1,0,0,1048576,65536,1023,15,.,{nonce_long}")),
            "a.n",
        ),
        (
            "ops leading zero",
            hs("1,0,0,1,0,0,1048576,65536,01023,15,.,n"),
            "a.ops",
        ),
        (
            "null cap",
            hs("1,0,0,1,0,0,1048576,65536,1023,~,.,n"),
            "a.cap",
        ),
        ("t:1", "t:1\ni:7\na{ap}:\n1\n".into(), "t"),
        ("extra field", format!("{}x:1\n", hs(OK)), "document"),
        ("column order", hs(OK).replace("ap,al", "al,ap"), "a"),
    ];
    for (name, text, at) in cases {
        match parse(&text) {
            Err(HandshakeError::Schema(e)) => assert!(e.at.starts_with(at), "{name}: {e}"),
            other => panic!("{name}: {other:?}"),
        }
    }
}

#[test]
fn negotiation() {
    let req = |row: &str| parse(&hs(row)).expect(row);
    let n = HandshakeResponse::negotiate(&req("1,0,3,1,0,0,8388608,100000,65535,255,.,x"), 1 << 20)
        .expect("supported");
    assert_eq!(
        (n.frame, n.output, n.ops, n.caps),
        (1 << 20, 65_536, OpMask::ALL, Caps::ALL)
    );
    assert_eq!((n.session, n.nonce.as_str(), n.id), (1, "x", 7));
    assert_eq!(n.os, std::env::consts::OS);
    let n = HandshakeResponse::negotiate(&req("1,0,0,1,0,0,8388608,100000,3,5,.,x"), MAX_FRAME)
        .expect("supported");
    assert_eq!(
        (n.frame, n.output, n.ops.bits(), n.caps.bits()),
        (MAX_FRAME, 65_536, 3, 5)
    );
    let n = HandshakeResponse::negotiate(&req("1,0,0,1,0,0,256,1000,0,0,.,x"), MAX_FRAME)
        .expect("supported");
    assert_eq!((n.frame, n.output), (256, 256));
    for row in [
        "2,0,0,1,0,0,1048576,65536,1023,15,.,n",
        "1,1,2,1,0,0,1048576,65536,1023,15,.,n",
        "1,0,0,0,0,0,1048576,65536,1023,15,.,n",
        "1,0,0,1,1,1,1048576,65536,1023,15,.,n",
    ] {
        let got = HandshakeResponse::negotiate(&req(row), MAX_FRAME);
        assert!(
            matches!(got, Err(HandshakeError::Unsupported { .. })),
            "{row}: {got:?}"
        );
    }
    let encoded = n.encode();
    let back = HandshakeResponse::from_document(&doc(&encoded)).expect("round trip");
    assert_eq!(back, n);
}

#[test]
fn handshake_response_violations() {
    let ok = "t:0\ni:7\ns:0\nd{ap,av,zp,zv,frm,out,ops,cap,os,arch,sid,n}:\n1,0,1,0,1048576,65536,1023,15,linux,x86_64,1,n\n";
    assert!(HandshakeResponse::from_document(&doc(ok)).is_ok());
    for (name, text) in [
        ("s:1", ok.replace("s:0", "s:1")),
        ("ops above 0x3ff", ok.replace(",1023,", ",1024,")),
        ("cap above 0xf", ok.replace(",15,", ",16,")),
        ("os null", ok.replace("linux", "~")),
        ("missing s", ok.replace("s:0\n", "")),
    ] {
        assert!(
            HandshakeResponse::from_document(&doc(&text)).is_err(),
            "{name}"
        );
    }
}

#[test]
fn challenge_rules_and_signing_bytes() {
    let ok = "v:1\ns:7\nc:2\ne:99\nb:01010101010101010101010101010101\np:02020202020202020202020202020202\nh:0303030303030303030303030303030303030303030303030303030303030303\nn:04040404040404040404040404040404\n";
    let c = Challenge::from_document(&doc(ok)).expect("valid");
    let bytes = c.signing_bytes();
    assert_eq!(bytes[0], 1);
    assert_eq!(&bytes[1..9], &7u64.to_be_bytes());
    assert_eq!(&bytes[9..17], &2u64.to_be_bytes());
    assert_eq!(&bytes[17..25], &99u64.to_be_bytes());
    assert_eq!(&bytes[25..41], &[1; 16]);
    assert_eq!(&bytes[41..57], &[2; 16]);
    assert_eq!(&bytes[57..89], &[3; 32]);
    assert_eq!(&bytes[89..105], &[4; 16]);
    let cases = [
        ("version 2", ok.replace("v:1", "v:2"), "v"),
        ("caps 16", ok.replace("c:2", "c:16"), "c"),
        ("uppercase binding", ok.replace("b:0101", "b:0A01"), "b"),
        ("short policy", ok.replace("p:0202", "p:02"), "p"),
        ("long nonce", ok.replace("n:0404", "n:040404"), "n"),
        (
            "action as 16 bytes",
            ok.replace("h:03030303030303030303030303030303", "h:"),
            "h",
        ),
        ("expiry text", ok.replace("e:99", "e:soon"), "e"),
        (
            "field order",
            ok.replace("v:1\ns:7\n", "s:7\nv:1\n"),
            "document",
        ),
    ];
    for (name, text, at) in cases {
        match Challenge::from_document(&doc(&text)) {
            Err(e) => assert_eq!(e.at, at, "{name}: {e}"),
            Ok(c) => panic!("{name}: accepted {c:?}"),
        }
    }
}
