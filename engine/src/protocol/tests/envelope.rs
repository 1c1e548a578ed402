//! The request envelope: field order, message type, id classification, budget, permit.

use super::{ID, assert_invalid, assert_valid, doc, request};
use crate::protocol::*;

const A: &str = "a{i}:\n4";

fn envelope(fields: &[&str]) -> String {
    let mut s = fields.join("\n");
    s.push('\n');
    s
}

#[test]
fn minimal_and_boundary_requests_are_valid() {
    assert_valid("cancel", &request("k", A));
    let max =
        "t:1\ni:18446744073709551615\no:k\na{i}:\n4\nu{tok,rec,ms}:\n1048576,1000000,86400000\n";
    let req = assert_valid("max budget and id", max);
    assert_eq!(req.id, u64::MAX);
    assert_eq!(
        req.budget,
        Budget {
            tok: Budget::MAX_TOK,
            rec: Budget::MAX_REC,
            ms: Budget::MAX_MS
        }
    );
    let min = "t:1\ni:1\no:k\na{i}:\n4\nu{tok,rec,ms}:\n1,1,1\n";
    assert_valid("min budget", min);
}

#[test]
fn permit_is_96_lowercase_hex_and_round_trips() {
    let hex: String = (0u8..48).map(|b| format!("{b:02x}")).collect();
    let text = format!("{}v:{hex}\n", request("k", A));
    let req = assert_valid("permit", &text);
    let want: Vec<u8> = (0u8..48).collect();
    assert_eq!(req.permit.map(|p| p.to_vec()), Some(want));
    assert_eq!(req.encode(), text);
}

#[test]
fn requests_without_a_usable_id_end_the_session() {
    let cases: &[(&str, &str)] = &[
        ("missing i", "t:1\no:k\na{i}:\n4\nu{tok,rec,ms}:\n1,1,1\n"),
        ("i:0", "t:1\ni:0\no:k\na{i}:\n4\nu{tok,rec,ms}:\n1,1,1\n"),
        (
            "leading zero",
            "t:1\ni:05\no:k\na{i}:\n4\nu{tok,rec,ms}:\n1,1,1\n",
        ),
        ("null", "t:1\ni:~\no:k\na{i}:\n4\nu{tok,rec,ms}:\n1,1,1\n"),
        (
            "reference",
            "t:1\ni:@5\no:k\na{i}:\n4\nu{tok,rec,ms}:\n1,1,1\n",
        ),
        (
            "vector",
            "t:1\ni:[5]\no:k\na{i}:\n4\nu{tok,rec,ms}:\n1,1,1\n",
        ),
        (
            "negative",
            "t:1\ni:-5\no:k\na{i}:\n4\nu{tok,rec,ms}:\n1,1,1\n",
        ),
        (
            "overflow",
            "t:1\ni:18446744073709551616\no:k\na{i}:\n4\nu{tok,rec,ms}:\n1,1,1\n",
        ),
        (
            "record",
            "t:1\ni{v}:\n5\no:k\na{i}:\n4\nu{tok,rec,ms}:\n1,1,1\n",
        ),
        ("only i:0", "i:0\n"),
    ];
    for (name, text) in cases {
        match Request::from_document(&doc(text)) {
            Err(e @ RequestError::NoUsableId(_)) => {
                assert_eq!(e.id(), None, "{name}");
                assert_eq!(e.response(), None, "{name}");
                assert!(e.schema_error().at.starts_with('i') || e.schema_error().at == "i");
            }
            other => panic!("{name}: want NoUsableId, got {other:?}"),
        }
    }
}

