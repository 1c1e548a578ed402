//! Framing, bootstrap codes and handshake negotiation.

use crate::client::{Rpc, default_handshake, frame, handshake, read};
use crate::workspace;

/// Runs a session with raw `input` and returns (exit, answers, bootstrap code on stderr).
fn run_raw(input: &[u8]) -> (i32, Vec<String>, Option<u64>) {
    let ws = workspace();
    let mut rpc = Rpc::start(ws.path());
    rpc.raw(input);
    let (code, answers, err) = rpc.finish();
    let boot = err
        .strip_prefix("s:1\ne{c}:\n")
        .and_then(|r| r.lines().next())
        .and_then(|c| c.parse().ok());
    (code, answers, boot)
}

fn with_handshake(rest: &[u8]) -> Vec<u8> {
    let mut v = frame(default_handshake().as_bytes());
    v.extend_from_slice(rest);
    v
}

#[test]
fn every_bootstrap_code_of_the_transport() {
    let cases: Vec<(&str, Vec<u8>, i32, u64)> = vec![
        ("missing handshake", Vec::new(), 4, 7),
        ("truncated prefix", vec![0, 0], 4, 5),
        ("zero-length frame", vec![0, 0, 0, 0], 4, 5),
        ("over the ceiling", vec![0x00, 0x10, 0x00, 0x01], 4, 5),
        ("huge length", vec![0xff, 0xff, 0xff, 0xff], 4, 5),
        ("truncated payload", vec![0, 0, 0, 9, b't'], 4, 5),
        ("invalid UTF-8", frame(b"t:\xff\n"), 4, 3),
        ("syntax", frame(b"t:0\n\n"), 4, 4),
        ("non-canonical", frame(b"t:\"0\"\n"), 4, 5),
        ("first frame not t:0", frame(read(1, "a.txt").as_bytes()), 4, 6),
        (
            "unsupported version",
            frame(
                b"t:0\ni:7\na{ap,al,ah,zp,zl,zh,frm,out,ops,cap,root,n}:\n2,0,0,1,0,0,1048576,65536,1023,15,.,n\n",
            ),
            4,
            6,
        ),
        ("missing root", frame(handshake(1 << 20, 65536, 1023, 15, "nope").as_bytes()), 70, 9),
        ("root is a file", frame(handshake(1 << 20, 65536, 1023, 15, "a.txt").as_bytes()), 4, 6),
        ("no usable id after the handshake", with_handshake(&frame(b"t:1\ni:0\n")), 4, 6),
        ("truncated after the handshake", with_handshake(&[0, 0, 1]), 4, 5),
        ("zero-length after the handshake", with_handshake(&[0, 0, 0, 0]), 4, 5),
    ];
    for (name, input, exit, code) in cases {
        let (got_exit, _, got_code) = run_raw(&input);
        assert_eq!((got_exit, got_code), (exit, Some(code)), "{name}");
    }
}

#[test]
fn clean_eof_after_the_handshake_exits_zero() {
    let (exit, answers, code) = run_raw(&frame(default_handshake().as_bytes()));
    assert_eq!((exit, code), (0, None));
    assert_eq!(
        answers,
        [
            "t:0\ni:7\ns:0\nd{ap,av,zp,zv,frm,out,ops,cap,os,arch,sid,n}:\n1,0,1,0,1048576,65536,1023,15,linux,x86_64,1,nonce-7\n"
        ]
    );
}

#[test]
fn handshake_negotiates_limits_and_masks() {
    let cases = [
        // frm up to 8 MiB on request (§9.5); out = min(client, 65536, frm); masks truncated.
        ((8 << 20, 1 << 30, 0xffff, 0xff), "8388608,65536,1023,15"),
        ((256, 65536, 3, 1), "256,256,3,1"),
        ((4096, 100, 0, 0), "4096,100,0,0"),
    ];
    for ((frm, out, ops, cap), want) in cases {
        let ws = workspace();
        let mut rpc = Rpc::start(ws.path());
        rpc.send(&handshake(frm, out, ops, cap, "."));
        let hello = rpc.recv().expect("answer");
        assert!(
            hello.contains(&format!("\n1,0,1,0,{want},linux,")),
            "{hello}"
        );
        assert!(hello.ends_with(",1,nonce-7\n"), "{hello}");
        assert_eq!(rpc.finish().0, 0);
    }
}

#[test]
fn a_negotiated_large_frame_ceiling_is_honoured() {
    let ws = workspace();
    let mut rpc = Rpc::start(ws.path());
    rpc.send(&handshake(8 << 20, 65536, 1023, 15, "."));
    rpc.recv().expect("hello");
    // 256 paths of 4096 bytes: a document over the 1 MiB default, inside the negotiated 8 MiB.
    let path = "d".repeat(4096);
    let paths = vec![path.as_str(); 256].join(",");
    let big = format!(
        "t:1\ni:1\no:r\na{{p,m,o,n}}:\n[{paths}],0,0,64\nu{{tok,rec,ms}}:\n1000,16,30000\n"
    );
    assert!(big.len() > 1 << 20);
    rpc.send(&big);
    let answer = rpc.recv().expect("answer");
    assert!(answer.starts_with("t:3\ni:1\ns:"), "{answer}");
    assert_eq!(rpc.finish().0, 0);
}

#[test]
fn operation_and_capability_masks_are_enforced_but_cancel_is_exempt() {
    let ws = workspace();
    let mut rpc = Rpc::start(ws.path());
    // ops: only read (bit 1); caps: only read.
    rpc.send(&handshake(1 << 20, 65536, 2, 1, "."));
    rpc.recv().expect("hello");
    rpc.send(&read(1, "a.txt"));
    rpc.send(&crate::client::sh(2, "true"));
    rpc.send(&crate::client::cancel(3, 99));
    rpc.send(&handshake(1 << 20, 65536, 2, 1, "."));
    let (exit, answers, _) = rpc.finish();
    assert_eq!(exit, 0);
    // The cancel answer bypasses the order; it may come first.
    let mut by_id: Vec<&String> = answers.iter().collect();
    by_id.sort_by_key(|a| crate::client::id_of(a));
    assert!(by_id[0].starts_with("t:3\ni:1\ns:0\n"), "{}", by_id[0]);
    assert_eq!(
        by_id[1],
        "t:3\ni:2\ns:2\ne{c,q,p,x,a}:\n101,1,3,~,~\nz:0\nr:~\n"
    );
    assert_eq!(by_id[2], "t:3\ni:3\ns:0\nd{i,z}:\n99,0\nz:0\nr:~\n");
    // A second handshake is an ordinary invalid request.
    assert_eq!(
        by_id[3],
        "t:3\ni:7\ns:1\ne{c,q,p,x,a}:\n100,1,1,~,~\nz:0\nr:~\n"
    );
}

#[test]
fn capabilities_not_granted_are_denied() {
    let ws = workspace();
    let mut rpc = Rpc::start(ws.path());
    rpc.send(&handshake(1 << 20, 65536, 1023, 0, "."));
    rpc.recv().expect("hello");
    rpc.send(&read(1, "a.txt"));
    let (_, answers, _) = rpc.finish();
    assert_eq!(
        answers,
        ["t:3\ni:1\ns:3\ne{c,q,p,x,a}:\n300,0,3,~,~\nz:0\nr:~\n"]
    );
}