#[test]
fn envelope_violations_with_an_id_are_invalid() {
    let u = "u{tok,rec,ms}:\n64,64,30000";
    let cases: &[(&str, String, &str)] = &[
        ("t:2 event", envelope(&["t:2", "i:5", "o:k", A, u]), "t"),
        (
            "t:4 cancellation",
            envelope(&["t:4", "i:5", "o:k", A, u]),
            "t",
        ),
        (
            "t:0 second handshake",
            envelope(&["t:0", "i:5", "o:k", A, u]),
            "t",
        ),
        ("t:3", envelope(&["t:3", "i:5", "o:k", A, u]), "t"),
        (
            "t leading zero",
            envelope(&["t:01", "i:5", "o:k", A, u]),
            "t",
        ),
        ("t missing", envelope(&["i:5", "o:k", A, u]), "t"),
        ("t as text", envelope(&["t:one", "i:5", "o:k", A, u]), "t"),
        (
            "i before t",
            envelope(&["i:5", "t:1", "o:k", A, u]),
            "document",
        ),
        (
            "u before a",
            envelope(&["t:1", "i:5", "o:k", u, A]),
            "document",
        ),
        ("missing u", envelope(&["t:1", "i:5", "o:k", A]), "document"),
        ("missing o", envelope(&["t:1", "i:5", A, u]), "document"),
        ("missing a", envelope(&["t:1", "i:5", "o:k", u]), "document"),
        (
            "extra field",
            envelope(&["t:1", "i:5", "o:k", A, u, "x:1"]),
            "document",
        ),
        (
            "v before u",
            envelope(&["t:1", "i:5", "o:k", A, &format!("v:{}", "0".repeat(96)), u]),
            "document",
        ),
        (
            "seven fields",
            envelope(&[
                "t:1",
                "i:5",
                "o:k",
                A,
                u,
                &format!("v:{}", "0".repeat(96)),
                "w:1",
            ]),
            "document",
        ),
        ("unknown op z", envelope(&["t:1", "i:5", "o:z", A, u]), "o"),
        ("two letters", envelope(&["t:1", "i:5", "o:xr", A, u]), "o"),
        ("empty op", envelope(&["t:1", "i:5", "o:\"\"", A, u]), "o"),
        ("null op", envelope(&["t:1", "i:5", "o:~", A, u]), "o"),
        (
            "op as vector",
            envelope(&["t:1", "i:5", "o:[k]", A, u]),
            "o",
        ),
        (
            "u column order",
            envelope(&["t:1", "i:5", "o:k", A, "u{rec,tok,ms}:\n64,64,30000"]),
            "u",
        ),
        (
            "u missing column",
            envelope(&["t:1", "i:5", "o:k", A, "u{tok,rec}:\n64,64"]),
            "u",
        ),
        (
            "u as table",
            envelope(&["t:1", "i:5", "o:k", A, "u[1]{tok,rec,ms}:\n64,64,30000"]),
            "u",
        ),
        (
            "u as scalar",
            envelope(&["t:1", "i:5", "o:k", A, "u:64"]),
            "u",
        ),
        (
            "tok 0",
            envelope(&["t:1", "i:5", "o:k", A, "u{tok,rec,ms}:\n0,64,30000"]),
            "u.tok",
        ),
        (
            "tok too big",
            envelope(&["t:1", "i:5", "o:k", A, "u{tok,rec,ms}:\n1048577,64,30000"]),
            "u.tok",
        ),
        (
            "tok leading zero",
            envelope(&["t:1", "i:5", "o:k", A, "u{tok,rec,ms}:\n064,64,30000"]),
            "u.tok",
        ),
        (
            "tok null",
            envelope(&["t:1", "i:5", "o:k", A, "u{tok,rec,ms}:\n~,64,30000"]),
            "u.tok",
        ),
        (
            "tok vector",
            envelope(&["t:1", "i:5", "o:k", A, "u{tok,rec,ms}:\n[64],64,30000"]),
            "u.tok",
        ),
        (
            "rec 0",
            envelope(&["t:1", "i:5", "o:k", A, "u{tok,rec,ms}:\n64,0,30000"]),
            "u.rec",
        ),
        (
            "rec too big",
            envelope(&["t:1", "i:5", "o:k", A, "u{tok,rec,ms}:\n64,1000001,30000"]),
            "u.rec",
        ),
        (
            "ms 0",
            envelope(&["t:1", "i:5", "o:k", A, "u{tok,rec,ms}:\n64,64,0"]),
            "u.ms",
        ),
        (
            "ms too big",
            envelope(&["t:1", "i:5", "o:k", A, "u{tok,rec,ms}:\n64,64,86400001"]),
            "u.ms",
        ),
        (
            "ms negative",
            envelope(&["t:1", "i:5", "o:k", A, "u{tok,rec,ms}:\n64,64,-1"]),
            "u.ms",
        ),
        (
            "permit uppercase",
            envelope(&["t:1", "i:5", "o:k", A, u, &format!("v:{}", "A".repeat(96))]),
            "v",
        ),
        (
            "permit short",
            envelope(&["t:1", "i:5", "o:k", A, u, &format!("v:{}", "a".repeat(94))]),
            "v",
        ),
        (
            "permit long",
            envelope(&["t:1", "i:5", "o:k", A, u, &format!("v:{}", "a".repeat(98))]),
            "v",
        ),
        (
            "permit not hex",
            envelope(&["t:1", "i:5", "o:k", A, u, &format!("v:{}", "g".repeat(96))]),
            "v",
        ),
        (
            "permit null",
            envelope(&["t:1", "i:5", "o:k", A, u, "v:~"]),
            "v",
        ),
        (
            "permit reference",
            envelope(&["t:1", "i:5", "o:k", A, u, "v:@1"]),
            "v",
        ),
    ];
    for (name, text, at) in cases {
        assert_invalid(name, text, at);
    }
}

#[test]
fn invalid_request_answer_is_100_1_1() {
    let d = doc(&envelope(&[
        "t:2",
        "i:9",
        "o:k",
        A,
        "u{tok,rec,ms}:\n1,1,1",
    ]));
    let err = Request::from_document(&d).expect_err("t:2 is invalid");
    assert_eq!(err.id(), Some(9));
    let answer = err.response().expect("has an id");
    assert_eq!(
        answer.encode(),
        "t:3\ni:9\ns:1\ne{c,q,p,x,a}:\n100,1,1,~,~\nz:0\nr:~\n"
    );
    assert!(err.to_string().contains("message type 2"), "{err}");
}

#[test]
fn error_messages_name_field_and_problem() {
    let d = doc(&envelope(&[
        "t:1",
        "i:5",
        "o:k",
        A,
        "u{tok,rec,ms}:\n0,64,30000",
    ]));
    let err = Request::from_document(&d).expect_err("tok 0");
    assert_eq!(
        err.to_string(),
        "request 5 is invalid: u.tok: 0 is outside the allowed range 1..=1048576"
    );
    let d = doc(&envelope(&[
        "t:1",
        "i:5",
        "o:z",
        A,
        "u{tok,rec,ms}:\n1,1,1",
    ]));
    let msg = Request::from_document(&d).expect_err("o:z").to_string();
    assert!(msg.contains("o: \"z\" is not an operation letter"), "{msg}");
    let _ = ID;
}

#[test]
fn approval_action_excludes_id_budget_and_permit() {
    let hex = "ab".repeat(48);
    let a = assert_valid(
        "x",
        &format!(
            "{}v:{hex}\n",
            request("x", "a{x,v,c,e,in,f}:\nls,[],.,[],~,0")
        ),
    );
    let b = assert_valid(
        "x",
        &request("x", "a{x,v,c,e,in,f}:\nls,[],.,[],~,0").replace("i:5", "i:6"),
    );
    assert_eq!(
        crate::ason::encode(&a.action_document()),
        "v:1\no:x\na{x,v,c,e,in,f}:\nls,[],.,[],~,0\nc:4\n"
    );
    assert_eq!(a.action_digest(), b.action_digest());
    let mut want = b"ash-approval-action-v1\0".to_vec();
    want.extend_from_slice(crate::ason::encode(&a.action_document()).as_bytes());
    assert_eq!(a.action_digest(), Digest::of(&want));
    let c = assert_valid("x", &request("x", "a{x,v,c,e,in,f}:\nls,[a],.,[],~,0"));
    assert_ne!(a.action_digest(), c.action_digest());
}

#[test]
fn required_caps_and_op_bits_per_operation() {
    let cases: &[(&str, &str, u8, u8)] = &[
        ("x", "a{x,v,c,e,in,f}:\nls,[],.,[],~,0", 4, 0),
        ("r", "a{p,m,o,n}:\n[a],0,0,1", 1, 1),
        ("l", "a{p,d,f}:\n[.],0,0", 1, 2),
        ("g", "a{q,p,f}:\nx,[.],0", 1, 3),
        (
            "p",
            &format!("a{{p,h,i,o,n,v,f}}:\n[a],[{}],[0],[0],[0],[x],0", super::H),
            2,
            4,
        ),
        ("f", "a[1]{i,k,p,q,h,v}:\n1,0,a,~,~,x", 2, 5),
        ("/", "a:[@1,0,1]", 8, 7),
        ("#", "a:[@1,1,1]", 8, 7),
        ("?", "a:[@1,0,1,x,0]", 8, 7),
        ("-", "a:[@1]", 8, 7),
        ("|", "a:[@1,d,0,1,p]", 8, 7),
        (">", "a:[@1,out]", 10, 7),
        ("s", "a{p,d,m,r,f}:\n[.],0,0,~,0", 1, 8),
        ("k", A, 0, 9),
    ];
    for (o, a, caps, bit) in cases {
        let req = assert_valid(o, &request(o, a));
        assert_eq!(req.required_caps().bits(), *caps, "caps of {o}");
        assert_eq!(req.op.op_bit(), *bit, "bit of {o}");
        assert_eq!(req.op.letter().to_string(), *o);
        assert!(req.op.op_mask().bits() == 1 << bit);
    }
    let batch = concat!(
        "a[2]{i,d,o,a}:\n",
        "1,[],x,\"a{x,v,c,e,in,f}:\\nls,[],.,[],~,0\\n\"\n",
        "2,[],>,\"a:[@1,out]\\n\""
    );
    let req = assert_valid("batch", &request("b", batch));
    assert_eq!(
        req.required_caps(),
        Caps::PROCESS | Caps::RETAINED | Caps::WRITE
    );
    assert_eq!(req.op.op_bit(), 6);
}
